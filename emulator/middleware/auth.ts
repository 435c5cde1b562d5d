/**
 * API keys and their scopes (spec §5).
 *
 * - Admin endpoints take an admin key (`Authorization: Bearer <key>`, or `x-api-key` as Harness
 *   tokens do, ref admin §4). Any other key, or none, gives 401 with the admin error body.
 * - The event import and the SDK endpoints take an SDK key, which belongs to one environment;
 *   an admin or platform key gives 401 ("an Admin key is not the key type for this endpoint").
 * - A key restricted to workspaces and/or environments (ids or names) acts only on those:
 *   anything else gives 403. A key with only `environments` may use the workspaces holding them.
 *
 * "The user list returns the users the key has access over" (spec §5 item 4) is defined here as:
 * each user remembers the workspace scope of the key that invited them (empty for an
 * unrestricted key); an unrestricted key sees every user, a restricted key sees the users whose
 * invitation scope shares a workspace with its own. Groups are account-wide: every admin key can
 * read them, only an unrestricted key can create, change or delete them, or create workspaces.
 * @module
 */
import type { Context, MiddlewareHandler } from "hono";
import type { AppEnv } from "../context";
import { forbidden, unauthorized } from "../errors";
import type { EnvironmentRecord, KeyRecord, Store, UserRecord, WorkspaceRecord } from "../store";

const KIND: Record<KeyRecord["type"], string> = {
  admin: "an Admin API key",
  sdk: "an SDK key",
  platform: "a platform key",
};

/** The key a request carries: `Authorization: Bearer <key>`, else `x-api-key`. */
export function presentedKey(c: Context<AppEnv>): string | undefined {
  const auth = c.req.header("authorization");
  if (auth) {
    const m = /^Bearer\s+(.+)$/i.exec(auth.trim());
    return m?.[1]?.trim() || undefined;
  }
  return c.req.header("x-api-key")?.trim() || undefined;
}

function authenticate(store: Store, c: Context<AppEnv>, type: KeyRecord["type"], what: string): KeyRecord {
  const presented = presentedKey(c);
  if (!presented) throw unauthorized(`Missing API key: send "Authorization: Bearer <${what}>"`);
  const key = store.keys.get(presented);
  if (!key) throw unauthorized("Invalid API key");
  if (key.type !== type) {
    const wanted = what === "ADMIN_API_KEY" ? "an Admin API key" : "an SDK key";
    throw unauthorized(`This endpoint takes ${wanted}; the key given is ${KIND[key.type]}`);
  }
  return key;
}

/** Requires an admin key; sets `c.var.key`. */
export function adminAuth(store: Store): MiddlewareHandler<AppEnv> {
  return async function adminAuthMiddleware(c, next) {
    c.set("key", authenticate(store, c, "admin", "ADMIN_API_KEY"));
    await next();
  };
}

/** Requires an SDK key whose environment still exists; sets `c.var.key`. */
export function sdkAuth(store: Store): MiddlewareHandler<AppEnv> {
  return async function sdkAuthMiddleware(c, next) {
    const key = authenticate(store, c, "sdk", "SDK_API_KEY");
    if (!sdkEnvironment(store, key)) throw unauthorized("Invalid API key: its environment no longer exists");
    c.set("key", key);
    await next();
  };
}

const listed = (list: string[] | undefined, rec: { id: string; name: string }) =>
  !!list && (list.includes(rec.id) || list.includes(rec.name));

/** The environment an SDK key belongs to (`environments[0]`, an id or a name). */
export function sdkEnvironment(store: Store, key: KeyRecord): EnvironmentRecord | undefined {
  const ref = key.environments?.[0];
  if (!ref) return undefined;
  const byId = store.environments.get(ref);
  if (byId) return byId;
  const wsRef = key.workspaces?.[0] ?? "Default";
  const ws = [...store.workspaces.values()].find((w) => w.id === wsRef || w.name === wsRef);
  return ws ? store.environmentsOf(ws.id).find((e) => e.name === ref) : undefined;
}

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

  workspaceAllowed(ws: WorkspaceRecord): boolean {
    if (this.unrestricted) return true;
    if (this.key.workspaces?.length) return listed(this.key.workspaces, ws);
    return this.store.environmentsOf(ws.id).some((e) => listed(this.key.environments, e));
  }

  environmentAllowed(env: EnvironmentRecord): boolean {
    const ws = this.store.workspaces.get(env.workspaceId);
    if (!ws || !this.workspaceAllowed(ws)) return false;
    return !this.key.environments?.length || listed(this.key.environments, env);
  }

  /** Ids of the workspaces this key may touch (every workspace when unrestricted). */
  workspaceIds(): string[] {
    return [...this.store.workspaces.values()].filter((w) => this.workspaceAllowed(w)).map((w) => w.id);
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

  assertWorkspace(ws: WorkspaceRecord): void {
    if (!this.workspaceAllowed(ws))
      throw forbidden(`The API key is not allowed to access workspace ${ws.id}`);
  }

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
