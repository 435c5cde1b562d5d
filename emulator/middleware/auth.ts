/**
 * API keys: one mechanism for every API (spec admin §5, platform §5), with each API's header and
 * key kind as data ({@link KEY_KINDS}).
 *
 * - Admin endpoints take an admin key (`Authorization: Bearer <key>`, or `x-api-key` as Harness
 *   tokens do, ref admin §4), and, in `x-api-key` only, a Harness token (the platform key): how
 *   accounts migrated to Harness authenticate (ref admin §4, §9.1 `harness_token`; splitapiclient's
 *   Harness mode sends its token there for every admin call, `http_clients/harness_client.py`).
 *   Each key works in either mode; a Harness token sent as a Bearer key is 401. Any other key, or
 *   none, gives 401 with the admin error body. A Harness token acts in the scope it was issued for
 *   (ref admin §4): see the restrictions below.
 * - The event import and the SDK endpoints take an SDK key, which belongs to one environment;
 *   an admin or platform key gives 401 ("an Admin key is not the key type for this endpoint").
 * - The platform API takes a platform key in `x-api-key`; anything else is 401 INVALID_TOKEN
 *   ("Token is not valid.", ref platform §2). Its `accountIdentifier` must name this emulator's
 *   account. Order, as in the real service: the authentication filter (401) runs before the
 *   resource method, whose `@NotNull` query parameters are bean-validated (400), and the
 *   access-control check (403, {@link authorize}) runs first thing inside the resource.
 *
 * Restrictions, once authenticated:
 * - An admin key restricted to workspaces and/or environments (ids or names) acts only on those:
 *   anything else gives 403 ({@link Scope}). A key with only `environments` may use the
 *   workspaces holding them. "The user list returns the users the key has access over" (spec
 *   admin §5 item 4) is defined here as: each user remembers the workspace scope of the key that
 *   invited them (empty for an unrestricted key); an unrestricted key sees every user, a
 *   restricted key sees the users whose invitation scope shares a workspace with its own. Groups
 *   are account-wide: every admin key can read them, only an unrestricted key can create, change
 *   or delete them, or create workspaces.
 * - A Harness token (a platform key) has the scope it was issued for: the account (no
 *   `organizations` or `projects`), organizations, or projects (`<org>/<project>`). On the
 *   platform API it acts only there ({@link keyAllows}). On the admin API it reaches the
 *   workspaces of those projects (of every project of those organizations), a workspace being the
 *   project whose organization and identifier it carries (`Store.inProject`, the link
 *   `?organizationIdentifier=&projectIdentifier=` resolves); anything else is the restricted admin
 *   key's 403. Account-wide objects (groups, users, rollout statuses, creating or deleting
 *   workspaces) follow the restricted admin key's rules. It may rename its own workspace (the
 *   rename keeps it its project's), and it mints and revokes only keys no wider than itself: an admin key needs
 *   a workspace or environments within its scope ({@link Scope.assertMint}). The account's token
 *   acts account-wide. Refusals are 403, as for a restricted admin key: the reference lists 403
 *   "role insufficient" and 404 "not found or no access" (ref admin §4) without saying which a
 *   token outside its project gets, so the emulator keeps one answer for every key out of scope
 *   (inferred).
 * @module
 */
import type { Context, MiddlewareHandler } from "hono";
import type { AppEnv } from "../context";
import { type EmulatorError, forbidden, unauthorized } from "../errors";
import { accessDenied, invalidToken, validationFailure } from "../platform/errors";
import type {
  EnvironmentRecord,
  KeyRecord,
  PlatformScope,
  Store,
  UserRecord,
  WorkspaceRecord,
} from "../store";

const KIND: Record<KeyRecord["type"], string> = {
  admin: "an Admin API key",
  sdk: "an SDK key",
  platform: "a platform key",
};

/** `Authorization: Bearer <key>`, else `x-api-key` (ref admin §4). */
function bearerOrApiKey(c: Context): string | undefined {
  const auth = c.req.header("authorization");
  if (auth) {
    const m = /^Bearer\s+(.+)$/i.exec(auth.trim());
    return m?.[1]?.trim() || undefined;
  }
  return c.req.header("x-api-key")?.trim() || undefined;
}

