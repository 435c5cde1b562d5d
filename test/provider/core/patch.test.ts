import { applyPatch } from "rfc6902";
import { describe, expect, it } from "vitest";
import { guardedPatch, patchStats } from "../../../provider/core/patch";

describe("guardedPatch", () => {
  it("is empty for equal documents", () => {
    expect(guardedPatch({ a: [1, { b: 2 }] }, { a: [1, { b: 2 }] })).toEqual([]);
  });

  it("guards a replace with a test of the old value", () => {
    expect(guardedPatch({ trafficAllocation: 100 }, { trafficAllocation: 50 })).toEqual([
      { op: "test", path: "/trafficAllocation", value: 100 },
      { op: "replace", path: "/trafficAllocation", value: 50 },
    ]);
  });

  it("guards an append with the last element, an append to an empty array with the empty array", () => {
    expect(guardedPatch({ k: ["a"] }, { k: ["a", "b"] })).toEqual([
      { op: "test", path: "/k/0", value: "a" },
      { op: "add", path: "/k/-", value: "b" },
    ]);
    expect(guardedPatch({ t: [{ keys: [] }] }, { t: [{ keys: ["x"] }] })).toEqual([
      { op: "test", path: "/t/0/keys", value: [] },
      { op: "add", path: "/t/0/keys/-", value: "x" },
    ]);
  });

  it("evaluates each guard against the document at that point of the patch", () => {
    const live = { r: ["a", "b", "c"] };
    const desired = { r: ["b", "x"] };
    const ops = guardedPatch(live, desired);
    const doc = structuredClone(live);
    expect(applyPatch(doc, ops).every((r) => r === null)).toBe(true);
    expect(doc).toEqual(desired);
  });

  it("is refused as a whole when a guarded value changed concurrently", () => {
    const ops = guardedPatch(
      {
        defaultRule: [
          { treatment: "on", size: 50 },
          { treatment: "off", size: 50 },
        ],
      },
      {
        defaultRule: [
          { treatment: "on", size: 60 },
          { treatment: "off", size: 40 },
        ],
      },
    );
    expect(patchStats(ops)).toEqual({ ops: 4, writes: 2, tests: 2 });
    const concurrent = {
      defaultRule: [
        { treatment: "on", size: 10 },
        { treatment: "off", size: 90 },
      ],
    };
    expect(applyPatch(structuredClone(concurrent), ops)[0]).not.toBeNull();
  });

  it("pins objects by their scalar leaves, so members the service adds do not break the guards", () => {
    const live = { treatments: [{ name: "on" }, { name: "off", description: "old" }] };
    const desired = { treatments: [{ name: "on", configurations: "{}" }] };
    const ops = guardedPatch(live, desired);
    expect(ops).toEqual([
      { op: "test", path: "/treatments/0/name", value: "on" },
      { op: "add", path: "/treatments/0/configurations", value: "{}" },
      { op: "test", path: "/treatments/1/name", value: "off" },
      { op: "test", path: "/treatments/1/description", value: "old" },
      { op: "remove", path: "/treatments/1" },
    ]);
    // The service holds empty target lists the response left out: the patch still applies.
    const held = {
      treatments: [
        { name: "on", keys: [] },
        { name: "off", description: "old", keys: [] },
      ],
    };
    expect(applyPatch(held, ops).every((r) => r === null)).toBe(true);
    expect(held).toEqual({ treatments: [{ name: "on", keys: [], configurations: "{}" }] });
  });
});
