/**
 * The JSON Patch of a flat document whose fields are replaced whole: for each field to write whose
 * live value differs from the desired one, a `test` of the live value, then a `replace` with the
 * desired one. The service applies a patch atomically, so a field changed by someone else since the
 * read fails the whole patch and nothing is overwritten (the same guard as `./patch.ts`, for
 * documents whose fields are scalars or lists of scalars). `undefined` is sent as `null`, which is
 * how such services store an unset field.
 * @module
 */
import type { JsonPatch } from "../../sdk/admin/schemas";
import { jsonEqual } from "./diff";

/** `test` and `replace` of each of `fields` that differs between `live` and `desired`. */
export function replaceFields<T extends object>(
  live: T,
  desired: T,
  fields: readonly (keyof T & string)[],
): JsonPatch {
  const ops: JsonPatch = [];
  for (const field of fields) {
    const from = live[field] ?? null;
    const to = desired[field] ?? null;
    if (jsonEqual(from, to)) continue;
    ops.push({ op: "test", path: `/${field}`, value: from });
    ops.push({ op: "replace", path: `/${field}`, value: to });
  }
  return ops;
}
