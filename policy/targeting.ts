/**
 * targeting-assertions: expectations about what a flag's definition does to keys, checked with
 * the real feature-flag SDK. Each definition of the stack is converted with the emulator's
 * conversion (`sdk/split/convert.ts`) and evaluated offline by `@splitsoftware/splitio`
 * (`sdk/split/evaluate.ts`).
 * @module
 */
import { z } from "zod";
import { FlagInputs } from "../provider/flags/flag";
import {
  Attributes,
  evaluateOutcome,
  type FlagToEvaluate,
  OfflineEvaluator,
  sampleKeys,
} from "../sdk/split/evaluate";
import { inEnvironments, type PolicyTarget, percent, stackPolicy } from "./common";
import { isType, readDefinitions, readFlag, TYPES } from "./resources";

/** "In Production, key qa-bot gets treatment on for flag new-checkout." */
export const KeyExpectation = z.strictObject({
  flag: z.string().min(1),
  environment: z.string().min(1).describe("Environment name or id."),
  key: z.string().min(1),
  attributes: Attributes.optional(),
  treatment: z.string().min(1),
});
export type KeyExpectation = z.output<typeof KeyExpectation>;

/** "In Production, at most 10% of keys get treatment on for flag new-checkout." */
export const ShareExpectation = z.strictObject({
  flag: z.string().min(1),
  environment: z.string().min(1).describe("Environment name or id."),
  treatment: z.string().min(1),
  maxPercent: z.number().min(0).max(100).optional(),
  minPercent: z.number().min(0).max(100).optional(),
  sampleSize: z
    .number()
    .int()
    .min(1)
    .max(200_000)
    .optional()
    .describe("Keys to sample (default: the policy's sampleSize)."),
  keyPrefix: z
    .string()
    .optional()
    .describe("Sampled keys are <keyPrefix>0, <keyPrefix>1, ... (default: the policy's keyPrefix)."),
  attributes: Attributes.optional(),
});
export type ShareExpectation = z.output<typeof ShareExpectation>;

export const TargetingConfig = z.object({
  expectations: z
    .array(
      z
        .union([KeyExpectation, ShareExpectation], {
          error: () =>
            "an expectation is {flag, environment, key, attributes?, treatment} or {flag, environment, treatment, maxPercent?, minPercent?, sampleSize?, keyPrefix?, attributes?}, with no other field",
        })
        .refine((e) => "key" in e || e.maxPercent !== undefined || e.minPercent !== undefined, {
          message: "an expectation needs a key, or maxPercent and/or minPercent",
        }),
    )
    .default([])
    .describe(
      "What definitions must do: {flag, environment, key, attributes?, treatment} or {flag, environment, treatment, maxPercent?, minPercent?, sampleSize?, keyPrefix?, attributes?}.",
    ),
  sampleSize: z
    .number()
    .int()
    .min(1)
    .max(200_000)
    .default(10_000)
    .describe("Keys sampled for percentage expectations."),
  keyPrefix: z.string().default("key-").describe("Prefix of the sampled keys."),
  segments: z
    .record(z.string(), z.array(z.string()))
    .default({})
    .describe("Segment members by segment name; a segment not listed is empty."),
});
export type TargetingConfig = z.output<typeof TargetingConfig>;

type Expectation = KeyExpectation | ShareExpectation;

/**
 * The traffic type of a definition whose flag is not in the stack and whose outputs do not say:
 * the one a Flag gets when its program gives none (the provider's default). Evaluation does not
 * depend on it; the SDK's split carries it.
 */
const DEFAULT_TRAFFIC_TYPE = FlagInputs.shape.trafficType.parse(undefined);

const quoteList = (ts: readonly string[]) => ts.map((t) => `"${t}"`).join(" or ");

/** A failing expectation: the message, and the definition resource it is about when there is one. */
export interface Failure {
  message: string;
  /** The definition's URN or address ({@link PolicyTarget}'s `address`). */
  address?: string | undefined;
}

/**
 * Checks expectations against the definitions of a stack and returns one failure per failing
 * expectation (the policy reports them; tests and tools can call this directly).
 */
