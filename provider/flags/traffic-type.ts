/**
 * `TrafficType`: a traffic type of a feature-flag workspace, the kind of key flags and segments
 * are evaluated for (`user`, `account`, ...) (spec §2 "Traffic type"; ref admin §1.1, §9.1
 * `split_traffic_type`).
 *
 * | verb | API call |
 * |---|---|
 * | check | none: the zod schema below |
 * | diff | none: `workspace` and `name` replace (delete first: names are unique in a workspace); the API has no rename |
 * | create | workspace list (once per process); `POST /trafficTypes/ws/{ws} {name}`; with `adopt`, first the traffic type list to find the name (a workspace starts with `user`) |
 * | read | `GET /trafficTypes/ws/{ws}` and find the id (there is no GET of one); in a refresh, one list answers every traffic type of the workspace (`../core/list-reads.ts`) |
 * | update | nothing on the service: only `adopt` can change in place |
 * | delete | `DELETE /trafficTypes/{id}` (refused while flags or segments use it); a 404 counts as done |
 * @module
 */
import { z } from "zod";
import { TrafficTypeCreate, type TrafficType as TrafficTypeResponse } from "../../sdk/admin/schemas";
import { adminClient, forget } from "../core/config";
import type { DiffSpec } from "../core/diff";
import { guardedUpdate } from "../core/guard";
import { defineKind, type ImportId } from "../core/kind";
import { createOrAdopt, deleteIdempotent, GONE } from "../core/lifecycle";
import { listRead, oneRequest } from "../core/list-reads";
import { resolveWorkspace } from "../core/resolve";
import { dataVerbs, plain, type ResourceArgs, type ResourceHandlers, resourceClass } from "../core/resource";
import { importParts, workspaceRule } from "../core/workspace-fields";
import { TRAFFIC_TYPE_TYPE } from "../types";

/** The inputs of a {@link TrafficType}. */
export const TrafficTypeInputs = z.strictObject({
  /** The workspace of the traffic type, by name or id. Changing it replaces the traffic type. */
  workspace: z.string().min(1, "workspace must not be empty"),
  /** The traffic type's name, unique in the workspace. Changing it replaces the traffic type. */
  name: TrafficTypeCreate.shape.name,
  /** Take over an existing traffic type with the same name (such as `user`) instead of failing. Default: false. */
  adopt: z.boolean().default(false),
});

/** The outputs of a {@link TrafficType}: the inputs plus ids. */
export const TrafficTypeOutputs = TrafficTypeInputs.extend({
  /** The traffic type's id (also the resource id). */
  trafficTypeId: z.string(),
  /** The workspace's id. */
  workspaceId: z.string(),
  /** The workspace's name. */
  workspaceName: z.string(),
  /** The attribute shown for its keys, where one is set. */
  displayAttributeId: z.string().optional(),
});

/** Checked inputs of a traffic type. */
export type TrafficTypeInputs = z.output<typeof TrafficTypeInputs>;
/** Outputs of a traffic type. */
export type TrafficTypeOutputs = z.output<typeof TrafficTypeOutputs>;
/** The arguments of `new TrafficType(...)`. */
export type TrafficTypeArgs = ResourceArgs<z.input<typeof TrafficTypeInputs>>;

/** Inputs whose change replaces a traffic type: all of them (the API has no update). */
export const trafficTypeReplaceOnChange = [
  "workspace",
  "name",
] as const satisfies readonly (keyof TrafficTypeInputs)[];

const trafficTypeDiff: DiffSpec<Exclude<keyof TrafficTypeInputs, "adopt">> = {
  fields: ["workspace", "name"],
  replaceOnChange: trafficTypeReplaceOnChange,
  deleteBeforeReplace: true,
  rules: { workspace: workspaceRule },
};

function outputs(
  tt: TrafficTypeResponse,
  workspace: { id: string; name: string },
  inputs: Pick<TrafficTypeInputs, "workspace" | "adopt">,
): TrafficTypeOutputs {
  return plain({
    workspace: inputs.workspace,
    name: tt.name,
    adopt: inputs.adopt,
    trafficTypeId: tt.id,
    workspaceId: workspace.id,
    workspaceName: workspace.name,
    displayAttributeId: tt.displayAttributeId ?? undefined,
  });
}

/** Forgets the memoised traffic types of a workspace (`../core/resolve.ts`), after one is made or deleted. */
const forgetTrafficTypes = (admin: object, workspaceId: string) =>
  forget(admin, `trafficTypes:${workspaceId}`);

/** The natural key: the import id's parts, written once for the import, the docs and the schema. */
const IMPORT_ID: ImportId = { form: "<workspace>/<name>", example: "Default/account" };

/**
 * The `read` of `pulumi import` (native provider), which has the id alone and no state: the id is
 * the traffic type's natural key `<workspace>/<name>` (the workspace by name or id, e.g. `Default/account`).
 */
