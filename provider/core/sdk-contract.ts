/**
 * TEMPORARY: the SDK client surface the provider uses, as written in the helper brief's contract,
 * until `sdk/index.ts` lands. Replaced by `import type { AdminClient, PlatformClient } from "../../sdk"`
 * as soon as it exists; nothing outside `provider/core/config.ts` imports this file.
 * @module
 */
import type {
  Definition,
  DefinitionBody,
  Environment,
  Flag,
  Group,
  GroupCreate,
  GroupPut,
  JsonPatch,
  RolloutStatus,
  TrafficType,
  User,
  UserPutBody,
  UserStatus,
  Workspace,
} from "../../sdk/admin/schemas";

/** The admin client's constructor options. */
export interface AdminClientOptions {
  baseUrl: string;
  apiKey: string;
  requestsPerSecond?: number;
  maxRetries?: number;
}

/** The admin client (brief contract). */
export interface AdminClient {
  workspaces: {
    list(): AsyncIterable<Workspace>;
    getByName(name: string): Promise<Workspace | undefined>;
  };
  environments: { list(wsId: string): Promise<Environment[]> };
  trafficTypes: { list(wsId: string): Promise<TrafficType[]> };
  rolloutStatuses: { list(wsId: string): Promise<RolloutStatus[]> };
  flags: {
    create(wsId: string, trafficTypeName: string, body: { name: string; description?: string }): Promise<Flag>;
    get(wsId: string, nameOrId: string): Promise<Flag>;
    list(wsId: string, filter?: { name?: string; tag?: string }): AsyncIterable<Flag>;
    patch(wsId: string, name: string, ops: JsonPatch): Promise<Flag>;
    delete(wsId: string, name: string): Promise<true>;
  };
  definitions: {
    get(wsId: string, flagNameOrId: string, envIdOrName: string): Promise<Definition>;
    create(wsId: string, flagName: string, envIdOrName: string, body: DefinitionBody): Promise<Definition>;
    patch(
      wsId: string,
      flagName: string,
      envIdOrName: string,
      ops: JsonPatch,
      note?: { title?: string; comment?: string },
    ): Promise<Definition>;
    delete(wsId: string, flagName: string, envIdOrName: string, note?: { title?: string; comment?: string }): Promise<true>;
    kill(wsId: string, flagName: string, envIdOrName: string): Promise<unknown>;
    restore(wsId: string, flagName: string, envIdOrName: string): Promise<unknown>;
  };
  users: {
    invite(body: { email: string; groups: { id: string; type: "group" }[] }): Promise<User>;
    list(filter?: { status?: UserStatus; groupId?: string; pageSize?: number }): AsyncIterable<User>;
    get(id: string): Promise<User>;
    put(id: string, body: UserPutBody): Promise<User>;
    patch(id: string, ops: JsonPatch): Promise<User>;
    delete(id: string): Promise<unknown>;
  };
  groups: {
    list(opts?: { pageSize?: number }): AsyncIterable<Group>;
    get(id: string): Promise<Group>;
    getByName(name: string): Promise<Group | undefined>;
    create(body: GroupCreate): Promise<Group>;
    put(id: string, body: GroupPut): Promise<Group>;
    delete(id: string): Promise<true>;
  };
}

/** The platform client's constructor options. */
export interface PlatformClientOptions {
  baseUrl: string;
  apiKey: string;
  accountId: string;
  requestsPerSecond?: number;
  maxRetries?: number;
}

/** The platform client (brief contract); its methods are typed by the platform helper's use. */
export interface PlatformClient {
  projects: Record<string, (...args: never[]) => Promise<unknown>>;
  connectors: Record<string, (...args: never[]) => Promise<unknown>>;
  pipelines: Record<string, (...args: never[]) => Promise<unknown>>;
}

/** The module `sdk/index.ts` will be. */
export interface SdkModule {
  AdminClient: new (options: AdminClientOptions) => AdminClient;
  PlatformClient: new (options: PlatformClientOptions) => PlatformClient;
}
