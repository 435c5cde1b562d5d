/**
 * Minimal RFC 6902 patches guarded by `test` operations.
 *
 * The patch from the live document to the desired one comes from the `rfc6902` library
 * (`createPatch`, array-aware). Each changing operation is preceded by a `test` of what it
 * changes, evaluated against the document as it is at that point of the patch: a value the
 * patch replaces or removes, the element an insertion shifts (or the last element / the empty
 * array an append extends), the object a new member goes into. The service applies a patch
 * atomically, so if anyone changed those values since we read them, the whole patch is refused
 * and nothing is overwritten (ref admin §2: PATCH is RFC 6902 on the definition document).
 * @module
 */
import { applyPatch, createPatch, type Operation, Pointer } from "rfc6902";

/** One RFC 6902 operation (the `rfc6902` library's type). */
export type PatchOp = Operation;

function clone<T>(value: T): T {
  return value === undefined ? value : (JSON.parse(JSON.stringify(value)) as T);
}

function valueAt(doc: unknown, path: string): { found: boolean; value?: unknown } {
  const ev = Pointer.fromJSON(path).evaluate(doc);
  return ev.value === undefined ? { found: false } : { found: true, value: ev.value };
}

/** The `test` that guards one operation against `doc` (the document before that operation). */
export function guardFor(doc: unknown, op: Operation): Operation | undefined {
  if (op.op === "test") return undefined;
  if (op.op === "replace" || op.op === "remove") {
    const at = valueAt(doc, op.path);
    return at.found ? { op: "test", path: op.path, value: clone(at.value) } : undefined;
  }
  if (op.op === "move" || op.op === "copy") {
    const at = valueAt(doc, op.from);
    return at.found ? { op: "test", path: op.from, value: clone(at.value) } : undefined;
  }
  // add
  const pointer = Pointer.fromJSON(op.path);
  if (pointer.tokens.length <= 1) return undefined;
  const parentPointer = pointer.parent();
  const parentPath = parentPointer.toString();
  const parent = parentPointer.get(doc) as unknown;
  const key = pointer.tokens[pointer.tokens.length - 1] as string;
  if (Array.isArray(parent)) {
    const index = key === "-" ? parent.length : Number(key);
    if (index < parent.length) return { op: "test", path: `${parentPath}/${index}`, value: clone(parent[index]) };
    if (parent.length > 0) return { op: "test", path: `${parentPath}/${parent.length - 1}`, value: clone(parent[parent.length - 1]) };
    return { op: "test", path: parentPath, value: [] };
  }
  if (parent !== null && typeof parent === "object") {
    if (key in parent) return { op: "test", path: op.path, value: clone((parent as Record<string, unknown>)[key]) };
    return { op: "test", path: parentPath, value: clone(parent) };
  }
  return undefined;
}

/**
 * The minimal patch from `live` to `desired`, each changing operation preceded by its guard.
 * Empty when the documents are equal. Adds to the document root are not guarded: a JSON Patch
 * cannot test that a member is absent, and testing the whole root would send the document twice.
 */
export function guardedPatch(live: unknown, desired: unknown): Operation[] {
  const ops = createPatch(live, desired);
  const work = clone(live);
  const out: Operation[] = [];
  for (const op of ops) {
    const guard = guardFor(work, op);
    if (guard && !out.some((o) => o.op === "test" && o.path === guard.path && JSON.stringify(o.value) === JSON.stringify((guard as { value: unknown }).value))) {
      out.push(guard);
    }
    out.push(op);
    applyPatch(work, [op]);
  }
  return out;
}

/** Counts the operations of a patch: all of them, the changing ones and the guards. */
export function patchStats(ops: readonly Operation[]): { ops: number; writes: number; tests: number } {
  const tests = ops.filter((o) => o.op === "test").length;
  return { ops: ops.length, writes: ops.length - tests, tests };
}
