/**
 * Request and response plumbing shared by every route of both APIs: JSON bodies, integer and
 * optional query parameters, responses with exact headers, and the rendering of an
 * {@link EmulatorError} into the body of the API the request belongs to.
 *
 * What differs between the APIs is data handed to these helpers (how a refusal is worded), never
 * a second helper.
 * @module
 */
import type { Context } from "hono";
import type { Api, AppEnv } from "./context";
import { badRequest, type EmulatorError } from "./errors";
import { validationFailure } from "./platform/errors";

/** A JSON response with an exact `content-length` (so tests can assert it). */
export function jsonResponse(body: unknown, status: number, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json", ...headers },
  });
}

/** A response without a body and with `content-length: 0`. */
export function emptyResponse(status: number, headers: Record<string, string> = {}): Response {
  return new Response(null, { status, headers: { "content-length": "0", ...headers } });
}

/**
 * The body an error shows in `api` (see `errors.ts`): the platform's ErrorDTO or FailureDTO with
 * `id` as `correlationId` (ref platform §2; `message` is `responseMessages[0].message`), else the
 * admin body with `id` as `transactionId` (spec admin §2), or `null` when the error has no body.
 */
export function errorBody(err: EmulatorError, api: Api, id: string): Record<string, unknown> | null {
  if (err.empty) return null;
  if (api !== "platform") {
    return { code: err.status, message: err.message, details: err.details, transactionId: id };
  }
  const { code, message } = err;
  if (err.shape === "FAILURE")
    return { status: "FAILURE", code, message, correlationId: id, errors: err.errors };
  return {
    status: "ERROR",
    code,
    message,
    correlationId: id,
    detailedMessage: null,
    responseMessages: [{ code, level: "ERROR", message, exception: null, failureTypes: [] }],
    metadata: err.metadata,
  };
}

/** The response of an error in the API of the request (see {@link errorBody}). */
export function renderError(c: Context<AppEnv>, err: EmulatorError): Response {
  const body = errorBody(err, c.get("api"), c.get("transactionId") ?? "");
  return body === null ? emptyResponse(err.status, err.headers) : jsonResponse(body, err.status, err.headers);
}

/**
 * Replaces the response a handler produced (hono's `c.res` setter would otherwise copy the old
 * response's headers, `content-length` and `ETag` included, onto the new one).
 */
export function replaceResponse(c: Context<AppEnv>, res: Response): void {
  c.res = undefined as unknown as Response;
  c.res = res;
}

/** How a route reads its JSON body: what an empty body is, and how a syntax error is refused. */
export interface JsonBodyRule {
  /** The message of the 400 for an empty body; without it an empty body reads as `undefined`. */
  required?: string;
  /** The error for text that is not JSON (default: the admin API's 400 naming the body). */
  invalid?: (detail: string) => EmulatorError;
}

/** Reads the request body as JSON (see {@link JsonBodyRule}). */
export async function readJson(c: Context, rule: JsonBodyRule = {}): Promise<unknown> {
  const text = await c.req.text();
  if (text.trim() === "") {
    if (rule.required !== undefined) throw badRequest(rule.required);
    return undefined;
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (e) {
    const detail = (e as Error).message;
    throw rule.invalid ? rule.invalid(detail) : badRequest(`body: not valid JSON (${detail})`);
  }
}

/** An optional query parameter; an empty value counts as absent. */
export function optionalQuery(c: Context, name: string): string | null {
  const value = c.req.query(name);
  return value === undefined || value === "" ? null : value;
}

/** How an API reads integer query parameters, and words a refusal. */
export interface IntRule {
  /** `-1` is an integer (else a sign is refused as not a number). */
  signed: boolean;
  /** The error for `raw`, which is not an integer, or (with `range`) outside it. */
  refuse: (name: string, raw: string, range?: { min: number; max: number }) => EmulatorError;
}

/** The admin API's and the control routes' wording: a 400 naming the parameter. */
export const WHOLE_NUMBER: IntRule = {
  signed: true,
  refuse: (name, raw, range) =>
    range
      ? badRequest(`${name}: must be between ${range.min} and ${range.max}, got ${Number(raw)}`)
      : badRequest(`${name}: must be a whole number, got "${raw}"`),
};

/** The SDK endpoints' change numbers (`since`, `rbSince`): any integer, `-1` for "from the start". */
export const CHANGE_NUMBER: IntRule = {
  signed: true,
  refuse: (name, raw) => badRequest(`${name}: must be a change number, got "${raw}"`),
};

/** The platform's `@QueryParam int` with `@DefaultValue`: bean validation naming the parameter (ref platform §2). */
export const PLATFORM_INT: IntRule = {
  signed: false,
  refuse: (name) => validationFailure([{ path: name, message: "must be a non-negative integer" }]),
};

/** An integer query parameter within `min`..`max`, or `fallback` when absent or empty. */
export function intQuery(
  c: Context,
  name: string,
  fallback: number,
  rule: IntRule,
  min = Number.MIN_SAFE_INTEGER,
  max = Number.MAX_SAFE_INTEGER,
): number {
  const raw = c.req.query(name);
  if (raw === undefined || raw === "") return fallback;
  if (!(rule.signed ? /^-?\d+$/ : /^\d+$/).test(raw)) throw rule.refuse(name, raw);
  const n = Number(raw);
  if (n < min || n > max) throw rule.refuse(name, raw, { min, max });
  return n;
}
