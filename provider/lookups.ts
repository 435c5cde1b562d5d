/**
 * Program-side lookups of the feature-flag account: functions a Pulumi program calls to read
 * objects it does not manage (a workspace, an environment, a rollout status, a traffic type, a
 * group, users). Each returns a Promise of plain data; an unknown name fails with the list of valid
 * names.
 *
 * Credentials come from the stack config (`flagstack:adminApiUrl`, `flagstack:adminApiKey`,
 * `flagstack:adminAuth`) read with `new pulumi.Config("flagstack")`, else from
 * `FLAGSTACK_ADMIN_API_URL` / `FLAGSTACK_ADMIN_API_KEY` / `FLAGSTACK_ADMIN_AUTH`; `options`
 * overrides both. These run in the program's process, not the
 * provider's, so nothing of them is serialized.
 * @module
 */
import { z } from "zod";
import type { AdminAuth } from "../sdk/admin/auth";
import type { AdminClient } from "../sdk/admin/client";
import type { LargeSegment } from "../sdk/admin/large-segment";
import type { RuleBasedSegment } from "../sdk/admin/rule-based-segment";
import {
  type Environment,
  type FlagSet,
  type Group,
  type RolloutStatus,
  type TrafficType,
  type User,
  UserStatus,
  type Workspace,
} from "../sdk/admin/schemas";
import type { Segment } from "../sdk/admin/segment";
import { adminClient, forget, memo } from "./core/config";
import { lookupArgs, lookupSettings } from "./core/lookup";
import {
  NotFoundByName,
  resolveEnvironment,
  resolveGroups,
  resolveRolloutStatus,
  resolveTrafficType,
  resolveWorkspace,
} from "./core/resolve";
import { findInWorkspace } from "./core/workspace-fields";

/** Where a lookup reads from; every member is optional (see the module notes for the defaults). */
export interface LookupOptions {
  /** Base URL of the admin API. */
  adminApiUrl?: string;
  /** Admin API key, or a Harness token. */
  adminApiKey?: string;
  /** How the key is sent: `bearer` or `x-api-key` (a Harness token); default by the key's shape. */
  adminAuth?: AdminAuth;
  /** A client to use instead (tests, or a program that already has one). */
  client?: AdminClient;
}

function clientFor(options: LookupOptions = {}): AdminClient {
  return options.client ?? adminClient(lookupSettings(options, ["adminApiUrl", "adminApiKey", "adminAuth"]));
}

const name = z.string().min(1, "must not be empty");

/** Arguments of {@link getWorkspace}. */
export const GetWorkspaceArgs = z.strictObject({
  /** The workspace's name or id. */
  name,
});
/** Arguments of {@link getEnvironment}, {@link getRolloutStatus} and {@link getTrafficType}. */
export const InWorkspaceArgs = z.strictObject({
  /** The workspace, by name or id. */
  workspace: name,
  /** The object's name or id in that workspace. */
  name,
});
/** Arguments of {@link getGroup}. */
export const GetGroupArgs = z.strictObject({
  /** The group's name or id. */
  name,
});
/** Arguments of {@link getUsers}. */
export const GetUsersArgs = z.strictObject({
  /** Only the users of this status (`ACTIVE`, `DEACTIVATED`, `PENDING`). Default: every status. */
  status: UserStatus.optional(),
  /** Only the members of this group, by name or id. Default: every user. */
  group: name.optional(),
});

/**
 * A workspace (project) by name or id.
 *
 * @example
 * ```ts
 * const ws = await getWorkspace({ name: "Default" });   // { id, name, type, requiresTitleAndComments }
 * ```
 */
export async function getWorkspace(
  args: z.input<typeof GetWorkspaceArgs>,
  options?: LookupOptions,
): Promise<Workspace> {
  const { name } = lookupArgs(GetWorkspaceArgs, args, "getWorkspace");
  return resolveWorkspace(clientFor(options), name);
}

/** A lookup of something that lives in a workspace, by the workspace and its own name or id. */
export type InWorkspaceLookup<T> = (
  args: z.input<typeof InWorkspaceArgs>,
  options?: LookupOptions,
) => Promise<T>;

/** The lookup `fn` (for messages): parses its arguments, resolves the workspace, then the object. */
function inWorkspace<T>(
  fn: string,
  resolve: (admin: AdminClient, workspace: Workspace, name: string) => Promise<T>,
): InWorkspaceLookup<T> {
  return async (args, options) => {
    const a = lookupArgs(InWorkspaceArgs, args, fn);
    const admin = clientFor(options);
    return resolve(admin, await resolveWorkspace(admin, a.workspace), a.name);
  };
}

/**
 * An environment of a workspace by name or id.
 *
 * @example
 * ```ts
 * const prod = await getEnvironment({ workspace: "Default", name: "Production" });   // { id, name, production }
 * ```
 */
export const getEnvironment: InWorkspaceLookup<Environment> = inWorkspace(
  "getEnvironment",
  resolveEnvironment,
);

/**
 * A rollout status of a workspace by name or id.
 *
 * @example
 * ```ts
 * const ramping = await getRolloutStatus({ workspace: "Default", name: "Ramping" });   // { id, name, description }
 * ```
 */
