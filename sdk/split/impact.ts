/**
 * Who a change reaches: for each flag whose definition (or whose segments, or whose `IN_SPLIT`
 * dependencies) changes in one environment, the share of a population whose treatment moves, as a
 * from → to matrix, and the exact list of the keys targeting names (individual targets, segment
 * members) that move.
 *
 * Two ways to a share, and every result says which one it took:
 * - **exact** (the bucket rule): when nothing in the flag's targeting depends on the key itself
 *   (only individual targets, segments, attribute rules and the default rule, and a population
 *   without attributes), every key no target names reaches the same condition, and its treatment
 *   depends only on its two buckets, `bucket(key, seed)` and `bucket(key, trafficAllocationSeed)`
 *   (ref wire §3: `murmur3(key, seed) % 100 + 1`). The seeds are kept across updates (ref wire §2
 *   item 5), so the share that moves is counted over the 100 × 100 bucket pairs: exact, whatever
 *   seeds the service picked, with no sampling error. Which condition that is, the SDK itself says
 *   (the flag evaluated once with every condition serving a marker treatment, as
 *   `evaluateOutcome` does); the pick of a treatment from a bucket and the allocation test are the
 *   SDK engine's own functions (`Treatments.getTreatmentFor`, the `bucket` of its murmur3 module),
 *   never a copy. Each key of the sample is also placed by its own buckets, so the counts over the
 *   sample are the ones an SDK with the same seeds serves, key by key.
 * - **sampled** (the SDK): when a rule reads the key itself (`STARTS_WITH` on the key...), a rule
 *   depends on another flag (`IN_SPLIT`), or the population carries attributes, each key of the
 *   population is evaluated before and after by the real `@splitsoftware/splitio` client
 *   (`./evaluate.ts`), and a share carries its 95% sampling error (`1.96·√(p(1−p)/n)`).
 *
 * Keys that targeting names are always evaluated by the SDK, before and after, one by one: they are
 * listed, not estimated. `control` is what a flag serves where it has no definition (created or
 * deleted in this change); moves from or to it are listed but are no part of the {@link FlagImpact}
 * `shift`, which counts the keys that move between two real treatments.
 * @module
 */
import { z } from "zod";
import { type Attributes, type FlagToEvaluate, OfflineEvaluator, splitFor } from "./evaluate";
import type { SdkCondition, SdkSplit } from "./schemas";

// The SDK engine's own bucketing and partition pick (splitio-commons; it has no exports map, and
// these modules are what `evaluator/condition/engineUtils` calls for every evaluation).
const murmur = require("@splitsoftware/splitio-commons/cjs/utils/murmur3/murmur3") as {
  bucket(key: string, seed: number): number;
};
const engineTreatments = require("@splitsoftware/splitio-commons/cjs/evaluator/treatments") as {
  Treatments: { parse(partitions: readonly { treatment: string; size: number }[]): TreatmentPicker };
};
interface TreatmentPicker {
  getTreatmentFor(bucket: number): string;
}

/** What a flag serves where it has no definition. */
export const CONTROL = "control";

/** One cell of the from → to matrix. `share` and `error` are percentages of the population. */
export const Transition = z.object({
  from: z.string(),
  to: z.string(),
  /** Percentage of the population (keys no target names) that moves from `from` to `to`. */
  share: z.number(),
  /** The 95% sampling error of `share`, in percentage points (0 when exact). */
  error: z.number(),
  /** Keys of the population sample that move so, as the SDK serves them with the same seeds. */
  keys: z.number().int(),
});
export type Transition = z.infer<typeof Transition>;

/** A key that targeting names and whose treatment changes, with the SDK's labels. */
export const MovedKey = z.object({
  key: z.string(),
  from: z.string(),
  to: z.string(),
  /** The SDK's label before and after ("whitelisted", "default rule", ...); absent past the first {@link LABELLED_KEYS}. */
  labels: z.tuple([z.string(), z.string()]).optional(),
});
export type MovedKey = z.infer<typeof MovedKey>;

/** The traffic one flag's change moves in one environment. */
export const FlagImpact = z.object({
  environment: z.string(),
  flag: z.string(),
  /** What changed, as the caller described it ("updated", "created", "segment members", ...). */
  change: z.string(),
  method: z.enum(["exact", "sampled"]),
  /** What the shares are counted over: "bucket pairs of the default rule", "10,000 sampled keys". */
  basis: z.string(),
  /** Keys of the population (without the named ones) evaluated. */
  population: z.number().int(),
  /** The cells of the matrix where the treatment changes, largest first. */
  transitions: z.array(Transition),
  /** Percentage of the population that moves between two treatments (control excluded). */
  shift: z.number(),
  /** Its 95% sampling error (0 when exact). */
  shiftError: z.number(),
  /** How many keys targeting names were evaluated. */
  namedKeys: z.number().int(),
  /** The named keys whose treatment changes. */
  moved: z.array(MovedKey),
});
export type FlagImpact = z.infer<typeof FlagImpact>;

