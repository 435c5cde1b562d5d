/**
 * Infrastructure definitions: `POST|PUT /ng/api/infrastructures`, `GET|DELETE
 * /ng/api/infrastructures/{identifier}`, `GET /ng/api/infrastructures`, each read, delete and list
 * naming the environment as `environmentIdentifier` (Go SDK `harness/nextgen/api_infrastructures.go`:
 * CreateInfrastructure, UpdateInfrastructure, GetInfrastructure, DeleteInfrastructure,
 * GetInfrastructureList with `page`/`size`; none takes `If-Match`). The body is the SDK's
 * `InfrastructureRequest`, whose `yaml` holds `infrastructureDefinition: {environmentRef,
 * deploymentType, type, spec}`.
 * @module
 */
import { EntityApi, type EntityCtx, type EntityScope, ngCdKind, scopeQuery } from "./entity-api";
import { platformPart } from "./part";
import { InfrastructureData, InfrastructureRequest } from "./schemas";

/** Where an infrastructure lives: its scope and its environment. */
export interface InfrastructureScope extends EntityScope {
  /** The environment's identifier. */
  environment: string;
}

/** The infrastructure definitions of an environment. */
export type InfrastructuresApi = EntityApi<InfrastructureScope, InfrastructureRequest, InfrastructureData>;

/** The infrastructures namespace of a client. */
export const infrastructuresApi = (ctx: EntityCtx): InfrastructuresApi =>
  new EntityApi(ctx, {
    ...ngCdKind({
      label: "infrastructure",
      base: "/ng/api/infrastructures",
      request: InfrastructureRequest,
      data: InfrastructureData,
      root: "infrastructure",
    }),
    ifMatch: false,
    scopeQuery: (scope: InfrastructureScope) => ({
      ...scopeQuery(scope),
      environmentIdentifier: scope.environment,
    }),
  });

/** Infrastructure definitions of environments. */
export const part = platformPart("infrastructures", infrastructuresApi);
