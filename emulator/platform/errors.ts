/**
 * The platform API's two error shapes (ref §2) and the errors the routes throw.
 *
 * - ErrorDTO `{status:"ERROR", code, message, correlationId, detailedMessage, responseMessages,
 *   metadata}` for service errors (`WingsExceptionMapperV2`).
 * - FailureDTO `{status:"FAILURE", code, message, correlationId, errors:[{fieldId, error}]}` for
 *   bean-validation failures and the javax exception mappers.
 *
 * Routes throw {@link PlatformError}; the sub-app's `onError` renders it with the request's
 * correlation id.
 * @module
 */
import type { z } from "zod";

/** HTTP status of each ErrorCode the emulator uses (ref §2.1; `ErrorCode.getStatus()`). */
export const ERROR_CODE_STATUS = {
  INVALID_REQUEST: 400,
  INVALID_ARGUMENT: 400,
  DUPLICATE_FIELD: 400,
  RESOURCE_NOT_FOUND_EXCEPTION: 400,
  INVALID_YAML_ERROR: 400,
  SCHEMA_VALIDATION_FAILED: 400,
  OPTIMISTIC_LOCKING_EXCEPTION: 400,
  ENTITY_REFERENCE_EXCEPTION: 400,
  ENTITY_NOT_FOUND: 404,
  NG_ACCESS_DENIED: 403,
  INVALID_TOKEN: 401,
  MEDIA_NOT_SUPPORTED: 415,
  UNKNOWN_ERROR: 500,
} as const;
/** An ErrorCode the emulator produces. */
export type PlatformErrorCode = keyof typeof ERROR_CODE_STATUS;

/** One `{fieldId, error}` entry of a FailureDTO. */
export interface FieldError {
  fieldId: string;
  error: string;
}

/** A schema error of a pipeline YAML, carried in `metadata.schemaErrors` (ref §2). */
export interface SchemaError {
  message: string;
  stageInfo: { identifier: string | null; name: string | null; type: string | null } | null;
  stepInfo: { identifier: string | null; name: string | null; type: string | null } | null;
  fqn: string;
  hintMessage: string | null;
}

/** An error that a platform route answers with; rendered by {@link renderError}. */
export class PlatformError extends Error {
  override readonly name = "PlatformError";
  /** Which body shape to render. */
  readonly shape: "ERROR" | "FAILURE";
  readonly code: PlatformErrorCode;
  readonly status: number;
  readonly errors: FieldError[];
  readonly metadata: Record<string, unknown> | null;

  constructor(
    shape: "ERROR" | "FAILURE",
    code: PlatformErrorCode,
    message: string,
    opts: { errors?: FieldError[]; metadata?: Record<string, unknown> | null } = {},
  ) {
    super(message);
    this.shape = shape;
    this.code = code;
    this.status = ERROR_CODE_STATUS[code];
    this.errors = opts.errors ?? [];
    this.metadata = opts.metadata ?? null;
  }
}

/** ErrorDTO body (ref §2); `message` is `responseMessages[0].message`. */
export function errorDto(
  code: PlatformErrorCode,
  message: string,
  correlationId: string,
  metadata: unknown = null,
) {
  return {
    status: "ERROR" as const,
    code,
    message,
    correlationId,
    detailedMessage: null,
    responseMessages: [{ code, level: "ERROR", message, exception: null, failureTypes: [] as string[] }],
    metadata,
  };
}

/** FailureDTO body (ref §2). */
export function failureDto(
  code: PlatformErrorCode,
  message: string,
  correlationId: string,
  errors: FieldError[] = [],
) {
  return { status: "FAILURE" as const, code, message, correlationId, errors };
}

/** The JSON body for an error, in its shape. */
export function renderError(err: PlatformError, correlationId: string) {
  return err.shape === "FAILURE"
    ? failureDto(err.code, err.message, correlationId, err.errors)
    : errorDto(err.code, err.message, correlationId, err.metadata);
}

