/**
 * `flagstack emulator`: runs the local emulator of both APIs until Ctrl-C.
 *
 * ```
 * flagstack emulator --port 8787 --state ./emulator-state.json --admin-key K --sdk-key K \
 *   --platform-key K --account ID [--rate-limit N] [--fault-rate 429=0.05,503=0.02,drop=0.01] \
 *   [--latency MS] [--fault-seed N] [--host 127.0.0.1]
 * ```
 * It prints its base URL and keys. Without `--state` everything stays in memory.
 * @module
 */
import type { Command } from "commander";
import { type Emulator, type EmulatorOptions, type FaultConfigInput, startEmulator } from "../emulator";

/** The options commander hands to the action. */
export interface EmulatorCommandOptions {
  port: string;
  host: string;
  state?: string;
  adminKey?: string;
  sdkKey?: string;
  platformKey?: string;
  account?: string;
  rateLimit?: string;
  faultRate?: string;
  latency?: string;
  faultSeed?: string;
}

const FAULT_NAMES: Record<string, keyof FaultConfigInput> = {
  "429": "rate429",
  "500": "rate500",
  "503": "rate503",
  drop: "dropRate",
  "drop-after": "dropAfterRate",
};

function whole(name: string, raw: string, min: number, max: number): number {
  if (!/^\d+$/.test(raw)) throw new Error(`${name} must be a whole number, got "${raw}"`);
  const n = Number(raw);
  if (n < min || n > max) throw new Error(`${name} must be between ${min} and ${max}, got ${n}`);
  return n;
}

/**
 * Parses `--fault-rate`: comma-separated `kind=fraction` pairs, kinds 429, 500, 503, drop and
 * drop-after (the connection is cut after the request took effect).
 * @example parseFaultRate("429=0.05,drop=0.01") // { rate429: 0.05, dropRate: 0.01 }
 */
export function parseFaultRate(spec: string): FaultConfigInput {
  const out: Record<string, number> = {};
  for (const part of spec
    .split(",")
    .map((p) => p.trim())
    .filter(Boolean)) {
    const [kind, value] = part.split("=").map((s) => s.trim());
    const field = kind === undefined ? undefined : FAULT_NAMES[kind];
    if (!field)
      throw new Error(`--fault-rate: unknown fault "${kind}" (use ${Object.keys(FAULT_NAMES).join(", ")})`);
    const n = Number(value);
    if (value === undefined || value === "" || !Number.isFinite(n) || n < 0 || n > 1) {
      throw new Error(`--fault-rate: ${kind} must be a fraction between 0 and 1, got "${value ?? ""}"`);
    }
    out[field] = n;
  }
  return out as FaultConfigInput;
}

/** Maps the command line to {@link EmulatorOptions}; throws a message naming the bad option. */
export function emulatorOptionsFromCli(o: EmulatorCommandOptions): EmulatorOptions {
  const opts: EmulatorOptions = { port: whole("--port", o.port, 0, 65535), host: o.host };
  if (o.state) opts.statePath = o.state;
  if (o.adminKey) opts.adminKey = o.adminKey;
  if (o.sdkKey) opts.sdkKey = o.sdkKey;
  if (o.platformKey) opts.platformKey = o.platformKey;
  if (o.account) opts.accountId = o.account;
  if (o.rateLimit) opts.rateLimit = { requestsPerSecond: whole("--rate-limit", o.rateLimit, 1, 1_000_000) };
  if (o.faultRate || o.latency || o.faultSeed) {
    opts.faults = {
      ...(o.faultRate ? parseFaultRate(o.faultRate) : {}),
      ...(o.latency ? { latencyMs: whole("--latency", o.latency, 0, 60_000) } : {}),
      ...(o.faultSeed ? { seed: whole("--fault-seed", o.faultSeed, 0, 2 ** 31 - 1) } : {}),
    };
  }
  return opts;
}

/** The banner printed at start: base URL, API bases and keys. */
export function banner(emu: Emulator): string {
  const sdk = Object.entries(emu.sdkKeys)
    .map(([env, key]) => `${env}: ${key}`)
    .join(", ");
  return [
    `flagstack emulator listening on ${emu.url}`,
    `  admin API     ${emu.url}/internal/api/v2`,
    `  events / SDK  ${emu.url}/api`,
    `  platform API  ${emu.url}/ng/api, ${emu.url}/pipeline/api`,
    `  control       ${emu.url}/_emulator`,
    `  admin key     ${emu.adminKey}`,
    `  SDK keys      ${sdk}`,
    `  platform key  ${emu.platformKey}`,
    `  account       ${emu.accountId}`,
    `  state         ${emu.statePath ?? "(in memory)"}`,
  ].join("\n");
}

/** Starts the emulator for the command and prints the banner; the caller decides when to stop. */
export async function runEmulatorCommand(
  o: EmulatorCommandOptions,
  out: (line: string) => void = console.log,
): Promise<Emulator> {
  const emu = await startEmulator(emulatorOptionsFromCli(o));
  out(banner(emu));
  return emu;
}

/** Adds `flagstack emulator` to the program. */
export function register(program: Command): void {
  program
    .command("emulator")
    .description(
      "run the local emulator of the feature-flag admin API, event import, SDK endpoints and platform API",
    )
    .option("--port <port>", "TCP port (0 picks a free one)", "8787")
    .option("--host <address>", "address to bind", "127.0.0.1")
    .option(
      "--state <file>",
      "persist the state to this JSON file (events go to <file>.events.ndjson; a symlink is followed to its target)",
    )
    .option("--admin-key <key>", "admin API key (generated when absent, kept in the state file)")
    .option("--sdk-key <key>", "server-side SDK key of the Production environment")
    .option("--platform-key <key>", "platform API key (x-api-key)")
    .option("--account <id>", "platform account identifier")
    .option("--rate-limit <n>", "answer 429 beyond n requests per second (admin, events, platform)")
    .option("--fault-rate <spec>", "inject faults, e.g. 429=0.05,500=0.01,503=0.01,drop=0.01,drop-after=0.01")
    .option("--latency <ms>", "add this latency to every API request")
    .option("--fault-seed <n>", "seed of the fault PRNG, to replay a run")
    .action(async (o: EmulatorCommandOptions) => {
      const emu = await runEmulatorCommand(o);
      await new Promise<void>((resolve) => {
        const stop = () => {
          process.off("SIGINT", stop);
          process.off("SIGTERM", stop);
          resolve();
        };
        process.on("SIGINT", stop);
        process.on("SIGTERM", stop);
      });
      await emu.stop();
    });
}
