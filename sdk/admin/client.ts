/**
 * The typed client of the feature-flag admin API (`Authorization: Bearer <admin key>`, or a Harness
 * token in `x-api-key`: `./auth.ts`), spec
 * `feature-flag-admin-api.md` §4; endpoints the spec marks "not shown" follow
 * `../shared/reference/admin-api-behaviour.md` (ref §N).
 *
 * Every method sends through the one HTTP core (`sdk/core/request.ts`): bodies are validated by
 * their zod schema before anything is sent, success bodies after; failures are the typed errors of
 * `sdk/core/errors.ts`. Lists are async iterators that walk every page.
 * @module
 */

import { type CommonOptions, resolveCommonOptions } from "../core/options";
import { checkPageSize, walkMarkerPages } from "../core/paginate";
import { HttpCore } from "../core/request";
import { invalidInput, parseInput } from "../core/validate-input";
import { ApiKeysApi } from "./api-key";
import { type AdminAuth, adminAuthHeader, adminAuthHint, resolveAdminAuth } from "./auth";
import { ChangeRequestsApi } from "./change-requests";
import { ADMIN_PREFIX, adminEndpoints as E } from "./endpoints";
import { FlagSetsApi } from "./flag-set";
import { LargeSegmentsApi } from "./large-segment";
import { AdminApiPart, byIdOrName } from "./part";
import { RestrictionsApi } from "./restriction";
import { RuleBasedSegmentsApi } from "./rule-based-segment";
import {
  type ChangeNote,
  type Definition,
  DefinitionBody,
  type Environment,
  EnvironmentCreate,
  type EnvironmentDetail,
  type Flag,
  FlagCreate,
  type Group,
  GroupCreate,
  GroupPut,
  JsonPatch,
  LIMITS,
  type RolloutStatus,
  type TrafficType,
  TrafficTypeCreate,
  type User,
  UserInviteBody,
  UserPutBody,
  type UserStatus,
  validateDefinition,
  type Workspace,
  WorkspaceCreate,
} from "./schemas";
import { SegmentsApi } from "./segment";
import { SegmentKeysApi } from "./segment-keys";
import { AttributesApi } from "./traffic-type-attribute";

/** Options of {@link AdminClient}: the {@link CommonOptions} plus the admin key. */
export type AdminClientOptions = CommonOptions & {
  /** Admin API key, or a Harness token; falls back to `FLAGSTACK_ADMIN_API_KEY`. */
  apiKey?: string | undefined;
  /**
   * How the key is sent: `bearer` (`Authorization: Bearer <key>`, a Split admin API key) or
   * `x-api-key` (a Harness token, ref §4). Falls back to `FLAGSTACK_ADMIN_AUTH`; default: by the
   * key's shape, `x-api-key` for a Harness token (`pat.…`, `sat.…`), else `bearer` (`./auth.ts`).
   */
  adminAuth?: AdminAuth | undefined;
};

export type { ChangeNote } from "./schemas";

/** Workspaces (projects): spec §4 "Projects and environments". */
export class WorkspacesApi extends AdminApiPart {
  /**
   * Every workspace the key can see, page after page.
   * @param options.pageSize Workspaces per request, 1 to 100 (default 100).
   * @example
   * for await (const ws of admin.workspaces.list()) console.log(ws.name);
   */
  list(
    options: {
      pageSize?: number;
      name?: string;
      organizationIdentifier?: string;
      projectIdentifier?: string;
    } = {},
  ): AsyncIterable<Workspace> {
    const { name, organizationIdentifier, projectIdentifier } = options;
    const query = {
      name,
      nameOp: name === undefined ? undefined : "IS",
      organizationIdentifier,
      projectIdentifier,
    };
    return this.offsetPages(E.workspaces.list, {}, options.pageSize, LIMITS.workspacesMax, query);
  }

  /**
   * The workspace of a Harness project, or `undefined`: under Harness, an FME project is the
   * Harness project (ref §1.2, `GET /workspaces?organizationIdentifier=&projectIdentifier=`).
   * @example
   * const ws = await admin.workspaces.getByHarnessProject("default", "payments");
   */
  async getByHarnessProject(
    organizationIdentifier: string,
    projectIdentifier: string,
  ): Promise<Workspace | undefined> {
    for await (const ws of this.list({ organizationIdentifier, projectIdentifier })) return ws;
    return undefined;
  }

