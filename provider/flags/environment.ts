/**
 * `Environment`: an environment of a feature-flag workspace: name, production, change permissions
 * (spec §2 "Environment"; ref admin §1.1, §1.2).
 *
 * | verb | API call |
 * |---|---|
 * | check | none: the zod schema below |
 * | diff | none: `workspace` replaces (delete first: names are unique in a workspace); `name`, `production` and `changePermissions` update in place |
 * | create | workspace list (once per process); `POST /environments/ws/{ws}` with the change permissions; its answer lists the two SDK keys the service makes (`apiTokens`); with `adopt`, first the environment list to find the name, then one `PATCH` when production or the permissions differ |
 * | read | `GET /environments/ws/{ws}` and find the id (there is no GET of one environment, ref §1.2), once for every read of the workspace in one engine operation (`../core/list-reads.ts`; the guard's read walks it afresh); when the resource manages change permissions and the list does not show them (ref §1.2: only create and update answers do), `PATCH ?dry_run=true` with an empty patch, which answers the environment with them and changes nothing (ref §1.1 `?dry_run`, inferred) |
 * | update | the read, compared with the recorded state (`../core/guard.ts`), then one `PATCH /environments/ws/{ws}/{id}`: `test` and `replace` of `/name` and `/production`, `add` of `/changePermissions/areApprovalsRequired` and `/changePermissions/approvers` (so members the program does not manage, such as `allowKills`, keep their values) |
 * | delete | `DELETE /apiKeys/{id}` for each SDK key the create recorded (the service refuses to delete an environment while its keys exist, ref §1.2), then `DELETE /environments/ws/{ws}/{id}`; 404s count as done; refused while keys the state does not record exist, the error says to revoke them |
 * | recover | `flagstack recover` of a killed `up`'s environment: adopted as `adopt: true` does, with the SDK key ids its create noted on this machine (`../core/created-journal.ts`); without a note, reported as unknown keys to revoke before a destroy |
 *
 * The SDK keys the service makes with the environment are outputs (`serverSideSdkKey`,
 * `clientSideSdkKey`) where its answer carries the key strings (the emulator's does; the real
 * answer shows `{id, name, type, apiKeyType}`, ref §1.2), stored as secrets
 * (`../core/secret-outputs.ts`). The create's answer is the only place that shows the keys (the API
 * cannot list them), so the create notes their ids on this machine before it returns; `flagstack
 * recover` records them for the environment of a killed `pulumi up` (the key strings it does not
 * know), so a destroy revokes them. An adopted environment, or one whose create answer was lost,
 * has no recorded keys: its keys must be revoked (in the admin settings) before it can be deleted.
 *
 * **Why `Environment`.** This module is the feature-flag API's, whose objects keep the API's names
 * (`Flag`, `Segment`, `TrafficType`), so its environment is `Environment`, as the API and the
 * Terraform providers (`split_environment`, `harness_fme_environment`) call it. The delivery
 * platform's environment is a different object in a different API (an org/project
 * scoped deployment target with a type and YAML), and will be `DeliveryEnvironment`: the name the
 * platform's own product area uses (continuous delivery), which reads unambiguously next to this one
 * in a program that imports both, and keeps `flagstack:index:Environment` stable for the type
 * token already in stacks.
 * @module
 */
import { z } from "zod";
import {
  type ChangePermissions,
  type EnvironmentDetail,
  EnvironmentName,
  type JsonPatch,
} from "../../sdk/admin/schemas";
import { isConflict } from "../../sdk/core/errors";
import { adminClient } from "../core/config";
import { createdNote, createNoted } from "../core/created-journal";
import { changedFields, type DiffSpec, jsonEqual } from "../core/diff";
import { replaceFields } from "../core/field-patch";
import { guardedUpdate } from "../core/guard";
import { defineKind, type ImportId } from "../core/kind";
import { createOrAdopt, deleteIdempotent, GONE, PartialFailure } from "../core/lifecycle";
import { listRead } from "../core/list-reads";
import { resolveWorkspace } from "../core/resolve";
import { dataVerbs, plain, type ResourceArgs, type ResourceHandlers, resourceClass } from "../core/resource";
import { withSecretOutputs } from "../core/secret-outputs";
import { importParts, workspaceRule } from "../core/workspace-fields";
import { ENVIRONMENT_TYPE } from "../types";

