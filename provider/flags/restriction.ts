/**
 * `Restriction`: who may view a feature-flag workspace (ref admin §1.1 "restrictions": workspace
 * view only; the shapes of Split's official Python client `splitapiclient` 3.5.9,
 * `microclients/restriction_microclient.py` and `resources/restriction.py`, see
 * `../../sdk/admin/restriction.ts`). A workspace has one restriction, set whole by a PUT.
 *
 * | verb | API call |
 * |---|---|
 * | check | none: the zod schema below (viewers are users and groups by id, a set; `view: false` with no viewers is refused, naming `view`: that is no restriction) |
 * | diff | none: compares `view` and `viewers` (as a set); a new `workspace` replaces |
 * | create | the workspace list (once per process); `GET /restrictions?resource_type=workspace&resource_id={ws}`, then `PUT /restrictions {resource: {id, type: "workspace"}, operations: {view}, resourcePermissions: {view: [{id, type}]}}`; a workspace already restricted otherwise fails unless `adopt` |
 * | read | `GET /restrictions?resource_type=workspace&resource_id={ws}`; none, an open one (`view: false`, no viewers) or a 404 of the workspace reports it gone |
 * | update | the read, compared with the recorded state (`./core/guard.ts`), then `PUT /restrictions` of the whole: the changed fields desired, the rest live |
 * | delete | `PUT /restrictions` with `view: false` and no viewers (the API has no DELETE: the workspace is open to everyone again); a 404 of the workspace counts as done |
 *
 * The resource id is the workspace's id: the restriction is the workspace's, one at most, and a
 * PUT sets it whole, so a create whose answer was lost is sent again (a PUT is idempotent) and a
 * restriction equal to the declared one is taken over with no write (a lost answer leaves exactly
 * that).
 * @module
 */
import { z } from "zod";
import type { AdminClient } from "../../sdk/admin/client";
import type { Restriction as RestrictionResponse } from "../../sdk/admin/restriction";
import { adminClient } from "../core/config";
import { canonicalJson, type DiffSpec } from "../core/diff";
import { door } from "../core/door";
import { guardedUpdate } from "../core/guard";
import { defineKind, type ImportId, kindToken } from "../core/kind";
import { AlreadyExistsError, createOrAdopt, deleteIdempotent, GONE, readOrGone } from "../core/lifecycle";
import { resolveWorkspace } from "../core/resolve";
import { dataVerbs, plain, type ResourceArgs, type ResourceHandlers, resourceClass } from "../core/resource";
import { workspaceRule } from "../core/workspace-fields";

/** Who a restriction lets view the workspace: a user or a group, by id. */
export const Viewer = z.strictObject({
  /** `user` or `group`. */
  type: z.enum(["user", "group"], { error: "type must be user or group" }),
  /** The user's or group's id (`Group.groupId`, `UserInvite.userId`). */
  id: z.string({ error: "id must be a string" }).min(1, "id must not be empty"),
});
/** A viewer. */
export type Viewer = z.output<typeof Viewer>;

/** Viewers as one canonical list: sorted by type and id, without repetitions. */
function viewerSet(viewers: readonly Viewer[] | undefined): Viewer[] {
  const byKey = new Map((viewers ?? []).map((v) => [`${v.type}\u0000${v.id}`, { type: v.type, id: v.id }]));
  return [...byKey.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, v]) => v);
}

/** The inputs of a {@link Restriction}. */
export const RestrictionInputs = z.strictObject({
  /** The workspace (project) whose view is restricted, by name or id. Changing it replaces the restriction. */
  workspace: z.string({ error: "workspace must be a string" }).min(1, "workspace must not be empty"),
  /**
   * Whether the workspace's view is restricted to `viewers` (the API's `operations.view`).
   * Default: true. `false` keeps the viewers but lets everyone view.
   */
  view: z.boolean({ error: "view must be a boolean" }).default(true),
  /** The users and groups who may view the workspace, a set (order and repetitions make no change). Default: none. */
  viewers: z
    .array(Viewer, { error: "viewers must be a list of {type, id}" })
    .default([])
    .transform(viewerSet),
  /** Take over the workspace's existing restriction instead of failing. Default: false. */
  adopt: z.boolean().default(false),
});

/** The outputs of a {@link Restriction}: the inputs plus the service's ids. */
export const RestrictionOutputs = RestrictionInputs.extend({
  /** The restriction's id on the service. */
  restrictionId: z.string(),
  /** The workspace's id (also the resource id). */
  workspaceId: z.string(),
  /** The workspace's name. */
  workspaceName: z.string(),
});

