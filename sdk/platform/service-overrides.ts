/**
 * Service overrides (platform, v2): `POST|PUT /ng/api/serviceOverrides`, `GET|DELETE
 * /ng/api/serviceOverrides/{identifier}` (Go SDK `harness/nextgen/api_service_overrides.go`:
 * CreateServiceOverrideV2, UpdateServiceOverrideV2 (no `If-Match`), GetServiceOverrides,
 * DeleteServiceOverrideV2 answering `ResponseDtoBoolean`), and the list as `POST
 * /ng/api/serviceOverrides/list` with `page`/`size` (inferred: the Go SDK has no list call; the
 * paging is the other NG CD lists'). The body is the SDK's `ServiceOverrideRequestDtov2`:
 * `{orgIdentifier, projectIdentifier, environmentRef, serviceRef, infraIdentifier,
 * clusterIdentifier, type, yamlInternal, identifier}`, whose `yamlInternal` is the override's spec
 * (`variables`, `manifests`, `configFiles`, ...), as the Terraform provider's
 * `internal/service/cd_nextgen/service_overrides_v2/resource_service_overrides_v2.go` sends it
 * (`buildServiceOverrideV2`); the answer's `data` is the override itself (SDK
 * `ServiceOverridesResponseDtov2`), no timestamps. Without an identifier the service makes one
 * from the references (see {@link serviceOverridesIdentifier}).
 * @module
 */
import { z } from "zod";
import { route } from "../core/route";
import {
  EntityApi,
  type EntityCtx,
  type EntityScope,
  entityRoutes,
  jsonWrite,
  scopeQuery,
} from "./entity-api";
import { platformPart } from "./part";
import { envelope, Identifier, pageOf } from "./schemas";

/** The override types (harness-core `ServiceOverridesType`). */
export const SERVICE_OVERRIDE_TYPES = [
  "ENV_GLOBAL_OVERRIDE",
  "ENV_SERVICE_OVERRIDE",
  "INFRA_GLOBAL_OVERRIDE",
  "INFRA_SERVICE_OVERRIDE",
  "CLUSTER_GLOBAL_OVERRIDE",
  "CLUSTER_SERVICE_OVERRIDE",
] as const;
/** An override type. */
export type ServiceOverridesType = (typeof SERVICE_OVERRIDE_TYPES)[number];

/**
 * A reference to a scoped entity: `<id>`, `org.<id>` or `account.<id>` (ref §3 `allowScoped`).
 */
const Ref = z
  .string()
  .regex(/^(?:(?:account|org)\.)?[a-zA-Z_][0-9a-zA-Z_$]{0,127}$/, "must be <id>, org.<id> or account.<id>");

/** Body of `POST|PUT /ng/api/serviceOverrides` (SDK `ServiceOverrideRequestDtov2`). */
export const ServiceOverridesRequest = z.object({
  orgIdentifier: Identifier.optional(),
  projectIdentifier: Identifier.optional(),
  environmentRef: Ref,
  serviceRef: Ref.optional(),
  infraIdentifier: Identifier.optional(),
  clusterIdentifier: z.string().min(1, "clusterIdentifier cannot be empty").optional(),
  type: z.enum(SERVICE_OVERRIDE_TYPES, { error: `type must be one of ${SERVICE_OVERRIDE_TYPES.join(", ")}` }),
  /** The override's spec as YAML: `variables`, `manifests`, `configFiles`, .... */
  yamlInternal: z.string().optional(),
  identifier: Identifier.optional(),
});
export type ServiceOverridesRequest = z.input<typeof ServiceOverridesRequest>;

/** `data` of an override (SDK `ServiceOverridesResponseDtov2`; harness-core `ServiceOverridesResponseDTOV2`). */
export const ServiceOverridesData = z.looseObject({
  identifier: z.string(),
  accountId: z.string().optional(),
  orgIdentifier: z.string().nullable().optional(),
  projectIdentifier: z.string().nullable().optional(),
  environmentRef: z.string(),
  serviceRef: z.string().nullable().optional(),
  infraIdentifier: z.string().nullable().optional(),
  clusterIdentifier: z.string().nullable().optional(),
  type: z.enum(SERVICE_OVERRIDE_TYPES),
  spec: z.record(z.string(), z.unknown()).optional(),
  yamlInternal: z.string().nullable().optional(),
  newlyCreated: z.boolean().optional(),
  /** Not in the DTO: an override's answer carries no timestamps (kept optional for the NG readers). */
  createdAt: z.number().optional(),
});
export type ServiceOverridesData = z.infer<typeof ServiceOverridesData>;

/**
 * The identifier the service gives an override created without one: its references joined by `_`,
 * dots made `_` (harness-core `EnvGlobalOverrideRequestParamsHandler`,
 * `InfraServiceOverrideRequestParamsHandler`: `String.join("_", env, service, infra).replace(".", "_")`;
 * the environment-service, infrastructure-global and cluster forms are inferred alike).
 */
export function serviceOverridesIdentifier(r: {
  type: ServiceOverridesType;
  environmentRef: string;
  serviceRef?: string | undefined;
  infraIdentifier?: string | undefined;
  clusterIdentifier?: string | undefined;
}): string {
  const service = r.type.endsWith("_SERVICE_OVERRIDE") ? [r.serviceRef] : [];
  const where = r.type.startsWith("INFRA_")
    ? [r.infraIdentifier]
    : r.type.startsWith("CLUSTER_")
      ? [r.clusterIdentifier]
      : [];
  return [r.environmentRef, ...service, ...where]
    .filter((p): p is string => p !== undefined && p !== "")
    .join("_")
    .replaceAll(".", "_");
}

const BASE = "/ng/api/serviceOverrides";

/** The routes: the table's, with the list a `POST {base}/list`. */
export const serviceOverridesRoutes = {
  ...entityRoutes(BASE, ServiceOverridesData, ServiceOverridesData, { putById: false }),
  list: route(`POST ${BASE}/list`, envelope(pageOf(ServiceOverridesData))),
} as const;

/** The service overrides of an account, organization or project. */
export type ServiceOverridesApi = EntityApi<EntityScope, ServiceOverridesRequest, ServiceOverridesData>;

/** The service overrides namespace of a client. */
export const serviceOverridesApi = (ctx: EntityCtx): ServiceOverridesApi =>
  new EntityApi(ctx, {
    label: "service override",
    routes: serviceOverridesRoutes,
    paging: ["page", "size"],
    ifMatch: false,
    scopeQuery,
    writeOf: (r, body) =>
      jsonWrite(r, ServiceOverridesRequest, body, "serviceOverrideRequestDTOV2", (parsed) => ({
        identifier: parsed.identifier ?? serviceOverridesIdentifier(parsed),
        query: {},
        body: parsed,
      })),
  });

/** Overrides of a service's variables, manifests and config files per environment. */
export const part = platformPart("serviceOverrides", serviceOverridesApi);
