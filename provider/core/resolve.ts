/**
 * Resolution of the names a program uses (workspace, environment, traffic type, rollout status,
 * group) to the service's objects, shared by the flag resources and the program-side lookups.
 *
 * Lists of workspaces, environments, traffic types and rollout statuses change rarely, so each is
 * loaded once per provider process and client (`memo`); a name missing from a cached list loads
 * the list again before failing, so an object created earlier in the same deployment is found. An
 * unknown name fails with the list of valid ones.
 * @module
 */

import type { AdminClient } from "../../sdk/admin/client";
import type { Environment, Group, RolloutStatus, TrafficType, Workspace } from "../../sdk/admin/schemas";
import { forget, memo } from "./config";

/** Thrown when a name matches nothing; the message lists what exists. */
export class NotFoundByName extends Error {
  constructor(
    readonly kind: string,
    readonly wanted: string,
    readonly valid: readonly string[],
    where = "",
  ) {
    super(
      `${kind} "${wanted}" not found${where}; ${valid.length === 0 ? "there are none" : `valid ${kind === "rollout status" ? "rollout statuses" : `${kind}s`}: ${valid.map((v) => `"${v}"`).join(", ")}`}`,
    );
    this.name = "NotFoundByName";
  }
}

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

async function findIn<T extends { id: string; name: string }>(
  admin: AdminClient,
  key: string,
  load: () => Promise<T[]>,
  wanted: string,
  kind: string,
  where = "",
): Promise<T> {
  const match = (list: T[]) => list.find((x) => x.id === wanted) ?? list.find((x) => x.name === wanted);
  let list = await memo(admin, key, load);
  let found = match(list);
  if (!found) {
    forget(admin, key);
    list = await memo(admin, key, load);
    found = match(list);
  }
  if (!found)
    throw new NotFoundByName(
      kind,
      wanted,
      list.map((x) => x.name),
      where,
    );
  return found;
}

/** `<organization>/<project>`: two Harness identifiers (platform ref §3). */
const HARNESS_PROJECT = /^([a-zA-Z_][0-9a-zA-Z_$]{0,127})\/([a-zA-Z_][0-9a-zA-Z_$]{0,127})$/;

/**
 * A workspace by name or id (the workspace list, all pages), or, for an account under Harness, by
 * its Harness organization and project as `<org>/<project>` (`default/payments`): when no
 * workspace has that name or id, the service is asked for the workspace of that project
 * (admin ref §1.2, `GET /workspaces?organizationIdentifier=&projectIdentifier=`).
 */
export async function resolveWorkspace(admin: AdminClient, nameOrId: string): Promise<Workspace> {
  const byName = () =>
    findIn(admin, "workspaces", () => collect(admin.workspaces.list()), nameOrId, "workspace");
  const harness = HARNESS_PROJECT.exec(nameOrId);
  if (harness === null) return byName();
  try {
    return await byName();
  } catch (e) {
    if (!(e instanceof NotFoundByName)) throw e;
    const [, org, project] = harness as unknown as [string, string, string];
    const linked = await memo(admin, `workspaces:harness:${org}/${project}`, () =>
      admin.workspaces.getByHarnessProject(org, project),
    );
    if (linked) return linked;
    forget(admin, `workspaces:harness:${org}/${project}`);
    throw new NotFoundByName(
      "workspace",
      nameOrId,
      e.valid,
      ` (nor a workspace of Harness organization "${org}" and project "${project}")`,
    );
  }
}

/** A lookup, by name or id, of something a workspace lists. */
type InWorkspace<T> = (admin: AdminClient, workspace: Workspace, nameOrId: string) => Promise<T>;

/** Resolves a `kind` by name or id among what `list` returns for the workspace (memoised per workspace). */
function inWorkspace<T extends { id: string; name: string }>(
  kind: string,
  memoKey: string,
  list: (admin: AdminClient, workspaceId: string) => Promise<T[]>,
): InWorkspace<T> {
  return (admin, workspace, nameOrId) =>
    findIn(
      admin,
      `${memoKey}:${workspace.id}`,
      () => list(admin, workspace.id),
      nameOrId,
      kind,
      ` in workspace "${workspace.name}"`,
    );
}

/** The memo key of a workspace's environment list ({@link workspaceEnvironments}). */
export const environmentsKey = (workspaceId: string): string => `environments:${workspaceId}`;

/** Every environment of a workspace: the list {@link resolveEnvironment} reads, memoised with it. */
export function workspaceEnvironments(admin: AdminClient, workspaceId: string): Promise<Environment[]> {
  return memo(admin, environmentsKey(workspaceId), () => admin.environments.list(workspaceId));
}

/** An environment of a workspace by name or id. */
export const resolveEnvironment: InWorkspace<Environment> = inWorkspace(
  "environment",
  "environments",
  (a, ws) => a.environments.list(ws),
);

/** A traffic type of a workspace by name or id. */
export const resolveTrafficType: InWorkspace<TrafficType> = inWorkspace(
  "traffic type",
  "trafficTypes",
  (a, ws) => a.trafficTypes.list(ws),
);

/** A rollout status of a workspace by name or id. */
export const resolveRolloutStatus: InWorkspace<RolloutStatus> = inWorkspace(
  "rollout status",
  "rolloutStatuses",
  (a, ws) => a.rolloutStatuses.list(ws),
);

/**
 * Groups by name or id, in the order given: one paged read of the group list, shared by the
 * resources of a deployment; a name missing from it (a group created earlier in the same
 * deployment) reloads the list once before failing.
 */
export async function resolveGroups(admin: AdminClient, namesOrIds: readonly string[]): Promise<Group[]> {
  if (namesOrIds.length === 0) return [];
  const load = () => collect(admin.groups.list());
  const match = (all: Group[], wanted: string) =>
    all.find((g) => g.id === wanted) ?? all.find((g) => g.name === wanted);
  let all = await memo(admin, "groups", load);
  if (namesOrIds.some((w) => !match(all, w))) {
    forget(admin, "groups");
    all = await memo(admin, "groups", load);
  }
  return namesOrIds.map((wanted) => {
    const found = match(all, wanted);
    if (!found)
      throw new NotFoundByName(
        "group",
        wanted,
        all.map((g) => g.name),
      );
    return found;
  });
}

/** Forgets the memoised group list (after a group is created, renamed or deleted). */
export function forgetGroups(admin: AdminClient): void {
  forget(admin, "groups");
}
