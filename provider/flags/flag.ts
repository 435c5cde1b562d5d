/**
 * `Flag`: a feature flag at workspace level: name, traffic type, description, tags, rollout status
 * (spec §2 "Feature flag", §4 "Flags").
 *
 * | verb | API call |
 * |---|---|
 * | check | none: the zod schema below |
 * | diff | none: `name`, `workspace` and `trafficType` replace (delete first: names are unique); `description`, `tags` and `rolloutStatus` update in place |
 * | create | workspace, traffic type and rollout status lists (once per process); `POST /splits/ws/{ws}/trafficTypes/{tt}`; then one `PATCH` for tags, rollout status and owners when given (tags cannot be set on create, ref admin §1.1) |
 * | read | the workspace's flag list `GET /splits/ws/{ws}?offset&limit=50`, once for every read of the workspace in one engine operation (`../core/list-reads.ts`); a flag missing from it, or a read outside an engine operation, `GET /splits/ws/{ws}/{id}`; a 404 reports the flag gone. An import reads `GET /splits/ws/{ws}/{name}` alone |
 * | update | `GET /splits/ws/{ws}/{id}` (the guard's read, never a list), then one `PATCH /splits/ws/{ws}/{name}` with one `replace` per changed field: `/description`, `/tags`, `/rolloutStatus/id` (ref admin §1.1), `/owners` (inferred: see `emulator/admin/flag.ts`) |
 * | delete | `DELETE /splits/ws/{ws}/{name}` (removes every environment's definition too, spec §3); a 404 counts as done. First, in each environment that requires approvals (the workspace's environment list and one dry-run `PATCH .../environments/ws/{ws}/{env}?dry_run=true` each, once per process), `GET .../splits/ws/{ws}/{name}/environments/{env}`: a definition there is deleted through an ARCHIVE change request (`GET /changeRequests?status=REQUESTED&environmentId=`, an open one found rather than submitted twice, else `POST /changeRequests/ws/{ws}/environments/{env}`), and the delete fails, naming each environment and request, until every one is approved: `deletedWith` never removes a definition behind the gate (`../core/change-request.ts` `ownerDeleteGate`) |
 * @module
 */
import { z } from "zod";
import {
  FlagCreate,
  type Flag as FlagResponse,
  type JsonPatch,
  LIMITS,
  ROLLOUT_STATUS_NAMES,
} from "../../sdk/admin/schemas";
import { ownerDeleteGate, requestNote } from "../core/change-request";
import { adminClient } from "../core/config";
import type { DiffSpec } from "../core/diff";
import { guardedUpdate } from "../core/guard";
import { defineKind } from "../core/kind";
import {
  createOrAdopt,
  deleteIdempotent,
  GONE,
  PartialFailure,
  readOrGone,
  resourceHandlers,
} from "../core/lifecycle";
import { listRead } from "../core/list-reads";
import { definitionArchive, definitionDeleteNote } from "../core/owned-archive";
import { resolveRolloutStatus, resolveTrafficType, resolveWorkspace } from "../core/resolve";
import { plain, type ResourceArgs, type ResourceHandlers, resourceClass } from "../core/resource";
import { FLAG_TYPE } from "../types";

const tagList = z
  .array(z.string().min(1, "a tag must not be empty").max(256, "a tag must be at most 256 characters"))
  .default([])
  .transform((tags) => [...new Set(tags)].sort());

/** Who owns a flag: a user or a group, by id (the GET's `owners:[{id,type}]`, ref admin §1.1). */
export const FlagOwner = z.strictObject({
  type: z.enum(["user", "group"], { error: 'owners[].type must be "user" or "group"' }),
  /** The user's or group's id (`UserInvite.userId`, `Group.groupId`). */
  id: z.string().min(1, "owners[].id must not be empty"),
});
/** One owner of a flag. */
export type FlagOwner = z.output<typeof FlagOwner>;

