/**
 * flagstack's SDK: typed clients of the feature-flag admin API, the bulk event import and the
 * platform API, their zod schemas (the single source of the types), and the typed errors.
 *
 * @example
 * import { AdminClient, EventsClient, PlatformClient, isNotFound } from "flagstack";
 * const admin = new AdminClient({ baseUrl: process.env.ADMIN_URL, apiKey: process.env.ADMIN_KEY });
 * const def = await admin.definitions.get(wsId, "new-checkout", "Production").catch((e) => {
 *   if (isNotFound(e)) return undefined; // no definition in that environment
 *   throw e;
 * });
 * @module
 */
export { AdminClient, type AdminClientOptions } from "./admin/client";
export { ADMIN_PREFIX, adminEndpoints, TITLE_AND_COMMENT_REQUIRED } from "./admin/endpoints";
export * from "./admin/schemas";
export * from "./core/errors";
export { type CommonOptions, ConfigurationError, REQUESTS_PER_SECOND_ENV } from "./core/options";
export { closeSharedPool, closeSharedPools } from "./core/pool";
export { RATE_HEADROOM, RateLimiter, type RateLimiterSettings, sharedLimiter } from "./core/rate-limiter";
export { type CallInit, type CoreConfig, HttpCore, type RetryEvent } from "./core/request";
export { RETRY_DEFAULTS, type RetryPolicy } from "./core/retry";
export { type Query, type Route, type RouteParams, route } from "./core/route";
export { EventsClient, type EventsClientOptions, eventsEndpoints } from "./events/client";
export * from "./events/import";
export * from "./events/schemas";
export {
  type ConnectorScope,
  type PipelineScope,
  type PipelineYaml,
  PlatformClient,
  type PlatformClientOptions,
} from "./platform/client";
export { platformEndpoints } from "./platform/endpoints";
export * from "./platform/schemas";
