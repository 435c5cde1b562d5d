/**
 * Environment groups (platform, v2): `POST /ng/api/environmentGroup`, `PUT|GET|DELETE
 * /ng/api/environmentGroup/{id}`, and the list as `POST /ng/api/environmentGroup/list` with
 * `page`/`size` (Go SDK `harness/nextgen/api_environment_group.go`: PostEnvironmentGroup,
 * UpdateEnvironmentGroup and DeleteEnvironmentGroup with `If-Match`, GetEnvironmentGroup,
 * GetEnvironmentGroupList; Terraform provider
 * `internal/service/cd_nextgen/environment_group/resource_environment_group.go`). The body is the
 * SDK's `EnvironmentGroupRequest` (identifier, scope, colour, and a `yaml` string
 * `environmentGroup: {name, identifier, description, tags, envIdentifiers}`); the answer's `data` is
 * `{envGroup, createdAt, lastModifiedAt}`, a delete's `{deleted, accountId, orgIdentifier,
 * projectIdentifier, identifier}` (SDK `EnvironmentGroupDelete`). The environments a group names
 * are not checked against the scope's (inferred: neither client shows a refusal), and the
 * messages are worded as the environments' (inferred).
 * @module
 */
import {
  DEFAULT_PROJECT_COLOUR,
  EnvironmentGroupRequest,
  EnvironmentGroupYaml,
} from "../../sdk/platform/schemas";
import type { Store } from "../store";
import * as entity from "./entity-routes";
import { resourceNotFound } from "./errors";

/** The environment group table row. */
export const environmentGroupSpec = (store: Store): entity.EntitySpec => ({
  ...entity.NG_ROW,
  kind: "environmentGroup",
  resource: "environmentgroup",
  putById: true,
  listByPost: "/list",
  writers: [
    entity.bodyScopedWriter(EnvironmentGroupRequest, "environmentGroupRequest", (body) => {
      const group = entity.parseYamlEntity(body.yaml, EnvironmentGroupYaml).environmentGroup;
      const { identifier, orgIdentifier, projectIdentifier } = body;
      return {
        at: { org: orgIdentifier ?? null, project: projectIdentifier ?? null, parent: null },
        fields: {
          identifier,
          name: group.name,
          description: group.description ?? "",
          tags: entity.yamlTags(group.tags),
          fields: {
            color: body.color ?? DEFAULT_PROJECT_COLOUR,
            envIdentifiers: group.envIdentifiers,
            yaml: body.yaml,
          },
        },
      };
    }),
  ],
  refusals: entity.ngRefusals("Environment Group", () => store.accountId),
  notFound: (id, at) =>
    resourceNotFound(
      `Environment Group with identifier [${id}] in project [${entity.shown(at.project)}], org [${entity.shown(at.org)}] not found`,
    ),
  render: (e, accountId) => entity.ngData("envGroup", e, accountId, { ...e.fields, deleted: false }),
  deleted: (id, at, accountId) => ({
    deleted: true,
    accountId,
    orgIdentifier: at.org,
    projectIdentifier: at.project,
    identifier: id,
  }),
});

/** The environmentGroup part: its store kind, base path and table row. */
export const part = entity.entityPart({
  kind: "environmentGroup",
  path: "/ng/api/environmentGroup",
  spec: environmentGroupSpec,
});
