/**
 * Secret fields, declared once in the zod schema that describes them: {@link secretField} marks a
 * field's schema, and whoever holds the schema learns which fields carry secrets from it.
 *
 * - A route's *response* schema names the credentials the service answers with (a new API key's
 *   `key`, an environment's SDK keys): the HTTP core removes those fields, by name, from every
 *   error of a call of that route, body and text (`redact.ts`), so a 2xx that fails validation
 *   (`ValidationError.body`) or an error answer that echoes them never carries them.
 * - A route's *request* schema (`RouteOptions.request`) names the secrets a call sends (a text
 *   secret's value): the core collects their values from each call's body and removes them, whole
 *   or in fragments, from every error of that call.
 * - A provider's input schema names its secret inputs: `check` failures and update conflicts show
 *   them as `[secret]` (`provider/core/check.ts`, `provider/core/guard.ts`).
 *
 * The mark is kept beside the schema (a private set), not in zod's global metadata, so it changes
 * nothing zod does with the schema (parsing, JSON Schema).
 * @module
 */
import type { z } from "zod";

const MARKED = new WeakSet<object>();

/** Marks `schema` as a secret field's; returns the same schema (wrap it before `.optional()` or after). */
export function secretField<S extends z.ZodType>(schema: S): S {
  MARKED.add(schema);
  return schema;
}

/** One step of a path into a body: an object key, or every item of an array or record (`"*"`). */
export type SecretPath = readonly string[];

const ANY = "*";
const MAX_DEPTH = 24;

interface Def {
  type: string;
  innerType?: z.ZodType;
  in?: z.ZodType;
  out?: z.ZodType;
  shape?: Record<string, z.ZodType>;
  element?: z.ZodType;
  options?: readonly z.ZodType[];
  left?: z.ZodType;
  right?: z.ZodType;
  valueType?: z.ZodType;
  items?: readonly z.ZodType[];
  rest?: z.ZodType | null;
  getter?: () => z.ZodType;
}

const defOf = (schema: z.ZodType): Def => (schema as unknown as { _zod: { def: Def } })._zod.def;

/** Whether `schema`, or a wrapper or pipe stage around its value, is marked by {@link secretField}. */
export function isSecretField(schema: z.ZodType): boolean {
  let s: z.ZodType | undefined = schema;
  for (let i = 0; s !== undefined && i < MAX_DEPTH; i++) {
    if (MARKED.has(s)) return true;
    const def = defOf(s);
    if (def.type === "pipe") return isSecretField(def.in!) || isSecretField(def.out!);
    s = def.innerType;
  }
  return false;
}

/**
 * The paths of every secret field of `schema`, at any depth: through objects, arrays, records,
 * tuples, unions (every option), intersections, pipes, lazy schemas and the optional / nullable /
 * default wrappers. An array or record item is {@link ANY} (`"*"`).
 */
export function secretPaths(schema: z.ZodType): SecretPath[] {
  const out: SecretPath[] = [];
  const seen = new Set<string>();
  walk(schema, [], out, seen, new Set());
  return out;
}

function walk(
  schema: z.ZodType,
  at: string[],
  out: SecretPath[],
  seen: Set<string>,
  open: Set<z.ZodType>,
): void {
  if (at.length > MAX_DEPTH || open.has(schema)) return;
  open.add(schema);
  try {
    const def = defOf(schema);
    switch (def.type) {
      case "object":
        for (const [key, field] of Object.entries(def.shape ?? {})) {
          const path = [...at, key];
          if (isSecretField(field)) {
            const id = path.join("\u0000");
            if (!seen.has(id)) {
              seen.add(id);
              out.push(path);
            }
          } else walk(field, path, out, seen, open);
        }
        return;
      case "array":
        walk(def.element!, [...at, ANY], out, seen, open);
        return;
      case "record":
        walk(def.valueType!, [...at, ANY], out, seen, open);
        return;
      case "tuple":
        for (const item of def.items ?? []) walk(item, [...at, ANY], out, seen, open);
        if (def.rest) walk(def.rest, [...at, ANY], out, seen, open);
        return;
      case "union":
        for (const option of def.options ?? []) walk(option, at, out, seen, open);
        return;
      case "intersection":
        walk(def.left!, at, out, seen, open);
        walk(def.right!, at, out, seen, open);
        return;
      case "pipe":
        walk(def.in!, at, out, seen, open);
        walk(def.out!, at, out, seen, open);
        return;
      case "lazy":
        walk(def.getter!(), at, out, seen, open);
        return;
      default:
        if (def.innerType) walk(def.innerType, at, out, seen, open);
    }
  } finally {
    open.delete(schema);
  }
}

/** The names of the secret fields of `schema` (the last step of each of its {@link secretPaths}). */
export function secretFieldNames(schema: z.ZodType): string[] {
  return [...new Set(secretPaths(schema).map((p) => p[p.length - 1]!))];
}

/**
 * The values at `paths` in `value` (a request body): each string, and the JSON text of any other
 * value found there that is not `null` or `undefined` (a number or an object given for a secret).
 */
export function secretValues(paths: readonly SecretPath[], value: unknown): string[] {
  const out: string[] = [];
  for (const path of paths) collect(value, path, 0, out);
  return out;
}

function collect(value: unknown, path: SecretPath, i: number, out: string[]): void {
  if (value === null || value === undefined) return;
  if (i === path.length) {
    if (typeof value === "string") out.push(value);
    else out.push(JSON.stringify(value));
    return;
  }
  if (typeof value !== "object") return;
  const step = path[i]!;
  if (step === ANY) {
    for (const item of Object.values(value)) collect(item, path, i + 1, out);
  } else if (Object.hasOwn(value, step)) {
    collect((value as Record<string, unknown>)[step], path, i + 1, out);
  }
}
