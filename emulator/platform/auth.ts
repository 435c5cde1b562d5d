/**
 * Authentication and authorization of the platform API (spec §5).
 *
 * Order, as in the real service: the authentication filter (401) runs before the resource method,
 * whose `@NotNull` query parameters are bean-validated (400), and the access-control check (403)
 * runs first thing inside the resource, before any lookup.
 * @module
 */
import type { Context, MiddlewareHandler } from "hono";
import { accessDenied, invalidToken } from "./errors.js";
import { requireQuery } from "./http.js";
import type { ApiKey, PlatformDeps } from "./index.js";

declare module "hono" {
  interface ContextVariableMap {
    /** The platform key that authenticated the request (set by {@link platformAuth}). */
    platformApiKey: ApiKey;
  }
}

/**
 * Requires `x-api-key` to be a known platform key (401 INVALID_TOKEN otherwise) and
 * `accountIdentifier` to name this emulator's account.
 *
 * A key of another account is a valid token without rights on the account asked for, so the
 * emulator answers 403 NG_ACCESS_DENIED rather than 400 (inferred: the reference does not show
 * this case).
 */
export function platformAuth(deps: PlatformDeps): MiddlewareHandler {
  return async function platformAuthMiddleware(c, next) {
    const token = c.req.header("x-api-key");
    const key = token === undefined ? undefined : deps.keys().find((k) => k.key === token);
    if (key === undefined || key.type !== "platform") throw invalidToken();
    c.set("platformApiKey", key);
    const { accountIdentifier } = requireQuery(c, ["accountIdentifier"]);
    if (accountIdentifier !== deps.accountId) {
      throw accessDenied(`Missing permission to access account [${accountIdentifier}]`);
    }
    await next();
  };
}

/** Where a resource lives: account (both null), organization, or project. */
export interface Scope {
  org: string | null;
  project: string | null;
}

/** Whether a key restricted to some organizations and projects may act in a scope. */
export function keyAllows(key: ApiKey, scope: Scope): boolean {
  if (key.organizations !== undefined) {
    if (scope.org === null || !key.organizations.includes(scope.org)) return false;
  }
  if (key.projects !== undefined) {
    if (scope.org === null || scope.project === null) return false;
    // Project identifiers compare case-insensitively, as project lookups do (ref §3).
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
 * The access-control check of a resource method: 403 NG_ACCESS_DENIED with the real message form
 * `Missing permission <permission> on <resource type>[ with identifier <id>]` (ref §2).
 */
export function authorize(
  c: Context,
  scope: Scope,
  permission: string,
  resourceType: string,
  identifier?: string,
): void {
  if (keyAllows(c.get("platformApiKey"), scope)) return;
  const suffix = identifier === undefined ? "" : ` with identifier ${identifier}`;
  throw accessDenied(`Missing permission ${permission} on ${resourceType}${suffix}`);
}