/** Owners as a set: sorted by type and id, duplicates dropped. */
function ownerSet(owners: readonly FlagOwner[]): FlagOwner[] {
  const seen = new Map(owners.map((o) => [`${o.type}:${o.id}`, { type: o.type, id: o.id }]));
  return [...seen.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, o]) => o);
}

/** The inputs of a {@link Flag}. */
export const FlagInputs = z.strictObject({
  /** The workspace (project) of the flag, by name or id. Changing it replaces the flag. */
  workspace: z.string().min(1, "workspace must not be empty"),
  /** The traffic type, by name (or id). Default `user`. Changing it replaces the flag. */
  trafficType: z.string().min(1, "trafficType must not be empty").default("user"),
  /** The flag's name, unique in the workspace. Changing it replaces the flag. */
  name: FlagCreate.shape.name,
  /** What the flag is for. Default: empty. */
  description: FlagCreate.shape.description,
  /** Tags, a set: order and duplicates do not matter. Default: none. */
  tags: tagList,
  /**
   * The rollout status, by name: one of {@link ROLLOUT_STATUS_NAMES} (`Pre-Production`,
   * `Ramping`, ...). When omitted, the service's value is left alone (new flags start in
   * Pre-Production).
   */
  rolloutStatus: z
    .string()
    .refine((s) => (ROLLOUT_STATUS_NAMES as readonly string[]).includes(s), {
      error: (issue) =>
        `rolloutStatus "${String(issue.input)}" is not a rollout status; valid: ${ROLLOUT_STATUS_NAMES.map((n) => `"${n}"`).join(", ")}`,
    })
    .optional(),
  /**
   * The flag's owners, a set of users and groups by id (`{ type: "group", id: team.groupId }`).
   * Only current owners may change them in the UI; the admin API key may always. When omitted,
   * the service's owners are left alone.
   */
  owners: z.array(FlagOwner).transform(ownerSet).optional(),
  /** Take over an existing flag with the same name instead of failing. Default: false. */
  adopt: z.boolean().default(false),
});

/** The outputs of a {@link Flag}: the inputs (with the service's values) plus ids and times. */
export const FlagOutputs = FlagInputs.extend({
  rolloutStatus: z.string(),
  owners: z.array(FlagOwner),
  /** The flag's id (also the resource id). */
  flagId: z.string(),
  /** Creation time, epoch milliseconds. */
  creationTime: z.number().int(),
  /** The rollout status's id. */
  rolloutStatusId: z.string(),
  /** When the rollout status last changed, epoch milliseconds. */
  rolloutStatusTimestamp: z.number().int(),
  /** The workspace's id. */
  workspaceId: z.string(),
  /** The workspace's name. */
  workspaceName: z.string(),
  /** The traffic type's id. */
  trafficTypeId: z.string(),
});

/** Checked inputs of a flag. */
export type FlagInputs = z.output<typeof FlagInputs>;
/** Outputs of a flag. */
export type FlagOutputs = z.output<typeof FlagOutputs>;
/** The arguments of `new Flag(...)`. */
export type FlagArgs = ResourceArgs<z.input<typeof FlagInputs>>;

/** Inputs whose change replaces a flag: its natural key. */
export const flagReplaceOnChange = [
  "name",
  "workspace",
  "trafficType",
] as const satisfies readonly (keyof FlagInputs)[];

/** The inputs with a meaning on the service (all but `adopt`). */
type FlagField = Exclude<keyof FlagInputs, "adopt">;

const sameText = (a: unknown, b: unknown) => typeof a === "string" && typeof b === "string" && a === b;