/** A user or group that approves changes, by id (a `Group`'s `groupId`, a user's id). */
const Approver = z.strictObject({
  /** `user` or `group`. */
  type: z.enum(["user", "group"], { error: 'type must be "user" or "group"' }),
  /** The user's or group's id. */
  id: z.string().min(1, "id must not be empty"),
});

const byTypeAndId = (a: { type: string; id: string }, b: { type: string; id: string }) =>
  a.type === b.type ? a.id.localeCompare(b.id) : a.type.localeCompare(b.type);

/** Approvers as one canonical list: `{type, id}` only, sorted, no duplicates. */
function approverSet(
  list: readonly { type: string; id: string }[] | undefined,
): { type: "user" | "group"; id: string }[] {
  const seen = new Map<string, { type: "user" | "group"; id: string }>();
  for (const a of list ?? []) seen.set(`${a.type}:${a.id}`, { type: a.type as "user" | "group", id: a.id });
  return [...seen.values()].sort(byTypeAndId);
}

/** What changes in the environment need (ref §9.2 `change_permissions`). */
export const EnvironmentChangePermissions = z.strictObject({
  /** Changes need an approved change request (direct writes are refused with 403). Default: false. */
  areApprovalsRequired: z.boolean().default(false),
  /** Who may approve: users and groups by id, a set. Default: none. */
  approvers: z.array(Approver).default([]).transform(approverSet),
});

/** The inputs of an {@link Environment}. */
export const EnvironmentInputs = z.strictObject({
  /** The workspace of the environment, by name or id. Changing it replaces the environment. */
  workspace: z.string().min(1, "workspace must not be empty"),
  /** The environment's name, unique in the workspace (the emulator's rule: at most 100 characters). */
  name: EnvironmentName,
  /** A production environment. Default: false. */
  production: z.boolean().default(false),
  /** Whether changes need approval, and by whom. When omitted, the service's values are left alone. */
  changePermissions: EnvironmentChangePermissions.optional(),
  /** Take over an existing environment with the same name instead of failing. Default: false. */
  adopt: z.boolean().default(false),
});

/** An SDK key of the environment, without its value. */
const SdkKeyRef = z.strictObject({ id: z.string(), name: z.string(), apiKeyType: z.string() });

/** The outputs of an {@link Environment}: the inputs plus ids and its SDK keys. */
export const EnvironmentOutputs = EnvironmentInputs.extend({
  /** The environment's id (also the resource id). */
  environmentId: z.string(),
  /** The workspace's id. */
  workspaceId: z.string(),
  /** The workspace's name. */
  workspaceName: z.string(),
  /** The SDK keys the service made with the environment (revoked when it is deleted). */
  apiTokens: z.array(SdkKeyRef),
  /** The server-side SDK key made with the environment, where the service answered it. Secret. */
  serverSideSdkKey: z.string().optional(),
  /** The client-side SDK key made with the environment, where the service answered it. Secret. */
  clientSideSdkKey: z.string().optional(),
});

/** Checked inputs of an environment. */
export type EnvironmentInputs = z.output<typeof EnvironmentInputs>;
/** Outputs of an environment. */
export type EnvironmentOutputs = z.output<typeof EnvironmentOutputs>;
/** The arguments of `new Environment(...)`. */
export type EnvironmentArgs = ResourceArgs<z.input<typeof EnvironmentInputs>>;
/** Change permissions as the resource compares them. */
type Permissions = z.output<typeof EnvironmentChangePermissions>;

/** Inputs whose change replaces an environment: its workspace. A rename is a PATCH. */
export const environmentReplaceOnChange = [
  "workspace",
] as const satisfies readonly (keyof EnvironmentInputs)[];

const environmentDiff: DiffSpec<Exclude<keyof EnvironmentInputs, "adopt">> = {
  fields: ["workspace", "name", "production", "changePermissions"],
  replaceOnChange: environmentReplaceOnChange,
  deleteBeforeReplace: true,
  rules: {
    workspace: workspaceRule,
    // Omitted: the service's values are not managed.
    changePermissions: {
      equals: (o, n) =>
        n === undefined || (o !== undefined && jsonEqual(livePermissions(o as Permissions), n)),
    },
  },
};

/** The compared part of the service's change permissions. */
function livePermissions(p: ChangePermissions | Permissions | undefined): Permissions {
  return { areApprovalsRequired: p?.areApprovalsRequired ?? false, approvers: approverSet(p?.approvers) };
}

