/**
 * The client-side rate limiter (`sdk/core/rate-limiter.ts`). Where time is the subject (spacing,
 * burst, window cap, pauses, throughput) the test runs on vitest's fake clock (`setTimeout` and
 * `performance.now()` faked), so each admission time is exact; a stall of the event loop is the
 * clock jumping forward, each timer due meanwhile firing once at its end.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  limiterStates,
  MAX_RATE_HEADROOM,
  RATE_HEADROOM,
  RateLimiter,
  seedLimiters,
  sharedLimiter,
} from "../../../sdk/core/rate-limiter";

const settle = (ms: number) => new Promise((r) => setTimeout(r, ms));

afterEach(() => {
  vi.useRealTimers();
});

/**
 * On the fake clock: acquires `n` times at once, runs the timers until none is left, and returns
 * when each was admitted (ms after the start), each released at once.
 */
async function admissionTimes(l: RateLimiter, n: number): Promise<number[]> {
  const t0 = performance.now();
  const times = Promise.all(
    Array.from({ length: n }, async () => {
      const w = l.acquire();
      if (w) await w;
      const at = performance.now() - t0;
      l.release();
      return at;
    }),
  );
  await vi.runAllTimersAsync();
  return times;
}

/**
 * A stall of `ms` on the fake clock: time moves on and each timer due meanwhile fires once, at its
 * end, as after a blocked event loop (fake-timers' `clock.jump`, which vitest does not wrap).
 */
const stall = (ms: number) =>
  (globalThis.setTimeout as unknown as { clock: { jump(ms: number): number } }).clock.jump(ms);

