/**
 * Services (v2) of the platform API: `POST|PUT /ng/api/servicesV2`, `GET|DELETE
 * /ng/api/servicesV2/{identifier}`, `GET /ng/api/servicesV2` (Go SDK `harness/nextgen/api_services.go`:
 * CreateServiceV2, UpdateServiceV2 and DeleteServiceV2 with `If-Match`, GetServiceV2,
 * GetServiceList with `page`/`size`). The body is the SDK's `ServiceRequest`: identifier, scope,
 * name, description, tags, and the service definition as a `yaml` string.
 * @module
 */
import { EntityApi, type EntityCtx, type EntityScope, ngCdKind } from "./entity-api";
import { platformPart } from "./part";
import { ServiceData, ServiceRequest } from "./schemas";

/** The services of an account, organization or project. */
export type ServicesApi = EntityApi<EntityScope, ServiceRequest, ServiceData>;

/**
 * The services namespace of a client.
 * @example
 * await platform.services.create({ identifier: "checkout", orgIdentifier: "default", projectIdentifier: "payments", name: "Checkout", yaml });
 */
export const servicesApi = (ctx: EntityCtx): ServicesApi =>
  new EntityApi(
    ctx,
    ngCdKind({
      label: "service",
      base: "/ng/api/servicesV2",
      request: ServiceRequest,
      data: ServiceData,
      root: "service",
    }),
  );

/** Services (v2). */
export const part = platformPart("services", servicesApi);
