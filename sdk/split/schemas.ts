/**
 * Zod schemas of the feature-flag SDK's wire format: the split objects served by
 * `/api/splitChanges` and the segment bodies served by `/api/segmentChanges/{name}`.
 *
 * These are the single source of the SDK-side types: {@link toSdkSplit} builds values of
 * {@link SdkSplit}, the emulator serves them, and the evaluator feeds them to the real
 * `@splitsoftware/splitio` engine. Shapes come from `../shared/reference/sdk-wire-format.md`
 * (cited as "ref wire §N").
 * @module
 */
import { z } from "zod";

/** Every matcher type the Node SDK understands (ref wire §1, `evaluator/matchers/matcherTypes.ts`). */
export const SDK_MATCHER_TYPES = [
  "ALL_KEYS",
  "IN_SEGMENT",
  "WHITELIST",
  "EQUAL_TO",
  "GREATER_THAN_OR_EQUAL_TO",
  "LESS_THAN_OR_EQUAL_TO",
  "BETWEEN",
  "EQUAL_TO_SET",
  "CONTAINS_ANY_OF_SET",
  "CONTAINS_ALL_OF_SET",
  "PART_OF_SET",
  "ENDS_WITH",
  "STARTS_WITH",
  "CONTAINS_STRING",
  "IN_SPLIT_TREATMENT",
  "EQUAL_TO_BOOLEAN",
  "MATCHES_STRING",
  "EQUAL_TO_SEMVER",
  "GREATER_THAN_OR_EQUAL_TO_SEMVER",
  "LESS_THAN_OR_EQUAL_TO_SEMVER",
  "BETWEEN_SEMVER",
  "IN_LIST_SEMVER",
  "IN_LARGE_SEGMENT",
  "IN_RULE_BASED_SEGMENT",
] as const;
export const SdkMatcherType = z.enum(SDK_MATCHER_TYPES);
export type SdkMatcherType = z.infer<typeof SdkMatcherType>;

/** Signed 32-bit integer: the range of `seed` and `trafficAllocationSeed` (ref wire §2 item 5). */
export const Int32 = z.number().int().min(-2147483648).max(2147483647);

/** `dataType` of numeric matchers: `null` behaves as NUMBER, DATETIME truncates (ref wire §2 item 3). */
export const SdkMatcherDataType = z.enum(["NUMBER", "DATETIME"]).nullable();

/** `keySelector.attribute` null means "match on the key"; `trafficType` is ignored by the evaluator. */
export const SdkKeySelector = z.object({ trafficType: z.string(), attribute: z.string().nullable() });
export type SdkKeySelector = z.infer<typeof SdkKeySelector>;

/** One matcher: the type plus the single `*MatcherData` field that type reads (ref wire §1). */
export const SdkMatcher = z.object({
  keySelector: SdkKeySelector.nullable(),
  matcherType: SdkMatcherType,
  negate: z.boolean(),
  userDefinedSegmentMatcherData: z.object({ segmentName: z.string() }).nullable().optional(),
  whitelistMatcherData: z
    .object({ whitelist: z.array(z.string()) })
    .nullable()
    .optional(),
  unaryNumericMatcherData: z
    .object({ dataType: SdkMatcherDataType, value: z.number() })
    .nullable()
    .optional(),
  betweenMatcherData: z
    .object({ dataType: SdkMatcherDataType, start: z.number(), end: z.number() })
    .nullable()
    .optional(),
  booleanMatcherData: z.boolean().nullable().optional(),
  stringMatcherData: z.string().nullable().optional(),
  dependencyMatcherData: z
    .object({ split: z.string(), treatments: z.array(z.string()) })
    .nullable()
    .optional(),
  betweenStringMatcherData: z.object({ start: z.string(), end: z.string() }).nullable().optional(),
});
export type SdkMatcher = z.infer<typeof SdkMatcher>;

export const SdkPartition = z.object({
  treatment: z.string(),
  size: z.number().int().min(0).max(100),
});
export type SdkPartition = z.infer<typeof SdkPartition>;

/**
 * One condition. The SDK throws a `RangeError` when partitions do not sum to exactly 100
 * (ref wire §3), so the schema refuses that too.
 */
export const SdkCondition = z.object({
  conditionType: z.enum(["WHITELIST", "ROLLOUT"]),
  matcherGroup: z.object({ combiner: z.literal("AND"), matchers: z.array(SdkMatcher).min(1) }),
  partitions: z
    .array(SdkPartition)
    .min(1)
    .refine((ps) => ps.reduce((s, p) => s + p.size, 0) === 100, {
      message: "partition sizes must sum to 100",
    }),
  label: z.string(),
});
export type SdkCondition = z.infer<typeof SdkCondition>;

/** A split object as `/api/splitChanges` serves it (ref wire §1). */
export const SdkSplit = z.object({
  name: z.string().min(1),
  trafficTypeName: z.string().min(1),
  status: z.enum(["ACTIVE", "ARCHIVED"]),
  killed: z.boolean(),
  defaultTreatment: z.string(),
  changeNumber: z.number().int(),
  seed: Int32,
  trafficAllocation: z.number().int().min(0).max(100),
  trafficAllocationSeed: Int32,
  /** Always 2 (murmur3): Python SDKs treat a missing algo as the legacy hash (ref wire §3). */
  algo: z.literal(2),
  configurations: z.record(z.string(), z.string()),
  sets: z.array(z.string()),
  impressionsDisabled: z.boolean(),
  conditions: z.array(SdkCondition),
});
export type SdkSplit = z.infer<typeof SdkSplit>;

/** Per-definition values the admin document does not hold (ref wire §2 item 5). */
export const SplitMeta = z.object({
  /** Chosen once per definition and kept across updates, or users re-bucket. */
  seed: Int32,
  /** Chosen once per definition and kept across updates. */
  trafficAllocationSeed: Int32,
  /** The definition's lastUpdateTime in ms: strictly increasing. */
  changeNumber: z.number().int(),
  trafficTypeName: z.string().min(1),
  /** The names of the flag sets the definition belongs to (ref wire §1 `sets`); default none. */
  sets: z.array(z.string()).optional(),
});
export type SplitMeta = z.infer<typeof SplitMeta>;

/** `GET /api/splitChanges?s=1.3` body (ref wire §1); `rbs` is always empty here. */
export const SplitChanges = z.object({
  ff: z.object({ d: z.array(SdkSplit), s: z.number().int(), t: z.number().int() }),
  rbs: z.object({ d: z.array(z.unknown()), s: z.number().int(), t: z.number().int() }),
});
export type SplitChanges = z.infer<typeof SplitChanges>;

/** `GET /api/segmentChanges/{name}` body (ref wire §4). */
export const SegmentChanges = z.object({
  name: z.string(),
  added: z.array(z.string()),
  removed: z.array(z.string()),
  since: z.number().int(),
  till: z.number().int(),
});
export type SegmentChanges = z.infer<typeof SegmentChanges>;
