/**
 * Secrets (v2): `POST|GET /ng/api/v2/secrets`, `PUT|GET|DELETE /ng/api/v2/secrets/{id}`, and the
 * file forms `POST /ng/api/v2/secrets/files`, `PUT /ng/api/v2/secrets/files/{id}` (multipart:
 * a `spec` part holding `{secret: {...}}` as JSON text and a `file` part). Paths, the query scope
 * and the list's `pageIndex`/`pageSize` are the Go SDK's (`harness/nextgen/api_secrets.go`:
 * PostSecret, PutSecret, PostSecretFileV2, PutSecretFileV2, GetSecretV2, ListSecretsV2,
 * DeleteSecretV2; none takes `If-Match`); the bodies are its `SecretRequestWrapper` (Terraform
 * provider `internal/service/platform/secret/text.go`, `file.go`).
 *
 * The value: accepted on create and update, kept nowhere (the store holds no trace of it), so no
 * read, list, error, request log or state file shows it. A file's content is kept as its SHA-256
 * and length only (`fields.file`, for tests to see what was sent; never rendered); a `PUT` without
 * a `file` part keeps the content the secret has (`@NotNull` is on create only, inferred). An inline text secret reads back with
 * `value: null`; a `Reference` value is a path in the secret manager, not the secret, and reads
 * back (Terraform provider `readSecretText` sets `value` only for `Reference`).
 *
 * Refusals (harness-core `SecretResourceV2`, `NGSecretServiceV2Impl`, `SecretCrudServiceImpl`):
 * scope in the body other than the query's → 400 "Invalid request, scope in payload and params do
 * not match."; duplicate → DUPLICATE_FIELD "Duplicate identifier, please try again with a new
 * identifier"; GET of a missing secret → javax `NotFoundException` (400 FailureDTO) "Secret with
 * identifier [%s] is not found in the given scope"; DELETE of a missing one →
 * `EntityNotFoundException` (404) "Secret with identifier [%s] does not exist in the specified
 * scope"; an update of a missing one reads as the deletion (inferred).
 * @module
 */
import { createHash } from "node:crypto";
import type { Context } from "hono";
import type { z } from "zod";
import { SecretBody } from "../../sdk/platform/schemas";
import type { AppEnv } from "../context";
import { EmulatorError } from "../errors";
import type { EntityAt, Store, StoredEntity } from "../store";
import {
  type EntityRequest,
  type EntitySpec,
  type EntityWriter,
  entityPart,
  parseBody,
} from "./entity-routes";
import {
  duplicateField,
  entityNotFound,
  invalidRequest,
  mediaNotSupported,
  optimisticLocking,
  resourceNotFound,
  validationFailure,
} from "./errors";
import { mediaType, readJsonBody, wrappedObject } from "./http";

type SecretInput = z.output<typeof SecretBody>;

/** What is stored of a secret: everything but an inline value. */
function secretRequest(c: Context<AppEnv>, secret: SecretInput, pathId: string | null): EntityRequest {
  const at: EntityAt = {
    org: c.req.query("orgIdentifier") || null,
    project: c.req.query("projectIdentifier") || null,
    parent: null,
  };
  if ((secret.orgIdentifier ?? null) !== at.org || (secret.projectIdentifier ?? null) !== at.project) {
    throw invalidRequest("Invalid request, scope in payload and params do not match.");
  }
  if (pathId !== null && pathId !== secret.identifier) {
    throw invalidRequest(`Value mismatch, previous: ${pathId} current: ${secret.identifier}`);
  }
  const { value, ...spec } = secret.spec as { value?: string } & Record<string, unknown>;
  const kept = spec.valueType === "Reference" ? { ...spec, value } : spec;
  return {
    at,
    fields: {
      identifier: secret.identifier,
      name: secret.name,
      description: secret.description,
      tags: secret.tags,
      fields: { type: secret.type, spec: kept },
    },
  };
}

/** `{secret: {...}}` checked by its schema, the failure naming fields only, never values. */
const parseSecret = (raw: unknown) => parseBody(wrappedObject(raw, "secret"), SecretBody, "secret");

/**
 * Reads the JSON body. The JSON parser's message quotes the text around a syntax error, which may
 * be the value, so a secret's refusal names the problem without it (the message is inferred).
 */
