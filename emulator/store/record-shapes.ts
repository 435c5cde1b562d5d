/**
 * What the stored records of the admin API's workspace objects share (`./records.ts`,
 * `./flag-set.ts`, `./segment-kinds.ts`): the members every object of a workspace starts with, and
 * those a flag and a segment add. A module of its own, so every record module builds on it.
 * @module
 */
import { z } from "zod";

/** What every object that lives in a workspace starts with: its id, workspace and name. */
export const InWorkspaceRecord = z.object({
  id: z.string(),
  workspaceId: z.string(),
  name: z.string(),
});

/** What a flag and a segment of a workspace share: a description, a traffic type, a creation time. */
export const TrafficTypedRecord = InWorkspaceRecord.extend({
  description: z.string(),
  trafficTypeId: z.string(),
  creationTime: z.number().int(),
});
