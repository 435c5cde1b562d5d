/**
 * Feature flags (spec admin §2-4) and their per-environment definitions, with the indexes that
 * keep lookups O(1) at 10,000 flags (flags by workspace and name, definitions by environment and
 * flag) and the SDK bookkeeping: each change of a definition takes the account's next change
 * number, and a removed definition leaves an ARCHIVED tombstone that `/api/splitChanges` serves
 * once more (sdk-wire-format §1, §2.5).
 * @module
 */
import { randomUUID } from "node:crypto";
import { conflict } from "../errors";
import type {
  DefinitionDocument,
  DefinitionRecord,
  EnvironmentRecord,
  FlagRecord,
  RolloutStatusRecord,
  TombstoneRecord,
  TrafficTypeRecord,
  WorkspaceRecord,
} from "./records";
import { type ChangeClock, flatValues, inner, randomInt32, Table } from "./table";

/** Tags without duplicates, in first-seen order; `null` when none (spec admin §2). */
function normaliseTags(tags: FlagRecord["tags"]): FlagRecord["tags"] {
  if (!tags || tags.length === 0) return null;
  const seen = new Set<string>();
  return tags.filter((t) => !seen.has(t.name) && !!seen.add(t.name)).map((t) => ({ name: t.name }));
}

/** The flags of every workspace. */
export class Flags extends Table<FlagRecord> {
  /** workspaceId → flag name → flag. */
  readonly #byName = new Map<string, Map<string, FlagRecord>>();

  constructor() {
    super((f) => f.id);
  }

  /** A flag of a workspace by name, else by id (ref admin §2: GET by id is what clients do). */
  byRef(workspaceId: string, ref: string): FlagRecord | undefined {
    const byName = this.#byName.get(workspaceId)?.get(ref);
    if (byName) return byName;
    const byId = this.get(ref);
    return byId && byId.workspaceId === workspaceId ? byId : undefined;
  }

