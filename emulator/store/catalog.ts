/**
 * The admin API's wider object model (issue 18), one part per kind with private maps and its own
 * rules: flag sets, attributes and identities of traffic types, large and rule-based segments
 * with their activations, change requests, environment change permissions and restrictions.
 * {@link Catalog} holds them all, dumps and restores them as one part of the state file, and
 * forgets what a deleted environment, traffic type or workspace took along.
 * @module
 */
import { randomUUID } from "node:crypto";
import { conflict, notFound } from "../errors";
import {
  type AttributeRecord,
  type CatalogState,
  type ChangeRequestRecord,
  type EnvironmentPolicyRecord,
  type FlagSetRecord,
  type IdentityRecord,
  type KindActivationRecord,
  type KindSegmentRecord,
  type RestrictionRecord,
  SEGMENT_KINDS,
  type SegmentKind,
} from "./catalog-records";
import type { EnvironmentRecord, TrafficTypeRecord, WorkspaceRecord } from "./records";
import { Table } from "./table";

/** A {@link Table} that can also drop every record that matches. */
class Part<R> extends Table<R> {
  constructor(readonly key: (r: R) => string) {
    super(key);
  }

  /** The records whose fields equal these, in the order they were added. */
  where(fields: Partial<R>): R[] {
    const pairs = Object.entries(fields) as [keyof R, unknown][];
    return this.list().filter((r) => pairs.every(([k, v]) => r[k] === v));
  }

  /** Removes every record that matches. */
  dropWhere(match: (r: R) => boolean): void {
    for (const r of this.list()) if (match(r)) this.drop(this.key(r));
  }
}

/** The activations of one kind of segment: a {@link Part} its owner changes through `set`. */
class Activations extends Part<KindActivationRecord> {
  constructor() {
    super((a) => `${a.environmentId}/${a.segmentId}`);
  }

  /** Adds or replaces an activation. */
  set(a: KindActivationRecord): KindActivationRecord {
    return this.put(a);
  }
}

/** The flag sets of every workspace; names are unique per workspace (409, inferred). */
export class FlagSets extends Part<FlagSetRecord> {
  constructor() {
    super((f) => f.id);
  }

  /** Adds a flag set; 409 when the workspace has one of that name. */
  create(ws: WorkspaceRecord, fields: { name: string; description: string | null }): FlagSetRecord {
    if (this.where({ workspaceId: ws.id, name: fields.name }).length > 0)
      throw conflict(`Flag set with name ${fields.name} already exists in workspace ${ws.name}`);
    return this.put({ id: randomUUID(), workspaceId: ws.id, ...fields, createdAt: Date.now() });
  }

  /** Removes a flag set. */
  remove(f: FlagSetRecord): void {
    this.drop(f.id);
  }
}

/** The attributes of every traffic type, by traffic type and attribute id. */
export class Attributes extends Part<AttributeRecord> {
  constructor() {
    super((a) => `${a.trafficTypeId}/${a.id}`);
  }

  /** One attribute of a traffic type. */
  byId(trafficTypeId: string, id: string): AttributeRecord | undefined {
    return this.get(`${trafficTypeId}/${id}`);
  }

  /** Adds an attribute; 409 when the traffic type has one with its id (inferred). */
  create(tt: TrafficTypeRecord, a: Omit<AttributeRecord, "trafficTypeId">): AttributeRecord {
    if (this.byId(tt.id, a.id))
      throw conflict(`Attribute with id ${a.id} already exists in traffic type ${tt.name}`);
    return this.put({ ...a, trafficTypeId: tt.id });
  }

  /** Replaces an attribute's fields (its id and traffic type stay). */
  update(a: AttributeRecord, next: Omit<AttributeRecord, "trafficTypeId" | "id">): AttributeRecord {
    return this.put({ ...a, ...next });
  }

  /** Removes an attribute. */
  remove(a: AttributeRecord): void {
    this.drop(this.key(a));
  }
}

/** The identities (attribute values of one key) per traffic type and environment. */
export class Identities extends Part<IdentityRecord> {
  constructor() {
    super((i) => `${i.trafficTypeId}/${i.environmentId}/${i.key}`);
  }

  /** One identity. */
  byKey(trafficTypeId: string, environmentId: string, key: string): IdentityRecord | undefined {
    return this.get(`${trafficTypeId}/${environmentId}/${key}`);
  }

  /** Sets an identity's values (all of them), creating it when needed. */
  save(i: IdentityRecord): IdentityRecord {
    return this.put(i);
  }

  /** Merges values into an identity, creating it when needed. */
  merge(i: IdentityRecord): IdentityRecord {
    const had = this.get(this.key(i));
    return this.put({ ...i, values: { ...(had?.values ?? {}), ...i.values } });
  }

  /** Removes an identity; 404 when there is none. */
  remove(trafficTypeId: string, environmentId: string, key: string): void {
    if (!this.drop(`${trafficTypeId}/${environmentId}/${key}`))
      throw notFound(`Could not find identity ${key}`);
  }
}

/**
 * The large or the rule-based segments of every workspace, and where each is active (one
 * activation per segment and environment).
 */
export class KindSegments extends Part<KindSegmentRecord> {
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
    this.activations.dropWhere((a) => a.segmentId === s.id);
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
   * that does (`admin/segment-kinds.ts`).
   */
  holdsContent(a: KindActivationRecord): boolean {
    return (
      a.members.length > 0 || a.rules.length > 0 || a.excludedKeys.length > 0 || a.excludedSegments.length > 0
    );
  }

  /** Deactivates a segment in an environment. */
  deactivate(a: KindActivationRecord): void {
    this.activations.dropWhere((x) => x === a);
  }