describe("RateLimiter", () => {
  it("admits the first request synchronously (no promise)", () => {
    const l = new RateLimiter({ requestsPerSecond: 10, burst: 1, maxConcurrent: 5 });
    expect(l.acquire()).toBeUndefined();
    expect(l.inFlight).toBe(1);
    l.release();
    expect(l.inFlight).toBe(0);
  });

  it("spaces admissions 1/rate apart plus the headroom, with burst 1", async () => {
    vi.useFakeTimers();
    expect(RATE_HEADROOM).toBe(0.02);
    const l = new RateLimiter({ requestsPerSecond: 40, burst: 1, maxConcurrent: 100 });
    // 25 ms * 1.02 = 25.5 ms apart, each timer set to the next whole millisecond
    expect(await admissionTimes(l, 10)).toEqual([0, 26, 51, 77, 102, 128, 153, 179, 204, 230]);
  });

  it("never admits more than `rate` in any 1.02 s window, even catching up after a stall", async () => {
    vi.useFakeTimers();
    const l = new RateLimiter({ requestsPerSecond: 50, burst: 1, maxConcurrent: 1000 });
    const t0 = performance.now();
    const times: number[] = [];
    const all = Array.from({ length: 90 }, async () => {
      const w = l.acquire();
      if (w) await w;
      times.push(performance.now() - t0);
      l.release();
    });
    // 100 ms on schedule (20.4 ms apart), then the event loop blocked for 300 ms
    await vi.advanceTimersByTimeAsync(100);
    stall(300);
    await vi.runAllTimersAsync();
    await Promise.all(all);
    expect(times.slice(0, 6)).toEqual([0, 21, 41, 62, 82, 400]);
    // catching up runs at twice the rate (10.2 ms apart, bunched within 10 ms): any 10 admissions
    // span at least 9 * 10.2 - 10 = 81.8 ms, 82 on whole-millisecond timers
    const spans = times.slice(9).map((t, i) => t - times[i]!);
    expect(Math.min(...spans)).toBe(82);
    // at most 50 in any window of 1,020 ms, and the catching up fills the window that far
    const inWindow = times.map((start) => times.filter((t) => t >= start && t < start + 1020).length);
    expect(Math.max(...inWindow)).toBe(50);
    // the stall was caught up: the 90th admission is when it is without a stall, 89 * 20.4 ms
    expect(times).toHaveLength(90);
    expect(times.at(-1)).toBe(1816);
  });

  it("lets `burst` requests through back to back, then spaces them", async () => {
    vi.useFakeTimers();
    const l = new RateLimiter({ requestsPerSecond: 20, burst: 3, maxConcurrent: 100 });
    // 50 ms * 1.02 = 51 ms apart after the burst
    expect(await admissionTimes(l, 5)).toEqual([0, 0, 0, 51, 102]);
  });

  it("with a second's budget as the burst: that many at once, then that many per 1.02 s window", async () => {
    vi.useFakeTimers();
    const l = new RateLimiter({ requestsPerSecond: 20, burst: 20, maxConcurrent: 100 });
    const times = await admissionTimes(l, 45);
    expect(times).toEqual([...Array(20).fill(0), ...Array(20).fill(1020), ...Array(5).fill(2040)]);
    // idle for a second: the next burst goes at once again
    await vi.advanceTimersByTimeAsync(1100);
    expect(await admissionTimes(l, 21)).toEqual([...Array(20).fill(0), 1020]);
  });

  it("a 429 turns bursting off: requests are spaced one interval apart from then on", async () => {
    vi.useFakeTimers();
    const l = new RateLimiter({ requestsPerSecond: 20, burst: 20, maxConcurrent: 100 });
    expect(l.burst).toBe(20);
    l.pause(100);
    expect(l.burst).toBe(1);
    await vi.advanceTimersByTimeAsync(100);
    // 50 ms * 1.04 (the margin the 429 widened) = 52 ms apart
    expect(await admissionTimes(l, 4)).toEqual([0, 52, 104, 156]);
    expect(l.state().burstOff).toBe(true);
  });

  it("a request answered later than the quickest counts in the window from admission plus the difference", async () => {
    vi.useFakeTimers();
    const l = new RateLimiter({ requestsPerSecond: 20, burst: 20, maxConcurrent: 100 });
    const admitted = Array.from({ length: 20 }, () => {
      expect(l.acquire()).toBeUndefined();
      return l.admission;
    });
    expect(admitted.map((a) => a.slot)).toEqual([...Array(20).keys()]);
    // the first left late (a cold start): answered after 30 ms, the others after 5 ms, later
    l.answered(admitted[0]!, 30);
    for (const a of admitted.slice(1)) l.answered(a, 5);
    for (let i = 0; i < 20; i++) l.release();
    // the next window opens 1,020 ms after the first request's latest arrival, 25 ms after its admission
    expect(await admissionTimes(l, 21)).toEqual([...Array(20).fill(1045), 2065]);
  });

  it("an answer to an admission whose place the ring has given to a newer one changes nothing", async () => {
    vi.useFakeTimers();
    const l = new RateLimiter({ requestsPerSecond: 2, burst: 2, maxConcurrent: 100 });
    l.acquire();
    const first = l.admission;
    l.acquire();
    await vi.advanceTimersByTimeAsync(1100);
    l.acquire();
    expect(l.admission.slot).toBe(first.slot);
    l.answered(first, 1200);
    for (let i = 0; i < 3; i++) l.release();
    // the window counts the third admission (at 1,100) as admitted: the next at 1,100 + 1,020
    expect(await admissionTimes(l, 2)).toEqual([0, 1020]);
  });

  it("a limiter seeded with another's state counts its admissions: the next burst waits out their window", async () => {
    vi.useFakeTimers();
    const before = new RateLimiter({ requestsPerSecond: 20, burst: 20, maxConcurrent: 100 });
    expect(await admissionTimes(before, 20)).toEqual(Array(20).fill(0));
    await vi.advanceTimersByTimeAsync(300);
    const state = before.state();
    expect(state.admitted).toHaveLength(20);
    expect(
      state.admitted.every((at) => Math.abs(at - (performance.timeOrigin + performance.now() - 300)) < 1),
    ).toBe(true);
    // the schedule: 20 intervals of 51 ms after the burst
    expect(Math.round(state.schedule - state.admitted[0]!)).toBe(1020);
    expect(state).toMatchObject({ pausedUntil: 0, headroom: RATE_HEADROOM, burstOff: false });
    const after = new RateLimiter({ requestsPerSecond: 20, burst: 20, maxConcurrent: 100 });
    after.seed(state);
    // 1,020 ms after the other's burst, which was 300 ms ago
    expect(await admissionTimes(after, 21)).toEqual([...Array(20).fill(720), 1740]);
  });

  it("a seed carries the other's pause, margin and bursting off; old admissions cost nothing", async () => {
    vi.useFakeTimers();
    const l = new RateLimiter({ requestsPerSecond: 20, burst: 20, maxConcurrent: 100 });
    const t = performance.timeOrigin + performance.now();
    l.seed({
      admitted: [t - 5000, t - 4000],
      pausedUntil: t + 200,
      schedule: 0,
      headroom: 0.06,
      burstOff: true,
    });
    expect([l.headroom, l.burst, l.pausedForMs]).toEqual([0.06, 1, 200]);
    // 50 ms * 1.06 = 53 ms apart, after the pause
    expect(await admissionTimes(l, 3)).toEqual([200, 253, 306]);
  });

  it("limiterStates merges an origin's limiters and leaves out those with nothing to hand on; seedLimiters seeds later ones too", async () => {
    vi.useFakeTimers();
    const origin = `http://states.test:${Math.floor(Math.random() * 60000)}`;
    const idle = `http://idle.test:${Math.floor(Math.random() * 60000)}`;
    const a = sharedLimiter(origin, { requestsPerSecond: 20, burst: 20, maxConcurrent: 100 });
    const b = sharedLimiter(origin, { requestsPerSecond: 10, burst: 10, maxConcurrent: 100 });
    const c = sharedLimiter(idle, { requestsPerSecond: 20, burst: 20, maxConcurrent: 100 });
    await admissionTimes(a, 3);
    await admissionTimes(b, 2);
    const states = limiterStates();
    expect(states[origin]?.admitted).toHaveLength(5);
    expect(states[idle]).toBeUndefined();
    const other = `http://seeded.test:${Math.floor(Math.random() * 60000)}`;
    const t = performance.timeOrigin + performance.now();
    seedLimiters({
      [other]: {
        admitted: Array(20).fill(t),
        pausedUntil: 0,
        schedule: 0,
        headroom: RATE_HEADROOM,
        burstOff: false,
      },
    });
    const d = sharedLimiter(other, { requestsPerSecond: 20, burst: 20, maxConcurrent: 100 });
    const e = sharedLimiter(other, { requestsPerSecond: 20, burst: 20, maxConcurrent: 5 });
    // the seed is in both limiters of the origin, and handed on once
    expect(limiterStates()[other]?.admitted).toEqual(Array(20).fill(t));
    expect(await admissionTimes(d, 1)).toEqual([1020]);
    for (const l of [a, b, c, d, e]) l.dispose();
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
    vi.useFakeTimers();
    const origin = `http://pause.test:${Math.floor(Math.random() * 60000)}`;
    const a = sharedLimiter(origin, { requestsPerSecond: Infinity, burst: 1, maxConcurrent: 4 });
    const b = sharedLimiter(origin, { requestsPerSecond: 100, burst: 1, maxConcurrent: 2 });
    expect(a).not.toBe(b);
    expect(sharedLimiter(origin, { requestsPerSecond: 100, burst: 1, maxConcurrent: 2 })).toBe(b);
    const t0 = performance.now();
    a.pause(150);
    expect(b.pausedForMs).toBe(150);
    const admitted: [string, number][] = [];
    const waits = [a, b].map(async (l, i) => {
      await l.acquire();
      admitted.push([i === 0 ? "a" : "b", performance.now() - t0]);
    });
    await vi.advanceTimersByTimeAsync(149);
    expect([admitted, b.pausedForMs]).toEqual([[], 1]);
    await vi.advanceTimersByTimeAsync(1);
    await Promise.all(waits);
    expect([admitted, b.pausedForMs]).toEqual([
      [
        ["a", 150],
        ["b", 150],
      ],
      0,
    ]);
    a.release();
    b.release();
  });

  it("a shorter pause never shortens a longer one", async () => {
    vi.useFakeTimers();
    const l = new RateLimiter({ requestsPerSecond: Infinity, burst: 1, maxConcurrent: 1 });
    l.pause(120);
    l.pause(10);
    expect(l.pausedForMs).toBe(120);
    expect(await admissionTimes(l, 1)).toEqual([120]);
  });

  it("a 429 outside a running pause widens the margin of every limiter of the origin, up to 10%", async () => {
    vi.useFakeTimers();
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
    await vi.advanceTimersByTimeAsync(60);
    // spacing follows the wider margin: 25 ms * 1.04 = 26 ms apart
    expect(await admissionTimes(a, 6)).toEqual([0, 26, 52, 78, 104, 130]);
    for (let i = 0; i < 4; i++) {
      a.pause(1);
      await vi.advanceTimersByTimeAsync(3);
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

  it("keeps throughput at the rate less the headroom under a large backlog", async () => {
    vi.useFakeTimers();
    const l = new RateLimiter({ requestsPerSecond: 100, burst: 1, maxConcurrent: 1000 });
    const times = await admissionTimes(l, 101);
    // 10.2 ms apart, each timer set to the next whole millisecond: 100 intervals in 1,021 ms
    expect([times[0], times[1], times[2], times[100]]).toEqual([0, 11, 21, 1021]);
    expect(times.slice(1).every((t, i) => t - times[i]! === 10 || t - times[i]! === 11)).toBe(true);
  });
});
