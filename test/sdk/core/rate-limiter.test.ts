import { describe, expect, it } from "vitest";
import { MAX_RATE_HEADROOM, RATE_HEADROOM, RateLimiter, sharedLimiter } from "../../../sdk/core/rate-limiter";

const settle = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Acquires `n` times at once and records when each was admitted (ms after start), releasing at once. */
async function admissionTimes(l: RateLimiter, n: number): Promise<number[]> {
  const t0 = performance.now();
  return Promise.all(
    Array.from({ length: n }, async () => {
      const w = l.acquire();
      if (w) await w;
      const at = performance.now() - t0;
      l.release();
      return at;
    }),
  );
}

describe("RateLimiter", () => {
  it("admits the first request synchronously (no promise)", () => {
    const l = new RateLimiter({ requestsPerSecond: 10, burst: 1, maxConcurrent: 5 });
    expect(l.acquire()).toBeUndefined();
    expect(l.inFlight).toBe(1);
    l.release();
    expect(l.inFlight).toBe(0);
  });

  it("spaces admissions 1/rate apart plus the headroom, with burst 1", async () => {
    expect(RATE_HEADROOM).toBe(0.02);
    const l = new RateLimiter({ requestsPerSecond: 40, burst: 1, maxConcurrent: 100 });
    const times = await admissionTimes(l, 10);
    const gaps = times.slice(1).map((t, i) => t - times[i]!);
    // 25 ms * 1.02; a late timer is caught up at twice the rate (bunched within 10 ms at most)
    expect(gaps.filter((g) => g < 25.5 / 2 - 0.5).length).toBeLessThanOrEqual(2);
    expect(times[9]!).toBeGreaterThanOrEqual(9 * 25.5 - 1);
    expect(times[9]!).toBeLessThan(9 * 25.5 + 150);
  });

  it("never admits more than `rate` in any 1.02 s window, even catching up after a stall", async () => {
    const l = new RateLimiter({ requestsPerSecond: 50, burst: 1, maxConcurrent: 1000 });
    const t0 = performance.now();
    const times: number[] = [];
    const all = Array.from({ length: 90 }, async () => {
      const w = l.acquire();
      if (w) await w;
      times.push(performance.now() - t0);
      l.release();
    });
    // block the event loop for 300 ms a little after the start: the schedule falls behind
    await settle(100);
    const stallEnd = performance.now() + 300;
    while (performance.now() < stallEnd) {
      // busy
    }
    await Promise.all(all);
    // Times are taken when each waiter resumes, a little after its admission (later still under
    // load), so the window checked is 10 ms shorter than the limiter's 1,020 ms.
    for (const start of times) {
      expect(times.filter((t) => t >= start && t < start + 1010).length).toBeLessThanOrEqual(50);
    }
    // catching up runs at twice the rate: any 10 admissions span at least 9 * 10.2 ms - 10 ms of slack
    for (let i = 0; i + 9 < times.length; i++)
      expect(times[i + 9]! - times[i]!).toBeGreaterThanOrEqual(9 * 10.2 - 10 - 1);
    // the stall was caught up: 90 admissions at 50/s (minus headroom) take about 1.85 s, not 2.15 s
    expect(times.at(-1)!).toBeLessThan(89 * 20.4 + 150);
  });

  it("lets `burst` requests through back to back, then spaces them", async () => {
    const l = new RateLimiter({ requestsPerSecond: 20, burst: 3, maxConcurrent: 100 });
    const times = await admissionTimes(l, 5);
    expect(times.slice(0, 3).every((t) => t < 10)).toBe(true);
    expect(times[3]!).toBeGreaterThanOrEqual(51 - 1);
  });

  it("caps requests in flight; a release lets the next one in", async () => {
    const l = new RateLimiter({ requestsPerSecond: Infinity, burst: 1, maxConcurrent: 2 });
    expect(l.acquire()).toBeUndefined();
    expect(l.acquire()).toBeUndefined();
    let third = false;
    const p = l.acquire()!.then(() => {
      third = true;
    });
    await settle(20);
    expect(third).toBe(false);
    expect(l.queued).toBe(1);
    l.release();
    await p;
    expect(third).toBe(true);
    expect(l.inFlight).toBe(2);
  });

  it("admits a priority request (a retry) before those already queued", async () => {
    const l = new RateLimiter({ requestsPerSecond: Infinity, burst: 1, maxConcurrent: 1 });
    expect(l.acquire()).toBeUndefined();
    const order: string[] = [];
    const a = l.acquire()!.then(() => order.push("a"));
    const b = l.acquire()!.then(() => order.push("b"));
    const retry = l.acquire(true)!.then(() => order.push("retry"));
    l.release();
    await retry;
    l.release();
    await a;
    l.release();
    await b;
    expect(order).toEqual(["retry", "a", "b"]);
  });

  it("pause() holds back queued and new requests of every limiter of the origin", async () => {
    const origin = `http://pause.test:${Math.floor(Math.random() * 60000)}`;
    const a = sharedLimiter(origin, { requestsPerSecond: Infinity, burst: 1, maxConcurrent: 4 });
    const b = sharedLimiter(origin, { requestsPerSecond: 100, burst: 1, maxConcurrent: 2 });
    expect(a).not.toBe(b);
    expect(sharedLimiter(origin, { requestsPerSecond: 100, burst: 1, maxConcurrent: 2 })).toBe(b);
    const t0 = performance.now();
    a.pause(150);
    expect(b.pausedForMs).toBeGreaterThan(100);
    const [ta, tb] = await Promise.all([
      (async () => {
        await a.acquire();
        return performance.now() - t0;
      })(),
      (async () => {
        await b.acquire();
        return performance.now() - t0;
      })(),
    ]);
    expect(ta).toBeGreaterThanOrEqual(148);
    expect(tb).toBeGreaterThanOrEqual(148);
    a.release();
    b.release();
  });

  it("a shorter pause never shortens a longer one", async () => {
    const l = new RateLimiter({ requestsPerSecond: Infinity, burst: 1, maxConcurrent: 1 });
    l.pause(120);
    l.pause(10);
    const t0 = performance.now();
    await l.acquire();
    expect(performance.now() - t0).toBeGreaterThanOrEqual(110);
    l.release();
  });

  it("a 429 outside a running pause widens the margin of every limiter of the origin, up to 10%", async () => {
    const origin = `http://widen.test:${Math.floor(Math.random() * 60000)}`;
    const a = sharedLimiter(origin, { requestsPerSecond: 40, burst: 1, maxConcurrent: 100 });
    const b = sharedLimiter(origin, { requestsPerSecond: 40, burst: 1, maxConcurrent: 5 });
    expect([a.headroom, b.headroom]).toEqual([RATE_HEADROOM, RATE_HEADROOM]);
    a.pause(30);
    expect([a.headroom, b.headroom]).toEqual([0.04, 0.04]);
    // more 429s of the same burst, while the pause runs: no further widening
    a.pause(40);
    b.pause(50);
    expect(a.headroom).toBe(0.04);
    await settle(60);
    // spacing follows the wider margin: 25 ms * 1.04
    const times = await admissionTimes(a, 6);
    expect(times[5]!).toBeGreaterThanOrEqual(5 * 26 - 1);
    for (let i = 0; i < 4; i++) {
      a.pause(1);
      await settle(3);
    }
    expect(a.headroom).toBe(MAX_RATE_HEADROOM);
    expect(MAX_RATE_HEADROOM).toBe(0.1);
    a.dispose();
    b.dispose();
  });

  it("an aborted wait rejects with the signal's reason and frees its place", async () => {
    const l = new RateLimiter({ requestsPerSecond: Infinity, burst: 1, maxConcurrent: 1 });
    expect(l.acquire()).toBeUndefined();
    const ac = new AbortController();
    const waiting = l.acquire(false, ac.signal)!;
    const next = l.acquire()!;
    ac.abort(new Error("stop"));
    await expect(waiting).rejects.toThrow("stop");
    l.release();
    await next;
    expect(l.inFlight).toBe(1);
    expect(l.queued).toBe(0);
  });

  it("keeps throughput close to the rate under a large backlog", async () => {
    const l = new RateLimiter({ requestsPerSecond: 100, burst: 1, maxConcurrent: 1000 });
    const times = await admissionTimes(l, 101);
    const rate = 100 / ((times[100]! - times[0]!) / 1000);
    // 95.2 at best (the headroom); a loaded machine's late timers cost a little more
    expect(rate).toBeGreaterThan(75);
    expect(rate).toBeLessThanOrEqual(100 / (1 + RATE_HEADROOM) + 0.5);
  });
});
