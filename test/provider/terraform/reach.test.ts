/**
 * provider/terraform/reach: the warning `tofu plan` shows for a flag definition's update: the share
 * of its traffic that moves and the individual targets that move, exact; none where nothing moves
 * or where the plan cannot know it exactly (a rule on the key, a dependency on another flag).
 */
import { describe, expect, it } from "vitest";
import { reachWarning, reachWarnings } from "../../../provider/terraform/reach";

const def = (on: number, extra: Record<string, unknown> = {}) => ({
  workspace: "Default",
  flag: "new-checkout",
  environment: "Production",
  treatments: [{ name: "on" }, { name: "off" }],
  defaultTreatment: "off",
  defaultRule: [
    { treatment: "on", size: on },
    { treatment: "off", size: 100 - on },
  ],
  ...extra,
});
/** Recorded outputs: the inputs plus what the service answered. */
const outputs = (on: number, extra: Record<string, unknown> = {}) => ({
  ...def(on, extra),
  treatments: [
    { name: "on", configurations: '{"color":"green"}', ...(extra.onKeys ? { keys: extra.onKeys } : {}) },
    { name: "off" },
  ],
  flagId: "f-1",
  environmentName: "Production",
  trafficAllocation: 100,
  rules: [],
  killed: false,
  creationTime: 1,
});

describe("reachWarning", () => {
  it("a ramp: the share that moves, exact, and the individual target that moves", async () => {
    const w = await reachWarning(outputs(10, { onKeys: ["qa-bot"] }), def(25));
    expect(w?.summary).toBe(
      'flag "new-checkout" in environment "Production": this change moves 15% of its traffic',
    );
    expect(w?.detail.split("\n")[0]).toBe(
      "off → on 15%, exact: counted over the 100 buckets, whatever seeds the service picked.",
    );
    expect(w?.detail).toMatch(/^Individual targets that move: qa-bot on → (on|off)\.$/m);
    expect(w?.detail.split("\n").at(-1)).toBe(
      "Segment members, and flags that depend on this one, are measured on the saved plan: `tofu show -json <planfile> > plan.json`, then `npx flagstack impact plan.json`.",
    );
  });

  it("a kill moves everyone not on the default treatment", async () => {
    const w = await reachWarning(outputs(30), def(30, { killed: true }));
    expect(w?.summary).toBe(
      'flag "new-checkout" in environment "Production": this change moves 30% of its traffic',
    );
  });

  it("nothing moves: no warning (a comment, a configuration)", async () => {
    expect(await reachWarning(outputs(30), def(30, { comment: "why" }))).toBeUndefined();
  });

  it("a rule on the key itself: not exact at plan time, so no warning", async () => {
    const rules = [
      {
        condition: { combiner: "AND", matchers: [{ type: "STARTS_WITH_STRING", strings: ["qa-"] }] },
        buckets: [{ treatment: "on", size: 100 }],
      },
    ];
    expect(await reachWarning(outputs(10), def(25, { rules }))).toBeUndefined();
  });
});

describe("reachWarnings: a flag's definitions in several environments (flagstack_flag_definitions)", () => {
  /** The map's entry of one environment: a definition without what the resource holds once. */
  const entry = <T extends Record<string, unknown>>({
    workspace: _w,
    flag: _f,
    environment: _e,
    environmentName: _n,
    ...rest
  }: T) => rest;
  const shared = { workspace: "Default", flag: "new-checkout" };

  it("one warning per environment whose change moves traffic; an environment renamed by id is paired by the state's id", async () => {
    const olds = {
      ...shared,
      flagId: "f-1",
      definitions: {
        Production: entry(outputs(10)),
        Staging: entry(outputs(30)),
        Development: entry(outputs(50)),
      },
      environments: {
        Production: { environmentId: "env-p", environmentName: "Production" },
        Staging: { environmentId: "env-s", environmentName: "Staging" },
        Development: { environmentId: "env-d", environmentName: "Development" },
      },
    };
    const news = {
      ...shared,
      definitions: { Production: entry(def(25)), "env-s": entry(def(30)), Canary: entry(def(90)) },
    };
    const warnings = await reachWarnings(olds, news);
    expect(warnings.map((w) => w.summary)).toEqual([
      'flag "new-checkout" in environment "Production": this change moves 15% of its traffic',
    ]);
  });

  it("a single definition's state and program: its one warning", async () => {
    expect((await reachWarnings(outputs(10), def(25))).map((w) => w.summary)).toEqual([
      'flag "new-checkout" in environment "Production": this change moves 15% of its traffic',
    ]);
  });
});
