/**
 * The emulator's state: every object of the admin API and of the platform API, the API keys of
 * both, and the SDK bookkeeping (change numbers, ARCHIVED tombstones), in memory and, with a
 * `statePath`, in a file (`journal.ts`: atomic writes, group commit, rollback of a refused write).
 *
 * The state is split by domain, one part per kind of object with private maps and its own rules,
 * each in the file named like its routes where one exists: API keys (`keys.ts`); workspaces,
 * environments, traffic types and rollout statuses (`workspaces.ts`); flags and definitions
 * (`flags.ts`), flag sets (`flag-set.ts`); segments (`segments.ts`), large and rule-based segments
 * (`segment-kinds.ts`); traffic-type attributes (`traffic-type-attribute.ts`), identities
 * (`identities.ts`); change requests and change permissions (`change-requests.ts`); restrictions
 * (`restriction.ts`); users and groups (`people.ts`); the platform's organizations, projects,
 * connectors and pipelines (`platform.ts`), v2 entities (`platform-entities.ts`) and access
 * control (`access-control.ts`). Routes read through the parts and change the state only through
 * their domain methods, or through the methods here for what spans parts (a deletion that must
 * wait for, or takes along, objects of another part; a write another part's rule may refuse;
 * applying a change request): each such method checks before it changes anything and runs
 * without awaiting, so a refusal leaves the state as it was and a commit carries the whole
 * change. Indexes and tombstones are the store's business: no route touches a map.
 * @module
 */
import { conflict, forbidden, notFound } from "../errors";
import { AccessControl } from "./access-control";
import {
  ChangePermissions,
  type ChangeRequestRecord,
  ChangeRequests,
  type ParsedChange,
} from "./change-requests";
import { type FlagSetRecord, FlagSets } from "./flag-set";
import { Definitions, Flags } from "./flags";
import { Identities } from "./identities";
import { Journal } from "./journal";
import { Keys } from "./keys";
import { Groups, Users } from "./people";
import { PlatformStore } from "./platform";
import { PlatformEntities } from "./platform-entities";
import {
  type DefinitionRecord,
  type EnvironmentRecord,
  emptyPlatformState,
  type FlagRecord,
  type GroupRecord,
  type KeyRecord,
  type PlatformScope,
  type SegmentActivation,
  STATE_FORMAT,
  type StateFile,
  type StoredProject,
  type TrafficTypeRecord,
  type WorkspaceRecord,
} from "./records";
import { Restrictions } from "./restriction";
import { type KindActivationRecord, KindSegments, SEGMENT_KINDS, type SegmentKind } from "./segment-kinds";
import { Segments } from "./segments";
import { ChangeClock } from "./table";
import { Attributes } from "./traffic-type-attribute";
import { Environments, RolloutStatuses, TrafficTypes, Workspaces } from "./workspaces";

export * from "./change-requests";
export * from "./flag-set";
export * from "./identities";
export { type CommitLog, type CommitLogBatch, StateFileError } from "./journal";
export { newKeyString } from "./keys";
export { ACTIVE_USER_DELETE_MESSAGE } from "./people";
export { type ConnectorFields, HARNESS_SECRET_MANAGER, PROJECT_MODULES } from "./platform";
export type { EntityReference, EntityRefusals } from "./platform-entities";
export * from "./platform-entity-records";
export * from "./records";
export * from "./restriction";
export * from "./segment-kinds";
export { MAX_SEGMENT_KEYS } from "./segments";
export * from "./traffic-type-attribute";
export { INITIAL_ROLLOUT_STATUS } from "./workspaces";

/** Options of {@link Store.open}. */
export interface StoreOptions {
  /** The account of a new state (a state file keeps its own). */
  accountId: string;
  /** The state file; without it everything stays in memory. */
  statePath?: string | undefined;
}

