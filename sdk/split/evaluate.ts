/**
 * Offline evaluation of flag definitions with the real `@splitsoftware/splitio` engine: which
 * treatment a key gets, and what share of a key sample gets each treatment.
 *
 * How: definitions are converted with {@link toSdkSplit} (the conversion the emulator serves) and
 * preloaded into a Node SDK factory through its documented `initialRolloutPlan` setting ("the SDK
 * will be ready from cache immediately"). Treatments come from the public `client` methods, labels
 * from the public `impressionListener`. So every evaluation takes the production code path: key
 * and attribute validation, readiness, the evaluator, murmur3 bucketing, traffic allocation,
 * dependency matchers and impression labels. Nothing here hashes or matches by hand.
 *
 * Why not the alternatives:
 * - the evaluator module (`splitio-commons/cjs/evaluator`) fed an in-memory storage: an internal
 *   module path, and it skips the client's key/attribute validation and fallback handling;
 * - localhost mode: its file-based sync clears the split cache and only knows whitelists;
 * - serving the splits over HTTP to a standalone SDK: needs a server per evaluation.
 *
 * The factory's second argument (`__updateModules`, a documented-but-unstable hook also used by the
 * SDK's own tests) removes the sync manager, the HTTP API client and the signal listener, so no
 * socket is ever opened and no timer survives `destroy()`. Should a future SDK ignore the hook,
 * every URL still points at a closed local port, so evaluation stays offline and unchanged.
 * @module
 */
import { SplitFactory } from "@splitsoftware/splitio";
import { z } from "zod";
import { dataRecord } from "../core/data-record";
import { deriveSeeds, type SplitSource, toSdkSplit } from "./convert";
import type { SdkSplit } from "./schemas";

/**
 * Attribute values the SDK accepts (`SplitIO.AttributeType`); dates are epoch milliseconds. An
 * attribute's name is user data: `dataRecord` keeps one named `__proto__` (`sdk/core/data-record.ts`).
 */
export const Attributes = dataRecord(
  z.union([z.string(), z.number(), z.boolean(), z.array(z.union([z.string(), z.number()]))]),
);
export type Attributes = z.infer<typeof Attributes>;

/** The result of one evaluation, as the SDK reports it in its impression. */
export const Evaluation = z.object({
  treatment: z.string(),
  /** The SDK's label: "default rule", "whitelisted", "killed", "not in split", a rule's label, ... */
  label: z.string(),
  /** The treatment's configurations string, or null. */
  config: z.string().nullable(),
});
export type Evaluation = z.infer<typeof Evaluation>;

/** One flag to evaluate: the definition of one environment plus what the conversion needs. */
export interface FlagToEvaluate {
  flagName: string;
  /** A definition as the admin API holds it (a parsed `DefinitionBody` or a `Definition`). */
  definition: Omit<SplitSource, "name">;
  trafficTypeName: string;
  /** Environment name; with the flag name it derives the seeds when none are given. */
  environment?: string | undefined;
  /** Seeds as served by the backend; default {@link definitionSeeds}. */
  seed?: number | undefined;
  trafficAllocationSeed?: number | undefined;
}

/** Options of an {@link OfflineEvaluator}. */
export interface EvaluatorOptions {
  /** Segment members by segment name; a segment that is not listed is empty. */
  segments?: Record<string, readonly string[]>;
}

/**
 * Seeds of a definition when the caller has none: stable per environment and flag. The service
 * (and the emulator, as it) picks random seeds once per definition (ref wire §2 item 5), so with
 * these a key-level prediction of a percentage rule is one possible bucketing; whitelists,
 * attribute rules and shares are what any seeds give. Pass the served seeds
 * ({@link FlagToEvaluate}'s `seed`) to predict the buckets of keys exactly.
 */
export function definitionSeeds(
  environment: string,
  flagName: string,
): { seed: number; trafficAllocationSeed: number } {
  return deriveSeeds("flagstack", environment, flagName);
}

/** Converts one {@link FlagToEvaluate} to the split the SDK will evaluate. */
export function splitFor(flag: FlagToEvaluate, changeNumber = 1): SdkSplit {
  const derived = definitionSeeds(flag.environment ?? "", flag.flagName);
  return toSdkSplit(
    { ...flag.definition, name: flag.flagName },
    {
      seed: flag.seed ?? derived.seed,
      trafficAllocationSeed: flag.trafficAllocationSeed ?? derived.trafficAllocationSeed,
      changeNumber,
      trafficTypeName: flag.trafficTypeName,
    },
  );
}

// A closed port on the loopback interface: see the module comment.
const NOWHERE = "http://127.0.0.1:9";

