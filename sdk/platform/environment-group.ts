/**
 * Environment groups (platform, v2): `POST /ng/api/environmentGroup`, `PUT|GET|DELETE
 * /ng/api/environmentGroup/{envGroupIdentifier}`, and the list, a `POST
 * /ng/api/environmentGroup/list` with `page`/`size` (Go SDK `harness/nextgen/api_environment_group.go`:
 * PostEnvironmentGroup, UpdateEnvironmentGroup and DeleteEnvironmentGroup with `If-Match`,
 * GetEnvironmentGroup, GetEnvironmentGroupList). The body is the SDK's `EnvironmentGroupRequest`:
 * identifier, scope, colour, and a `yaml` string `environmentGroup: {name, identifier,
 * description, tags, orgIdentifier, projectIdentifier, envIdentifiers}` (Terraform provider
 * `internal/service/cd_nextgen/environment_group/resource_environment_group.go` and its tests);
 * the answer's `data` is `{envGroup, createdAt, lastModifiedAt}`, and a delete answers
 * `{deleted, accountId, orgIdentifier, projectIdentifier, identifier}` (SDK `EnvironmentGroupDelete`).
 * @module
 */
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
import {
  EnvironmentGroupData,
  EnvironmentGroupDeleted,
  EnvironmentGroupRequest,
  envelope,
  pageOf,
} from "./schemas";

const BASE = "/ng/api/environmentGroup";

/** The routes: the table's, but a delete that answers what it deleted and a list that is a POST. */
export const environmentGroupRoutes = {
  ...entityRoutes(BASE, EnvironmentGroupData, EnvironmentGroupData, { putById: true }),
  delete: route(`DELETE ${BASE}/{identifier}`, envelope(EnvironmentGroupDeleted), {
    goneOnRetry: {
      status: "SUCCESS",
      data: { deleted: true, identifier: "" },
      metaData: null,
      correlationId: "",
    },
  }),
  list: route(`POST ${BASE}/list`, envelope(pageOf(EnvironmentGroupData))),
} as const;

/** The environment groups of an account, organization or project. */
export type EnvironmentGroupsApi = EntityApi<EntityScope, EnvironmentGroupRequest, EnvironmentGroupData>;

/** The environment groups namespace of a client. */
export const environmentGroupsApi = (ctx: EntityCtx): EnvironmentGroupsApi =>
  new EntityApi(ctx, {
    label: "environment group",
    routes: environmentGroupRoutes,
    paging: ["page", "size"],
    ifMatch: true,
    scopeQuery,
    writeOf: (r, body) =>
      jsonWrite(r, EnvironmentGroupRequest, body, "environmentGroupRequest", (parsed) => ({
        identifier: parsed.identifier,
        query: {},
        body: parsed,
      })),
  });

/** Environment groups (v2): named sets of a scope's environments. */
export const part = platformPart("environmentGroups", environmentGroupsApi);
