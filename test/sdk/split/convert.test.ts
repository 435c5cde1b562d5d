import { describe, expect, it } from "vitest";
import { DefinitionBody, type Matcher } from "../../../sdk/admin/schemas";
import {
  archivedSplit,
  conversionProblems,
  deriveSeeds,
  matcherLabel,
  SdkSplit,
  segmentNames,
  toPartitions,
  toSdkMatcher,
  toSdkSplit,
} from "../../../sdk/split/convert";

const meta = {
  seed: 1569859022,
  trafficAllocationSeed: -554128485,
  changeNumber: 1580851834698,
  trafficTypeName: "user",
};

const doc = DefinitionBody.parse({
  treatments: [
    { name: "on", configurations: '{"k":"v"}', keys: ["bob", "qa-bot"], segments: ["beta", "staff"] },
    { name: "off", description: "the old checkout" },
    { name: "v2", keys: ["carol"] },
  ],
  defaultTreatment: "off",
  baselineTreatment: "off",
  trafficAllocation: 80,
  rules: [
    {
      buckets: [{ treatment: "on", size: 100 }],
      condition: { matchers: [{ type: "IN_LIST_STRING", attribute: "country", strings: ["US"] }] },
    },
    {
      buckets: [
        { treatment: "on", size: 50 },
        { treatment: "v2", size: 50 },
      ],
      condition: {
        matchers: [
          { type: "IN_SEGMENT", string: "beta-users" },
          { type: "GREATER_THAN_OR_EQUAL_NUMBER", attribute: "age", number: 21, negate: true },
        ],
      },
    },
  ],
  defaultRule: [
    { treatment: "on", size: 10 },
    { treatment: "off", size: 90 },
  ],
});

