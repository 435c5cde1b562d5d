/**
 * Admin definition → SDK split conversion: what the feature-flag backend serves to SDKs for a
 * definition edited through the admin API (ref wire §2 in `../shared/reference/sdk-wire-format.md`).
 *
 * The emulator's `/api/splitChanges` and the policy pack's targeting assertions both use this
 * module, so what the policy pack predicts is exactly what a real SDK pointed at the emulator gets.
 *
 * Condition order follows the SDK's first-match-wins evaluation (ref wire §3):
 * 1. one `WHITELIST` condition per treatment with `keys` (label "whitelisted");
 * 2. one `WHITELIST` condition per treatment segment, each with a single `IN_SEGMENT` matcher
 *    (label "whitelisted segment"): one condition per segment, because the combiner is AND and a
 *    member of *any* listed segment gets the treatment;
 * 3. one `ROLLOUT` condition per rule, matchers mapped with {@link toSdkMatcher};
 * 4. a final `ROLLOUT` condition with `ALL_KEYS` for the default rule (label "default rule").
 * @module
 */
import { createHash } from "node:crypto";
import type { Bucket, Definition, DefinitionProblem, Matcher } from "../admin/schemas";
import { type SdkCondition, type SdkMatcher, type SdkPartition, type SdkSplit, SplitMeta } from "./schemas";

export type { SdkCondition, SdkMatcher, SdkPartition } from "./schemas";
export { SdkSplit, SplitMeta } from "./schemas";

/**
 * What the conversion reads from a definition: the service's {@link Definition} and a parsed
 * `DefinitionDoc` plus the flag name both fit. `killed` defaults to false.
 */
export type SplitSource = Pick<
  Definition,
  "name" | "treatments" | "defaultTreatment" | "trafficAllocation" | "rules" | "defaultRule"
> &
  Partial<Pick<Definition, "killed">>;

/** The admin matcher as the conversion reads it (a service response may carry extra fields). */
type AdminMatcher = SplitSource["rules"][number]["condition"]["matchers"][number];

/** Label of the individual-target conditions (ref wire §1, real payload). */
export const WHITELIST_LABEL = "whitelisted";
/** Label of the segment-target conditions (ref wire §2 item 2: unverified, the SDK only reports it). */
export const WHITELIST_SEGMENT_LABEL = "whitelisted segment";
/** Label of the final ALL_KEYS condition (ref wire §2 item 4). */
export const DEFAULT_RULE_LABEL = "default rule";

/** The admin field each matcher type needs (ref admin §3). */
const REQUIRED_FIELD: Record<Matcher["type"], keyof Matcher> = {
  IN_SEGMENT: "string",
  EQUAL_SET: "strings",
  ANY_OF_SET: "strings",
  ALL_OF_SET: "strings",
  PART_OF_SET: "strings",
  ON_DATE: "date",
  ON_OR_AFTER_DATE: "date",
  ON_OR_BEFORE_DATE: "date",
  BETWEEN_DATE: "between",
  BOOLEAN: "bool",
  EQUAL_NUMBER: "number",
  LESS_THAN_OR_EQUAL_NUMBER: "number",
  GREATER_THAN_OR_EQUAL_NUMBER: "number",
  BETWEEN_NUMBER: "between",
  IN_LIST_STRING: "strings",
  STARTS_WITH_STRING: "strings",
  ENDS_WITH_STRING: "strings",
  CONTAINS_STRING: "strings",
  MATCHES_STRING: "string",
  IN_SPLIT: "depends",
};

/**
 * Matchers that lack the field their type needs (ref admin §3: "depending on the type, different
 * fields are required"). {@link toSdkSplit} refuses such a definition; callers that accept
 * definitions (the emulator, the provider's `check`, the policy pack) report these problems first.
 */
export function conversionProblems(def: Pick<SplitSource, "rules">): DefinitionProblem[] {
  const problems: DefinitionProblem[] = [];
  def.rules.forEach((rule, r) => {
    rule.condition.matchers.forEach((m, i) => {
      const field = REQUIRED_FIELD[m.type];
      if (m[field] === undefined || m[field] === null) {
        problems.push({
          path: ["rules", r, "condition", "matchers", i, field],
          message: `${field} is required for a ${m.type} matcher`,
        });
      }
    });
  });
  return problems;
}

