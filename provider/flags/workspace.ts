/**
 * `Workspace`: a feature-flag workspace (project): name, and whether every change needs a title
 * and comment (spec §2 "Project (workspace)"; ref admin §1.1, §9.1 `split_workspace`).
 *
 * | verb | API call |
 * |---|---|
 * | check | none: the zod schema below |
 * | diff | none: `name` and `requiresTitleAndComments` update in place; nothing replaces a workspace |
 * | create | `POST /workspaces {name, requiresTitleAndComments}` (the service adds a `user` traffic type, no environment); with `adopt`, first `GET /workspaces?name=&nameOp=IS`, then one `PATCH` when `requiresTitleAndComments` differs |
 * | read | the workspace list, found by id (there is no GET of one workspace in ref §1.1); in a refresh, one list answers every workspace (`../core/list-reads.ts`) |
 * | update | the read, compared with the recorded state (`../core/guard.ts`), then one `PATCH /workspaces/{id}`: a `test` of the live value and a `replace` per changed field (`../core/field-patch.ts`) |
 * | delete | `GET /trafficTypes/ws/{id}` and `DELETE /trafficTypes/{tt}` for each left (the service refuses to delete a workspace that has traffic types, ref §1.2; the `user` one it made is never a resource), then `DELETE /workspaces/{id}`; 404s count as done |
 *
 * Workspace names are unique in the account: a create or rename onto a taken name fails with a
 * message that points at `adopt: true`.
 *
 * Under Harness a project is its FME workspace (admin ref §1.2): the service's answer names the
 * project's organization and identifier, which the outputs carry (`organizationIdentifier`,
 * `projectIdentifier`); both are absent when no project holds the workspace.
 * @module
 */
import { z } from "zod";
import { LIMITS, WorkspaceCreate, type Workspace as WorkspaceResponse } from "../../sdk/admin/schemas";
import { isConflict } from "../../sdk/core/errors";
import { adminClient, forget } from "../core/config";
import { changedFields, type DiffSpec } from "../core/diff";
import { replaceFields } from "../core/field-patch";
import { guardedUpdate } from "../core/guard";
import { defineKind } from "../core/kind";
import { createOrAdopt, deleteIdempotent, GONE, PartialFailure, readOrGone } from "../core/lifecycle";
import { listRead } from "../core/list-reads";
import { dataVerbs, plain, type ResourceArgs, type ResourceHandlers, resourceClass } from "../core/resource";
import { WORKSPACE_TYPE } from "../types";

/** The inputs of a {@link Workspace}. */
export const WorkspaceInputs = z.strictObject({
  /** The workspace's name, unique in the account. */
  name: WorkspaceCreate.shape.name,
  /** Every change in the workspace needs a title and comment. Default: false. */
  requiresTitleAndComments: z.boolean().default(false),
  /** Take over an existing workspace with the same name instead of failing. Default: false. */
  adopt: z.boolean().default(false),
});

/** The outputs of a {@link Workspace}: the inputs plus the service's id and the Harness project it is. */
export const WorkspaceOutputs = WorkspaceInputs.extend({
  /** The workspace's id (also the resource id). */
  workspaceId: z.string(),
  /** The organization of the Harness project this workspace is; absent when no project holds it. */
  organizationIdentifier: z.string().optional(),
  /** The identifier of the Harness project this workspace is; absent when no project holds it. */
  projectIdentifier: z.string().optional(),
});

/** Checked inputs of a workspace. */
export type WorkspaceInputs = z.output<typeof WorkspaceInputs>;
/** Outputs of a workspace. */
export type WorkspaceOutputs = z.output<typeof WorkspaceOutputs>;
/** The arguments of `new Workspace(...)`. */
export type WorkspaceArgs = ResourceArgs<z.input<typeof WorkspaceInputs>>;

/** Inputs whose change replaces a workspace: none; a rename is a PATCH. */
export const workspaceReplaceOnChange = [] as const satisfies readonly (keyof WorkspaceInputs)[];

/**
 * The Harness project in the service's answer (admin ref §1.2: both fields, only on a project's
 * workspace; the answer's other fields ignored); an answer without them, or not strings, names none.
 */
const ProjectOfAnswer = z.object({
  organizationIdentifier: WorkspaceOutputs.shape.organizationIdentifier,
  projectIdentifier: WorkspaceOutputs.shape.projectIdentifier,
});

/** The fields a PATCH writes. */
const EDITABLE = ["name", "requiresTitleAndComments"] as const;

const workspaceDiff: DiffSpec<(typeof EDITABLE)[number]> = {
  fields: EDITABLE,
  replaceOnChange: workspaceReplaceOnChange,
};

function outputs(ws: WorkspaceResponse, inputs: Pick<WorkspaceInputs, "adopt">): WorkspaceOutputs {
  const link = ProjectOfAnswer.safeParse(ws);
  const { organizationIdentifier, projectIdentifier } = link.success ? link.data : {};
  return plain({
    name: ws.name,
    requiresTitleAndComments: ws.requiresTitleAndComments,
    adopt: inputs.adopt,
    workspaceId: ws.id,
    organizationIdentifier,
    projectIdentifier,
  });
}

