/**
 * Secrets (v2): `POST|GET /ng/api/v2/secrets`, `PUT|GET|DELETE /ng/api/v2/secrets/{identifier}`,
 * the scope in the query (Go SDK `harness/nextgen/api_secrets.go`: PostSecret, PutSecret,
 * GetSecretV2, ListSecretsV2 with `pageIndex`/`pageSize`, DeleteSecretV2; none takes `If-Match`).
 * The body is the SDK's `SecretRequestWrapper`, `{secret: {type, name, identifier, orgIdentifier,
 * projectIdentifier, description, tags, spec}}`; the query's scope is the body's.
 *
 * A text secret's value goes out in the create or update body and nowhere else: no read returns
 * it (`spec.value` is `null` for an inline value), and no error of this client quotes it (a body
 * is checked field by field, the messages naming fields, never values).
 *
 * A file secret's content travels as `multipart/form-data` ({@link SecretsApi.createFile},
 * {@link SecretsApi.updateFile}): `POST /ng/api/v2/secrets/files` and `PUT
 * /ng/api/v2/secrets/files/{identifier}`, the scope in the query, a `spec` part holding
 * `{secret: {...}}` as JSON text and a `file` part holding the content (Go SDK
 * `harness/nextgen/api_secrets.go` PostSecretFileV2 / PutSecretFileV2, whose `client.go`
 * `prepareRequest` writes the `spec` field, then the `file` part with `CreateFormFile`; Terraform
 * provider `internal/service/platform/secret/file.go` `buildSpec`, which sends the same two parts
 * on create and update). No read returns the content; the HTTP core keeps it out of every error
 * (`sdk/core/multipart.ts`).
 * @module
 */
import { z } from "zod";
import type { Query } from "../core/request";
import { type Route, route } from "../core/route";
import { parseInput } from "../core/validate-input";
import {
  EntityApi,
  type EntityCtx,
  type EntityScope,
  entityRoutes,
  jsonWrite,
  scopeQuery,
} from "./entity-api";
import { platformPart } from "./part";
import { envelope, SecretBody, SecretData } from "./schemas";
import { type Versioned, versionedCall } from "./versioned";

/** Where secrets are listed: a scope, and optionally one type. */
export interface SecretScope extends EntityScope {
  /** Only secrets of this type (ListSecretsV2's `type`). */
  type?: "SecretText" | "SecretFile" | undefined;
}

/** The `secret` of a file secret's `spec` part: a `SecretFile` body (`type` may be left out). */
export const SecretFileBody = SecretBody.options[1].extend({
  type: z.literal("SecretFile").default("SecretFile"),
});
/** What a caller passes as a file secret's metadata. */
export type SecretFileBody = z.input<typeof SecretFileBody>;

/** A file secret's content: text (sent as UTF-8), bytes, or a `Blob`. */
export const SecretFileContent = z.union([z.string(), z.instanceof(Uint8Array), z.instanceof(Blob)], {
  error: "file must be the content: a string, a Uint8Array or a Blob",
});
/** A file secret's content. */
export type SecretFileContent = z.input<typeof SecretFileContent>;

const fileRoutes = {
  create: route("POST /ng/api/v2/secrets/files", envelope(SecretData), { body: "multipart" }),
  update: route("PUT /ng/api/v2/secrets/files/{identifier}", envelope(SecretData), { body: "multipart" }),
} as const;

const listQuery = (scope: SecretScope): Query => ({ ...scopeQuery(scope), type: scope.type });

/**
 * The secrets of an account, organization or project: the v2 entity calls (text secrets, and any
 * secret's metadata), and the multipart writes of a file secret's content.
 */
export class SecretsApi extends EntityApi<SecretScope, SecretBody, SecretData> {
  readonly #ctx: EntityCtx;
  /** @internal */
  constructor(ctx: EntityCtx) {
    super(ctx, {
      label: "secret",
      // the body is `{secret}`: its schema declares a text secret's `value` a secret field
      routes: entityRoutes("/ng/api/v2/secrets", SecretData, SecretData, {
        putById: true,
        request: z.object({ secret: SecretBody }),
      }),
      paging: ["pageIndex", "pageSize"],
      ifMatch: false,
      scopeQuery: listQuery,
      writeOf: (r, body) =>
        jsonWrite(r, SecretBody, body, "secret", (secret) => ({
          identifier: secret.identifier,
          query: scopeQuery({ org: secret.orgIdentifier, project: secret.projectIdentifier }),
          body: { secret },
        })),
    });
    this.#ctx = ctx;
  }

  /**
   * Creates a file secret holding `content`, in the scope the body names: one multipart `POST`.
   * @throws ValidationError naming each bad field (before any request); ConflictError when the
   * identifier is taken in that scope (DUPLICATE_FIELD).
   * @example
   * await platform.secrets.createFile(
   *   { identifier: "kubeconfig", name: "kubeconfig", orgIdentifier: "default", spec: { secretManagerIdentifier: "harnessSecretManager" } },
   *   await readFile("kubeconfig.yaml"),
   * );
   */
  async createFile(body: SecretFileBody, content: SecretFileContent): Promise<Versioned<SecretData>> {
    return this.#writeFile(fileRoutes.create, body, content);
  }

  /**
   * Replaces a file secret's metadata and, when `content` is given, its content: one multipart
   * `PUT /ng/api/v2/secrets/files/{identifier}` (without `content`, no `file` part is sent and the
   * service keeps the content it has).
   * @throws ValidationError naming each bad field (before any request); NotFoundError when it does
   * not exist.
   */
  async updateFile(body: SecretFileBody, content?: SecretFileContent): Promise<Versioned<SecretData>> {
    return this.#writeFile(fileRoutes.update, body, content);
  }

  async #writeFile(
    r: Route,
    body: SecretFileBody,
    content: SecretFileContent | undefined,
  ): Promise<Versioned<SecretData>> {
    const secret = parseInput(SecretFileBody, body, r, "request body", "secret");
    const file =
      r === fileRoutes.create || content !== undefined
        ? parseInput(SecretFileContent, content, r, "file content", "file")
        : undefined;
    const form = new FormData();
    form.append("spec", JSON.stringify({ secret }));
    if (file !== undefined) {
      const blob = file instanceof Blob ? file : new Blob([file], { type: "application/octet-stream" });
      form.append("file", blob, secret.identifier);
    }
    const query = {
      accountIdentifier: this.#ctx.account,
      ...scopeQuery({ org: secret.orgIdentifier, project: secret.projectIdentifier }),
    };
    const params: Record<string, string> = r.params.length > 0 ? { identifier: secret.identifier } : {};
    const call = this.#ctx.core.request.bind(this.#ctx.core) as (
      r: Route,
      p: Record<string, string>,
      i: object,
    ) => Promise<{ data: SecretData }>;
    return versionedCall(undefined, async (v) => (await call(r, params, { query, body: form, ...v })).data);
  }
}

/**
 * The secrets namespace of a client.
 * @example
 * await platform.secrets.create({
 *   type: "SecretText", identifier: "docker_pw", name: "Docker password", orgIdentifier: "default",
 *   spec: { secretManagerIdentifier: "harnessSecretManager", valueType: "Inline", value: process.env.PW },
 * });
 */
export const secretsApi = (ctx: EntityCtx): SecretsApi => new SecretsApi(ctx);

/** Secrets (v2; a value is sent, never read back). */
export const part = platformPart("secrets", secretsApi);