/** The emulator's state (see the module comment). */
export class Store extends Journal {
  /** The account: the platform's `accountIdentifier`. */
  accountId: string;
  readonly keys = new Keys();
  readonly workspaces = new Workspaces();
  readonly environments = new Environments();
  readonly trafficTypes = new TrafficTypes();
  readonly rolloutStatuses = new RolloutStatuses();
  readonly flags = new Flags();
  readonly definitions: Definitions;
  readonly flagSets = new FlagSets();
  readonly segments: Segments;
  readonly largeSegments = new KindSegments("large");
  readonly ruleBasedSegments = new KindSegments("rule-based");
  readonly attributes = new Attributes();
  readonly identities = new Identities();
  readonly changeRequests = new ChangeRequests();
  /** The environments' change permissions (where a direct write needs an approved change request). */
  readonly changePermissions = new ChangePermissions();
  readonly restrictions = new Restrictions();
  readonly groups = new Groups();
  readonly users = new Users(this.groups);
  readonly platform = new PlatformStore();
  /** The platform's v2 entities: services, environments, infrastructures, secrets, input sets, triggers, .... */
  readonly entities = new PlatformEntities(this.platform);
  /** Service accounts, API keys, tokens, user groups, users, invites, roles, resource groups, role assignments. */
  readonly accessControl = new AccessControl(this.platform, this.keys);
  /** SDK change numbers, shared by definitions and segments. */
  private readonly clock = new ChangeClock();

  private constructor(accountId: string, statePath: string | undefined) {
    super(statePath);
    this.accountId = accountId;
    this.definitions = new Definitions(this.clock);
    this.segments = new Segments(this.clock);
    // A project's or organization's deletion takes the v2 entities and the access control in it along.
    this.platform.cascade = {
      projectSaved: (project, previous) => this.projectSaved(project, previous),
      forgetOrganization: (org) => {
        this.entities.forgetOrganization(org);
        this.accessControl.forgetOrganization(org);
      },
      forgetProject: (org, project) => {
        this.entities.forgetProject(org, project);
        this.accessControl.forgetProject(org, project);
        const ws = this.workspaces.ofProject(org, project);
        if (ws) this.purgeWorkspace(ws);
      },
      forgetPipeline: (org, project, pipeline) => this.entities.forgetPipeline(org, project, pipeline),
    };
  }

  /**
   * Opens the state: loads `statePath` when it exists (refusing a corrupt file), else seeds a new
   * account (and writes it when `statePath` is set).
   */
  static async open(opts: StoreOptions): Promise<Store> {
    const store = new Store(opts.accountId, opts.statePath);
    store.seed();
    await store.openFile();
    return store;
  }

  /**
   * A new account: the workspace `Default` with the environments Production and Staging, the
   * traffic types `user` and `account`, the rollout statuses, and the platform's organization
   * `default`.
   */
  private seed(): void {
    const ws = this.workspaces.create({ name: "Default", requiresTitleAndComments: false });
    this.environments.create(ws, { name: "Production", production: true });
    this.environments.create(ws, { name: "Staging", production: false });
    for (const name of ["user", "account"]) this.trafficTypes.create(ws, name);
    this.rolloutStatuses.seed();
    this.platform.restore(emptyPlatformState(this.accountId));
  }

  /** The whole state as the file holds it. */
  toFile(): StateFile {
    const { definitions, tombstones } = this.definitions.dump();
    return {
      format: STATE_FORMAT,
      version: 1,
      accountId: this.accountId,
      changeNumber: this.clock.value,
      workspaces: this.workspaces.dump(),
      environments: this.environments.dump(),
      trafficTypes: this.trafficTypes.dump(),
      rolloutStatuses: this.rolloutStatuses.dump(),
      flags: this.flags.dump(),
      definitions,
      tombstones,
      segments: this.segments.dump(),
      segmentEnvironments: this.segments.dumpActivations(),
      users: this.users.dump(),
      groups: this.groups.dump(),
      keys: this.keys.dump(),
      platform: this.platform.dump(),
      catalog: {
        flagSets: this.flagSets.dump(),
        attributes: this.attributes.dump(),
        identities: this.identities.dump(),
        largeSegments: this.largeSegments.dump(),
        largeActivations: this.largeSegments.activations.dump(),
        ruleBasedSegments: this.ruleBasedSegments.dump(),
        ruleBasedActivations: this.ruleBasedSegments.activations.dump(),
        changeRequests: this.changeRequests.dump(),
        policies: this.changePermissions.dump(),
        restrictions: this.restrictions.dump(),
      },
      platformEntities: this.entities.dump(),
      accessControl: this.accessControl.dump(),
    };
  }

