/**
 * Bad inputs of a kind derived from its zod inputs schema and its sample (`samples.ts`), so a kind
 * needs no hand-written row for what its schema says. Walking the sample's value with the schema,
 * at every input and every member of an object, element of a list, the sample holds:
 * - a value of each JSON type the schema does not take;
 * - left out, where the member is required;
 * - a member the object does not have, where it is strict;
 * - a value outside its enum;
 * - a value just outside its bounds (a string's or a list's length, a number's range, a whole
 *   number given a fraction).
 * Each attack is kept only when the member's own schema refuses it, so every one must fail the
 * kind's `check` with a failure naming that path (`rules[0].buckets[0].size`), with no request.
 * Rules across fields (a default treatment among the treatments, sizes summing to 100) are what the
 * hand-written rows of `bad-inputs.ts` are for.
 * @module
 */
import type { z } from "zod";
import { dotPath } from "../../sdk/core/issues";

type Props = Record<string, unknown>;

/** The JSON types an input can have. */
export type JsonType = "string" | "number" | "boolean" | "array" | "object";
const JSON_TYPES: readonly JsonType[] = ["string", "number", "boolean", "array", "object"];
/** A value of each JSON type, for an input whose schema does not take that type. */
const WRONG: Readonly<Record<JsonType, unknown>> = {
  string: "wrong-type",
  number: 7,
  boolean: true,
  array: ["wrong-type"],
  object: { wrong: "type" },
};

type Def = Props & { type: string };
const defOf = (schema: unknown): Def => (schema as { _zod: { def: Def } })._zod.def;

/** The JSON types a zod schema takes as input (every type where it cannot tell: `custom`, `any`). */
export function jsonTypes(schema: z.ZodType): Set<JsonType> {
  const def = defOf(schema);
  const of = (s: unknown) => jsonTypes(s as z.ZodType);
  const typeOf = (v: unknown): JsonType[] =>
    typeof v === "string"
      ? ["string"]
      : typeof v === "number"
        ? ["number"]
        : typeof v === "boolean"
          ? ["boolean"]
          : [];
  switch (def.type) {
    case "string":
    case "template_literal":
      return new Set(["string"]);
    case "number":
    case "int":
      return new Set(["number"]);
    case "boolean":
      return new Set(["boolean"]);
    case "array":
    case "tuple":
      return new Set(["array"]);
    case "object":
    case "record":
      return new Set(["object"]);
    case "null":
    case "undefined":
      return new Set();
    case "enum":
      return new Set(Object.values(def.entries as Props).flatMap(typeOf));
    case "literal":
      return new Set((def.values as unknown[]).flatMap(typeOf));
    case "optional":
    case "nullable":
    case "default":
    case "prefault":
    case "catch":
    case "readonly":
    case "nonoptional":
      return of(def.innerType);
    case "pipe": {
      const input = defOf(def.in);
      return of(input.type === "transform" ? def.out : def.in);
    }
    case "lazy":
      return of((def.getter as () => unknown)());
    case "union":
      return new Set((def.options as unknown[]).flatMap((o) => [...of(o)]));
    case "intersection": {
      const right = of(def.right);
      return new Set([...of(def.left)].filter((t) => right.has(t)));
    }
    default:
      return new Set(JSON_TYPES);
  }
}

/** The schema under its wrappers (optional, default, a pipe's input, ...): what a value is checked by. */
function core(schema: z.ZodType): z.ZodType {
  const def = defOf(schema);
  switch (def.type) {
    case "optional":
    case "nullable":
    case "default":
    case "prefault":
    case "catch":
    case "readonly":
    case "nonoptional":
      return core(def.innerType as z.ZodType);
    case "pipe":
      return defOf(def.in).type === "transform" ? core(def.out as z.ZodType) : core(def.in as z.ZodType);
    case "lazy":
      return core((def.getter as () => z.ZodType)());
    default:
      return schema;
  }
}

/** One derived attack: the malformed inputs, the path the failure must name, and what is wrong. */
export interface SchemaAttack {
  /** `rules[0].buckets[0].size as a string`. */
  label: string;
  /** The path the failure names, as `check` writes it. */
  property: string;
  inputs: Props;
}

type Path = (string | number)[];

