/**
 * The definition document's one notion of "the same" (provider/core/definition-doc.ts): the patch
 * built on `alignToLive` and the diff built on `canonicalField` agree on every case, so a change
 * the diff does not see never reaches the wire, and one it sees always does.
 */
import { describe, expect, it } from "vitest";
import { alignToLive, canonicalField, WRITABLE_FIELDS } from "../../../provider/core/definition-doc";
import { jsonEqual } from "../../../provider/core/diff";
import { guardedPatch } from "../../../provider/core/patch";
import { impl } from "../../../provider/flags/flag-definition";

const live = {
  treatments: [
    { name: "on", description: "", configurations: '{"a":1,"b":2}', keys: ["qa"], segments: [] },
    { name: "off", description: "", keys: [] },
  ],
  defaultTreatment: "off",
  trafficAllocation: 100,
  rules: [
    {
      buckets: [{ treatment: "on", size: 100 }],
      condition: {
        combiner: "AND",
        matchers: [{ type: "IN_LIST_STRING", negate: false, attribute: "c", strings: ["NL", "BE"] }],
      },
    },
  ],
  defaultRule: [{ treatment: "off", size: 100 }],
};

const sameDiff = (desired: Record<string, unknown>) =>
  WRITABLE_FIELDS.every((f) =>
    jsonEqual(canonicalField(f, desired[f]), canonicalField(f, live[f as keyof typeof live])),
  );

describe("alignToLive and canonicalField agree", () => {
  it.each([
    ["a target key repeated", { keys: ["qa", "qa"] }],
    ["the same configuration JSON spelled differently", { configurations: '{ "b": 2, "a": 1 }' }],
    ["empty members the service fills in left out", { description: undefined, segments: undefined }],
  ])("%s: no change for the diff, and an empty patch", (_label, change) => {
    const desired = {
      ...live,
      treatments: [{ ...live.treatments[0], ...change }, { name: "off" }],
      rules: [
        {
          buckets: [{ treatment: "on", size: 100 }],
          condition: { matchers: [{ type: "IN_LIST_STRING", attribute: "c", strings: ["BE", "NL", "NL"] }] },
        },
      ],
    };
    expect(sameDiff(desired)).toBe(true);
    expect(guardedPatch(live, alignToLive(desired, live))).toEqual([]);
  });

  it("a real change is seen by both: the diff differs and the patch carries exactly that change", () => {
    const desired = {
      ...live,
      treatments: [{ ...live.treatments[0], keys: ["qa", "qa", "new"] }, live.treatments[1]],
    };
    expect(sameDiff(desired)).toBe(false);
    expect(guardedPatch(live, alignToLive(desired, live))).toEqual([
      { op: "test", path: "/treatments/0/keys/0", value: "qa" },
      { op: "add", path: "/treatments/0/keys/-", value: "new" },
    ]);
  });
});

describe("FlagDefinition check", () => {
  it("takes target keys and segments as sets: repetitions dropped, order kept", async () => {
    const { inputs, failures } = await impl.check(
      {},
      {
        workspace: "Default",
        flag: "f",
        environment: "Production",
        treatments: [{ name: "on", keys: ["b", "a", "b"], segments: ["s", "s"] }, { name: "off" }],
        defaultTreatment: "off",
      },
    );
    expect(failures).toBeUndefined();
    expect(inputs?.treatments[0]).toEqual({ name: "on", keys: ["b", "a"], segments: ["s"] });
  });
});
