/**
 * `FlagSet`: a flag set of a workspace: name and description (ref admin §1.1 "flag sets", §9.1
 * `split_flag_set`; the v3 API).
 *
 * | verb | API call |
 * |---|---|
 * | check | none: the zod schema below (names 1-50 characters of `a-z 0-9 _ .`, starting with a letter or digit) |
 * | diff | none: every field replaces (delete first: names are unique in the workspace); the API has no update of a flag set |
 * | create | the workspace list (once per process); `POST /internal/api/v3/flag-sets {name, description, workspace}`; with `adopt`, first the workspace's flag set list |
 * | read | `GET /internal/api/v3/flag-sets/{id}`; a 404 reports it gone |
 * | update | nothing to write (nothing updates in place); the read, compared with the recorded state (`../core/guard.ts`) |
 * | delete | `DELETE /internal/api/v3/flag-sets/{id}`; a 404 counts as done |
 *
 * **Membership.** Which flags belong to a set is not a property of the set: the real API keeps it
 * on each flag's *definition*, per environment (`flagSets: [{id, type}]` in the definition, ref
 * admin §2), so that an SDK of one environment downloads the flags of its sets. Declaring it here
 * (a member list on the set) would give two resources the same field to fight over, and a
 * membership resource would write the very definition `FlagDefinition` owns; either would make
 * diffs inexact. Its exact home is therefore a `flagSets` input of `FlagDefinition`, which this
 * resource's `flagSetId` feeds (`flagSets: [web.flagSetId]`; a set of ids, omitted = not
 * managed; one `replace /flagSets` on change). The emulator stores it, serves each SDK split's
 * `sets` (names) and filters `splitChanges?sets=`; deleting a flag set removes it from every
 * definition that named it (inferred).
 * @module
 */
import { z } from "zod";
import type { FlagSet as FlagSetResponse } from "../../sdk/admin/schemas";
import { FlagSetName } from "../../sdk/admin/schemas";
import { adminClient } from "../core/config";
import type { DiffSpec } from "../core/diff";
import { guardedUpdate } from "../core/guard";
import { defineKind, type ImportId } from "../core/kind";
import { createOrAdopt, deleteIdempotent, GONE, readOrGone } from "../core/lifecycle";
import { resolveWorkspace } from "../core/resolve";
import { dataVerbs, plain, type ResourceArgs, type ResourceHandlers, resourceClass } from "../core/resource";
import { importParts, workspaceRule } from "../core/workspace-fields";
import { FLAG_SET_TYPE } from "../types";

/** The inputs of a {@link FlagSet}. */
export const FlagSetInputs = z.strictObject({
  /** The workspace (project) of the flag set, by name or id. Changing it replaces the flag set. */
  workspace: z.string().min(1, "workspace must not be empty"),
  /** The flag set's name, unique in the workspace. Changing it replaces the flag set. */
  name: FlagSetName,
  /** What the flag set is for. Default: empty. The API cannot change it: a new one replaces the flag set. */
  description: z.string().max(255, "description must be at most 255 characters").default(""),
  /** Take over an existing flag set with the same name instead of failing. Default: false. */
  adopt: z.boolean().default(false),
});

/** The outputs of a {@link FlagSet}: the inputs plus the service's id and creation time. */
export const FlagSetOutputs = FlagSetInputs.extend({
  /** The flag set's id (also the resource id). */
  flagSetId: z.string(),
  /** When the service created it, an ISO 8601 time. */
  createdAt: z.string(),
  /** The workspace's id. */
  workspaceId: z.string(),
  /** The workspace's name. */
  workspaceName: z.string(),
});

/** Checked inputs of a flag set. */
export type FlagSetInputs = z.output<typeof FlagSetInputs>;
/** Outputs of a flag set. */
export type FlagSetOutputs = z.output<typeof FlagSetOutputs>;
/** The arguments of `new FlagSet(...)`. */
export type FlagSetArgs = ResourceArgs<z.input<typeof FlagSetInputs>>;

/** Inputs whose change replaces a flag set: all of them (the API has no update). */
export const flagSetReplaceOnChange = [
  "workspace",
  "name",
  "description",
] as const satisfies readonly (keyof FlagSetInputs)[];

const flagSetDiff: DiffSpec<Exclude<keyof FlagSetInputs, "adopt">> = {
  fields: ["workspace", "name", "description"],
  replaceOnChange: flagSetReplaceOnChange,
  deleteBeforeReplace: true,
  rules: { workspace: workspaceRule, description: { normalize: (v) => v ?? "" } },
};

function outputs(
  set: FlagSetResponse,
  workspace: { id: string; name: string },
  inputs: Pick<FlagSetInputs, "workspace" | "adopt">,
): FlagSetOutputs {
  return plain({
    workspace: inputs.workspace,
    name: set.name,
    description: set.description ?? "",
    adopt: inputs.adopt,
    flagSetId: set.id,
    createdAt: set.createdAt,
    workspaceId: workspace.id,
    workspaceName: workspace.name,
  });
}

