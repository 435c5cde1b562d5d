/**
 * The admin API's route table, octokit style: `namespace → method → route + response schema`.
 * Paths and bodies are from `../shared/spec/feature-flag-admin-api.md` §4; endpoints the spec
 * marks "not shown" come from `../shared/reference/admin-api-behaviour.md` (cited as "ref §N").
 *
 * Schemas are built once here, never per call.
 * @module
 */
import { z } from "zod";
import { route } from "../core/route";
import {
  Definition,
  Environment,
  EnvironmentDetail,
  Flag,
  Group,
  offsetPage,
  RolloutStatus,
  TrafficType,
  TrueBody,
  User,
  UserPage,
  Workspace,
} from "./schemas";

/** Path prefix of every admin route (spec §9). */
export const ADMIN_PREFIX = "/internal/api/v2";

/** Message for the empty-bodied 400 of a workspace that requires a title and comment (ref §2). */
export const TITLE_AND_COMMENT_REQUIRED =
  "the workspace requires a title and comment for definition changes; pass { title, comment }";

const definitionChange = { emptyBadRequest: TITLE_AND_COMMENT_REQUIRED } as const;
/** A DELETE retried after a lost response that finds the object gone has succeeded. */
const gone = { goneOnRetry: true } as const;

const WorkspacePage = offsetPage(Workspace);
const FlagPage = offsetPage(Flag);
const DefinitionPage = offsetPage(Definition);
const GroupPage = offsetPage(Group);

/** Every admin endpoint the SDK calls. */
export const adminEndpoints = {
  workspaces: {
    list: route("GET /internal/api/v2/workspaces", WorkspacePage),
    create: route("POST /internal/api/v2/workspaces", Workspace),
    /** JSON Patch on `/name` and `/requiresTitleAndComments` (ref §9.1). */
    patch: route("PATCH /internal/api/v2/workspaces/{wsId}", Workspace),
    /** Refused while the workspace has traffic types (ref §1.2). */
    delete: route("DELETE /internal/api/v2/workspaces/{wsId}", TrueBody, gone),
  },
  environments: {
    /** A bare JSON array (spec §2). */
    list: route("GET /internal/api/v2/environments/ws/{wsId}", z.array(Environment)),
    /** ref §1.1; the response also lists the environment's new SDK keys (`apiTokens`). */
    create: route("POST /internal/api/v2/environments/ws/{wsId}", EnvironmentDetail),
    /** JSON Patch on `/name`, `/production`, `/changePermissions`; `?dry_run` (ref §1.1, §1.2). */
    patch: route("PATCH /internal/api/v2/environments/ws/{wsId}/{environment}", EnvironmentDetail),
    /** Refused while API keys of the environment exist (ref §1.2). */
    delete: route("DELETE /internal/api/v2/environments/ws/{wsId}/{environment}", TrueBody, gone),
  },
  trafficTypes: {
    /** A bare JSON array (ref §1.1). */
    list: route("GET /internal/api/v2/trafficTypes/ws/{wsId}", z.array(TrafficType)),
    create: route("POST /internal/api/v2/trafficTypes/ws/{wsId}", TrafficType),
    /** No workspace in the path (ref §9.1). */
    delete: route("DELETE /internal/api/v2/trafficTypes/{trafficTypeId}", TrueBody, gone),
  },
  rolloutStatuses: {
    list: route("GET /internal/api/v2/rolloutStatuses", z.array(RolloutStatus)),
  },
  flags: {
    /** ref §1.1: `?offset&limit&name&tag`. */
    list: route("GET /internal/api/v2/splits/ws/{wsId}", FlagPage),
    /** By name or id (ref §2). */
    get: route("GET /internal/api/v2/splits/ws/{wsId}/{flag}", Flag),
    /** The spec writes the path with a trailing slash. */
    create: route("POST /internal/api/v2/splits/ws/{wsId}/trafficTypes/{trafficType}/", Flag),
    patch: route("PATCH /internal/api/v2/splits/ws/{wsId}/{flag}", Flag),
    delete: route("DELETE /internal/api/v2/splits/ws/{wsId}/{flag}", TrueBody, gone),
  },
  definitions: {
    /** All definitions of one environment (ref §1.1). */
    list: route("GET /internal/api/v2/splits/ws/{wsId}/environments/{environment}", DefinitionPage),
    get: route("GET /internal/api/v2/splits/ws/{wsId}/{flag}/environments/{environment}", Definition),
    create: route(
      "POST /internal/api/v2/splits/ws/{wsId}/{flag}/environments/{environment}",
      Definition,
      definitionChange,
    ),
    /** Full replace (ref §2). */
    put: route(
      "PUT /internal/api/v2/splits/ws/{wsId}/{flag}/environments/{environment}",
      Definition,
      definitionChange,
    ),
    /** The spec does not show the response body; the service returns the definition. */
    patch: route(
      "PATCH /internal/api/v2/splits/ws/{wsId}/{flag}/environments/{environment}",
      Definition,
      definitionChange,
    ),
    delete: route("DELETE /internal/api/v2/splits/ws/{wsId}/{flag}/environments/{environment}", TrueBody, {
      ...definitionChange,
      ...gone,
    }),
    /** No body either way (ref §1.1); the response is the definition. */
    kill: route(
      "PUT /internal/api/v2/splits/ws/{wsId}/{flag}/environments/{environment}/kill",
      Definition,
      definitionChange,
    ),
    restore: route(
      "PUT /internal/api/v2/splits/ws/{wsId}/{flag}/environments/{environment}/restore",
      Definition,
      definitionChange,
    ),
  },
  users: {
    invite: route("POST /internal/api/v2/users", User),
    list: route("GET /internal/api/v2/users", UserPage),
    get: route("GET /internal/api/v2/users/{userId}", User),
    put: route("PUT /internal/api/v2/users/{userId}", User),
    patch: route("PATCH /internal/api/v2/users/{userId}", User),
    /** Success for PENDING users: 200 or 204, with or without `true` (ref §4). */
    delete: route("DELETE /internal/api/v2/users/{userId}", TrueBody, { emptyBody: true, ...gone }),
  },
  groups: {
    list: route("GET /internal/api/v2/groups", GroupPage),
    get: route("GET /internal/api/v2/groups/{groupId}", Group),
    create: route("POST /internal/api/v2/groups", Group),
    put: route("PUT /internal/api/v2/groups/{groupId}", Group),
    delete: route("DELETE /internal/api/v2/groups/{groupId}", TrueBody, gone),
  },
} as const;
