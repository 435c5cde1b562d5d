/**
 * The writable document of a flag definition and the three views of it the provider needs:
 *
 * - `liveDoc`: the writable fields of a definition as the service returned it, values untouched,
 *   so that `test` operations built from it match what the service holds.
 * - `alignToLive`: the desired document, with every difference that means nothing (a missing
 *   member the service fills with an empty value, a target-key set in another order, the same
 *   configuration JSON formatted differently) resolved in favour of the live spelling, so the
 *   patch between them holds only real changes.
 * - `canonicalField`: a normal form for `diff` (no API call), equal for two documents exactly when
 *   they mean the same definition.
 *
 * There is one notion of "the same" here, `canonical`: `alignToLive` takes the live spelling exactly
 * where `canonical` finds the meaning equal, so the patch and the diff can never disagree (a
 * target-key list `["qa","qa"]` against a live `["qa"]` is no change for either). The field lists
 * come from the SDK's zod schemas.
 * @module
 */
import {
  DEFINITION_DOC_FIELDS,
  type Definition,
  MATCHER_FIELDS,
  TREATMENT_FIELDS,
} from "../../sdk/admin/schemas";
import { canonicalJson } from "./diff";
import { guardedPatch, leafTests, type PatchOp } from "./patch";

/** The writable fields of a definition, in the service's shape (from the SDK's `DefinitionBody`). */
export const WRITABLE_FIELDS = DEFINITION_DOC_FIELDS;

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type Doc = Record<string, Json>;

function pick(obj: Record<string, unknown>, keys: readonly string[]): Record<string, Json> {
  const out: Record<string, Json> = {};
  for (const k of keys) if (obj[k] !== undefined) out[k] = obj[k] as Json;
  return out;
}

/** The writable part of a definition as the service holds it (extra response members dropped). */
export function liveDoc(def: Definition): Doc {
  const doc: Doc = {
    treatments: def.treatments.map((t) => pick(t, TREATMENT_FIELDS)),
    defaultTreatment: def.defaultTreatment,
    trafficAllocation: def.trafficAllocation,
    rules: def.rules.map((r) => ({
      buckets: r.buckets.map((b) => ({ treatment: b.treatment, size: b.size })),
      condition: {
        combiner: r.condition.combiner,
        matchers: r.condition.matchers.map((m) => pick(m, MATCHER_FIELDS)),
      },
    })),
    defaultRule: def.defaultRule.map((b) => ({ treatment: b.treatment, size: b.size })),
  };
  if (def.baselineTreatment !== undefined) doc.baselineTreatment = def.baselineTreatment;
  if (def.flagSets !== undefined) doc.flagSets = def.flagSets.map((f) => ({ id: f.id, type: f.type }));
  return doc;
}

/** The flag set ids of a `flagSets` member (`[{id, type}]`), each once and sorted: a set. */
function flagSetIds(value: unknown): string[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const ids = value.map((f) => (typeof f === "string" ? f : String((f as { id?: unknown })?.id)));
  return ids.length === 0 ? undefined : [...new Set(ids)].sort();
}

const isEmptyish = (v: unknown) =>
  v === undefined || v === null || v === false || v === "" || (Array.isArray(v) && v.length === 0);

function parseJson(s: string): unknown {
  try {
    return JSON.parse(s);
  } catch {
    return Symbol.for("invalid");
  }
}

/** Members that hold sets of strings: order and repetition mean nothing. */
const SET_KEYS = new Set(["keys", "segments", "strings"]);

const isStringArray = (v: unknown): v is string[] =>
  Array.isArray(v) && v.every((x) => typeof x === "string");

/**
 * `desired` spelled like `live` wherever the two mean the same, by the one equality of this module
 * ({@link canonical}): equal meaning gives the live value itself, so the patch between them holds
 * only real changes, and exactly where `diff` sees one.
 */