  /**
   * The workspace with exactly this name, or `undefined` (ref §9.1: `?name=&nameOp=IS`).
   * @example
   * const ws = await admin.workspaces.getByName("Default");
   */
  async getByName(name: string): Promise<Workspace | undefined> {
    for await (const ws of this.list({ name })) if (ws.name === name) return ws;
    return undefined;
  }

  /**
   * Creates a workspace (ref §1.1; the service creates its `user` traffic type, not environments).
   * @example
   * const ws = await admin.workspaces.create({ name: "Payments", requiresTitleAndComments: true });
   */
  async create(body: WorkspaceCreate): Promise<Workspace> {
    return this.send(E.workspaces.create, {}, WorkspaceCreate, body);
  }

  /** The workspace with this id or name, or `undefined` (the list: there is no GET by id in ref §1.1). */
  async find(nameOrId: string): Promise<Workspace | undefined> {
    for await (const ws of this.list()) if (ws.id === nameOrId || ws.name === nameOrId) return ws;
    return undefined;
  }

  /** Applies a JSON Patch: `/name`, `/requiresTitleAndComments` (ref §9.1). */
  async patch(wsId: string, ops: JsonPatch): Promise<Workspace> {
    return this.send(E.workspaces.patch, { wsId }, JsonPatch, ops, "JSON Patch");
  }

  /** Deletes a workspace; refused while it has traffic types (ref §1.2). */
  async delete(wsId: string): Promise<true> {
    return this.request(E.workspaces.delete, { wsId });
  }
}

/** Environments of a workspace: a bare array (spec §2). */
export class EnvironmentsApi extends AdminApiPart {
  /**
   * All environments of a workspace.
   * @example
   * const envs = await admin.environments.list(ws.id); // [{ id, name: "Production", production: true }, ...]
   */
  async list(wsId: string): Promise<Environment[]> {
    return this.request(E.environments.list, { wsId });
  }

  /**
   * Creates an environment (ref §1.1); the service also creates its client- and server-side SDK
   * keys, returned in `apiTokens`.
   * @example
   * const qa = await admin.environments.create(ws.id, { name: "QA", production: false });
   */
  async create(wsId: string, body: EnvironmentCreate): Promise<EnvironmentDetail> {
    return this.send(E.environments.create, { wsId }, EnvironmentCreate, body);
  }

  /**
   * Applies a JSON Patch: `/name`, `/production`, `/changePermissions` (ref §1.2). With `dryRun`
   * the service checks the patch and answers the result without applying it (ref §1.1).
   */
  async patch(
    wsId: string,
    envIdOrName: string,
    ops: JsonPatch,
    options: { dryRun?: boolean } = {},
  ): Promise<EnvironmentDetail> {
    const body = parseInput(JsonPatch, ops, E.environments.patch, "JSON Patch");
    const query = { dry_run: options.dryRun ? "true" : undefined };
    return this.request(E.environments.patch, { wsId, environment: envIdOrName }, { body, query });
  }

  /** Deletes an environment; refused while API keys of it exist: revoke them first (ref §1.2). */
  async delete(wsId: string, envIdOrName: string): Promise<true> {
    return this.request(E.environments.delete, { wsId, environment: envIdOrName });
  }

  /** The environment with this name or id, or `undefined` (there is no GET by id, ref §1.2). */
  async find(wsId: string, nameOrId: string): Promise<Environment | undefined> {
    return byIdOrName(await this.list(wsId), nameOrId);
  }
}

/** Traffic types of a workspace: a bare array (ref §1.1). */
export class TrafficTypesApi extends AdminApiPart {
  /** All traffic types of a workspace. */
  async list(wsId: string): Promise<TrafficType[]> {
    return this.request(E.trafficTypes.list, { wsId });
  }

  /** Creates a traffic type (ref §1.1 `{name}`). */
  async create(wsId: string, body: TrafficTypeCreate): Promise<TrafficType> {
    return this.send(E.trafficTypes.create, { wsId }, TrafficTypeCreate, body);
  }

  /** Deletes a traffic type by id (ref §9.1: no workspace in the path). */
  async delete(trafficTypeId: string): Promise<true> {
    return this.request(E.trafficTypes.delete, { trafficTypeId });
  }

  /** The traffic type with this name or id, or `undefined`. */
  async find(wsId: string, nameOrId: string): Promise<TrafficType | undefined> {
    return byIdOrName(await this.list(wsId), nameOrId);
  }
}