async function readSecretJson(c: Context<AppEnv>): Promise<unknown> {
  try {
    return await readJsonBody(c);
  } catch (e) {
    if (e instanceof EmulatorError && e.message.startsWith("Unable to process JSON")) {
      throw invalidRequest("Unable to process JSON: the body is not valid JSON");
    }
    throw e;
  }
}

const jsonWriter: EntityWriter = {
  path: "",
  read: async (c, pathId) => secretRequest(c, parseSecret(await readSecretJson(c)), pathId),
};

/** What the emulator keeps of a file secret's content. */
export interface FileDigest {
  sha256: string;
  size: number;
}

/** The digest of a `file` part: a file, or a plain field (read as the content all the same). */
async function digest(file: File | string): Promise<FileDigest> {
  const bytes =
    typeof file === "string" ? new TextEncoder().encode(file) : new Uint8Array(await file.arrayBuffer());
  return { sha256: createHash("sha256").update(bytes).digest("hex"), size: bytes.length };
}

/**
 * The multipart form: the `spec` part's JSON, and a `file` part (required on create, `@NotNull`).
 * A `file` part without a filename is read as the content too (the resource takes the part as an
 * `InputStream` via Jersey's `@FormDataParam("file")`, which reads any part; inferred).
 */
const fileWriter = (store: Store): EntityWriter => ({
  path: "/files",
  read: async (c, pathId) => {
    if (mediaType(c) !== "multipart/form-data") throw mediaNotSupported();
    const form = await c.req.parseBody();
    let raw: unknown;
    try {
      raw = JSON.parse(typeof form.spec === "string" ? form.spec : "");
    } catch {
      throw validationFailure([{ path: "spec", message: "must be the secret as JSON" }]);
    }
    const secret = parseSecret(raw);
    if (secret.type !== "SecretFile")
      throw validationFailure([{ path: "secret.type", message: "must be SecretFile" }]);
    const file = form.file;
    if (pathId === null && file === undefined) {
      throw validationFailure([{ path: "file", message: "must not be null" }]);
    }
    const request = secretRequest(c, secret, pathId);
    const kept =
      file !== undefined
        ? await digest(file as File | string)
        : store.entities.get("secret", request.at, secret.identifier)?.fields.file;
    return kept === undefined
      ? request
      : { ...request, fields: { ...request.fields, fields: { ...request.fields.fields, file: kept } } };
  },
});

const missing = (id: string) =>
  entityNotFound(`Secret with identifier [${id}] does not exist in the specified scope`);

/** `data` of a secret response (SDK `SecretResponse`): an inline value is `null`. */
function secretData(e: StoredEntity) {
  const spec = e.fields.spec as Record<string, unknown>;
  return {
    secret: {
      type: e.fields.type,
      name: e.name,
      identifier: e.identifier,
      orgIdentifier: e.at.org,
      projectIdentifier: e.at.project,
      tags: e.tags,
      description: e.description,
      spec: e.fields.type === "SecretText" ? { value: null, ...spec } : spec,
    },
    createdAt: e.createdAt,
    updatedAt: e.lastModifiedAt,
    draft: false,
  };
}

/** The secret table row. */
export const secretSpec = (store: Store): EntitySpec => ({
  kind: "secret",
  resource: "secret",
  scopeRequired: false,
  putById: true,
  // ListSecretsV2's default page size (inferred).
  paging: { index: "pageIndex", size: "pageSize", defaultSize: 50 },
  ifMatch: false,
  writers: [jsonWriter, fileWriter(store)],
  refusals: {
    duplicate: () => duplicateField("Duplicate identifier, please try again with a new identifier"),
    updateMissing: missing,
    deleteMissing: missing,
    stale: () => optimisticLocking(),
  },
  notFound: (id) => resourceNotFound(`Secret with identifier [${id}] is not found in the given scope`),
  render: secretData,
  listFilter: (c) => {
    const type = c.req.query("type");
    return (e) => type === undefined || type === "" || e.fields.type === type;
  },
});

/** The secret part: its store kind, base path and table row. */
export const part = entityPart({
  kind: "secret",
  path: "/ng/api/v2/secrets",
  spec: secretSpec,
});
