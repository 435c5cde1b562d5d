/**
 * What the services' front proxy does to a path before it reaches an API, so that clients that
 * keep their default base URLs and change only the host reach the emulator's routes:
 * - Repeated slashes are one (nginx's `merge_slashes`, on by default): Split's Python admin client
 *   in Harness mode joins its default Harness base URL, which ends in `/`, with paths that start
 *   with `/`, and sends `//ng/api/projects` (splitapiclient 3.5.9 `main/harness_apiclient.py`
 *   `BASE_HARNESS_URL`, `microclients/harness/*.py` `url_template`); the real service answers those
 *   calls (inferred from the client).
 * - A leading `/gateway` is dropped: the Harness Terraform provider's default endpoint is
 *   `https://app.harness.io/gateway` (ref platform §1, §11.1), while splitapiclient calls the same
 *   APIs without it; both reach the same services.
 * - A leading `/fme` is dropped likewise: the Harness Terraform provider calls the FME admin API
 *   at its endpoint with `/gateway` replaced by `/fme` (terraform-provider-harness
 *   `internal/provider/provider.go` `resolveFMEAdminAPIEndpoint`), `<host>/fme/internal/api/v2/...`.
 * @module
 */
import type { Hono, MiddlewareHandler } from "hono";
import type { AppEnv } from "../context";

/** The front proxy's prefixes of the services (see the module comment). */
const PREFIXES = ["/gateway", "/fme"] as const;

/** The path the APIs see (see the module comment); the same string when nothing changes. */
export function apiPath(path: string): string {
  const merged = path.replace(/\/{2,}/g, "/");
  for (const prefix of PREFIXES) {
    if (merged === prefix) return "/";
    if (merged.startsWith(`${prefix}/`)) return merged.slice(prefix.length);
  }
  return merged;
}

/** Re-dispatches a request whose path {@link apiPath} changes to the same app with the new path. */
export function frontProxy(app: () => Hono<AppEnv>): MiddlewareHandler<AppEnv> {
  return async function frontProxyMiddleware(c, next) {
    // Cheap test first: nearly every request has neither.
    const raw = c.req.path;
    if (!raw.includes("//") && !PREFIXES.some((p) => raw.startsWith(p))) return next();
    const url = new URL(c.req.url);
    const path = apiPath(url.pathname);
    if (path === url.pathname) return next();
    url.pathname = path;
    const method = c.req.method;
    const body = method === "GET" || method === "HEAD" ? undefined : await c.req.arrayBuffer();
    return app().fetch(new Request(url, { method, headers: c.req.raw.headers, body }), c.env);
  };
}
