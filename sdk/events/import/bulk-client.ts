/**
 * The client the importer sends batches with when the caller does not pass one: the SDK's
 * `EventsClient` on the events URL and the SDK key (spec §5.2: `Authorization: Bearer <SDK key>`).
 * Records reach it already parsed by `EventRecord` (the importer validates them to write rejects),
 * so they are sent with `validated: true` instead of being checked twice.
 * @module
 */
import { EventsClient } from "../client";
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
  const client = new EventsClient({
    baseUrl: o.eventsUrl,
    sdkKey: o.sdkKey,
    requestsPerSecond: o.requestsPerSecond,
    maxConcurrent: o.maxConcurrent,
    ...(o.env ? { env: o.env } : {}),
  });
  return {
    async bulk(records) {
      await client.bulk(records, { validated: true });
    },
  };
}