export const getRolloutStatus: InWorkspaceLookup<RolloutStatus> = inWorkspace(
  "getRolloutStatus",
  resolveRolloutStatus,
);

/**
 * A traffic type of a workspace by name or id.
 *
 * @example
 * ```ts
 * const account = await getTrafficType({ workspace: "Default", name: "account" });   // { id, name }
 * ```
 */
export const getTrafficType: InWorkspaceLookup<TrafficType> = inWorkspace(
  "getTrafficType",
  resolveTrafficType,
);

/**
 * A group by name or id.
 *
 * @example
 * ```ts
 * const admins = await getGroup({ name: "Administrators" });   // { id, name, description, type }
 * ```
 */
export async function getGroup(args: z.input<typeof GetGroupArgs>, options?: LookupOptions): Promise<Group> {
  const a = lookupArgs(GetGroupArgs, args, "getGroup");
  const [group] = await resolveGroups(clientFor(options), [a.name]);
  return group as Group;
}

/**
 * Users of the account, every page, optionally only those with a status and / or in a group (by
 * name or id).
 *
 * @example
 * ```ts
 * const pending = await getUsers({ status: "PENDING" });
 * const reviewers = await getUsers({ group: "flag-reviewers" });
 * ```
 */
export async function getUsers(
  args: z.input<typeof GetUsersArgs> = {},
  options?: LookupOptions,
): Promise<User[]> {
  const a = lookupArgs(GetUsersArgs, args, "getUsers");
  const admin = clientFor(options);
  let groupId: string | undefined;
  if (a.group !== undefined) [{ id: groupId }] = (await resolveGroups(admin, [a.group])) as [Group];
  const users: User[] = [];
  for await (const user of admin.users.list({
    ...(a.status !== undefined ? { status: a.status } : {}),
    ...(groupId !== undefined ? { groupId } : {}),
  })) {
    users.push(user);
  }
  return users;
}

/**
 * A lookup in a workspace's list, answered from one fetch of the list per workspace and client
 * for every call of the program (the list memoised for `MEMO_TTL_MS`, concurrent calls
 * sharing one fetch, as `getWorkspace` and `getEnvironment` are): a program that looks up many
 * segments of a workspace reads its list once. A name the list misses is looked for once more in a
 * fresh list before it fails (one made since).
 */
function listedInWorkspace<T extends { name: string; id?: string }>(
  kind: string,
  list: (admin: AdminClient, wsId: string) => AsyncIterable<T>,
): (admin: AdminClient, ws: Workspace, wanted: string) => Promise<T> {
  return async (admin, ws, wanted) => {
    const key = `lookup ${kind}s of workspace ${ws.id}`;
    const load = async () => {
      const all: T[] = [];
      for await (const item of list(admin, ws.id)) all.push(item);
      return all;
    };
    const find = async () => {
      const all = await memo(admin, key, load);
      return findInWorkspace(
        kind,
        ws,
        wanted,
        (async function* () {
          yield* all;
        })(),
      );
    };
    try {
      return await find();
    } catch (e) {
      if (!(e instanceof NotFoundByName)) throw e;
      forget(admin, key);
      return find();
    }
  };
}

/**
 * A segment of a workspace by name.
 *
 * @example
 * ```ts
 * const beta = await getSegment({ workspace: "Default", name: "beta_testers" });   // { name, description, trafficType, creationTime, tags }
 * ```
 */
export const getSegment: InWorkspaceLookup<Segment> = inWorkspace(
  "getSegment",
  listedInWorkspace("segment", (admin, wsId) => admin.segments.list(wsId)),
);

/**
 * A flag set of a workspace by name or id.
 *
 * @example
 * ```ts
 * const web = await getFlagSet({ workspace: "Default", name: "web" });   // { id, name, description, workspace, createdAt, type }
 * ```
 */
export const getFlagSet: InWorkspaceLookup<FlagSet> = inWorkspace(
  "getFlagSet",
  listedInWorkspace("flag set", (admin, wsId) => admin.flagSets.list(wsId)),
);

/**
 * A large segment of a workspace by name.
 *
 * @example
 * ```ts
 * const devices = await getLargeSegment({ workspace: "Default", name: "all_devices" });   // { name, description, trafficType, creationTime, tags }
 * ```
 */
export const getLargeSegment: InWorkspaceLookup<LargeSegment> = inWorkspace(
  "getLargeSegment",
  listedInWorkspace("large segment", (admin, wsId) => admin.largeSegments.list(wsId)),
);

/**
 * A rule-based segment of a workspace by name.
 *
 * @example
 * ```ts
 * const heavy = await getRuleBasedSegment({ workspace: "Default", name: "heavy_buyers" });   // { name, description, trafficType, creationTime, tags }
 * ```
 */
export const getRuleBasedSegment: InWorkspaceLookup<RuleBasedSegment> = inWorkspace(
  "getRuleBasedSegment",
  listedInWorkspace("rule-based segment", (admin, wsId) => admin.ruleBasedSegments.list(wsId)),
);

export { NotFoundByName };
