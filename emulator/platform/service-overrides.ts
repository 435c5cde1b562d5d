/**
 * Service overrides (platform, v2): `POST|PUT /ng/api/serviceOverrides`, `GET|DELETE
 * /ng/api/serviceOverrides/{identifier}`, and the list as `POST /ng/api/serviceOverrides/list` with
 * `page`/`size` (Go SDK `harness/nextgen/api_service_overrides.go`: CreateServiceOverrideV2,
 * UpdateServiceOverrideV2 naming the override in the body, GetServiceOverrides,
 * DeleteServiceOverrideV2; none takes `If-Match`; the list is inferred; Terraform provider
 * `internal/service/cd_nextgen/service_overrides_v2/resource_service_overrides_v2.go`). The body is
 * `ServiceOverrideRequestDtov2`; the answer's `data` is the override (`ServiceOverridesResponseDtov2`:
 * its references, `type`, `spec` parsed from `yamlInternal`, and `yamlInternal` itself).
 *
 * Rules kept, as harness-core keeps them: an override without an identifier gets one made of its
 * references (`sdk/platform/service-overrides.ts` `serviceOverridesIdentifier`); a service override
 * needs its service, an infrastructure override its infrastructure (harness-core
 * `InfraServiceOverrideRequestParamsHandler.validateRequiredField`: "Infra Identifier should not be
 * empty for INFRA-SERVICE override"; the other wordings inferred alike); the environment must exist
 * (`ServiceOverrideValidatorServiceImpl.checkIfEnvExistAndReturn`, "Environment with ref [%s] not
 * found", as an infrastructure's). An override is deleted with its environment and with its service
 * (the row's `references`, kept by the store). A GET of a missing override is 400
 * RESOURCE_NOT_FOUND (inferred wording).
 * @module
 */
import { ServiceOverridesRequest, serviceOverridesIdentifier } from "../../sdk/platform/service-overrides";
import type { EntityAt, Store } from "../store";
import * as entity from "./entity-routes";
import { invalidRequest, resourceNotFound } from "./errors";
import { parsePipelineYaml } from "./pipeline-yaml";

/** Where a scoped reference (`<id>`, `org.<id>`, `account.<id>`) points from `at`. */
function referencedAt(ref: string, at: EntityAt): { at: EntityAt; identifier: string } {
  const [prefix, rest] = ref.includes(".") ? (ref.split(".", 2) as [string, string]) : ["", ref];
  if (prefix === "account") return { at: { org: null, project: null, parent: null }, identifier: rest };
  if (prefix === "org") return { at: { org: at.org, project: null, parent: null }, identifier: rest };
  return { at: { ...at, parent: null }, identifier: rest };
}

/** The service overrides table row. */
export const serviceOverridesSpec = (store: Store): entity.EntitySpec => ({
  ...entity.NG_ROW,
  ifMatch: false,
  kind: "serviceOverrides",
  resource: "environment",
  listByPost: "/list",
  writers: [
    entity.bodyScopedWriter(ServiceOverridesRequest, "serviceOverrideRequestDTOV2", (body) => {
      const needsService = body.type.endsWith("_SERVICE_OVERRIDE");
      if (needsService && body.serviceRef === undefined) {
        throw invalidRequest(
          `ServiceRef should not be empty for ${body.type.split("_")[0]}-SERVICE override`,
        );
      }
      if (body.type.startsWith("INFRA_") && body.infraIdentifier === undefined) {
        throw invalidRequest(
          `Infra Identifier should not be empty for INFRA-${needsService ? "SERVICE" : "GLOBAL"} override`,
        );
      }
      if (body.type.startsWith("CLUSTER_") && body.clusterIdentifier === undefined) {
        throw invalidRequest(
          `Cluster Identifier should not be empty for CLUSTER-${needsService ? "SERVICE" : "GLOBAL"} override`,
        );
      }
      const spec = body.yamlInternal === undefined ? {} : parsePipelineYaml(body.yamlInternal);
      const identifier = body.identifier ?? serviceOverridesIdentifier(body);
      return {
        at: { org: body.orgIdentifier ?? null, project: body.projectIdentifier ?? null, parent: null },
        fields: {
          identifier,
          name: identifier,
          description: "",
          tags: {},
          fields: {
            environmentRef: body.environmentRef,
            serviceRef: body.serviceRef,
            infraIdentifier: body.infraIdentifier,
            clusterIdentifier: body.clusterIdentifier,
            type: body.type,
            spec: typeof spec === "object" && spec !== null ? spec : {},
            yamlInternal: body.yamlInternal,
          },
        },
      };
    }),
  ],
  // An override goes with its environment and with its service (harness-core deletes them with
  // either); only the environment must exist when it is written.
  references: ({ at, fields }) => {
    const ref = String(fields.fields.environmentRef);
    const serviceRef = fields.fields.serviceRef;
    return [
      {
        kind: "environment",
        ...referencedAt(ref, at),
        missing: () => resourceNotFound(`Environment with ref [${ref}] not found`),
      },
      ...(typeof serviceRef === "string"
        ? [{ kind: "service" as const, ...referencedAt(serviceRef, at) }]
        : []),
    ];
  },
  refusals: entity.ngRefusals("Service Override", () => store.accountId),
  notFound: (id, at) =>
    resourceNotFound(
      `Service Override with identifier [${id}] in project [${entity.shown(at.project)}], org [${entity.shown(at.org)}] not found`,
    ),
  render: (e, accountId) =>
    JSON.parse(
      JSON.stringify({
        identifier: e.identifier,
        accountId,
        orgIdentifier: e.at.org ?? undefined,
        projectIdentifier: e.at.project ?? undefined,
        ...e.fields,
      }),
    ),
});

/** The service overrides part: its store kind, base path and table row. */
export const part = entity.entityPart({
  kind: "serviceOverrides",
  path: "/ng/api/serviceOverrides",
  spec: serviceOverridesSpec,
});