// ---------------------------------------------------------------------------------------------
// Factories, one per exception class of the real service.

/** `InvalidRequestException` → 400 INVALID_REQUEST (ErrorDTO). */
export const invalidRequest = (message: string) => new PlatformError("ERROR", "INVALID_REQUEST", message);
/** `InvalidArgumentsException` → 400 INVALID_ARGUMENT. */
export const invalidArgument = (message: string) => new PlatformError("ERROR", "INVALID_ARGUMENT", message);
/** `DuplicateFieldException` → 400 DUPLICATE_FIELD. */
export const duplicateField = (message: string) => new PlatformError("ERROR", "DUPLICATE_FIELD", message);
/** `EntityNotFoundException` → 404 ENTITY_NOT_FOUND. */
export const entityNotFound = (message: string) => new PlatformError("ERROR", "ENTITY_NOT_FOUND", message);
/** `NGAccessDeniedException` → 403 NG_ACCESS_DENIED. */
export const accessDenied = (message: string) => new PlatformError("ERROR", "NG_ACCESS_DENIED", message);
/** `UnauthorizedException` → 401 INVALID_TOKEN; the message is static for this code (harness-core PR #39425). */
export const invalidToken = () => new PlatformError("ERROR", "INVALID_TOKEN", "Token is not valid.");
/** `InvalidYamlException` → 400 INVALID_YAML_ERROR. */
export const invalidYaml = (message: string) => new PlatformError("ERROR", "INVALID_YAML_ERROR", message);
/** `ReferencedEntityException` → 400 ENTITY_REFERENCE_EXCEPTION (code inferred from the class name). */
export const referencedEntity = (message: string) =>
  new PlatformError("ERROR", "ENTITY_REFERENCE_EXCEPTION", message);

/** javax `NotFoundException` → **400** FailureDTO RESOURCE_NOT_FOUND_EXCEPTION (ref §2, `NotFoundExceptionMapper`). */
export const resourceNotFound = (message: string) =>
  new PlatformError("FAILURE", "RESOURCE_NOT_FOUND_EXCEPTION", message);
/** `NotSupportedExceptionMapper` → 415 MEDIA_NOT_SUPPORTED (ref §2). */
export const mediaNotSupported = () =>
  new PlatformError("FAILURE", "MEDIA_NOT_SUPPORTED", "HTTP 415 Unsupported Media Type");
/** `OptimisticLockingFailureExceptionMapper` → 400 OPTIMISTIC_LOCKING_EXCEPTION (ref §2). */
export const optimisticLocking = () =>
  new PlatformError(
    "FAILURE",
    "OPTIMISTIC_LOCKING_EXCEPTION",
    "Request failed as you have an older version of entity, please reload the page and try again.",
  );

/**
 * Bean-validation failure (`JerseyViolationExceptionMapperV2`, ref §2): 400 FailureDTO
 * INVALID_REQUEST, one `{fieldId, error}` per violated field. As in the real mapper, `fieldId` is
 * the last node of the property path and `message` lists every `path: message`.
 */
export function validationFailure(violations: { path: string; message: string }[]): PlatformError {
  const errors = violations.map((v) => ({ fieldId: v.path.split(".").at(-1) ?? v.path, error: v.message }));
  const message = violations.map((v) => `${v.path}: ${v.message}`).join(", ");
  return new PlatformError("FAILURE", "INVALID_REQUEST", message, { errors });
}

/** Turns zod issues into violations whose paths start at `root` (e.g. `project.name`). */
export function zodViolations(
  root: string,
  issues: readonly z.core.$ZodIssue[],
): { path: string; message: string }[] {
  return issues.map((issue) => ({
    path: [root, ...issue.path.map(String)].filter((p) => p !== "").join("."),
    // A missing required field reads as `@NotNull` does in the real service.
    message:
      issue.code === "invalid_type" && /received (undefined|null)$/.test(issue.message)
        ? "must not be null"
        : issue.message,
  }));
}
