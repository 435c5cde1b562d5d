/**
 * The client the importer sends batches with when the caller does not pass one: the SDK's HTTP
 * core bound to the events URL and the SDK key (spec §5.2: `Authorization: Bearer <SDK key>`),
 * on the events client's own route.
 *
 * Not `EventsClient.bulk`: it validates every record again before sending, and the importer has
 * just validated them with the same schema; at a million events that second pass costs a large
 * share of the import's CPU. (Wanted from the SDK: `bulk(records, { validated: true })` or a
 * pre-serialized body; then this file becomes `new EventsClient(...)`.)
 * @module
 */
import { resolveCommonOptions } from "../../core/options";
import { HttpCore } from "../../core/request";
import { eventsEndpoints } from "../client";
import type { EventsBulkClient } from "./sender";

/** Settings of {@link createBulkClient}. */
export interface BulkClientOptions {
  /** Base of the events API; falls back to `FLAGSTACK_EVENTS_URL`. */
  eventsUrl?: string | undefined;
  /** Server- or client-side SDK key; falls back to `FLAGSTACK_SDK_KEY`. */
  sdkKey?: string | undefined;
  /** Client-side request rate limit; default: the SDK's (`FLAGSTACK_REQUESTS_PER_SECOND`, else 10). */
  requestsPerSecond?: number | undefined;
  /** Requests in flight at once. */
  maxConcurrent?: number | undefined;
  env?: Record<string, string | undefined>;
}

/** Creates the default bulk client; throws `ConfigurationError` naming a missing URL or key. */
export function createBulkClient(o: BulkClientOptions): EventsBulkClient {
  const options = resolveCommonOptions(
    {
      baseUrl: o.eventsUrl,
      requestsPerSecond: o.requestsPerSecond,
      maxConcurrent: o.maxConcurrent,
      ...(o.env ? { env: o.env } : {}),
    },
    o.sdkKey,
    {
      client: "EventsClient",
      urlEnv: "FLAGSTACK_EVENTS_URL",
      keyOption: "sdkKey",
      keyEnv: "FLAGSTACK_SDK_KEY",
      defaultRequestsPerSecond: 10,
    },
  );
  const core = new HttpCore({
    options,
    auth: ["authorization", `Bearer ${options.key}`],
    authHint:
      "the events API takes a server-side or client-side SDK key, not an admin key: option sdkKey (--sdk-key) or FLAGSTACK_SDK_KEY",
  });
  return {
    async bulk(records) {
      await core.request(eventsEndpoints.bulk, {}, { body: records });
    },
  };
}
