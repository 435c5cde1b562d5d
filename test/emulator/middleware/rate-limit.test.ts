/**
 * Server-side rate limit (issue 3; ref admin §4 "Rate limiting"): 429 with X-RateLimit-Remaining-Org,
 * -Remaining-IP, -Reset-Seconds-Org, -Reset-Seconds-IP and Retry-After; SDK endpoints exempt.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import type { Emulator } from "../../../emulator";
import { RateLimiter } from "../../../emulator/middleware/rate-limit";
import { adminError, type Call, start } from "../helpers";

let emu: Emulator;
let call: Call;

beforeAll(async () => {
  ({ emu, call } = await start({ rateLimit: { requestsPerSecond: 4 } }));
});
afterEach(() => {
  vi.useRealTimers();
  emu.setRateLimit({ requestsPerSecond: 4 });
});
afterAll(() => emu.stop());

const limitHeaders = (h: Headers) =>
  Object.fromEntries([...h].filter(([k]) => k.startsWith("x-ratelimit") || k === "retry-after"));

describe("rate limit", () => {
  it("lets requestsPerSecond through per second, then answers 429 with the headers until the second ends", async () => {
    // The window is the emulator's clock (Date.now()): faked, so the second ends exactly where the test says.
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(new Date("2026-01-01T00:00:00.000Z"));
    emu.setRateLimit({ requestsPerSecond: 4 });
    const replies = [];
    for (let i = 0; i < 6; i++) replies.push(await call("GET", "/internal/api/v2/workspaces"));
    expect(replies.map((r) => r.status)).toEqual([200, 200, 200, 200, 429, 429]);
    expect(replies.slice(0, 4).map((r) => r.headers.get("x-ratelimit-remaining-org"))).toEqual([
      "3",
      "2",
      "1",
      "0",
    ]);
    const refused = replies[4];
    expect(refused?.body).toEqual(adminError(429, "Rate limit exceeded, retry later"));
    expect(limitHeaders(refused?.headers ?? new Headers())).toEqual({
      "retry-after": "1",
      "x-ratelimit-remaining-org": "0",
      "x-ratelimit-remaining-ip": "0",
      "x-ratelimit-reset-seconds-org": "1",
      "x-ratelimit-reset-seconds-ip": "1",
    });
    expect(emu.requests().at(-1)).toMatchObject({ status: 429, fault: "rate-limit" });
    vi.setSystemTime(new Date("2026-01-01T00:00:00.999Z"));
    expect((await call("GET", "/internal/api/v2/workspaces")).status).toBe(429);
    vi.setSystemTime(new Date("2026-01-01T00:00:01.000Z"));
    const next = await call("GET", "/internal/api/v2/workspaces");
    expect([next.status, next.headers.get("x-ratelimit-remaining-org")]).toEqual([200, "3"]);
  });

  it("counts the event import but not the SDK endpoints or the control routes", async () => {
    emu.setRateLimit({ requestsPerSecond: 1 });
    expect((await call("GET", "/internal/api/v2/workspaces")).status).toBe(200);
    for (let i = 0; i < 5; i++)
      expect((await call("GET", "/api/splitChanges?s=1.3&since=-1", { key: emu.sdkKey })).status).toBe(200);
    expect((await call("GET", "/_emulator/requests", { key: null })).status).toBe(200);
    const ev = [{ eventTypeId: "e", trafficTypeName: "user", key: "k", timestamp: 1 }];
    expect((await call("POST", "/api/events/bulk", { key: emu.sdkKey, body: ev })).status).toBe(429);
  });

  it("answers the platform API with a bare 429 without the headers (ref platform §9)", async () => {
    emu.setRateLimit({ requestsPerSecond: 1 });
    const h = { "x-api-key": emu.platformKey };
    await call("GET", `/ng/api/projects?accountIdentifier=${emu.accountId}`, { key: null, headers: h });
    const r = await call("GET", `/ng/api/projects?accountIdentifier=${emu.accountId}`, {
      key: null,
      headers: h,
    });
    expect(r.status).toBe(429);
    expect(r.text).toBe("Too Many Requests");
    expect(limitHeaders(r.headers)).toEqual({});
  });

  it("is set, read and removed through /_emulator/rate-limit", async () => {
    expect(
      (await call("PUT", "/_emulator/rate-limit", { key: null, body: { requestsPerSecond: 2 } })).body,
    ).toEqual({ requestsPerSecond: 2 });
    expect((await call("GET", "/_emulator/rate-limit", { key: null })).body).toEqual({
      requestsPerSecond: 2,
    });
    expect((await call("PUT", "/_emulator/rate-limit", { key: null, body: "null" })).text).toBe("null");
    for (let i = 0; i < 10; i++) expect((await call("GET", "/internal/api/v2/workspaces")).status).toBe(200);
    const bad = await call("PUT", "/_emulator/rate-limit", { key: null, body: { requestsPerSecond: 0 } });
    expect(bad.body).toEqual(adminError(400, "requestsPerSecond: requestsPerSecond must be at least 1"));
  });
});

describe("RateLimiter", () => {
  it("counts in one-second windows from the first request and reports the seconds left", () => {
    const l = new RateLimiter({ requestsPerSecond: 2 });
    expect(l.take(10_000)).toEqual({ allowed: true, remaining: 1, resetSeconds: 1 });
    expect(l.take(10_100)).toEqual({ allowed: true, remaining: 0, resetSeconds: 1 });
    expect(l.take(10_999)).toEqual({ allowed: false, remaining: 0, resetSeconds: 1 });
    expect(l.take(11_000)).toEqual({ allowed: true, remaining: 1, resetSeconds: 1 });
    expect(new RateLimiter(null).take()).toBeUndefined();
  });
});