const flagDiff: DiffSpec<FlagField> = {
  fields: ["name", "workspace", "trafficType", "description", "tags", "rolloutStatus", "owners"],
  replaceOnChange: flagReplaceOnChange,
  deleteBeforeReplace: true,
  rules: {
    // The same workspace given by name or by id is no change (the state holds both).
    workspace: {
      equals: (o, n, olds) =>
        sameText(n, o) || sameText(n, olds.workspaceId) || sameText(n, olds.workspaceName),
    },
    trafficType: { equals: (o, n, olds) => sameText(n, o ?? "user") || sameText(n, olds.trafficTypeId) },
    description: { normalize: (v) => v ?? "" },
    tags: { normalize: (v) => [...new Set((v as string[] | undefined) ?? [])].sort() },
    // Omitted: the service's value is not managed (a recorded value is still compared with the
    // live one by the guard, see `FieldRule.optional`).
    rolloutStatus: {
      optional: true,
      equals: (o, n, olds) => o === n || sameText(n, o) || sameText(n, olds.rolloutStatusId),
    },
    // Omitted: the service's owners are not managed; given: compared as a set.
    owners: {
      optional: true,
      normalize: (v) => ownerSet((v as FlagOwner[] | undefined) ?? []),
    },
  },
};

function tagNames(flag: FlagResponse): string[] {
  return [...new Set((flag.tags ?? []).map((t) => t.name))].sort();
}

function outputs(
  flag: FlagResponse,
  workspace: { id: string; name: string },
  inputs: Pick<FlagInputs, "workspace" | "adopt">,
): FlagOutputs {
  return plain({
    workspace: inputs.workspace,
    trafficType: flag.trafficType.name,
    name: flag.name,
    description: flag.description,
    tags: tagNames(flag),
    rolloutStatus: flag.rolloutStatus.name,
    owners: ownerSet((flag.owners ?? []) as FlagOwner[]),
    adopt: inputs.adopt,
    flagId: flag.id,
    creationTime: flag.creationTime,
    rolloutStatusId: flag.rolloutStatus.id,
    rolloutStatusTimestamp: flag.rolloutStatusTimestamp,
    workspaceId: workspace.id,
    workspaceName: workspace.name,
    trafficTypeId: flag.trafficType.id,
  });
}

/**
 * The one-PATCH body that takes `live` to the desired description, tags, rollout status and
 * owners: one `replace` per field that differs, so the patch does not depend on array positions.
 * @internal
 */
export function flagPatch(
  live: {
    description: string;
    tags: readonly string[];
    rolloutStatusId: string;
    owners?: readonly FlagOwner[];
  },
  desired: {
    description: string;
    tags: readonly string[];
    rolloutStatusId?: string | undefined;
    owners?: readonly FlagOwner[] | undefined;
  },
): JsonPatch {
  const ops: JsonPatch = [];
  if (live.description !== desired.description)
    ops.push({ op: "replace", path: "/description", value: desired.description });
  const wantTags = [...new Set(desired.tags)].sort();
  if (JSON.stringify(wantTags) !== JSON.stringify([...live.tags].sort())) {
    ops.push({ op: "replace", path: "/tags", value: wantTags.map((name) => ({ name })) });
  }
  if (desired.rolloutStatusId !== undefined && desired.rolloutStatusId !== live.rolloutStatusId) {
    ops.push({ op: "replace", path: "/rolloutStatus/id", value: desired.rolloutStatusId });
  }
  if (desired.owners !== undefined) {
    const want = ownerSet(desired.owners);
    if (JSON.stringify(want) !== JSON.stringify(ownerSet(live.owners ?? []))) {
      ops.push({ op: "replace", path: "/owners", value: want.map((o) => ({ id: o.id, type: o.type })) });
    }
  }
  return ops;
}

/**
 * The `read` result of a flag as the service shows it (`undefined`: gone), with the recorded
 * inputs that the service does not show (`workspace` as the program gave it, `adopt`).
 */
function readResult(flag: FlagResponse | undefined, props: FlagOutputs) {
  if (!flag) return GONE;
  const outs = outputs(flag, { id: props.workspaceId, name: props.workspaceName }, props);
  const sameTrafficType = props.trafficTypeId === flag.trafficType.id;
  const inputs = plain({
    workspace: props.workspace,
    trafficType: sameTrafficType ? props.trafficType : flag.trafficType.name,
    name: outs.name,
    description: outs.description,
    tags: outs.tags,
    rolloutStatus: outs.rolloutStatus,
    // An import writes no `owners: []` into the program; owners it finds are written.
    owners: outs.owners.length > 0 ? outs.owners : undefined,
    adopt: props.adopt,
  });
  return { id: flag.id, props: outs, inputs };
}

