/**
 * Retry policy of the HTTP core: which failures are retried, for which methods, and how long to
 * wait. The policy is data ({@link RETRY_DEFAULTS}); the loop that applies it is in `request.ts`.
 *
 * Why not undici's `interceptors.retry()`: it retries below the rate limiter (a retry would skip
 * the queue and the 429 pause), cannot read `X-RateLimit-Reset-Seconds-*`, never retries a POST
 * after a 429, and cannot tell a caller whether a failed POST may have been applied.
 *
 * Rules:
 * - GET, PUT and DELETE are idempotent: retried on 429, 500, 502, 503, 504 and on connection
 *   failures (a 500 is often a passing fault, and repeating an idempotent call cannot harm).
 * - POST and PATCH are retried only when the server certainly did nothing: a 429 (the API refused
 *   the request before acting on it; ref admin §4, platform §9) or a connection that failed before
 *   anything was sent (refused, DNS retry, connect timeout). A connection lost after sending, or a
 *   timeout waiting for the answer, ends the call with `NetworkError.outcomeUnknown = true`; the
 *   caller then looks the object up by its natural key instead of re-sending (see DESIGN.md).
 * - On 429 the wait is the larger of `X-RateLimit-Reset-Seconds-Org` and `-IP` (ref admin §4),
 *   else `Retry-After`, else exponential backoff with full jitter.
 * @module
 */
import type { IncomingHttpHeaders } from "node:http";

/** HTTP methods the SDK sends. */
export type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

/** The retry policy as data. */
export interface RetryPolicy {
  /** Retries after the first attempt. */
  maxRetries: number;
  /** Time from the first attempt after which no further retry starts. */
  budgetMs: number;
  /** Backoff: attempt n waits uniformly in [0, min(maxDelayMs, baseDelayMs * 2^n)]. */
  baseDelayMs: number;
  maxDelayMs: number;
  /** Statuses retried for idempotent methods. */
  retryStatuses: readonly number[];
  /** Statuses retried for every method because the server refused before acting. */
  refusedStatuses: readonly number[];
  /** Methods safe to repeat. */
  idempotentMethods: readonly HttpMethod[];
}

/** Defaults, as documented in the module comment. */
export const RETRY_DEFAULTS = {
  maxRetries: 5,
  budgetMs: 120_000,
  baseDelayMs: 250,
  maxDelayMs: 20_000,
  retryStatuses: [429, 500, 502, 503, 504],
  refusedStatuses: [429],
  idempotentMethods: ["GET", "PUT", "DELETE"],
} as const satisfies RetryPolicy;

/**
 * Transport error codes raised before any byte of the request left: retrying cannot duplicate.
 * ENOTFOUND is left out on purpose: an unknown host is a configuration error, not a blip.
 */
const NOT_SENT_CODES = new Set([
  "ECONNREFUSED",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "UND_ERR_CONNECT_TIMEOUT",
]);

/** Transport error codes after which the request may have reached the server. */
const MAYBE_SENT_CODES = new Set([
  "ECONNRESET",
  "EPIPE",
  "ETIMEDOUT",
  "ECONNABORTED",
  "UND_ERR_SOCKET",
  "UND_ERR_CLOSED",
  "UND_ERR_HEADERS_TIMEOUT",
  "UND_ERR_BODY_TIMEOUT",
  "UND_ERR_RES_CONTENT_LENGTH_MISMATCH",
]);

/** How a transport failure is handled. */
export interface NetworkFailure {
  /** The error code found (`ECONNRESET`, `UND_ERR_SOCKET`, ...) or `undefined`. */
  code: string | undefined;
  /** A short phrase for messages: "connection refused", "connection reset", ... */
  reason: string;
  /** The failure is transient and the method allows a retry. */
  retryable: boolean;
  /** The request may have been applied (only ever true for POST and PATCH). */
  outcomeUnknown: boolean;
  /** The request may have reached the server (whatever the method): false only before sending. */
  reachedServer: boolean;
}

