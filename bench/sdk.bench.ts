/**
 * SDK benchmarks, both measured against a local emulator in the same run:
 *
 * - `sdk_overhead_ratio`: median time of `admin.flags.get()` (route expansion, limiter admission,
 *   request, body read, JSON parse, zod validation) divided by the median time of a raw undici
 *   request to the same route whose body is read and JSON-parsed. Calls alternate between the two
 *   so both see the same machine load. Goal: at most 1.2. The client's rate limit is off here
 *   (`requestsPerSecond: Infinity`) so the figure measures the SDK's own work, not deliberate
 *   waiting; the limiter's admission code still runs on every call.
 * - `sdk_limit_utilization`: calls per second achieved by a burst of calls through the client-side
 *   limiter set to space every call (`burst: 1`), divided by the configured limit. Goal: at least
 *   0.9. The limiter spaces calls 2% wider than configured on purpose (see `RATE_HEADROOM`), so
 *   0.98 is the ceiling.
 * - `sdk_limit_burst_calls_per_second` and `sdk_limit_burst_peak_per_second`: the same calls with
 *   the default burst (a second's budget at once, then at most the limit in any 1.02 s): the rate
 *   achieved (above the limit: the first second's budget goes at once), and the most requests the
 *   server received in any 1,000 ms, which must not exceed the limit.
 * @module
 */
import { Pool } from "undici";
import { busiestSecond, startEmulator } from "../emulator";
import { AdminClient } from "../sdk/admin/client";
import { closeSharedPools } from "../sdk/core/pool";
import type { BenchContext } from "./run";

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

/** Runs both benchmarks; see the module comment. */
export async function run({ quick, log }: BenchContext): Promise<Record<string, number>> {
  const emu = await startEmulator({ port: 0, requestLogLimit: 2000 });
  const raw = new Pool(emu.url, { connections: 8 });
  try {
    const admin = new AdminClient({
      baseUrl: emu.url,
      apiKey: emu.adminKey,
      requestsPerSecond: Infinity,
      maxRetries: 0,
    });
    const ws = (await admin.workspaces.getByName("Default"))!;
    await admin.flags.create(ws.id, "user", { name: "bench-flag", description: "overhead" });
    const path = `/internal/api/v2/splits/ws/${ws.id}/bench-flag`;
    const headers = { authorization: `Bearer ${emu.adminKey}`, accept: "application/json" };

    const rawCall = async () => {
      const res = await raw.request({ path, method: "GET", headers });
      const body = await res.body.json();
      if (res.statusCode !== 200) throw new Error(`raw call: ${res.statusCode}`);
      return body;
    };
    const sdkCall = () => admin.flags.get(ws.id, "bench-flag");

    const rounds = quick ? 1500 : 6000;
    const warmup = quick ? 300 : 1000;
    for (let i = 0; i < warmup; i++) {
      await rawCall();
      await sdkCall();
    }
    const tRaw: number[] = [];
    const tSdk: number[] = [];
    for (let i = 0; i < rounds; i++) {
      // alternate which goes first, so neither always runs on a warmer connection or cache
      const order = i % 2 ? ([rawCall, sdkCall] as const) : ([sdkCall, rawCall] as const);
      for (const fn of order) {
        const t0 = performance.now();
        await fn();
        (fn === rawCall ? tRaw : tSdk).push(performance.now() - t0);
      }
    }
    const rawMedian = median(tRaw);
    const sdkMedian = median(tSdk);
    const ratio = sdkMedian / rawMedian;
    log(
      `overhead: sdk median ${(sdkMedian * 1000).toFixed(1)} µs, raw ${(rawMedian * 1000).toFixed(1)} µs, ratio ${ratio.toFixed(3)}`,
    );

    // Utilization: a burst far larger than the limit, completions timed, once spaced and once with
    // the default burst.
    const limit = quick ? 100 : 200;
    const calls = quick ? 300 : 1000;
    const through = async (baseUrl: string, burst?: number) => {
      const limited = new AdminClient({
        baseUrl,
        apiKey: emu.adminKey,
        requestsPerSecond: limit,
        maxConcurrent: 50,
        ...(burst === undefined ? {} : { burst }),
      });
      emu.resetRequests();
      const done: number[] = [];
      await Promise.all(
        Array.from({ length: calls }, () =>
          limited.flags.get(ws.id, "bench-flag").then(() => {
            done.push(performance.now());
          }),
        ),
      );
      done.sort((a, b) => a - b);
      return {
        achieved: (done.length - 1) / ((done.at(-1)! - done[0]!) / 1000),
        peak: busiestSecond(emu.requests()),
      };
    };
    const spaced = await through(emu.url, 1);
    const utilization = spaced.achieved / limit;
    // Another burst setting is another limiter of the same base URL (its own window, from empty).
    const bursting = await through(emu.url);
    log(
      `limiter: ${spaced.achieved.toFixed(1)} calls/s at a limit of ${limit}/s spaced, utilization ${utilization.toFixed(3)}; with the default burst ${bursting.achieved.toFixed(1)} calls/s, at most ${bursting.peak} requests in any second at the server (spaced: ${spaced.peak})`,
    );
    if (bursting.peak > limit)
      throw new Error(
        `limiter: ${bursting.peak} requests reached the server within one second (limit ${limit})`,
      );

    return {
      sdk_overhead_ratio: ratio,
      sdk_call_median_us: sdkMedian * 1000,
      sdk_raw_call_median_us: rawMedian * 1000,
      sdk_limit_utilization: utilization,
      sdk_limited_calls_per_second: spaced.achieved,
      sdk_limit_burst_calls_per_second: bursting.achieved,
      sdk_limit_burst_peak_per_second: bursting.peak,
    };
  } finally {
    await raw.close();
    await emu.stop();
    await closeSharedPools();
  }
}
