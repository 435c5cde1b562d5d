/**
 * Large and rule-based segments (ref admin §9.2), the kinds of segment beside the standard one
 * (`segments.ts`): one part per kind, each with where its segments are active (one activation per
 * segment and environment: a large segment's members, uploaded through change requests, or a
 * rule-based segment's rules and exclusions). Routes: `emulator/admin/segment-kinds.ts`.
 * @module
 */
import { randomUUID } from "node:crypto";
import { z } from "zod";
import { ExcludedSegment, SegmentRule } from "../../sdk/admin/schemas";
import { conflict } from "../errors";
import { TrafficTypedRecord } from "./record-shapes";
import type { EnvironmentRecord, TrafficTypeRecord, WorkspaceRecord } from "./records";
import { Table } from "./table";

/** The kinds of segment beside the standard one. */
export const SEGMENT_KINDS = ["large", "rule-based"] as const;
/** A large or rule-based segment. */
export type SegmentKind = (typeof SEGMENT_KINDS)[number];

/** A large or rule-based segment of a workspace (ref admin §9.2). */
export const KindSegmentRecord = TrafficTypedRecord.extend({ description: z.string().nullable() });
/** A large or rule-based segment. */
export type KindSegmentRecord = z.output<typeof KindSegmentRecord>;

/**
 * A large or rule-based segment in an environment: a large one holds members (uploaded through
 * change requests), a rule-based one its rules and exclusions.
 */
export const KindActivationRecord = z.object({
  segmentId: z.string(),
  environmentId: z.string(),
  creationTime: z.number().int(),
  members: z.array(z.string()).default([]),
  /** When the members last changed (a large segment's change number for the SDK's `/memberships`; 0: never). */
  changeNumber: z.number().int().default(0),
  rules: z.array(SegmentRule).default([]),
  excludedKeys: z.array(z.string()).default([]),
  excludedSegments: z.array(ExcludedSegment).default([]),
});
/** A large or rule-based segment in an environment. */
export type KindActivationRecord = z.output<typeof KindActivationRecord>;

/** The activations of one kind of segment, changed only through their {@link KindSegments}. */
class Activations extends Table<KindActivationRecord> {
  constructor() {
    super((a) => `${a.environmentId}/${a.segmentId}`);
  }

  /** Adds or replaces an activation. */
  set(a: KindActivationRecord): KindActivationRecord {
    return this.put(a);
  }

  /** Removes every activation that matches. */
  forget(match: (a: KindActivationRecord) => boolean): void {
    this.dropWhere(match);
  }
}

/**
 * The large or the rule-based segments of every workspace, and where each is active (one
 * activation per segment and environment).
 */
export class KindSegments extends Table<KindSegmentRecord> {
  readonly activations = new Activations();

  constructor(readonly kind: SegmentKind) {
    super((s) => s.id);
  }

  /** A workspace's segment by name. */
  byName(workspaceId: string, name: string): KindSegmentRecord | undefined {
    return this.where({ workspaceId, name })[0];
  }

  /** Adds a segment; 409 when the workspace has one of that name. */
  create(ws: WorkspaceRecord, tt: TrafficTypeRecord, fields: { name: string; description: string | null }) {
    if (this.byName(ws.id, fields.name))
      throw conflict(`${this.label} with name ${fields.name} already exists in workspace ${ws.name}`);
    const at = { workspaceId: ws.id, trafficTypeId: tt.id, creationTime: Date.now() };
    return this.put({ id: randomUUID(), ...at, ...fields });
  }

  /** Removes a segment from every environment and from its workspace. */
  remove(s: KindSegmentRecord): void {
    this.activations.forget((a) => a.segmentId === s.id);
    this.drop(s.id);
  }

  /** The segment's activation in an environment. */
  activation(environmentId: string, segmentId: string): KindActivationRecord | undefined {
    return this.activations.get(`${environmentId}/${segmentId}`);
  }

  /** The activations of an environment. */
  activeIn(environmentId: string): KindActivationRecord[] {
    return this.activations.where({ environmentId });
  }

  /** Activates a segment in an environment, empty; 409 when it is active there. */
  activate(s: KindSegmentRecord, env: EnvironmentRecord): KindActivationRecord {
    if (this.activation(env.id, s.id))
      throw conflict(`${this.label} ${s.name} is already active in environment ${env.name}`);
    return this.activations.set({
      segmentId: s.id,
      environmentId: env.id,
      creationTime: Date.now(),
      members: [],
      changeNumber: 0,
      rules: [],
      excludedKeys: [],
      excludedSegments: [],
    });
  }

  /** Replaces what an activation holds (members, or rules and exclusions). */
  change(a: KindActivationRecord, next: Partial<Omit<KindActivationRecord, "segmentId" | "environmentId">>) {
    const changeNumber = next.members ? Math.max(Date.now(), a.changeNumber + 1) : a.changeNumber;
    return this.activations.set({ ...a, ...next, changeNumber });
  }

  /**
   * Whether an activation holds anything a deactivation would remove: members (large), rules or
   * exclusions (rule-based). An approval-gated environment refuses the direct deactivation of one
   * that does (`Store.deactivateKindSegment`).
   */
  holdsContent(a: KindActivationRecord): boolean {
    return (
      a.members.length > 0 || a.rules.length > 0 || a.excludedKeys.length > 0 || a.excludedSegments.length > 0
    );
  }

  /** Deactivates a segment in an environment. */
  deactivate(a: KindActivationRecord): void {
    this.activations.forget((x) => x === a);
  }

  /** What a deleted environment takes along: the activations there. */
  forgetEnvironment(environmentId: string): void {
    this.activations.forget((a) => a.environmentId === environmentId);
  }

  /** "Large segment" or "Rule-based segment", for messages. */
  get label(): string {
    return this.kind === "large" ? "Large segment" : "Rule-based segment";
  }
}
