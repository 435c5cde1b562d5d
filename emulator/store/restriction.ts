/**
 * Restrictions (ref admin §1.1 "restrictions"): who may view a workspace, one per resource.
 * Routes: `emulator/admin/restriction.ts`.
 * @module
 */
import { randomUUID } from "node:crypto";
import { z } from "zod";
import { Table } from "./table";

/** Who may view a workspace (ref admin §1.1 "restrictions"). */
export const RestrictionRecord = z.object({
  id: z.string(),
  resourceId: z.string(),
  resourceType: z.string(),
  view: z.boolean(),
  viewers: z.array(z.record(z.string(), z.unknown())),
});
/** A workspace restriction. */
export type RestrictionRecord = z.output<typeof RestrictionRecord>;

/** Workspace view restrictions, one per resource. */
export class Restrictions extends Table<RestrictionRecord> {
  constructor() {
    super((r) => r.id);
  }

  /**
   * Sets the restriction of a resource (replacing its previous one). One that restricts nothing
   * (`view: false`, no viewers) leaves the resource open to everyone, as with none: it is answered
   * but not kept, so the list shows no restriction of the resource (inferred: the reference shows
   * no DELETE of a restriction, so a PUT back to open is how one is removed).
   */
  set(fields: Omit<RestrictionRecord, "id">): RestrictionRecord {
    const had = this.find(
      (r) => r.resourceId === fields.resourceId && r.resourceType === fields.resourceType,
    );
    const record = { id: had?.id ?? randomUUID(), ...fields };
    if (fields.view || fields.viewers.length > 0) return this.put(record);
    if (had) this.drop(had.id);
    return record;
  }

  /** What a deleted workspace takes along: its restriction. */
  forgetWorkspace(workspaceId: string): void {
    this.dropWhere((r) => r.resourceId === workspaceId);
  }
}
