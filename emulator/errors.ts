/**
 * The emulator's one error type. Every route, middleware and injected fault of both APIs throws
 * an {@link EmulatorError}; `http.ts` renders it into the body of the API the request belongs to
 * (`renderError`), from one `onError` in `server.ts`:
 * - the admin API (and the event import, SDK and control routes): `{code, message, details,
 *   transactionId}` (spec admin §2 "Error body", §7), or no body at all for the few 400s the real
 *   service sends empty (ref admin §2: missing title/comment → content-length 0);
 * - the platform API: the ErrorDTO `{status:"ERROR", code, message, correlationId,
 *   detailedMessage, responseMessages, metadata}` or the FailureDTO `{status:"FAILURE", code,
 *   message, correlationId, errors}` (ref platform §2), by the error's `shape` and ErrorCode.
 *
 * The factories of the admin API and of the emulator itself are here; those of the platform
 * API's exception classes are in `platform/errors.ts`.
 * @module
 */
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { z } from "zod";
import { dotPath } from "../sdk/core/issues";

/** HTTP status of each platform ErrorCode the emulator uses (ref platform §2.1; `ErrorCode.getStatus()`). */
export const ERROR_CODE_STATUS = {
  INVALID_REQUEST: 400,
  INVALID_ARGUMENT: 400,
  DUPLICATE_FIELD: 400,
  RESOURCE_NOT_FOUND_EXCEPTION: 400,
  INVALID_YAML_ERROR: 400,
  SCHEMA_VALIDATION_FAILED: 400,
  OPTIMISTIC_LOCKING_EXCEPTION: 400,
  ENTITY_REFERENCE_EXCEPTION: 400,
  TEMPLATE_EXCEPTION: 400,
  ENTITY_NOT_FOUND: 404,
  NG_ACCESS_DENIED: 403,
  INVALID_TOKEN: 401,
  MEDIA_NOT_SUPPORTED: 415,
  UNKNOWN_ERROR: 500,
} as const satisfies Record<string, ContentfulStatusCode>;
/** A platform ErrorCode the emulator produces. */
export type PlatformErrorCode = keyof typeof ERROR_CODE_STATUS;

/** One `{fieldId, error}` entry of a platform FailureDTO (ref platform §2). */
export const FieldError = z.object({ fieldId: z.string(), error: z.string() });
/** One `{fieldId, error}` entry of a platform FailureDTO. */
export type FieldError = z.infer<typeof FieldError>;

/** How an error reads in each API's body; every field is optional. */
export interface EmulatorErrorOptions {
  /** Admin `details` (the real API leaves it empty for one problem). */
  details?: string;
  /** True for the admin responses the real service sends without a body. */
  empty?: boolean;
  /** Response headers (the rate-limit headers of a 429). */
  headers?: Record<string, string>;
  /** Platform body shape; ERROR unless given. */
  shape?: "ERROR" | "FAILURE";
  /** Platform ErrorCode; by default the one the status implies (see {@link codeForStatus}). */
  code?: PlatformErrorCode;
  /** Platform FailureDTO `errors`. */
  errors?: FieldError[];
  /** Platform ErrorDTO `metadata` (the pipeline YAML's `schemaErrors`). */
  metadata?: Record<string, unknown> | null;
  cause?: unknown;
}

/**
 * The platform ErrorCode of an error made without one: what the service's own mappers send for
 * that status (401 INVALID_TOKEN, 403 NG_ACCESS_DENIED), else UNKNOWN_ERROR (the 500 and 503 of
 * injected faults and refused writes, ref platform §2).
 */
export function codeForStatus(status: number): PlatformErrorCode {
  return status === 401 ? "INVALID_TOKEN" : status === 403 ? "NG_ACCESS_DENIED" : "UNKNOWN_ERROR";
}

/**
 * An HTTP error of either API (hono's `HTTPException`, so hono's own code knows it): a status,
 * a message, and what each API's body adds. `http.ts` `renderError` writes it.
 */
