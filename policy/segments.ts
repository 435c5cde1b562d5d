/**
 * Policies on segments: a segment's member list stays within what the API holds.
 * @module
 */
import { z } from "zod";
import { MAX_SEGMENT_MEMBERS } from "../sdk/admin/segment-keys";
import { propsOf, resourcePolicy } from "./common";
import { readSegmentKeys, TYPES } from "./resources";

export const SegmentSizeConfig = z.object({
  maxMembers: z
    .number()
    .int()
    .min(0)
    .max(MAX_SEGMENT_MEMBERS)
    .default(MAX_SEGMENT_MEMBERS)
    .describe(
      `Most members a segment may list in one environment (default and upper bound: the API's limit, ${MAX_SEGMENT_MEMBERS}).`,
    ),
});

const count = (n: number) => n.toLocaleString("en-US");

/**
 * segment-size-limit: a SegmentKeys lists at most `maxMembers` distinct keys. Duplicates do not
 * count (the members are a set, as the provider sends them); above the API's limit the provider's
 * check refuses the list too, and the policy still reports how far over it is.
 */
export const segmentSizeLimit = resourcePolicy(
  {
    name: "segment-size-limit",
    description: `A segment lists at most the configured number of distinct members in an environment (default ${count(MAX_SEGMENT_MEMBERS)}, the API's limit).`,
    enforcementLevel: "advisory",
    severity: "medium",
    config: SegmentSizeConfig,
    select: propsOf(TYPES.segmentKeys),
  },
  async (props, { maxMembers }, report) => {
    const view = await readSegmentKeys(props);
    if (view.members <= maxMembers) return;
    report(
      `segment "${view.segment ?? "?"}" in environment "${view.environment ?? "?"}" lists ${count(view.members)} members, more than the limit of ${count(maxMembers)}: split it into smaller segments, or target by attribute instead`,
    );
  },
);