describe("toSdkSplit", () => {
  it("builds whitelist, segment, rule and default-rule conditions with every treatment in each partition list", () => {
    const split = toSdkSplit({ ...doc, name: "new-checkout" }, meta);
    expect(split).toEqual({
      name: "new-checkout",
      trafficTypeName: "user",
      status: "ACTIVE",
      killed: false,
      defaultTreatment: "off",
      changeNumber: 1580851834698,
      seed: 1569859022,
      trafficAllocation: 80,
      trafficAllocationSeed: -554128485,
      algo: 2,
      configurations: { on: '{"k":"v"}' },
      sets: [],
      impressionsDisabled: false,
      conditions: [
        {
          conditionType: "WHITELIST",
          matcherGroup: {
            combiner: "AND",
            matchers: [
              {
                keySelector: null,
                matcherType: "WHITELIST",
                negate: false,
                whitelistMatcherData: { whitelist: ["bob", "qa-bot"] },
              },
            ],
          },
          partitions: [{ treatment: "on", size: 100 }],
          label: "whitelisted",
        },
        {
          conditionType: "WHITELIST",
          matcherGroup: {
            combiner: "AND",
            matchers: [
              {
                keySelector: null,
                matcherType: "WHITELIST",
                negate: false,
                whitelistMatcherData: { whitelist: ["carol"] },
              },
            ],
          },
          partitions: [{ treatment: "v2", size: 100 }],
          label: "whitelisted",
        },
        {
          conditionType: "WHITELIST",
          matcherGroup: {
            combiner: "AND",
            matchers: [
              {
                keySelector: { trafficType: "user", attribute: null },
                matcherType: "IN_SEGMENT",
                negate: false,
                userDefinedSegmentMatcherData: { segmentName: "beta" },
              },
            ],
          },
          partitions: [{ treatment: "on", size: 100 }],
          label: "whitelisted segment",
        },
        {
          conditionType: "WHITELIST",
          matcherGroup: {
            combiner: "AND",
            matchers: [
              {
                keySelector: { trafficType: "user", attribute: null },
                matcherType: "IN_SEGMENT",
                negate: false,
                userDefinedSegmentMatcherData: { segmentName: "staff" },
              },
            ],
          },
          partitions: [{ treatment: "on", size: 100 }],
          label: "whitelisted segment",
        },
        {
          conditionType: "ROLLOUT",
          matcherGroup: {
            combiner: "AND",
            matchers: [
              {
                keySelector: { trafficType: "user", attribute: "country" },
                matcherType: "WHITELIST",
                negate: false,
                whitelistMatcherData: { whitelist: ["US"] },
              },
            ],
          },
          partitions: [
            { treatment: "on", size: 100 },
            { treatment: "off", size: 0 },
            { treatment: "v2", size: 0 },
          ],
          label: "country in list [US]",
        },
        {
          conditionType: "ROLLOUT",
          matcherGroup: {
            combiner: "AND",
            matchers: [
              {
                keySelector: { trafficType: "user", attribute: null },
                matcherType: "IN_SEGMENT",
                negate: false,
                userDefinedSegmentMatcherData: { segmentName: "beta-users" },
              },
              {
                keySelector: { trafficType: "user", attribute: "age" },
                matcherType: "GREATER_THAN_OR_EQUAL_TO",
                negate: true,
                unaryNumericMatcherData: { dataType: "NUMBER", value: 21 },
              },
            ],
          },
          partitions: [
            { treatment: "on", size: 50 },
            { treatment: "off", size: 0 },
            { treatment: "v2", size: 50 },
          ],
          label: "in segment beta-users and age not greater than or equal to 21",
        },
        {
          conditionType: "ROLLOUT",
          matcherGroup: {
            combiner: "AND",
            matchers: [
              {
                keySelector: { trafficType: "user", attribute: null },
                matcherType: "ALL_KEYS",
                negate: false,
              },
            ],
          },
          partitions: [
            { treatment: "on", size: 10 },
            { treatment: "off", size: 90 },
            { treatment: "v2", size: 0 },
          ],
          label: "default rule",
        },
      ],
    });
    expect(SdkSplit.parse(split)).toEqual(split);
  });

  it("copies killed and serialises to the wire JSON of a minimal definition", () => {
    const split = toSdkSplit(
      {
        name: "f",
        killed: true,
        treatments: [{ name: "on" }, { name: "off" }],
        defaultTreatment: "off",
        trafficAllocation: 100,
        rules: [],
        defaultRule: [{ treatment: "off", size: 100 }],
      },
      { ...meta, trafficTypeName: "account" },
    );
    expect(JSON.stringify(split)).toBe(
      '{"name":"f","trafficTypeName":"account","status":"ACTIVE","killed":true,"defaultTreatment":"off",' +
        '"changeNumber":1580851834698,"seed":1569859022,"trafficAllocation":100,"trafficAllocationSeed":-554128485,' +
        '"algo":2,"configurations":{},"sets":[],"impressionsDisabled":false,"conditions":[{"conditionType":"ROLLOUT",' +
        '"matcherGroup":{"combiner":"AND","matchers":[{"keySelector":{"trafficType":"account","attribute":null},' +
        '"matcherType":"ALL_KEYS","negate":false}]},"partitions":[{"treatment":"on","size":0},{"treatment":"off","size":100}],' +
        '"label":"default rule"}]}',
    );
  });

  it("refuses a matcher without the field its type needs, naming the field", () => {
    expect(() =>
      toSdkSplit(
        {
          name: "f",
          treatments: [{ name: "on" }],
          defaultTreatment: "on",
          trafficAllocation: 100,
          rules: [
            {
              buckets: [{ treatment: "on", size: 100 }],
              condition: { combiner: "AND", matchers: [{ type: "IN_SEGMENT" }] },
            },
          ],
          defaultRule: [{ treatment: "on", size: 100 }],
        },
        meta,
      ),
    ).toThrow(
      'definition of "f" cannot be served to SDKs: rules.0.condition.matchers.0.string: string is required for a IN_SEGMENT matcher',
    );
  });

  it("carries the definition's flag set names in sets, each once and sorted (ref wire §1)", () => {
    const split = toSdkSplit({ ...doc, name: "new-checkout" }, { ...meta, sets: ["web", "android", "web"] });
    expect(split.sets).toEqual(["android", "web"]);
    expect(toSdkSplit({ ...doc, name: "new-checkout" }, meta).sets).toEqual([]);
  });

  it("refuses seeds outside int32", () => {
    expect(() => archivedSplit("f", { ...meta, seed: 2 ** 31 })).toThrow();
  });
});