/**
 * The `read` of `pulumi import` (native provider), which has the id alone and no state: the id is
 * the flag's natural key `<workspace>/<name>` (the workspace by name or id, e.g.
 * `Default/new-checkout`). The flag is then read as a refresh reads it, under its service id, with
 * the inputs a program would write (`workspace` as the id gives it).
 */
async function importFlag(importId: string): ReturnType<ResourceHandlers<FlagInputs, FlagOutputs>["read"]> {
  const cut = importId.lastIndexOf("/");
  if (cut <= 0 || cut === importId.length - 1) {
    throw new Error(`flag import id "${importId}" must be <workspace>/<name>, e.g. Default/new-checkout`);
  }
  const admin = adminClient();
  const workspace = await resolveWorkspace(admin, importId.slice(0, cut));
  const flag = await readOrGone(() => admin.flags.get(workspace.id, importId.slice(cut + 1)));
  if (!flag) return GONE;
  return readResult(flag, outputs(flag, workspace, { workspace: importId.slice(0, cut), adopt: false }));
}

/**
 * The provider: every lifecycle method. Each resource's `__provider` text
 * ({@link flagProviderText}) loads this object in the provider process; the tests call it directly.
 */
export const impl: ResourceHandlers<FlagInputs, FlagOutputs> = resourceHandlers(
  { schema: FlagInputs },
  flagDiff,
  {
    async create(inputs) {
      const admin = adminClient();
      const workspace = await resolveWorkspace(admin, inputs.workspace);
      const trafficType = await resolveTrafficType(admin, workspace, inputs.trafficType);
      // Resolved before anything is written, so an unknown status fails without creating the flag.
      const status =
        inputs.rolloutStatus === undefined
          ? undefined
          : await resolveRolloutStatus(admin, workspace, inputs.rolloutStatus);
      const { value: flag, how } = await createOrAdopt({
        describe: `a flag named "${inputs.name}" in workspace "${workspace.name}"`,
        adopt: inputs.adopt,
        lookup: () => readOrGone(() => admin.flags.get(workspace.id, inputs.name)),
        create: () =>
          admin.flags.create(workspace.id, trafficType.name, {
            name: inputs.name,
            description: inputs.description,
          }),
      });
      if (how === "adopted" && flag.trafficType.id !== trafficType.id) {
        throw new Error(
          `flag "${inputs.name}" in workspace "${workspace.name}" exists with traffic type "${flag.trafficType.name}", not "${trafficType.name}"; a flag's traffic type cannot change`,
        );
      }
      const ops = flagPatch(
        {
          description: flag.description,
          tags: tagNames(flag),
          rolloutStatusId: flag.rolloutStatus.id,
          owners: (flag.owners ?? []) as FlagOwner[],
        },
        {
          description: inputs.description,
          tags: inputs.tags,
          rolloutStatusId: status?.id,
          owners: inputs.owners,
        },
      );
      if (ops.length === 0) return { id: flag.id, outs: outputs(flag, workspace, inputs) };
      try {
        const patched = await admin.flags.patch(workspace.id, flag.name, ops);
        return { id: patched.id, outs: outputs(patched, workspace, inputs) };
      } catch (e) {
        throw new PartialFailure(
          flag.id,
          outputs(flag, workspace, inputs),
          e,
          "setting tags, rollout status and owners",
        );
      }
    },

    async read(id, props) {
      if (props.workspaceId === undefined) return importFlag(id);
      const admin = adminClient();
      return readResult(
        await listRead({
          client: admin,
          scope: `flags of workspace ${props.workspaceId}`,
          key: id,
          list: () => admin.flags.list(props.workspaceId),
          pageSize: LIMITS.flagsMax,
          keys: (f) => [f.id, f.name],
          single: () => admin.flags.get(props.workspaceId, id),
        }),
        props,
      );
    },

    async update(id, olds, news) {
      const admin = adminClient();
      const workspace = { id: olds.workspaceId, name: olds.workspaceName };
      return guardedUpdate({
        describe: `flag "${olds.name}" in workspace "${workspace.name}"`,
        spec: flagDiff,
        recorded: olds,
        desired: news,
        // A single fresh GET, never a shared list (`../core/list-reads.ts`).
        read: async () => readResult(await readOrGone(() => admin.flags.get(olds.workspaceId, id)), olds),
        write: async (fields, live) => {
          let status: { id: string } | undefined;
          if (fields.includes("rolloutStatus") && news.rolloutStatus !== undefined) {
            const ws = await resolveWorkspace(admin, olds.workspaceId);
            status = await resolveRolloutStatus(admin, ws, news.rolloutStatus);
          }
          const ops = flagPatch(
            {
              description: live.description,
              tags: live.tags,
              rolloutStatusId: live.rolloutStatusId,
              owners: live.owners,
            },
            {
              description: fields.includes("description") ? news.description : live.description,
              tags: fields.includes("tags") ? news.tags : live.tags,
              rolloutStatusId: status?.id,
              owners: fields.includes("owners") ? news.owners : undefined,
            },
          );
          if (ops.length === 0)
            return { ...live, adopt: news.adopt, workspace: news.workspace, trafficType: news.trafficType };
          return outputs(await admin.flags.patch(workspace.id, olds.name, ops), workspace, news);
        },
      });
    },

    async delete(_id, props) {
      const admin = adminClient();
      // The DELETE takes the flag's definitions with it (their resources are `deletedWith` it): in
      // an environment that requires approvals, only once an approved ARCHIVE request removed them.
      await ownerDeleteGate({
        admin,
        wsId: props.workspaceId,
        describe: `flag "${props.name}" in workspace "${props.workspaceName}"`,
        noun: "flag",
        holds: "definitions",
        archiveIn: async (env) =>
          (await readOrGone(() => admin.definitions.get(props.workspaceId, props.name, env.id))) &&
          definitionArchive(props.workspaceId, env, props.name),
        note: (s) => requestNote(undefined, definitionDeleteNote(props.name, s.environmentName)),
      });
      await deleteIdempotent(() => admin.flags.delete(props.workspaceId, props.name));
    },

    async lookup(inputs) {
      const admin = adminClient();
      const workspace = await resolveWorkspace(admin, inputs.workspace);
      const flag = await readOrGone(() => admin.flags.get(workspace.id, inputs.name));
      return flag && { createdAt: flag.creationTime };
    },
  },
);

