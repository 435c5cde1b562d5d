/**
 * Infrastructure definitions: `POST|PUT|GET /ng/api/infrastructures`, `GET|DELETE
 * /ng/api/infrastructures/{id}` (Go SDK `harness/nextgen/api_infrastructures.go`:
 * CreateInfrastructure, UpdateInfrastructure, GetInfrastructure and DeleteInfrastructure with
 * `environmentIdentifier`, GetInfrastructureList with `page`/`size`; none takes `If-Match`, so the
 * header is not read). The body is the SDK's `InfrastructureRequest`, whose `yaml` holds
 * `infrastructureDefinition: {environmentRef, deploymentType, type, spec}` (Terraform provider
 * `resource_Infrastructure_test.go`); KubernetesDirect and KubernetesGcp specs are typed.
 *
 * Referential check: the environment must exist, on create and on update (harness-core
 * `InfrastructureResource.create`/`update` call `EnvironmentValidationHelper.checkThatEnvExists`,
 * a javax `NotFoundException` "Environment with ref [%s] not found": 400 FailureDTO). A GET of a
 * missing infrastructure is a `NotFoundException` too ("Infrastructure with identifier [%s] in
 * project [%s], org [%s], environment [%s] not found", `InfrastructureResource.get`).
 * @module
 */
import { INFRASTRUCTURE_SPECS, InfrastructureRequest, InfrastructureYaml } from "../../sdk/platform/schemas";
import type { Store } from "../store";
import * as entity from "./entity-routes";
import { invalidRequest, resourceNotFound, validationFailure, zodViolations } from "./errors";

/** The infrastructure table row. */
export const infrastructureSpec = (store: Store): entity.EntitySpec => ({
  ...entity.NG_ROW,
  ifMatch: false,
  kind: "infrastructure",
  resource: "environment",
  parentParam: "environmentIdentifier",
  writers: [
    entity.bodyScopedWriter(InfrastructureRequest, "infrastructureRequest", (body) => {
      const yaml = entity.parseYamlEntity(body.yaml, InfrastructureYaml).infrastructureDefinition;
      // What the YAML says must be what the request says (inferred wording, as the pipeline's "Expected ...").
      if (yaml.environmentRef !== body.environmentRef) {
        throw invalidRequest(
          `Expected environmentRef in YAML to be [${body.environmentRef}], but was [${yaml.environmentRef}]`,
        );
      }
      if (body.type !== undefined && body.type !== yaml.type) {
        throw invalidRequest(`Expected type in YAML to be [${body.type}], but was [${yaml.type}]`);
      }
      const typed = INFRASTRUCTURE_SPECS[yaml.type]?.safeParse(yaml.spec);
      if (typed !== undefined && !typed.success) {
        throw validationFailure(zodViolations("yaml.infrastructureDefinition.spec", typed.error.issues));
      }
      return {
        at: {
          org: body.orgIdentifier ?? null,
          project: body.projectIdentifier ?? null,
          parent: body.environmentRef,
        },
        fields: {
          identifier: body.identifier,
          name: body.name ?? yaml.name,
          description: body.description,
          tags: body.tags,
          fields: { type: yaml.type, deploymentType: yaml.deploymentType, yaml: body.yaml },
        },
      };
    }),
  ],
  refusals: {
    ...entity.ngRefusals(
      "Infrastructure",
      () => store.accountId,
      (at) => ` , Environment [${entity.shown(at.parent)}]`,
    ),
    parentMissing: (at) => resourceNotFound(`Environment with ref [${entity.shown(at.parent)}] not found`),
  },
  notFound: (id, at) =>
    resourceNotFound(
      `Infrastructure with identifier [${id}] in project [${entity.shown(at.project)}], org [${entity.shown(at.org)}], environment [${entity.shown(at.parent)}] not found`,
    ),
  render: (e, accountId) =>
    entity.ngData("infrastructure", e, accountId, { environmentRef: e.at.parent, ...e.fields }),
});

/** The infrastructure part: its store kind, base path and table row. */
export const part = entity.entityPart({
  kind: "infrastructure",
  parent: "environment",
  path: "/ng/api/infrastructures",
  spec: infrastructureSpec,
});
