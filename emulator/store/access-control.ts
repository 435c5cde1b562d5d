/**
 * The platform's access control: service accounts, their API keys and tokens, user
 * groups, users and their pending invites, roles, resource groups and role assignments, as
 * Split's Python admin client in Harness mode (`splitapiclient` 3.5.9 `microclients/harness/*.py`)
 * and the Harness Go SDK (`harness-go-sdk` `harness/nextgen/api_service_account.go`,
 * `api_api_key.go`, `api_token.go`, `api_user_group.go`, `api_user.go`, `api_invite.go`,
 * `api_roles.go`, `api_harness_resource_group.go`, `api_role_assignments.go`) call them. Routes:
 * `emulator/platform/access-control.ts`.
 *
 * One private map per kind, each record the object as the API returns it (`dto`) with where it
 * lives, its parent where it has one and its bookkeeping. Rules kept here:
 * - identifiers are unique in their scope (an API key's in its parent, ref platform §3 case
 *   sensitivity; a project compares case-insensitively, as projects do);
 * - the scope must exist (`org [x] not found.`, `project [x] not found.`, as the v2 entities
 *   answer, `platform-entities.ts`);
 * - a deletion takes along what hangs off the object: a service account its API keys, an API key
 *   its tokens, and every role assignment naming a deleted service account, user group, role or
 *   resource group; a project's or organization's deletion every object scoped to it (inferred:
 *   harness-core removes them through entity-delete events);
 * - users are the account's (no scope); a new account has one, its administrator, whose token the
 *   platform key stands for (inferred: an account always has the user that made it);
 * - a token's value is a platform key of the token's scope (the `keys` part): it authenticates as
 *   the emulator's own platform key does, restricted to the token's organization or project, until
 *   the token is deleted (with its key or service account) or rotated (the old value then stops at
 *   once: the emulator does not keep a rotated value alive until its `rotateTimestamp`).
 * @module
 */
import { randomBytes } from "node:crypto";
import { z } from "zod";
import { dataRecord } from "../../sdk/core/data-record";
import type { EmulatorError } from "../errors";
import { duplicateField, resourceNotFound } from "../platform/errors";
import type { Keys } from "./keys";
import type { PlatformStore } from "./platform";

/** The access-control kinds. */
export const ACCESS_KINDS = [
  "serviceAccount",
  "apiKey",
  "token",
  "userGroup",
  "user",
  "invite",
  "role",
  "resourceGroup",
  "roleAssignment",
] as const;
/** An access-control kind. */
export type AccessKind = (typeof ACCESS_KINDS)[number];

/** Where an object lives: the account (both null), an organization or a project. */
export const AccessScope = z.object({ org: z.string().nullable(), project: z.string().nullable() });
/** Where an object lives. */
export type AccessScope = z.infer<typeof AccessScope>;

/** A stored access-control object. */
export const AccessRecord = z.object({
  at: AccessScope,
  identifier: z.string(),
  /** An API key's `<apiKeyType>/<parentIdentifier>`, a token's `<...>/<apiKeyIdentifier>`; else null. */
  parent: z.string().nullable(),
  /** The object as the API returns it (`ServiceAccountDTO`, `ApiKeyDTO`, `TokenDTO`, `UserGroupDTO`, ...). */
  dto: z.record(z.string(), z.unknown()),
  createdAt: z.number().int(),
  lastModifiedAt: z.number().int(),
});
/** A stored access-control object. */
export type AccessRecord = z.infer<typeof AccessRecord>;

/** The access-control part of the state file: each kind by `<org>/<project>/<parent>/<identifier>`. */
export const AccessControlState = z.object(
  Object.fromEntries(ACCESS_KINDS.map((k) => [k, dataRecord(AccessRecord).default({})])) as Record<
    AccessKind,
    z.ZodDefault<z.ZodRecord<z.ZodString, typeof AccessRecord>>
  >,
);
/** The access-control part of the state file. */
export type AccessControlState = z.infer<typeof AccessControlState>;

/** The uuid of the account's administrator, the user a new account has. */
export const ACCOUNT_ADMIN_UUID = "fs0AccountAdmin0000000";

