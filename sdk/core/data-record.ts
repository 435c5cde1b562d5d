/**
 * Maps whose keys are user data (tags, identity attribute values, the emulator's objects by
 * identifier), kept whole whatever the key: `__proto__`, `constructor` and `prototype` included.
 *
 * The platform's identifier pattern (ref platform §3, `^[a-zA-Z_][0-9a-zA-Z_$]{0,127}$`) accepts
 * `__proto__`, and a tag key is any string, so the service stores such keys; flagstack keeps them
 * too rather than refusing them. Two things in JavaScript lose such a key without a word:
 * - zod's `z.record` skips an own `__proto__` key of its input (so that it cannot replace the
 *   output's prototype), so a parsed tag map or state file silently drops it;
 * - assigning `obj[key] = value` into a `{}` calls the `__proto__` setter instead of making a
 *   member (a string value is ignored, an object value becomes the prototype).
 * {@link dataRecord} is `z.record(z.string(), value)` that keeps an own `__proto__` key, in its
 * place, as an own enumerable member; {@link setOwn} is the assignment that always makes a member.
 * `JSON.parse`, `JSON.stringify`, `Object.fromEntries`, `Object.entries` and object spread
 * already treat `__proto__` as an ordinary own key.
 * @module
 */
import { z } from "zod";

const PROTO = "__proto__";

/** Sets `obj[key] = value` as an own enumerable member, also for `__proto__` (never the prototype). */
export function setOwn<T>(obj: Record<string, T>, key: string, value: T): void {
  if (key === PROTO) {
    Object.defineProperty(obj, key, { value, writable: true, enumerable: true, configurable: true });
  } else {
    obj[key] = value;
  }
}

/**
 * The path of the first own `__proto__` key inside a JSON-like value (plain objects and arrays;
 * anything else, such as a Pulumi `Output`, is not looked into), or `undefined` when there is none.
 */
export function protoKeyPath(value: unknown, at: (string | number)[] = []): (string | number)[] | undefined {
  if (Array.isArray(value)) {
    for (const [i, v] of value.entries()) {
      const found = protoKeyPath(v, [...at, i]);
      if (found) return found;
    }
    return undefined;
  }
  if (typeof value !== "object" || value === null) return undefined;
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return undefined;
  for (const [k, v] of Object.entries(value)) {
    if (k === PROTO) return [...at, k];
    const found = protoKeyPath(v, [...at, k]);
    if (found) return found;
  }
  return undefined;
}

/** Whether `input` is a plain object with an own `__proto__` member (as `JSON.parse` makes one). */
function hasOwnProto(input: unknown): input is Record<string, unknown> {
  return (
    typeof input === "object" &&
    input !== null &&
    !Array.isArray(input) &&
    Object.hasOwn(input, PROTO) &&
    Object.prototype.propertyIsEnumerable.call(input, PROTO)
  );
}

type Payload = z.core.ParsePayload;
type Parse = (payload: Payload, ctx: z.core.ParseContextInternal) => Payload | Promise<Payload>;

/**
 * The record's parse with the own `__proto__` member added back: the value is checked by the
 * record's value schema (its issues under the path `["__proto__"]`), and the output's members are
 * put in the input's order.
 */
function keepProto(base: Parse, valueType: z.core.$ZodType): Parse {
  return (payload, ctx) => {
    const input = payload.value;
    if (!hasOwnProto(input)) return base(payload, ctx);
    const finish = (done: Payload): Payload | Promise<Payload> => {
      const output = done.value;
      if (typeof output !== "object" || output === null) return done;
      const value = valueType._zod.run({ value: input[PROTO], issues: [] }, ctx);
      const add = (v: Payload): Payload => {
        if (v.issues.length > 0) done.issues.push(...z.core.util.prefixIssues(PROTO, v.issues));
        // Rebuilt in place (the output object may be shared by a memoized parse), in input order.
        const parsed = new Map(Object.entries(output as Record<string, unknown>));
        for (const key of parsed.keys()) delete (output as Record<string, unknown>)[key];
        for (const key of Object.keys(input)) {
          if (key === PROTO) setOwn(output as Record<string, unknown>, key, v.value);
          else if (parsed.has(key)) (output as Record<string, unknown>)[key] = parsed.get(key);
        }
        return done;
      };
      return value instanceof Promise ? value.then(add) : add(value);
    };
    const done = base(payload, ctx);
    return done instanceof Promise ? done.then(finish) : finish(done);
  };
}

/** `z.record`'s class with the parse of {@link keepProto}, so that every copy (`.describe()`, checks) keeps it. */
const ZodDataRecord = z.core.$constructor("ZodDataRecord", (inst: z.ZodRecord, def: z.core.$ZodRecordDef) => {
  z.ZodRecord.init(inst, def);
  // Runs after zod's own deferred setup (which sets `run` and may wrap `parse`).
  inst._zod.deferred ??= [];
  inst._zod.deferred.push(() => {
    const base = inst._zod.parse;
    const wrapped = keepProto(base as Parse, def.valueType);
    inst._zod.parse = wrapped as typeof inst._zod.parse;
    if (inst._zod.run === base) inst._zod.run = wrapped as typeof inst._zod.run;
  });
});

/**
 * `z.record(z.string(), valueType, params)` that keeps an own `__proto__` key of its input (see
 * the module comment): the same type, JSON Schema and issues, with `__proto__` a member like any
 * other.
 */
export function dataRecord<V extends z.core.SomeType>(
  valueType: V,
  params?: string | z.core.$ZodRecordParams,
): z.ZodRecord<z.ZodString, V> {
  return new ZodDataRecord({
    type: "record",
    keyType: z.string(),
    valueType,
    ...z.core.util.normalizeParams(params),
  } as unknown as z.core.$ZodRecordDef) as unknown as z.ZodRecord<z.ZodString, V>;
}
