import { describe, expect, it } from "vitest";
import {
  backoffMs,
  classifyNetworkError,
  errorCode,
  RETRY_DEFAULTS,
  rateLimitWaitMs,
  retryAfterMs,
} from "../../../sdk/core/retry";

describe("rateLimitWaitMs", () => {
  it.each([
    [{ "x-ratelimit-reset-seconds-org": "3", "x-ratelimit-reset-seconds-ip": "7" }, 7000],
    [{ "x-ratelimit-reset-seconds-org": "9", "x-ratelimit-reset-seconds-ip": "2" }, 9000],
    [{ "x-ratelimit-reset-seconds-org": "0", "x-ratelimit-reset-seconds-ip": "1" }, 1000],
    [{ "x-ratelimit-reset-seconds-org": "0", "x-ratelimit-reset-seconds-ip": "0", "retry-after": "4" }, 4000],
    [{ "x-ratelimit-reset-seconds-org": "junk", "retry-after": "2" }, 2000],
    [{ "retry-after": "Thu, 01 Jan 2026 00:00:05 GMT" }, 5000],
    [{}, undefined],
  ])("%j → %s ms", (headers, want) => {
    expect(rateLimitWaitMs(headers, Date.parse("Thu, 01 Jan 2026 00:00:00 GMT"))).toBe(want);
  });
});

describe("retryAfterMs", () => {
  it.each([
    ["120", 120_000],
    ["0.5", 500],
    ["Thu, 01 Jan 2026 00:00:00 GMT", 0],
    ["soon", undefined],
    ["", undefined],
  ])("%s → %s", (v, want) => {
    expect(retryAfterMs({ "retry-after": v }, Date.parse("Thu, 01 Jan 2026 00:00:10 GMT"))).toBe(want);
  });
});

describe("backoffMs", () => {
  it("is full jitter below an exponential ceiling capped at maxDelayMs", () => {
    const p = { baseDelayMs: 100, maxDelayMs: 1000 };
    expect([0, 1, 2, 3, 4, 5].map((a) => backoffMs(a, p, () => 0.999999))).toEqual([
      99, 199, 399, 799, 999, 999,
    ]);
    expect(backoffMs(3, p, () => 0)).toBe(0);
  });
});

describe("classifyNetworkError", () => {
  const sys = (code: string) => Object.assign(new Error(code), { code });
  it.each([
    ["ECONNREFUSED", false, true, false],
    ["ECONNREFUSED", true, true, false],
    ["UND_ERR_CONNECT_TIMEOUT", false, true, false],
    ["EAI_AGAIN", false, true, false],
    ["ECONNRESET", true, true, false],
    ["ECONNRESET", false, false, true],
    ["UND_ERR_SOCKET", false, false, true],
    ["UND_ERR_HEADERS_TIMEOUT", true, true, false],
    ["UND_ERR_HEADERS_TIMEOUT", false, false, true],
    ["UND_ERR_BODY_TIMEOUT", false, false, true],
    ["ENOTFOUND", true, false, false],
    ["SOMETHING_ELSE", false, false, true],
  ])("%s (idempotent %s) → retryable %s, outcomeUnknown %s", (code, idempotent, retryable, unknown) => {
    expect(classifyNetworkError(sys(code), idempotent)).toMatchObject({
      code,
      retryable,
      outcomeUnknown: unknown,
    });
  });

  it("never retries an abort", () => {
    expect(classifyNetworkError(sys("ECONNRESET"), true, true)).toMatchObject({
      reason: "aborted",
      retryable: false,
    });
  });

  it("finds the system code inside undici's wrapper", () => {
    const wrapped = Object.assign(new Error("other side closed"), {
      code: "UND_ERR_SOCKET",
      cause: sys("ECONNRESET"),
    });
    expect(errorCode(wrapped)).toBe("ECONNRESET");
  });
});

describe("RETRY_DEFAULTS", () => {
  it("retries 429/500/502/503/504, only GET/PUT/DELETE are idempotent, 429 is safe for every method", () => {
    expect(RETRY_DEFAULTS).toEqual({
      maxRetries: 5,
      budgetMs: 120_000,
      baseDelayMs: 250,
      maxDelayMs: 20_000,
      retryStatuses: [429, 500, 502, 503, 504],
      refusedStatuses: [429],
      idempotentMethods: ["GET", "PUT", "DELETE"],
    });
  });
});