/** The kind of an environment's notes in `../core/created-journal.ts`. */
const ENVIRONMENT_NOTE = "environment";

/** The workspace as the outputs record it. */
type WorkspaceRef = { id: string; name: string };

/** What the outputs keep of the create: the SDK keys. */
type Keys = Pick<EnvironmentOutputs, "apiTokens" | "serverSideSdkKey" | "clientSideSdkKey">;

function keysOf(env: EnvironmentDetail): Keys {
  const tokens = env.apiTokens ?? [];
  const key = (type: string) => tokens.find((t) => t.apiKeyType === type)?.key;
  return {
    apiTokens: tokens.map((t) => ({ id: t.id, name: t.name, apiKeyType: t.apiKeyType })),
    serverSideSdkKey: key("server_side"),
    clientSideSdkKey: key("client_side"),
  };
}

function outputs(
  env: { id: string; name: string; production: boolean },
  permissions: Permissions | undefined,
  workspace: WorkspaceRef,
  inputs: Pick<EnvironmentInputs, "workspace" | "adopt">,
  keys: Keys,
): EnvironmentOutputs {
  return plain({
    workspace: inputs.workspace,
    name: env.name,
    production: env.production,
    changePermissions: permissions,
    adopt: inputs.adopt,
    environmentId: env.id,
    workspaceId: workspace.id,
    workspaceName: workspace.name,
    apiTokens: keys.apiTokens ?? [],
    serverSideSdkKey: keys.serverSideSdkKey,
    clientSideSdkKey: keys.clientSideSdkKey,
  });
}

/** The environment with its change permissions (when `withPermissions`), or `undefined` when gone. */
async function readLive(
  workspaceId: string,
  environmentId: string,
  withPermissions: boolean,
  shared = false,
): Promise<{ env: EnvironmentDetail; permissions: Permissions | undefined } | undefined> {
  const admin = adminClient();
  const find = () => admin.environments.find(workspaceId, environmentId);
  // The engine's read shares the workspace's list with the other reads of its operation
  // (`../core/list-reads.ts`); every other read walks the list afresh.
  const listed: EnvironmentDetail | undefined = shared
    ? await listRead({
        client: admin,
        scope: `environments of workspace ${workspaceId}`,
        key: environmentId,
        list: async function* () {
          yield* await admin.environments.list(workspaceId);
        },
        // One request answers the whole list (a bare array, ref §1.2).
        pageSize: Number.POSITIVE_INFINITY,
        keys: (e) => [e.id],
        single: find,
      })
    : await find();
  if (!listed || listed.id !== environmentId) return undefined;
  if (!withPermissions) return { env: listed, permissions: undefined };
  const detailed = listed.changePermissions
    ? listed
    : await admin.environments.patch(workspaceId, environmentId, [], { dryRun: true });
  return { env: listed, permissions: livePermissions(detailed.changePermissions) };
}

/**
 * The one PATCH that takes `live` to `desired` in the `fields` given: guarded `replace`s of
 * `/name` and `/production`, `add`s of the managed permission members (absent members are made).
 * @internal
 */
export function environmentPatch(
  live: Pick<EnvironmentOutputs, "name" | "production">,
  desired: Pick<EnvironmentInputs, "name" | "production" | "changePermissions">,
  fields: readonly string[],
): JsonPatch {
  const scalars = (["name", "production"] as const).filter((f) => fields.includes(f));
  const ops = replaceFields({ name: live.name, production: live.production }, desired, scalars);
  const permissions = desired.changePermissions;
  if (fields.includes("changePermissions") && permissions !== undefined) {
    ops.push({
      op: "add",
      path: "/changePermissions/areApprovalsRequired",
      value: permissions.areApprovalsRequired,
    });
    ops.push({ op: "add", path: "/changePermissions/approvers", value: permissions.approvers });
  }
  return ops;
}

/** The natural key: the import id's parts, written once for the import, the docs and the schema. */
const IMPORT_ID: ImportId = { form: "<workspace>/<name>", example: "Default/Staging" };

/**
 * The `read` of `pulumi import` (native provider), which has the id alone and no state: the id is
 * the environment's natural key `<workspace>/<name>` (the workspace by name or id, e.g.
 * `Default/Staging`). Its change permissions are read too (imported as managed).
 */