  protected load(file: StateFile): void {
    this.accountId = file.accountId;
    this.clock.value = file.changeNumber;
    this.workspaces.restore(file.workspaces);
    this.environments.restore(file.environments);
    this.trafficTypes.restore(file.trafficTypes);
    this.rolloutStatuses.restore(file.rolloutStatuses);
    this.flags.restore(file.flags);
    this.definitions.restore(file.definitions, file.tombstones);
    this.segments.restoreAll(file.segments, file.segmentEnvironments);
    this.users.restore(file.users);
    this.groups.restore(file.groups);
    this.keys.restore(file.keys);
    this.platform.restore(file.platform);
    const c = file.catalog;
    this.flagSets.restore(c?.flagSets ?? []);
    this.attributes.restore(c?.attributes ?? []);
    this.identities.restore(c?.identities ?? []);
    this.largeSegments.restore(c?.largeSegments ?? []);
    this.largeSegments.activations.restore(c?.largeActivations ?? []);
    this.ruleBasedSegments.restore(c?.ruleBasedSegments ?? []);
    this.ruleBasedSegments.activations.restore(c?.ruleBasedActivations ?? []);
    this.changeRequests.restore(c?.changeRequests ?? []);
    this.changePermissions.restore(c?.policies ?? []);
    this.restrictions.restore(c?.restrictions ?? []);
    this.entities.restore(file.platformEntities);
    this.accessControl.restore(file.accessControl);
    // A state of an earlier version linked workspaces to projects by name: each project takes its
    // workspace now (`takeWorkspace`), so the link is one identity from here on.
    for (const p of this.platform.projects()) {
      if (!this.workspaces.ofProject(p.project.orgIdentifier, p.project.identifier)) this.takeWorkspace(p);
    }
  }

  // -------------------------------------------------------------------------------------------
  // What spans parts

  /** Adds a workspace with a `user` traffic type and no environment (ref admin §1.1). */
  createWorkspace(fields: Omit<WorkspaceRecord, "id">): WorkspaceRecord {
    const ws = this.workspaces.create(fields);
    this.trafficTypes.create(ws, "user");
    return ws;
  }

  /** Deletes a workspace; refused while it has traffic types (ref admin §1.2) or environments. */
  deleteWorkspace(ws: WorkspaceRecord): void {
    const tts = this.trafficTypes.inWorkspace(ws.id);
    if (tts.length > 0) {
      throw conflict(
        `Workspace ${ws.name} still has traffic types (${tts.map((t) => t.name).join(", ")}); delete them first`,
      );
    }
    if (this.environments.inWorkspace(ws.id).length > 0)
      throw conflict(`Workspace ${ws.name} still has environments; delete them first`);
    this.workspaces.remove(ws);
    this.flagSets.forgetWorkspace(ws.id);
    this.restrictions.forgetWorkspace(ws.id);
    this.flags.forgetWorkspace(ws.id);
  }

  /**
   * Adds an environment with its server-side and client-side SDK keys (ref admin §1.2), and its
   * change permissions when given.
   */
  createEnvironment(
    ws: WorkspaceRecord,
    fields: { name: string; production: boolean },
    changePermissions?: Record<string, unknown>,
  ) {
    const env = this.environments.create(ws, fields);
    if (changePermissions) this.changePermissions.set(env, changePermissions);
    return { env, keys: this.keys.createFor(env) };
  }

