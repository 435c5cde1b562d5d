import { describe, expect, it } from "vitest";
import { segmentSizeLimit } from "../../policy/segments";
import { nativeToken } from "../../provider/native/kinds";
import { SEGMENT_KEYS_TYPE } from "../../provider/types";
import { checkedProps, runResourcePolicy } from "./util";

/** A SegmentKeys as a program declares it (provider/flags/segment-keys.ts). */
const members = (keys: string[]) =>
  checkedProps(SEGMENT_KEYS_TYPE, { workspace: "Default", environment: "Production", segment: "beta", keys });

describe("segment-size-limit", () => {
  it("passes a segment at the limit, counting duplicates once (the members are a set)", async () => {
    const props = await members(["a", "b", "c", "a", "c"]);
    expect(await runResourcePolicy(segmentSizeLimit, SEGMENT_KEYS_TYPE, props, { maxMembers: 3 })).toEqual(
      [],
    );
  });

  it("reports a segment over the configured limit", async () => {
    const props = await members(["a", "b", "c", "d"]);
    expect(await runResourcePolicy(segmentSizeLimit, SEGMENT_KEYS_TYPE, props, { maxMembers: 3 })).toEqual([
      'segment "beta" in environment "Production" lists 4 members, more than the limit of 3: split it into smaller segments, or target by attribute instead',
    ]);
  });

  it("reports a segment over the API's limit by default, though the provider refuses the list", async () => {
    const keys = Array.from({ length: 100_001 }, (_, i) => `user-${i}`);
    const props = await members(keys);
    expect(await runResourcePolicy(segmentSizeLimit, SEGMENT_KEYS_TYPE, props)).toEqual([
      'segment "beta" in environment "Production" lists 100,001 members, more than the limit of 100,000: split it into smaller segments, or target by attribute instead',
    ]);
    expect(
      await runResourcePolicy(segmentSizeLimit, SEGMENT_KEYS_TYPE, await members(keys.slice(1))),
    ).toEqual([]);
  });

  it("checks a SegmentKeys of the native provider (flagstack:index:SegmentKeys) as a dynamic one", async () => {
    const props = await members(["a", "b"]);
    expect(nativeToken(SEGMENT_KEYS_TYPE)).toBe("flagstack:index:SegmentKeys");
    expect(
      await runResourcePolicy(segmentSizeLimit, nativeToken(SEGMENT_KEYS_TYPE), props, { maxMembers: 1 }),
    ).toEqual([
      'segment "beta" in environment "Production" lists 2 members, more than the limit of 1: split it into smaller segments, or target by attribute instead',
    ]);
  });

  it("refuses a limit above the API's in its config schema", () => {
    expect(segmentSizeLimit.configSchema?.properties.maxMembers).toEqual({
      type: "integer",
      minimum: 0,
      maximum: 100000,
      default: 100000,
      description:
        "Most members a segment may list in one environment (default and upper bound: the API's limit, 100000).",
    });
  });
});