/**
 * Converts an admin definition to the split object the SDK evaluates (ref wire §1-§2).
 * @throws Error naming the field when a matcher lacks the data its type needs.
 * @example
 * const split = toSdkSplit({ ...definitionDoc, name: "new-checkout" },
 *   { seed: 1569859022, trafficAllocationSeed: -554128485, changeNumber: Date.now(), trafficTypeName: "user" });
 */
export function toSdkSplit(def: SplitSource, meta: SplitMeta): SdkSplit {
  const m = SplitMeta.parse(meta);
  const problems = conversionProblems(def);
  if (problems.length > 0) {
    throw new Error(
      `definition of "${def.name}" cannot be served to SDKs: ${problems.map((p) => `${p.path.join(".")}: ${p.message}`).join("; ")}`,
    );
  }
  const treatmentNames = def.treatments.map((t) => t.name);
  const conditions: SdkCondition[] = [];
  for (const t of def.treatments) {
    if (t.keys && t.keys.length > 0) {
      conditions.push({
        conditionType: "WHITELIST",
        matcherGroup: {
          combiner: "AND",
          matchers: [
            {
              keySelector: null,
              matcherType: "WHITELIST",
              negate: false,
              whitelistMatcherData: { whitelist: [...t.keys] },
            },
          ],
        },
        partitions: [{ treatment: t.name, size: 100 }],
        label: WHITELIST_LABEL,
      });
    }
  }
  for (const t of def.treatments) {
    for (const segmentName of t.segments ?? []) {
      conditions.push({
        conditionType: "WHITELIST",
        matcherGroup: {
          combiner: "AND",
          matchers: [
            {
              keySelector: { trafficType: m.trafficTypeName, attribute: null },
              matcherType: "IN_SEGMENT",
              negate: false,
              userDefinedSegmentMatcherData: { segmentName },
            },
          ],
        },
        partitions: [{ treatment: t.name, size: 100 }],
        label: WHITELIST_SEGMENT_LABEL,
      });
    }
  }
  for (const rule of def.rules) {
    conditions.push({
      conditionType: "ROLLOUT",
      matcherGroup: {
        combiner: "AND",
        matchers: rule.condition.matchers.map((x) => toSdkMatcher(x, m.trafficTypeName)),
      },
      partitions: toPartitions(rule.buckets, treatmentNames),
      label: rule.condition.matchers.map(matcherLabel).join(" and "),
    });
  }
  conditions.push({
    conditionType: "ROLLOUT",
    matcherGroup: {
      combiner: "AND",
      matchers: [
        {
          keySelector: { trafficType: m.trafficTypeName, attribute: null },
          matcherType: "ALL_KEYS",
          negate: false,
        },
      ],
    },
    partitions: toPartitions(def.defaultRule, treatmentNames),
    label: DEFAULT_RULE_LABEL,
  });

  const configurations: Record<string, string> = {};
  for (const t of def.treatments)
    if (t.configurations !== undefined) configurations[t.name] = t.configurations;

  return {
    name: def.name,
    trafficTypeName: m.trafficTypeName,
    status: "ACTIVE",
    killed: def.killed ?? false,
    defaultTreatment: def.defaultTreatment,
    changeNumber: m.changeNumber,
    seed: m.seed,
    trafficAllocation: def.trafficAllocation,
    trafficAllocationSeed: m.trafficAllocationSeed,
    algo: 2,
    configurations,
    sets: [...new Set(m.sets ?? [])].sort(),
    impressionsDisabled: false,
    conditions,
  };
}

/**
 * The tombstone served once for a deleted or unconfigured definition, so SDKs drop it instead of
 * serving it forever (ref wire §1: ARCHIVED items are removals). Evaluates to `control`.
 */
export function archivedSplit(name: string, meta: SplitMeta): SdkSplit {
  const m = SplitMeta.parse(meta);
  return {
    name,
    trafficTypeName: m.trafficTypeName,
    status: "ARCHIVED",
    killed: false,
    defaultTreatment: "control",
    changeNumber: m.changeNumber,
    seed: m.seed,
    trafficAllocation: 100,
    trafficAllocationSeed: m.trafficAllocationSeed,
    algo: 2,
    configurations: {},
    sets: [],
    impressionsDisabled: false,
    conditions: [],
  };
}

