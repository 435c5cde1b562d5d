/**
 * Typed, branded errors for every API call.
 *
 * `instanceof` fails when two copies of this module are loaded (the Pulumi dynamic-provider host
 * re-requires the provider closure), so each class carries a `Symbol.for` brand and answers
 * `instanceof` / `isInstance` by the brand, not by the prototype chain.
 * @module
 */

import { bodySecrets, redactCause, redactText, redactValue, usableSecrets } from "./redact";

const BRAND: unique symbol = Symbol.for("flagstack.ApiError");
const KIND: unique symbol = Symbol.for("flagstack.ApiError.kind");

/**
 * Every kind of {@link ApiError}: its class's name, and the members of the init that class keeps
 * beside the common ones (shown by `toJSON` after them). `"api"` is the base class.
 */
const KINDS = {
  api: { name: "ApiError", members: [] },
  "not-found": { name: "NotFoundError", members: [] },
  conflict: { name: "ConflictError", members: [] },
  "rate-limited": { name: "RateLimitError", members: ["retryAfterMs"] },
  validation: { name: "ValidationError", members: [] },
  network: { name: "NetworkError", members: ["errorCode"] },
} as const satisfies Record<string, { name: string; members: readonly (keyof ApiErrorInit)[] }>;

/** The discriminant of every {@link ApiError}: one value per subclass, `"api"` for the base class. */
export type ApiErrorKind = keyof typeof KINDS;

/** Everything an {@link ApiError} is built from. */
export interface ApiErrorInit {
  /** HTTP status; 0 when no response arrived (network errors). */
  status: number;
  method: string;
  /** The request URL with credentials removed. */
  url: string;
  message: string;
  /** The API's own error code (admin: a number; platform: a string such as `INVALID_REQUEST`). */
  code?: string | number | undefined;
  details?: string | undefined;
  /** Admin API error bodies carry a `transactionId`; the platform API a `correlationId`. */
  transactionId?: string | undefined;
  correlationId?: string | undefined;
  /** Field errors of a platform FAILURE body, or zod issues of a validation error. */
  fieldErrors?: { field: string; message: string }[] | undefined;
  /** The parsed response body, when there was one. */
  body?: unknown;
  cause?: unknown;
  /**
   * True when the request may have been applied although no success was seen: a connection lost
   * after a POST or PATCH was sent, or a 500/502/504 to one. False when the answer says what
   * happened (a 4xx, 429 or 503 was not applied; a 2xx was). Callers that cannot look the result
   * up (the event import) must not re-send blindly when it is true.
   */
  outcomeUnknown?: boolean | undefined;
  /** How many attempts were made (retries included); shown in the message when more than one. */
  attempts?: number | undefined;
  /**
   * The credentials of the call (the client's key): removed, whole or in fragments, from every
   * field of the error, with credential-shaped text and fields (`sdk/core/redact.ts`). Never stored.
   */
  secrets?: readonly (string | undefined)[] | undefined;
  /**
   * The names of the fields the call's route declares secret (`sdk/core/secret-fields.ts`: a new
   * API key's `key`): their values are removed from the body, and their `name: value` forms from
   * every text of the error. Never stored.
   */
  secretFields?: readonly string[] | undefined;
  /** A {@link RateLimitError}'s: how long the server asked us to wait, in milliseconds. */
  retryAfterMs?: number | undefined;
  /** A {@link NetworkError}'s: the transport's error code. */
  errorCode?: string | undefined;
}

