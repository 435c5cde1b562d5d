import { describe, expect, it } from "vitest";
import { type DefinitionBody, DefinitionBody as DefinitionBodySchema } from "../../../sdk/admin/schemas";
import {
  definitionSeeds,
  evaluate,
  evaluateOutcome,
  type FlagToEvaluate,
  measureShares,
  OfflineEvaluator,
  sampleKeys,
  splitFor,
} from "../../../sdk/split/evaluate";

// Test vector from the SDK's murmur3 sample (ref wire §3): seed -52311562, this key → bucket 43.
const VECTOR = { seed: -52311562, key: "00018112-7d59-46cf-b9e0-f8fa625aa20b", bucket: 43 };

const flag = (
  flagName: string,
  body: DefinitionBody,
  extra: Partial<FlagToEvaluate> = {},
): FlagToEvaluate => ({
  flagName,
  definition: DefinitionBodySchema.parse(body),
  trafficTypeName: "user",
  ...extra,
});

const onOff = (
  defaultRule: DefinitionBody["defaultRule"],
  more: Partial<DefinitionBody> = {},
): DefinitionBody => ({
  treatments: [{ name: "on" }, { name: "off" }],
  defaultTreatment: "off",
  defaultRule,
  ...more,
});

describe("evaluate: bucketing with the real SDK", () => {
  it.each([
    [[42, 1, 57], "b"],
    [[43, 0, 57], "a"],
    [[0, 42, 58], "c"],
    [[1, 41, 58], "c"],
  ])("bucket 43 with partitions %j gets %s", async (sizes, treatment) => {
    const def: DefinitionBody = {
      treatments: [{ name: "a" }, { name: "b" }, { name: "c" }],
      defaultTreatment: "a",
      defaultRule: [
        { treatment: "a", size: sizes[0]! },
        { treatment: "b", size: sizes[1]! },
        { treatment: "c", size: sizes[2]! },
      ],
    };
    const r = await evaluate([flag("f", def, { seed: VECTOR.seed, trafficAllocationSeed: 1 })], VECTOR.key);
    expect(r).toEqual({ f: { treatment, label: "default rule", config: null } });
  });

  it.each([
    [42, { treatment: "off", label: "not in split", config: null }],
    [43, { treatment: "on", label: "default rule", config: null }],
  ])(
    "traffic allocation %i with the vector's bucket 43 as allocation bucket",
    async (trafficAllocation, expected) => {
      const def = onOff([{ treatment: "on", size: 100 }], { trafficAllocation });
      const r = await evaluate([flag("f", def, { seed: 1, trafficAllocationSeed: VECTOR.seed })], VECTOR.key);
      expect(r.f).toEqual(expected);
    },
  );
});

