/**
 * `pulumi up` at scale with the real engine (the CLI in the e2e harness's sandboxes, each with its own
 * file backend) against the emulator: 200 flags with a definition in each of 3 environments, 800
 * resources (quick mode: 20 flags, 80 resources).
 *
 * Figures (each `up` is the CLI's `pulumi up --yes --skip-preview`, timed from spawn to exit):
 * - `up_seconds`, `up_requests`: the first `up` of the whole stack, the emulator without a rate
 *   limit and the provider's client-side limit off (`flagstack:requestsPerSecond = 100000`, far
 *   above what the run reaches), so this is what the engine and the provider can do. The engine
 *   writes its state checkpoint after every step, as it does for every user (the file backend
 *   rewrites the whole state each time).
 * - `preview_unchanged_requests` (goal 0), `preview_unchanged_seconds`: a preview of that stack.
 * - `destroy_requests_800` (goal 200: one per flag), `destroy_seconds_800`: `pulumi destroy` of
 *   that stack. Each definition is given its `Flag` resource, so it is deleted with the flag
 *   (Pulumi's `deletedWith`) and the flag's DELETE removes it (issue 18).
 * - `up_rate_limited_ratio` (goal ≤ 1.10): the same `up` (from empty again) with the emulator
 *   limited to 20 requests per second and the provider configured for it
 *   (`flagstack:requestsPerSecond = 20`), its wall time divided by (requests / 20): the floor the
 *   limit sets. `up_rate_limited_429s` counts the requests the server refused (each one retried)
 *   and `up_rate_limited_failed_resources` (goal 0) the resources that did not end up created.
 *   A `pulumi preview` runs first (see below). This run sets `PULUMI_SKIP_CHECKPOINTS=true`: with
 *   800 resources the file backend's per-step checkpoints cost more CPU than the floor itself on a
 *   small machine, and that cost does not depend on the rate limit, so it would hide what the ratio
 *   measures (how close the provider's pacing comes to the server's limit).
 *   `up_seconds_skip_checkpoints` is the unlimited up under the same setting, for comparison with
 *   `up_seconds`.
 * - Where the time above the floor goes: `up_rate_limited_first_request_seconds` (the engine's
 *   start, the program's run, the provider's start), `up_rate_limited_achieved_rps` between the
 *   first and the last request, and `up_rate_limited_pacing_ratio`, the ratio over that span alone
 *   (the SDK limiter's 2% margin below the configured rate). `up_rate_limited_closest_window_ms`
 *   is the shortest time the server saw 21 consecutive requests take (below 1,000 would be a 429).
 *
 * The preview before the rate-limited `up` is what users run before `up`, and what `up` itself
 * runs unless told to skip it. It makes no requests. It also means the `up` finds the program's
 * compiled output in ts-node's cache (keyed by the program's text), as every run after the first
 * in a project does. A program with no warm cache spends about 1.3 s more on type checking before
 * the first request.
 */

import { startEmulator } from "../emulator";
import { clients, defaultWorkspaceId, type StackSpec } from "../test/e2e/fixtures";
import { EngineStack, type RequestRecord } from "../test/e2e/harness";
import type { BenchContext } from "./run";

export const ENVIRONMENTS = ["Production", "Staging", "Development"] as const;
export const LIMIT = 20;
// The provider config takes a finite number; this one is never reached.
export const UNLIMITED = "100000";

/**
 * `flags` flags named `bench-<run>-NNN`, each with a definition in every environment (also the
 * stack of `native-engine.bench.ts`).
 */
export function spec(flags: number, run: string): StackSpec {
  const s: StackSpec = { flags: {}, definitions: {} };
  for (let i = 0; i < flags; i++) {
    const key = `f${String(i).padStart(3, "0")}`;
    s.flags![key] = {
      workspace: "Default",
      name: `bench-${run}-${key}`,
      description: `bench flag ${i}`,
      tags: ["owner:bench"],
    };
    for (const env of ENVIRONMENTS) {
      s.definitions![`${key}-${env}`] = {
        workspace: "Default",
        flag: key,
        environment: env,
        treatments: [{ name: "on", keys: [`user-${i}`] }, { name: "off" }],
        defaultTreatment: "off",
        defaultRule: [
          { treatment: "on", size: 10 },
          { treatment: "off", size: 90 },
        ],
      };
    }
  }
  return s;
}

const api = (records: RequestRecord[]) => records.filter((r) => r.api === "admin" || r.api === "platform");
const seconds = (ms: number) => Math.round(ms) / 1000;

/**
 * `pulumi up --yes --skip-preview` as a user types it: the CLI process, from spawn to exit. (The
 * Automation API's `up()` also runs `pulumi stack history` afterwards, which is not part of `up`.)
 * Returns the wall time, the API requests the emulator saw meanwhile, and the number of resources
 * the CLI's summary reports as created.
 */
export async function timedUp(
  stack: EngineStack,
): Promise<{ ms: number; requests: RequestRecord[]; created: number }> {
  const before = stack.emu.requests().length;
  const t = performance.now();
  const { stdout } = await stack.cli(["up", "--yes", "--skip-preview", "--color", "never"]);
  const ms = performance.now() - t;
  const created = Number(/\+ (\d+) created/.exec(stdout)?.[1] ?? 0);
  return { ms, requests: api(stack.emu.requests().slice(before)), created };
}

