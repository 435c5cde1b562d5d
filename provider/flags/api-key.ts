/**
 * `ApiKey`: an admin, server-side or client-side API key of the feature-flag account, scoped to a
 * workspace and its environments (ref admin §1.1 "api keys", §9.1 `split_api_key`).
 *
 * | verb | API call |
 * |---|---|
 * | check | none: the zod schema below, and the rules the service applies (an SDK key belongs to exactly one environment; roles are for admin keys) |
 * | diff | none: every input replaces (the API cannot change a key), the new key made before the old is revoked |
 * | create | workspace and environment lists (once per process); `POST /apiKeys`, whose answer carries the key, stored as a secret output (`../core/secret-outputs.ts`) |
 * | read | none: the API has no read or list of keys (ref §1.1, §9.1 "not importable"), so the recorded outputs are returned as they are |
 * | recover | `flagstack recover` of a killed `up`'s key: adopted by the id its create noted on this machine (`../core/created-journal.ts`), without its key string, so the next `up` replaces it; without a note, reported as unknown (`unseen`) |
 * | update | none on the service: nothing changes in place |
 * | delete | `DELETE /apiKeys/{id}` (revokes it); a 404 counts as done |
 *
 * Because a key cannot be read, a create whose answer was lost cannot be recovered by a look-up:
 * the create fails saying that a key may have been made (revoke it in the UI). For `flagstack
 * recover` after a killed `pulumi up`, the create notes the new key's id (never the key) on this
 * machine once the answer reached the provider process (`../core/created-journal.ts`): `lookup`
 * finds that note, and `recover` adopts the key by its id. The key string is not recoverable, so
 * the adopted key's `key` output is absent, and the next `up` replaces it (a new key, then the
 * adopted one revoked): a program that exports the key gets a working one. Where no note exists
 * (the answer never reached the provider), nothing can tell whether a key was made: the kind
 * declares `unseen`, and `recover` reports the pending create as unknown, names the key to revoke
 * in the admin settings, and drops it (the next `up` creates a key). A key revoked outside Pulumi
 * is not noticed by a refresh either. There is no `getApiKey` lookup for the same reason.
 * @module
 */
import { z } from "zod";
import { API_KEY_ROLES, ApiKeyCreate, ApiKeyType } from "../../sdk/admin/api-key";
import { isOutcomeUnknown } from "../../sdk/core/errors";
import type { InputProblem } from "../core/check";
import { adminClient } from "../core/config";
import { createNoted, findNote } from "../core/created-journal";
import { type DiffSpec, jsonEqual } from "../core/diff";
import { door } from "../core/door";
import { defineKind } from "../core/kind";
import { deleteIdempotent } from "../core/lifecycle";
import { resolveEnvironment, resolveWorkspace } from "../core/resolve";
import { dataVerbs, plain, type ResourceArgs, type ResourceHandlers, resourceClass } from "../core/resource";
import { withSecretOutputs } from "../core/secret-outputs";
import { asSet, setRule, workspaceRule } from "../core/workspace-fields";
import { API_KEY_TYPE } from "../types";

/** The inputs of an {@link ApiKey}. */
export const ApiKeyInputs = z.strictObject({
  /** The key's name (at most 100 characters). */
  name: ApiKeyCreate.shape.name,
  /** `admin`, `server_side` or `client_side`. */
  apiKeyType: ApiKeyType,
  /** The workspace the key is scoped to, by name or id. */
  workspace: z.string().min(1, "workspace must not be empty"),
  /**
   * The environments of the workspace the key is scoped to, by name or id, a set: exactly one for
   * an SDK key; any for an admin key (none: the whole workspace). Default: none.
   */
  environments: z.array(z.string().min(1, "an environment must not be empty")).default([]).transform(asSet),
  /** The roles of an admin key (`API_ALL_GRANTED`, ...), a set. Default: none. */
  roles: z
    .array(z.enum(API_KEY_ROLES, { error: `a role must be one of ${API_KEY_ROLES.join(", ")}` }))
    .default([])
    .transform((roles) => asSet(roles) as typeof roles),
});

/** The outputs of an {@link ApiKey}: the inputs plus its id, scope ids and the key itself. */
export const ApiKeyOutputs = ApiKeyInputs.extend({
  /** The key's id (also the resource id). */
  apiKeyId: z.string(),
  /** The workspace's id. */
  workspaceId: z.string(),
  /** The workspace's name. */
  workspaceName: z.string(),
  /** The ids of {@link environments}, in the same order. */
  environmentIds: z.array(z.string()),
  /** The key. A secret: encrypted in the state, and shown by the service only when it was made. */
  key: z.string(),
});

