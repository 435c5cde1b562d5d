/**
 * Segments (ref admin §1.1-1.2) and their activations per environment with their keys. Each key
 * change takes the account's next change number and remembers it per key (added, or removed), so
 * `/api/segmentChanges?since=N` can answer with the keys changed after N (sdk-wire-format §4).
 * @module
 */
import { randomUUID } from "node:crypto";
import { badRequest, conflict } from "../errors";
import type {
  EnvironmentRecord,
  SegmentActivation,
  SegmentActivationFile,
  SegmentRecord,
  TrafficTypeRecord,
  WorkspaceRecord,
} from "./records";
import { type ChangeClock, flatValues, inner, Table } from "./table";

/** At most this many members per segment (ref admin §1.1). */
export const MAX_SEGMENT_KEYS = 100_000;

/** The segments of every workspace, and where each is active. */
export class Segments extends Table<SegmentRecord> {
  /** environmentId → segmentId → activation. */
  readonly #activations = new Map<string, Map<string, SegmentActivation>>();

  constructor(private readonly clock: ChangeClock) {
    super((s) => s.id);
  }

  /** A workspace's segment by name. */
  byName(workspaceId: string, name: string): SegmentRecord | undefined {
    return this.find((s) => s.workspaceId === workspaceId && s.name === name);
  }

  /** Segments of a workspace, in creation order. */
  inWorkspace(workspaceId: string): SegmentRecord[] {
    return this.list().filter((s) => s.workspaceId === workspaceId);
  }

  /** Segments of a traffic type. */
  ofTrafficType(trafficTypeId: string): SegmentRecord[] {
    return this.list().filter((s) => s.trafficTypeId === trafficTypeId);
  }

  /** Adds a segment, untagged (`tags: null`, as a new flag); 409 when the workspace has one of that name. */
  create(ws: WorkspaceRecord, tt: TrafficTypeRecord, fields: Pick<SegmentRecord, "name" | "description">) {
    if (this.byName(ws.id, fields.name))
      throw conflict(`Segment with name ${fields.name} already exists in workspace ${ws.name}`);
    return this.put({
      id: randomUUID(),
      workspaceId: ws.id,
      ...fields,
      trafficTypeId: tt.id,
      creationTime: Date.now(),
      tags: null,
    });
  }

  /**
   * Replaces a segment's tags with these names (ref admin §1.1 `POST /tags/...`): duplicates
   * dropped, first-seen order kept, `null` when there are none.
   */
  tag(seg: SegmentRecord, names: readonly string[]): void {
    const unique = [...new Set(names)];
    seg.tags = unique.length === 0 ? null : unique.map((name) => ({ name }));
  }

  /** Removes a segment from every environment and from its workspace. */
  remove(seg: SegmentRecord): void {
    for (const active of this.#activations.values()) active.delete(seg.id);
    this.drop(seg.id);
  }

  /** The segment's activation in an environment. */
  activation(environmentId: string, segmentId: string): SegmentActivation | undefined {
    return this.#activations.get(environmentId)?.get(segmentId);
  }

  /** The activations of an environment. */
  activeIn(environmentId: string): SegmentActivation[] {
    return [...(this.#activations.get(environmentId)?.values() ?? [])];
  }

  /** Activates a segment in an environment, without keys; 409 when it is active there. */
  activate(seg: SegmentRecord, env: EnvironmentRecord): SegmentActivation {
    const active = inner(this.#activations, env.id);
    if (active.has(seg.id))
      throw conflict(`Segment ${seg.name} is already active in environment ${env.name}`);
    const a: SegmentActivation = {
      segmentId: seg.id,
      environmentId: env.id,
      creationTime: Date.now(),
      changeNumber: this.clock.next(),
      members: new Map(),
      removed: new Map(),
    };
    active.set(seg.id, a);
    return a;
  }

  /** Deactivates a segment in an environment (its keys go with it). */
  deactivate(a: SegmentActivation): void {
    this.#activations.get(a.environmentId)?.delete(a.segmentId);
  }

  /**
   * Adds keys (with `replace`, the keys not sent leave); 400 when the segment would hold more
   * than {@link MAX_SEGMENT_KEYS} (ref admin §1.1). Returns how many came and went.
   */
  uploadKeys(
    a: SegmentActivation,
    keys: readonly string[],
    replace: boolean,
  ): { added: number; removed: number } {
    const incoming = new Set(keys);
    const finalSize = replace ? incoming.size : new Set([...a.members.keys(), ...incoming]).size;
    if (finalSize > MAX_SEGMENT_KEYS)
      throw badRequest(
        `keys: a segment holds at most ${MAX_SEGMENT_KEYS} keys, this upload would make ${finalSize}`,
      );
    const cn = this.clock.next();
    let added = 0;
    let removed = 0;
    if (replace) {
      for (const k of a.members.keys()) {
        if (!incoming.has(k)) {
          a.members.delete(k);
          a.removed.set(k, cn);
          removed++;
        }
      }
    }
    for (const k of incoming) {
      if (!a.members.has(k)) {
        a.members.set(k, cn);
        a.removed.delete(k);
        added++;
      }
    }
    if (added || removed) a.changeNumber = cn;
    return { added, removed };
  }

  /** Removes keys; returns how many were members. */
  removeKeys(a: SegmentActivation, keys: readonly string[]): number {
    const cn = this.clock.next();
    let removed = 0;
    for (const k of new Set(keys)) {
      if (a.members.delete(k)) {
        a.removed.set(k, cn);
        removed++;
      }
    }
    if (removed) a.changeNumber = cn;
    return removed;
  }

  /** Forgets a deleted environment's activations. */
  forgetEnvironment(environmentId: string): void {
    this.#activations.delete(environmentId);
  }

  /** Replaces every segment and activation (a state file loaded, or rolled back to). */
  restoreAll(segments: Iterable<SegmentRecord>, activations: Iterable<SegmentActivationFile>): void {
    this.restore(segments);
    this.#activations.clear();
    for (const a of activations) {
      inner(this.#activations, a.environmentId).set(a.segmentId, {
        ...a,
        members: new Map(a.members),
        removed: new Map(a.removed),
      });
    }
  }

  /** Every activation, for the state file. */
  dumpActivations(): SegmentActivationFile[] {
    return flatValues(this.#activations).map((a) => ({
      ...a,
      members: [...a.members],
      removed: [...a.removed],
    }));
  }
}