export async function run({ quick, log }: BenchContext): Promise<Record<string, number>> {
  const flags = quick ? 20 : 200;
  const resources = flags * (1 + ENVIRONMENTS.length);
  const emu = await startEmulator({ port: 0 });
  const stacks: EngineStack[] = [];
  try {
    const { admin } = clients(emu);
    await admin.environments.create(await defaultWorkspaceId(admin), {
      name: "Development",
      production: false,
    });
    // Each run declares its own flags (by name), so no run has to destroy the previous one's.
    const open = async (run: string, env: Record<string, string>, requestsPerSecond: string) => {
      const s = await EngineStack.open({
        program: "test/e2e/programs/stack",
        sharedEmulator: emu,
        env,
        config: { "flagstack:requestsPerSecond": { value: requestsPerSecond } },
      });
      stacks.push(s);
      await s.setSpec(spec(flags, run));
      return s;
    };
    const figures: Record<string, number> = {};

    // 1. Unlimited, default engine settings.
    const s = await open("a", {}, UNLIMITED);
    log(`up of ${resources} resources (${flags} flags x ${ENVIRONMENTS.length} definitions), no rate limit`);
    const up = await timedUp(s);
    figures.up_seconds = seconds(up.ms);
    figures.up_requests = up.requests.length;
    if (up.created !== resources + 1)
      throw new Error(`up created ${up.created} resources, expected ${resources + 1}`);
    log(`up: ${figures.up_seconds} s, ${figures.up_requests} requests`);

    const t = performance.now();
    const preview = await s.preview();
    figures.preview_unchanged_seconds = seconds(performance.now() - t);
    figures.preview_unchanged_requests = api(preview.requests).length;
    log(`preview: ${figures.preview_unchanged_seconds} s, ${figures.preview_unchanged_requests} requests`);

    // Destroy: each definition is given its `Flag`, so it is `deletedWith` it and the flag's
    // DELETE removes its definitions (goal: one DELETE per flag, 200 for the 800 resources).
    const destroyStart = performance.now();
    const destroyed = await s.destroy();
    figures.destroy_seconds_800 = seconds(performance.now() - destroyStart);
    figures.destroy_requests_800 = api(destroyed.requests).filter((r) => r.method === "DELETE").length;
    log(`destroy: ${figures.destroy_requests_800} DELETEs, ${figures.destroy_seconds_800} s`);

    // 2. Unlimited, checkpoints skipped: the engine's own floor for the rate-limited run below.
    const fast = await open("b", { PULUMI_SKIP_CHECKPOINTS: "true" }, UNLIMITED);
    figures.up_seconds_skip_checkpoints = seconds((await timedUp(fast)).ms);
    log(`up (checkpoints skipped): ${figures.up_seconds_skip_checkpoints} s`);

    // 3. The server limited to 20 requests per second, the provider configured for it.
    emu.setRateLimit({ requestsPerSecond: LIMIT });
    const limited = await open("c", { PULUMI_SKIP_CHECKPOINTS: "true" }, String(LIMIT));
    // `pulumi preview` first, as a user runs it before `up` (and as `up` does itself unless told to
    // skip it). It makes no requests; it runs the program once, so the `up` finds the program's
    // compiled output in ts-node's cache, as every run after the first in a project does.
    const previewed = await limited.preview();
    if (previewed.requests.length !== 0)
      throw new Error(`the preview before the rate-limited up made ${previewed.requests.length} requests`);
    log(`up under a server limit of ${LIMIT} requests/s`);
    const startedAt = Date.now();
    const slow = await timedUp(limited);
    const wall = slow.ms / 1000;
    const requests = slow.requests;
    // Where the time goes: the engine's start (program, plugins) before the first request, and the
    // rate achieved between the first and the last request.
    const first = Math.min(...requests.map((r) => r.at));
    const last = Math.max(...requests.map((r) => r.at));
    figures.up_rate_limited_first_request_seconds = seconds(first - startedAt);
    figures.up_rate_limited_achieved_rps =
      Math.round(((requests.length - 1) / ((last - first) / 1000)) * 100) / 100;
    // The same ratio over the span of the requests only: how close the provider's pacing comes to
    // the limit, without the engine's start.
    figures.up_rate_limited_pacing_ratio =
      Math.round(((last - first) / 1000 / ((requests.length - 1) / LIMIT)) * 1000) / 1000;
    // How close 21 consecutive requests came to one server window (1000 ms would be a 429): the
    // limiter sends them at least 20 intervals (1,020 ms) apart, so this shows the jitter.
    const arrivals = requests
      .filter((r) => r.status !== 429)
      .map((r) => r.at)
      .sort((a, b) => a - b);
    let closest = Number.POSITIVE_INFINITY;
    for (let j = 0; j + LIMIT < arrivals.length; j++)
      closest = Math.min(closest, arrivals[j + LIMIT]! - arrivals[j]!);
    figures.up_rate_limited_closest_window_ms = closest;
    const refused = requests.filter((r) => r.status === 429).length;
    const accepted = requests.length - refused;
    figures.up_rate_limited_seconds = Math.round(wall * 1000) / 1000;
    figures.up_rate_limited_requests = accepted;
    figures.up_rate_limited_429s = refused;
    figures.up_rate_limited_ratio = Math.round((wall / (accepted / LIMIT)) * 1000) / 1000;
    figures.up_rate_limited_failed_resources = resources + 1 - slow.created;
    log(
      `rate-limited up: ${figures.up_rate_limited_seconds} s for ${accepted} requests (floor ${accepted / LIMIT} s), ratio ${figures.up_rate_limited_ratio}, ${refused} refused; first request after ${figures.up_rate_limited_first_request_seconds} s, then ${figures.up_rate_limited_achieved_rps} requests/s`,
    );
    return figures;
  } finally {
    for (const s of stacks) await s.close();
    await emu.stop();
  }
}
