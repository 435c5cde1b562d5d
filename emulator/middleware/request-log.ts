/**
 * Records every request (method, path, query, status, time, API) so tests and benchmarks can read
 * back what a client did: `emu.requests()` and `GET /_emulator/requests`.
 * @module
 */
import type { MiddlewareHandler } from "hono";
import { z } from "zod";
import { APIS, type AppEnv, apiOf, FAULT_KINDS } from "../context";

/** One recorded request. */
export const RequestRecord = z.object({
  method: z.string(),
  /** Path without the query string. */
  path: z.string(),
  /** Raw query string without the leading `?` (empty when none). */
  query: z.string(),
  /** HTTP status sent; 0 when the connection was dropped without a response. */
  status: z.number().int(),
  /** Time spent in the emulator, in milliseconds. */
  ms: z.number(),
  api: z.enum(APIS),
  /** Epoch milliseconds when the request arrived. */
  at: z.number(),
  transactionId: z.string(),
  /** Set when an injected fault or the rate limit answered (or dropped) this request. */
  fault: z.enum(FAULT_KINDS).optional(),
});
/** One recorded request. */
export type RequestRecord = z.infer<typeof RequestRecord>;

/**
 * The most of `records` that arrived within any 1,000 ms: what a server counting requests per
 * second saw at its busiest (a check that a client kept to a rate limit).
 */
export function busiestSecond(records: readonly RequestRecord[]): number {
  const at = records.map((r) => r.at).sort((a, b) => a - b);
  let peak = 0;
  for (let end = 0, start = 0; end < at.length; end++) {
    while ((at[end] as number) - (at[start] as number) >= 1000) start++;
    peak = Math.max(peak, end - start + 1);
  }
  return peak;
}

/** The in-memory request log, bounded so a long benchmark cannot exhaust memory. */
export class RequestLog {
  private records: RequestRecord[] = [];
  /** Records discarded (oldest first) because the log reached its limit. */
  discarded = 0;

  /** @param limit - most records kept; the oldest tenth is discarded when it is reached */
  constructor(readonly limit = 200_000) {}

  push(r: RequestRecord): void {
    if (this.records.length >= this.limit) {
      const cut = Math.max(1, Math.floor(this.limit / 10));
      this.records.splice(0, cut);
      this.discarded += cut;
    }
    this.records.push(r);
  }

  /** A copy of the records, oldest first. */
  list(): RequestRecord[] {
    return this.records.slice();
  }

  reset(): void {
    this.records = [];
    this.discarded = 0;
  }
}

/** Sets `c.var.api` and appends a {@link RequestRecord} once the response is ready. */
export function requestLog(log: RequestLog): MiddlewareHandler<AppEnv> {
  return async function requestLogMiddleware(c, next) {
    const started = performance.now();
    const at = Date.now();
    const path = c.req.path;
    c.set("api", apiOf(path));
    await next();
    const url = c.req.url;
    const q = url.indexOf("?");
    const fault = c.get("fault");
    const dropped = fault === "drop" || fault === "drop-after";
    const record: RequestRecord = {
      method: c.req.method,
      path,
      query: q < 0 ? "" : url.slice(q + 1),
      status: dropped ? 0 : c.res.status,
      ms: Math.round((performance.now() - started) * 1000) / 1000,
      api: c.get("api"),
      at,
      transactionId: c.get("transactionId"),
    };
    if (fault) record.fault = fault;
    log.push(record);
  };
}
