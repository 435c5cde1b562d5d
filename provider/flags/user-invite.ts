/**
 * `UserInvite`: a person invited to the account by e-mail, and their group memberships (spec §2
 * "User", §3 "User status", §4 "Users"). Users cannot be created, only invited; the invited person
 * completes registration themselves (PENDING → ACTIVE), which a refresh picks up.
 *
 * | verb | API call |
 * |---|---|
 * | check | none: the zod schema below |
 * | diff | none: `email` replaces; `groups` updates in place; `onDelete` changes only the state; a user DEACTIVATED outside Pulumi (seen by refresh) is a change |
 * | create | the group list (when groups are named); `POST /users {email, groups}`; with `adopt`, first the user list to find the e-mail |
 * | read | `GET /users/{id}`; a 404 reports the user gone; the status output follows PENDING → ACTIVE |
 * | update | `GET /users/{id}`, compared with the recorded state (`../core/guard.ts`); the group list when a new group is named; a user recorded DEACTIVATED is made ACTIVE again with `PUT /users/{id}` (every property, spec §4); one `PATCH /users/{id}` removing (each guarded by a `test` of the group id, ref admin §5) and adding memberships |
 * | delete | `GET /users/{id}`; PENDING: `DELETE /users/{id}`; ACTIVE: per `onDelete`, `deactivate` (default) sends `PUT /users/{id}` with every property and status DEACTIVATED (spec §4: PUT is not partial), `retain` leaves the user, `fail` refuses; DEACTIVATED or gone: nothing |
 * @module
 */
import type * as pulumi from "@pulumi/pulumi";
import { z } from "zod";
import type { AdminClient } from "../../sdk/admin/client";
import { type JsonPatch, type User, UserInviteBody } from "../../sdk/admin/schemas";
import { ApiError, isNotFound } from "../../sdk/core/errors";
import { checkWith } from "../core/check";
import { adminClient } from "../core/config";
import { type DiffSpec, diffInputs } from "../core/diff";
import { guardedUpdate } from "../core/guard";
import { defineKind } from "../core/kind";
import { createOrAdopt, deleteIdempotent, GONE, readOrGone } from "../core/lifecycle";
import { resolveGroups } from "../core/resolve";
import { configure, plain, type ResourceArgs, type ResourceHandlers, resourceClass } from "../core/resource";
import { USER_INVITE_TYPE } from "../types";

/** What deleting the resource does to a user who has accepted the invitation. */
export const ON_DELETE = ["deactivate", "retain", "fail"] as const;

/** The inputs of a {@link UserInvite}. */
export const UserInviteInputs = z.strictObject({
  /** The e-mail address invited. Changing it replaces the invite. */
  email: UserInviteBody.shape.email,
  /** Groups the user belongs to, by name or id; a set. Default: none. */
  groups: z
    .array(z.string().min(1, "a group must not be empty"))
    .default([])
    .transform((g) => [...new Set(g)]),
  /**
   * What deleting the resource does once the user is ACTIVE: `deactivate` (default) sets status
   * DEACTIVATED, `retain` leaves the user as is, `fail` makes the delete fail. A PENDING invitation
   * is always deleted.
   */
  onDelete: z
    .enum(ON_DELETE, { error: `onDelete must be one of ${ON_DELETE.map((v) => `"${v}"`).join(", ")}` })
    .default("deactivate"),
  /** Take over an existing user with the same e-mail instead of failing. Default: false. */
  adopt: z.boolean().default(false),
});

/** The outputs of a {@link UserInvite}. */
export const UserInviteOutputs = UserInviteInputs.extend({
  /** The user's id (also the resource id). */
  userId: z.string(),
  /** The user's name (derived from the e-mail on invitation). */
  name: z.string(),
  /** PENDING until the invitation is accepted, then ACTIVE; DEACTIVATED after deactivation. */
  status: z.string(),
  /** Whether two-factor authentication is on. */
  twoFactor: z.boolean(),
  /** Ids of the user's groups, sorted. */
  groupIds: z.array(z.string()),
  /** Names of the user's groups, in the order of `groupIds`. */
  groupNames: z.array(z.string()),
});

/** Checked inputs of a user invite. */
export type UserInviteInputs = z.output<typeof UserInviteInputs>;
/** Outputs of a user invite. */
export type UserInviteOutputs = z.output<typeof UserInviteOutputs>;
/** The arguments of `new UserInvite(...)`. */
export type UserInviteArgs = ResourceArgs<z.input<typeof UserInviteInputs>>;

/** Inputs whose change replaces an invite: the e-mail address. */
export const userInviteReplaceOnChange = ["email"] as const satisfies readonly (keyof UserInviteInputs)[];

/** The group ids the wanted entries (names or ids) stand for, using the pairs in the old state. */
function knownIds(wanted: readonly string[], olds: Record<string, unknown>): string[] | undefined {
  const ids = (olds.groupIds as string[] | undefined) ?? [];
  const names = (olds.groupNames as string[] | undefined) ?? [];
  const out: string[] = [];
  for (const w of wanted) {
    const i = ids.indexOf(w) >= 0 ? ids.indexOf(w) : names.indexOf(w);
    if (i < 0) return undefined;
    out.push(ids[i] as string);
  }
  return out;
}

