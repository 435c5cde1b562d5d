/**
 * Endpoints as data, octokit style: `"GET /internal/api/v2/splits/ws/{wsId}/{flag}"` plus the zod
 * schema of its success body. {@link route} compiles the string once (method, literal parts,
 * parameter names), so expanding it per call is a few string concatenations, and the parameter
 * names are checked at compile time from the route string itself.
 * @module
 */
import type { z } from "zod";
import { type HttpMethod, RETRY_DEFAULTS } from "./retry";
import { type SecretPath, secretFieldNames, secretPaths } from "./secret-fields";

/** Names of the `{param}` placeholders of a route string. */
export type ParamNames<R extends string> = R extends `${string}{${infer N}}${infer Rest}`
  ? N | ParamNames<Rest>
  : never;

/** The path parameters a route needs, by name. */
export type RouteParams<R extends string> = [ParamNames<R>] extends [never]
  ? Record<string, never>
  : { readonly [K in ParamNames<R>]: string };

/**
 * How a route's request body is encoded: JSON, YAML text, or `multipart/form-data` (the call's body
 * is then a `FormData`, the built-in one; see `request.ts`).
 */
export type BodyEncoding = "json" | "yaml" | "multipart";

/** Per-route behaviour beyond the method, path and response schema. */
export interface RouteOptions {
  /**
   * Request body encoding (default JSON). YAML bodies are sent as given, with `application/yaml`;
   * multipart bodies are a `FormData`, encoded once per call (so a retry resends the same bytes).
   */
  body?: BodyEncoding;
  /**
   * The value validated when a success response has no body (204, or 200 with an empty body).
   * Without it an empty success body fails validation.
   */
  emptyBody?: unknown;
  /**
   * Message for a 400 with an empty body; the admin API answers that way when a workspace requires
   * a title and comment for definition changes (ref admin §2).
   */
  emptyBadRequest?: string;
  /**
   * For a DELETE: the result to return when a retry finds the object gone (not found) after an
   * earlier attempt may have deleted it (its response was lost, or a 5xx came back). Without it,
   * that not-found is thrown like any other.
   */
  goneOnRetry?: unknown;
  /**
   * A POST that only reads (a list whose filter travels in the body, such as the platform's
   * pipeline list): it changes nothing, so it is retried like a GET after a lost response or a
   * 5xx (`idempotent`).
   */
  readOnly?: true;
  /**
   * The schema of a JSON request body, for the secrets it declares (`secret-fields.ts`): each
   * call's values of those fields are removed from every error of the call (the core does not
   * validate the body with it; the client part does, before the call).
   */
  request?: z.ZodType;
}

/** A compiled endpoint; build one with {@link route}. */
export interface Route<R extends string = string, S extends z.ZodType = z.ZodType> {
  /** The route string as written: `"GET /path/{param}"`. */
  readonly route: R;
  readonly method: HttpMethod;
  /** The path template, without the method. */
  readonly template: string;
  /** Literal path pieces; `params[i]` goes between `literals[i]` and `literals[i + 1]`. */
  readonly literals: readonly string[];
  readonly params: readonly string[];
  /** Whether a retry after a lost response is safe (GET, PUT, DELETE, and a read-only POST). */
  readonly idempotent: boolean;
  /** A GET, or a POST declared `readOnly`: the call changes nothing on the service. */
  readonly readsOnly: boolean;
  /** Schema of a success body. */
  readonly schema: S;
  readonly body: BodyEncoding;
  readonly hasEmptyBody: boolean;
  readonly emptyBody: unknown;
  readonly emptyBadRequest: string | undefined;
  readonly hasGoneOnRetry: boolean;
  readonly goneOnRetry: unknown;
  /** Where the request body's secret fields are ({@link RouteOptions.request}). */
  readonly secretRequestPaths: readonly SecretPath[];
  /**
   * The names of the secret fields of the request and response schemas: removed by name from the
   * body and text of every error of a call of this route (`redact.ts`).
   */
  readonly secretFields: readonly string[];
}

/**
 * Compiles an endpoint.
 * @example
 * const getFlag = route("GET /internal/api/v2/splits/ws/{wsId}/{flag}", Flag);
 * await core.request(getFlag, { wsId, flag: "checkout" }); // params are type-checked
 */
