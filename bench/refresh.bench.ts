/**
 * Refresh at scale with the real engine (issue 25): the 800-resource stack of `./up.bench.ts`
 * (200 flags, each with a definition in 3 environments; quick mode: 20 flags, 80 resources),
 * refreshed through the CLI as a user types it, timed from spawn to exit.
 *
 * Figures:
 * - `refresh_800_requests` (goal ≤ 40): the API requests of `pulumi refresh --yes`, both its
 *   preview phase and its apply phase (each a provider process of its own, each reading every
 *   resource).
 * - `refresh_800_seconds_unlimited`: that refresh with no server limit and the provider's
 *   client-side limit off; `refresh_800_seconds`: the same refresh with the emulator limited to
 *   20 requests per second and the provider configured for it, in the same run;
 *   `refresh_800_limit_ratio` (goal ≤ 1.2) = limited / unlimited: whether the service's limit
 *   sets the time.
 * - `preview_refresh_800_requests`, `preview_refresh_800_seconds_unlimited`,
 *   `preview_refresh_800_seconds`, `preview_refresh_800_limit_ratio`: the same for
 *   `pulumi preview --refresh` (one phase).
 *
 * Each figure is the fastest of {@link ROUNDS} rounds (each round: the two unlimited runs, then the
 * two limited ones), so that the machine's other load, which falls on both sides of a ratio alike,
 * counts as little as it can.
 *
 * The stack is made once by an unlimited `up` with `PULUMI_SKIP_CHECKPOINTS=true` (setup, not
 * measured); the refreshes run with the engine's default settings, nothing changed outside. Before
 * the limited runs an `up` records the provider's new rate (`flagstack:requestsPerSecond = 20`):
 * a refresh runs the provider with the config the state holds.
 */

import { startEmulator } from "../emulator";
import { clients, defaultWorkspaceId } from "../test/e2e/fixtures";
import { EngineStack, type RequestRecord } from "../test/e2e/harness";
import type { BenchContext } from "./run";
import { ENVIRONMENTS, LIMIT, spec, timedUp, UNLIMITED } from "./up.bench";

/** Rounds of the four runs; each figure is the fastest of its rounds. */
const ROUNDS = 2;

const api = (records: RequestRecord[]) => records.filter((r) => r.api === "admin" || r.api === "platform");
const seconds = (ms: number) => Math.round(ms) / 1000;

/** Runs the CLI with `args`; returns the wall time and the API requests meanwhile. */
async function timed(
  stack: EngineStack,
  args: string[],
  log?: (msg: string) => void,
): Promise<{ ms: number; requests: RequestRecord[] }> {
  const before = stack.emu.requests().length;
  const t = performance.now();
  await stack.cli([...args, "--color", "never"]);
  const ms = performance.now() - t;
  const requests = api(stack.emu.requests().slice(before));
  // What is not a page of a list (a single read, a refused request), to see where it went.
  for (const r of requests)
    if (!/offset=/.test(r.query) || r.status !== 200)
      log?.(`  ${args[0]}: ${r.method} ${r.path}?${r.query} ${r.status}`);
  return { ms, requests };
}

export async function run({ quick, log }: BenchContext): Promise<Record<string, number>> {
  const flags = quick ? 20 : 200;
  const resources = flags * (1 + ENVIRONMENTS.length);
  const emu = await startEmulator({ port: 0 });
  let s: EngineStack | undefined;
  try {
    const { admin } = clients(emu);
    await admin.environments.create(await defaultWorkspaceId(admin), {
      name: "Development",
      production: false,
    });
    s = await EngineStack.open({
      program: "test/e2e/programs/stack",
      sharedEmulator: emu,
      config: { "flagstack:requestsPerSecond": { value: UNLIMITED } },
    });
    await s.setSpec(spec(flags, "r"));
    s.env.PULUMI_SKIP_CHECKPOINTS = "true";
    const up = await timedUp(s);
    delete s.env.PULUMI_SKIP_CHECKPOINTS;
    if (up.created !== resources + 1)
      throw new Error(`up created ${up.created} resources, expected ${resources + 1}`);
    log(`stack of ${resources} resources made`);

    const figures: Record<string, number> = {};
    const refresh = ["refresh", "--yes"];
    const previewRefresh = ["preview", "--refresh"];

    // The provider configured for a rate: a refresh runs the state's provider with the config the
    // last `up` gave it, so an `up` (which writes nothing) records the new rate first.
    const configure = async (rate: string, server: { requestsPerSecond: number } | null) => {
      await s!.setConfig({ "flagstack:requestsPerSecond": rate });
      const reconfigured = await timedUp(s!);
      if (reconfigured.requests.length !== 0)
        throw new Error(`the up that set the provider's rate made ${reconfigured.requests.length} requests`);
      emu.setRateLimit(server);
    };
    // ROUNDS rounds, each unlimited then limited, on a machine others share: each figure is the
    // fastest of its rounds, and both sides of a ratio saw the same rounds.
    const best = { refresh: Infinity, preview: Infinity, refreshLimited: Infinity, previewLimited: Infinity };
    let refresh429s = 0;
    let preview429s = 0;
    for (let round = 1; round <= ROUNDS; round++) {
      if (round > 1) await configure(UNLIMITED, null);
      const free = await timed(s, refresh, log);
      figures.refresh_800_requests = free.requests.length;
      best.refresh = Math.min(best.refresh, free.ms);
      const freePreview = await timed(s, previewRefresh, log);
      figures.preview_refresh_800_requests = freePreview.requests.length;
      best.preview = Math.min(best.preview, freePreview.ms);
      log(
        `round ${round}, no limit: refresh ${seconds(free.ms)} s, ${free.requests.length} requests; preview --refresh ${seconds(freePreview.ms)} s, ${freePreview.requests.length} requests`,
      );
      await configure(String(LIMIT), { requestsPerSecond: LIMIT });
      const limited = await timed(s, refresh, log);
      best.refreshLimited = Math.min(best.refreshLimited, limited.ms);
      refresh429s += limited.requests.filter((r) => r.status === 429).length;
      const limitedPreview = await timed(s, previewRefresh, log);
      best.previewLimited = Math.min(best.previewLimited, limitedPreview.ms);
      preview429s += limitedPreview.requests.filter((r) => r.status === 429).length;
      log(
        `round ${round}, under ${LIMIT} requests/s: refresh ${seconds(limited.ms)} s, ${limited.requests.length} requests; preview --refresh ${seconds(limitedPreview.ms)} s, ${limitedPreview.requests.length} requests`,
      );
    }
    const ratio = (a: number, b: number) => Math.round((a / b) * 1000) / 1000;
    figures.refresh_800_seconds_unlimited = seconds(best.refresh);
    figures.refresh_800_seconds = seconds(best.refreshLimited);
    figures.refresh_800_limit_ratio = ratio(best.refreshLimited, best.refresh);
    figures.refresh_800_limited_429s = refresh429s;
    figures.preview_refresh_800_seconds_unlimited = seconds(best.preview);
    figures.preview_refresh_800_seconds = seconds(best.previewLimited);
    figures.preview_refresh_800_limit_ratio = ratio(best.previewLimited, best.preview);
    figures.preview_refresh_800_limited_429s = preview429s;
    return figures;
  } finally {
    await s?.close();
    await emu.stop();
  }
}
