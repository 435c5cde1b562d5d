/**
 * The emulator's state: every object of the admin API and of the platform API, the API keys of
 * both, and the SDK bookkeeping (change numbers, ARCHIVED tombstones), in memory and, with a
 * `statePath`, in a file (`journal.ts`: atomic writes, group commit, rollback of a refused write).
 *
 * Each kind of object is a part with private maps and its own rules (`keys.ts`,
 * `workspaces.ts`, `flags.ts`, `segments.ts`, `people.ts`, `platform.ts`); routes read through
 * them and change the state only through their domain methods, or through the methods here for
 * what spans parts (a deletion that must wait for, or takes along, objects of another part).
 * Indexes and tombstones are the store's business: no route touches a map.
 * @module
 */
import { conflict } from "../errors";
import { AccessControl } from "./access-control";
import { Catalog } from "./catalog";
import { Definitions, Flags } from "./flags";
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
  STATE_FORMAT,
  type StateFile,
  type StoredProject,
  type TrafficTypeRecord,
  type WorkspaceRecord,
} from "./records";
import { Segments } from "./segments";
import { ChangeClock } from "./table";
import { Environments, RolloutStatuses, TrafficTypes, Workspaces } from "./workspaces";

export * from "./catalog-records";
export { type CommitLog, type CommitLogBatch, StateFileError } from "./journal";
export { newKeyString } from "./keys";
export { ACTIVE_USER_DELETE_MESSAGE } from "./people";
export { type ConnectorFields, HARNESS_SECRET_MANAGER, PROJECT_MODULES } from "./platform";
export type { EntityReference, EntityRefusals } from "./platform-entities";
export * from "./platform-entity-records";
export * from "./records";
export { MAX_SEGMENT_KEYS } from "./segments";
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
  readonly segments: Segments;
  readonly groups = new Groups();
  readonly users = new Users(this.groups);
  readonly platform = new PlatformStore();
  /** The platform's v2 entities: services, environments, infrastructures, secrets, input sets, triggers (issue 19). */
  readonly entities = new PlatformEntities(this.platform);
  /** Flag sets, attributes, identities, large and rule-based segments, change requests (issue 18). */
  readonly catalog = new Catalog();
  /** Service accounts, API keys, tokens, user groups, users, invites, roles, resource groups, role assignments (issue 27). */
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
      forgetOrganization: (org) => {
        this.entities.forgetOrganization(org);
        this.accessControl.forgetOrganization(org);
      },
      forgetProject: (org, project) => {
        this.entities.forgetProject(org, project);
        this.accessControl.forgetProject(org, project);
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
      catalog: this.catalog.dump(),
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
    this.catalog.restore(file.catalog);
    this.entities.restore(file.platformEntities);
    this.accessControl.restore(file.accessControl);
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
    this.catalog.forgetWorkspace(ws.id);
    this.flags.forgetWorkspace(ws.id);
  }

  /** Adds an environment with its server-side and client-side SDK keys (ref admin §1.2). */
  createEnvironment(ws: WorkspaceRecord, fields: { name: string; production: boolean }) {
    const env = this.environments.create(ws, fields);
    return { env, keys: this.keys.createFor(env) };
  }

  /**
   * Deletes an environment with its definitions, tombstones and segment activations; refused
   * while API keys of it exist (ref admin §1.2: "you CANNOT delete an environment unless you
   * first revoke all api keys").
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
    this.catalog.forgetEnvironment(env.id);
  }

  /** Deletes a traffic type; refused while flags or segments use it (inferred). */
  deleteTrafficType(tt: TrafficTypeRecord): void {
    const usedBy = this.flags.ofTrafficType(tt.id);
    if (usedBy.length > 0) {
      throw conflict(
        `Traffic type ${tt.name} is used by ${usedBy.length} feature flag(s) (${usedBy[0]?.name}, ...); delete them first`,
      );
    }
    if (this.segments.ofTrafficType(tt.id).length > 0 || this.catalog.segmentsOfTrafficType(tt.id).length > 0)
      throw conflict(`Traffic type ${tt.name} is used by segments; delete them first`);
    this.trafficTypes.remove(tt);
    this.catalog.forgetTrafficType(tt.id);
  }

  /** Adds a flag in the account's initial rollout status (spec admin §3). */
  createFlag(ws: WorkspaceRecord, tt: TrafficTypeRecord, fields: Pick<FlagRecord, "name" | "description">) {
    return this.flags.create(ws, tt, fields, this.rolloutStatuses.initial());
  }

  /** Deletes a flag and its definitions, leaving an ARCHIVED tombstone for each. */
  deleteFlag(flag: FlagRecord): void {
    for (const d of this.definitions.ofFlag(flag.id)) this.removeDefinition(d);
    this.flags.remove(flag);
  }

  /** Removes a definition, leaving an ARCHIVED tombstone for `/api/splitChanges` (wire §1). */
  removeDefinition(d: DefinitionRecord): void {
    const flag = this.flags.get(d.flagId);
    this.definitions.remove(
      d,
      flag && { name: flag.name, trafficTypeName: this.trafficTypes.get(flag.trafficTypeId)?.name ?? "user" },
    );
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

  /**
   * Whether a workspace is the one of a platform project. Under Harness an FME project is the
   * Harness project, and clients resolve a workspace from the organization and project (ref admin
   * §9.2: [HSDK] `workspaces.go`, `GET /workspaces?organizationIdentifier=&projectIdentifier=`);
   * the emulator links a workspace to each project whose name or identifier is the workspace's
   * name (inferred: the reference shows the lookup, not how the service links them).
   */
  inProject(ws: Pick<WorkspaceRecord, "name">, project: StoredProject): boolean {
    return ws.name === project.project.name || ws.name === project.project.identifier;
  }

  /** The platform projects a workspace (or a workspace of that name) belongs to ({@link inProject}). */
  projectsOf(ws: Pick<WorkspaceRecord, "name">): PlatformScope[] {
    return this.platform
      .projects()
      .filter((p) => this.inProject(ws, p))
      .map((p) => ({ org: p.project.orgIdentifier, project: p.project.identifier }));
  }
}