describe("toSdkMatcher", () => {
  const sel = (attribute: string | null) => ({ trafficType: "user", attribute });
  it.each<[Matcher, object]>([
    [
      { type: "IN_SEGMENT", string: "s" },
      {
        keySelector: sel(null),
        matcherType: "IN_SEGMENT",
        negate: false,
        userDefinedSegmentMatcherData: { segmentName: "s" },
      },
    ],
    [
      { type: "IN_LIST_STRING", strings: ["a"] },
      {
        keySelector: sel(null),
        matcherType: "WHITELIST",
        negate: false,
        whitelistMatcherData: { whitelist: ["a"] },
      },
    ],
    [
      { type: "EQUAL_SET", attribute: "p", strings: ["a"] },
      {
        keySelector: sel("p"),
        matcherType: "EQUAL_TO_SET",
        negate: false,
        whitelistMatcherData: { whitelist: ["a"] },
      },
    ],
    [
      { type: "ANY_OF_SET", attribute: "p", strings: ["a"] },
      {
        keySelector: sel("p"),
        matcherType: "CONTAINS_ANY_OF_SET",
        negate: false,
        whitelistMatcherData: { whitelist: ["a"] },
      },
    ],
    [
      { type: "ALL_OF_SET", attribute: "p", strings: ["a"] },
      {
        keySelector: sel("p"),
        matcherType: "CONTAINS_ALL_OF_SET",
        negate: false,
        whitelistMatcherData: { whitelist: ["a"] },
      },
    ],
    [
      { type: "PART_OF_SET", attribute: "p", strings: ["a"] },
      {
        keySelector: sel("p"),
        matcherType: "PART_OF_SET",
        negate: false,
        whitelistMatcherData: { whitelist: ["a"] },
      },
    ],
    [
      { type: "STARTS_WITH_STRING", attribute: "e", strings: ["x"] },
      {
        keySelector: sel("e"),
        matcherType: "STARTS_WITH",
        negate: false,
        whitelistMatcherData: { whitelist: ["x"] },
      },
    ],
    [
      { type: "ENDS_WITH_STRING", attribute: "e", strings: ["@x.io"], negate: true },
      {
        keySelector: sel("e"),
        matcherType: "ENDS_WITH",
        negate: true,
        whitelistMatcherData: { whitelist: ["@x.io"] },
      },
    ],
    [
      { type: "CONTAINS_STRING", attribute: "e", strings: ["x"] },
      {
        keySelector: sel("e"),
        matcherType: "CONTAINS_STRING",
        negate: false,
        whitelistMatcherData: { whitelist: ["x"] },
      },
    ],
    [
      { type: "MATCHES_STRING", attribute: "e", string: "^a.*" },
      { keySelector: sel("e"), matcherType: "MATCHES_STRING", negate: false, stringMatcherData: "^a.*" },
    ],
    [
      { type: "BOOLEAN", attribute: "paid", bool: true },
      { keySelector: sel("paid"), matcherType: "EQUAL_TO_BOOLEAN", negate: false, booleanMatcherData: true },
    ],
    [
      { type: "EQUAL_NUMBER", attribute: "n", number: 3 },
      {
        keySelector: sel("n"),
        matcherType: "EQUAL_TO",
        negate: false,
        unaryNumericMatcherData: { dataType: "NUMBER", value: 3 },
      },
    ],
    [
      { type: "GREATER_THAN_OR_EQUAL_NUMBER", attribute: "n", number: 3 },
      {
        keySelector: sel("n"),
        matcherType: "GREATER_THAN_OR_EQUAL_TO",
        negate: false,
        unaryNumericMatcherData: { dataType: "NUMBER", value: 3 },
      },
    ],
    [
      { type: "LESS_THAN_OR_EQUAL_NUMBER", attribute: "n", number: 3 },
      {
        keySelector: sel("n"),
        matcherType: "LESS_THAN_OR_EQUAL_TO",
        negate: false,
        unaryNumericMatcherData: { dataType: "NUMBER", value: 3 },
      },
    ],
    [
      { type: "BETWEEN_NUMBER", attribute: "n", between: { from: 1, to: 9 } },
      {
        keySelector: sel("n"),
        matcherType: "BETWEEN",
        negate: false,
        betweenMatcherData: { dataType: "NUMBER", start: 1, end: 9 },
      },
    ],
    [
      { type: "ON_DATE", attribute: "d", date: 1700000000000 },
      {
        keySelector: sel("d"),
        matcherType: "EQUAL_TO",
        negate: false,
        unaryNumericMatcherData: { dataType: "DATETIME", value: 1700000000000 },
      },
    ],
    [
      { type: "ON_OR_AFTER_DATE", attribute: "d", date: 1700000000000 },
      {
        keySelector: sel("d"),
        matcherType: "GREATER_THAN_OR_EQUAL_TO",
        negate: false,
        unaryNumericMatcherData: { dataType: "DATETIME", value: 1700000000000 },
      },
    ],
    [
      { type: "ON_OR_BEFORE_DATE", attribute: "d", date: 1700000000000 },
      {
        keySelector: sel("d"),
        matcherType: "LESS_THAN_OR_EQUAL_TO",
        negate: false,
        unaryNumericMatcherData: { dataType: "DATETIME", value: 1700000000000 },
      },
    ],
    [
      { type: "BETWEEN_DATE", attribute: "d", between: { from: 1, to: 2 } },
      {
        keySelector: sel("d"),
        matcherType: "BETWEEN",
        negate: false,
        betweenMatcherData: { dataType: "DATETIME", start: 1, end: 2 },
      },
    ],
    [
      { type: "IN_SPLIT", depends: { splitName: "other", treatment: "on" } },
      {
        keySelector: sel(null),
        matcherType: "IN_SPLIT_TREATMENT",
        negate: false,
        dependencyMatcherData: { split: "other", treatments: ["on"] },
      },
    ],
  ])("maps %o", (matcher, expected) => {
    expect(toSdkMatcher(matcher, "user")).toEqual(expected);
  });
});