/**
 * Every segment a definition refers to (treatment segments and IN_SEGMENT matchers), each once, in
 * order of first use: the SDK waits for each before it is ready, so the emulator serves them all
 * (ref wire §4).
 */
export function segmentNames(def: Pick<SplitSource, "treatments" | "rules">): string[] {
  const names = new Set<string>();
  for (const t of def.treatments) for (const s of t.segments ?? []) names.add(s);
  for (const r of def.rules) {
    for (const mt of r.condition.matchers)
      if (mt.type === "IN_SEGMENT" && typeof mt.string === "string") names.add(mt.string);
  }
  return [...names];
}

/**
 * A stable pair of signed int32 seeds derived from the given parts (for example environment id and
 * flag name). The real backend picks random seeds once per definition (ref wire §2 item 5); deriving
 * them instead keeps them stable across updates and restarts with no extra state, and lets the
 * policy pack bucket keys exactly like the emulator does.
 */
export function deriveSeeds(...parts: string[]): Pick<SplitMeta, "seed" | "trafficAllocationSeed"> {
  const digest = createHash("sha256").update(parts.join("\u0000")).digest();
  return { seed: digest.readInt32BE(0), trafficAllocationSeed: digest.readInt32BE(4) };
}

/**
 * Bucket list → partitions listing every treatment in definition order, missing ones at size 0, as
 * real payloads do (ref wire §2 item 3). A treatment named in two buckets gets their sum.
 */
export function toPartitions(buckets: readonly Bucket[], treatments: readonly string[]): SdkPartition[] {
  const sizes = new Map<string, number>(treatments.map((t) => [t, 0]));
  for (const b of buckets) sizes.set(b.treatment, (sizes.get(b.treatment) ?? 0) + b.size);
  return [...sizes].map(([treatment, size]) => ({ treatment, size }));
}

/** What one SDK matcher carries beside its key selector, `negate` and type. */
type SdkMatcherData = Omit<SdkMatcher, "keySelector" | "negate" | "matcherType">;

/** How one admin matcher type maps to the SDK's and reads in a label. */
interface MatcherMapping {
  /** The SDK's `matcherType`. */
  sdk: SdkMatcher["matcherType"];
  /** The SDK matcher's `*MatcherData` member. */
  data(m: AdminMatcher): SdkMatcherData;
  /** The label after the attribute and "not": `in list [a, b]`. */
  label(m: AdminMatcher): string;
  /** Matches on the key itself, never an attribute (segments, dependencies). */
  onKey?: true;
}

const strings = (m: AdminMatcher): SdkMatcherData => ({
  whitelistMatcherData: { whitelist: [...(m.strings ?? [])] },
});
const list = (m: AdminMatcher) => `[${(m.strings ?? []).join(", ")}]`;
const unary =
  (dataType: "NUMBER" | "DATETIME") =>
  (m: AdminMatcher): SdkMatcherData => ({
    unaryNumericMatcherData: { dataType, value: (dataType === "NUMBER" ? m.number : m.date) as number },
  });
const between =
  (dataType: "NUMBER" | "DATETIME") =>
  (m: AdminMatcher): SdkMatcherData => ({
    betweenMatcherData: { dataType, start: m.between!.from, end: m.between!.to },
  });
const iso = (ms: number | undefined) => new Date(ms ?? 0).toISOString();

/**
 * Every admin matcher type: the mapping table of ref wire §2 item 3, and real payloads' labels.
 * The SDK truncates EQUAL_TO dates to the UTC day and the others to the minute (ref wire §2 item 3).
 */