type Impression = { feature: string; keyName: string; label: string };
type SdkModules = { syncManagerFactory?: unknown; splitApiFactory?: unknown; SignalListener?: unknown };
// `initialRolloutPlan` is typed for the browser SDK only, but the settings pipeline and the factory
// that apply it are shared with Node (it is the format Node's `factory.getRolloutPlan()` returns).
type NodeSettingsWithPlan = SplitIO.INodeSettings & { initialRolloutPlan: SplitIO.RolloutPlan };
const factoryWithModules = SplitFactory as unknown as (
  settings: NodeSettingsWithPlan,
  updateModules: (modules: SdkModules) => void,
) => SplitIO.ISDK;

/**
 * A real Node SDK client loaded with a fixed set of splits and segments, evaluating offline.
 * Create it with {@link OfflineEvaluator.create}, always {@link OfflineEvaluator.destroy} it.
 * @example
 * const ev = OfflineEvaluator.create([{ flagName: "new-checkout", definition, trafficTypeName: "user" }]);
 * try { (await ev.evaluate("qa-bot"))["new-checkout"]?.treatment; } finally { await ev.destroy(); }
 */
export class OfflineEvaluator {
  private readonly impressions: Impression[] = [];
  private labelled: SplitIO.IClient | undefined;
  private counting: SplitIO.IClient | undefined;
  // Operations run one at a time, so each finds its own impressions.
  private queue: Promise<unknown> = Promise.resolve();

  private constructor(
    readonly splits: readonly SdkSplit[],
    private readonly segments: Record<string, readonly string[]>,
  ) {
    // Fail now, not at the first evaluation, when this SDK cannot be preloaded.
    this.labelled = this.client(true);
  }

  /**
   * A client of a new factory preloaded with the splits. With `labels`, an impression listener
   * collects the SDK's labels; the SDK hands each impression to it in a timer of its own, which
   * costs time and memory over a large key sample, so {@link shares} uses a client without one.
   */
  private client(labels: boolean): SplitIO.IClient {
    const impressions = this.impressions;
    const changeNumber = Math.max(1, ...this.splits.map((s) => s.changeNumber));
    const factory = factoryWithModules(
      {
        core: { authorizationKey: "flagstack-offline-evaluation" },
        mode: "standalone",
        streamingEnabled: false,
        // NONE keeps only counts and unique keys in memory: nothing is ever sent.
        sync: { enabled: false, impressionsMode: "NONE" },
        urls: {
          sdk: `${NOWHERE}/api`,
          events: `${NOWHERE}/api`,
          auth: `${NOWHERE}/api`,
          streaming: NOWHERE,
          telemetry: `${NOWHERE}/api`,
        },
        startup: { readyTimeout: 1, requestTimeoutBeforeReady: 1, retriesOnFailureBeforeReady: 0 },
        initialRolloutPlan: {
          splitChanges: { ff: { d: [...this.splits], s: -1, t: changeNumber }, rbs: { d: [], s: -1, t: -1 } },
          segmentChanges: Object.entries(this.segments).map(([name, keys]) => ({
            name,
            added: [...keys],
            removed: [],
            since: -1,
            till: 1,
          })),
        },
        ...(labels
          ? {
              impressionListener: {
                logImpression(data: SplitIO.ImpressionData) {
                  const { feature, keyName, label } = data.impression;
                  impressions.push({ feature, keyName, label: label ?? "" });
                },
              },
            }
          : {}),
        debug: false,
      },
      (modules) => {
        modules.syncManagerFactory = undefined;
        modules.splitApiFactory = undefined;
        modules.SignalListener = undefined;
      },
    );
    const client = factory.client();
    if (!client.getStatus().isReadyFromCache) {
      void client.destroy();
      throw new Error(
        "this @splitsoftware/splitio version did not load the initial rollout plan: offline evaluation is not possible with it",
      );
    }
    return client;
  }

  /**
   * Loads the given flags. Throws (naming the flag and field) when a definition cannot be
   * converted, and when two entries share a flag name.
   */
  static create(flags: readonly FlagToEvaluate[], options: EvaluatorOptions = {}): OfflineEvaluator {
    return OfflineEvaluator.fromSplits(
      flags.map((f) => splitFor(f)),
      options,
    );
  }