/** Rollout statuses (spec §4: `GET /rolloutStatuses?wsId=`). */
export class RolloutStatusesApi extends AdminApiPart {
  /** All rollout statuses usable in a workspace. */
  async list(wsId: string): Promise<RolloutStatus[]> {
    return this.request(E.rolloutStatuses.list, {}, { query: { wsId } });
  }

  /** The rollout status with this name or id, or `undefined`. */
  async find(wsId: string, nameOrId: string): Promise<RolloutStatus | undefined> {
    return byIdOrName(await this.list(wsId), nameOrId);
  }
}

/** Feature flags at workspace level (spec §4 "Flags"). */
export class FlagsApi extends AdminApiPart {
  /**
   * Creates a flag of a traffic type; it starts in the Pre-Production rollout status (spec §3).
   * @example
   * const flag = await admin.flags.create(ws.id, "user", { name: "new-checkout", description: "v2 flow" });
   */
  async create(wsId: string, trafficTypeName: string, body: FlagCreate): Promise<Flag> {
    return this.send(E.flags.create, { wsId, trafficType: trafficTypeName }, FlagCreate, body);
  }

  /**
   * A flag by name or id (ref §2).
   * @throws NotFoundError when there is no such flag.
   */
  async get(wsId: string, nameOrId: string): Promise<Flag> {
    return this.request(E.flags.get, { wsId, flag: nameOrId });
  }

  /**
   * Every flag of a workspace, optionally filtered by exact name or tag (ref §1.1).
   * @param filter.pageSize Flags per request, 1 to 50 (default 50).
   * @example
   * for await (const f of admin.flags.list(ws.id, { tag: "checkout" })) console.log(f.name);
   */
  list(
    wsId: string,
    filter: { name?: string; tag?: string | string[]; pageSize?: number } = {},
  ): AsyncIterable<Flag> {
    const tag = typeof filter.tag === "string" ? [filter.tag] : filter.tag;
    const query = { name: filter.name, tag };
    return this.offsetPages(E.flags.list, { wsId }, filter.pageSize, LIMITS.flagsMax, query);
  }

  /**
   * Applies a JSON Patch to the workspace-level flag: `/description`, `/tags`, `/rolloutStatus/id`
   * (spec §4, ref §1.1).
   * @example
   * await admin.flags.patch(ws.id, "new-checkout", [{ op: "replace", path: "/rolloutStatus/id", value: ramping.id }]);
   */
  async patch(wsId: string, name: string, ops: JsonPatch): Promise<Flag> {
    return this.send(E.flags.patch, { wsId, flag: name }, JsonPatch, ops, "JSON Patch");
  }

  /** Replaces the description (a JSON Patch `replace /description`). */
  async setDescription(wsId: string, name: string, description: string): Promise<Flag> {
    return this.patch(wsId, name, [{ op: "replace", path: "/description", value: description }]);
  }

  /** Replaces the tags with these names (a JSON Patch `replace /tags`; tags are `[{name}]`, ref §9.1). */
  async setTags(wsId: string, name: string, tags: readonly string[]): Promise<Flag> {
    return this.patch(wsId, name, [{ op: "replace", path: "/tags", value: tags.map((t) => ({ name: t })) }]);
  }

  /** Moves the flag to another rollout status (spec §3; `rolloutStatusTimestamp` moves with it). */
  async setRolloutStatus(wsId: string, name: string, rolloutStatusId: string): Promise<Flag> {
    return this.patch(wsId, name, [{ op: "replace", path: "/rolloutStatus/id", value: rolloutStatusId }]);
  }

  /**
   * Deletes the flag and every environment definition of it (spec §3).
   * @returns `true`, the service's answer.
   */
  async delete(wsId: string, name: string): Promise<true> {
    return this.request(E.flags.delete, { wsId, flag: name });
  }
}

/** Per-environment flag definitions (spec §4 "Flag definitions"). */
export class DefinitionsApi extends AdminApiPart {
  /**
   * The definition of a flag (name or id) in an environment (id or name).
   * @throws NotFoundError when the flag has no definition there (spec §7).
   * @example
   * const def = await admin.definitions.get(ws.id, flag.id, "Production");
   */
  async get(wsId: string, flagNameOrId: string, envIdOrName: string): Promise<Definition> {
    return this.request(E.definitions.get, { wsId, flag: flagNameOrId, environment: envIdOrName });
  }

  /** Every definition in one environment (ref §1.1). */
  list(wsId: string, envIdOrName: string, options: { pageSize?: number } = {}): AsyncIterable<Definition> {
    const params = { wsId, environment: envIdOrName };
    return this.offsetPages(E.definitions.list, params, options.pageSize, LIMITS.flagsMax);
  }

