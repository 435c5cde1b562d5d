/**
 * Services (v2): `POST|PUT|GET /ng/api/servicesV2`, `GET|DELETE /ng/api/servicesV2/{id}`. The spec
 * shows none of these; the paths, query parameters and bodies are the Go SDK's
 * (`harness/nextgen/api_services.go`: CreateServiceV2, UpdateServiceV2 with `If-Match`,
 * GetServiceV2, GetServiceList with `page`/`size`, DeleteServiceV2 with `If-Match`) and the
 * Terraform provider's (`internal/service/cd_nextgen/service/resource_service.go`): a JSON
 * `ServiceRequest` whose `yaml` string holds `service: {..., serviceDefinition: {type, spec:
 * {manifests, artifacts}}}`. A GET of a missing service is javax `NotFoundException`, 400
 * FailureDTO (harness-core `ServiceResourceV2.get`); the other refusals are `ngRefusals`'.
 * @module
 */
import { stringify } from "yaml";
import { ServiceRequest, ServiceYaml } from "../../sdk/platform/schemas";
import type { Store } from "../store";
import * as entity from "./entity-routes";
import { resourceNotFound } from "./errors";

/** The YAML of a service created without one: what the service writes back (`NGServiceEntityMapper.toYaml`, inferred shape). */
function generatedYaml(body: ServiceRequest & { name: string }): string {
  const { identifier, name, orgIdentifier, projectIdentifier, description, tags } = body;
  return stringify({ service: { name, identifier, orgIdentifier, projectIdentifier, description, tags } });
}

/** The service table row. */
export const serviceSpec = (store: Store): entity.EntitySpec => ({
  ...entity.NG_ROW,
  kind: "service",
  resource: "service",
  writers: [
    entity.bodyScopedWriter(ServiceRequest, "serviceRequest", (body) => {
      const yaml =
        body.yaml === undefined ? undefined : entity.parseYamlEntity(body.yaml, ServiceYaml).service;
      // `setNameIfNotPresent`: the name defaults to the identifier (ServiceEntityServiceImpl.create).
      const name = body.name ?? yaml?.name ?? body.identifier;
      return {
        at: { org: body.orgIdentifier ?? null, project: body.projectIdentifier ?? null, parent: null },
        fields: {
          identifier: body.identifier,
          name,
          description: body.description,
          tags: body.tags,
          fields: { yaml: body.yaml ?? generatedYaml({ ...body, name }) },
        },
      };
    }),
  ],
  refusals: entity.ngRefusals("Service", () => store.accountId),
  notFound: (id, at) =>
    resourceNotFound(
      `Service with identifier [${id}] in project [${entity.shown(at.project)}], org [${entity.shown(at.org)}] not found`,
    ),
  render: (e, accountId) => entity.ngData("service", e, accountId, { deleted: false, yaml: e.fields.yaml }),
});

/** The service part: its store kind, base path and table row. */
export const part = entity.entityPart({
  kind: "service",
  path: "/ng/api/servicesV2",
  spec: serviceSpec,
});
