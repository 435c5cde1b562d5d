/**
 * Injected faults (issue 3 "Measurement and faults"): fractions of 429, 500, 503, dropped
 * connections before or after the change, added latency; a seeded PRNG replays a run; the
 * control routes are never faulted.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import type { Emulator } from "../../../emulator";
import { FaultController } from "../../../emulator/middleware/faults";
import { adminError, type Call, start } from "../helpers";

let emu: Emulator;
let call: Call;
const realSetTimeout = setTimeout;
/** Real time for the sockets while the timers are fake. */
const sleepReal = (ms: number) => new Promise((resolve) => realSetTimeout(resolve, ms));

beforeAll(async () => {
  ({ emu, call } = await start());
});
afterEach(() => {
  emu.setFaults({});
  emu.resetRequests();
});
afterAll(() => emu.stop());

const groupNames = async () => {
  emu.setFaults({});
  return (await call("GET", "/internal/api/v2/groups?limit=200")).body.objects.map(
    (g: { name: string }) => g.name,
  );
};

describe("injected faults", () => {
  it.each([
    [{ rate500: 1 }, 500, "Internal server error (injected fault)"],
    [{ rate503: 1 }, 503, "Service unavailable (injected fault)"],
  ])(
    "%j answers every API request with %i in the admin error shape, changing nothing",
    async (faults, status, message) => {
      emu.setFaults(faults);
      const r = await call("POST", "/internal/api/v2/groups", { body: { name: `g${status}` } });
      expect(r.status).toBe(status);
      expect(r.body).toEqual(adminError(status, message));
      expect(emu.requests().at(-1)).toMatchObject({
        method: "POST",
        path: "/internal/api/v2/groups",
        status,
        api: "admin",
        fault: String(status),
      });
      expect(await groupNames()).not.toContain(`g${status}`);
    },
  );

  it("answers 429 with the four X-RateLimit headers and Retry-After", async () => {
    emu.setFaults({ rate429: 1 });
    const r = await call("GET", "/internal/api/v2/workspaces");
    expect(r.status).toBe(429);
    expect(r.body).toEqual(adminError(429, "Too many requests (injected fault)"));
    expect(
      Object.fromEntries([...r.headers].filter(([k]) => k.startsWith("x-ratelimit") || k === "retry-after")),
    ).toEqual({
      "retry-after": "1",
      "x-ratelimit-remaining-org": "0",
      "x-ratelimit-remaining-ip": "0",
      "x-ratelimit-reset-seconds-org": "1",
      "x-ratelimit-reset-seconds-ip": "1",
    });
  });

  it("drops the connection without a response before the change (nothing happens)", async () => {
    emu.setFaults({ dropRate: 1 });
    await expect(call("POST", "/internal/api/v2/groups", { body: { name: "dropped" } })).rejects.toThrow(
      "fetch failed",
    );
    expect(emu.requests().at(-1)).toMatchObject({ status: 0, fault: "drop" });
    expect(await groupNames()).not.toContain("dropped");
  });

  it("drops the connection after the change took effect (the outcome is unknown to the client)", async () => {
    emu.setFaults({ dropAfterRate: 1 });
    await expect(call("POST", "/internal/api/v2/groups", { body: { name: "applied" } })).rejects.toThrow(
      "fetch failed",
    );
    expect(emu.requests().at(-1)).toMatchObject({ status: 0, fault: "drop-after" });
    expect(await groupNames()).toContain("applied");
  });

  it("adds latency: the answer comes when latencyMs have passed, not a millisecond before", async () => {
    // The emulator's wait is a setTimeout: faked, so the test moves its clock; the sockets stay real.
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    try {
      emu.setFaults({ latencyMs: 120 });
      emu.resetRequests();
      const decide = vi.spyOn(FaultController.prototype, "decide");
      let answered = false;
      const reply = call("GET", "/internal/api/v2/workspaces").then((r) => {
        answered = true;
        return r;
      });
      // The request reaches the emulator, which decides its faults and sets the latency's timer.
      for (let i = 0; i < 500 && decide.mock.calls.length === 0; i++) await sleepReal(10);
      expect(decide.mock.calls).toEqual([["admin"]]);
      await vi.advanceTimersByTimeAsync(119);
      await sleepReal(100);
      expect([answered, emu.requests()]).toEqual([false, []]);
      await vi.advanceTimersByTimeAsync(1);
      for (let i = 0; i < 500 && !answered; i++) await sleepReal(10);
      expect(answered).toBe(true);
      expect((await reply).status).toBe(200);
      expect(emu.requests()).toMatchObject([
        { method: "GET", path: "/internal/api/v2/workspaces", status: 200 },
      ]);
    } finally {
      vi.useRealTimers();
      vi.restoreAllMocks();
    }
  });

  it("never touches the control routes", async () => {
    emu.setFaults({ rate500: 1 });
    expect((await call("GET", "/_emulator/health", { key: null })).body).toEqual({ status: "ok" });
  });

  it("can be limited to some APIs", async () => {
    emu.setFaults({ rate500: 1, apis: ["events"] });
    expect((await call("GET", "/internal/api/v2/workspaces")).status).toBe(200);
    const ev = [{ eventTypeId: "e", trafficTypeName: "user", key: "k", timestamp: 1 }];
    expect((await call("POST", "/api/events/bulk", { key: emu.sdkKey, body: ev })).status).toBe(500);
    expect(emu.eventCount()).toBe(0);
  });

  it("uses the platform's ErrorDTO shape on platform routes", async () => {
    emu.setFaults({ rate500: 1 });
    const r = await call("GET", `/ng/api/projects?accountIdentifier=${emu.accountId}`, {
      key: null,
      headers: { "x-api-key": emu.platformKey },
    });
    expect(r.status).toBe(500);
    expect(r.body).toMatchObject({
      status: "ERROR",
      code: "UNKNOWN_ERROR",
      message: "Internal server error (injected fault)",
    });
  });

  it("replays the same faults for the same seed", async () => {
    const run = async (seed: number) => {
      emu.setFaults({ rate500: 0.3, rate429: 0.2, seed });
      const out: number[] = [];
      for (let i = 0; i < 40; i++) out.push((await call("GET", "/internal/api/v2/workspaces")).status);
      return out;
    };
    const a = await run(42);
    expect(await run(42)).toEqual(a);
    expect(new Set(a)).toEqual(new Set([200, 429, 500]));
    expect(await run(43)).not.toEqual(a);
    expect(emu.setFaults({ rate500: 0.1 }).seed).toEqual(expect.any(Number));
  });

  it.each([
    [{ rate429: 0.5, rate500: -1 }, "rate500: rate500 must be between 0 and 1"],
    [{ rate500: 0.6, rate503: 0.6 }, "body: rate429 + rate500 + rate503 + dropRate must not exceed 1"],
    [{ latencyMs: -1 }, "latencyMs: latencyMs must not be negative"],
    [{ explode: true }, 'body: Unrecognized key: "explode"'],
  ])("PUT /_emulator/faults refuses %j", async (body, message) => {
    const r = await call("PUT", "/_emulator/faults", { key: null, body });
    expect(r.status).toBe(400);
    expect(r.body).toEqual(adminError(400, message));
  });

  it("PUT /_emulator/faults sets the faults and returns them with the seed", async () => {
    const r = await call("PUT", "/_emulator/faults", { key: null, body: { rate503: 0.5, seed: 7 } });
    expect(r.body).toEqual({
      rate429: 0,
      rate500: 0,
      rate503: 0.5,
      dropRate: 0,
      dropAfterRate: 0,
      latencyMs: 0,
      seed: 7,
    });
    expect((await call("GET", "/_emulator/faults", { key: null })).body).toEqual(r.body);
  });
});

describe("FaultController", () => {
  it("draws faults in the configured proportions", () => {
    const f = new FaultController({ rate429: 0.1, rate500: 0.2, dropRate: 0.05, seed: 1 });
    const counts: Record<string, number> = {};
    for (let i = 0; i < 20_000; i++) {
      const k = f.decide("admin").before ?? "none";
      counts[k] = (counts[k] ?? 0) + 1;
    }
    expect((counts["429"] ?? 0) / 20_000).toBeCloseTo(0.1, 1);
    expect((counts["500"] ?? 0) / 20_000).toBeCloseTo(0.2, 1);
    expect((counts.drop ?? 0) / 20_000).toBeCloseTo(0.05, 1);
    expect(counts["503"]).toBeUndefined();
  });
});