/** Checked inputs of a restriction. */
export type RestrictionInputs = z.output<typeof RestrictionInputs>;
/** Outputs of a restriction. */
export type RestrictionOutputs = z.output<typeof RestrictionOutputs>;
/** The arguments of `new Restriction(...)`. */
export type RestrictionArgs = ResourceArgs<z.input<typeof RestrictionInputs>>;

/** Inputs whose change replaces a restriction: its workspace. */
export const restrictionReplaceOnChange = [
  "workspace",
] as const satisfies readonly (keyof RestrictionInputs)[];

const restrictionDiff: DiffSpec<Exclude<keyof RestrictionInputs, "adopt">> = {
  fields: ["workspace", "view", "viewers"],
  replaceOnChange: restrictionReplaceOnChange,
  rules: {
    workspace: workspaceRule,
    view: { normalize: (v) => v ?? true },
    viewers: { normalize: (v) => viewerSet(v as Viewer[] | undefined) },
  },
};

/** What deleting a restriction leaves, refused as a declaration: the workspace open to everyone. */
const OPEN =
  "view: false with no viewers is a workspace open to everyone, which is no restriction: remove the Restriction instead";

/** Whether a restriction restricts nothing (`view: false`, no viewers): the same as none. */
const isOpen = (r: { view: boolean; viewers: readonly unknown[] }) => !r.view && r.viewers.length === 0;

/** The fields of a restriction as the service answers it. */
function fields(r: RestrictionResponse): { view: boolean; viewers: Viewer[] } {
  return {
    view: r.operations.view,
    viewers: viewerSet(r.resourcePermissions.view.map((v) => ({ type: v.type, id: v.id }) as Viewer)),
  };
}

/** The workspace's restriction, or `undefined` when it has none or an open one. */
async function restrictionOf(
  admin: AdminClient,
  workspaceId: string,
): Promise<RestrictionResponse | undefined> {
  const r = await admin.restrictions.ofWorkspace(workspaceId);
  return r && !isOpen(fields(r)) ? r : undefined;
}

/** Sets the workspace's whole restriction. */
function put(admin: AdminClient, workspaceId: string, set: { view: boolean; viewers: readonly Viewer[] }) {
  return admin.restrictions.put({
    resource: { id: workspaceId, type: "workspace" },
    operations: { view: set.view },
    resourcePermissions: { view: set.viewers.map((v) => ({ id: v.id, type: v.type })) },
  });
}

function outputs(
  r: RestrictionResponse,
  workspace: { id: string; name: string },
  inputs: Pick<RestrictionInputs, "workspace" | "adopt">,
): RestrictionOutputs {
  return plain({
    workspace: inputs.workspace,
    ...fields(r),
    adopt: inputs.adopt,
    restrictionId: r.id,
    workspaceId: workspace.id,
    workspaceName: r.resource.name || workspace.name,
  });
}

const describe = (workspaceName: string) => `the restriction of workspace "${workspaceName}"`;

/** How a view and viewers read in a message: `view true, viewers group/g1, user/u2`. */
const shown = (r: { view: boolean; viewers: readonly Viewer[] }) =>
  `view ${r.view}, viewers ${r.viewers.length === 0 ? "none" : r.viewers.map((v) => `${v.type}/${v.id}`).join(", ")}`;

/** The restriction's natural key as an import id: its workspace, by name or id. */
const IMPORT_ID: ImportId = { form: "<workspace>", example: "Default" };

/**
 * The `read` of `pulumi import` (native provider), which has the id alone and no state: the id is
 * the restriction's natural key, its workspace by name or id (`Default`).
 */
async function importRestriction(
  importId: string,
): ReturnType<ResourceHandlers<RestrictionInputs, RestrictionOutputs>["read"]> {
  const workspace = await resolveWorkspace(adminClient(), importId);
  return impl.read(workspace.id, {
    workspace: importId,
    adopt: false,
    workspaceId: workspace.id,
    workspaceName: workspace.name,
  } as RestrictionOutputs);
}

/**
 * The provider: every lifecycle method. Each resource's `__provider` text
 * ({@link restrictionProviderText}) loads this object in the provider process; the tests call it directly.
 */