  /**
   * Renames an environment, sets its production flag and its change permissions (ref admin
   * §1.2); 409 when the new name is taken. With `apply` false only the checks run (`dry_run`).
   */
  updateEnvironment(
    ws: WorkspaceRecord,
    env: EnvironmentRecord,
    next: { name: string; production: boolean },
    changePermissions: Record<string, unknown>,
    apply = true,
  ): void {
    this.environments.update(ws, env, next, apply);
    if (apply) this.changePermissions.set(env, changePermissions);
  }

  /**
   * 403 where the environment's change permissions require approvals: a direct write is refused
   * and the change must go through a change request (ref admin §2 and §9.2, harness provider
   * issue #1404; the message is inferred).
   */
  assertDirectWrite(env: EnvironmentRecord): void {
    if (!this.changePermissions.approvalsRequired(env.id)) return;
    throw forbidden(
      `Environment ${env.name} requires approvals: submit this change as a change request (POST /changeRequests/ws/${env.workspaceId}/environments/${env.id})`,
    );
  }

  /**
   * Deletes an environment with everything kept per environment: definitions and tombstones,
   * segment activations of every kind, identities, change permissions and change requests;
   * refused while API keys of it exist (ref admin §1.2: "you CANNOT delete an environment unless
   * you first revoke all api keys").
   */
  deleteEnvironment(env: EnvironmentRecord): void {
    const keys = this.keys.ofEnvironment(env);
    if (keys.length > 0) {
      throw conflict(
        `Environment ${env.name} still has API keys (${keys.map((k) => k.id).join(", ")}); revoke them with DELETE /apiKeys/{id} first`,
      );
    }
    this.environments.remove(env);
    this.definitions.forgetEnvironment(env.id);
    this.segments.forgetEnvironment(env.id);
    for (const kind of SEGMENT_KINDS) this.segmentKinds(kind).forgetEnvironment(env.id);
    this.identities.forgetEnvironment(env.id);
    this.changePermissions.forgetEnvironment(env.id);
    this.changeRequests.forgetEnvironment(env.id);
  }

  /** Deletes a traffic type; refused while flags or segments use it (inferred). */
  deleteTrafficType(tt: TrafficTypeRecord): void {
    const usedBy = this.flags.ofTrafficType(tt.id);
    if (usedBy.length > 0) {
      throw conflict(
        `Traffic type ${tt.name} is used by ${usedBy.length} feature flag(s) (${usedBy[0]?.name}, ...); delete them first`,
      );
    }
    const segments = [
      ...this.segments.ofTrafficType(tt.id),
      ...SEGMENT_KINDS.flatMap((k) => this.segmentKinds(k).where({ trafficTypeId: tt.id })),
    ];
    if (segments.length > 0) throw conflict(`Traffic type ${tt.name} is used by segments; delete them first`);
    this.trafficTypes.remove(tt);
    this.attributes.forgetTrafficType(tt.id);
    this.identities.forgetTrafficType(tt.id);
  }

  /** The large or the rule-based segments. */
  segmentKinds(kind: SegmentKind): KindSegments {
    return kind === "large" ? this.largeSegments : this.ruleBasedSegments;
  }

  /** Adds a flag in the account's initial rollout status (spec admin §3). */
  createFlag(ws: WorkspaceRecord, tt: TrafficTypeRecord, fields: Pick<FlagRecord, "name" | "description">) {
    return this.flags.create(ws, tt, fields, this.rolloutStatuses.initial());
  }

  /**
   * Deletes a flag and its definitions, leaving an ARCHIVED tombstone for each; 403, before
   * anything changes, when one is in an environment `allowed` refuses (the key's restriction).
   */
  deleteFlag(flag: FlagRecord, allowed: (env: EnvironmentRecord) => boolean = () => true): void {
    const definitions = this.definitions.ofFlag(flag.id);
    for (const d of definitions) {
      const env = this.environments.get(d.environmentId);
      if (env && !allowed(env)) {
        throw forbidden(
          `The API key is not allowed to access environment ${env.id}, where ${flag.name} is defined`,
        );
      }
    }
    for (const d of definitions) this.removeDefinition(d);
    this.flags.remove(flag);
  }

