/**
 * The shared `diff` of every flagstack resource, driven by data: the resource names its semantic
 * fields and the ones that force a replacement (`replaceOnChange`, the analogue of Terraform's
 * `RequiresReplace`), and may normalise a field or supply its own equality.
 *
 * ref pulumi-notes §5.2: the Node plugin forwards only `changes`, `replaces` and
 * `deleteBeforeReplace`; `__provider` must never take part, or every code change of the provider
 * would show as an update (#9982).
 * @module
 */
import type * as pulumi from "@pulumi/pulumi";
import { setOwn } from "../../sdk/core/data-record";
import { containsUnknown, PROVIDER_KEY } from "./check";

/** Per-field customisation of the comparison. */
export interface FieldRule {
  /** Maps a value to its canonical form before comparing (sort a set, fill a default). */
  normalize?: (value: unknown) => unknown;
  /**
   * Decides equality itself; receives the whole old state so that, for example, a workspace given
   * by name equals the same workspace given by id (the old state holds both).
   */
  equals?: (oldValue: unknown, newValue: unknown, olds: Record<string, unknown>) => boolean;
  /**
   * The program may leave the field out, and the service's value is then not managed: an omitted
   * new value is no change. Only the program's value is omitted this way: `equals` and `normalize`
   * never see an omitted program value, so they compare two values as they are, and a recorded
   * "none" differs from a live value (the guard, `./guard.ts`, compares the live value with the
   * recorded one by the same rule: a colleague's value set where the state recorded none is an
   * edit since, not "not managed").
   */
  optional?: boolean;
}

/** What a resource tells {@link diffInputs}. */
export interface DiffSpec<K extends string = string> {
  /** Every input that has a meaning on the service (not `adopt`, not change titles). */
  fields: readonly K[];
  /** The fields whose change replaces the object. */
  replaceOnChange: readonly K[];
  /** Delete the old object before creating the new one (natural keys that must stay unique). */
  deleteBeforeReplace?: boolean;
  /**
   * The fields whose values are secrets (a `Secret`'s value and file): a refused update shows
   * them as `[secret]` (`./guard.ts`). Take them from the input schema's marks
   * (`secretFieldNames`, `sdk/core/secret-fields.ts`), which `check` hides by too.
   */
  secret?: readonly K[];
  rules?: Partial<Record<K, FieldRule>>;
}

/**
 * Canonical JSON: object keys sorted, `undefined` members dropped, so that two values compare
 * equal exactly when they mean the same JSON document.
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(canonicalize(value));
}

function canonicalize(value: unknown): unknown {
  if (Array.isArray(value)) return value.map((v) => (v === undefined ? null : canonicalize(v)));
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) {
      const v = (value as Record<string, unknown>)[key];
      // `setOwn`: a `__proto__` key (a tag) is a member, so a change of its value is a change.
      if (v !== undefined) setOwn(out, key, canonicalize(v));
    }
    return out;
  }
  return value;
}

/** Deep JSON equality, insensitive to key order and to `undefined` members. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  return canonicalJson(a) === canonicalJson(b);
}

/** The fields of `spec` whose old and new values differ (an unknown new value always differs). */
export function changedFields<K extends string>(
  spec: DiffSpec<K>,
  olds: Record<string, unknown>,
  news: Record<string, unknown>,
): K[] {
  const changed: K[] = [];
  for (const field of spec.fields) {
    if ((field as string) === PROVIDER_KEY) continue;
    const oldValue = olds[field];
    const newValue = news[field];
    if (containsUnknown(newValue)) {
      changed.push(field);
      continue;
    }
    const rule = spec.rules?.[field];
    if (rule?.optional && newValue === undefined) continue;
    if (!sameByRule(rule, oldValue, newValue, olds)) changed.push(field);
  }
  return changed;
}

/**
 * Whether two values of a field mean the same by its rule: `equals`, else `normalize`, else JSON
 * equality. Both are values as they are (an omitted program value of an `optional` field is
 * decided before: see {@link FieldRule.optional}); `olds` is the whole state `a` comes from.
 */
export function sameByRule(
  rule: FieldRule | undefined,
  a: unknown,
  b: unknown,
  olds: Record<string, unknown>,
): boolean {
  if (rule?.equals) return rule.equals(a, b, olds);
  if (rule?.normalize) return jsonEqual(rule.normalize(a), rule.normalize(b));
  return jsonEqual(a, b);
}

/**
 * Compares old outputs with checked new inputs on the semantic fields only. Returns
 * `changes: false` when nothing differs, the changed fields that force a replacement in
 * `replaces`, `deleteBeforeReplace` when the resource asks for it and something is replaced, and
 * the unchanged fields in `stables`.
 */
export function diffInputs<K extends string>(
  spec: DiffSpec<K>,
  olds: Record<string, unknown> | undefined,
  news: Record<string, unknown> | undefined,
): pulumi.dynamic.DiffResult {
  const changed = changedFields(spec, olds ?? {}, news ?? {});
  const replaces = changed.filter((f) => spec.replaceOnChange.includes(f));
  const stables = spec.fields.filter((f) => !changed.includes(f));
  return {
    changes: changed.length > 0,
    replaces,
    stables,
    deleteBeforeReplace: replaces.length > 0 && spec.deleteBeforeReplace === true,
  };
}
