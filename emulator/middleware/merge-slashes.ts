/**
 * Repeated slashes in a path are one, as the services' front proxies treat them (nginx's
 * `merge_slashes`, on by default): Split's Python admin client in Harness mode joins its default
 * Harness base URL, which ends in `/`, with paths that start with `/`, and sends
 * `//ng/api/projects` (splitapiclient 3.5.9 `main/harness_apiclient.py` `BASE_HARNESS_URL`,
 * `microclients/harness/*.py` `url_template`); the real service answers those calls, so the
 * emulator serves such a request as the path with single slashes (inferred from the client).
 * @module
 */
import type { Hono, MiddlewareHandler } from "hono";
import type { AppEnv } from "../context";

/** Re-dispatches a request whose path has `//` to the same app with the slashes merged. */
export function mergeSlashes(app: () => Hono<AppEnv>): MiddlewareHandler<AppEnv> {
  return async function mergeSlashesMiddleware(c, next) {
    const url = new URL(c.req.url);
    if (!url.pathname.includes("//")) return next();
    url.pathname = url.pathname.replace(/\/{2,}/g, "/");
    const method = c.req.method;
    const body = method === "GET" || method === "HEAD" ? undefined : await c.req.arrayBuffer();
    return app().fetch(new Request(url, { method, headers: c.req.raw.headers, body }), c.env);
  };
}
