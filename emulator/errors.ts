/**
 * Errors the emulator's handlers throw, rendered by one `onError` into the API's own error body.
 *
 * The admin API's body is `{code, message, details, transactionId}` (spec §2 "Error body", §7);
 * a few 400s have no body at all (ref admin §2: missing title/comment → content-length 0).
 * @module
 */
import type { Context } from "hono";
import type { z } from "zod";
import type { AppEnv } from "./context";

/** An HTTP error with the admin API's error body (or no body when `empty`). */
export class EmulatorHttpError extends Error {
  readonly status: number;
  readonly details: string;
  /** True for the responses the real service sends without a body. */
  readonly empty: boolean;
  readonly headers: Record<string, string>;

  constructor(
    status: number,
    message: string,
    opts: { details?: string; empty?: boolean; headers?: Record<string, string> } = {},
  ) {
    super(message);
    this.name = "EmulatorHttpError";
    this.status = status;
    this.details = opts.details ?? "";
    this.empty = opts.empty ?? false;
    this.headers = opts.headers ?? {};
  }
}

/** 400 with a message naming the field at fault. */
export const badRequest = (message: string, details = ""): EmulatorHttpError =>
  new EmulatorHttpError(400, message, { details });
/** 401: missing, unknown or wrong-type key (ref admin §4: "401 invalid Admin API key"). */
export const unauthorized = (message: string): EmulatorHttpError => new EmulatorHttpError(401, message);
/** 403: a valid key that is restricted away from the resource (spec §5 item 4). */
export const forbidden = (message: string): EmulatorHttpError => new EmulatorHttpError(403, message);
export const notFound = (message: string): EmulatorHttpError => new EmulatorHttpError(404, message);
/** 409: a duplicate, or a JSON Patch `test` that did not hold (ref admin §4). */
export const conflict = (message: string): EmulatorHttpError => new EmulatorHttpError(409, message);
/** 405 for routes the real API lacks (ref admin §1.2: no GET of one environment). */
export const methodNotAllowed = (message: string): EmulatorHttpError => new EmulatorHttpError(405, message);
/** The empty-bodied 400 of a workspace that requires title and comment (spec §7). */
export const emptyBadRequest = (): EmulatorHttpError => new EmulatorHttpError(400, "", { empty: true });

/** Formats a zod path as `treatments[0].name` (the root is `body`). */
export function fieldPath(path: readonly PropertyKey[], root = ""): string {
  let out = root;
  for (const p of path) {
    if (typeof p === "number") out += `[${p}]`;
    else out += out ? `.${String(p)}` : String(p);
  }
  return out || "body";
}

/** The value at a zod path, or undefined. */
function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let v = input;
  for (const p of path) {
    if (v === null || typeof v !== "object") return undefined;
    v = (v as Record<PropertyKey, unknown>)[p];
  }
  return v;
}

/**
 * For a union that failed, the message of the branch whose type matched the value (for example
 * the digit-string rule of a timestamp sent as a string) instead of zod's bare "Invalid input".
 */
function unionMessage(issue: z.core.$ZodIssue): string | undefined {
  if (issue.code !== "invalid_union") return undefined;
  for (const branch of issue.errors) {
    const typeMismatch = branch.some((b) => b.code === "invalid_type" && b.path.length === 0);
    if (!typeMismatch && branch[0]) return branch[0].message;
  }
  return undefined;
}

/**
 * Turns a zod error into a 400 whose message names the first field and whose details list all.
 * With the `input`, a field that is absent says "is required" instead of zod's type or format
 * message (which may read as if a value had been sent).
 */
export function zodBadRequest(error: z.ZodError, root = "", input?: unknown): EmulatorHttpError {
  const lines = error.issues.map((i) => {
    const missing =
      (i.code === "invalid_union" || i.code === "invalid_type" || i.code === "invalid_format") &&
      input !== undefined &&
      i.path.length > 0 &&
      valueAt(input, i.path) === undefined;
    return `${fieldPath(i.path, root)}: ${missing ? "is required" : (unionMessage(i) ?? i.message)}`;
  });
  // details lists every problem when there is more than one (the real API leaves it empty otherwise).
  return badRequest(lines[0] ?? "invalid request body", lines.length > 1 ? lines.join("; ") : "");
}

/** The admin API's error body (spec §2). */
export function adminErrorBody(status: number, message: string, transactionId: string, details = "") {
  return { code: status, message, details, transactionId };
}

/**
 * The platform API's ErrorDTO (ref platform §2), used for faults injected into platform routes.
 * Codes follow ErrorCode names (ref platform §2.1).
 */
export function platformErrorBody(status: number, message: string, correlationId: string) {
  const code = status === 401 ? "INVALID_TOKEN" : status === 403 ? "NG_ACCESS_DENIED" : "UNKNOWN_ERROR";
  return {
    status: "ERROR",
    code,
    message,
    correlationId,
    detailedMessage: null,
    responseMessages: [{ code, level: "ERROR", message, exception: null, failureTypes: [] }],
    metadata: null,
  };
}

/** A JSON response with an exact `content-length` (so tests can assert it). */
export function jsonResponse(body: unknown, status: number, headers: Record<string, string> = {}): Response {
  const text = JSON.stringify(body);
  return new Response(text, {
    status,
    headers: { "content-type": "application/json", ...headers },
  });
}

/** A response without a body and with `content-length: 0`. */
export function emptyResponse(status: number, headers: Record<string, string> = {}): Response {
  return new Response(null, { status, headers: { "content-length": "0", ...headers } });
}

/** Renders an {@link EmulatorHttpError} as the admin API's error response. */
export function renderAdminError(err: EmulatorHttpError, transactionId: string): Response {
  if (err.empty) return emptyResponse(err.status, err.headers);
  return jsonResponse(
    adminErrorBody(err.status, err.message, transactionId, err.details),
    err.status,
    err.headers,
  );
}

/**
 * An error response in the shape of the API the request belongs to: the admin API's body for the
 * admin, events, SDK and control routes, and `platformBody` (an ErrorDTO or FailureDTO, ref
 * platform §2) for the platform API.
 */
export function errorForApi(
  c: Context<AppEnv>,
  status: number,
  message: string,
  platformBody: (correlationId: string) => unknown,
): Response {
  const txId = c.get("transactionId") ?? "";
  return c.get("api") === "platform"
    ? jsonResponse(platformBody(txId), status)
    : jsonResponse(adminErrorBody(status, message, txId), status);
}

/**
 * Replaces the response a handler produced (hono's `c.res` setter would otherwise copy the old
 * response's headers, `content-length` and `ETag` included, onto the new one).
 */
export function replaceResponse(c: Context<AppEnv>, res: Response): void {
  c.res = undefined as unknown as Response;
  c.res = res;
}

/**
 * The state file could not be written (a full disk, say): the changes waiting for that write were
 * rolled back in memory and the commits waiting for it reject with this error. The routes answer
 * it with 503 and the API's error body: the request certainly did nothing.
 */
export class StateWriteError extends Error {
  /** The errno code of the failed write (`ENOSPC`, `EIO`, ...), when it had one. */
  readonly code: string | undefined;

  constructor(message: string, cause?: unknown) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = "StateWriteError";
    this.code = (cause as NodeJS.ErrnoException | undefined)?.code;
  }
}