/** The admin and SDK refusal: 401 saying what was missing or wrong. */
const refuseAs =
  (wanted: KeyRecord["type"], placeholder: string) =>
  (presented: string | undefined, key: KeyRecord | undefined): EmulatorError => {
    if (!presented) return unauthorized(`Missing API key: send "Authorization: Bearer <${placeholder}>"`);
    if (!key) return unauthorized("Invalid API key");
    return unauthorized(`This endpoint takes ${KIND[wanted]}; the key given is ${KIND[key.type]}`);
  };

/** How one API is authenticated. */
interface KeyKind {
  /** The kind of key it takes. */
  type: KeyRecord["type"];
  /** The key the request presents. */
  presented: (c: Context) => string | undefined;
  /** The 401 for a missing, unknown or wrong-kind key. */
  refuse: (presented: string | undefined, key: KeyRecord | undefined) => EmulatorError;
  /** Other key types this API takes, and how (the admin API: a Harness token in `x-api-key`). */
  alsoAccepts?: (c: Context, key: KeyRecord) => boolean;
  /** What the API checks next about an accepted key (the SDK key's environment, the account). */
  accept?: (store: Store, c: Context, key: KeyRecord) => void;
}

/**
 * The platform routes whose account is in the body rather than the query: the update of an API
 * key (harness-core `ApiKeyResource.updateApiKey` takes the `ApiKeyDTO` and a path identifier, no
 * `accountIdentifier`; the Go SDK's `UpdateApiKey` sends none). The route checks the body's.
 */
const ACCOUNT_IN_BODY = (method: string, path: string) =>
  method === "PUT" && /^\/ng\/api\/apikey\/[^/]+$/.test(path);

/** Each API's header and key kind (see the module comment). */
export const KEY_KINDS = {
  admin: {
    type: "admin",
    presented: bearerOrApiKey,
    refuse: refuseAs("admin", "ADMIN_API_KEY"),
    alsoAccepts: (c, key) =>
      key.type === "platform" &&
      !c.req.header("authorization") &&
      c.req.header("x-api-key")?.trim() === key.key,
  },
  sdk: {
    type: "sdk",
    presented: bearerOrApiKey,
    refuse: refuseAs("sdk", "SDK_API_KEY"),
    accept: (store, _c, key) => {
      if (!store.environmentOf(key)) throw unauthorized("Invalid API key: its environment no longer exists");
    },
  },
  platform: {
    type: "platform",
    presented: (c) => c.req.header("x-api-key"),
    refuse: invalidToken,
    accept: (store, c) => {
      // A key of another account is a valid token without rights on the account asked for, so
      // the emulator answers 403 NG_ACCESS_DENIED rather than 400 (inferred: the reference does
      // not show this case).
      const account = c.req.query("accountIdentifier");
      // An API key's update names its account in the body only (`emulator/platform/access-control.ts`).
      if (account === undefined && ACCOUNT_IN_BODY(c.req.method, c.req.path)) return;
      if (account === undefined || account === "") {
        throw validationFailure([{ path: "accountIdentifier", message: "must not be null" }]);
      }
      if (account !== store.accountId)
        throw accessDenied(`Missing permission to access account [${account}]`);
    },
  },
  /**
   * The v1 API (`/v1/...`, ref platform §1, §6.1): the same platform key in `x-api-key`; the account
   * in the `Harness-Account` header, which "can be skipped" with an `x-api-key`
   * (harness-openapi-go-client `nextgen/api_pipelines.go`, the `HarnessAccount` option). Another
   * account is refused as the NG API refuses it.
   */
  platformV1: {
    type: "platform",
    presented: (c) => c.req.header("x-api-key"),
    refuse: invalidToken,
    accept: (store, c) => {
      const account = c.req.header("harness-account");
      if (account !== undefined && account !== "" && account !== store.accountId)
        throw accessDenied(`Missing permission to access account [${account}]`);
    },
  },
} as const satisfies Record<string, KeyKind>;