  /** "Large segment" or "Rule-based segment", for messages. */
  get label(): string {
    return this.kind === "large" ? "Large segment" : "Rule-based segment";
  }
}

/** The change requests of the account, in submission order. */
export class ChangeRequests extends Part<ChangeRequestRecord> {
  constructor() {
    super((r) => r.id);
  }

  /** Records a new request; 409 while another REQUESTED one changes the same object there (inferred). */
  submit(r: Omit<ChangeRequestRecord, "id">): ChangeRequestRecord {
    const open = this.find(
      (o) =>
        o.status === "REQUESTED" &&
        o.environmentId === r.environmentId &&
        o.target.kind === r.target.kind &&
        o.target.name === r.target.name,
    );
    if (open && r.status === "REQUESTED")
      throw conflict(`Change request ${open.id} for ${r.target.name} is still open in this environment`);
    // One above the largest id held, not the count: an environment's deletion takes its requests along.
    const last = Math.max(0, ...this.list().map((o) => Number(o.id) || 0));
    return this.put({ ...r, id: String(last + 1) });
  }

  /** The request whose large-segment upload address has this token. */
  byUploadToken(token: string): ChangeRequestRecord | undefined {
    return this.find((r) => r.upload?.token === token);
  }

  /** Sets a request's status, recording who did it, in which role, and their comment. */
  transition(
    r: ChangeRequestRecord,
    status: ChangeRequestRecord["status"],
    by: { user: string; role: "SUBMITTER" | "APPROVER"; comment: string },
  ): void {
    r.status = status;
    r.comments.push({ comment: by.comment, user: by.user, role: by.role, timestamp: Date.now() });
  }

  /** Records the keys of an uploaded file. */
  uploaded(r: ChangeRequestRecord, keys: string[]): void {
    if (r.upload) r.upload.keys = keys;
  }
}

/** The change permissions of environments, as last sent. */
export class Policies extends Part<EnvironmentPolicyRecord> {
  constructor() {
    super((p) => p.environmentId);
  }

  /** Sets an environment's change permissions. */
  set(env: EnvironmentRecord, changePermissions: Record<string, unknown>): void {
    this.put({ environmentId: env.id, changePermissions });
  }

  /** Whether changes in the environment need an approved change request (ref admin §2, §9.2). */
  approvalsRequired(environmentId: string): boolean {
    return this.get(environmentId)?.changePermissions.areApprovalsRequired === true;
  }
}

/** Workspace view restrictions, one per resource. */
export class Restrictions extends Part<RestrictionRecord> {
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
}

/** Every part of the wider object model (see the module comment). */
export class Catalog {
  readonly flagSets = new FlagSets();
  readonly attributes = new Attributes();
  readonly identities = new Identities();
  readonly largeSegments = new KindSegments("large");
  readonly ruleBasedSegments = new KindSegments("rule-based");
  readonly changeRequests = new ChangeRequests();
  readonly policies = new Policies();
  readonly restrictions = new Restrictions();

  /** The segments of one kind. */
  segments(kind: SegmentKind): KindSegments {
    return kind === "large" ? this.largeSegments : this.ruleBasedSegments;
  }

  /** Everything, for the state file. */
  dump(): CatalogState {
    return {
      flagSets: this.flagSets.dump(),
      attributes: this.attributes.dump(),
      identities: this.identities.dump(),
      largeSegments: this.largeSegments.dump(),
      largeActivations: this.largeSegments.activations.dump(),
      ruleBasedSegments: this.ruleBasedSegments.dump(),
      ruleBasedActivations: this.ruleBasedSegments.activations.dump(),
      changeRequests: this.changeRequests.dump(),
      policies: this.policies.dump(),
      restrictions: this.restrictions.dump(),
    };
  }

  /** Replaces everything (a state file loaded, or rolled back to); none: empty. */
  restore(s: CatalogState | undefined): void {
    this.flagSets.restore(s?.flagSets ?? []);
    this.attributes.restore(s?.attributes ?? []);
    this.identities.restore(s?.identities ?? []);
    this.largeSegments.restore(s?.largeSegments ?? []);
    this.largeSegments.activations.restore(s?.largeActivations ?? []);
    this.ruleBasedSegments.restore(s?.ruleBasedSegments ?? []);
    this.ruleBasedSegments.activations.restore(s?.ruleBasedActivations ?? []);
    this.changeRequests.restore(s?.changeRequests ?? []);
    this.policies.restore(s?.policies ?? []);
    this.restrictions.restore(s?.restrictions ?? []);
  }

  /** What a deleted environment takes along. */
  forgetEnvironment(environmentId: string): void {
    for (const kind of SEGMENT_KINDS)
      this.segments(kind).activations.dropWhere((a) => a.environmentId === environmentId);
    this.identities.dropWhere((i) => i.environmentId === environmentId);
    this.policies.dropWhere((p) => p.environmentId === environmentId);
    this.changeRequests.dropWhere((r) => r.environmentId === environmentId);
  }

  /** What a deleted traffic type takes along (its attributes and identities). */
  forgetTrafficType(trafficTypeId: string): void {
    this.attributes.dropWhere((a) => a.trafficTypeId === trafficTypeId);
    this.identities.dropWhere((i) => i.trafficTypeId === trafficTypeId);
  }

  /** Segments of either kind that use a traffic type. */
  segmentsOfTrafficType(trafficTypeId: string): KindSegmentRecord[] {
    return SEGMENT_KINDS.flatMap((k) => this.segments(k).where({ trafficTypeId }));
  }

  /** What a deleted workspace takes along. */
  forgetWorkspace(workspaceId: string): void {
    this.flagSets.dropWhere((f) => f.workspaceId === workspaceId);
    this.restrictions.dropWhere((r) => r.resourceId === workspaceId);
  }
}
