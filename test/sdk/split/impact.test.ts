/**
 * sdk/split/impact: for each kind of change, the measured moves equal what the real SDK serves
 * before and after, key by key over the population: the counts of every from → to cell over the
 * sample, and the named keys that move. Exact shares are checked against the bucket arithmetic
 * (a ramp from 10 to 25 moves 15 of the 100 buckets); sampled ones carry their 95% error.
 */

import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { type FlagToEvaluate, OfflineEvaluator } from "../../../sdk/split/evaluate";
import { type FlagImpact, type ImpactSide, measureImpact, samplingError } from "../../../sdk/split/impact";
import { readPopulationFile, samplePopulation } from "../../../sdk/split/population";

type Doc = FlagToEvaluate["definition"];
const SEEDS = { seed: 1_234_567, trafficAllocationSeed: -7_654_321 };
const flag = (name: string, definition: Doc): FlagToEvaluate => ({
  flagName: name,
  definition,
  trafficTypeName: "user",
  environment: "Production",
  ...SEEDS,
});
const onOff = (on: number, extra: Partial<Doc> = {}): Doc => ({
  treatments: [{ name: "on" }, { name: "off" }],
  defaultTreatment: "off",
  trafficAllocation: 100,
  rules: [],
  defaultRule: [
    { treatment: "on", size: on },
    { treatment: "off", size: 100 - on },
  ],
  ...extra,
});
const inSegment = (segment: string, treatment = "on") => ({
  condition: { combiner: "AND" as const, matchers: [{ type: "IN_SEGMENT" as const, string: segment }] },
  buckets: [{ treatment, size: 100 }],
});
const onAttribute = (attribute: string, value: string, treatment = "on") => ({
  condition: {
    combiner: "AND" as const,
    matchers: [{ type: "IN_LIST_STRING" as const, attribute, strings: [value] }],
  },
  buckets: [{ treatment, size: 100 }],
});

const population = samplePopulation(4000);

/** What the real SDK serves before and after, over the population and the named keys. */
async function served(
  before: ImpactSide,
  after: ImpactSide,
  name: string,
  keys: readonly string[],
  attributes?: ReadonlyMap<string, Record<string, string>>,
) {
  const b = OfflineEvaluator.create(before.flags, { segments: before.segments });
  const a = OfflineEvaluator.create(after.flags, { segments: after.segments });
  try {
    const of = (k: string) => attributes?.get(k);
    const [tb, ta] = await Promise.all([b.treatmentsOf([name], keys, of), a.treatmentsOf([name], keys, of)]);
    const moves = new Map<string, string>();
    keys.forEach((k, i) => {
      const from = tb.get(name)![i]!;
      const to = ta.get(name)![i]!;
      if (from !== to) moves.set(k, `${from}>${to}`);
    });
    return moves;
  } finally {
    await Promise.all([b.destroy(), a.destroy()]);
  }
}

/** Cell counts from per-key moves of the keys no target names. */
function cells(moves: Map<string, string>, named: ReadonlySet<string>) {
  const out: Record<string, number> = {};
  for (const [k, m] of moves) if (!named.has(k)) out[m] = (out[m] ?? 0) + 1;
  return out;
}

async function check(
  before: ImpactSide,
  after: ImpactSide,
  name: string,
  pop = population,
): Promise<FlagImpact> {
  const [r] = await measureImpact(
    { environment: "Production", before, after, flags: [{ name, change: "updated" }] },
    pop,
  );
  const named = new Set(r!.moved.map((m) => m.key));
  // Every named key the report evaluated, plus the sample.
  const namedAll = new Set<string>();
  for (const side of [before, after]) {
    for (const f of side.flags.filter((x) => x.flagName === name))
      for (const t of f.definition.treatments) for (const k of t.keys ?? []) namedAll.add(k);
    for (const members of Object.values(side.segments)) for (const k of members) namedAll.add(k);
  }
  const keys = [...new Set([...pop.keys, ...namedAll])];
  const moves = await served(
    before,
    after,
    name,
    keys,
    pop.attributes as ReadonlyMap<string, Record<string, string>> | undefined,
  );
  const sampleCells = cells(moves, namedAll);
  expect(Object.fromEntries(r!.transitions.map((t) => [`${t.from}>${t.to}`, t.keys]))).toEqual(sampleCells);
  expect(Object.fromEntries(r!.moved.map((m) => [m.key, `${m.from}>${m.to}`]))).toEqual(
    Object.fromEntries([...moves].filter(([k]) => namedAll.has(k)).sort(([x], [y]) => x.localeCompare(y))),
  );
  expect(named.size).toBe(r!.moved.length);
  return r!;
}