  /**
   * Creates the definition of a flag in an environment. The body is checked first: field shapes,
   * bucket sums of 100, known treatments (ref §2); `title` and `comment` go in the body.
   * @example
   * await admin.definitions.create(ws.id, "new-checkout", "Production", {
   *   treatments: [{ name: "on" }, { name: "off" }],
   *   defaultTreatment: "off",
   *   defaultRule: [{ treatment: "off", size: 100 }],
   * });
   */
  async create(
    wsId: string,
    flagName: string,
    envIdOrName: string,
    body: DefinitionBody,
  ): Promise<Definition> {
    const parsed = checkDefinition(body, E.definitions.create);
    return this.request(E.definitions.create, place(wsId, flagName, envIdOrName), { body: parsed });
  }

  /** Replaces the whole definition (ref §2: PUT is a full replace; omitted rules become `[]`). */
  async put(wsId: string, flagName: string, envIdOrName: string, body: DefinitionBody): Promise<Definition> {
    const parsed = checkDefinition(body, E.definitions.put);
    return this.request(E.definitions.put, place(wsId, flagName, envIdOrName), { body: parsed });
  }

  /**
   * Applies a JSON Patch to the definition; `title` and `comment` travel as query parameters
   * (spec §4). Without them, a workspace that requires them answers 400 with an empty body, which
   * becomes an ApiError saying so.
   * @example
   * await admin.definitions.patch(ws.id, "new-checkout", "Production",
   *   [{ op: "replace", path: "/defaultRule", value: [{ treatment: "on", size: 100 }] }],
   *   { title: "Full rollout", comment: "metrics are green" });
   */
  async patch(
    wsId: string,
    flagName: string,
    envIdOrName: string,
    ops: JsonPatch,
    note?: ChangeNote,
  ): Promise<Definition> {
    const parsed = parseInput(JsonPatch, ops, E.definitions.patch, "JSON Patch");
    return this.request(E.definitions.patch, place(wsId, flagName, envIdOrName), {
      body: parsed,
      ...noted(note),
    });
  }

  /** Removes the definition from the environment (`title`/`comment` as query parameters, ref §2). */
  async delete(wsId: string, flagName: string, envIdOrName: string, note?: ChangeNote): Promise<true> {
    return this.request(E.definitions.delete, place(wsId, flagName, envIdOrName), noted(note));
  }

  /** Kills the flag in the environment: everyone gets the default treatment (ref §1.1). */
  async kill(wsId: string, flagName: string, envIdOrName: string, note?: ChangeNote): Promise<Definition> {
    return this.request(E.definitions.kill, place(wsId, flagName, envIdOrName), noted(note));
  }

  /** Undoes {@link kill} (ref §1.1). */
  async restore(wsId: string, flagName: string, envIdOrName: string, note?: ChangeNote): Promise<Definition> {
    return this.request(E.definitions.restore, place(wsId, flagName, envIdOrName), noted(note));
  }
}

/** The path parameters of one flag's definition in one environment. */
function place(wsId: string, flag: string, environment: string) {
  return { wsId, flag, environment };
}

function checkDefinition(body: DefinitionBody, r: (typeof E.definitions)["create" | "put"]) {
  const parsed = parseInput(DefinitionBody, body, r, "definition");
  const problems = validateDefinition(parsed);
  if (problems.length > 0) throw invalidInput(r, "definition", problems);
  return parsed;
}

/** Users: invited, never created (spec §1, §4 "Users"). */
export class UsersApi extends AdminApiPart {
  /**
   * Invites a user by e-mail; the user is PENDING until they accept (spec §3).
   * @example
   * const user = await admin.users.invite({ email: "ana@example.com", groups: [{ id: group.id, type: "group" }] });
   */
  async invite(body: UserInviteBody): Promise<User> {
    return this.send(E.users.invite, {}, UserInviteBody, body);
  }

  /**
   * Every user the key can see, following `nextMarker` (spec §4).
   * @param filter.pageSize Users per request, 1 to 200 (default 200).
   * @example
   * for await (const u of admin.users.list({ status: "PENDING" })) console.log(u.email);
   */
  list(filter: { status?: UserStatus; groupId?: string; pageSize?: number } = {}): AsyncIterable<User> {
    const limit = checkPageSize(
      filter.pageSize,
      LIMITS.usersMax,
      LIMITS.usersMax,
      "GET",
      E.users.list.template,
    );
    return walkMarkerPages((after) =>
      this.request(
        E.users.list,
        {},
        { query: { status: filter.status, group_id: filter.groupId, limit, after } },
      ),
    );
  }