  /**
   * Deletes a flag set; it leaves every definition that named it, each with a new change number
   * so SDKs drop it from the split's `sets` (removal rather than refusal while used is inferred).
   */
  deleteFlagSet(f: FlagSetRecord): void {
    for (const d of this.definitions.dump().definitions) {
      const sets = d.doc.flagSets ?? [];
      const kept = sets.filter((ref) => ref.id !== f.id);
      if (kept.length !== sets.length) this.definitions.replace(d, { ...d.doc, flagSets: kept }, undefined);
    }
    this.flagSets.remove(f);
  }

  /**
   * Deactivates a segment in an environment. Its keys leave with it: a direct key write, refused
   * where approvals are required (an ARCHIVE change request of the keys is the way); an empty
   * activation holds no key to approve (inferred from ref admin §2 "direct writes return 403").
   */
  deactivateSegment(a: SegmentActivation, env: EnvironmentRecord): void {
    if (a.members.size > 0) this.assertDirectWrite(env);
    this.segments.deactivate(a);
  }

  /**
   * Deactivates a large or rule-based segment in an environment. What it holds leaves with it: a
   * direct write, refused where approvals are required (the ARCHIVE change request is the way);
   * an empty activation holds nothing to approve (inferred).
   */
  deactivateKindSegment(kind: SegmentKind, a: KindActivationRecord, env: EnvironmentRecord): void {
    const segments = this.segmentKinds(kind);
    if (segments.holdsContent(a)) this.assertDirectWrite(env);
    segments.deactivate(a);
  }

  /** Removes a definition, leaving an ARCHIVED tombstone for `/api/splitChanges` (wire §1). */
  removeDefinition(d: DefinitionRecord): void {
    const flag = this.flags.get(d.flagId);
    this.definitions.remove(
      d,
      flag && { name: flag.name, trafficTypeName: this.trafficTypes.get(flag.trafficTypeId)?.name ?? "user" },
    );
  }

  /**
   * Takes a change request (ref admin §1.1, §9.2): REQUESTED where the environment's change
   * permissions require approvals, else PUBLISHED and applied at once ({@link applyChange}; a
   * request that cannot be applied is refused before it is kept).
   */
  submitChangeRequest(
    fields: Omit<ChangeRequestRecord, "id" | "status">,
    parsed: ParsedChange,
  ): ChangeRequestRecord {
    const gated = this.changePermissions.approvalsRequired(fields.environmentId);
    const status = gated ? "REQUESTED" : "PUBLISHED";
    const apply = gated ? undefined : this.changeOf({ ...fields, id: "", status }, parsed);
    const r = this.changeRequests.submit({ ...fields, status });
    apply?.();
    return r;
  }

  /**
   * Moves a REQUESTED change request on: APPROVED applies it ({@link applyChange}) and publishes
   * it; REJECTED and WITHDRAWN only record who and why.
   */
  decideChangeRequest(
    r: ChangeRequestRecord,
    status: ChangeRequestRecord["status"],
    by: { user: string; role: "SUBMITTER" | "APPROVER"; comment: string },
    parsed: ParsedChange,
  ): void {
    if (status !== "APPROVED") {
      this.changeRequests.transition(r, status, by);
      return;
    }
    this.changeOf(r, parsed)();
    this.changeRequests.transition(r, "APPROVED", by);
    this.changeRequests.transition(r, "PUBLISHED", { ...by, comment: "" });
  }

  /**
   * Records the members a large segment's upload sent; a PUBLISHED request (one that needed no
   * approval) replaces the segment's members at once, a REQUESTED one when it is approved.
   */
  uploadChangeRequest(r: ChangeRequestRecord, keys: string[]): void {
    const apply =
      r.status === "PUBLISHED" ? this.changeOf({ ...r, upload: { token: "", keys } }, null) : undefined;
    this.changeRequests.uploaded(r, keys);
    apply?.();
  }