const SECRET_QUERY = /([?&](?:api[_-]?key|token|key|apiKey)=)[^&#]*/gi;

/** Removes credentials from a URL (user info and key-like query parameters). */
export function redactUrl(url: string): string {
  let out = url;
  try {
    const u = new URL(url);
    if (u.username || u.password) {
      u.username = "";
      u.password = "";
      out = u.toString();
    }
  } catch {
    // not an absolute URL: keep it as is
  }
  return out.replace(SECRET_QUERY, "$1***");
}

/**
 * A copy of `init` with every credential removed (see `sdk/core/redact.ts`), and no `secrets` or
 * `secretFields`. The secrets the body and details name by their structure (a new key in a
 * `details` JSON string, a body's `key` field) are removed from every text too: a message may
 * repeat them without a name.
 */
function redactInit(init: ApiErrorInit): ApiErrorInit {
  const fields = init.secretFields ?? [];
  const secrets = usableSecrets([
    ...(init.secrets ?? []),
    ...bodySecrets(init.body, fields),
    ...(init.details === undefined ? [] : bodySecrets(init.details, fields)),
  ]);
  const clean = (s: string) => redactText(s, secrets, fields);
  const text = (s: string | undefined) => (s === undefined ? undefined : clean(s));
  const { secrets: _dropped, secretFields: _names, ...rest } = init;
  return {
    ...rest,
    url: clean(redactUrl(init.url)),
    message: clean(init.message),
    code: typeof init.code === "string" ? clean(init.code) : init.code,
    details: text(init.details),
    transactionId: text(init.transactionId),
    correlationId: text(init.correlationId),
    fieldErrors: init.fieldErrors?.map((f) => ({ field: clean(f.field), message: clean(f.message) })),
    body: init.body === undefined ? undefined : redactValue(init.body, secrets, fields),
    cause: init.cause === undefined ? undefined : redactCause(init.cause, secrets, fields),
  };
}

/** Base class of every error the SDK throws for an HTTP call. */
export class ApiError extends Error {
  readonly [BRAND] = true;
  readonly kind: ApiErrorKind;
  readonly status: number;
  readonly method: string;
  readonly url: string;
  readonly code: string | number | undefined;
  readonly details: string | undefined;
  readonly transactionId: string | undefined;
  readonly correlationId: string | undefined;
  readonly fieldErrors: { field: string; message: string }[];
  readonly body: unknown;
  /** The API's message without the method, path and transaction decoration. */
  readonly apiMessage: string;
  /** See {@link ApiErrorInit.outcomeUnknown}. */
  readonly outcomeUnknown: boolean;
  /** Attempts made, retries included (1 when the call was not retried). */
  readonly attempts: number;

  constructor(raw: ApiErrorInit) {
    // Everything kept (message, stack, body, field errors, cause chain) is built from the redacted
    // copy only: `util.inspect(err)` shows every own field, and servers echo credentials.
    const init = redactInit(raw);
    const url = init.url;
    super(ApiError.format(init), init.cause === undefined ? undefined : { cause: init.cause });
    // The subclass's kind (its static brand), which names it and says what more it keeps.
    this.kind = (new.target as unknown as Record<symbol, ApiErrorKind | undefined>)[KIND] ?? "api";
    this.name = KINDS[this.kind].name;
    this.status = init.status;
    this.method = init.method;
    this.url = url;
    this.code = init.code;
    this.details = init.details || undefined;
    this.transactionId = init.transactionId;
    this.correlationId = init.correlationId;
    this.fieldErrors = init.fieldErrors ?? [];
    this.body = init.body;
    this.apiMessage = init.message;
    this.outcomeUnknown = init.outcomeUnknown ?? false;
    this.attempts = init.attempts ?? 1;
    for (const member of KINDS[this.kind].members) Object.assign(this, { [member]: init[member] });
  }

  /** `POST /internal/api/v2/users: 400 Active users cannot be deleted ... (transaction 22f0rxo8uno)` */
  static format(init: ApiErrorInit): string {
    // the path as sent (still percent-encoded), without origin and query
    const path = init.url.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i, "").replace(/[?#].*$/, "") || "/";
    // status 0: no response (network errors, requests refused before sending): the message says why
    let msg = (
      init.status === 0
        ? `${init.method} ${path}: ${init.message}`
        : `${init.method} ${path}: ${init.status} ${init.message}`
    ).trimEnd();
    if (init.details) msg += ` (${init.details})`;
    if (init.fieldErrors?.length)
      msg += `: ${init.fieldErrors.map((f) => `${f.field}: ${f.message}`).join("; ")}`;
    if (init.transactionId) msg += ` (transaction ${init.transactionId})`;
    else if (init.correlationId) msg += ` (correlation ${init.correlationId})`;
    if (init.attempts !== undefined && init.attempts > 1) msg += ` [after ${init.attempts} attempts]`;
    return msg;
  }

  /** True for any ApiError, from any copy of this module. */
  static isInstance(e: unknown): e is ApiError {
    return typeof e === "object" && e !== null && (e as Record<symbol, unknown>)[BRAND] === true;
  }

  static override [Symbol.hasInstance](e: unknown): boolean {
    if (!ApiError.isInstance(e)) return false;
    // `this` is the class `instanceof` was asked about: match its kind (ApiError matches all).
    // biome-ignore lint/complexity/noThisInStatic: `this` is the subclass, on purpose
    const want = (this as unknown as Record<symbol, ApiErrorKind | undefined>)[KIND];
    return want === undefined || (e as ApiError).kind === want;
  }

  toJSON(): Record<string, unknown> {
    return {
      name: this.name,
      kind: this.kind,
      message: this.message,
      status: this.status,
      method: this.method,
      url: this.url,
      code: this.code,
      details: this.details,
      transactionId: this.transactionId,
      correlationId: this.correlationId,
      fieldErrors: this.fieldErrors,
      outcomeUnknown: this.outcomeUnknown,
      attempts: this.attempts,
      ...Object.fromEntries(KINDS[this.kind].members.map((m) => [m, (this as Record<string, unknown>)[m]])),
    };
  }
}

/** 404, or a platform body whose code says the entity does not exist (ref platform §2). */
export class NotFoundError extends ApiError {
  static readonly [KIND] = "not-found";
  declare readonly kind: "not-found";
}

/** 409, or a duplicate reported as 400 (platform DUPLICATE_FIELD, duplicate group names). */
export class ConflictError extends ApiError {
  static readonly [KIND] = "conflict";
  declare readonly kind: "conflict";
}

/** 429 that outlived the retry budget. */
export class RateLimitError extends ApiError {
  static readonly [KIND] = "rate-limited";
  declare readonly kind: "rate-limited";
  /** How long the server asked us to wait, in milliseconds. */
  declare readonly retryAfterMs: number | undefined;
}

/** A 2xx response whose body does not match its schema, or a request refused before sending. */
export class ValidationError extends ApiError {
  static readonly [KIND] = "validation";
  declare readonly kind: "validation";
}

/**
 * No (complete) response: connection refused or reset, timeout. For a non-idempotent request
 * `outcomeUnknown` is true when the request may have reached the server.
 */
export class NetworkError extends ApiError {
  static readonly [KIND] = "network";
  declare readonly kind: "network";
  /** The transport's error code (`ECONNRESET`, `ECONNREFUSED`, `UND_ERR_HEADERS_TIMEOUT`, ...). */
  declare readonly errorCode: string | undefined;
}

/** True for a {@link NotFoundError} from any copy of this module. */
export const isNotFound = (e: unknown): e is NotFoundError =>
  ApiError.isInstance(e) && e.kind === "not-found";
/** True for a {@link ConflictError} from any copy of this module. */
export const isConflict = (e: unknown): e is ConflictError => ApiError.isInstance(e) && e.kind === "conflict";
/** True for a {@link RateLimitError} from any copy of this module. */
export const isRateLimited = (e: unknown): e is RateLimitError =>
  ApiError.isInstance(e) && e.kind === "rate-limited";
/** True for a {@link ValidationError} from any copy of this module. */
export const isValidationError = (e: unknown): e is ValidationError =>
  ApiError.isInstance(e) && e.kind === "validation";
/** True for a {@link NetworkError} from any copy of this module. */
export const isNetworkError = (e: unknown): e is NetworkError =>
  ApiError.isInstance(e) && e.kind === "network";
/**
 * True when a failed call may nevertheless have been applied by the server (see
 * {@link ApiErrorInit.outcomeUnknown}); false for any other error, including non-API errors.
 */
export const isOutcomeUnknown = (e: unknown): boolean => ApiError.isInstance(e) && e.outcomeUnknown;