  /**
   * A user by id.
   * @throws NotFoundError when there is no such user.
   */
  async get(id: string): Promise<User> {
    return this.request(E.users.get, { userId: id });
  }

  /**
   * Replaces a user: every property must be sent (spec §4). Deactivate with `status: "DEACTIVATED"`.
   * @example
   * await admin.users.put(u.id, { email: u.email, name: u.name, status: "DEACTIVATED", "2fa": u["2fa"], type: "user" });
   */
  async put(id: string, body: UserPutBody): Promise<User> {
    return this.send(E.users.put, { userId: id }, UserPutBody, body);
  }

  /** Applies a JSON Patch (group membership, spec §4); returns the full user. */
  async patch(id: string, ops: JsonPatch): Promise<User> {
    return this.send(E.users.patch, { userId: id }, JsonPatch, ops, "JSON Patch");
  }

  /** Adds the user to a group: `add /groups/0 {id, type: "group"}` (spec §4). */
  async addToGroup(id: string, groupId: string): Promise<User> {
    return this.patch(id, [{ op: "add", path: "/groups/0", value: { id: groupId, type: "group" } }]);
  }

  /**
   * Removes the user from a group (ref §5: a `test` of `/groups/<i>/id`, then `remove /groups/<i>`;
   * the test makes a concurrent change fail instead of removing the wrong group). Returns the user
   * unchanged, without a PATCH, when they are not a member.
   */
  async removeFromGroup(id: string, groupId: string): Promise<User> {
    const user = await this.get(id);
    const i = (user.groups ?? []).findIndex((g) => g.id === groupId);
    if (i < 0) return user;
    return this.patch(id, [
      { op: "test", path: `/groups/${i}/id`, value: groupId },
      { op: "remove", path: `/groups/${i}` },
    ]);
  }

  /**
   * Deletes a PENDING user (an open invitation).
   * @throws ApiError 400 for an ACTIVE user: deactivate with {@link put} instead (spec §3).
   */
  async delete(id: string): Promise<true> {
    return this.request(E.users.delete, { userId: id });
  }
}

/** Groups (spec §4 "Groups"); names are unique per account. */
export class GroupsApi extends AdminApiPart {
  /**
   * Every group, page after page.
   * @param options.pageSize Groups per request, 1 to 200 (default 200).
   * @example
   * for await (const g of admin.groups.list({ pageSize: 50 })) console.log(g.name);
   */
  list(options: { pageSize?: number } = {}): AsyncIterable<Group> {
    return this.offsetPages(E.groups.list, {}, options.pageSize, LIMITS.groupsMax);
  }

  /**
   * A group by id (ref §1.1).
   * @throws NotFoundError when there is no such group.
   */
  async get(id: string): Promise<Group> {
    return this.request(E.groups.get, { groupId: id });
  }

  /** The group with exactly this name, or `undefined`. */
  async getByName(name: string): Promise<Group | undefined> {
    for await (const g of this.list()) if (g.name === name) return g;
    return undefined;
  }

  /**
   * Creates a group.
   * @throws ConflictError when the name is taken.
   * @example
   * const g = await admin.groups.create({ name: "release-managers", description: "may ramp flags" });
   */
  async create(body: GroupCreate): Promise<Group> {
    return this.send(E.groups.create, {}, GroupCreate, body);
  }

  /** Replaces a group's name and description; sends `{id, name, description, type}` (spec §4). */
  async put(id: string, body: GroupPut): Promise<Group> {
    const parsed = parseInput(GroupPut, body, E.groups.put, "request body");
    if (parsed.id !== undefined && parsed.id !== id) {
      throw invalidInput(E.groups.put, "request body", [
        { path: ["id"], message: `id must equal the group id in the path (${id})` },
      ]);
    }
    return this.request(
      E.groups.put,
      { groupId: id },
      { body: { id, name: parsed.name, description: parsed.description, type: "group" } },
    );
  }

  /** Deletes a group; returns `true`. */
  async delete(id: string): Promise<true> {
    return this.request(E.groups.delete, { groupId: id });
  }
}

