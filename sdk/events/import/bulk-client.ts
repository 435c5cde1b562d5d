/**
 * The client the importer sends batches with when the caller does not pass one: the SDK's HTTP
 * core bound to the events URL and the SDK key (spec §5.2: `Authorization: Bearer <SDK key>`).
 * Records reach it already validated by the importer, so it sends them as they are.
 * @module
 */
import { z } from "zod";
import { resolveCommonOptions } from "../../core/options";
import { HttpCore, route } from "../../core/request";
import type { EventsBulkClient } from "./sender";

/** `POST {events_url}/api/events/bulk` → 202; the response body is not shown (spec §4). */
const bulkRoute = route("POST /api/events/bulk", z.unknown(), { emptyBody: null });

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
      client: "events import",
      urlEnv: "FLAGSTACK_EVENTS_URL",
      keyOption: "sdkKey",
      keyEnv: "FLAGSTACK_SDK_KEY",
      defaultRequestsPerSecond: 10,
    },
  );
  const core = new HttpCore({
    options,
    auth: ["authorization", `Bearer ${options.key}`],
    authHint: "the events import takes a server-side or client-side SDK key (--sdk-key or FLAGSTACK_SDK_KEY), not an admin key",
  });
  return {
    async bulk(records) {
      await core.request(bulkRoute, {}, { body: records });
    },
  };
}