export const impl: ResourceHandlers<RestrictionInputs, RestrictionOutputs> = {
  ...dataVerbs(
    {
      schema: RestrictionInputs,
      validate: (inputs) => (isOpen(inputs) ? [{ path: ["view"], message: OPEN }] : []),
    },
    restrictionDiff,
  ),

  async create(inputs) {
    const admin = adminClient();
    const workspace = await resolveWorkspace(admin, inputs.workspace);
    const declared = { view: inputs.view, viewers: inputs.viewers };
    const same = (r: RestrictionResponse | undefined) =>
      r !== undefined && canonicalJson(fields(r)) === canonicalJson(declared) ? r : undefined;
    const existing = await restrictionOf(admin, workspace.id);
    // Another stack's or a person's restriction is never taken over silently, not even an equal
    // one (a destroy here would open the workspace under them); a PUT whose answer was lost is
    // found again by `createOrAdopt`'s look-up, a run killed after it by `flagstack recover`.
    if (existing !== undefined && !inputs.adopt) {
      const differs = same(existing) === undefined ? `, not ${shown(declared)}` : "";
      throw new AlreadyExistsError(describe(workspace.name), {
        detail: ` (${shown(fields(existing))})${differs}`,
      });
    }
    // Adopting an equal restriction writes nothing.
    const value =
      same(existing) ??
      (
        await createOrAdopt({
          describe: describe(workspace.name),
          lookup: async () => same(await restrictionOf(admin, workspace.id)),
          create: () => put(admin, workspace.id, declared),
        })
      ).value;
    return { id: workspace.id, outs: outputs(value, workspace, inputs) };
  },

  async read(id, props) {
    if (props?.workspaceId === undefined) return importRestriction(id);
    const r = await readOrGone(() => restrictionOf(adminClient(), props.workspaceId));
    if (!r) return GONE;
    const outs = outputs(r, { id: props.workspaceId, name: props.workspaceName }, props);
    const inputs = { workspace: outs.workspace, view: outs.view, viewers: outs.viewers, adopt: outs.adopt };
    return { id: props.workspaceId, props: outs, inputs };
  },

  async update(id, olds, news) {
    const admin = adminClient();
    return guardedUpdate({
      describe: describe(olds.workspaceName),
      spec: restrictionDiff,
      recorded: olds,
      desired: news,
      read: () => impl.read(id, olds),
      write: async (changed, live) => {
        const kept = { adopt: news.adopt, workspace: news.workspace };
        if (changed.length === 0) return { ...live, ...kept };
        const set = {
          view: changed.includes("view") ? news.view : live.view,
          viewers: changed.includes("viewers") ? news.viewers : live.viewers,
        };
        // A colleague's `view: false` kept beside the program's empty viewers: no restriction left.
        if (isOpen(set)) {
          throw new Error(
            `${describe(olds.workspaceName)}: the update would leave view false (live) with no viewers, which opens the workspace to everyone; nothing was written. Declare \`view: false\` and remove the Restriction, or run ${door().refresh}.`,
          );
        }
        const r = await put(admin, live.workspaceId, set);
        return outputs(r, { id: live.workspaceId, name: live.workspaceName }, kept);
      },
    });
  },

  async delete(_id, props) {
    await deleteIdempotent(() => put(adminClient(), props.workspaceId, { view: false, viewers: [] }));
  },

  async lookup(inputs) {
    const admin = adminClient();
    const workspace = await resolveWorkspace(admin, inputs.workspace);
    return (await restrictionOf(admin, workspace.id)) && {};
  },
};

/**
 * Who may view a workspace: its view restricted to users and groups.
 *
 * @example
 * ```ts
 * const onlyReviewers = new Restriction("payments-view", {
 *   workspace: "Payments",
 *   viewers: [{ type: "group", id: reviewers.groupId }],
 * });
 * ```
 */
export const Restriction = resourceClass(
  "restriction",
  kindToken("Restriction"),
  RestrictionInputs,
  RestrictionOutputs,
);
/** A {@link Restriction} object: one `Output` per member of {@link RestrictionOutputs}. */
export type Restriction = InstanceType<typeof Restriction>;
/** What the engine stores as each object's `__provider`: a require of {@link impl}, no code, no secret. */
export const restrictionProviderText = Restriction.providerText;

/** The kind's one definition: what every registry, door, doc and kind-wide test reads (`./core/kind.ts`). */
export const kind = defineKind({
  resource: Restriction,
  impl,
  area: "flags",
  replaceOnChange: restrictionReplaceOnChange,
  importId: IMPORT_ID,
  doc: {
    what: "who may view a workspace (delete opens it to everyone again)",
    replaces: "workspace",
    updates: "view, viewers (PUT of the whole)",
  },
  example: {
    inputs: { workspace: "payments", viewers: [{ type: "group", id: "payments-team-id" }] },
    refs: {
      workspace: { kind: "Workspace", output: "name" },
      "viewers.0.id": { kind: "Group", output: "groupId" },
    },
  },
});