describe("evaluate: targeting", () => {
  const checkout = flag("new-checkout", {
    treatments: [
      { name: "on", keys: ["qa-bot"], segments: ["staff"], configurations: '{"color":"green"}' },
      { name: "off" },
      { name: "v2" },
    ],
    defaultTreatment: "off",
    trafficAllocation: 0,
    rules: [
      {
        buckets: [{ treatment: "v2", size: 100 }],
        condition: { matchers: [{ type: "IN_LIST_STRING", attribute: "country", strings: ["US"] }] },
      },
    ],
    defaultRule: [{ treatment: "on", size: 100 }],
  });
  const cases: [string, string, Record<string, string | number | boolean | string[]> | undefined, object][] =
    [
      [
        "a whitelisted key",
        "qa-bot",
        undefined,
        { treatment: "on", label: "whitelisted", config: '{"color":"green"}' },
      ],
      [
        "a segment member",
        "alice",
        undefined,
        { treatment: "on", label: "whitelisted segment", config: '{"color":"green"}' },
      ],
      // trafficAllocation 0: every ROLLOUT condition sends the key to the default treatment.
      [
        "an attribute match outside the allocation",
        "bob",
        { country: "US" },
        { treatment: "off", label: "not in split", config: null },
      ],
      ["anyone else", "bob", undefined, { treatment: "off", label: "not in split", config: null }],
    ];
  it.each(cases)("%s", async (_, key, attributes, expected) => {
    const r = await evaluate([checkout], key, attributes, { segments: { staff: ["alice"] } });
    expect(r["new-checkout"]).toEqual(expected);
  });

  it("applies rules in order with their labels, negation and attribute types", async () => {
    const f = flag("rules", {
      treatments: [{ name: "on" }, { name: "off" }],
      defaultTreatment: "off",
      rules: [
        {
          buckets: [{ treatment: "on", size: 100 }],
          condition: {
            matchers: [
              { type: "ENDS_WITH_STRING", attribute: "email", strings: ["@acme.io"], negate: true },
              { type: "BOOLEAN", attribute: "paid", bool: true },
            ],
          },
        },
        {
          buckets: [{ treatment: "on", size: 100 }],
          condition: {
            matchers: [{ type: "BETWEEN_NUMBER", attribute: "age", between: { from: 18, to: 30 } }],
          },
        },
        {
          buckets: [{ treatment: "on", size: 100 }],
          condition: { matchers: [{ type: "ON_DATE", attribute: "signup", date: Date.UTC(2026, 0, 15) }] },
        },
        {
          buckets: [{ treatment: "on", size: 100 }],
          condition: { matchers: [{ type: "ANY_OF_SET", attribute: "plans", strings: ["pro", "team"] }] },
        },
      ],
      defaultRule: [{ treatment: "off", size: 100 }],
    });
    const ev = OfflineEvaluator.create([f]);
    try {
      expect(await ev.evaluate("k", { email: "x@gmail.com", paid: true })).toEqual({
        rules: { treatment: "on", label: "email not ends with [@acme.io] and paid is true", config: null },
      });
      expect(await ev.evaluate("k", { email: "x@acme.io", paid: true })).toEqual({
        rules: { treatment: "off", label: "default rule", config: null },
      });
      expect(await ev.evaluate("k", { age: 30 })).toEqual({
        rules: { treatment: "on", label: "age between 18 and 30", config: null },
      });
      expect(await ev.evaluate("k", { age: 31 })).toEqual({
        rules: { treatment: "off", label: "default rule", config: null },
      });
      // ON_DATE compares the UTC day: any time that day matches (ref wire §2 item 3).
      expect((await ev.evaluate("k", { signup: Date.UTC(2026, 0, 15, 23, 59) })).rules?.label).toBe(
        "signup on 2026-01-15",
      );
      expect((await ev.evaluate("k", { signup: Date.UTC(2026, 0, 16) })).rules?.label).toBe("default rule");
      expect((await ev.evaluate("k", { plans: ["free", "team"] })).rules?.treatment).toBe("on");
      expect((await ev.evaluate("k", { plans: ["free"] })).rules?.treatment).toBe("off");
    } finally {
      await ev.destroy();
    }
  });

  it("evaluates a dependency on another flag's treatment", async () => {
    const base = flag(
      "base",
      onOff([{ treatment: "off", size: 100 }], {
        treatments: [{ name: "on", keys: ["vip"] }, { name: "off" }],
      }),
    );
    const dependent = flag(
      "dependent",
      onOff([{ treatment: "off", size: 100 }], {
        rules: [
          {
            buckets: [{ treatment: "on", size: 100 }],
            condition: { matchers: [{ type: "IN_SPLIT", depends: { splitName: "base", treatment: "on" } }] },
          },
        ],
      }),
    );
    expect(await evaluate([base, dependent], "vip")).toEqual({
      base: { treatment: "on", label: "whitelisted", config: null },
      dependent: { treatment: "on", label: "is in split base treatment [on]", config: null },
    });
    expect((await evaluate([base, dependent], "other")).dependent).toEqual({
      treatment: "off",
      label: "default rule",
      config: null,
    });
  });

  it("serves the default treatment of a killed definition, even to whitelisted keys", async () => {
    const f = flag(
      "k",
      onOff([{ treatment: "on", size: 100 }], {
        killed: true,
        treatments: [{ name: "on", keys: ["qa"] }, { name: "off" }],
      }),
    );
    expect(await evaluate([f], "qa")).toEqual({ k: { treatment: "off", label: "killed", config: null } });
  });

  it("answers control for a key the SDK refuses and for an unknown flag", async () => {
    const ev = OfflineEvaluator.create([flag("f", onOff([{ treatment: "on", size: 100 }]))]);
    try {
      expect(await ev.evaluate("x".repeat(251))).toEqual({
        f: { treatment: "control", label: "invalid key", config: null },
      });
      expect(await ev.evaluate("k", undefined, ["missing"])).toEqual({
        missing: { treatment: "control", label: "definition not found", config: null },
      });
    } finally {
      await ev.destroy();
    }
  });

  it("refuses a flag listed twice", () => {
    const f = flag("f", onOff([{ treatment: "on", size: 100 }]));
    expect(() => OfflineEvaluator.create([f, f])).toThrow(
      'flag "f" is listed twice: evaluate one environment at a time',
    );
  });

  it("keeps concurrent evaluations apart", async () => {
    const f = flag(
      "f",
      onOff([{ treatment: "off", size: 100 }], {
        treatments: [{ name: "on", keys: ["a"] }, { name: "off" }],
      }),
    );
    const ev = OfflineEvaluator.create([f]);
    try {
      const [a, b] = await Promise.all([ev.evaluate("a"), ev.evaluate("b")]);
      expect(a.f?.label).toBe("whitelisted");
      expect(b.f?.label).toBe("default rule");
    } finally {
      await ev.destroy();
    }
  });
});

