/**
 * API keys: one mechanism for every API (spec admin §5, platform §5), with each API's header and
 * key kind as data ({@link KEY_KINDS}).
 *
 * - Admin endpoints take an admin key (`Authorization: Bearer <key>`, or `x-api-key` as Harness
 *   tokens do, ref admin §4), and, in `x-api-key` only, a Harness token (the platform key): how
 *   accounts migrated to Harness authenticate (ref admin §4, §9.1 `harness_token`; splitapiclient's
 *   Harness mode sends its token there for every admin call, `http_clients/harness_client.py`).
 *   Each key works in either mode; a Harness token sent as a Bearer key is 401. Any other key, or
 *   none, gives 401 with the admin error body. A Harness token acts account-wide on the admin API
 *   (the emulator does not map Harness projects onto workspaces).
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
 * - A platform key restricted to organizations and projects acts only there ({@link keyAllows}).
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
      if (account === undefined || account === "") {
        throw validationFailure([{ path: "accountIdentifier", message: "must not be null" }]);
      }
      if (account !== store.accountId)
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

/** What one admin key may touch. */
export class Scope {
  constructor(
    private readonly store: Store,
    readonly key: KeyRecord,
  ) {}

  /** No workspace or environment restriction. */
  get unrestricted(): boolean {
    return !this.key.workspaces?.length && !this.key.environments?.length;
  }

  /** Whether the key may touch the workspace (listed, or holding a listed environment). */
  workspaceAllowed(ws: WorkspaceRecord): boolean {
    if (this.unrestricted) return true;
    if (this.key.workspaces?.length) return listed(this.key.workspaces, ws);
    return this.store.environments.inWorkspace(ws.id).some((e) => listed(this.key.environments, e));
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

  /** Account-wide changes (workspaces, groups) need an unrestricted key. */
  assertAccountWide(action: string): void {
    if (!this.unrestricted)
      throw forbidden(`The API key is restricted to some workspaces or environments and cannot ${action}`);
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