  /**
   * Loads SDK splits as they are (for example as fetched from `/api/splitChanges`). Every segment
   * a split refers to is loaded, empty unless `options.segments` lists its members.
   */
  static fromSplits(splits: readonly SdkSplit[], options: EvaluatorOptions = {}): OfflineEvaluator {
    const seen = new Set<string>();
    for (const s of splits) {
      if (seen.has(s.name))
        throw new Error(`flag "${s.name}" is listed twice: evaluate one environment at a time`);
      seen.add(s.name);
    }
    const segments: Record<string, readonly string[]> = { ...options.segments };
    for (const split of splits) {
      for (const c of split.conditions) {
        for (const m of c.matcherGroup.matchers) {
          const name = m.userDefinedSegmentMatcherData?.segmentName;
          if (name !== undefined && !(name in segments)) segments[name] = [];
        }
      }
    }
    return new OfflineEvaluator(splits, segments);
  }

  /** The flags loaded, in order. */
  get flagNames(): string[] {
    return this.splits.map((s) => s.name);
  }

  /**
   * Evaluates every loaded flag (or the named ones) for one key.
   * An invalid key (empty, longer than 250 characters) gets `control` with label "invalid key".
   */
  evaluate(
    key: string,
    attributes?: Attributes,
    flagNames: readonly string[] = this.flagNames,
  ): Promise<Record<string, Evaluation>> {
    return this.serial(async () => {
      this.labelled ??= this.client(true);
      const results = this.labelled.getTreatmentsWithConfig(key, [...flagNames], attributes);
      // The SDK hands impressions to the listener in a zero-delay timer; this one runs after them.
      await new Promise((resolve) => setTimeout(resolve, 0));
      const out: Record<string, Evaluation> = {};
      for (const name of flagNames) {
        const r = results[name] ?? { treatment: "control", config: null };
        out[name] = {
          treatment: r.treatment,
          label: this.takeLabel(name, key) ?? "invalid key",
          config: r.config,
        };
      }
      return out;
    });
  }

  /**
   * Evaluates one flag for every key of a sample and counts the treatments, with a client that
   * collects no labels (about 30 µs per key, some 40 MB for 200,000 keys).
   */
  shares(flagName: string, keys: readonly string[], attributes?: Attributes): Promise<TreatmentShares> {
    if (!this.flagNames.includes(flagName))
      return Promise.reject(new Error(`flag "${flagName}" is not loaded`));
    return this.serial(async () => {
      this.counting ??= this.client(false);
      const counts: Record<string, number> = {};
      for (const k of keys) {
        const t = this.counting.getTreatment(k, flagName, attributes);
        counts[t] = (counts[t] ?? 0) + 1;
      }
      const shares: Record<string, number> = {};
      for (const [t, n] of Object.entries(counts))
        shares[t] = keys.length === 0 ? 0 : (n / keys.length) * 100;
      return { sampleSize: keys.length, counts, shares };
    });
  }

  /**
   * The treatment of every key for each of the named flags, in key order, with the client that
   * collects no labels (one `getTreatments` call per key). A flag that is not loaded serves
   * `control` to every key, as an SDK serves a flag it does not know.
   */
  treatmentsOf(
    flagNames: readonly string[],
    keys: readonly string[],
    attributesOf: (key: string) => Attributes | undefined = () => undefined,
  ): Promise<Map<string, string[]>> {
    return this.serial(async () => {
      const loaded = flagNames.filter((n) => this.flagNames.includes(n));
      const out = new Map(flagNames.map((n) => [n, new Array<string>(keys.length).fill("control")]));
      if (loaded.length === 0) return out;
      this.counting ??= this.client(false);
      const columns = loaded.map((n) => out.get(n)!);
      for (let i = 0; i < keys.length; i++) {
        const key = keys[i]!;
        const r = this.counting.getTreatments(key, loaded, attributesOf(key));
        for (let j = 0; j < loaded.length; j++) columns[j]![i] = r[loaded[j]!] ?? "control";
      }
      return out;
    });
  }

  /** Stops the SDK clients once the pending operations are done. */
  destroy(): Promise<void> {
    return this.serial(async () => {
      const clients = [this.labelled, this.counting];
      this.labelled = this.counting = undefined;
      await Promise.all(clients.map((c) => c?.destroy()));
    });
  }

  private serial<T>(op: () => Promise<T>): Promise<T> {
    const run = this.queue.then(op, op);
    this.queue = run.catch(() => undefined);
    return run;
  }

  private takeLabel(feature: string, keyName: string): string | undefined {
    const i = this.impressions.findIndex((imp) => imp.feature === feature && imp.keyName === keyName);
    if (i < 0) return undefined;
    const [imp] = this.impressions.splice(i, 1);
    return imp?.label;
  }
}

/** Treatment counts over a key sample; `shares` are percentages (0..100). */
export interface TreatmentShares {
  sampleSize: number;
  counts: Record<string, number>;
  shares: Record<string, number>;
}

