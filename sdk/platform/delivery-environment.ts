/**
 * Environments (platform, v2): `POST|PUT /ng/api/environmentsV2`, `GET|DELETE
 * /ng/api/environmentsV2/{identifier}`, `GET /ng/api/environmentsV2` (Go SDK
 * `harness/nextgen/api_environments.go`: CreateEnvironmentV2, UpdateEnvironmentV2 and
 * DeleteEnvironmentV2 with `If-Match`, GetEnvironmentList with `page`/`size`). The body is the
 * SDK's `EnvironmentRequest`: type (PreProduction or Production), colour, and a `yaml` string with
 * variables and overrides; the answer's environment carries its `version`.
 * @module
 */
import { EntityApi, type EntityCtx, type EntityScope, ngCdKind } from "./entity-api";
import { platformPart } from "./part";
import { PlatformEnvironmentData, PlatformEnvironmentRequest } from "./schemas";

/** The platform environments of an account, organization or project. */
export type EnvironmentsApi = EntityApi<EntityScope, PlatformEnvironmentRequest, PlatformEnvironmentData>;

/** The environments namespace of a client. */
export const environmentsApi = (ctx: EntityCtx): EnvironmentsApi =>
  new EntityApi(
    ctx,
    ngCdKind({
      label: "environment",
      base: "/ng/api/environmentsV2",
      request: PlatformEnvironmentRequest,
      data: PlatformEnvironmentData,
      root: "environment",
    }),
  );

/** Platform environments (v2). */
export const part = platformPart("environments", environmentsApi);