const REASONS: Record<string, string> = {
  ECONNREFUSED: "connection refused",
  EAI_AGAIN: "DNS lookup failed temporarily",
  EHOSTUNREACH: "host unreachable",
  ENETUNREACH: "network unreachable",
  ENOTFOUND: "host not found",
  UND_ERR_CONNECT_TIMEOUT: "connect timeout",
  ECONNRESET: "connection reset",
  EPIPE: "connection closed while sending",
  ETIMEDOUT: "connection timed out",
  ECONNABORTED: "connection aborted",
  UND_ERR_SOCKET: "connection closed by the server",
  UND_ERR_CLOSED: "connection closed",
  UND_ERR_HEADERS_TIMEOUT: "timed out waiting for the response",
  UND_ERR_BODY_TIMEOUT: "timed out reading the response body",
  UND_ERR_RES_CONTENT_LENGTH_MISMATCH: "response body cut short",
  UND_ERR_ABORTED: "aborted",
  ABORT_ERR: "aborted",
};

/** Finds the most specific error code in an error and its `cause` chain. */
export function errorCode(err: unknown): string | undefined {
  let e: unknown = err;
  let found: string | undefined;
  for (let depth = 0; depth < 5 && typeof e === "object" && e !== null; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string") {
      // undici wraps socket errors; the inner system code (ECONNRESET) is the more telling one
      if (found === undefined || !found.startsWith("E")) found = code;
      if (code.startsWith("E")) return code;
    }
    if ((e as { name?: unknown }).name === "AbortError" && found === undefined) found = "ABORT_ERR";
    e = (e as { cause?: unknown }).cause;
  }
  return found;
}

/**
 * Classifies a transport failure for a request of the given idempotency.
 * @param aborted The caller's own signal fired: never retried.
 */
export function classifyNetworkError(err: unknown, idempotent: boolean, aborted = false): NetworkFailure {
  const code = errorCode(err);
  const reason = (code && REASONS[code]) ?? (err instanceof Error ? err.message : String(err));
  if (aborted || code === "UND_ERR_ABORTED" || code === "ABORT_ERR") {
    return { code, reason: "aborted", retryable: false, outcomeUnknown: !idempotent, reachedServer: true };
  }
  if (code !== undefined && NOT_SENT_CODES.has(code)) {
    return { code, reason, retryable: true, outcomeUnknown: false, reachedServer: false };
  }
  if (code !== undefined && MAYBE_SENT_CODES.has(code)) {
    return { code, reason, retryable: idempotent, outcomeUnknown: !idempotent, reachedServer: true };
  }
  // Unknown failure: do not retry, and assume the worst about a write.
  return { code, reason, retryable: false, outcomeUnknown: !idempotent, reachedServer: true };
}

/** Full-jitter exponential backoff for retry number `attempt` (0-based). */
export function backoffMs(
  attempt: number,
  policy: Pick<RetryPolicy, "baseDelayMs" | "maxDelayMs">,
  random = Math.random,
): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** attempt);
  return Math.floor(random() * ceiling);
}

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/** Parses `Retry-After` (delta seconds or an HTTP date) into milliseconds. */
export function retryAfterMs(headers: IncomingHttpHeaders, nowMs = Date.now()): number | undefined {
  const v = header(headers, "retry-after");
  if (v === undefined || v.trim() === "") return undefined;
  if (/^\s*\d+(\.\d+)?\s*$/.test(v)) return Math.round(Number(v) * 1000);
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, at - nowMs);
}

/**
 * The wait a 429 asks for, in milliseconds: the larger of `X-RateLimit-Reset-Seconds-Org` and
 * `X-RateLimit-Reset-Seconds-IP` when either is positive (ref admin §4: "the maximum time of the
 * last two X-RateLimit-Reset-Seconds-XXX headers"), else `Retry-After`, else `undefined`.
 */
export function rateLimitWaitMs(headers: IncomingHttpHeaders, nowMs = Date.now()): number | undefined {
  const org = Number(header(headers, "x-ratelimit-reset-seconds-org"));
  const ip = Number(header(headers, "x-ratelimit-reset-seconds-ip"));
  const seconds = Math.max(Number.isFinite(org) ? org : 0, Number.isFinite(ip) ? ip : 0);
  if (seconds > 0) return Math.round(seconds * 1000);
  return retryAfterMs(headers, nowMs);
}