/**
 * Client of the feature-flag admin API.
 *
 * One instance per key is enough; instances for the same base URL and settings share one
 * keep-alive connection pool and one rate limiter, process-wide.
 *
 * @example
 * import { AdminClient } from "flagstack";
 * const admin = new AdminClient({ baseUrl: "http://127.0.0.1:8080", apiKey: process.env.ADMIN_KEY });
 * const ws = await admin.workspaces.getByName("Default");
 * const flag = await admin.flags.create(ws!.id, "user", { name: "new-checkout", description: "" });
 * for await (const user of admin.users.list({ status: "ACTIVE" })) console.log(user.email);
 */
export class AdminClient {
  /** Workspaces (projects). */
  readonly workspaces: WorkspacesApi;
  /** Environments of a workspace. */
  readonly environments: EnvironmentsApi;
  /** Traffic types of a workspace. */
  readonly trafficTypes: TrafficTypesApi;
  /** Rollout statuses. */
  readonly rolloutStatuses: RolloutStatusesApi;
  /** Flags at workspace level. */
  readonly flags: FlagsApi;
  /** Per-environment definitions, kill and restore. */
  readonly definitions: DefinitionsApi;
  /** Users: invite, list, read, replace, patch, delete. */
  readonly users: UsersApi;
  /** Groups. */
  readonly groups: GroupsApi;
  /** API keys: create (the value is answered once), revoke. */
  readonly apiKeys: ApiKeysApi;
  /** Attributes of a traffic type. */
  readonly attributes: AttributesApi;
  /** Segments of a workspace. */
  readonly segments: SegmentsApi;
  /** A segment's activation and members per environment. */
  readonly segmentKeys: SegmentKeysApi;
  /** Flag sets of a workspace (v3). */
  readonly flagSets: FlagSetsApi;
  /** Large segments of a workspace and their activation per environment. */
  readonly largeSegments: LargeSegmentsApi;
  /** Rule-based segments of a workspace and their definitions per environment. */
  readonly ruleBasedSegments: RuleBasedSegmentsApi;
  /** Change requests of approval-gated environments: submit, list, approve, reject, withdraw. */
  readonly changeRequests: ChangeRequestsApi;
  /** Who may view a workspace: list, set. */
  readonly restrictions: RestrictionsApi;
  /** The HTTP core (for advanced use: `core.limiter`, `core.request(route, ...)`). */
  readonly core: HttpCore;

  /**
   * @param options Base URL (`FLAGSTACK_ADMIN_API_URL`), key (`FLAGSTACK_ADMIN_API_KEY`), rate
   *   limit (`FLAGSTACK_REQUESTS_PER_SECOND`, default 10), retries, timeouts, dispatcher.
   * @throws ConfigurationError naming a missing or invalid option and its environment variable.
   */
  constructor(options: AdminClientOptions = {}) {
    const { apiKey, adminAuth, ...common } = options;
    const resolved = resolveCommonOptions(common, apiKey, {
      client: "AdminClient",
      urlEnv: "FLAGSTACK_ADMIN_API_URL",
      keyOption: "apiKey",
      keyEnv: "FLAGSTACK_ADMIN_API_KEY",
      defaultRequestsPerSecond: 10,
    });
    const mode = resolveAdminAuth(adminAuth, resolved.env, resolved.key);
    this.core = new HttpCore({
      options: resolved,
      auth: adminAuthHeader(mode, resolved.key),
      authHint: adminAuthHint(mode),
      routePrefix: ADMIN_PREFIX,
    });
    this.workspaces = new WorkspacesApi(this.core);
    this.environments = new EnvironmentsApi(this.core);
    this.trafficTypes = new TrafficTypesApi(this.core);
    this.rolloutStatuses = new RolloutStatusesApi(this.core);
    this.flags = new FlagsApi(this.core);
    this.definitions = new DefinitionsApi(this.core);
    this.users = new UsersApi(this.core);
    this.groups = new GroupsApi(this.core);
    this.apiKeys = new ApiKeysApi(this.core);
    this.attributes = new AttributesApi(this.core);
    this.segments = new SegmentsApi(this.core);
    this.segmentKeys = new SegmentKeysApi(this.core);
    this.flagSets = new FlagSetsApi(this.core);
    this.largeSegments = new LargeSegmentsApi(this.core);
    this.ruleBasedSegments = new RuleBasedSegmentsApi(this.core);
    this.changeRequests = new ChangeRequestsApi(this.core);
    this.restrictions = new RestrictionsApi(this.core);
  }
}

/** `title` and `comment` of a definition change, as query parameters (ref admin §2). */
function noted(note: ChangeNote = {}): { query: { title: string | undefined; comment: string | undefined } } {
  return { query: { title: note.title, comment: note.comment } };
}