  /**
   * What a change request does, checked now and done when the returned function runs: a split's
   * definition created, replaced, killed, restored or archived (with the request's rollout
   * status); a segment's keys added or removed; a large segment's members replaced or emptied; a
   * rule-based segment's content replaced, or its activation removed (ARCHIVE). An object no
   * longer active in the environment is left alone.
   */
  private changeOf(r: ChangeRequestRecord, parsed: ParsedChange): () => void {
    const env = this.environments.get(r.environmentId);
    if (!env) throw notFound(`Could not find environment ${r.environmentId}`);
    const { kind, name, payload } = r.target;
    const op = r.operationType;
    if (kind === "split") {
      const flag = this.flags.byRef(r.workspaceId, name);
      if (!flag) throw notFound(`Could not find split ${name}`);
      return () => {
        const d = this.definitions.get(flag.id, env.id);
        if (parsed && "doc" in parsed) {
          if (d) this.definitions.replace(d, parsed.doc, parsed.killed);
          else this.definitions.create(flag, env, parsed.doc, parsed.killed ?? false);
        } else if (d && op === "ARCHIVE") this.removeDefinition(d);
        else if (d) this.definitions.setKilled(d, op === "KILL");
        if (r.rolloutStatusId) this.flags.update(flag, { ...flag, rolloutStatusId: r.rolloutStatusId });
      };
    }
    if (kind === "segment") {
      const seg = this.segments.byName(r.workspaceId, name);
      const a = seg && this.segments.activation(env.id, seg.id);
      const keys = (payload.keys as string[] | undefined) ?? [];
      return () => {
        if (a && op === "ARCHIVE") this.segments.removeKeys(a, keys);
        else if (a) this.segments.uploadKeys(a, keys, false);
      };
    }
    const segments = this.segmentKinds(kind === "largeSegment" ? "large" : "rule-based");
    const seg = segments.byName(r.workspaceId, name);
    const a = seg && segments.activation(env.id, seg.id);
    return () => {
      if (!a) return;
      if (op === "ARCHIVE" && kind === "ruleBasedSegment") segments.deactivate(a);
      else if (op === "ARCHIVE") segments.change(a, { members: [] });
      else if (kind === "largeSegment") {
        if (r.upload?.keys) segments.change(a, { members: r.upload.keys });
      } else if (parsed && "ruleBased" in parsed) segments.change(a, parsed.ruleBased);
    };
  }

  /** Deletes a group; it leaves every user. */
  deleteGroup(g: GroupRecord): void {
    this.groups.remove(g);
    this.users.leaveGroup(g.id);
  }

  /**
   * The environment an SDK key belongs to: `environments[0]`, an id or a name in `workspaces[0]`
   * (default `Default`).
   */
  environmentOf(key: KeyRecord): EnvironmentRecord | undefined {
    const ref = key.environments?.[0];
    if (!ref) return undefined;
    const byId = this.environments.get(ref);
    if (byId) return byId;
    const ws = this.workspaces.byRef(key.workspaces?.[0] ?? "Default");
    return ws ? this.environments.byRef(ws.id, ref) : undefined;
  }

  // -------------------------------------------------------------------------------------------
  // A Harness project is an FME workspace

  /**
   * Whether a workspace is the one of a platform project. Under Harness an FME project is the
   * Harness project: the workspace carries the project's `organizationIdentifier` and
   * `projectIdentifier`, and the list filters by them (ref admin §9.2: [HSDK] `workspaces.go`
   * `Workspace`, `GET /workspaces?organizationIdentifier=&projectIdentifier=`; [HP]
   * `internal/service/split/workspace.go` resolves every `harness_fme_*` workspace so). One
   * identity, not a name: same-named projects of two organizations have two workspaces.
   */
  inProject(
    ws: Pick<WorkspaceRecord, "organizationIdentifier" | "projectIdentifier">,
    project: StoredProject,
  ) {
    return (
      ws.organizationIdentifier === project.project.orgIdentifier &&
      ws.projectIdentifier?.toLowerCase() === project.project.identifier.toLowerCase()
    );
  }

