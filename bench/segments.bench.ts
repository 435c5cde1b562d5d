/**
 * Segment member figures, measured through the `SegmentKeys` provider implementation (its `impl`,
 * called as the host calls it) against the in-process emulator:
 *
 * - `segment_keys_one_key_change_requests`: every request (reads included) that an update adding
 *   one key to a 1,000-member segment sends (goal 1).
 * - `segment_keys_100k_apply_seconds`: wall time of `check` + `create` of 100,000 members in an
 *   environment where the segment is not active yet: the activation and the uploads of 10,000 keys
 *   each, median of 3 (1 in a quick run). `segment_keys_100k_apply_requests` counts that apply's
 *   requests (goal 11: one activation, ten uploads).
 * @module
 */
import { startEmulator } from "../emulator";
import { configureProvider, resetProvider } from "../provider/core/config";
import { impl } from "../provider/flags/segment-keys";
import { AdminClient } from "../sdk/admin/client";
import type { BenchContext } from "./run";

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
const keys = (n: number) => Array.from({ length: n }, (_, i) => `user${String(i).padStart(6, "0")}`);

/** Runs the segment benchmark. */
export async function run({ quick, log }: BenchContext): Promise<Record<string, number>> {
  const emu = await startEmulator({ port: 0 });
  const config: Record<string, string> = {
    "flagstack:adminApiUrl": emu.url,
    "flagstack:adminApiKey": emu.adminKey,
    "flagstack:requestsPerSecond": "1000",
  };
  resetProvider();
  configureProvider({ get: (k) => config[k] });
  const admin = new AdminClient({ baseUrl: emu.url, apiKey: emu.adminKey, requestsPerSecond: Infinity });
  const figures: Record<string, number> = {};
  try {
    const ws = await admin.workspaces.getByName("Default");
    if (!ws) throw new Error("no Default workspace");
    let serial = 0;
    /** Checked inputs of `members` of a new segment in Production. */
    const program = async (members: string[]) => {
      serial += 1;
      const segment = `bench_${serial}`;
      await admin.segments.create(ws.id, "user", { name: segment });
      const checked = await impl.check(
        {},
        { workspace: "Default", environment: "Production", segment, keys: members },
      );
      if (checked.failures?.length) throw new Error(JSON.stringify(checked.failures));
      return checked.inputs as Parameters<typeof impl.create>[0];
    };

    // Goal 1: a one-key change of a 1,000-member segment.
    const small = await program(keys(1_000));
    const { id, outs } = await impl.create(small);
    if (outs === undefined) throw new Error("create returned no outputs");
    const news = { ...small, keys: [...small.keys, "newcomer"].sort() };
    emu.resetRequests();
    await impl.update(id, outs, news);
    figures.segment_keys_one_key_change_requests = emu.requests().length;

    // The first apply of 100,000 members.
    const seconds: number[] = [];
    for (let run = 0; run < (quick ? 1 : 3); run++) {
      const all = keys(100_000);
      serial += 1;
      const segment = `bench_${serial}`;
      await admin.segments.create(ws.id, "user", { name: segment });
      emu.resetRequests();
      const started = process.hrtime.bigint();
      const checked = await impl.check(
        {},
        { workspace: "Default", environment: "Production", segment, keys: all },
      );
      await impl.create(checked.inputs as Parameters<typeof impl.create>[0]);
      seconds.push(Number(process.hrtime.bigint() - started) / 1e9);
      figures.segment_keys_100k_apply_requests = emu.requests().length;
      log(`segments: 100,000 members applied in ${seconds.at(-1)?.toFixed(2)} s`);
    }
    figures.segment_keys_100k_apply_seconds = median(seconds);
  } finally {
    resetProvider();
    await emu.stop();
  }
  return figures;
}
