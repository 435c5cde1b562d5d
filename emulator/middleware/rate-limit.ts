/**
 * A server-side rate limit: at most `requestsPerSecond` requests per one-second window for the
 * admin, events and platform APIs; the SDK endpoints are exempt (ref admin §4: the limit "does not
 * apply to SDK endpoints"). A refused request gets 429 with `X-RateLimit-Remaining-Org`,
 * `-Remaining-IP`, `-Reset-Seconds-Org`, `-Reset-Seconds-IP` and `Retry-After`; accepted ones carry
 * the two `Remaining` headers. The emulator has one client address, so the org and IP budgets are
 * the same counter.
 * @module
 */
import type { MiddlewareHandler } from "hono";
import { z } from "zod";
import type { AppEnv } from "../context";
import { tooManyRequests } from "./faults";

/** Rate-limit settings (`emu.setRateLimit()`, `PUT /_emulator/rate-limit`, `--rate-limit N`). */
export const RateLimitConfig = z
  .object({
    requestsPerSecond: z
      .number({ error: "requestsPerSecond must be a number" })
      .int("requestsPerSecond must be a whole number")
      .min(1, "requestsPerSecond must be at least 1"),
  })
  .strict();
/** Rate-limit settings. */
export type RateLimitConfig = z.infer<typeof RateLimitConfig>;

/** Counts requests in fixed one-second windows. */
export class RateLimiter {
  private config: RateLimitConfig | null = null;
  private windowStart = 0;
  private count = 0;

  constructor(config: RateLimitConfig | null = null) {
    this.set(config);
  }

  /** Replaces the limit (`null` removes it) and starts a new window. Throws a ZodError on bad input. */
  set(config: RateLimitConfig | null): RateLimitConfig | null {
    this.config = config === null ? null : RateLimitConfig.parse(config);
    this.windowStart = 0;
    this.count = 0;
    return this.config;
  }

  get(): RateLimitConfig | null {
    return this.config;
  }

  /** Takes one request from the budget of the current window. */
  take(now = Date.now()): { allowed: boolean; remaining: number; resetSeconds: number } | undefined {
    if (!this.config) return undefined;
    if (now - this.windowStart >= 1000) {
      this.windowStart = now;
      this.count = 0;
    }
    const limit = this.config.requestsPerSecond;
    const resetSeconds = Math.max(1, Math.ceil((this.windowStart + 1000 - now) / 1000));
    if (this.count >= limit) return { allowed: false, remaining: 0, resetSeconds };
    this.count++;
    return { allowed: true, remaining: limit - this.count, resetSeconds };
  }
}

/** Applies the limit to the admin, events and platform APIs. */
export function rateLimit(limiter: RateLimiter): MiddlewareHandler<AppEnv> {
  return async function rateLimitMiddleware(c, next) {
    const api = c.get("api");
    if (api === "sdk" || api === "emulator") return next();
    const verdict = limiter.take();
    if (!verdict) return next();
    if (!verdict.allowed) {
      c.set("fault", "rate-limit");
      return tooManyRequests(c, verdict.resetSeconds, "Rate limit exceeded, retry later");
    }
    await next();
    if (api !== "platform") {
      c.res.headers.set("X-RateLimit-Remaining-Org", String(verdict.remaining));
      c.res.headers.set("X-RateLimit-Remaining-IP", String(verdict.remaining));
    }
  };
}