/** Forgets the memoised workspace list (`../core/resolve.ts`) after a workspace is made, renamed or deleted. */
const forgetWorkspaces = (admin: object) => forget(admin, "workspaces");

function nameTaken(name: string, cause: unknown): Error {
  return new Error(
    `a workspace named "${name}" already exists; workspace names are unique in the account (${(cause as Error).message})`,
    { cause },
  );
}

/** A read's answer from the workspace found, or gone. */
function readResult(props: WorkspaceOutputs, ws: WorkspaceResponse | undefined) {
  if (!ws) return GONE;
  const outs = outputs(ws, { adopt: props.adopt ?? false });
  const { workspaceId: _id, organizationIdentifier: _o, projectIdentifier: _p, ...inputs } = outs;
  return { id: ws.id, props: outs, inputs: inputs as WorkspaceOutputs };
}

/**
 * The provider: every lifecycle method. Each resource's `__provider` text
 * ({@link workspaceProviderText}) loads this object in the provider process; the tests call it directly.
 */
export const impl: ResourceHandlers<WorkspaceInputs, WorkspaceOutputs> = {
  ...dataVerbs({ schema: WorkspaceInputs }, workspaceDiff),

  async create(inputs) {
    const admin = adminClient();
    const { value: ws, how } = await createOrAdopt({
      describe: `a workspace named "${inputs.name}"`,
      adopt: inputs.adopt,
      lookup: () => admin.workspaces.getByName(inputs.name),
      create: () =>
        admin.workspaces.create({
          name: inputs.name,
          requiresTitleAndComments: inputs.requiresTitleAndComments,
        }),
    });
    forgetWorkspaces(admin);
    const found = outputs(ws, inputs);
    const ops =
      how === "created" ? [] : replaceFields(found, inputs, changedFields(workspaceDiff, found, inputs));
    if (ops.length === 0) return { id: ws.id, outs: found };
    try {
      return { id: ws.id, outs: outputs(await admin.workspaces.patch(ws.id, ops), inputs) };
    } catch (e) {
      throw new PartialFailure(ws.id, found, e, "setting requiresTitleAndComments");
    }
  },

  async read(id, props) {
    // The id of `pulumi import` is the workspace's name or id: both find it.
    const admin = adminClient();
    return readResult(
      props,
      await listRead({
        client: admin,
        scope: "workspaces",
        key: id,
        list: () => admin.workspaces.list(),
        pageSize: LIMITS.workspacesMax,
        keys: (w) => [w.id, w.name],
        single: () => admin.workspaces.find(id),
      }),
    );
  },

  async update(id, olds, news) {
    const admin = adminClient();
    return guardedUpdate({
      describe: `workspace "${olds.name}" (${id})`,
      spec: workspaceDiff,
      recorded: olds,
      desired: news,
      // A single fresh read, never a shared list (`../core/list-reads.ts`).
      read: async () => readResult(olds, await admin.workspaces.find(id)),
      write: async (fields, live) => {
        const ops = replaceFields(live, news, fields);
        if (ops.length === 0) return { ...live, adopt: news.adopt };
        try {
          const ws = await admin.workspaces.patch(id, ops);
          forgetWorkspaces(admin);
          return outputs(ws, news);
        } catch (e) {
          if (isConflict(e)) throw nameTaken(news.name, e);
          throw e;
        }
      },
    });
  },

  async delete(id) {
    const admin = adminClient();
    const left = (await readOrGone(() => admin.trafficTypes.list(id))) ?? [];
    for (const tt of left) await deleteIdempotent(() => admin.trafficTypes.delete(tt.id));
    await deleteIdempotent(() => admin.workspaces.delete(id));
    forgetWorkspaces(admin);
  },

  async lookup(inputs) {
    return (await adminClient().workspaces.getByName(inputs.name)) && {};
  },
};

/**
 * A feature-flag workspace (project).
 *
 * @example
 * ```ts
 * const payments = new Workspace("payments", { name: "Payments", requiresTitleAndComments: true });
 * const prod = new Environment("prod", { workspace: payments.workspaceId, name: "Production", production: true });
 * ```
 */
export const Workspace = resourceClass("workspace", WORKSPACE_TYPE, WorkspaceInputs, WorkspaceOutputs);
/** A {@link Workspace} object: one `Output` per member of {@link WorkspaceOutputs}. */
export type Workspace = InstanceType<typeof Workspace>;
/** What the engine stores as each object's `__provider`: a require of {@link impl}, no code, no secret. */
export const workspaceProviderText = Workspace.providerText;

/** The kind's one definition: what every registry, door, doc and kind-wide test reads (`../core/kind.ts`). */
export const kind = defineKind({
  resource: Workspace,
  impl,
  area: "flags",
  replaceOnChange: workspaceReplaceOnChange,
  importId: { form: "<name>", example: "Default" },
  doc: {
    what: "a feature-flag workspace",
    replaces: "",
    updates: "name, requires title and comments (one guarded PATCH)",
  },
  example: { inputs: { name: "payments" }, unique: ["name"] },
});
