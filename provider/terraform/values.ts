/**
 * Values between the plugin protocol and the kinds' verbs.
 *
 * Three forms of one value:
 * - the wire form, a `DynamicValue`: MessagePack (or JSON) of the Terraform value, every attribute
 *   of an object present (null when unset), a `dynamic` value wrapped with its type
 *   (OpenTofu `docs/plugin-protocol/object-wire-format.md`);
 * - the Terraform form (`TfValue`): the decoded value, snake_case names, nulls kept, a `dynamic`
 *   value unwrapped, a value not known yet as {@link Unknown};
 * - the provider form: what the kinds' zod schemas and verbs take, camelCase names, an unset member
 *   absent.
 * Each conversion walks the attribute's {@link TfType}, so names map one-to-one and a map's keys
 * (user data) are never renamed.
 * @module
 */
import { decode, encode, isUnknown, type MsgValue, UNKNOWN_VALUE, type Unknown } from "./msgpack";
import type { TfAttribute, TfType } from "./schema";

/** A decoded Terraform value. */
export type TfValue = MsgValue;
/** A decoded Terraform object (a resource's state, configuration or plan). */
export type TfObject = { [name: string]: TfValue };

/** The protocol's `DynamicValue`. */
export interface DynamicValue {
  msgpack?: Uint8Array | null;
  json?: Uint8Array | null;
}

/** Each block's type, made once per list of attributes (a schema's, fixed for the process). */
const blockTypes = new WeakMap<readonly TfAttribute[], TfType>();

/**
 * The type of a block of attributes, as one object type: the same object for the same list (each
 * RPC asks for its resource type's, so it is derived once per schema, not once per call).
 */
export function blockType(attributes: readonly TfAttribute[]): TfType {
  let type = blockTypes.get(attributes);
  if (type === undefined) {
    type = { kind: "object", attributes: [...attributes] };
    blockTypes.set(attributes, type);
  }
  return type;
}

// ---------------------------------------------------------------------------------------------
// Wire form ↔ Terraform form

/** The Terraform value of a `DynamicValue` (MessagePack, else JSON); `null` when it holds none. */
export function decodeDynamic(dv: DynamicValue | null | undefined, type: TfType): TfValue {
  if (dv?.msgpack && dv.msgpack.length > 0) return unwrap(decode(dv.msgpack), type, "msgpack");
  if (dv?.json && dv.json.length > 0) return fromJsonText(Buffer.from(dv.json).toString("utf8"), type);
  return null;
}

/** The Terraform value of JSON text (a `DynamicValue`'s `json`, a stored state's `raw_state.json`). */
export function fromJsonText(text: string, type: TfType): TfValue {
  return unwrap(JSON.parse(text) as MsgValue, type, "json");
}

/** A `DynamicValue` holding `value` as MessagePack. */
export function encodeDynamic(value: TfValue, type: TfType): { msgpack: Buffer } {
  return { msgpack: encode(wrap(value, type)) };
}

/** Removes the type wrappers of `dynamic` values, and lets every object hold each of its attributes. */
function unwrap(value: MsgValue, type: TfType, from: "msgpack" | "json"): TfValue {
  if (value === null || isUnknown(value)) return value;
  switch (type.kind) {
    case "dynamic":
      // MessagePack: [type JSON as binary, value]; JSON: {"type": ..., "value": ...}.
      if (from === "msgpack" && Array.isArray(value) && value.length === 2 && value[0] instanceof Uint8Array)
        return value[1] as MsgValue;
      if (from === "json" && isRecord(value) && "value" in value && "type" in value)
        return value.value as MsgValue;
      return value;
    case "list":
      return Array.isArray(value) ? value.map((v) => unwrap(v, type.element, from)) : value;
    case "map":
      return isRecord(value) ? mapValues(value, (v) => unwrap(v as MsgValue, type.element, from)) : value;
    case "object": {
      if (!isRecord(value)) return value;
      const out: TfObject = {};
      for (const a of type.attributes) {
        setOwn(
          out,
          a.name,
          Object.hasOwn(value, a.name) ? unwrap(value[a.name] as MsgValue, a.type, from) : null,
        );
      }
      return out;
    }
    default:
      return value;
  }
}

/** Wraps `dynamic` values with their implied type, as the wire format wants them. */
function wrap(value: TfValue, type: TfType): MsgValue {
  if (value === null || value === undefined || isUnknown(value)) return value ?? null;
  switch (type.kind) {
    case "dynamic":
      return [Buffer.from(JSON.stringify(impliedType(value))), value];
    case "list":
      return Array.isArray(value) ? value.map((v) => wrap(v, type.element)) : value;
    case "map":
      return isRecord(value) ? mapValues(value, (v) => wrap(v as MsgValue, type.element)) : value;
    case "object": {
      const record = isRecord(value) ? value : {};
      const out: TfObject = {};
      for (const a of type.attributes) setOwn(out, a.name, wrap((record[a.name] ?? null) as TfValue, a.type));
      return out;
    }
    default:
      return value;
  }
}