export function route<R extends `${HttpMethod} /${string}`, S extends z.ZodType>(
  r: R,
  schema: S,
  options: RouteOptions = {},
): Route<R, S> {
  const space = r.indexOf(" ");
  const method = r.slice(0, space) as HttpMethod;
  const template = r.slice(space + 1);
  const literals: string[] = [];
  const params: string[] = [];
  const re = /\{([A-Za-z_][A-Za-z0-9_]*)\}/g;
  let last = 0;
  for (let m = re.exec(template); m !== null; m = re.exec(template)) {
    literals.push(template.slice(last, m.index));
    params.push(m[1]!);
    last = m.index + m[0].length;
  }
  literals.push(template.slice(last));
  const secretRequestPaths = options.request ? secretPaths(options.request) : [];
  const secretFields = [
    ...new Set([...secretFieldNames(schema), ...secretRequestPaths.map((p) => p[p.length - 1]!)]),
  ];
  return Object.freeze({
    route: r,
    method,
    template,
    literals,
    params,
    idempotent:
      options.readOnly === true || (RETRY_DEFAULTS.idempotentMethods as readonly string[]).includes(method),
    readsOnly: method === "GET" || options.readOnly === true,
    schema,
    body: options.body ?? "json",
    hasEmptyBody: "emptyBody" in options,
    emptyBody: options.emptyBody,
    emptyBadRequest: options.emptyBadRequest,
    hasGoneOnRetry: "goneOnRetry" in options,
    goneOnRetry: options.goneOnRetry,
    secretRequestPaths,
    secretFields,
  });
}

/** Query parameter values; `undefined` and `null` are left out, arrays repeat the key. */
export type QueryValue =
  | string
  | number
  | boolean
  | null
  | undefined
  | readonly (string | number | boolean)[];
/** Query parameters of one call. */
export type Query = Readonly<Record<string, QueryValue>>;

/** A path parameter that cannot be sent: its name and why. */
export interface PathProblem {
  /** The route's parameter name (`environment`, `identifier`, ...). */
  param: string;
  message: string;
}

/**
 * Why a path value cannot be sent, or `undefined` when it can.
 *
 * A value that is, or decodes to, a dot segment would make the request name another object: URL
 * normalisation (WHATWG URL parsing, undici, proxies, the server's router) resolves `.` and `..`,
 * and WHATWG treats `%2e` as `.` in a segment (any case: `.%2E`, `%2e.`, `%2E%2e` are `..`). So
 * `DELETE .../{flag}/environments/..` would delete the whole flag. Refused:
 * - `.` and `..` themselves (encodeURIComponent leaves dots as they are);
 * - values that decode to them once or more (`%2E`, `%2e%2E`, `%252e`): a server or proxy that
 *   decodes before routing (some decode twice) would see the dot segment;
 * - values holding a dot segment between `/` or `\` once decoded (`../x`, `a%2F..`): the slash is
 *   sent encoded, but a server that decodes `%2F` before routing would split there.
 * Decoding is lenient (bytes below 0x80 only, malformed escapes left as they are), as a lenient
 * server's would be.
 */
export function pathValueProblem(value: string): string | undefined {
  const shown = JSON.stringify(value.length > 200 ? `${value.slice(0, 200)}...` : value);
  let s = value;
  for (let round = 0; ; round++) {
    const segment = s.split(/[/\\]/).find((p) => p === "." || p === "..");
    if (segment !== undefined) {
      const why =
        s === value && segment === value
          ? "a dot segment"
          : s === segment
            ? `it decodes to ${JSON.stringify(segment)}, a dot segment`
            : `it holds the dot segment ${JSON.stringify(segment)}${s === value ? "" : " once decoded"}`;
      return `${shown} is not a valid path value (${why}: URL normalisation would make the request name another object)`;
    }
    const decoded = s.replace(/%([0-7][0-9a-f])/gi, (_, hex: string) =>
      String.fromCharCode(Number.parseInt(hex, 16)),
    );
    // each round that changes the text makes it shorter, so this ends
    if (decoded === s || round > 16) return undefined;
    s = decoded;
  }
}

/**
 * Expands a route's path with URL-encoded parameters. Returns the problem instead of a path when a
 * parameter is absent, empty, or a dot segment in disguise ({@link pathValueProblem}); the caller
 * turns that into a ValidationError before anything is sent.
 */
export function expandPath(r: Route, params: Readonly<Record<string, string>>): string | PathProblem {
  const { literals, params: names } = r;
  let path = literals[0]!;
  for (let i = 0; i < names.length; i++) {
    const name = names[i]!;
    const v = params[name];
    if (typeof v !== "string" || v.length === 0) {
      return { param: name, message: `${name} must be a non-empty string` };
    }
    // Dots and "%" are the only way into a dot segment; most values (ids, names) have neither.
    if (v.includes(".") || v.includes("%")) {
      const problem = pathValueProblem(v);
      if (problem !== undefined) return { param: name, message: problem };
    }
    path += encodeURIComponent(v) + literals[i + 1]!;
  }
  return path;
}

/** Serializes query parameters (`?a=1&b=x`), or `""` when there are none. */
export function buildQuery(query: Query | undefined): string {
  if (query === undefined) return "";
  let out = "";
  for (const key in query) {
    const v = query[key];
    if (v === undefined || v === null) continue;
    if (Array.isArray(v)) {
      for (const item of v as readonly (string | number | boolean)[]) {
        out += `${out ? "&" : "?"}${encodeURIComponent(key)}=${encodeURIComponent(String(item))}`;
      }
    } else {
      out += `${out ? "&" : "?"}${encodeURIComponent(key)}=${encodeURIComponent(String(v))}`;
    }
  }
  return out;
}
