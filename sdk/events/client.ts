/**
 * Client of the bulk event import, `POST {events_url}/api/events/bulk` with
 * `Authorization: Bearer <SDK key>` (spec admin §4 "Event import", §5.2; ref admin §6).
 *
 * The import is not idempotent (spec §4): a batch sent twice is recorded twice. So a batch is
 * never re-sent blindly: the core retries only a 429 (refused before acting) or a connection that
 * failed before sending. Any other failure tells the caller what it knows through
 * `ApiError.outcomeUnknown`: false means the batch was certainly not recorded (a 4xx, 429, 503,
 * a refused connection) and may be sent again; true means it may have been recorded (connection
 * lost after sending, a timeout, a 500/502/504) and must not be re-sent without checking.
 * @module
 */
import { z } from "zod";
import { flattenIssues } from "../core/issues";
import { type CommonOptions, resolveCommonOptions } from "../core/options";
import { HttpCore } from "../core/request";
import { route } from "../core/route";
import { invalidInput } from "../core/validate-input";
import { EventRecord, type EventRecordInput } from "./schemas";

/** The bulk route: 202 on success, response body not shown (spec §4), so any body is accepted. */
export const eventsEndpoints = {
  bulk: route("POST /api/events/bulk", z.unknown(), { emptyBody: null }),
} as const;

/** Options of {@link EventsClient}: the {@link CommonOptions} plus the SDK key. */
export type EventsClientOptions = CommonOptions & {
  /** Server-side or client-side SDK key (not an admin key, spec §5); falls back to `FLAGSTACK_SDK_KEY`. */
  sdkKey?: string | undefined;
};

const AUTH_HINT =
  "the events API takes a server-side or client-side SDK key, not an admin key: option sdkKey or FLAGSTACK_SDK_KEY";

/**
 * Client of the bulk event import.
 *
 * @example
 * import { EventsClient } from "flagstack";
 * const events = new EventsClient({ baseUrl: "http://127.0.0.1:8080", sdkKey: process.env.SDK_KEY });
 * await events.bulk([
 *   { eventTypeId: "checkout", trafficTypeName: "user", key: "u-42", timestamp: Date.now(), value: 19.9 },
 * ]);
 */
export class EventsClient {
  /** The HTTP core (for advanced use). */
  readonly core: HttpCore;

  /**
   * @param options Base URL (`FLAGSTACK_EVENTS_URL`), SDK key (`FLAGSTACK_SDK_KEY`), rate limit
   *   (`FLAGSTACK_REQUESTS_PER_SECOND`, default 10), retries, timeouts, dispatcher.
   * @throws ConfigurationError naming a missing or invalid option and its environment variable.
   */
  constructor(options: EventsClientOptions = {}) {
    const { sdkKey, ...common } = options;
    const resolved = resolveCommonOptions(common, sdkKey, {
      client: "EventsClient",
      urlEnv: "FLAGSTACK_EVENTS_URL",
      keyOption: "sdkKey",
      keyEnv: "FLAGSTACK_SDK_KEY",
      defaultRequestsPerSecond: 10,
    });
    this.core = new HttpCore({
      options: resolved,
      auth: ["authorization", `Bearer ${resolved.key}`],
      authHint: AUTH_HINT,
    });
  }

  /**
   * Validates every record, then sends them all in one request; resolves on 202.
   *
   * Records are checked first (required fields, event type id pattern, timestamp as epoch
   * milliseconds given as a number or a digit string, property limits); one bad record fails the
   * call with a ValidationError naming its index and field (`records[3].timestamp`) and nothing is
   * sent. Timestamps are sent as numbers. Pass `validated: true` only for records that are already
   * the output of `EventRecord` (the check is then skipped).
   * @throws ValidationError before sending; ApiError / NetworkError with `outcomeUnknown` after.
   * @example
   * try {
   *   await events.bulk(batch);
   * } catch (e) {
   *   if (ApiError.isInstance(e) && e.outcomeUnknown) journal.markUncertain(batch); // never re-send blindly
   *   else throw e;
   * }
   */
  async bulk(
    records: readonly EventRecordInput[],
    init: { signal?: AbortSignal | undefined; validated?: boolean } = {},
  ): Promise<void> {
    const r = eventsEndpoints.bulk;
    // The caller has already parsed every record with `EventRecord` (the event importer does, to
    // write rejects): a second pass would cost a large share of a million-event import's CPU.
    if (init.validated) {
      await this.core.request(r, {}, { body: records, signal: init.signal });
      return;
    }
    if (!Array.isArray(records)) {
      throw invalidInput(
        r,
        "event records",
        [{ path: [], message: "records must be an array of event records" }],
        "records",
      );
    }
    const out = new Array<z.output<typeof EventRecord>>(records.length);
    const problems: { path: PropertyKey[]; message: string }[] = [];
    for (let i = 0; i < records.length; i++) {
      const parsed = EventRecord.safeParse(records[i]);
      if (parsed.success) out[i] = parsed.data;
      else problems.push(...flattenIssues(parsed.error.issues, [i]));
    }
    if (problems.length > 0) throw invalidInput(r, "event records", problems, "records");
    await this.core.request(r, {}, { body: out, signal: init.signal });
  }
}