  /** Flags of a workspace, in creation order. */
  inWorkspace(workspaceId: string): FlagRecord[] {
    return [...(this.#byName.get(workspaceId)?.values() ?? [])];
  }

  /** Flags of a traffic type. */
  ofTrafficType(trafficTypeId: string): FlagRecord[] {
    return this.list().filter((f) => f.trafficTypeId === trafficTypeId);
  }

  /**
   * Adds a flag in its initial rollout status, `rolloutStatusTimestamp` set and `tags: null`
   * (spec admin §3); 409 when the workspace has a flag of that name (inferred).
   */
  create(
    ws: WorkspaceRecord,
    tt: TrafficTypeRecord,
    fields: Pick<FlagRecord, "name" | "description">,
    status: RolloutStatusRecord,
  ): FlagRecord {
    if (this.byRef(ws.id, fields.name))
      throw conflict(`Split with name ${fields.name} already exists in workspace ${ws.name}`);
    const now = Date.now();
    return this.put({
      id: randomUUID(),
      workspaceId: ws.id,
      name: fields.name,
      description: fields.description,
      trafficTypeId: tt.id,
      creationTime: now,
      rolloutStatusId: status.id,
      rolloutStatusTimestamp: now,
      tags: null,
      owners: [],
    });
  }

  /** Sets what a flag PATCH may change: description, tags and rollout status. */
  update(
    flag: FlagRecord,
    next: Pick<FlagRecord, "description" | "tags" | "rolloutStatusId" | "owners">,
  ): void {
    flag.description = next.description;
    flag.tags = normaliseTags(next.tags);
    flag.owners = next.owners;
    if (next.rolloutStatusId !== flag.rolloutStatusId) {
      flag.rolloutStatusId = next.rolloutStatusId;
      // spec admin §3: the timestamp moves with the status; never backwards, even within one millisecond.
      flag.rolloutStatusTimestamp = Math.max(Date.now(), flag.rolloutStatusTimestamp + 1);
    }
  }

  /** Sets a flag's description. */
  describe(flag: FlagRecord, description: string): void {
    flag.description = description;
  }

  /** Sets a flag's tags (ref admin §1.1 `POST /tags/...`). */
  tag(flag: FlagRecord, names: readonly string[]): void {
    flag.tags = normaliseTags(names.map((name) => ({ name })));
  }

  /** Removes a flag (see `Store.deleteFlag` for its definitions). */
  remove(flag: FlagRecord): void {
    this.drop(flag.id);
    this.#byName.get(flag.workspaceId)?.delete(flag.name);
  }

  /** Forgets a deleted workspace's (empty) index. */
  forgetWorkspace(workspaceId: string): void {
    this.#byName.delete(workspaceId);
  }

  protected override put(f: FlagRecord): FlagRecord {
    inner(this.#byName, f.workspaceId).set(f.name, f);
    return super.put(f);
  }

  override restore(records: Iterable<FlagRecord>): void {
    this.#byName.clear();
    super.restore(records);
  }
}

/** What a tombstone remembers of its flag. */
export type FlagNames = Pick<TombstoneRecord, "name" | "trafficTypeName">;

/** The definitions of every flag in every environment, and the tombstones of removed ones. */
export class Definitions {
  /** environmentId → flagId → definition. */
  readonly #byEnvironment = new Map<string, Map<string, DefinitionRecord>>();
  /** environmentId → flag name → tombstone. */
  readonly #tombstones = new Map<string, Map<string, TombstoneRecord>>();

  constructor(private readonly clock: ChangeClock) {}

  /** A flag's definition in an environment. */
  get(flagId: string, environmentId: string): DefinitionRecord | undefined {
    return this.#byEnvironment.get(environmentId)?.get(flagId);
  }

  /** The definitions of an environment. */
  inEnvironment(environmentId: string): DefinitionRecord[] {
    return [...(this.#byEnvironment.get(environmentId)?.values() ?? [])];
  }

  /** The tombstones of an environment. */
  tombstonesIn(environmentId: string): TombstoneRecord[] {
    return [...(this.#tombstones.get(environmentId)?.values() ?? [])];
  }

  /** A flag's definitions, in every environment. */
  ofFlag(flagId: string): DefinitionRecord[] {
    return [...this.#byEnvironment.values()].flatMap((defs) => {
      const d = defs.get(flagId);
      return d ? [d] : [];
    });
  }

  /**
   * Defines a flag in an environment with new seeds (kept across updates so keys never
   * re-bucket, wire §2.5); 409 when it has a definition there (ref admin §2, inferred). A
   * tombstone of the flag in that environment is gone: the SDK gets the definition instead.
   */
  create(
    flag: FlagRecord,
    env: EnvironmentRecord,
    doc: DefinitionDocument,
    killed: boolean,
  ): DefinitionRecord {
    if (this.get(flag.id, env.id)) {
      throw conflict(
        `Split ${flag.name} already has a definition in environment ${env.name}; use PUT or PATCH to change it`,
      );
    }
    const now = Date.now();
    const d: DefinitionRecord = {
      flagId: flag.id,
      environmentId: env.id,
      doc,
      killed,
      creationTime: now,
      lastUpdateTime: now,
      changeNumber: this.clock.next(),
      seed: randomInt32(),
      trafficAllocationSeed: randomInt32(),
    };
    inner(this.#byEnvironment, env.id).set(flag.id, d);
    this.#tombstones.get(env.id)?.delete(flag.name);
    return d;
  }

  /** Replaces a definition's document, and `killed` when given. */
  replace(d: DefinitionRecord, doc: DefinitionDocument, killed: boolean | undefined): void {
    d.doc = doc;
    if (killed !== undefined) d.killed = killed;
    this.touch(d);
  }

  /** Kills or restores a definition; false when it already was. */
  setKilled(d: DefinitionRecord, killed: boolean): boolean {
    if (d.killed === killed) return false;
    d.killed = killed;
    this.touch(d);
    return true;
  }

  /** Removes a definition, leaving an ARCHIVED tombstone (wire §1) when its flag is known. */
  remove(d: DefinitionRecord, flag: FlagNames | undefined): void {
    this.#byEnvironment.get(d.environmentId)?.delete(d.flagId);
    if (!flag) return;
    inner(this.#tombstones, d.environmentId).set(flag.name, {
      environmentId: d.environmentId,
      name: flag.name,
      trafficTypeName: flag.trafficTypeName,
      changeNumber: this.clock.next(),
      seed: d.seed,
      trafficAllocationSeed: d.trafficAllocationSeed,
    });
  }

  /** Forgets a deleted environment's definitions and tombstones. */
  forgetEnvironment(environmentId: string): void {
    this.#byEnvironment.delete(environmentId);
    this.#tombstones.delete(environmentId);
  }

  /** Marks a definition changed: new change number for the SDK, new `lastUpdateTime`. */
  private touch(d: DefinitionRecord): void {
    d.changeNumber = this.clock.next();
    d.lastUpdateTime = Math.max(Date.now(), d.lastUpdateTime);
  }

  /** Replaces every definition and tombstone (a state file loaded, or rolled back to). */
  restore(definitions: Iterable<DefinitionRecord>, tombstones: Iterable<TombstoneRecord>): void {
    this.#byEnvironment.clear();
    this.#tombstones.clear();
    for (const d of definitions) inner(this.#byEnvironment, d.environmentId).set(d.flagId, d);
    for (const t of tombstones) inner(this.#tombstones, t.environmentId).set(t.name, t);
  }

  /** Every definition and tombstone, for the state file. */
  dump(): { definitions: DefinitionRecord[]; tombstones: TombstoneRecord[] } {
    return { definitions: flatValues(this.#byEnvironment), tombstones: flatValues(this.#tombstones) };
  }
}