describe("matcherLabel", () => {
  it.each<[Matcher, string]>([
    [{ type: "IN_SEGMENT", string: "beta" }, "in segment beta"],
    [{ type: "IN_SEGMENT", string: "beta", negate: true }, "not in segment beta"],
    [{ type: "IN_LIST_STRING", attribute: "country", strings: ["US", "CA"] }, "country in list [US, CA]"],
    [{ type: "BETWEEN_NUMBER", attribute: "age", between: { from: 18, to: 30 } }, "age between 18 and 30"],
    [{ type: "ON_DATE", attribute: "signup", date: 1700000000000 }, "signup on 2023-11-14"],
    [{ type: "BOOLEAN", attribute: "paid", bool: false }, "paid is false"],
    [
      { type: "IN_SPLIT", depends: { splitName: "other", treatment: "on" } },
      "is in split other treatment [on]",
    ],
  ])("labels %o", (matcher, label) => {
    expect(matcherLabel(matcher)).toBe(label);
  });
});

describe("toPartitions", () => {
  it("lists every treatment in definition order and sums repeated buckets", () => {
    expect(
      toPartitions(
        [
          { treatment: "b", size: 30 },
          { treatment: "a", size: 20 },
          { treatment: "b", size: 50 },
        ],
        ["a", "b", "c"],
      ),
    ).toEqual([
      { treatment: "a", size: 20 },
      { treatment: "b", size: 80 },
      { treatment: "c", size: 0 },
    ]);
  });
});

describe("conversionProblems", () => {
  it.each<[Matcher["type"], string]>([
    ["IN_SEGMENT", "string"],
    ["EQUAL_SET", "strings"],
    ["ON_DATE", "date"],
    ["BETWEEN_DATE", "between"],
    ["BOOLEAN", "bool"],
    ["EQUAL_NUMBER", "number"],
    ["BETWEEN_NUMBER", "between"],
    ["MATCHES_STRING", "string"],
    ["IN_SPLIT", "depends"],
  ])("%s needs %s", (type, field) => {
    expect(
      conversionProblems({ rules: [{ buckets: [], condition: { combiner: "AND", matchers: [{ type }] } }] }),
    ).toEqual([
      {
        path: ["rules", 0, "condition", "matchers", 0, field],
        message: `${field} is required for a ${type} matcher`,
      },
    ]);
  });

  it("finds nothing wrong in a complete definition", () => {
    expect(conversionProblems(doc)).toEqual([]);
  });
});

describe("archivedSplit", () => {
  it("is a tombstone that evaluates to control", () => {
    expect(archivedSplit("gone", meta)).toEqual({
      name: "gone",
      trafficTypeName: "user",
      status: "ARCHIVED",
      killed: false,
      defaultTreatment: "control",
      changeNumber: 1580851834698,
      seed: 1569859022,
      trafficAllocation: 100,
      trafficAllocationSeed: -554128485,
      algo: 2,
      configurations: {},
      sets: [],
      impressionsDisabled: false,
      conditions: [],
    });
  });
});

describe("segmentNames", () => {
  it("lists treatment segments then IN_SEGMENT matchers, each once", () => {
    expect(segmentNames(doc)).toEqual(["beta", "staff", "beta-users"]);
  });
});

describe("deriveSeeds", () => {
  it("is stable, int32 and differs per input", () => {
    const a = deriveSeeds("Production", "new-checkout");
    expect(deriveSeeds("Production", "new-checkout")).toEqual(a);
    expect(deriveSeeds("Staging", "new-checkout")).not.toEqual(a);
    for (const v of [a.seed, a.trafficAllocationSeed]) {
      expect(Number.isInteger(v) && v >= -(2 ** 31) && v < 2 ** 31).toBe(true);
    }
  });
});