/** One side (before or after) of an environment: its definitions and its segments' members. */
export interface ImpactSide {
  flags: readonly FlagToEvaluate[];
  /** Members by segment name; a segment not listed is empty. */
  segments: Readonly<Record<string, readonly string[]>>;
}

/** The changes of one environment to measure. */
export interface ImpactRequest {
  environment: string;
  before: ImpactSide;
  after: ImpactSide;
  /** The flags to report, each with what changed. */
  flags: readonly { name: string; change: string }[];
}

/**
 * The keys shares are counted over: a deterministic sample, or real keys (with attributes) read from
 * a file (`./population.ts`).
 */
export interface Population {
  keys: readonly string[];
  /** Attributes by key, for a population read from a file. */
  attributes?: ReadonlyMap<string, Attributes> | undefined;
  /** How to name it in a report: "10,000 sampled keys", "42,118 keys of keys.jsonl". */
  label: string;
}

/** Moved named keys that get the SDK's labels (each costs a labelled evaluation). */
export const LABELLED_KEYS = 50;

/** 95% margin of a share `p` (0..1) measured over `n` keys, in percentage points. */
export function samplingError(p: number, n: number): number {
  return n === 0 ? 0 : 196 * Math.sqrt((p * (1 - p)) / n);
}

const round = (n: number): number => Math.round(n * 1e6) / 1e6;

/** Keys a split's targeting names: individual targets and the members of the segments it reads. */
function namedKeys(split: SdkSplit | undefined, segments: ImpactSide["segments"], into: Set<string>): void {
  for (const c of split?.conditions ?? []) {
    for (const m of c.matcherGroup.matchers) {
      for (const k of m.whitelistMatcherData?.whitelist ?? []) into.add(k);
      const segment = m.userDefinedSegmentMatcherData?.segmentName;
      if (segment !== undefined) for (const k of segments[segment] ?? []) into.add(k);
    }
  }
}

/**
 * True when every key no target names and with no attributes reaches the same condition: each
 * matcher reads an attribute, or is ALL_KEYS, WHITELIST or IN_SEGMENT (false for such a key).
 */
function keyIndependent(split: SdkSplit | undefined): boolean {
  return (split?.conditions ?? []).every((c) =>
    c.matcherGroup.matchers.every(
      (m) =>
        (m.keySelector?.attribute ?? null) !== null ||
        m.matcherType === "ALL_KEYS" ||
        m.matcherType === "WHITELIST" ||
        m.matcherType === "IN_SEGMENT",
    ),
  );
}

/** What a side serves to keys no target names, as a function of their two buckets. */
type Serve =
  | { fixed: string }
  | { picker: TreatmentPicker; allocation: number | undefined; defaultTreatment: string };

const MARK = "__flagstack_impact_condition_";

function serveAt(s: Serve, b: number, a: number): string {
  if ("fixed" in s) return s.fixed;
  // The SDK's allocation test (`shouldApplyRollout`): out of the allocation, the default treatment.
  if (s.allocation !== undefined && s.allocation < 100 && a > s.allocation) return s.defaultTreatment;
  return s.picker.getTreatmentFor(b);
}

/** The serve model of each split of a side, the condition found by the SDK for a probe key. */
async function serveModels(
  splits: ReadonlyMap<string, SdkSplit>,
  names: readonly string[],
  segments: ImpactSide["segments"],
  probe: string,
): Promise<Map<string, Serve>> {
  const out = new Map<string, Serve>();
  const marked: SdkSplit[] = [];
  for (const name of names) {
    const split = splits.get(name);
    if (split === undefined) out.set(name, { fixed: CONTROL });
    else if (split.killed) out.set(name, { fixed: split.defaultTreatment });
    else
      marked.push({
        ...split,
        killed: false,
        trafficAllocation: 100,
        conditions: split.conditions.map((c, i) => ({
          ...c,
          partitions: [{ treatment: `${MARK}${i}`, size: 100 }],
        })),
      });
  }
  if (marked.length === 0) return out;
  const ev = OfflineEvaluator.fromSplits(marked, { segments });
  let reached: Record<string, { treatment: string }>;
  try {
    reached = await ev.evaluate(
      probe,
      undefined,
      marked.map((s) => s.name),
    );
  } finally {
    await ev.destroy();
  }
  for (const s of marked) {
    const split = splits.get(s.name)!;
    const t = reached[s.name]?.treatment ?? CONTROL;
    const condition: SdkCondition | undefined = t.startsWith(MARK)
      ? split.conditions[Number(t.slice(MARK.length))]
      : undefined;
    out.set(
      s.name,
      condition === undefined
        ? { fixed: t }
        : {
            picker: engineTreatments.Treatments.parse(condition.partitions),
            allocation: condition.conditionType === "ROLLOUT" ? split.trafficAllocation : undefined,
            defaultTreatment: split.defaultTreatment,
          },
    );
  }
  return out;
}