/** Requires the key kind of `api` (see {@link KEY_KINDS}); sets `c.var.key`. */
export function keyAuth(store: Store, api: keyof typeof KEY_KINDS): MiddlewareHandler<AppEnv> {
  const kind: KeyKind = KEY_KINDS[api];
  return async function keyAuthMiddleware(c, next) {
    const presented = kind.presented(c);
    const key = presented === undefined ? undefined : store.keys.get(presented);
    if (!key || (key.type !== kind.type && !kind.alsoAccepts?.(c, key))) throw kind.refuse(presented, key);
    kind.accept?.(store, c, key);
    c.set("key", key);
    await next();
  };
}

const listed = (list: string[] | undefined, rec: { id: string; name: string }) =>
  !!list && (list.includes(rec.id) || list.includes(rec.name));

/** What one admin key (or Harness token) may touch. */
export class Scope {
  constructor(
    private readonly store: Store,
    readonly key: KeyRecord,
  ) {}

  /** A Harness token issued for some organizations or projects, not for the account. */
  private get harness(): boolean {
    return (
      this.key.type === "platform" &&
      (this.key.organizations !== undefined || this.key.projects !== undefined)
    );
  }

  /** Restricted to workspaces or environments (as an admin key is). */
  private get listed(): boolean {
    return !!this.key.workspaces?.length || !!this.key.environments?.length;
  }

  /** No restriction: every workspace and environment, and account-wide changes. */
  get unrestricted(): boolean {
    return !this.listed && !this.harness;
  }

  /** Whether a workspace is the one of a project the Harness token was issued for. */
  private projectAllowed(ws: WorkspaceRecord): boolean {
    return this.store.projectsOf(ws).some((p) => keyAllows(this.key, p));
  }

  /** Whether the key may touch the workspace (listed, or holding a listed environment; of its projects). */
  workspaceAllowed(ws: WorkspaceRecord): boolean {
    if (this.unrestricted) return true;
    if (this.harness && !this.projectAllowed(ws)) return false;
    if (this.key.workspaces?.length) return listed(this.key.workspaces, ws);
    if (this.key.environments?.length)
      return this.store.environments.inWorkspace(ws.id).some((e) => listed(this.key.environments, e));
    return true;
  }

  /** Whether the key may touch the environment (and its workspace). */
  environmentAllowed(env: EnvironmentRecord): boolean {
    const ws = this.store.workspaces.get(env.workspaceId);
    if (!ws || !this.workspaceAllowed(ws)) return false;
    return !this.key.environments?.length || listed(this.key.environments, env);
  }

  /** Ids of the workspaces this key may touch (every workspace when unrestricted). */
  workspaceIds(): string[] {
    return this.store.workspaces
      .list()
      .filter((w) => this.workspaceAllowed(w))
      .map((w) => w.id);
  }

  /** The scope recorded on a user this key invites (empty when unrestricted). */
  inviteScope(): string[] {
    return this.unrestricted ? [] : this.workspaceIds();
  }

  /** Whether this key "has access over" a user (see the module comment). */
  userVisible(user: UserRecord): boolean {
    if (this.unrestricted) return true;
    if (user.scope.length === 0) return false;
    const mine = new Set(this.workspaceIds());
    return user.scope.some((id) => mine.has(id));
  }

  /** 403 unless the key may touch the workspace. */
  assertWorkspace(ws: WorkspaceRecord): void {
    if (!this.workspaceAllowed(ws))
      throw forbidden(`The API key is not allowed to access workspace ${ws.id}`);
  }

  /** 403 unless the key may touch the environment. */
  assertEnvironment(env: EnvironmentRecord): void {
    if (!this.environmentAllowed(env))
      throw forbidden(`The API key is not allowed to access environment ${env.id}`);
  }

  /** How the key is restricted, as the refusals say it. */
  private get restriction(): string {
    if (!this.harness) return "The API key is restricted to some workspaces or environments";
    const { organizations, projects } = this.key;
    const [one, many, list] =
      projects !== undefined
        ? ["project", "projects", projects]
        : ["organization", "organizations", organizations ?? []];
    return `The Harness token is restricted to ${list.length === 1 ? one : many} ${list.join(", ") || "(none)"}`;
  }