export async function checkExpectations(
  resources: readonly (Omit<PolicyTarget, "address"> & { address?: string })[],
  config: TargetingConfig,
): Promise<Failure[]> {
  const definitions = (
    await Promise.all(
      resources.map(async (r) => (await readDefinitions(r)).map((view) => ({ ...view, address: r.address }))),
    )
  ).flat();
  const flags = await Promise.all(
    resources.filter((r) => isType(r.type, TYPES.flag)).map((r) => readFlag(r.props)),
  );
  // Every well-formed definition of an environment, so IN_SPLIT dependencies evaluate too.
  const environmentOf = (e: Expectation): FlagToEvaluate[] =>
    definitions.flatMap((d) => {
      const doc = inEnvironments(d, [e.environment]) && d.flagName ? d.document : undefined;
      if (!doc || !d.flagName) return [];
      const flag = flags.find((f) => f.name === d.flagName);
      return [
        {
          flagName: d.flagName,
          definition: doc,
          trafficTypeName: flag?.trafficType ?? d.trafficType ?? DEFAULT_TRAFFIC_TYPE,
          environment: d.environment,
        },
      ];
    });

  const failures: Failure[] = [];
  for (const e of config.expectations) {
    const where = `in environment "${e.environment}"`;
    const def = definitions.find((d) => d.flagName === e.flag && inEnvironments(d, [e.environment]));
    if (!def) {
      failures.push({
        message: `${where}, flag "${e.flag}" has no definition in this stack, so the expectation on treatment "${e.treatment}" cannot be checked`,
      });
      continue;
    }
    const fail = (message: string) => failures.push({ message, address: def.address });
    const flagsOfEnv = environmentOf(e);
    if (!flagsOfEnv.some((f) => f.flagName === e.flag)) {
      fail(
        `${where}, flag "${e.flag}" cannot be evaluated: its definition is not well formed (see definition-well-formed)`,
      );
      continue;
    }
    if ("key" in e) {
      const o = await evaluateOutcome(flagsOfEnv, e.flag, e.key, e.attributes, { segments: config.segments });
      if (o.possible.length === 1 && o.possible[0] === e.treatment) continue;
      if (o.possible.length === 1) {
        fail(
          `${where}, key "${e.key}" gets treatment "${o.treatment}" for flag "${e.flag}" (label "${o.label}"), expected "${e.treatment}"`,
        );
      } else {
        fail(
          `${where}, key "${e.key}" gets treatment ${quoteList(o.possible)} for flag "${e.flag}" depending on the service's bucketing seed (label "${o.label}"), expected always "${e.treatment}"`,
        );
      }
      continue;
    }
    const keys = sampleKeys(e.sampleSize ?? config.sampleSize, e.keyPrefix ?? config.keyPrefix);
    const ev = OfflineEvaluator.create(flagsOfEnv, { segments: config.segments });
    let shares: Record<string, number>;
    try {
      shares = (await ev.shares(e.flag, keys, e.attributes)).shares;
    } finally {
      await ev.destroy();
    }
    const share = shares[e.treatment] ?? 0;
    const breakdown = Object.entries(shares)
      .sort(([a, x], [b, y]) => y - x || a.localeCompare(b))
      .map(([t, s]) => `${t}: ${percent(s)}`)
      .join(", ");
    const got = `${percent(share)} of ${keys.length} sampled keys get treatment "${e.treatment}" for flag "${e.flag}"`;
    if (e.maxPercent !== undefined && share > e.maxPercent) {
      fail(`${where}, ${got}, expected at most ${percent(e.maxPercent)} (${breakdown})`);
    }
    if (e.minPercent !== undefined && share < e.minPercent) {
      fail(`${where}, ${got}, expected at least ${percent(e.minPercent)} (${breakdown})`);
    }
  }
  return failures;
}

/**
 * targeting-assertions: the configured expectations hold for the definitions in the stack, as
 * the real SDK evaluates them. A key expectation holds when the key gets the expected treatment
 * whatever seeds the service picks (whitelists, segments, attribute rules, single-bucket rules);
 * a percentage expectation is measured over a deterministic key sample.
 */
export const targetingAssertions = stackPolicy(
  {
    name: "targeting-assertions",
    description:
      "Configured expectations about which treatment keys get (or what share of keys gets a treatment) hold, as evaluated by the real feature-flag SDK.",
    enforcementLevel: "mandatory",
    severity: "high",
    config: TargetingConfig,
  },
  async (resources, config, report) => {
    if (config.expectations.length === 0) return;
    for (const f of await checkExpectations(resources, config)) report(f.message, f.address);
  },
);