  /** The platform project a workspace is, as a scope; none for a workspace no project has taken. */
  projectsOf(ws: Pick<WorkspaceRecord, "organizationIdentifier" | "projectIdentifier">): PlatformScope[] {
    const { organizationIdentifier: org, projectIdentifier: project } = ws;
    if (org === undefined || project === undefined) return [];
    const stored = this.platform.project(org, project);
    return stored && this.inProject(ws, stored) ? [{ org, project: stored.project.identifier }] : [];
  }

  /** The FME workspace of a platform project. */
  projectWorkspace(project: StoredProject): WorkspaceRecord | undefined {
    return this.workspaces.ofProject(project.project.orgIdentifier, project.project.identifier);
  }

  /**
   * A project was made, or its fields replaced (`PlatformStore.cascade`): a new project takes its
   * workspace ({@link takeWorkspace}); a renamed one renames its workspace when that still bears
   * the project's old name and the new one is free (inferred: one identity, one name).
   */
  private projectSaved(project: StoredProject, previous: StoredProject | undefined): void {
    const ws = this.projectWorkspace(project);
    if (!ws) {
      this.takeWorkspace(project);
      return;
    }
    const name = project.project.name;
    if (previous && ws.name === previous.project.name && name !== ws.name && !this.workspaces.byRef(name)) {
      this.workspaces.update(ws, { name, requiresTitleAndComments: ws.requiresTitleAndComments });
    }
  }

  /**
   * Gives a project its FME workspace. A workspace made through the admin API that no project has
   * taken, named like the project (its name or identifier), becomes the project's: a program that
   * made the workspace first keeps it. Otherwise a new workspace named like the project (`name
   * (org)` when another workspace has that name: workspace names are unique in the account) with
   * what the service gives a new project: the `user` traffic type and the environments
   * Production and Staging, each with its SDK keys (developer.harness.io FME "Projects": "two
   * environments and one traffic type"; "Environments": "Staging and Production by default, each
   * environment is automatically set up with its own API keys").
   */
  private takeWorkspace(project: StoredProject): WorkspaceRecord {
    const { orgIdentifier: org, identifier, name } = project.project;
    const free = this.workspaces.find(
      (w) => w.projectIdentifier === undefined && (w.name === name || w.name === identifier),
    );
    if (free) {
      this.workspaces.link(free, org, identifier);
      return free;
    }
    const ws = this.workspaces.create({
      name: this.workspaces.freeName(name, org),
      requiresTitleAndComments: false,
      organizationIdentifier: org,
      projectIdentifier: identifier,
    });
    this.trafficTypes.create(ws, "user");
    this.createEnvironment(ws, { name: "Production", production: true });
    this.createEnvironment(ws, { name: "Staging", production: false });
    return ws;
  }

  /**
   * Deletes a workspace with everything in it: the workspace goes with its project (inferred from
   * the one identity; the platform cascades a project's deletion through what lives in it).
   */
  private purgeWorkspace(ws: WorkspaceRecord): void {
    for (const flag of this.flags.inWorkspace(ws.id)) this.deleteFlag(flag);
    for (const seg of this.segments.inWorkspace(ws.id)) this.segments.remove(seg);
    for (const kind of SEGMENT_KINDS) {
      const segments = this.segmentKinds(kind);
      for (const seg of segments.where({ workspaceId: ws.id })) segments.remove(seg);
    }
    for (const env of this.environments.inWorkspace(ws.id)) {
      for (const key of this.keys.ofEnvironment(env)) this.keys.revoke(key.id);
      this.deleteEnvironment(env);
    }
    for (const tt of this.trafficTypes.inWorkspace(ws.id)) this.deleteTrafficType(tt);
    this.deleteWorkspace(ws);
  }
}