/** The type of a value of a `dynamic` attribute: primitives, tuples and objects of what they hold. */
export function impliedType(value: TfValue): unknown {
  if (typeof value === "string") return "string";
  if (typeof value === "number") return "number";
  if (typeof value === "boolean") return "bool";
  if (Array.isArray(value)) return ["tuple", value.map(impliedType)];
  if (isRecord(value)) return ["object", mapValues(value, (v) => impliedType(v as TfValue))];
  return "dynamic";
}

// ---------------------------------------------------------------------------------------------
// Terraform form ↔ provider form

/**
 * The provider form of a Terraform value: camelCase members, nulls left out, a value not known yet
 * as `unknown` (the caller's marker: the Pulumi sentinel the kinds' `check` recognises).
 */
export function toProvider(value: TfValue, type: TfType, unknown: unknown): unknown {
  if (value === null) return undefined;
  if (isUnknown(value)) return unknown;
  switch (type.kind) {
    case "list":
      return Array.isArray(value) ? value.map((v) => toProvider(v, type.element, unknown) ?? null) : value;
    case "map":
      return isRecord(value)
        ? mapValues(value, (v) => toProvider(v as TfValue, type.element, unknown) ?? null)
        : value;
    case "object": {
      if (!isRecord(value)) return value;
      const out: Record<string, unknown> = {};
      for (const a of type.attributes) {
        const v = toProvider((value[a.name] ?? null) as TfValue, a.type, unknown);
        if (v !== undefined) setOwn(out, a.key, v);
      }
      return out;
    }
    case "number":
      return typeof value === "string" && value.trim() !== "" && Number.isFinite(Number(value))
        ? Number(value)
        : value;
    default:
      return value;
  }
}

/** The Terraform form of a provider value: snake_case members, every attribute of an object present. */
export function fromProvider(value: unknown, type: TfType): TfValue {
  if (value === undefined || value === null) return null;
  if (isUnknown(value)) return value;
  switch (type.kind) {
    case "string":
      return typeof value === "string" ? value : JSON.stringify(value);
    case "number":
      return typeof value === "number" ? value : Number(value);
    case "bool":
      return Boolean(value);
    case "list":
      return Array.isArray(value) ? value.map((v) => fromProvider(v, type.element)) : null;
    case "map":
      return isRecord(value) ? mapValues(value, (v) => fromProvider(v, type.element)) : null;
    case "object": {
      if (!isRecord(value)) return null;
      const out: TfObject = {};
      for (const a of type.attributes) setOwn(out, a.name, fromProvider(value[a.key], a.type));
      return out;
    }
    default:
      return plainValue(value);
  }
}

/** A JSON-like value as a Terraform value (a `dynamic` attribute's). */
function plainValue(value: unknown): TfValue {
  if (value === undefined || value === null) return null;
  if (Array.isArray(value)) return value.map(plainValue);
  if (isRecord(value)) return mapValues(value, plainValue);
  if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") return value;
  return String(value);
}

// ---------------------------------------------------------------------------------------------
// Helpers

/** True when the value is, or holds, a value not known yet. */
export function holdsUnknown(value: TfValue): boolean {
  if (isUnknown(value)) return true;
  if (Array.isArray(value)) return value.some(holdsUnknown);
  if (isRecord(value)) return Object.values(value).some((v) => holdsUnknown(v as TfValue));
  return false;
}

/** The unknown value, for a plan's values decided by the apply. */
export const unknownValue = (): Unknown => UNKNOWN_VALUE;

function isRecord(value: unknown): value is Record<string, MsgValue> {
  return (
    value !== null &&
    typeof value === "object" &&
    !Array.isArray(value) &&
    !(value instanceof Uint8Array) &&
    !isUnknown(value)
  );
}

function mapValues<T>(record: Record<string, unknown>, f: (v: unknown) => T): Record<string, T> {
  const out: Record<string, T> = {};
  for (const [k, v] of Object.entries(record)) setOwn(out, k, f(v));
  return out;
}

/**
 * Sets an own member, also `__proto__` (map keys are user data). Only that key needs
 * `defineProperty`: a plain assignment keeps the object in V8's fast mode (a plan decodes and
 * encodes three states per resource).
 */
function setOwn(target: object, key: string, value: unknown): void {
  if (key === "__proto__")
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else (target as Record<string, unknown>)[key] = value;
}