/**
 * Evaluates the given flags for one key with the real SDK, offline.
 * @example
 * const r = await evaluate([{ flagName: "new-checkout", definition, trafficTypeName: "user" }], "qa-bot");
 * r["new-checkout"]; // { treatment: "on", label: "whitelisted", config: null }
 */
export async function evaluate(
  definitions: readonly FlagToEvaluate[],
  key: string,
  attributes?: Attributes,
  options?: EvaluatorOptions,
): Promise<Record<string, Evaluation>> {
  const ev = OfflineEvaluator.create(definitions, options);
  try {
    return await ev.evaluate(key, attributes);
  } finally {
    await ev.destroy();
  }
}

/** A deterministic key sample: `${prefix}0` … `${prefix}${size - 1}`. */
export function sampleKeys(size: number, prefix = "key-"): string[] {
  return Array.from({ length: size }, (_, i) => `${prefix}${i}`);
}

/**
 * Measures the share of a key sample that gets each treatment of one flag (default 10,000 keys
 * `key-0` … `key-9999`).
 */
export async function measureShares(
  flag: FlagToEvaluate,
  sample: { sampleSize?: number; keyPrefix?: string; keys?: readonly string[]; attributes?: Attributes } = {},
  options?: EvaluatorOptions,
): Promise<TreatmentShares> {
  const keys = sample.keys ?? sampleKeys(sample.sampleSize ?? 10_000, sample.keyPrefix);
  const ev = OfflineEvaluator.create([flag], options);
  try {
    return await ev.shares(flag.flagName, keys, sample.attributes);
  } finally {
    await ev.destroy();
  }
}

/** An evaluation plus every treatment the key could get under any bucketing seed. */
export const KeyOutcome = Evaluation.extend({
  /**
   * The treatments this key can get whatever seeds the service picked, in definition order: one
   * when targeting decides (whitelist, segment, a rule or default rule with a single non-empty
   * bucket, killed), several when the key falls in a percentage split or a partial allocation.
   */
  possible: z.array(z.string()),
});
export type KeyOutcome = z.infer<typeof KeyOutcome>;

const CONDITION_MARK = "__flagstack_condition_";

/**
 * Evaluates one flag for one key and says which treatments the key could get under any seeds.
 *
 * The real service picks each definition's seeds at random (ref wire §2 item 5), so a key that
 * lands in a percentage split may get another treatment there than here. To tell, the flag is
 * evaluated a second time with every condition sending 100% to a marker treatment and a full
 * allocation: the SDK itself reports which condition the key matches, and that condition's
 * non-empty partitions (plus the default treatment when the allocation is partial) are the
 * possible outcomes. Flags it depends on (IN_SPLIT) are evaluated with their given seeds.
 */
export async function evaluateOutcome(
  flags: readonly FlagToEvaluate[],
  flagName: string,
  key: string,
  attributes?: Attributes,
  options?: EvaluatorOptions,
): Promise<KeyOutcome> {
  const splits = flags.map((f) => splitFor(f));
  const target = splits.find((s) => s.name === flagName);
  if (!target) throw new Error(`flag "${flagName}" is not loaded`);
  const real = OfflineEvaluator.fromSplits(splits, options);
  let result: Evaluation;
  try {
    result = (await real.evaluate(key, attributes, [flagName]))[flagName]!;
  } finally {
    await real.destroy();
  }
  if (result.treatment === "control" || target.killed) return { ...result, possible: [result.treatment] };

  const marked: SdkSplit = {
    ...target,
    trafficAllocation: 100,
    conditions: target.conditions.map((c, i) => ({
      ...c,
      partitions: [{ treatment: `${CONDITION_MARK}${i}`, size: 100 }],
    })),
  };
  const probe = OfflineEvaluator.fromSplits(
    splits.map((s) => (s.name === flagName ? marked : s)),
    options,
  );
  let matched: string;
  try {
    matched = (await probe.evaluate(key, attributes, [flagName]))[flagName]!.treatment;
  } finally {
    await probe.destroy();
  }
  const condition = matched.startsWith(CONDITION_MARK)
    ? target.conditions[Number(matched.slice(CONDITION_MARK.length))]
    : undefined;
  if (!condition) return { ...result, possible: [result.treatment] };
  const possible = new Set(condition.partitions.filter((p) => p.size > 0).map((p) => p.treatment));
  if (condition.conditionType === "ROLLOUT" && target.trafficAllocation < 100) {
    if (target.trafficAllocation === 0) possible.clear();
    possible.add(target.defaultTreatment);
  }
  const order = [...condition.partitions.map((p) => p.treatment), target.defaultTreatment];
  return { ...result, possible: [...new Set(order.filter((t) => possible.has(t)))] };
}