const side = (flags: FlagToEvaluate[], segments: Record<string, string[]> = {}): ImpactSide => ({
  flags,
  segments,
});

describe("measureImpact, key by key against the real SDK", () => {
  it("a ramp from 10 to 25: exactly 15 of the 100 buckets move off → on", async () => {
    const r = await check(side([flag("f", onOff(10))]), side([flag("f", onOff(25))]), "f");
    expect(r.method).toBe("exact");
    expect(r.transitions.map((t) => [t.from, t.to, t.share, t.error])).toEqual([["off", "on", 15, 0]]);
    expect(r.shift).toBe(15);
    expect(r.transitions[0]!.keys / 4000).toBeCloseTo(0.15, 1);
  });

  it("a ramp down from 50 to 20: 30% on → off", async () => {
    const r = await check(side([flag("f", onOff(50))]), side([flag("f", onOff(20))]), "f");
    expect(r.transitions.map((t) => [t.from, t.to, t.share])).toEqual([["on", "off", 30]]);
  });

  it("the middle treatment of three is not monotone: every cell of the bucket arithmetic", async () => {
    const three = (a: number, b: number): Doc => ({
      treatments: [{ name: "a" }, { name: "b" }, { name: "c" }],
      defaultTreatment: "c",
      trafficAllocation: 100,
      rules: [],
      defaultRule: [
        { treatment: "a", size: a },
        { treatment: "b", size: b },
        { treatment: "c", size: 100 - a - b },
      ],
    });
    // a 1-20, b 21-50, c 51-100  →  a 1-40, b 41-50, c 51-100: buckets 21-40 move b → a.
    const r = await check(side([flag("f", three(20, 30))]), side([flag("f", three(40, 10))]), "f");
    expect(r.transitions.map((t) => [t.from, t.to, t.share])).toEqual([["b", "a", 20]]);
    // Partitions follow the treatments' order: a 1-20, b 21-50  →  b 1-30, a 31-50: 1-20 a→b, 31-50 b→a.
    const swapped: Doc = { ...three(20, 30), treatments: [{ name: "b" }, { name: "a" }, { name: "c" }] };
    const s = await check(side([flag("f", three(20, 30))]), side([flag("f", swapped)]), "f");
    expect(s.transitions.map((t) => [t.from, t.to, t.share])).toEqual([
      ["a", "b", 20],
      ["b", "a", 20],
    ]);
    expect(s.shift).toBe(40);
  });

  it("a traffic-allocation cut to 60: 40% of the allocation's buckets get the default treatment", async () => {
    const r = await check(
      side([flag("f", onOff(100))]),
      side([flag("f", onOff(100, { trafficAllocation: 60 }))]),
      "f",
    );
    expect(r.basis).toBe("the 10,000 bucket pairs (treatment and allocation)");
    expect(r.transitions.map((t) => [t.from, t.to, t.share])).toEqual([["on", "off", 40]]);
  });

  it("a kill and a restore move everyone not already on the default treatment", async () => {
    const kill = await check(
      side([flag("f", onOff(30))]),
      side([flag("f", onOff(30, { killed: true }))]),
      "f",
    );
    expect(kill.transitions.map((t) => [t.from, t.to, t.share])).toEqual([["on", "off", 30]]);
    const restore = await check(
      side([flag("f", onOff(30, { killed: true }))]),
      side([flag("f", onOff(30))]),
      "f",
    );
    expect(restore.transitions.map((t) => [t.from, t.to, t.share])).toEqual([["off", "on", 30]]);
  });

  it("a new IN_SEGMENT rule: the segment's members move, listed with the SDK's labels; others stay", async () => {
    const members = ["ent-1", "ent-2", "ent-3"];
    const r = await check(
      side([flag("f", onOff(0))], { enterprise: members }),
      side([flag("f", onOff(0, { rules: [inSegment("enterprise")] }))], { enterprise: members }),
      "f",
    );
    expect(r.shift).toBe(0);
    expect(r.namedKeys).toBe(3);
    expect(r.moved).toEqual(
      members.map((key) => ({
        key,
        from: "off",
        to: "on",
        labels: ["default rule", "in segment enterprise"],
      })),
    );
  });

  it("a segment member added and one removed: exactly those two move", async () => {
    const def = onOff(0, { treatments: [{ name: "on", segments: ["beta"] }, { name: "off" }] });
    const r = await check(
      side([flag("f", def)], { beta: ["a", "b"] }),
      side([flag("f", def)], { beta: ["a", "c"] }),
      "f",
    );
    expect(r.transitions).toEqual([]);
    expect(r.moved.map((m) => [m.key, m.from, m.to])).toEqual([
      ["b", "on", "off"],
      ["c", "off", "on"],
    ]);
  });

  it("a rule moved above another: the keys both match move to the first rule's treatment", async () => {
    const rules = [inSegment("s1", "on"), inSegment("s2", "off")];
    const r = await check(
      side([flag("f", onOff(0, { rules }))], { s1: ["x", "both"], s2: ["y", "both"] }),
      side([flag("f", onOff(0, { rules: [rules[1]!, rules[0]!] }))], {
        s1: ["x", "both"],
        s2: ["y", "both"],
      }),
      "f",
    );
    expect(r.moved.map((m) => [m.key, m.from, m.to])).toEqual([["both", "on", "off"]]);
  });

  it("a definition created and one deleted: control to and from every treatment, no shift", async () => {
    const created = await check(side([]), side([flag("f", onOff(25))]), "f");
    expect(created.transitions.map((t) => [t.from, t.to, t.share])).toEqual([
      ["control", "off", 75],
      ["control", "on", 25],
    ]);
    expect(created.shift).toBe(0);
    const deleted = await check(side([flag("f", onOff(25))]), side([]), "f");
    expect(deleted.transitions.map((t) => [t.from, t.to, t.share])).toEqual([
      ["off", "control", 75],
      ["on", "control", 25],
    ]);
  });

  it("a new rule on an attribute, over real keys with attributes: sampled by the SDK with its error", async () => {
    const dir = mkdtempSync(join(tmpdir(), "flagstack-impact-"));
    const file = join(dir, "keys.csv");
    writeFileSync(
      file,
      `key,plan\n${Array.from({ length: 1000 }, (_, i) => `u${i},${i % 4 === 0 ? "enterprise" : "free"}`).join("\n")}\n`,
    );
    const pop = readPopulationFile(file);
    expect(pop.label).toBe("1,000 keys of keys.csv");
    const r = await check(
      side([flag("f", onOff(0))]),
      side([flag("f", onOff(0, { rules: [onAttribute("plan", "enterprise")] }))]),
      "f",
      pop,
    );
    expect(r.method).toBe("sampled");
    expect(r.transitions).toEqual([
      { from: "off", to: "on", share: 25, error: Number(samplingError(0.25, 1000).toFixed(6)), keys: 250 },
    ]);
    // 1.96 · √(0.25 · 0.75 / 1000), in points.
    expect(r.shiftError).toBe(2.683841);
  });

  it("a flag that depends on a changed flag (IN_SPLIT) is evaluated by the SDK", async () => {
    const dependent = onOff(0, {
      rules: [
        {
          condition: {
            combiner: "AND",
            matchers: [{ type: "IN_SPLIT", depends: { splitName: "base", treatment: "on" } }],
          },
          buckets: [{ treatment: "on", size: 100 }],
        },
      ],
    });
    const r = await check(
      side([flag("base", onOff(10)), flag("dep", dependent)]),
      side([flag("base", onOff(30)), flag("dep", dependent)]),
      "dep",
    );
    expect(r.method).toBe("sampled");
    expect(r.transitions.map((t) => [t.from, t.to])).toEqual([["off", "on"]]);
    expect(Math.abs(r.shift - 20)).toBeLessThan(r.shiftError * 2);
  });
});