const sameSet = (a: readonly string[], b: readonly string[]) =>
  JSON.stringify([...new Set(a)].sort()) === JSON.stringify([...new Set(b)].sort());

const userDiff: DiffSpec<Exclude<keyof UserInviteInputs, "adopt">> = {
  fields: ["email", "groups", "onDelete"],
  replaceOnChange: userInviteReplaceOnChange,
  rules: {
    email: { normalize: (v) => (typeof v === "string" ? v.toLowerCase() : v) },
    groups: {
      equals: (_o, n, olds) => {
        const ids = knownIds((n as string[] | undefined) ?? [], olds);
        return ids !== undefined && sameSet(ids, (olds.groupIds as string[] | undefined) ?? []);
      },
    },
    onDelete: { normalize: (v) => v ?? "deactivate" },
  },
};

function liveGroupIds(user: User): string[] {
  return [...new Set((user.groups ?? []).map((g) => g.id))].sort();
}

function outputs(
  user: User,
  names: ReadonlyMap<string, string>,
  inputs: Omit<UserInviteInputs, "email">,
): UserInviteOutputs {
  const groupIds = liveGroupIds(user);
  return plain({
    email: user.email,
    groups: inputs.groups,
    onDelete: inputs.onDelete,
    adopt: inputs.adopt,
    userId: user.id,
    name: user.name,
    status: user.status,
    twoFactor: user["2fa"],
    groupIds,
    groupNames: groupIds.map((id) => names.get(id) ?? id),
  });
}

/**
 * The PATCH that takes the user's live memberships to `wanted`: guarded removes (highest index first), then adds.
 * @internal
 */
export function membershipPatch(user: User, wanted: readonly string[]): JsonPatch {
  const live = user.groups;
  const ops: JsonPatch = [];
  if (live === undefined) {
    return wanted.length === 0
      ? []
      : [{ op: "add", path: "/groups", value: wanted.map((id) => ({ id, type: "group" })) }];
  }
  for (let i = live.length - 1; i >= 0; i--) {
    const id = (live[i] as { id: string }).id;
    if (!wanted.includes(id)) {
      ops.push({ op: "test", path: `/groups/${i}/id`, value: id });
      ops.push({ op: "remove", path: `/groups/${i}` });
    }
  }
  const have = new Set(live.map((g) => g.id));
  for (const id of wanted)
    if (!have.has(id)) ops.push({ op: "add", path: "/groups/-", value: { id, type: "group" } });
  return ops;
}

async function findByEmail(admin: AdminClient, email: string): Promise<User | undefined> {
  const wanted = email.toLowerCase();
  for await (const u of admin.users.list()) if (u.email.toLowerCase() === wanted) return u;
  // Some deployments list only active users unless asked (ref admin §5).
  for await (const u of admin.users.list({ status: "PENDING" }))
    if (u.email.toLowerCase() === wanted) return u;
  return undefined;
}

/** Names for the user's group ids: from what is known, else one read of the group list. */
async function groupNames(
  admin: AdminClient,
  user: User,
  known: ReadonlyMap<string, string>,
): Promise<Map<string, string>> {
  const ids = liveGroupIds(user);
  if (ids.every((id) => known.has(id))) return new Map(known);
  const names = new Map(known);
  for await (const g of admin.groups.list()) names.set(g.id, g.name);
  return names;
}

/** The read result for a live user: outputs, and inputs that show drift in the program's terms. */
async function liveState(
  admin: AdminClient,
  user: User,
  props: Partial<UserInviteOutputs>,
): Promise<pulumi.dynamic.ReadResult<UserInviteOutputs>> {
  const known = new Map((props.groupIds ?? []).map((gid, i) => [gid, props.groupNames?.[i] ?? gid]));
  const names = await groupNames(admin, user, known);
  const sameGroups = sameSet(liveGroupIds(user), props.groupIds ?? []);
  const groups = sameGroups ? (props.groups ?? []) : liveGroupIds(user).map((gid) => names.get(gid) ?? gid);
  const outs = outputs(user, names, {
    groups,
    onDelete: props.onDelete ?? "deactivate",
    adopt: props.adopt ?? false,
  });
  return {
    id: user.id,
    props: outs,
    inputs: { email: outs.email, groups, onDelete: outs.onDelete, adopt: outs.adopt } as UserInviteOutputs,
  };
}

/**
 * The provider: every lifecycle method. Each resource's `__provider` text
 * ({@link userInviteProviderText}) loads this object in the provider process; the tests call it directly.
 */