const level = (v: string | null) => v ?? "-";
const keyOf = (at: AccessScope, parent: string | null, identifier: string) =>
  `${level(at.org)}/${level(at.project?.toLowerCase() ?? null)}/${level(parent)}/${identifier}`;
const sameScope = (a: AccessScope, b: AccessScope) =>
  a.org === b.org && a.project?.toLowerCase() === b.project?.toLowerCase();

/** The id of a token's platform key (`keys` part): its place and identifier. */
const tokenKeyId = (token: AccessRecord) => `token:${keyOf(token.at, token.parent, token.identifier)}`;

/** The principal of a role assignment (`{identifier, type}`), as stored in its `dto`. */
function principalOf(r: AccessRecord): { identifier?: unknown; type?: unknown } {
  const p = r.dto.principal;
  return p !== null && typeof p === "object" ? (p as { identifier?: unknown; type?: unknown }) : {};
}

/** The access-control objects (see the module comment). */
export class AccessControl {
  readonly #maps = Object.fromEntries(
    ACCESS_KINDS.map((k) => [k, new Map<string, AccessRecord>()]),
  ) as Record<AccessKind, Map<string, AccessRecord>>;

  /**
   * @param platform - the organizations and projects the objects live in
   * @param keys - the API keys, where a token's value is one
   */
  constructor(
    private readonly platform: PlatformStore,
    private readonly keys: Keys,
  ) {
    this.restore(undefined);
  }

  /**
   * A new value for a token (created or rotated): `sat.` (a service account's) or `pat.` (a
   * user's), the account, the token's identifier and a secret, the form of Harness tokens; it
   * replaces the token's previous value as a platform key of the token's scope.
   */
  issueToken(token: AccessRecord): string {
    const type = token.dto.apiKeyType === "SERVICE_ACCOUNT" ? "sat" : "pat";
    const value = `${type}.${this.platform.accountId}.${token.identifier}.${randomBytes(10).toString("hex")}`;
    const id = tokenKeyId(token);
    const old = this.keys.byId(id);
    if (old !== undefined) this.keys.revoke(id);
    const { org, project } = token.at;
    this.keys.add({
      key: value,
      type: "platform",
      id,
      name: `token ${token.identifier}`,
      ...(org === null ? {} : { organizations: [org] }),
      ...(org === null || project === null ? {} : { projects: [`${org}/${project}`] }),
    });
    return value;
  }

  /**
   * An object by identifier in its scope; with `parent`, only under that parent (an API key under
   * its service account, a token under its key), else under any.
   */
  get(kind: AccessKind, at: AccessScope, identifier: string, parent?: string): AccessRecord | undefined {
    if (parent !== undefined) return this.#maps[kind].get(keyOf(at, parent, identifier));
    for (const r of this.#maps[kind].values())
      if (r.identifier === identifier && sameScope(r.at, at)) return r;
    return undefined;
  }

  /** The objects of a kind in one scope (users: every user), oldest first; `parent` narrows by prefix. */
  list(kind: AccessKind, at: AccessScope | null, parent?: string): AccessRecord[] {
    return [...this.#maps[kind].values()].filter(
      (r) =>
        (at === null || sameScope(r.at, at)) &&
        (parent === undefined || (r.parent !== null && `${r.parent}/`.startsWith(`${parent}/`))),
    );
  }

  /** Adds an object; `duplicate` when its identifier is taken (under its parent). */
  create(
    kind: AccessKind,
    fields: Pick<AccessRecord, "at" | "identifier" | "parent" | "dto">,
    duplicate: () => EmulatorError,
  ): AccessRecord {
    this.assureScope(fields.at);
    const key = keyOf(fields.at, fields.parent, fields.identifier);
    if (this.#maps[kind].has(key)) throw duplicate();
    const now = Date.now();
    const stored: AccessRecord = { ...fields, createdAt: now, lastModifiedAt: now };
    this.#maps[kind].set(key, stored);
    return stored;
  }

  /** Replaces an object's `dto` (the updates are full replaces). */
  replace(kind: AccessKind, existing: AccessRecord, dto: Record<string, unknown>): AccessRecord {
    const updated: AccessRecord = {
      ...existing,
      dto,
      lastModifiedAt: Math.max(Date.now(), existing.lastModifiedAt),
    };
    this.#maps[kind].set(keyOf(existing.at, existing.parent, existing.identifier), updated);
    return updated;
  }

  /** Removes an object with what hangs off it (see the module comment). */
  remove(kind: AccessKind, existing: AccessRecord): void {
    this.#maps[kind].delete(keyOf(existing.at, existing.parent, existing.identifier));
    const { at, identifier: id } = existing;
    const dropAssignments = (match: (r: AccessRecord) => boolean) => {
      for (const r of this.list("roleAssignment", at)) if (match(r)) this.remove("roleAssignment", r);
    };
    switch (kind) {
      case "serviceAccount":
        for (const k of this.list("apiKey", at, `SERVICE_ACCOUNT/${id}`)) this.remove("apiKey", k);
        dropAssignments((r) => principalOf(r).type === "SERVICE_ACCOUNT" && principalOf(r).identifier === id);
        break;
      case "apiKey":
        for (const t of this.list("token", at, `${existing.parent}/${id}`)) this.remove("token", t);
        break;
      case "token":
        if (this.keys.byId(tokenKeyId(existing)) !== undefined) this.keys.revoke(tokenKeyId(existing));
        break;
      case "userGroup":
        dropAssignments((r) => principalOf(r).type === "USER_GROUP" && principalOf(r).identifier === id);
        break;
      case "role":
        dropAssignments((r) => r.dto.roleIdentifier === id);
        break;
      case "resourceGroup":
        dropAssignments((r) => r.dto.resourceGroupIdentifier === id);
        break;
      default:
        break;
    }
  }

  /** Adds a token under its API key and issues its value ({@link AccessControl.issueToken}). */
  createToken(
    fields: Pick<AccessRecord, "at" | "identifier" | "parent" | "dto">,
    duplicate: () => EmulatorError,
  ): string {
    return this.issueToken(this.create("token", fields, duplicate));
  }

  /** Rotates a token: the old value stops now, the new one is returned; `rotateAt` is its scheduled expiry. */
  rotateToken(token: AccessRecord, rotateAt: number): string {
    return this.issueToken(this.replace("token", token, { ...token.dto, scheduledExpireTime: rotateAt }));
  }

  /**
   * Adds a user (by uuid) to each user group of a scope that does not hold it yet; a group the
   * scope does not have is refused with `unknownGroup` before any group changes.
   */
  addToGroups(
    at: AccessScope,
    uuid: string,
    groups: readonly string[],
    unknownGroup: (g: string) => EmulatorError,
  ): void {
    const found = groups.map((g) => {
      const group = this.get("userGroup", at, g);
      if (group === undefined) throw unknownGroup(g);
      return group;
    });
    for (const group of found) {
      const users = (group.dto.users as string[] | undefined) ?? [];
      if (!users.includes(uuid)) this.replace("userGroup", group, { ...group.dto, users: [...users, uuid] });
    }
  }

  /**
   * `AddUsers` (harness-go-sdk `api_user.go`): each e-mail of an existing user joins the groups
   * (`USER_ADDED_SUCCESSFULLY`); one already invited to the scope is left (`USER_ALREADY_INVITED`);
   * anyone else is invited with the invite `inviteDto(id, email)` gives (`USER_INVITED_SUCCESSFULLY`).
   * Unknown groups are refused before anything changes.
   */
  addUsers(
    at: AccessScope,
    emails: readonly string[],
    groups: readonly string[],
    inviteDto: (id: string, email: string) => Record<string, unknown>,
    unknownGroup: (g: string) => EmulatorError,
  ): Record<string, string> {
    for (const g of groups) if (this.get("userGroup", at, g) === undefined) throw unknownGroup(g);
    const users = this.list("user", null);
    const result: Record<string, string> = {};
    for (const email of emails) {
      const user = users.find((u) => String(u.dto.email).toLowerCase() === email.toLowerCase());
      if (user !== undefined) {
        this.addToGroups(at, user.identifier, groups, unknownGroup);
        result[email] = "USER_ADDED_SUCCESSFULLY";
      } else if (this.list("invite", at).some((i) => i.dto.email === email)) {
        result[email] = "USER_ALREADY_INVITED";
      } else {
        const id = randomBytes(12).toString("hex");
        const duplicate = () => duplicateField(`Invite [${id}] already exists`);
        this.create("invite", { at, identifier: id, parent: null, dto: inviteDto(id, email) }, duplicate);
        result[email] = "USER_INVITED_SUCCESSFULLY";
      }
    }
    return result;
  }

  /**
   * Removes a user from a scope: from its user groups and role assignments there and in the scopes
   * under it; from the account scope, the user itself (harness-core `NgUserService.removeUserFromScope`,
   * inferred from the Go SDK's `RemoveUser` taking an optional organization and project).
   */
  removeUser(user: AccessRecord, at: AccessScope): void {
    const within = (r: AccessRecord) =>
      (at.org === null || r.at.org === at.org) &&
      (at.project === null || r.at.project?.toLowerCase() === at.project.toLowerCase());
    for (const g of [...this.#maps.userGroup.values()].filter(within)) {
      const users = (g.dto.users as string[] | undefined) ?? [];
      if (users.includes(user.identifier))
        this.replace("userGroup", g, { ...g.dto, users: users.filter((u) => u !== user.identifier) });
    }
    for (const r of [...this.#maps.roleAssignment.values()].filter(within)) {
      const p = principalOf(r);
      if (p.type === "USER" && p.identifier === user.identifier) this.remove("roleAssignment", r);
    }
    if (at.org === null && at.project === null) this.remove("user", user);
  }

  /** A project was deleted: every object scoped to it goes, with what hangs off it. */
  forgetProject(org: string, project: string): void {
    this.forgetWhere((at) => at.org === org && at.project?.toLowerCase() === project.toLowerCase());
  }

  /** An organization was deleted: every object scoped to it or to its projects goes. */
  forgetOrganization(org: string): void {
    this.forgetWhere((at) => at.org === org);
  }

  /** Removes (through {@link AccessControl.remove}, so tokens' keys are revoked) every object whose scope matches. */
  private forgetWhere(match: (at: AccessScope) => boolean): void {
    for (const kind of ACCESS_KINDS) {
      for (const r of [...this.#maps[kind].values()]) {
        const stillThere = this.#maps[kind].has(keyOf(r.at, r.parent, r.identifier));
        if (stillThere && match(r.at)) this.remove(kind, r);
      }
    }
  }

  /** The organization and project of a scope must exist (as for the v2 entities). */
  private assureScope(at: AccessScope): void {
    if (at.org !== null && this.platform.organization(at.org) === undefined)
      throw resourceNotFound(`org [${at.org}] not found.`);
    if (at.org !== null && at.project !== null && this.platform.project(at.org, at.project) === undefined)
      throw resourceNotFound(`project [${at.project}] not found.`);
  }

  /** Replaces everything (a state file loaded, or rolled back to); none: a new account's. */
  restore(state: AccessControlState | undefined): void {
    for (const kind of ACCESS_KINDS) {
      const map = this.#maps[kind];
      map.clear();
      for (const [key, value] of Object.entries(state?.[kind] ?? {})) map.set(key, value);
    }
    if (state === undefined) {
      const admin: AccessRecord = {
        at: { org: null, project: null },
        identifier: ACCOUNT_ADMIN_UUID,
        parent: null,
        dto: {
          name: "Account Admin",
          email: "admin@example.com",
          uuid: ACCOUNT_ADMIN_UUID,
          locked: false,
          disabled: false,
          externallyManaged: false,
          twoFactorAuthenticationEnabled: false,
        },
        createdAt: 0,
        lastModifiedAt: 0,
      };
      this.#maps.user.set(keyOf(admin.at, null, admin.identifier), admin);
    }
  }

  /** Everything, for the state file. */
  dump(): AccessControlState {
    return Object.fromEntries(
      ACCESS_KINDS.map((k) => [k, Object.fromEntries(this.#maps[k])]),
    ) as AccessControlState;
  }
}