export class EmulatorError extends HTTPException {
  override readonly name = "EmulatorError";
  readonly details: string;
  readonly empty: boolean;
  readonly headers: Record<string, string>;
  readonly shape: "ERROR" | "FAILURE";
  readonly code: PlatformErrorCode;
  readonly errors: FieldError[];
  readonly metadata: Record<string, unknown> | null;

  constructor(status: ContentfulStatusCode, message: string, opts: EmulatorErrorOptions = {}) {
    super(status, { message, cause: opts.cause });
    this.details = opts.details ?? "";
    this.empty = opts.empty ?? false;
    this.headers = opts.headers ?? {};
    this.shape = opts.shape ?? "ERROR";
    this.code = opts.code ?? codeForStatus(status);
    this.errors = opts.errors ?? [];
    this.metadata = opts.metadata ?? null;
  }
}

/** A platform error: its status is the one its ErrorCode maps to (ref platform §2.1). */
export const platformError = (
  shape: "ERROR" | "FAILURE",
  code: PlatformErrorCode,
  message: string,
  opts: Pick<EmulatorErrorOptions, "errors" | "metadata"> = {},
): EmulatorError => new EmulatorError(ERROR_CODE_STATUS[code], message, { ...opts, shape, code });

/** 400 with a message naming the field at fault. */
export const badRequest = (message: string, details = ""): EmulatorError =>
  new EmulatorError(400, message, { details });
/** 401: missing, unknown or wrong-type key (ref admin §4: "401 invalid Admin API key"). */
export const unauthorized = (message: string): EmulatorError => new EmulatorError(401, message);
/** 403: a valid key that is restricted away from the resource (spec admin §5 item 4). */
export const forbidden = (message: string): EmulatorError => new EmulatorError(403, message);
/** 404: no such object (spec admin §7). */
export const notFound = (message: string): EmulatorError => new EmulatorError(404, message);
/** 409: a duplicate, or a JSON Patch `test` that did not hold (ref admin §4). */
export const conflict = (message: string): EmulatorError => new EmulatorError(409, message);
/** 405 for routes the real API lacks (ref admin §1.2: no GET of one environment). */
export const methodNotAllowed = (message: string): EmulatorError => new EmulatorError(405, message);
/** The empty-bodied 400 of a workspace that requires title and comment (spec admin §7). */
export const emptyBadRequest = (): EmulatorError => new EmulatorError(400, "", { empty: true });
/**
 * 413: a body over the API's limit. The platform gets a FailureDTO naming the body (ref platform
 * §2: container-level refusals such as the 415 of `NotSupportedExceptionMapper` are FailureDTOs;
 * the code is inferred).
 */
export const payloadTooLarge = (message: string): EmulatorError =>
  new EmulatorError(413, message, {
    shape: "FAILURE",
    code: "INVALID_REQUEST",
    errors: [{ fieldId: "body", error: message }],
  });
/**
 * 503: the request certainly did nothing (a refused state write, an injected fault); the SDK
 * treats it as a refusal and retries.
 */
export const unavailable = (message: string, cause?: unknown): EmulatorError =>
  new EmulatorError(503, message, { cause });

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

/** A zod path as the admin API's messages name a field: `treatments[0].name`; the root is `body`. */
export const fieldName = (path: readonly PropertyKey[], root = ""): string => dotPath(path, root) || "body";

/**
 * Turns a zod error into a 400 whose message names the first field and whose details list all.
 * With the `input`, a field that is absent says "is required" instead of zod's type or format
 * message (which may read as if a value had been sent).
 */
export function zodBadRequest(error: z.ZodError, root = "", input?: unknown): EmulatorError {
  const lines = error.issues.map((i) => {
    const missing =
      (i.code === "invalid_union" || i.code === "invalid_type" || i.code === "invalid_format") &&
      input !== undefined &&
      i.path.length > 0 &&
      valueAt(input, i.path) === undefined;
    return `${fieldName(i.path, root)}: ${missing ? "is required" : (unionMessage(i) ?? i.message)}`;
  });
  // details lists every problem when there is more than one (the real API leaves it empty otherwise).
  return badRequest(lines[0] ?? "invalid request body", lines.length > 1 ? lines.join("; ") : "");
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
