/**
 * `flagstack impact <plan.json>`: who each targeting change of a plan reaches, per environment and
 * flag, over the JSON of either door's plan (`policy/impact.ts`):
 *
 * ```
 * tofu plan -out tfplan && tofu show -json tfplan > plan.json    # or terraform
 * pulumi preview --json --show-sames > preview.json
 * flagstack impact plan.json [--format text|markdown|json] [--max-shift 10 | --max-shift Production=5]
 *                            [--config policy-config.json] [--sample-size N] [--keys keys.jsonl]
 * ```
 * The population is max-traffic-shift's settings in `--config` (the pack's config file, so it is
 * configured once for both doors), which `--sample-size`, `--key-prefix` and `--keys` override.
 * Exit status: 0; 1 when a flag moves more than `--max-shift` in its environment; 2 when the plan,
 * the config or the keys file cannot be read.
 * @module
 */
import { type Command, InvalidArgumentError, Option } from "commander";
import type { ChangeTarget } from "../policy/impact";
import { type CommandIo, processIo } from "./command-io";

/** Exit status when the plan, the config or the keys cannot be read. */
export const UNREADABLE = 2;

/** What `impact` takes besides the plan. */
export interface ImpactCommandOptions {
  format?: "text" | "markdown" | "json" | undefined;
  /** Limits: `10` (every environment) or `Production=5`, by environment name (case-insensitive). */
  maxShift?: readonly string[] | undefined;
  config?: string | undefined;
  sampleSize?: number | undefined;
  keyPrefix?: string | undefined;
  keys?: string | undefined;
}

/** Where the command reads and writes (the process's by default; a test's buffers). */
export type ImpactIo = CommandIo;

/** `--max-shift` values as a limit per environment (`*`: every other one). */
export function parseMaxShift(values: readonly string[]): Map<string, number> {
  const limits = new Map<string, number>();
  for (const v of values) {
    const m = /^(?:(.+)=)?([0-9]+(?:\.[0-9]+)?)$/.exec(v.trim());
    const n = m ? Number(m[2]) : Number.NaN;
    if (!m || n > 100) throw new Error(`--max-shift ${v}: give a percent (0-100), or ENVIRONMENT=PERCENT`);
    limits.set(m[1]?.toLowerCase() ?? "*", n);
  }
  return limits;
}

/** Reads a plan of either door: a Terraform plan's JSON (`resource_changes`) or `pulumi preview --json` (`steps`). */
export async function readChanges(json: unknown): Promise<ChangeTarget[]> {
  if (json !== null && typeof json === "object" && "steps" in json)
    return (await import("../policy/preview.js")).readPreviewChanges(json);
  return (await import("../policy/plan.js")).readPlanChanges(json);
}

/** Runs the command and returns its exit status. */
export async function runImpact(
  plan: string,
  options: ImpactCommandOptions = {},
  io: ImpactIo = processIo,
): Promise<number> {
  // Loaded when the command runs: they load the kinds and the SDK.
  const { impactMarkdown, impactText, overLimit, planImpact, shareText } = await import(
    "../policy/impact.js"
  );
  const { populationOf, TrafficShiftConfig } = await import("../policy/traffic.js");
  const { percent, readConfig } = await import("../policy/common.js");
  let limits: Map<string, number>;
  let report: Awaited<ReturnType<typeof planImpact>>;
  try {
    limits = parseMaxShift(options.maxShift ?? []);
    const name = plan === "-" ? "standard input" : plan;
    let json: unknown;
    try {
      json = JSON.parse(plan === "-" ? io.readStdin() : io.readFile(plan));
    } catch (e) {
      throw new Error(
        `${name} is not JSON (${(e as Error).message}): give \`tofu show -json <planfile>\` (or terraform's) or \`pulumi preview --json\``,
      );
    }
    const file =
      options.config === undefined
        ? {}
        : (JSON.parse(io.readFile(options.config)) as Record<string, unknown>);
    const entry = file["max-traffic-shift"];
    const settings = readConfig("max-traffic-shift", TrafficShiftConfig, {
      getConfig: <T extends object>() =>
        ({
          ...(entry !== null && typeof entry === "object" ? entry : {}),
          ...(options.sampleSize !== undefined ? { sampleSize: options.sampleSize } : {}),
          ...(options.keyPrefix !== undefined ? { keyPrefix: options.keyPrefix } : {}),
          ...(options.keys !== undefined ? { keysFile: options.keys } : {}),
        }) as T,
    });
    report = await planImpact(await readChanges(json), populationOf(settings));
    if (json !== null && typeof json === "object" && "steps" in json)
      report.notes.unshift(...(await import("../policy/preview.js")).previewNotes(json));
  } catch (e) {
    io.err(`flagstack impact: ${(e as Error).message}\n`);
    return UNREADABLE;
  }
  const format = options.format ?? "text";
  io.out(
    format === "json"
      ? `${JSON.stringify(report, null, 2)}\n`
      : format === "markdown"
        ? impactMarkdown(report)
        : impactText(report),
  );
  const over = overLimit(report, (env) => limits.get(env.toLowerCase()) ?? limits.get("*"));
  for (const f of over) {
    const limit = limits.get(f.environment.toLowerCase()) ?? limits.get("*") ?? 0;
    io.err(
      `flagstack impact: flag "${f.flag}" in environment "${f.environment}" moves ${shareText(f.shift, f.shiftError)} of its traffic, more than --max-shift ${percent(limit)}\n`,
    );
  }
  return over.length > 0 ? 1 : 0;
}

const count = (v: string) => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1)
    throw new InvalidArgumentError("give a whole number of keys, at least 1");
  return n;
};

/** Registers `flagstack impact`. */
export function register(program: Command): void {
  program
    .command("impact")
    .description(
      "who each targeting change of a plan reaches: the share of traffic that moves from one treatment to another, and the targeted keys that move, per environment and flag; over `tofu show -json <planfile>` (or terraform's) or `pulumi preview --json`",
    )
    .argument("<plan>", "the plan's JSON file (- for standard input)")
    .addOption(
      new Option("--format <format>", "how the result is printed")
        .choices(["text", "markdown", "json"])
        .default("text"),
    )
    .option(
      "--max-shift <percent>",
      "exit 1 when a flag moves more than this share of traffic: PERCENT for every environment, ENVIRONMENT=PERCENT for one (repeatable)",
      (v: string, all: string[] = []) => [...all, v],
    )
    .option("--config <file>", "the policy pack's config file: max-traffic-shift's population settings")
    .option("--sample-size <keys>", "keys in the sample (default 10,000)", count)
    .option("--key-prefix <prefix>", "prefix of the sampled keys (default key-)")
    .option(
      "--keys <file>",
      "real keys to measure over: .csv with a key column (the others attributes), or .jsonl of {key, attributes}",
    )
    .action(async (plan: string, opts: ImpactCommandOptions) => {
      process.exitCode = await runImpact(plan, opts);
    });
}