/** Checked inputs of an API key. */
export type ApiKeyInputs = z.output<typeof ApiKeyInputs>;
/** Outputs of an API key. */
export type ApiKeyOutputs = z.output<typeof ApiKeyOutputs>;
/** The arguments of `new ApiKey(...)`. */
export type ApiKeyArgs = ResourceArgs<z.input<typeof ApiKeyInputs>>;

/** Inputs whose change replaces a key: every one (the API cannot change a key). */
export const apiKeyReplaceOnChange = [
  "name",
  "apiKeyType",
  "workspace",
  "environments",
  "roles",
] as const satisfies readonly (keyof ApiKeyInputs)[];

const apiKeyDiff: DiffSpec<keyof ApiKeyInputs> = {
  fields: apiKeyReplaceOnChange,
  replaceOnChange: apiKeyReplaceOnChange,
  rules: {
    workspace: workspaceRule,
    // The same environments by names or by ids are no change (the state holds both).
    environments: {
      equals: (o, n, olds) =>
        [o, olds.environmentIds].some((recorded) =>
          jsonEqual(asSet(n as string[]), asSet(recorded as string[])),
        ),
    },
    roles: setRule,
  },
};

/** What the service refuses and no single field can check. */
function scopeProblems(inputs: ApiKeyInputs): InputProblem[] {
  const problems: InputProblem[] = [];
  if (inputs.apiKeyType !== "admin" && inputs.environments.length !== 1)
    problems.push({
      path: ["environments"],
      message: `a ${inputs.apiKeyType} key belongs to exactly one environment; ${inputs.environments.length} given`,
    });
  if (inputs.apiKeyType !== "admin" && inputs.roles.length > 0)
    problems.push({ path: ["roles"], message: "roles are for admin keys only" });
  return problems;
}

/** The created journal's kind of an API key's note. */
const API_KEY_NOTE = "api-key";

/** What an API key's note records: how it was asked for, by ids (never the key). */
const ApiKeyNote = z.object({
  name: z.string(),
  apiKeyType: z.string(),
  /** The workspace's id. */
  workspaceId: z.string(),
  environmentIds: z.array(z.string()),
});

/** The latest note of a key made as `inputs` ask, with the workspace and environments resolved. */
async function notedKey(inputs: ApiKeyInputs) {
  const admin = adminClient();
  const workspace = await resolveWorkspace(admin, inputs.workspace);
  const environments = await Promise.all(
    inputs.environments.map((e) => resolveEnvironment(admin, workspace, e)),
  );
  const wanted = {
    name: inputs.name,
    apiKeyType: inputs.apiKeyType,
    workspaceId: workspace.id,
    environmentIds: environments.map((e) => e.id).sort(),
  };
  const note = findNote(API_KEY_NOTE, (data) => {
    const parsed = ApiKeyNote.safeParse(data);
    return (
      parsed.success &&
      jsonEqual({ ...parsed.data, environmentIds: [...parsed.data.environmentIds].sort() }, wanted)
    );
  });
  return note && { ...note, workspace, environments };
}

const verbs = dataVerbs({ schema: ApiKeyInputs, validate: scopeProblems }, apiKeyDiff);

/**
 * The provider: every lifecycle method. Each resource's `__provider` text
 * ({@link apiKeyProviderText}) loads this object in the provider process; the tests call it directly.
 */