/** The natural key: the import id's parts, written once for the import, the docs and the schema. */
const IMPORT_ID: ImportId = { form: "<workspace>/<name>", example: "Default/web" };

/**
 * The `read` of `pulumi import` (native provider), which has the id alone and no state: the id is
 * the flag set's natural key `<workspace>/<name>` (the workspace by name or id, e.g. `Default/web`).
 */
async function importFlagSet(
  importId: string,
): ReturnType<ResourceHandlers<FlagSetInputs, FlagSetOutputs>["read"]> {
  const [wsRef = "", name = ""] = importParts(importId, IMPORT_ID);
  const admin = adminClient();
  const workspace = await resolveWorkspace(admin, wsRef);
  const set = await admin.flagSets.find(workspace.id, name);
  if (!set) return GONE;
  return impl.read(set.id, outputs(set, workspace, { workspace: wsRef, adopt: false }));
}

/**
 * The provider: every lifecycle method. Each resource's `__provider` text
 * ({@link flagSetProviderText}) loads this object in the provider process; the tests call it directly.
 */
export const impl: ResourceHandlers<FlagSetInputs, FlagSetOutputs> = {
  ...dataVerbs({ schema: FlagSetInputs }, flagSetDiff),

  async create(inputs) {
    const admin = adminClient();
    const workspace = await resolveWorkspace(admin, inputs.workspace);
    const describe = `a flag set named "${inputs.name}" in workspace "${workspace.name}"`;
    const { value: set, how } = await createOrAdopt({
      describe,
      adopt: inputs.adopt,
      lookup: () => admin.flagSets.find(workspace.id, inputs.name),
      create: () =>
        admin.flagSets.create({
          name: inputs.name,
          description: inputs.description,
          workspace: { id: workspace.id, type: "WORKSPACE" },
        }),
    });
    const live = set.description ?? "";
    if (how !== "created" && live !== inputs.description) {
      throw new Error(
        `${describe} exists with description ${JSON.stringify(live)}, not ${JSON.stringify(inputs.description)}; the API cannot change a flag set's description, so declare the existing one`,
      );
    }
    return { id: set.id, outs: outputs(set, workspace, inputs) };
  },

  async read(id, props) {
    if (props.workspaceId === undefined) return importFlagSet(id);
    const set = await readOrGone(() => adminClient().flagSets.get(id));
    if (!set) return GONE;
    const outs = outputs(set, { id: props.workspaceId, name: props.workspaceName }, props);
    const inputs = {
      workspace: outs.workspace,
      name: outs.name,
      description: outs.description,
      adopt: outs.adopt,
    };
    return { id: set.id, props: outs, inputs };
  },

  async update(id, olds, news) {
    return guardedUpdate({
      describe: `flag set "${olds.name}" in workspace "${olds.workspaceName}"`,
      spec: flagSetDiff,
      recorded: olds,
      desired: news,
      read: () => impl.read(id, olds),
      // Every field replaces, so there is never a field to write: only what the program says of itself.
      write: async (_fields, live) => ({ ...live, adopt: news.adopt, workspace: news.workspace }),
    });
  },

  async delete(id) {
    await deleteIdempotent(() => adminClient().flagSets.delete(id));
  },

  async lookup(inputs) {
    const admin = adminClient();
    const workspace = await resolveWorkspace(admin, inputs.workspace);
    const set = await admin.flagSets.find(workspace.id, inputs.name);
    return set && { createdAt: Date.parse(set.createdAt) };
  },
};

/**
 * A flag set: a named group of flags that an SDK can be told to download alone.
 *
 * @example
 * ```ts
 * const web = new FlagSet("web", { workspace: "Default", name: "web", description: "Flags of the web app" });
 * ```
 */
export const FlagSet = resourceClass("flag-set", FLAG_SET_TYPE, FlagSetInputs, FlagSetOutputs);
/** A {@link FlagSet} object: one `Output` per member of {@link FlagSetOutputs}. */
export type FlagSet = InstanceType<typeof FlagSet>;
/** What the engine stores as each object's `__provider`: a require of {@link impl}, no code, no secret. */
export const flagSetProviderText = FlagSet.providerText;

/** The kind's one definition: what every registry, door, doc and kind-wide test reads (`../core/kind.ts`). */
export const kind = defineKind({
  resource: FlagSet,
  impl,
  area: "flags",
  replaceOnChange: flagSetReplaceOnChange,
  importId: IMPORT_ID,
  doc: {
    what: "a flag set of a workspace (v3 API)",
    replaces: "workspace, name, description (the API has no update)",
    updates: "",
  },
  example: {
    inputs: { workspace: "Default", name: "checkout", description: "The checkout flags" },
    unique: ["name"],
  },
});
