/**
 * `flagstack emulator`: runs the local emulator of both APIs until Ctrl-C (or SIGTERM).
 *
 * ```
 * flagstack emulator --port 8787 --state ./emulator-state.json --admin-key local-admin-key \
 *   --sdk-key local-sdk-key --platform-key local-platform-key --account local [--rate-limit N] \
 *   [--fault-rate 429=0.05,503=0.02,drop=0.01] [--latency MS] [--fault-seed N] [--host 127.0.0.1]
 * ```
 * It prints its base URL and keys. Without `--state` everything stays in memory. A bad option is
 * refused naming the flag as typed (`--admin-key must be at least 8 characters`), never the
 * library's option name. `--help` lists the `/_emulator` control routes ({@link CONTROL_ROUTES_HELP}).
 * @module
 */
import type { Command } from "commander";
import type { z } from "zod";
import { type Emulator, EmulatorOptions, type FaultConfigInput, startEmulator } from "../emulator";

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
  const refused = (out.rate429 ?? 0) + (out.rate500 ?? 0) + (out.rate503 ?? 0) + (out.dropRate ?? 0);
  if (refused > 1) {
    throw new Error(
      `--fault-rate: 429 + 500 + 503 + drop must add up to at most 1, got ${Number(refused.toFixed(6))}`,
    );
  }
  return out as FaultConfigInput;
}

/** The flag of each {@link EmulatorOptions} field (by its dotted path), for messages. */
const FLAG_OF: Record<string, string> = {
  port: "--port",
  host: "--host",
  statePath: "--state",
  adminKey: "--admin-key",
  sdkKey: "--sdk-key",
  platformKey: "--platform-key",
  accountId: "--account",
  rateLimit: "--rate-limit",
  "faults.latencyMs": "--latency",
  "faults.seed": "--fault-seed",
  faults: "--fault-rate",
};
/** Flags whose value is a secret: never repeated in a message. */
const SECRET_FLAGS = new Set(["--admin-key", "--sdk-key", "--platform-key"]);

/**
 * A message naming the flag the user typed for the first problem the emulator's own option
 * schema finds: `key must be at least 8 characters` at `adminKey` becomes `--admin-key must be
 * at least 8 characters`, and the value is shown unless it is a key.
 */
function flagMessage(issue: z.core.$ZodIssue, typed: Record<string, string | undefined>): string {
  const path = issue.path.map(String).join(".");
  const flag = FLAG_OF[path] ?? FLAG_OF[path.split(".")[0] ?? ""] ?? `--${path}`;
  const field = String(issue.path[issue.path.length - 1] ?? "");
  // The schema's messages start with the field's name ("accountId must be ...") or "key".
  const m = new RegExp(`^(?:${field}|key) (must .*)$`).exec(issue.message);
  const text = m ? `${flag} ${m[1]}` : `${flag}: ${issue.message}`;
  const value = typed[flag];
  return value === undefined || SECRET_FLAGS.has(flag) ? text : `${text}, got "${value}"`;
}

/** Maps the command line to {@link EmulatorOptions}; throws a message naming the bad flag. */
export function emulatorOptionsFromCli(o: EmulatorCommandOptions): EmulatorOptions {
  if (o.host.trim() === "") throw new Error("--host must name an address to bind, e.g. 127.0.0.1");
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
  // The emulator checks its options again, but would name them as the library does (adminKey).
  const checked = EmulatorOptions.safeParse(opts);
  const issue = checked.success ? undefined : checked.error.issues[0];
  if (issue) {
    throw new Error(
      flagMessage(issue, {
        "--port": o.port,
        "--host": o.host,
        "--state": o.state,
        "--account": o.account,
        "--rate-limit": o.rateLimit,
        "--fault-rate": o.faultRate,
        "--latency": o.latency,
        "--fault-seed": o.faultSeed,
      }),
    );
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
    `  admin API     ${emu.url}/internal/api/v2 (flag sets: /internal/api/v3, /api/v3)`,
    `  events / SDK  ${emu.url}/api`,
    `  platform API  ${emu.url}/ng/api, ${emu.url}/pipeline/api, ${emu.url}/authz/api, ${emu.url}/resourcegroup/api, ${emu.url}/v1 (also under /gateway)`,
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
  const opts = emulatorOptionsFromCli(o);
  let emu: Emulator;
  try {
    emu = await startEmulator(opts);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "EADDRINUSE") {
      throw new Error(
        `--port ${opts.port}: ${o.host}:${opts.port} is already in use (stop what listens there, or pass --port 0 for a free port)`,
      );
    }
    throw e;
  }
  out(banner(emu));
  return emu;
}

/**
 * The `/_emulator` control routes, as `flagstack emulator --help` lists them (emulator/control.ts
 * serves them; README "Control routes" shows examples).
 */
export const CONTROL_ROUTES_HELP = `
Control routes, under the emulator's base URL (no key needed; never rate limited or faulted):
  GET    /_emulator/health                     {"status":"ok"}
  GET    /_emulator/requests[?api=NAME]        the request log, oldest first: method, path,
                                               query, status, ms, api, at, transactionId, fault;
                                               NAME is admin, events, sdk, platform or emulator
  DELETE /_emulator/requests                   clear the request log
  GET    /_emulator/events?countOnly=true      {"count":N}: events stored (bulk import and SDK
                                               track calls); add &environment=NAME for one
  GET    /_emulator/events[?offset=N&limit=N&environment=NAME]
                                               {"count":N,"offset":N,"events":[...]}, oldest
                                               first, at most limit (default 10000)
  DELETE /_emulator/events                     remove every stored event
  GET    /_emulator/faults                     the fault settings, with the seed in use
  PUT    /_emulator/faults                     replace them: {"rate429":0.05,"rate500":0,
                                               "rate503":0,"dropRate":0,"dropAfterRate":0,
                                               "latencyMs":0,"seed":1,"apis":["admin"]}, each
                                               field optional; {} turns faults off
  GET    /_emulator/rate-limit                 {"requestsPerSecond":N}, or null when none
  PUT    /_emulator/rate-limit                 {"requestsPerSecond":N}; null removes the limit
  POST   /_emulator/users/USER_ID/accept       an invited (PENDING) user becomes ACTIVE, as when
                                               the person registers
  GET    /_emulator/sdk                        what SDKs posted: {"impressionBatches":N,
                                               "impressionCountBatches":N,"telemetry":N}

Example:
  curl -fsS 'http://127.0.0.1:8787/_emulator/events?countOnly=true'
`;

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
    .option(
      "--admin-key <key>",
      "admin API key, 8 or more characters without spaces (generated when absent; kept in the state file)",
    )
    .option(
      "--sdk-key <key>",
      "server-side SDK key of the Production environment, 8 or more characters (generated when absent)",
    )
    .option(
      "--platform-key <key>",
      "platform API key (x-api-key), 8 or more characters (generated when absent)",
    )
    .option(
      "--account <id>",
      "platform account identifier: 1-64 letters, digits, - or _ (generated when absent)",
    )
    .option("--rate-limit <n>", "answer 429 beyond n requests per second (admin, events, platform)")
    .option("--fault-rate <spec>", "inject faults, e.g. 429=0.05,500=0.01,503=0.01,drop=0.01,drop-after=0.01")
    .option("--latency <ms>", "add this latency to every API request")
    .option("--fault-seed <n>", "seed of the fault PRNG, to replay a run")
    .addHelpText("after", CONTROL_ROUTES_HELP)
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
