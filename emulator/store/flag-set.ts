/**
 * Flag sets (ref admin §1.1, v3): named groups of flags per workspace, which definitions name in
 * `flagSets` and the SDK receives as each split's `sets`. Names are unique per workspace (409,
 * inferred). Routes: `emulator/admin/flag-set.ts`; what a flag set's deletion does to the
 * definitions naming it is `Store.deleteFlagSet` (`index.ts`).
 * @module
 */
import { randomUUID } from "node:crypto";
import { z } from "zod";
import { conflict } from "../errors";
import { InWorkspaceRecord } from "./record-shapes";
import type { WorkspaceRecord } from "./records";
import { Table } from "./table";

/** A flag set of a workspace (ref admin §1.1, v3). */
export const FlagSetRecord = InWorkspaceRecord.extend({
  description: z.string().nullable(),
  createdAt: z.number().int(),
});
/** A flag set. */
export type FlagSetRecord = z.output<typeof FlagSetRecord>;

/** The flag sets of every workspace. */
export class FlagSets extends Table<FlagSetRecord> {
  constructor() {
    super((f) => f.id);
  }

  /** Adds a flag set; 409 when the workspace has one of that name. */
  create(ws: WorkspaceRecord, fields: { name: string; description: string | null }): FlagSetRecord {
    if (this.where({ workspaceId: ws.id, name: fields.name }).length > 0)
      throw conflict(`Flag set with name ${fields.name} already exists in workspace ${ws.name}`);
    return this.put({ id: randomUUID(), workspaceId: ws.id, ...fields, createdAt: Date.now() });
  }

  /** Removes a flag set (see `Store.deleteFlagSet` for the definitions naming it). */
  remove(f: FlagSetRecord): void {
    this.drop(f.id);
  }

  /** What a deleted workspace takes along: its flag sets. */
  forgetWorkspace(workspaceId: string): void {
    this.dropWhere((f) => f.workspaceId === workspaceId);
  }
}