/**
 * A feature flag.
 *
 * @example
 * ```ts
 * const checkout = new Flag("checkout", {
 *   workspace: "Default",
 *   name: "new-checkout",
 *   description: "The one-page checkout",
 *   tags: ["payments"],
 *   rolloutStatus: "Ramping",
 *   owners: [{ type: "group", id: payments.groupId }],
 * });
 * ```
 */
export const Flag = resourceClass("flag", FLAG_TYPE, FlagInputs, FlagOutputs);
/** A {@link Flag} object: one `Output` per member of {@link FlagOutputs}. */
export type Flag = InstanceType<typeof Flag>;
/** What the engine stores as each object's `__provider`: a require of {@link impl}, no code, no secret. */
export const flagProviderText = Flag.providerText;

/** The kind's one definition: what every registry, door, doc and kind-wide test reads (`../core/kind.ts`). */
export const kind = defineKind({
  resource: Flag,
  impl,
  area: "flags",
  replaceOnChange: flagReplaceOnChange,
  importId: { form: "<workspace>/<name>", example: "Default/new-checkout" },
  policy: ["name", "workspace", "trafficType", "tags", "rolloutStatus"],
  doc: {
    what: "a feature flag at workspace level",
    replaces: "name, workspace, traffic type",
    updates: "description, tags, rollout status (one JSON Patch)",
  },
  example: {
    inputs: {
      workspace: "Default",
      trafficType: "user",
      name: "new-checkout",
      description: "The one-page checkout",
      tags: ["owner:payments"],
    },
    unique: ["name"],
  },
});