async function importTrafficType(
  importId: string,
): ReturnType<ResourceHandlers<TrafficTypeInputs, TrafficTypeOutputs>["read"]> {
  const [wsRef = "", name = ""] = importParts(importId, IMPORT_ID);
  const admin = adminClient();
  const workspace = await resolveWorkspace(admin, wsRef);
  const tt = await admin.trafficTypes.find(workspace.id, name);
  if (!tt) return GONE;
  return impl.read(tt.id, outputs(tt, workspace, { workspace: wsRef, adopt: false }));
}

/** A read's answer from the traffic type found (by id), or gone. */
function readResult(id: string, props: TrafficTypeOutputs, tt: TrafficTypeResponse | undefined) {
  if (!tt || tt.id !== id) return GONE;
  const outs = outputs(tt, { id: props.workspaceId, name: props.workspaceName }, props);
  return { id, props: outs, inputs: { workspace: props.workspace, name: outs.name, adopt: props.adopt } };
}

/**
 * The provider: every lifecycle method. Each resource's `__provider` text
 * ({@link trafficTypeProviderText}) loads this object in the provider process; the tests call it directly.
 */
export const impl: ResourceHandlers<TrafficTypeInputs, TrafficTypeOutputs> = {
  ...dataVerbs({ schema: TrafficTypeInputs }, trafficTypeDiff),

  async create(inputs) {
    const admin = adminClient();
    const workspace = await resolveWorkspace(admin, inputs.workspace);
    const { value: tt } = await createOrAdopt({
      describe: `a traffic type named "${inputs.name}" in workspace "${workspace.name}"`,
      adopt: inputs.adopt,
      lookup: () => admin.trafficTypes.find(workspace.id, inputs.name),
      create: () => admin.trafficTypes.create(workspace.id, { name: inputs.name }),
    });
    forgetTrafficTypes(admin, workspace.id);
    return { id: tt.id, outs: outputs(tt, workspace, inputs) };
  },

  async read(id, props) {
    if (props.workspaceId === undefined) return importTrafficType(id);
    const admin = adminClient();
    const wsId = props.workspaceId;
    return readResult(
      id,
      props,
      await listRead({
        client: admin,
        scope: `traffic types of workspace ${wsId}`,
        key: id,
        list: () => oneRequest(() => admin.trafficTypes.list(wsId)),
        pageSize: Number.POSITIVE_INFINITY,
        keys: (t) => [t.id],
        single: () => admin.trafficTypes.find(wsId, id),
      }),
    );
  },

  async update(id, olds, news) {
    return guardedUpdate({
      describe: `traffic type "${olds.name}" in workspace "${olds.workspaceName}"`,
      spec: trafficTypeDiff,
      recorded: olds,
      desired: news,
      // A single fresh read, never a shared list (`../core/list-reads.ts`).
      read: async () => readResult(id, olds, await adminClient().trafficTypes.find(olds.workspaceId, id)),
      write: async (_fields, live) => ({ ...live, adopt: news.adopt, workspace: news.workspace }),
    });
  },

  async delete(id, props) {
    const admin = adminClient();
    await deleteIdempotent(() => admin.trafficTypes.delete(id));
    forgetTrafficTypes(admin, props.workspaceId);
  },

  async lookup(inputs) {
    const admin = adminClient();
    const workspace = await resolveWorkspace(admin, inputs.workspace);
    return (await admin.trafficTypes.find(workspace.id, inputs.name)) && {};
  },
};

/**
 * A traffic type: flags, segments and attributes belong to one.
 *
 * @example
 * ```ts
 * const account = new TrafficType("account", { workspace: "Default", name: "account" });
 * const flag = new Flag("invoices", { workspace: "Default", trafficType: account.name, name: "new-invoices" });
 * ```
 */
export const TrafficType = resourceClass(
  "traffic-type",
  TRAFFIC_TYPE_TYPE,
  TrafficTypeInputs,
  TrafficTypeOutputs,
);
/** A {@link TrafficType} object: one `Output` per member of {@link TrafficTypeOutputs}. */
export type TrafficType = InstanceType<typeof TrafficType>;
/** What the engine stores as each object's `__provider`: a require of {@link impl}, no code, no secret. */
export const trafficTypeProviderText = TrafficType.providerText;

/** The kind's one definition: what every registry, door, doc and kind-wide test reads (`../core/kind.ts`). */
export const kind = defineKind({
  resource: TrafficType,
  impl,
  area: "flags",
  replaceOnChange: trafficTypeReplaceOnChange,
  importId: IMPORT_ID,
  doc: {
    what: "a traffic type of a workspace",
    replaces: "workspace, name (the API has no update)",
    updates: "",
  },
  example: { inputs: { workspace: "Default", name: "account" }, unique: ["name"] },
});
