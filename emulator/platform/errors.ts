/**
 * The platform API's errors, one factory per exception class of the real service (ref §2): each
 * makes the emulator's one error type, {@link EmulatorError}, in the ErrorDTO or FailureDTO shape
 * with the class's ErrorCode; `http.ts` `renderError` writes the body with the request's
 * correlation id.
 * @module
 */
import { z } from "zod";
import { dotPath } from "../../sdk/core/issues";
import { EmulatorError, platformError } from "../errors";

/**
 * The emulator's error type under the name the pipeline agreement test
 * (`test/sdk/platform/pipeline/agreement.test.ts`) checks refusals with.
 */
export { EmulatorError as PlatformError };

const EntityInfo = z.object({
  identifier: z.string().nullable(),
  name: z.string().nullable(),
  type: z.string().nullable(),
});
/** A schema error of a pipeline YAML, carried in `metadata.schemaErrors` (ref §2). */
export const SchemaError = z.object({
  message: z.string(),
  stageInfo: EntityInfo.nullable(),
  stepInfo: EntityInfo.nullable(),
  fqn: z.string(),
  hintMessage: z.string().nullable(),
});
/** A schema error of a pipeline YAML. */
export type SchemaError = z.infer<typeof SchemaError>;

/** `InvalidRequestException` → 400 INVALID_REQUEST (ErrorDTO). */
export const invalidRequest = (message: string) => platformError("ERROR", "INVALID_REQUEST", message);
/** `InvalidArgumentsException` → 400 INVALID_ARGUMENT. */
export const invalidArgument = (message: string) => platformError("ERROR", "INVALID_ARGUMENT", message);
/** `DuplicateFieldException` → 400 DUPLICATE_FIELD. */
export const duplicateField = (message: string) => platformError("ERROR", "DUPLICATE_FIELD", message);
/** `EntityNotFoundException` → 404 ENTITY_NOT_FOUND. */
export const entityNotFound = (message: string) => platformError("ERROR", "ENTITY_NOT_FOUND", message);
/** `NGAccessDeniedException` → 403 NG_ACCESS_DENIED. */
export const accessDenied = (message: string) => platformError("ERROR", "NG_ACCESS_DENIED", message);
/** `UnauthorizedException` → 401 INVALID_TOKEN; the message is static for this code (harness-core PR #39425). */
export const invalidToken = () => platformError("ERROR", "INVALID_TOKEN", "Token is not valid.");
/** `InvalidYamlException` → 400 INVALID_YAML_ERROR. */
export const invalidYaml = (message: string) => platformError("ERROR", "INVALID_YAML_ERROR", message);
/** `ReferencedEntityException` → 400 ENTITY_REFERENCE_EXCEPTION (code inferred from the class name). */
export const referencedEntity = (message: string) =>
  platformError("ERROR", "ENTITY_REFERENCE_EXCEPTION", message);
/**
 * `NGTemplateException` → 400 TEMPLATE_EXCEPTION (harness-core `ErrorCode.TEMPLATE_EXCEPTION`, of
 * the default BAD_REQUEST status; the pipeline service rethrows the template service's message as
 * one, `PMSPipelineTemplateHelper.resolveTemplateRefsInPipeline`).
 */
export const templateException = (message: string) => platformError("ERROR", "TEMPLATE_EXCEPTION", message);
/** Pipeline YAML schema failure → 400 SCHEMA_VALIDATION_FAILED with `metadata.schemaErrors` (ref §2). */
export const schemaValidationFailed = (message: string, schemaErrors: SchemaError[]) =>
  platformError("ERROR", "SCHEMA_VALIDATION_FAILED", message, { metadata: { schemaErrors } });

/** javax `NotFoundException` → **400** FailureDTO RESOURCE_NOT_FOUND_EXCEPTION (ref §2, `NotFoundExceptionMapper`). */
export const resourceNotFound = (message: string) =>
  platformError("FAILURE", "RESOURCE_NOT_FOUND_EXCEPTION", message);
/** `NotSupportedExceptionMapper` → 415 MEDIA_NOT_SUPPORTED (ref §2). */
export const mediaNotSupported = () =>
  platformError("FAILURE", "MEDIA_NOT_SUPPORTED", "HTTP 415 Unsupported Media Type");
/** `OptimisticLockingFailureExceptionMapper` → 400 OPTIMISTIC_LOCKING_EXCEPTION (ref §2). */
export const optimisticLocking = () =>
  platformError(
    "FAILURE",
    "OPTIMISTIC_LOCKING_EXCEPTION",
    "Request failed as you have an older version of entity, please reload the page and try again.",
  );

/** One violated field: its property path and message (`fieldId` defaults to the path's last node). */
export const Violation = z.object({ path: z.string(), message: z.string(), fieldId: z.string().optional() });
/** One violated field. */
export type Violation = z.infer<typeof Violation>;

/**
 * Bean-validation failure (`JerseyViolationExceptionMapperV2`, ref §2): 400 FailureDTO
 * INVALID_REQUEST, one `{fieldId, error}` per violated field. As in the real mapper, `fieldId` is
 * the last node of the property path and `message` lists every `path: message`.
 */
export function validationFailure(violations: readonly Violation[]): EmulatorError {
  const errors = violations.map((v) => ({
    fieldId: v.fieldId ?? v.path.split(".").at(-1) ?? v.path,
    error: v.message,
  }));
  const message = violations.map((v) => `${v.path}: ${v.message}`).join(", ");
  return platformError("FAILURE", "INVALID_REQUEST", message, { errors });
}

/** Turns zod issues into violations whose paths start at `root` (e.g. `project.name`). */
export function zodViolations(root: string, issues: readonly z.core.$ZodIssue[]): Violation[] {
  return issues.map((issue) => ({
    path: dotPath(issue.path, root),
    fieldId: issue.path.length === 0 ? root.split(".").at(-1) : String(issue.path.at(-1)),
    // A missing required field reads as `@NotNull` does in the real service.
    message:
      issue.code === "invalid_type" && /received (undefined|null)$/.test(issue.message)
        ? "must not be null"
        : issue.message,
  }));
}