export const impl: ResourceHandlers<ApiKeyInputs, ApiKeyOutputs> = {
  ...verbs,

  async create(inputs) {
    const admin = adminClient();
    const workspace = await resolveWorkspace(admin, inputs.workspace);
    const environments = await Promise.all(
      inputs.environments.map((e) => resolveEnvironment(admin, workspace, e)),
    );
    try {
      // The answer is the one place that shows the key's id: noted for `flagstack recover`.
      const made = await createNoted(
        API_KEY_NOTE,
        () =>
          admin.apiKeys.create({
            name: inputs.name,
            apiKeyType: inputs.apiKeyType,
            ...(inputs.apiKeyType === "admin" ? { roles: inputs.roles } : {}),
            environments: environments.map((e) => ({ type: "environment" as const, id: e.id })),
            workspace: { type: "workspace", id: workspace.id },
          }),
        (answer) => ({
          id: answer.id,
          data: {
            name: inputs.name,
            apiKeyType: inputs.apiKeyType,
            workspaceId: workspace.id,
            environmentIds: environments.map((e) => e.id),
          },
        }),
      );
      const outs = plain({
        ...inputs,
        apiKeyId: made.id,
        workspaceId: workspace.id,
        workspaceName: workspace.name,
        environmentIds: environments.map((e) => e.id),
        key: made.key,
      });
      return { id: made.id, outs };
    } catch (e) {
      if (!isOutcomeUnknown(e)) throw e;
      throw new Error(
        `the answer to creating API key "${inputs.name}" was lost (${(e as Error).message}); a key may have been made, and the API cannot look keys up: revoke any key named "${inputs.name}" in the UI, then run ${door().apply} again`,
        { cause: e },
      );
    }
  },

  async diff(id, olds, news) {
    const d = await verbs.diff(id, olds, news);
    // Adopted by `flagstack recover` without its key string: replaced, so the state holds a key.
    if (olds.key !== undefined || olds.apiKeyId === undefined) return d;
    return { ...d, changes: true, replaces: [...(d.replaces ?? []), "key"], deleteBeforeReplace: false };
  },

  async read(id, props) {
    // No read in the API: what was recorded is all there is (the key included). Without a record
    // (`pulumi import`, which has the id alone) there is nothing to read a key from; a key
    // `flagstack recover` adopted is recorded without its key string.
    if (props?.key === undefined && props?.apiKeyId === undefined) {
      throw new Error(
        `an API key cannot be imported (id ${JSON.stringify(id)}): the API never shows a key again after it is made. Declare a new ApiKey and revoke the old key.`,
      );
    }
    const { name, apiKeyType, workspace, environments, roles } = props;
    return { id, props, inputs: { name, apiKeyType, workspace, environments, roles } as ApiKeyOutputs };
  },

  async update(_id, olds, news) {
    // Every semantic input replaces, so an update changes nothing on the service.
    return { outs: { ...olds, workspace: news.workspace, environments: news.environments } };
  },

  async delete(id) {
    await deleteIdempotent(() => adminClient().apiKeys.revoke(id));
  },

  async lookup(inputs) {
    // Keys cannot be looked up (no read or list, ref §9.1): only the note of a create this machine saw.
    const note = await notedKey(inputs);
    return note && { createdAt: note.at };
  },

  unseen: (inputs, recordedId) =>
    `the create of ApiKey named "${inputs.name}" may have made a key that nothing manages: revoke any key named "${inputs.name}" in the admin settings` +
    (recordedId === undefined
      ? `; the next ${door().apply} creates a new one`
      : ` but the one the state records (id ${recordedId})`),

  /**
   * `flagstack recover` of the key a killed `pulumi up` made, by the id its create noted: adopted
   * without its key string (shown only in the create's answer), so the next `up` replaces it.
   */
  async recover(inputs) {
    const note = await notedKey(inputs);
    if (note === undefined) throw new Error(`no note of a key named "${inputs.name}" on this machine`);
    const outs = plain({
      ...inputs,
      apiKeyId: note.id,
      workspaceId: note.workspace.id,
      workspaceName: note.workspace.name,
      environmentIds: note.environments.map((e) => e.id),
    }) as ApiKeyOutputs;
    return {
      id: note.id,
      outs,
      note: `adopted API key "${inputs.name}" (id ${note.id}); its key was shown only in the create's answer, which was lost: the next \`pulumi up\` replaces it (a new key, then this one revoked)`,
    };
  },
};

/**
 * An API key. Its value is the secret output `key`.
 *
 * @example
 * ```ts
 * const staging = new Environment("staging", { workspace: "Default", name: "Staging" });
 * const server = new ApiKey("checkout-server", {
 *   name: "checkout-server",
 *   apiKeyType: "server_side",
 *   workspace: "Default",
 *   environments: [staging.name],
 * });
 * export const serverKey = server.key; // a secret
 * ```
 */
export const ApiKey = withSecretOutputs(resourceClass("api-key", API_KEY_TYPE, ApiKeyInputs, ApiKeyOutputs), [
  "key",
]);
/** An {@link ApiKey} object: one `Output` per member of {@link ApiKeyOutputs}. */
export type ApiKey = InstanceType<typeof ApiKey>;
/** What the engine stores as each object's `__provider`: a require of {@link impl}, no code, no secret. */
export const apiKeyProviderText = ApiKey.providerText;

/** The kind's one definition: what every registry, door, doc and kind-wide test reads (`../core/kind.ts`). */
export const kind = defineKind({
  resource: ApiKey,
  impl,
  area: "flags",
  replaceOnChange: apiKeyReplaceOnChange,
  importId: undefined,
  policy: ["name", "apiKeyType", "workspace", "environments", "roles"],
  doc: {
    what: "an admin, server-side or client-side API key; the key is a secret output",
    replaces: "every input (the new key is made before the old is revoked)",
    updates: "",
  },
  example: {
    inputs: {
      name: "payments-staging-server",
      apiKeyType: "server_side",
      workspace: "Default",
      environments: ["Staging"],
    },
    unique: ["name"],
  },
});