async function importEnvironment(
  importId: string,
): ReturnType<ResourceHandlers<EnvironmentInputs, EnvironmentOutputs>["read"]> {
  const [wsRef = "", name = ""] = importParts(importId, IMPORT_ID);
  const admin = adminClient();
  const workspace = await resolveWorkspace(admin, wsRef);
  const env = await admin.environments.find(workspace.id, name);
  if (!env) return GONE;
  const recorded = outputs(
    env,
    livePermissions(undefined),
    workspace,
    { workspace: wsRef, adopt: false },
    {
      apiTokens: [],
    },
  );
  return readEnvironment(env.id, recorded);
}

/**
 * The `read` of an environment: the live one and its permissions when the resource manages them,
 * with the recorded inputs the service does not show. `shared`: from the list the reads of the
 * engine operation share.
 */
async function readEnvironment(id: string, props: EnvironmentOutputs, shared = false) {
  const managed = props.changePermissions !== undefined;
  const live = await readLive(props.workspaceId, id, managed, shared);
  if (!live) return GONE;
  const workspace = { id: props.workspaceId, name: props.workspaceName };
  const outs = outputs(live.env, live.permissions, workspace, props, props);
  const inputs = plain({
    workspace: props.workspace,
    name: outs.name,
    production: outs.production,
    changePermissions: outs.changePermissions,
    adopt: props.adopt,
  });
  return { id, props: outs, inputs };
}

/**
 * The provider: every lifecycle method. Each resource's `__provider` text
 * ({@link environmentProviderText}) loads this object in the provider process; the tests call it directly.
 */
export const impl: ResourceHandlers<EnvironmentInputs, EnvironmentOutputs> = {
  ...dataVerbs({ schema: EnvironmentInputs }, environmentDiff),

  async create(inputs) {
    const admin = adminClient();
    const workspace = await resolveWorkspace(admin, inputs.workspace);
    const describe = `an environment named "${inputs.name}" in workspace "${workspace.name}"`;
    const { value: env, how } = await createOrAdopt<EnvironmentDetail>({
      describe,
      adopt: inputs.adopt,
      lookup: () => admin.environments.find(workspace.id, inputs.name),
      // The answer is the one place that shows the SDK keys: their ids are noted for `flagstack recover`.
      create: () =>
        createNoted(
          ENVIRONMENT_NOTE,
          () =>
            admin.environments.create(workspace.id, {
              name: inputs.name,
              production: inputs.production,
              ...(inputs.changePermissions ? { changePermissions: inputs.changePermissions } : {}),
            }),
          (made) => ({ id: made.id, data: { workspaceId: workspace.id, apiTokens: keysOf(made).apiTokens } }),
        ),
    });
    const managed = inputs.changePermissions !== undefined;
    if (how === "created") {
      const permissions = managed
        ? livePermissions(env.changePermissions ?? inputs.changePermissions)
        : undefined;
      return { id: env.id, outs: outputs(env, permissions, workspace, inputs, keysOf(env)) };
    }
    // Adopted, or our own create whose answer was lost: bring production and the permissions in line.
    const live = await readLive(workspace.id, env.id, managed);
    const found = outputs(live?.env ?? env, live?.permissions, workspace, inputs, { apiTokens: [] });
    const ops = environmentPatch(found, inputs, changedFields(environmentDiff, found, inputs));
    if (ops.length === 0) return { id: env.id, outs: found };
    try {
      const patched = await admin.environments.patch(workspace.id, env.id, ops);
      return {
        id: env.id,
        outs: outputs(
          patched,
          livePermissions(patched.changePermissions ?? inputs.changePermissions),
          workspace,
          inputs,
          { apiTokens: [] },
        ),
      };
    } catch (e) {
      throw new PartialFailure(env.id, found, e, "setting production and change permissions");
    }
  },

  async read(id, props) {
    if (props.workspaceId === undefined) return importEnvironment(id);
    return readEnvironment(id, props, true);
  },

  async update(id, olds, news) {
    const admin = adminClient();
    return guardedUpdate({
      describe: `environment "${olds.name}" in workspace "${olds.workspaceName}"`,
      spec: environmentDiff,
      recorded: olds,
      desired: news,
      // A fresh walk of the list, never a shared one (`../core/list-reads.ts`).
      read: () =>
        readEnvironment(id, { ...olds, changePermissions: olds.changePermissions ?? news.changePermissions }),
      write: async (fields, live) => {
        const ops = environmentPatch(live, news, fields);
        const kept = { ...live, adopt: news.adopt, workspace: news.workspace };
        if (ops.length === 0)
          return { ...kept, changePermissions: news.changePermissions ?? live.changePermissions };
        const patched = await admin.environments.patch(olds.workspaceId, id, ops);
        const permissions =
          news.changePermissions === undefined
            ? undefined
            : livePermissions(patched.changePermissions ?? news.changePermissions);
        return outputs(patched, permissions, { id: olds.workspaceId, name: olds.workspaceName }, news, live);
      },
    });
  },

  async delete(id, props) {
    const admin = adminClient();
    const tokens = props.apiTokens ?? [];
    for (const token of tokens) await deleteIdempotent(() => admin.apiKeys.revoke(token.id));
    try {
      await deleteIdempotent(() => admin.environments.delete(props.workspaceId, id));
    } catch (e) {
      if (!isConflict(e) || tokens.length > 0) throw e;
      throw new Error(
        `environment "${props.name}" in workspace "${props.workspaceName}" cannot be deleted while its SDK keys exist, ` +
          "and the state records none (the environment was adopted, or the answer of its create was lost; the API " +
          "cannot list keys): revoke its server-side and client-side keys in the admin settings (API keys), then " +
          `delete again (${(e as Error).message})`,
        { cause: e },
      );
    }
  },

  /**
   * `flagstack recover` of the environment a killed `pulumi up` created: adopted, with the SDK
   * keys that its create's answer showed, from the note the create left on this machine
   * (`../core/created-journal.ts`), so that a destroy revokes them and can delete it. Without a
   * note (the answer never arrived, or another machine ran the create) it has none, as an adopted
   * environment, and its `note` says so: the keys must be revoked before a destroy can delete it.
   */
  async recover(inputs) {
    const adopted = await impl.create({ ...inputs, adopt: true });
    const outs = { ...(adopted.outs as EnvironmentOutputs), adopt: inputs.adopt };
    const noted = createdNote(ENVIRONMENT_NOTE, adopted.id);
    const tokens = z.array(SdkKeyRef).safeParse(noted?.apiTokens);
    if (outs.apiTokens.length > 0) return { id: adopted.id, outs: plain(outs) };
    if (tokens.success && noted?.workspaceId === outs.workspaceId)
      return { id: adopted.id, outs: plain({ ...outs, apiTokens: tokens.data }) };
    return {
      id: adopted.id,
      outs: plain(outs),
      note:
        `adopted environment "${outs.name}" in workspace "${outs.workspaceName}"; its SDK keys are unknown ` +
        "(the create's answer was lost): revoke them in the admin settings before `pulumi destroy`",
    };
  },

  async lookup(inputs) {
    const admin = adminClient();
    const workspace = await resolveWorkspace(admin, inputs.workspace);
    return (await admin.environments.find(workspace.id, inputs.name)) && {};
  },
};