/** Accumulates moves; `total` is the population counted. */
class Matrix {
  readonly counts = new Map<string, number>();
  add(from: string, to: string, n = 1): void {
    if (from === to) return;
    const k = `${from}\u0000${to}`;
    this.counts.set(k, (this.counts.get(k) ?? 0) + n);
  }
  entries(): { from: string; to: string; n: number }[] {
    return [...this.counts].map(([k, n]) => {
      const [from = "", to = ""] = k.split("\u0000");
      return { from, to, n };
    });
  }
}

/** `shift` of a matrix: the moves between two real treatments, as a share of `total`. */
const movedBetween = (m: Matrix): number =>
  m.entries().reduce((sum, e) => (e.from === CONTROL || e.to === CONTROL ? sum : sum + e.n), 0);

/**
 * Measures the traffic each requested flag's change moves in one environment (see the module's
 * comment for the two methods). Throws naming the flag when a definition cannot be converted.
 */
export async function measureImpact(request: ImpactRequest, population: Population): Promise<FlagImpact[]> {
  const env = request.environment;
  const splitsOf = (side: ImpactSide) =>
    new Map(side.flags.map((f) => [f.flagName, splitFor({ ...f, environment: f.environment ?? env })]));
  const before = splitsOf(request.before);
  const after = splitsOf(request.after);
  const withAttributes = (population.attributes?.size ?? 0) > 0;

  // Named keys per flag, and which flags the bucket rule serves.
  const named = new Map<string, string[]>();
  const exact: string[] = [];
  const sampled: string[] = [];
  for (const { name } of request.flags) {
    const keys = new Set<string>();
    namedKeys(before.get(name), request.before.segments, keys);
    namedKeys(after.get(name), request.after.segments, keys);
    named.set(name, [...keys].sort());
    const b = before.get(name);
    const a = after.get(name);
    const sameSeeds =
      b === undefined ||
      a === undefined ||
      (b.seed === a.seed && b.trafficAllocationSeed === a.trafficAllocationSeed);
    if (!withAttributes && sameSeeds && keyIndependent(b) && keyIndependent(a)) exact.push(name);
    else sampled.push(name);
  }
  const allNamed = new Set([...named.values()].flat());
  const keys = population.keys.filter((k) => !allNamed.has(k));
  const attributesOf = (k: string) => population.attributes?.get(k);

  const results = new Map<string, FlagImpact>();
  const describe = (name: string) => request.flags.find((f) => f.name === name)?.change ?? "updated";

  // Exact: the bucket rule over the 100 × 100 bucket pairs, and each sample key by its buckets.
  if (exact.length > 0) {
    let probe = "flagstack-impact-probe";
    while (allNamed.has(probe)) probe += "-";
    const [modelsBefore, modelsAfter] = await Promise.all([
      serveModels(before, exact, request.before.segments, probe),
      serveModels(after, exact, request.after.segments, probe),
    ]);
    for (const name of exact) {
      const sb = modelsBefore.get(name)!;
      const sa = modelsAfter.get(name)!;
      const split = after.get(name) ?? before.get(name)!;
      const usesAllocation = [sb, sa].some(
        (s) => "picker" in s && s.allocation !== undefined && s.allocation < 100,
      );
      const aValues = usesAllocation ? 100 : 1;
      // The grid, indexed [a - 1][b - 1], of each bucket pair's move.
      const grid = new Matrix();
      const cell: [string, string][] = new Array(aValues * 100);
      for (let a = 1; a <= aValues; a++) {
        for (let b = 1; b <= 100; b++) {
          const from = serveAt(sb, b, a);
          const to = serveAt(sa, b, a);
          cell[(a - 1) * 100 + (b - 1)] = [from, to];
          grid.add(from, to);
        }
      }
      const cells = aValues * 100;
      const sample = new Matrix();
      if (grid.counts.size > 0) {
        for (const k of keys) {
          const b = murmur.bucket(k, split.seed);
          const a = usesAllocation ? murmur.bucket(k, split.trafficAllocationSeed) : 1;
          const [from, to] = cell[(a - 1) * 100 + (b - 1)]!;
          sample.add(from, to);
        }
      }
      const sampleCounts = sample.counts;
      results.set(name, {
        environment: env,
        flag: name,
        change: describe(name),
        method: "exact",
        basis: usesAllocation ? "the 10,000 bucket pairs (treatment and allocation)" : "the 100 buckets",
        population: keys.length,
        transitions: grid
          .entries()
          .map((e) => ({
            from: e.from,
            to: e.to,
            share: round((e.n / cells) * 100),
            error: 0,
            keys: sampleCounts.get(`${e.from}\u0000${e.to}`) ?? 0,
          }))
          .sort((x, y) => y.share - x.share || x.from.localeCompare(y.from) || x.to.localeCompare(y.to)),
        shift: round((movedBetween(grid) / cells) * 100),
        shiftError: 0,
        namedKeys: 0,
        moved: [],
      });
    }
  }

  // Sampled, and every named key: the SDK before and after.
  const namedOf = (name: string) => named.get(name) ?? [];
  const needNamed = request.flags.map((f) => f.name).filter((n) => namedOf(n).length > 0);
  if (sampled.length > 0 || needNamed.length > 0) {
    const evBefore = OfflineEvaluator.create(request.before.flags, { segments: request.before.segments });
    const evAfter = OfflineEvaluator.create(request.after.flags, { segments: request.after.segments });
    try {
      if (sampled.length > 0) {
        const [tb, ta] = await Promise.all([
          evBefore.treatmentsOf(sampled, keys, attributesOf),
          evAfter.treatmentsOf(sampled, keys, attributesOf),
        ]);
        for (const name of sampled) {
          const from = tb.get(name)!;
          const to = ta.get(name)!;
          const m = new Matrix();
          for (let i = 0; i < keys.length; i++) m.add(from[i]!, to[i]!);
          const n = keys.length;
          const share = (x: number) => (n === 0 ? 0 : x / n);
          const moved = share(movedBetween(m));
          results.set(name, {
            environment: env,
            flag: name,
            change: describe(name),
            method: "sampled",
            basis: population.label,
            population: n,
            transitions: m
              .entries()
              .map((e) => ({
                from: e.from,
                to: e.to,
                share: round(share(e.n) * 100),
                error: round(samplingError(share(e.n), n)),
                keys: e.n,
              }))
              .sort((x, y) => y.share - x.share || x.from.localeCompare(y.from) || x.to.localeCompare(y.to)),
            shift: round(moved * 100),
            shiftError: round(samplingError(moved, n)),
            namedKeys: 0,
            moved: [],
          });
        }
      }
      // Every named key once, for every flag that names any (one SDK call per key and side).
      const namedKeyList = [...new Set(needNamed.flatMap(namedOf))].sort();
      const [tb, ta] = await Promise.all([
        evBefore.treatmentsOf(needNamed, namedKeyList, attributesOf),
        evAfter.treatmentsOf(needNamed, namedKeyList, attributesOf),
      ]);
      const index = new Map(namedKeyList.map((k, i) => [k, i]));
      const movedOf = new Map<string, MovedKey[]>();
      const toLabel = new Map<string, string[]>();
      for (const name of needNamed) {
        const from = tb.get(name)!;
        const to = ta.get(name)!;
        const moved: MovedKey[] = [];
        for (const key of namedOf(name)) {
          const i = index.get(key)!;
          if (from[i] !== to[i]) moved.push({ key, from: from[i]!, to: to[i]! });
        }
        movedOf.set(name, moved);
        for (const m of moved.slice(0, LABELLED_KEYS))
          toLabel.set(m.key, [...(toLabel.get(m.key) ?? []), name]);
      }
      // The SDK's labels for the first moved keys of each flag: one labelled evaluation per key and side.
      const labelsOf = async (
        ev: OfflineEvaluator,
        key: string,
        flags: string[],
      ): Promise<Record<string, { label: string }>> => {
        const loaded = flags.filter((f) => ev.flagNames.includes(f));
        return loaded.length === 0 ? {} : ev.evaluate(key, attributesOf(key), loaded);
      };
      for (const [key, flags] of toLabel) {
        const [lb, la] = await Promise.all([labelsOf(evBefore, key, flags), labelsOf(evAfter, key, flags)]);
        for (const name of flags) {
          const m = movedOf.get(name)!.find((x) => x.key === key)!;
          m.labels = [lb[name]?.label ?? "definition not found", la[name]?.label ?? "definition not found"];
        }
      }
      for (const name of needNamed) {
        const r = results.get(name)!;
        results.set(name, { ...r, namedKeys: namedOf(name).length, moved: movedOf.get(name)! });
      }
    } finally {
      await Promise.all([evBefore.destroy(), evAfter.destroy()]);
    }
  }
  return request.flags.map((f) => results.get(f.name)!);
}