const MATCHERS: Record<AdminMatcher["type"], MatcherMapping> = {
  IN_SEGMENT: {
    sdk: "IN_SEGMENT",
    data: (m) => ({ userDefinedSegmentMatcherData: { segmentName: m.string as string } }),
    label: (m) => `in segment ${m.string}`,
    onKey: true,
  },
  IN_LIST_STRING: { sdk: "WHITELIST", data: strings, label: (m) => `in list ${list(m)}` },
  EQUAL_SET: { sdk: "EQUAL_TO_SET", data: strings, label: (m) => `is equal to set ${list(m)}` },
  ANY_OF_SET: { sdk: "CONTAINS_ANY_OF_SET", data: strings, label: (m) => `has any of ${list(m)}` },
  ALL_OF_SET: { sdk: "CONTAINS_ALL_OF_SET", data: strings, label: (m) => `has all of ${list(m)}` },
  PART_OF_SET: { sdk: "PART_OF_SET", data: strings, label: (m) => `is part of ${list(m)}` },
  STARTS_WITH_STRING: { sdk: "STARTS_WITH", data: strings, label: (m) => `starts with ${list(m)}` },
  ENDS_WITH_STRING: { sdk: "ENDS_WITH", data: strings, label: (m) => `ends with ${list(m)}` },
  CONTAINS_STRING: { sdk: "CONTAINS_STRING", data: strings, label: (m) => `contains ${list(m)}` },
  MATCHES_STRING: {
    sdk: "MATCHES_STRING",
    data: (m) => ({ stringMatcherData: m.string as string }),
    label: (m) => `matches ${m.string}`,
  },
  BOOLEAN: {
    sdk: "EQUAL_TO_BOOLEAN",
    data: (m) => ({ booleanMatcherData: m.bool as boolean }),
    label: (m) => `is ${m.bool}`,
  },
  EQUAL_NUMBER: { sdk: "EQUAL_TO", data: unary("NUMBER"), label: (m) => `equals ${m.number}` },
  GREATER_THAN_OR_EQUAL_NUMBER: {
    sdk: "GREATER_THAN_OR_EQUAL_TO",
    data: unary("NUMBER"),
    label: (m) => `greater than or equal to ${m.number}`,
  },
  LESS_THAN_OR_EQUAL_NUMBER: {
    sdk: "LESS_THAN_OR_EQUAL_TO",
    data: unary("NUMBER"),
    label: (m) => `less than or equal to ${m.number}`,
  },
  BETWEEN_NUMBER: {
    sdk: "BETWEEN",
    data: between("NUMBER"),
    label: (m) => `between ${m.between?.from} and ${m.between?.to}`,
  },
  ON_DATE: { sdk: "EQUAL_TO", data: unary("DATETIME"), label: (m) => `on ${iso(m.date).slice(0, 10)}` },
  ON_OR_AFTER_DATE: {
    sdk: "GREATER_THAN_OR_EQUAL_TO",
    data: unary("DATETIME"),
    label: (m) => `on or after ${iso(m.date)}`,
  },
  ON_OR_BEFORE_DATE: {
    sdk: "LESS_THAN_OR_EQUAL_TO",
    data: unary("DATETIME"),
    label: (m) => `on or before ${iso(m.date)}`,
  },
  BETWEEN_DATE: {
    sdk: "BETWEEN",
    data: between("DATETIME"),
    label: (m) => `between ${iso(m.between?.from)} and ${iso(m.between?.to)}`,
  },
  IN_SPLIT: {
    sdk: "IN_SPLIT_TREATMENT",
    data: (m) => ({
      dependencyMatcherData: { split: m.depends!.splitName, treatments: [m.depends!.treatment] },
    }),
    label: (m) => `is in split ${m.depends?.splitName} treatment [${m.depends?.treatment}]`,
    onKey: true,
  },
};

/** Admin matcher → SDK matcher, per the mapping table of ref wire §2 item 3 ({@link MATCHERS}). */
export function toSdkMatcher(matcher: AdminMatcher, trafficTypeName: string): SdkMatcher {
  const mapping = MATCHERS[matcher.type];
  return {
    keySelector: {
      trafficType: trafficTypeName,
      attribute: mapping.onKey ? null : (matcher.attribute ?? null),
    },
    negate: matcher.negate ?? false,
    matcherType: mapping.sdk,
    ...mapping.data(matcher),
  };
}

/**
 * Human label of a rule's matcher, in the style of real payloads ("in segment X",
 * "country in list [US]"); the SDK only copies labels into impressions (ref wire §2 item 3).
 */
export function matcherLabel(matcher: AdminMatcher): string {
  const mapping = MATCHERS[matcher.type];
  const subject = matcher.attribute && !mapping.onKey ? `${matcher.attribute} ` : "";
  const not = matcher.negate ? "not " : "";
  return `${subject}${not}${mapping.label(matcher)}`;
}