describe("measureShares", () => {
  it("measures a 10/90 default rule over 10,000 keys", async () => {
    const s = await measureShares(
      flag(
        "f",
        onOff([
          { treatment: "on", size: 10 },
          { treatment: "off", size: 90 },
        ]),
        { environment: "Production" },
      ),
    );
    expect(s.sampleSize).toBe(10_000);
    expect((s.counts.on ?? 0) + (s.counts.off ?? 0)).toBe(10_000);
    expect(s.shares.on).toBeGreaterThan(9);
    expect(s.shares.on).toBeLessThan(11);
    // Deterministic: same seeds, same keys.
    expect(
      await measureShares(
        flag(
          "f",
          onOff([
            { treatment: "on", size: 10 },
            { treatment: "off", size: 90 },
          ]),
          { environment: "Production" },
        ),
      ),
    ).toEqual(s);
  });

  it("counts keys outside the traffic allocation as the default treatment", async () => {
    const s = await measureShares(
      flag("f", onOff([{ treatment: "on", size: 100 }], { trafficAllocation: 0 })),
      { sampleSize: 500, keyPrefix: "u" },
    );
    expect(s).toEqual({ sampleSize: 500, counts: { off: 500 }, shares: { off: 100 } });
  });
});

describe("seeds and keys", () => {
  it("derives seeds per environment and flag, and uses given seeds as they are", () => {
    const f = flag("f", onOff([{ treatment: "on", size: 100 }]), { environment: "Production" });
    expect(splitFor(f)).toMatchObject(definitionSeeds("Production", "f"));
    expect(splitFor({ ...f, seed: 5, trafficAllocationSeed: 6 })).toMatchObject({
      seed: 5,
      trafficAllocationSeed: 6,
    });
  });

  it("builds a deterministic sample", () => {
    expect(sampleKeys(3, "u-")).toEqual(["u-0", "u-1", "u-2"]);
  });
});

describe("evaluateOutcome", () => {
  const f = flag("f", {
    treatments: [{ name: "on", keys: ["qa"] }, { name: "off" }, { name: "v2" }],
    defaultTreatment: "off",
    trafficAllocation: 50,
    rules: [
      {
        buckets: [{ treatment: "v2", size: 100 }],
        condition: { matchers: [{ type: "IN_LIST_STRING", attribute: "country", strings: ["US"] }] },
      },
      {
        buckets: [
          { treatment: "on", size: 30 },
          { treatment: "v2", size: 70 },
        ],
        condition: { matchers: [{ type: "IN_LIST_STRING", attribute: "country", strings: ["FR"] }] },
      },
    ],
    defaultRule: [
      { treatment: "on", size: 0 },
      { treatment: "off", size: 100 },
    ],
  });

  it.each([
    ["a whitelisted key: decided by targeting", "qa", undefined, ["on"]],
    ["a single-bucket rule with a partial allocation", "k1", { country: "US" }, ["off", "v2"]],
    ["a split rule with a partial allocation", "k1", { country: "FR" }, ["on", "off", "v2"]],
    ["the default rule, all off either way", "k1", undefined, ["off"]],
  ])("%s", async (_, key, attributes, possible) => {
    const o = await evaluateOutcome([f], "f", key, attributes);
    expect(o.possible).toEqual(possible);
    expect(possible).toContain(o.treatment);
  });

  it("is decided by targeting with a full allocation and one non-empty bucket", async () => {
    const full = flag("f", onOff([{ treatment: "on", size: 100 }], { rules: [] }));
    expect(await evaluateOutcome([full], "f", "anyone")).toEqual({
      treatment: "on",
      label: "default rule",
      config: null,
      possible: ["on"],
    });
  });

  it("reports only the default treatment of a killed flag", async () => {
    const killed = flag(
      "f",
      onOff(
        [
          { treatment: "on", size: 50 },
          { treatment: "off", size: 50 },
        ],
        { killed: true },
      ),
    );
    expect(await evaluateOutcome([killed], "f", "anyone")).toEqual({
      treatment: "off",
      label: "killed",
      config: null,
      possible: ["off"],
    });
  });

  it("refuses a flag that is not loaded", async () => {
    await expect(evaluateOutcome([f], "missing", "k")).rejects.toThrow('flag "missing" is not loaded');
  });
});
