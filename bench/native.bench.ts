/**
 * Native provider figures (issue 17): how fast the `flagstack` plugin starts, as the engine
 * launches it (`provider-plugin/pulumi-resource-flagstack`, the engine's address as argument).
 *
 * - `native_provider_start_ms`: median, over several launches, of the time from spawn to the
 *   answer of the first request (`GetPluginInfo`); goal under 1,500 ms on 2 cores.
 * - `native_provider_start_max_ms`: the slowest of those launches.
 *
 * Needs the build (`dist/`): the plugin runs the compiled provider.
 * @module
 */
import { startNativePlugin } from "../test/native/harness";
import type { BenchContext } from "./run";

/** Runs the native provider benchmark. */
export async function run({ quick, log }: BenchContext): Promise<Record<string, number>> {
  const launches = quick ? 3 : 10;
  const times: number[] = [];
  for (let i = 0; i < launches; i++) {
    const plugin = await startNativePlugin();
    try {
      times.push(plugin.startup.firstAnswerMs);
    } finally {
      await plugin.stop();
    }
  }
  times.sort((a, b) => a - b);
  const median = times[Math.floor(times.length / 2)] as number;
  log(`native: ${launches} launches, first answer after ${times.map((t) => t.toFixed(0)).join(", ")} ms`);
  return {
    native_provider_start_ms: Math.round(median),
    native_provider_start_max_ms: Math.round(times[times.length - 1] as number),
  };
}