function align(desired: unknown, live: unknown, key: string | undefined): unknown {
  if (canonicalJson(canonical(desired, key)) === canonicalJson(canonical(live, key))) return live;
  if (key !== undefined && SET_KEYS.has(key) && isStringArray(desired)) return [...new Set(desired)];
  if (Array.isArray(desired) && Array.isArray(live)) {
    return desired.map((d, i) => align(d, live[i], undefined));
  }
  if (
    desired &&
    live &&
    typeof desired === "object" &&
    typeof live === "object" &&
    !Array.isArray(desired) &&
    !Array.isArray(live)
  ) {
    const d = desired as Record<string, unknown>;
    const l = live as Record<string, unknown>;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(d)) {
      if (v === undefined) continue;
      out[k] = k in l ? align(v, l[k], k) : v;
    }
    for (const [k, v] of Object.entries(l)) {
      if (!(k in out) && isEmptyish(v)) out[k] = v;
    }
    return out;
  }
  return desired;
}

/**
 * The desired document spelled like the live one wherever they mean the same: members the
 * service reports empty (`negate: false`, `keys: []`, `description: ""`) and the desired document
 * omits are taken from live; set-like string lists (target keys, segments, matcher strings) keep
 * the live order when they hold the same members; equal configuration JSON keeps the live text.
 * `baselineTreatment`, when not desired, keeps the live value (it is not managed then).
 */
export function alignToLive(
  desired: Record<string, unknown>,
  live: Record<string, unknown>,
): Record<string, unknown> {
  const out = align(desired, live, undefined) as Record<string, unknown>;
  if (desired.baselineTreatment === undefined && live.baselineTreatment !== undefined)
    out.baselineTreatment = live.baselineTreatment;
  if (desired.flagSets === undefined && live.flagSets !== undefined) out.flagSets = live.flagSets;
  return out;
}

/**
 * The guarded RFC 6902 patch from the live document to the desired one (`./patch.ts`), with a
 * change of flag sets as ONE `replace /flagSets` of the whole list (guarded by tests of the live
 * ids): membership is a set, so an element-wise patch of it would mean nothing to a reader.
 */
export function documentPatch(from: Record<string, unknown>, to: Record<string, unknown>): PatchOp[] {
  const { flagSets: liveSets, ...liveRest } = from;
  const { flagSets: wantedSets, ...wantedRest } = to;
  const ops = guardedPatch(liveRest, wantedRest);
  if (wantedSets === undefined) return ops;
  if (canonicalJson(flagSetIds(liveSets) ?? []) === canonicalJson(flagSetIds(wantedSets) ?? [])) return ops;
  if (liveSets === undefined) return [...ops, { op: "add", path: "/flagSets", value: wantedSets }];
  return [
    ...ops,
    ...leafTests(liveSets, "/flagSets"),
    { op: "replace", path: "/flagSets", value: wantedSets },
  ];
}

function canonical(value: unknown, key: string | undefined): unknown {
  if (key === "flagSets") return flagSetIds(value);
  if (key === "configurations" && typeof value === "string") {
    const parsed = parseJson(value);
    return typeof parsed === "symbol" ? value : canonicalJson(parsed);
  }
  if (key !== undefined && SET_KEYS.has(key) && isStringArray(value)) {
    return value.length === 0 ? undefined : [...new Set(value)].sort();
  }
  if (Array.isArray(value)) return value.map((v) => canonical(v, undefined));
  if (value && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      if (isEmptyish(v)) continue;
      const c = canonical(v, k);
      if (c !== undefined) out[k] = c;
    }
    if (key === "condition" && out.combiner === undefined) out.combiner = "AND";
    return out;
  }
  return value;
}

/**
 * A normal form of one writable field (or of a whole document) for comparing without an API
 * call: empty members dropped, set-like lists sorted, configuration JSON canonical, the default
 * combiner filled in.
 */
export function canonicalField(field: string, value: unknown): unknown {
  if (isEmptyish(value)) return field === "rules" ? [] : undefined;
  return canonical(value, field);
}

/** Converts a configuration given as an object to the JSON string the service stores. */
export function configurationText(value: string | Record<string, unknown> | undefined): string | undefined {
  if (value === undefined) return undefined;
  return typeof value === "string" ? value : JSON.stringify(value);
}
