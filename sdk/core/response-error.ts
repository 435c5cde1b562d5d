/**
 * Turns a non-2xx response into the right {@link ApiError} subclass.
 *
 * Body shapes understood:
 * - admin: `{code, message, details, transactionId}` (spec admin §2 "Error body");
 * - platform: ErrorDTO `{status:"ERROR", code, message, correlationId, responseMessages}` and
 *   FailureDTO `{status:"FAILURE", code, message, correlationId, errors:[{fieldId, error}]}`
 *   (ref platform §2), whose `errors` become `fieldErrors`;
 * - an empty body (the admin API's title/comment 400, ref admin §2) or a non-JSON page (an edge
 *   proxy's 429, ref platform §9).
 *
 * Classification: 404, and the platform codes ENTITY_NOT_FOUND / RESOURCE_NOT_FOUND_EXCEPTION /
 * RESOURCE_NOT_FOUND at any status (the platform answers a missing connector with 400, ref
 * platform §2, §5), are {@link NotFoundError}; so are the platform's INVALID_REQUEST answers that
 * mean "no such entity" on update and delete (ref platform §4, §5). 409, DUPLICATE_FIELD, and an
 * INVALID_REQUEST / 400 saying "already exists" (ref platform §5) are {@link ConflictError}.
 * @module
 */
import type { IncomingHttpHeaders } from "node:http";
import { STATUS_CODES } from "node:http";
import {
  type ApiError,
  ApiError as ApiErrorClass,
  type ApiErrorInit,
  ConflictError,
  NotFoundError,
  RateLimitError,
} from "./errors";

const NOT_FOUND_CODES = new Set(["ENTITY_NOT_FOUND", "RESOURCE_NOT_FOUND_EXCEPTION", "RESOURCE_NOT_FOUND"]);
const CONFLICT_CODES = new Set(["DUPLICATE_FIELD"]);
const ALREADY_EXISTS = /already (?:exists|present)/i;
// ref platform §4 (PUT of a missing project), §5 (update / delete of a missing connector)
const MISSING_ENTITY = /\bnot found\b|does not exist|doesn't exist|no connector exists/i;

/** Headers that may carry the transaction / correlation id, first match wins. */
const TRANSACTION_HEADERS = ["x-transaction-id", "x-split-transaction-id", "x-request-id"];
const CORRELATION_HEADERS = ["x-correlation-id", "x-harness-correlation-id"];

/** What the core knows about a failed response. */
export interface FailedResponse {
  status: number;
  headers: IncomingHttpHeaders;
  /** The body as text, already redacted of credentials. */
  text: string;
  method: string;
  /** Full URL (origin + path + query); never carries credentials. */
  url: string;
  /** Message for an empty-bodied 400 on this route (ref admin §2). */
  emptyBadRequest?: string | undefined;
  /** Hint appended to 401/403 messages (which key, which option, which variable). */
  authHint?: string | undefined;
  attempts: number;
  /** The call's credentials, removed from every field of the error (never stored). */
  secrets?: readonly string[] | undefined;
  /** The fields the route declares secret, removed by name from every field of the error. */
  secretFields?: readonly string[] | undefined;
  /** Whether the request may have been applied anyway (a 5xx to a POST or PATCH). */
  outcomeUnknown: boolean;
  /** For 429: how long the server asked to wait. */
  retryAfterMs?: number | undefined;
}

function firstHeader(headers: IncomingHttpHeaders, names: readonly string[]): string | undefined {
  for (const n of names) {
    const v = headers[n];
    const s = Array.isArray(v) ? v[0] : v;
    if (s) return s;
  }
  return undefined;
}

/** Parses a body as JSON when it looks like JSON; returns `undefined` otherwise. */
function tryJson(text: string): unknown {
  const c = text.trimStart()[0];
  if (c !== "{" && c !== "[" && c !== '"') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** One readable line from a non-JSON body (an HTML error page, plain text). */
function textMessage(text: string): string {
  const stripped = text
    .replace(/<(script|style)[\s\S]*?<\/\1>/gi, " ")
    .replace(/<[^>]+>/g, " ")
    .replace(/\s+/g, " ")
    .trim();
  return stripped.length > 200 ? `${stripped.slice(0, 200)}...` : stripped;
}

/** Builds the typed error for a failed response; see the module comment for the rules. */
export function errorFromResponse(r: FailedResponse): ApiError {
  const reason = STATUS_CODES[r.status] ?? "HTTP error";
  const init: ApiErrorInit = {
    status: r.status,
    method: r.method,
    url: r.url,
    message: reason,
    transactionId: firstHeader(r.headers, TRANSACTION_HEADERS),
    correlationId: firstHeader(r.headers, CORRELATION_HEADERS),
    attempts: r.attempts,
    outcomeUnknown: r.outcomeUnknown,
    secrets: r.secrets,
    secretFields: r.secretFields,
  };
  let platformCode: string | undefined;

  if (r.text.trim() === "") {
    if (r.status === 400 && r.emptyBadRequest) init.message = r.emptyBadRequest;
    else init.message = `${reason} (empty response body)`;
  } else {
    const body = tryJson(r.text);
    init.body = body ?? r.text;
    if (typeof body === "object" && body !== null && !Array.isArray(body)) {
      const b = body as Record<string, unknown>;
      if (typeof b.message === "string" && b.message !== "") init.message = b.message;
      else if (typeof b.error === "string" && b.error !== "") init.message = b.error;
      if (typeof b.code === "number" || typeof b.code === "string") init.code = b.code;
      if (typeof b.details === "string") init.details = b.details;
      else if (typeof b.detailedMessage === "string") init.details = b.detailedMessage;
      if (typeof b.transactionId === "string" && b.transactionId) init.transactionId = b.transactionId;
      if (typeof b.correlationId === "string" && b.correlationId) init.correlationId = b.correlationId;
      if ((b.status === "ERROR" || b.status === "FAILURE") && typeof b.code === "string") {
        platformCode = b.code;
        // the platform identifies a request by its correlationId; a transaction header is not its own
        if (typeof b.transactionId !== "string" && typeof b.correlationId === "string")
          init.transactionId = undefined;
      }
      if (Array.isArray(b.errors)) {
        const fields = b.errors
          .filter((e): e is Record<string, unknown> => typeof e === "object" && e !== null)
          .map((e) => ({
            field: String(e.fieldId ?? e.field ?? ""),
            message: String(e.error ?? e.message ?? ""),
          }))
          .filter((f) => f.field !== "" || f.message !== "");
        if (fields.length) init.fieldErrors = fields;
      }
    } else if (typeof body === "string" && body !== "") {
      init.message = body;
    } else if (body === undefined) {
      const line = textMessage(r.text);
      if (line) init.message = line;
    }
  }

  if ((r.status === 401 || r.status === 403) && r.authHint) {
    init.message = `${init.message} (${r.authHint})`;
  }

  if (r.status === 429) return new RateLimitError({ ...init, retryAfterMs: r.retryAfterMs });
  if (r.status === 404 || (platformCode !== undefined && NOT_FOUND_CODES.has(platformCode))) {
    return new NotFoundError(init);
  }
  if (r.status === 409 || (platformCode !== undefined && CONFLICT_CODES.has(platformCode))) {
    return new ConflictError(init);
  }
  if (r.status === 400 && ALREADY_EXISTS.test(init.message)) return new ConflictError(init);
  if (r.status === 400 && platformCode === "INVALID_REQUEST" && MISSING_ENTITY.test(init.message)) {
    return new NotFoundError(init);
  }
  return new ApiErrorClass(init);
}