  /** Account-wide changes (workspaces, groups) need an unrestricted key. */
  assertAccountWide(action: string): void {
    if (!this.unrestricted) throw forbidden(`${this.restriction} and cannot ${action}`);
  }

  /**
   * A change of a workspace the key may touch: an unrestricted key, or a Harness token (only
   * Harness restrictions; the workspace is one of its projects', `assertWorkspace`, and a rename
   * keeps it so: the link is an identity, not a name); a restricted admin key may not.
   */
  assertWorkspaceChange(): void {
    if (this.listed) this.assertAccountWide("change workspaces");
  }

  /**
   * A new API key: any for an unrestricted key, none for a restricted admin key, and for a
   * Harness token one no wider than itself (checked once the `target` is parsed): its workspace
   * and environments within the token's scope, and an admin key restricted to some.
   */
  assertMint(target?: { workspace: WorkspaceRecord | undefined; environments: EnvironmentRecord[] }): void {
    if (this.unrestricted) return;
    if (this.listed) {
      this.assertAccountWide("create API keys");
      return;
    }
    if (!target) return;
    const { workspace, environments } = target;
    if (workspace && !this.workspaceAllowed(workspace))
      throw forbidden(`${this.restriction} and cannot create an API key for workspace ${workspace.id}`);
    for (const env of environments) {
      if (!this.environmentAllowed(env))
        throw forbidden(`${this.restriction} and cannot create an API key for environment ${env.id}`);
    }
    if (!workspace && environments.length === 0)
      throw forbidden(
        `${this.restriction} and cannot create an admin API key for every workspace: name a workspace or environments within its scope`,
      );
  }

  /**
   * Revoking a key: any for an unrestricted key, none for a restricted admin key, and for a
   * Harness token an admin or SDK key no wider than itself (an unknown `target` is left to the
   * 404).
   */
  assertRevoke(target: KeyRecord | undefined): void {
    if (this.unrestricted) return;
    if (this.listed) {
      this.assertAccountWide("revoke API keys");
      return;
    }
    if (!target) return;
    const theirs = new Scope(this.store, target);
    const mine = new Set(this.workspaceIds());
    if (
      target.type === "platform" ||
      theirs.unrestricted ||
      !theirs.workspaceIds().every((id) => mine.has(id))
    )
      throw forbidden(`${this.restriction} and cannot revoke API key ${target.id}, which reaches beyond it`);
  }
}

/** The scope of the request's admin key. */
export const scopeOf = (store: Store, c: Context<AppEnv>): Scope => new Scope(store, c.get("key"));

/** Whether a platform key restricted to some organizations and projects may act in a scope. */
export function keyAllows(key: KeyRecord, scope: PlatformScope): boolean {
  if (key.organizations !== undefined) {
    if (scope.org === null || !key.organizations.includes(scope.org)) return false;
  }
  if (key.projects !== undefined) {
    if (scope.org === null || scope.project === null) return false;
    // Project identifiers compare case-insensitively, as project lookups do (ref platform §3).
    const project = scope.project.toLowerCase();
    const allowed = key.projects.some((entry) => {
      const slash = entry.indexOf("/");
      if (slash < 0) return entry.toLowerCase() === project;
      return entry.slice(0, slash) === scope.org && entry.slice(slash + 1).toLowerCase() === project;
    });
    if (!allowed) return false;
  }
  return true;
}

/**
 * The access-control check of a platform resource method: 403 NG_ACCESS_DENIED with the real
 * message form `Missing permission <permission> on <resource type>[ with identifier <id>]`
 * (ref platform §2).
 */
export function authorize(
  c: Context<AppEnv>,
  scope: PlatformScope,
  permission: string,
  resourceType: string,
  identifier?: string,
): void {
  if (keyAllows(c.get("key"), scope)) return;
  const suffix = identifier === undefined ? "" : ` with identifier ${identifier}`;
  throw accessDenied(`Missing permission ${permission} on ${resourceType}${suffix}`);
}