export const impl: ResourceHandlers<UserInviteInputs, UserInviteOutputs> = {
  configure,

  check: checkWith({ schema: UserInviteInputs }),

  async diff(_id, olds, news) {
    const result = diffInputs(userDiff, olds, news);
    // Deactivated outside Pulumi: drift that the update reverses, as for any other field.
    return olds.status === "DEACTIVATED" ? { ...result, changes: true } : result;
  },

  async create(inputs) {
    const admin = adminClient();
    const groups = await resolveGroups(admin, inputs.groups);
    const ids = [...new Set(groups.map((g) => g.id))];
    const names = new Map(groups.map((g) => [g.id, g.name]));
    const { value: user, how } = await createOrAdopt({
      describe: `a user with e-mail ${inputs.email}`,
      adopt: inputs.adopt,
      lookup: () => findByEmail(admin, inputs.email),
      create: () =>
        admin.users.invite({
          email: inputs.email,
          groups: ids.map((id) => ({ id, type: "group" as const })),
        }),
    });
    let current = user;
    if (how !== "created") {
      const ops = membershipPatch(current, ids);
      if (ops.length > 0) current = await admin.users.patch(current.id, ops);
    }
    return { id: current.id, outs: outputs(current, await groupNames(admin, current, names), inputs) };
  },

  async read(id, props) {
    const admin = adminClient();
    // `pulumi import` (native provider) reads with the id alone: the natural key, the e-mail.
    const user =
      props?.userId === undefined && id.includes("@")
        ? await findByEmail(admin, id)
        : await readOrGone(() => admin.users.get(id));
    return user ? liveState(admin, user, props ?? {}) : GONE;
  },

  async update(id, olds, news) {
    const admin = adminClient();
    const names = new Map(olds.groupIds.map((gid, i) => [gid, olds.groupNames[i] ?? gid]));
    let user: User | undefined;
    return guardedUpdate({
      describe: `user ${olds.email} (${id})`,
      spec: userDiff,
      recorded: olds,
      desired: news,
      read: async () => {
        user = await readOrGone(() => admin.users.get(id));
        return user ? liveState(admin, user, olds) : GONE;
      },
      write: async (fields) => {
        let current = user as User;
        // Reactivated only when the recorded state (what the preview showed) was DEACTIVATED; a
        // deactivation made since is a colleague's change that a refresh records first.
        if (olds.status === "DEACTIVATED" && current.status === "DEACTIVATED") {
          // PUT is a full replace (spec §4): every property, only the status changed.
          current = await admin.users.put(id, {
            email: current.email,
            name: current.name,
            status: "ACTIVE",
            "2fa": current["2fa"],
            type: "user",
          });
        }
        if (fields.includes("groups")) {
          let ids = knownIds(news.groups, olds);
          if (ids === undefined) {
            const groups = await resolveGroups(admin, news.groups);
            for (const g of groups) names.set(g.id, g.name);
            ids = groups.map((g) => g.id);
          }
          const ops = membershipPatch(current, [...new Set(ids)]);
          if (ops.length > 0) current = await admin.users.patch(id, ops);
        }
        return outputs(current, await groupNames(admin, current, names), news);
      },
    });
  },

  async lookup(inputs) {
    return (await findByEmail(adminClient(), inputs.email)) && {};
  },

  async delete(id, props) {
    const admin = adminClient();
    const onDelete = props.onDelete ?? "deactivate";
    for (let attempt = 0; attempt < 2; attempt++) {
      const user = await readOrGone(() => admin.users.get(id));
      if (!user || user.status === "DEACTIVATED") return;
      if (user.status === "PENDING") {
        try {
          await deleteIdempotent(() => admin.users.delete(id));
          return;
        } catch (e) {
          // Accepted between our read and the delete: the service refuses (spec §7); look again.
          if (ApiError.isInstance(e) && e.status === 400 && attempt === 0) continue;
          throw e;
        }
      }
      if (onDelete === "retain") return;
      if (onDelete === "fail") {
        throw new Error(
          `user ${user.email} (${id}) has accepted the invitation and onDelete is "fail"; set onDelete to "deactivate" or "retain" to delete the resource`,
        );
      }
      try {
        await admin.users.put(id, {
          email: user.email,
          name: user.name,
          status: "DEACTIVATED",
          "2fa": user["2fa"],
          type: "user",
        });
      } catch (e) {
        if (isNotFound(e)) return;
        throw e;
      }
      return;
    }
  },
};

/**
 * An invitation of a person to the account, with their group memberships.
 *
 * @example
 * ```ts
 * new UserInvite("ana", { email: "ana@example.com", groups: [reviewers.name], onDelete: "deactivate" });
 * ```
 */
export const UserInvite = resourceClass("user-invite", USER_INVITE_TYPE, UserInviteInputs, UserInviteOutputs);
/** A {@link UserInvite} object: one `Output` per member of {@link UserInviteOutputs}. */
export type UserInvite = InstanceType<typeof UserInvite>;
/** What the engine stores as each object's `__provider`: a require of {@link impl}, no code, no secret. */
export const userInviteProviderText = UserInvite.providerText;

/** The kind's one definition: what every registry, door, doc and kind-wide test reads (`../core/kind.ts`). */
export const kind = defineKind({
  resource: UserInvite,
  impl,
  area: "flags",
  replaceOnChange: userInviteReplaceOnChange,
  importId: { form: "<email>", example: "alice@example.com" },
  doc: {
    what: "an invited user and their group memberships",
    replaces: "email",
    updates: "groups (PATCH add/remove)",
  },
  example: { inputs: { email: "dev@example.test", groups: [] }, unique: ["email"] },
});
