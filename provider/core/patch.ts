/**
 * Minimal RFC 6902 patches guarded by `test` operations.
 *
 * The patch from the live document to the desired one comes from the `rfc6902` library
 * (`createPatch`, array-aware). Each changing operation is preceded by `test`s of what it
 * changes, evaluated against the document as it is at that point of the patch: the value the
 * patch replaces or removes, the element an insertion shifts (or the last element / the empty
 * array an append extends), the object a new member goes into. The service applies a patch
 * atomically, so if anyone changed those values since we read them, the whole patch is refused
 * and nothing is overwritten (ref admin §2: PATCH is RFC 6902 on the definition document).
 *
 * An object is guarded by tests of its scalar leaves (and of its lists of scalars), never as a
 * whole: a service may hold members its responses leave out (the emulator keeps an empty `keys`
 * list on every treatment so that `add /treatments/0/keys/-` works), and RFC 6902 compares
 * objects member by member, so a whole-object test would fail although nothing changed.
 * @module
 */
import { applyPatch, createPatch, type Operation, Pointer } from "rfc6902";
import { escapeToken } from "rfc6902/pointer";

/** One RFC 6902 operation (the `rfc6902` library's type). */
export type PatchOp = Operation;

function clone<T>(value: T): T {
  return value === undefined ? value : (JSON.parse(JSON.stringify(value)) as T);
}

function valueAt(doc: unknown, path: string): { found: boolean; value?: unknown } {
  const ev = Pointer.fromJSON(path).evaluate(doc);
  return ev.value === undefined ? { found: false } : { found: true, value: ev.value };
}

const isScalar = (v: unknown) => v === null || typeof v !== "object";

/** Tests pinning `value` at `path`: the value itself when scalar or a list of scalars, else its leaves. */
export function leafTests(value: unknown, path: string): Operation[] {
  if (isScalar(value)) return [{ op: "test", path, value }];
  if (Array.isArray(value)) {
    if (value.every(isScalar)) return [{ op: "test", path, value: clone(value) }];
    return value.flatMap((v, i) => leafTests(v, `${path}/${i}`));
  }
  return Object.entries(value as Record<string, unknown>).flatMap(([k, v]) =>
    v === undefined ? [] : leafTests(v, `${path}/${escapeToken(k)}`),
  );
}

function testsAt(doc: unknown, path: string): Operation[] {
  const at = valueAt(doc, path);
  return at.found ? leafTests(at.value, path) : [];
}

/** The `test`s that guard one operation against `doc` (the document before that operation). */
export function guardsFor(doc: unknown, op: Operation): Operation[] {
  if (op.op === "test") return [];
  if (op.op === "replace" || op.op === "remove") return testsAt(doc, op.path);
  if (op.op === "move" || op.op === "copy") return testsAt(doc, op.from);
  // add
  const pointer = Pointer.fromJSON(op.path);
  if (pointer.tokens.length <= 1) return [];
  const parentPointer = pointer.parent();
  const parentPath = parentPointer.toString();
  const parent = parentPointer.get(doc) as unknown;
  const key = pointer.tokens[pointer.tokens.length - 1] as string;
  if (Array.isArray(parent)) {
    const index = key === "-" ? parent.length : Number(key);
    if (index < parent.length) return leafTests(parent[index], `${parentPath}/${index}`);
    if (parent.length > 0) return leafTests(parent[parent.length - 1], `${parentPath}/${parent.length - 1}`);
    return [{ op: "test", path: parentPath, value: [] }];
  }
  if (parent !== null && typeof parent === "object") {
    if (key in parent) return testsAt(doc, op.path);
    // A new member: pin the object it goes into by its scalar members (a treatment by its name).
    return Object.entries(parent as Record<string, unknown>).flatMap(([k, v]) =>
      isScalar(v) && v !== undefined
        ? [{ op: "test" as const, path: `${parentPath}/${escapeToken(k)}`, value: v }]
        : [],
    );
  }
  return [];
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
    for (const guard of guardsFor(work, op)) {
      const value = JSON.stringify((guard as { value: unknown }).value);
      if (!out.some((o) => o.op === "test" && o.path === guard.path && JSON.stringify(o.value) === value))
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