/**
 * An environment of a feature-flag workspace, with the SDK keys the service makes for it.
 *
 * @example
 * ```ts
 * const reviewers = new Group("reviewers", { name: "release-reviewers" });
 * const prod = new Environment("prod", {
 *   workspace: "Default",
 *   name: "Production-EU",
 *   production: true,
 *   changePermissions: { areApprovalsRequired: true, approvers: [{ type: "group", id: reviewers.groupId }] },
 * });
 * export const serverKey = prod.serverSideSdkKey; // a secret
 * ```
 */
export const Environment = withSecretOutputs(
  resourceClass("environment", ENVIRONMENT_TYPE, EnvironmentInputs, EnvironmentOutputs),
  ["serverSideSdkKey", "clientSideSdkKey"],
);
/** An {@link Environment} object: one `Output` per member of {@link EnvironmentOutputs}. */
export type Environment = InstanceType<typeof Environment>;
/** What the engine stores as each object's `__provider`: a require of {@link impl}, no code, no secret. */
export const environmentProviderText = Environment.providerText;

/** The kind's one definition: what every registry, door, doc and kind-wide test reads (`../core/kind.ts`). */
export const kind = defineKind({
  resource: Environment,
  impl,
  area: "flags",
  replaceOnChange: environmentReplaceOnChange,
  importId: IMPORT_ID,
  policy: ["workspace", "name", "production", "changePermissions"],
  doc: {
    what: "an environment of a workspace; the SDK keys made with it are secret outputs",
    replaces: "workspace",
    updates: "name, production, change permissions (one guarded PATCH)",
  },
  example: { inputs: { workspace: "Default", name: "qa", production: false }, unique: ["name"] },
});
