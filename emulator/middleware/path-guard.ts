/**
 * Refuses `.` and `..` path segments, raw or percent-encoded (`%2E`, `%2e%2E`, `.%2e`, ...), with
 * 400 and the API's error body naming the parameter the segment stands in.
 *
 * The URL parser that builds the request for the router resolves such segments away (as WHATWG
 * URLs do, `%2e` included, and a backslash counts as a slash), so
 * `DELETE .../splits/ws/<ws>/victim/environments/..` would reach the router as
 * `DELETE .../splits/ws/<ws>/victim` and delete the whole flag. The check therefore reads the raw
 * request target from the Node request, before anything has parsed it. (In-process
 * `app.request()` calls have no raw target: their URL was parsed by the caller.)
 * @module
 */
import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../context";
import { renderError } from "../http";
import { validationFailure } from "../platform/errors";

/** A registered route: its method and full path, as hono lists them in `app.routes`. */
export type RouteLike = { readonly method: string; readonly path: string };

/** The segments of a raw request target's path (query dropped; `\` splits like `/`). */
function rawSegments(target: string): string[] {
  let path = target;
  const authority = /^[a-z][a-z0-9+.-]*:\/\/[^/\\]*/i.exec(path);
  if (authority) path = path.slice(authority[0].length);
  const q = path.search(/[?#]/);
  if (q >= 0) path = path.slice(0, q);
  return path.split(/[/\\]/).slice(1);
}

function decoded(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

const isDotSegment = (segment: string): boolean => {
  const d = decoded(segment);
  return d === "." || d === "..";
};

/**
 * The name of the route parameter at segment `index` of a path: the first route of the same
 * method (else of any method) whose literal segments match, else `path` (the segment is no
 * parameter of any route).
 */
export function parameterAt(
  routes: readonly RouteLike[],
  method: string,
  segments: readonly string[],
  index: number,
): string {
  const wanted = method === "HEAD" ? "GET" : method;
  const parts = segments.map(decoded);
  // strict: false routing: a trailing slash names the same route.
  if (parts.length > 1 && parts[parts.length - 1] === "") parts.pop();
  let fallback: string | undefined;
  for (const route of routes) {
    if (route.path.includes("*")) continue;
    const pattern = route.path.split("/").slice(1);
    if (pattern.length !== parts.length) continue;
    const matches = pattern.every((p, i) => p.startsWith(":") || i === index || p === parts[i]);
    const at = pattern[index];
    if (!matches || at === undefined || !at.startsWith(":")) continue;
    const name = at.slice(1).replace(/[{?].*$/, "");
    if (route.method === wanted) return name;
    fallback ??= name;
  }
  return fallback ?? "path";
}

/**
 * Refuses requests whose raw path has a `.` or `..` segment (see the module comment).
 * @param routes - the app's routes (`() => app.routes`), read when a segment has to be named
 */
export function pathGuard(routes: () => readonly RouteLike[]): MiddlewareHandler<AppEnv> {
  return async function pathGuardMiddleware(c, next) {
    const target = c.env?.incoming?.url;
    if (target === undefined || (!target.includes(".") && !/%2e/i.test(target))) return next();
    const segments = rawSegments(target);
    const index = segments.findIndex(isDotSegment);
    if (index < 0) return next();
    const raw = segments[index] ?? "";
    const name = parameterAt(routes(), c.req.method, segments, index);
    const problem = `"${raw}" is not allowed as a path segment: "." and ".." would be resolved against the path and the request would reach another resource`;
    // The platform answers a bad path parameter as bean validation does (ref platform §2); the
    // other APIs get a 400 whose message is the same `name: problem`.
    return renderError(c, validationFailure([{ path: name, message: problem }]));
  };
}