/** `root` with `value` at `path` (`undefined` removes an object's member). */
function put(root: unknown, path: Path, value: unknown): unknown {
  if (path.length === 0) return value;
  const [head, ...rest] = path as [string | number, ...Path];
  if (Array.isArray(root)) {
    const copy = [...root];
    copy[head as number] = put(copy[head as number], rest, value);
    return copy;
  }
  const copy = { ...(root as Props) };
  if (rest.length === 0 && value === undefined) delete copy[head as string];
  else copy[head as string] = put(copy[head as string], rest, value);
  return copy;
}

/** Values just outside the bounds of a string, number or list schema, with what each breaks. */
function outOfBounds(schema: z.ZodType, sample: unknown): { label: string; value: unknown }[] {
  const def = defOf(schema);
  const checks = ((def.checks ?? []) as { _zod: { def: Props } }[]).map((c) => c._zod.def);
  const out: { label: string; value: unknown }[] = [];
  const element = Array.isArray(sample) ? sample[0] : undefined;
  for (const c of checks) {
    if (def.type === "string" && c.check === "min_length" && (c.minimum as number) > 0)
      out.push({ label: `shorter than ${c.minimum}`, value: "x".repeat((c.minimum as number) - 1) });
    if (def.type === "string" && c.check === "max_length")
      out.push({ label: `longer than ${c.maximum}`, value: "x".repeat((c.maximum as number) + 1) });
    if (
      def.type === "array" &&
      c.check === "min_length" &&
      (c.minimum as number) > 0 &&
      element !== undefined
    )
      out.push({ label: `fewer than ${c.minimum}`, value: Array((c.minimum as number) - 1).fill(element) });
    if (def.type === "array" && c.check === "max_length" && element !== undefined)
      out.push({ label: `more than ${c.maximum}`, value: Array((c.maximum as number) + 1).fill(element) });
    if (def.type === "number" && c.check === "greater_than")
      out.push({ label: `below ${c.value}`, value: (c.value as number) - (c.inclusive ? 1 : 0) });
    if (def.type === "number" && c.check === "less_than")
      out.push({ label: `above ${c.value}`, value: (c.value as number) + (c.inclusive ? 1 : 0) });
    if (def.type === "number" && c.check === "number_format" && /int/.test(String(c.format)))
      out.push({ label: "a fraction", value: 1.5 });
  }
  if (def.type === "enum" && Object.values(def.entries as Props).every((v) => typeof v === "string"))
    out.push({ label: "outside its enum", value: "not-a-member" });
  return out;
}

/**
 * Every attack on `inputs` (a kind's valid sample) derived from `schema` (its inputs schema): each
 * kept only when the member's own schema refuses the value.
 */
export function schemaAttacks(schema: z.ZodType, inputs: Props): SchemaAttack[] {
  const attacks: SchemaAttack[] = [];
  const walk = (member: z.ZodType, value: unknown, path: Path, required: boolean) => {
    const name = dotPath(path);
    const add = (label: string, v: unknown) => {
      if (member.safeParse(v).success) return;
      attacks.push({ label: `${name} ${label}`, property: name, inputs: put(inputs, path, v) as Props });
    };
    const takes = jsonTypes(member);
    for (const t of JSON_TYPES)
      if (!takes.has(t)) add(`as ${t === "array" || t === "object" ? "an" : "a"} ${t}`, WRONG[t]);
    if (required) add("left out", undefined);
    const inner = core(member);
    for (const { label, value: v } of outOfBounds(inner, value)) add(label, v);
    if (value === undefined || value === null) return;
    const def = defOf(inner);
    if (def.type === "object" && typeof value === "object" && !Array.isArray(value)) {
      const shape = def.shape as Record<string, z.ZodType>;
      // A strict object refuses a member it does not have (the top level is the kind's own rule).
      add("with a member it does not have", { ...(value as Props), notAMember: 1 });
      for (const [key, s] of Object.entries(shape)) {
        const v = (value as Props)[key];
        if (v !== undefined) walk(s, v, [...path, key], !s.safeParse(undefined).success);
      }
    }
    if (def.type === "array" && Array.isArray(value) && value.length > 0)
      walk(def.element as z.ZodType, value[0], [...path, 0], false);
  };
  const top = defOf(core(schema));
  const shape = top.shape as Record<string, z.ZodType>;
  for (const [key, s] of Object.entries(shape)) walk(s, inputs[key], [key], !s.safeParse(undefined).success);
  attacks.push({
    label: "an input the kind does not have",
    property: "notAnInput",
    inputs: { ...inputs, notAnInput: 1 },
  });
  return attacks;
}
