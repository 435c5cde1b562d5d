/**
 * Environments (platform, v2): `POST|PUT|GET /ng/api/environmentsV2`, `GET|DELETE
 * /ng/api/environmentsV2/{id}` (Go SDK `harness/nextgen/api_environments.go`: CreateEnvironmentV2,
 * UpdateEnvironmentV2 and DeleteEnvironmentV2 with `If-Match`, GetEnvironmentList with
 * `page`/`size`; Terraform provider `internal/service/cd_nextgen/environment/resource_environment.go`).
 * The body is the SDK's `EnvironmentRequest` (type PreProduction or Production, colour, and a
 * `yaml` string with variables and overrides); the response's `environment` carries `version`
 * (SDK `model_environment_response_details.go`). A GET of a missing environment is javax
 * `NotFoundException`, 400 FailureDTO (harness-core `EnvironmentResourceV2.get`); duplicates and
 * stale updates are worded as harness-core `EnvironmentServiceImpl` words them (`ngRefusals`).
 * Deleting an environment deletes its infrastructures (`platform-entities.ts`).
 * @module
 */
import { stringify } from "yaml";
import {
  DEFAULT_PROJECT_COLOUR,
  PlatformEnvironmentRequest,
  PlatformEnvironmentYaml,
} from "../../sdk/platform/schemas";
import type { Store } from "../store";
import * as entity from "./entity-routes";
import { resourceNotFound } from "./errors";

/** The environment table row. */
export const environmentSpec = (store: Store): entity.EntitySpec => ({
  ...entity.NG_ROW,
  kind: "environment",
  resource: "environment",
  writers: [
    entity.bodyScopedWriter(PlatformEnvironmentRequest, "environmentRequest", (body) => {
      const yaml =
        body.yaml === undefined
          ? undefined
          : entity.parseYamlEntity(body.yaml, PlatformEnvironmentYaml).environment;
      const name = body.name ?? yaml?.name ?? body.identifier;
      const { identifier, orgIdentifier, projectIdentifier, description, tags, type } = body;
      const text =
        body.yaml ??
        stringify({
          environment: { name, identifier, orgIdentifier, projectIdentifier, description, tags, type },
        });
      return {
        at: { org: orgIdentifier ?? null, project: projectIdentifier ?? null, parent: null },
        fields: {
          identifier,
          name,
          description,
          tags,
          // The colour defaults as a project's does (inferred).
          fields: { color: body.color ?? DEFAULT_PROJECT_COLOUR, type, yaml: text },
        },
      };
    }),
  ],
  refusals: entity.ngRefusals("Environment", () => store.accountId),
  notFound: (id, at) =>
    resourceNotFound(
      `Environment with identifier [${id}] in project [${entity.shown(at.project)}], org [${entity.shown(at.org)}] not found`,
    ),
  render: (e, accountId) =>
    entity.ngData("environment", e, accountId, { ...e.fields, deleted: false, version: e.version }),
});

/** The environment part: its store kind, base path and table row. */
export const part = entity.entityPart({
  kind: "environment",
  path: "/ng/api/environmentsV2",
  spec: environmentSpec,
});
