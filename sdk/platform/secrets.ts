/**
 * Secrets (v2): `POST|GET /ng/api/v2/secrets`, `PUT|GET|DELETE /ng/api/v2/secrets/{identifier}`,
 * the scope in the query (Go SDK `harness/nextgen/api_secrets.go`: PostSecret, PutSecret,
 * GetSecretV2, ListSecretsV2 with `pageIndex`/`pageSize`, DeleteSecretV2; none takes `If-Match`).
 * The body is the SDK's `SecretRequestWrapper`, `{secret: {type, name, identifier, orgIdentifier,
 * projectIdentifier, description, tags, spec}}`; the query's scope is the body's.
 *
 * A text secret's value goes out in the create or update body and nowhere else: no read returns
 * it (`spec.value` is `null` for an inline value), and no error of this client quotes it (a body
 * is checked field by field, the messages naming fields, never values). A file secret's content
 * travels as multipart (`POST /ng/api/v2/secrets/files`), which this client does not send: create
 * a `SecretFile` here, with the JSON form, to manage its metadata.
 * @module
 */
import type { Query } from "../core/request";
import {
  EntityApi,
  type EntityCtx,
  type EntityScope,
  entityRoutes,
  jsonWrite,
  scopeQuery,
} from "./entity-api";
import { SecretBody, SecretData } from "./schemas";

/** Where secrets are listed: a scope, and optionally one type. */
export interface SecretScope extends EntityScope {
  /** Only secrets of this type (ListSecretsV2's `type`). */
  type?: "SecretText" | "SecretFile" | undefined;
}

/** The secrets of an account, organization or project. */
export type SecretsApi = EntityApi<SecretScope, SecretBody, SecretData>;

const listQuery = (scope: SecretScope): Query => ({ ...scopeQuery(scope), type: scope.type });

/**
 * The secrets namespace of a client.
 * @example
 * await platform.secrets.create({
 *   type: "SecretText", identifier: "docker_pw", name: "Docker password", orgIdentifier: "default",
 *   spec: { secretManagerIdentifier: "harnessSecretManager", valueType: "Inline", value: process.env.PW },
 * });
 */
export const secretsApi = (ctx: EntityCtx): SecretsApi =>
  new EntityApi(ctx, {
    label: "secret",
    routes: entityRoutes("/ng/api/v2/secrets", SecretData, SecretData, { putById: true }),
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
