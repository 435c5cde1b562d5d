/**
 * Sending one batch, and what a failure means for it.
 *
 * The bulk endpoint is not idempotent (spec §4), so a failure is sorted by what the service may
 * have done with the batch:
 * - `unknown`: the request may have been applied (connection lost after sending, a timeout
 *   waiting for the answer, or a 500/502/504 to a POST: the HTTP core sets
 *   `ApiError.outcomeUnknown`). Never re-sent automatically.
 * - `retry`: the service certainly did not record the batch and may accept it later: 429 (the
 *   core already waited as `X-RateLimit-Reset-Seconds-*` said, ref admin-api-behaviour §4), 503
 *   (a refusal), a connection that failed before sending. Sent again after a wait.
 * - `fatal`: no batch can succeed (401/403: wrong key or key type, spec §5): the import stops.
 * - `failed`: the service refused this batch (another 4xx); the import goes on without it.
 * @module
 */
import { setTimeout as sleep } from "node:timers/promises";
import { ApiError, RateLimitError } from "../../core/errors";
import type { Batch } from "./batcher";

/**
 * What a client tells the importer about the attempts of one batch, so that the journal says what
 * the service may hold (see `journal.ts`). Each returns once the entry is on disk; the client waits
 * for it.
 */
export interface WireHooks {
  /**
   * The request is about to be written to the socket: called after every client-side wait (the
   * rate limiter, a 429's pause, a backoff), once per attempt, and nothing may be written before it
   * resolves.
   */
  beforeWrite(): Promise<void>;
  /**
   * This attempt certainly left nothing behind (a 429 or 503, a connection refused before
   * sending): called before the client waits to try again, or gives up.
   */
  notRecorded(reason: string): Promise<void>;
}

/** What the importer needs from an events client: `EventsClient` fits. */
export interface EventsBulkClient {
  /**
   * Sends records to `POST {events_url}/api/events/bulk`; resolves on 202. A client that sets
   * {@link callsWireHooks} calls `hooks` around every attempt; another may ignore them.
   */
  bulk(records: Batch["records"], hooks?: WireHooks): Promise<unknown>;
  /**
   * True when `bulk` calls {@link WireHooks.beforeWrite} before each attempt it writes. Otherwise
   * the importer journals a batch as sent before calling `bulk` (the intent must be on disk before
   * anything can leave), so a crash while the client waits leaves the batch unknown.
   */
  readonly callsWireHooks?: boolean | undefined;
}

/** How a failed send is handled; see the module comment. */
export type FailureKind = "unknown" | "retry" | "fatal" | "failed";

/** Sorts a failed send; see the module comment. */
export function classifyFailure(e: unknown): FailureKind {
  if (!ApiError.isInstance(e)) return "unknown";
  if (e.outcomeUnknown) return "unknown";
  if (e.kind === "rate-limited" || e.status === 503) return "retry";
  // status 0: a network error that the core says happened before anything was sent
  if (e.kind === "network") return "retry";
  if (e.status === 401 || e.status === 403) return "fatal";
  if (e.status >= 500) return "unknown";
  return "failed";
}

/** Retry settings of {@link sendBatch}. */
export interface SendRetryPolicy {
  /** Retries of a `retry` failure beyond those the HTTP core made (default 8). */
  maxRetries: number;
  /** Backoff: retry n waits a random time in [base * 2^n / 2, base * 2^n], at most `maxDelayMs`. */
  baseDelayMs: number;
  maxDelayMs: number;
}

/** Defaults of {@link SendRetryPolicy}. */
export const SEND_RETRY_DEFAULTS = {
  maxRetries: 8,
  baseDelayMs: 500,
  maxDelayMs: 30_000,
} as const satisfies SendRetryPolicy;

/** Told before each importer-level retry. */
export interface SendRetryEvent {
  batch: number;
  attempt: number;
  delayMs: number;
  error: unknown;
}

/**
 * Sends a batch, retrying failures that certainly left nothing behind. Throws the last error
 * otherwise (classify it with {@link classifyFailure}). `signal` cuts a wait between retries short
 * (the batch was then not recorded, so it stays safe to send later); a request in flight is
 * never aborted, so that its outcome is known. `hooks` go to every `bulk` call.
 */
export async function sendBatch(
  client: EventsBulkClient,
  batch: Batch,
  policy: SendRetryPolicy = SEND_RETRY_DEFAULTS,
  signal?: AbortSignal,
  onRetry?: (e: SendRetryEvent) => void,
  hooks?: WireHooks,
): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      await client.bulk(batch.records, hooks);
      return;
    } catch (e) {
      if (classifyFailure(e) !== "retry" || attempt >= policy.maxRetries || signal?.aborted) throw e;
      const backoff = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** attempt);
      const advised = e instanceof RateLimitError ? e.retryAfterMs : undefined;
      const delayMs = advised ?? Math.round(backoff / 2 + (Math.random() * backoff) / 2);
      onRetry?.({ batch: batch.index, attempt: attempt + 1, delayMs, error: e });
      try {
        await sleep(delayMs, undefined, { signal });
      } catch {
        throw e;
      }
    }
  }
}
