/**
 * The native provider through the real engine (issue 17), on the 800-resource stack of
 * `up.bench.ts` (200 flags with a definition in each of 3 environments; quick mode: 20 flags, 80
 * resources), each program generated at run time into a temporary directory and run by the CLI of
 * the e2e harness (its own file backend per stack, `PULUMI_SKIP_CHECKPOINTS=true` as in the
 * rate-limited part of `up.bench.ts`) against one in-process emulator on 127.0.0.1, port 0.
 *
 * Figures (each the median of `runs` runs: 3, quick 1; every `pulumi` command is timed from spawn to
 * exit; each `_cpu_seconds` is the CPU time of every process of that command, the engine's,
 * language host's and plugins', which the load of a shared machine inflates less than wall time):
 * - `native_up_rate_limited_ratio` (goal ≤ 1.10): `up_rate_limited_ratio` of `up.bench.ts` for a
 *   Pulumi YAML program of `flagstack:index:*` resources served by `provider-plugin/`: the emulator
 *   limited to 20 requests per second, the provider configured for it
 *   (`flagstack:requestsPerSecond = 20`), a `pulumi preview` first, then `pulumi up --yes
 *   --skip-preview` of the whole stack from empty (new flag names each run); its wall time divided
 *   by (accepted requests / 20). Beside it, from the median run: `native_up_rate_limited_seconds`,
 *   `_requests`, `_429s`, `_failed_resources` (goal 0), `_first_request_seconds` (the engine's
 *   start, the YAML program's run, the plugin's start and configuration) and `_pacing_ratio` (the
 *   ratio over the span from the first to the last request alone).
 * - `native_preview_unchanged_seconds_yaml` (goal ≤ 3.1 s): `pulumi preview` of that YAML stack
 *   once it exists; it must send no request and change nothing.
 *   `native_preview_unchanged_seconds_baseline_yaml`: the same program on a provider that does
 *   nothing (below), previewed alternately with it: what the engine and the YAML language host
 *   take whatever the provider.
 * - `native_preview_unchanged_seconds_ts` (goal ≤ 1.1 × the baseline): the same 800 resources from
 *   a TypeScript program (a loop over `spec.json`, as `test/e2e/programs/stack`) through the SDK
 *   `pulumi package gen-sdk <schema> --language nodejs` writes, as `examples/native-typescript`
 *   uses it; `pulumi preview` of the stack once it exists.
 *   `native_preview_unchanged_seconds_baseline_ts`: the same program, previewed the same way
 *   (alternately with it), on `bench/fixtures/noop-provider`: `@pulumi/pulumi/provider`'s `main`
 *   with every verb answering at once, whose schema, and so SDK, is flagstack's renamed `noop`: the
 *   program, its compilation and the engine's work are the same, only the provider differs.
 *   `native_preview_unchanged_ts_ratio` = the first / the second (`_ts_cpu_ratio`: the same of
 *   their CPU seconds). Each TS program is previewed
 *   once before the timed runs (ts-node's cache then holds the compiled program, as after the
 *   first run in a project).
 *
 * Needs the build (`dist/`): the plugin runs the compiled provider.
 * @module
 */
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { stringify } from "yaml";
import { startEmulator } from "../emulator";
import { clients, defaultWorkspaceId, type StackSpec } from "../test/e2e/fixtures";
import { EngineStack, pulumiCli, REPO_ROOT, type RequestRecord } from "../test/e2e/harness";
import type { BenchContext } from "./run";
import { ENVIRONMENTS, LIMIT, spec, timedUp, UNLIMITED } from "./up.bench";

const execFileAsync = promisify(execFile);
export const PLUGIN_DIR = join(REPO_ROOT, "provider-plugin");
export const NOOP_DIR = join(__dirname, "fixtures", "noop-provider");

const api = (records: RequestRecord[]) => records.filter((r) => r.api === "admin" || r.api === "platform");
const seconds = (ms: number) => Math.round(ms) / 1000;
const round3 = (x: number) => Math.round(x * 1000) / 1000;
const load = () => readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");

/**
 * A Pulumi YAML program of the spec's flags and definitions, as resources of the provider `name`
 * (`flagstack`, or the baseline's `noop`) whose plugin directory is `pluginDir`.
 */
export function yamlProgram(s: StackSpec, name: string, pluginDir: string): string {
  const resources: Record<string, unknown> = {};
  for (const [key, args] of Object.entries(s.flags ?? {}))
    resources[key] = { type: `${name}:index:Flag`, properties: args };
  for (const [key, { flag, ...args }] of Object.entries(s.definitions ?? {}))
    resources[key] = {
      type: `${name}:index:FlagDefinition`,
      properties: { ...args, flag: `\${${flag}.name}` },
    };
  return stringify(
    {
      name: `bench-native-yaml-${name}`,
      runtime: "yaml",
      plugins: { providers: [{ name, path: pluginDir }] },
      resources,
    },
    // Every string quoted: `on` and `off` stay strings.
    { defaultStringType: "QUOTE_DOUBLE", defaultKeyType: "PLAIN", lineWidth: 0 },
  );
}

/**
 * A TypeScript program of the spec (read from `spec.json` beside it at run time) through the
 * generated SDK in `./sdk/nodejs` of the provider `name` at `pluginDir`.
 */
export function tsProgram(dir: string, name: string, pluginDir: string): void {
  writeFileSync(
    join(dir, "Pulumi.yaml"),
    stringify({
      name: `bench-native-ts-${name}`,
      runtime: "nodejs",
      plugins: { providers: [{ name, path: pluginDir }] },
    }),
  );
  writeFileSync(
    join(dir, "package.json"),
    `${JSON.stringify({ name: `bench-${name}`, main: "index.ts" })}\n`,
  );
  writeFileSync(
    join(dir, "tsconfig.json"),
    `${JSON.stringify({
      compilerOptions: {
        target: "ES2023",
        lib: ["ES2023"],
        module: "NodeNext",
        moduleResolution: "NodeNext",
        strict: true,
        skipLibCheck: true,
        types: ["node"],
      },
      include: ["*.ts"],
    })}\n`,
  );
  writeFileSync(
    join(dir, "index.ts"),
    `import { readFileSync } from "node:fs";
import { join } from "node:path";
import * as p from "./sdk/nodejs";

interface Spec {
  flags: Record<string, p.FlagArgs>;
  definitions: Record<string, Omit<p.FlagDefinitionArgs, "flag"> & { flag: string }>;
}
const spec = JSON.parse(readFileSync(join(__dirname, "spec.json"), "utf8")) as Spec;
const flags: Record<string, p.Flag> = {};
for (const [key, args] of Object.entries(spec.flags)) flags[key] = new p.Flag(key, args);
for (const [key, { flag, ...args }] of Object.entries(spec.definitions)) {
  new p.FlagDefinition(key, { ...args, flag: flags[flag]!.name });
}
`,
  );
}

/** CPU seconds (user + system) of this process's waited-for children so far (Linux; else 0). */
function childCpuSeconds(): number {
  try {
    const stat = readFileSync("/proc/self/stat", "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    // cutime and cstime: fields 16 and 17 of proc(5), in clock ticks (100 a second on Linux).
    return (Number(fields[13]) + Number(fields[14])) / 100;
  } catch {
    return 0;
  }
}

/** A timed `pulumi preview`: wall milliseconds and the CPU seconds of every process it ran. */
interface Timed {
  ms: number;
  cpu: number;
}

/**
 * `pulumi preview` of an unchanged stack, from spawn to exit; throws unless it changes nothing and
 * sends no request.
 */
async function timedPreview(stack: EngineStack, resources: number): Promise<Timed> {
  const before = stack.emu.requests().length;
  const cpu = childCpuSeconds();
  const t = performance.now();
  const { stdout } = await stack.cli(["preview", "--color", "never"]);
  const ms = performance.now() - t;
  const sent = api(stack.emu.requests().slice(before)).length;
  const unchanged = Number(/(\d+) unchanged/.exec(stdout)?.[1] ?? 0);
  if (sent !== 0 || unchanged !== resources + 1 || /to (create|update|delete|replace)/.test(stdout))
    throw new Error(`the preview was not a no-op (${sent} requests, ${unchanged} unchanged):\n${stdout}`);
  return { ms, cpu: childCpuSeconds() - cpu };
}

/** A rate-limited `up`: its ratio, and its figures. */
type Limited = { ratio: number; figures: Record<string, number> };

/** One timed rate-limited `up` and its figures, computed as `up.bench.ts` computes its own. */
async function limitedUp(s: EngineStack, resources: number): Promise<Limited> {
  const startedAt = Date.now();
  const up = await timedUp(s);
  const requests = up.requests;
  const first = Math.min(...requests.map((r) => r.at));
  const last = Math.max(...requests.map((r) => r.at));
  const refused = requests.filter((r) => r.status === 429).length;
  const accepted = requests.length - refused;
  const ratio = up.ms / 1000 / (accepted / LIMIT);
  return {
    ratio,
    figures: {
      native_up_rate_limited_ratio: round3(ratio),
      native_up_rate_limited_seconds: seconds(up.ms),
      native_up_rate_limited_requests: accepted,
      native_up_rate_limited_429s: refused,
      native_up_rate_limited_failed_resources: resources + 1 - up.created,
      native_up_rate_limited_first_request_seconds: seconds(first - startedAt),
      native_up_rate_limited_pacing_ratio: round3((last - first) / 1000 / ((requests.length - 1) / LIMIT)),
    },
  };
}

/** The median run's wall seconds and CPU seconds. */
const summary = (runs: Timed[]) => {
  const mid = [...runs].sort((a, b) => a.ms - b.ms)[Math.floor(runs.length / 2)]!;
  return { seconds: seconds(mid.ms), cpu: Math.round(mid.cpu * 100) / 100 };
};
const list = (runs: Timed[]) => runs.map((r) => `${seconds(r.ms)} s (${r.cpu.toFixed(1)} CPU s)`).join(", ");

export async function run({ quick, log }: BenchContext): Promise<Record<string, number>> {
  const flags = quick ? 20 : 200;
  const runs = quick ? 1 : 3;
  const resources = flags * (1 + ENVIRONMENTS.length);
  const emu = await startEmulator({ port: 0 });
  const stacks: EngineStack[] = [];
  const dirs: string[] = [];
  const scratch = () => {
    const d = mkdtempSync(join(tmpdir(), "flagstack-bench-native-"));
    dirs.push(d);
    return d;
  };
  try {
    const { admin } = clients(emu);
    await admin.environments.create(await defaultWorkspaceId(admin), {
      name: "Development",
      production: false,
    });
    const figures: Record<string, number> = {};
    log(`${resources} resources (${flags} flags x ${ENVIRONMENTS.length} definitions), ${runs} run(s) each`);
    // The SDKs are generated from schema files: from a plugin directory, `gen-sdk` first runs
    // `npm install` in it (or in the nearest directory above it with a package.json).
    const schemas = {
      flagstack: join(PLUGIN_DIR, "schema.json"),
      noop: join(scratch(), "schema.json"),
    };
    writeFileSync(schemas.noop, readFileSync(schemas.flagstack, "utf8").replaceAll("flagstack", "noop"));
    const plugins = { flagstack: PLUGIN_DIR, noop: NOOP_DIR };
    const open = async (program: string, requestsPerSecond: string) => {
      const s = await EngineStack.open({
        program,
        sharedEmulator: emu,
        env: { PULUMI_SKIP_CHECKPOINTS: "true" },
        config: { "flagstack:requestsPerSecond": { value: requestsPerSecond } },
      });
      stacks.push(s);
      return s;
    };
    const created = async (s: EngineStack, what: string) => {
      const up = await timedUp(s);
      if (up.created !== resources + 1)
        throw new Error(`${what}: up created ${up.created} resources, expected ${resources + 1}`);
      log(`${what}: up in ${seconds(up.ms)} s (${up.requests.length} requests)`);
    };

    // 1. TypeScript: the same program on flagstack's generated SDK and on the no-op provider's.
    const tsStack = async (name: "flagstack" | "noop") => {
      const program = scratch();
      tsProgram(program, name, plugins[name]);
      const s = await open(program, UNLIMITED);
      await s.setSpec(spec(flags, `ts-${name}`));
      const cli = await pulumiCli();
      await execFileAsync(
        cli.command,
        ["package", "gen-sdk", schemas[name], "--language", "nodejs", "--out", join(s.programDir, "sdk")],
        { cwd: s.dir, env: { ...process.env, ...s.env } },
      );
      await created(s, `TS ${name}`);
      // The first preview compiles the program into ts-node's cache; it is not timed.
      await timedPreview(s, resources);
      return s;
    };
    const ts = { flagstack: await tsStack("flagstack"), noop: await tsStack("noop") };
    const nativeTs: Timed[] = [];
    const baselineTs: Timed[] = [];
    for (let i = 0; i < runs; i++) {
      nativeTs.push(await timedPreview(ts.flagstack, resources));
      baselineTs.push(await timedPreview(ts.noop, resources));
      log(
        `TS preview ${i + 1}: flagstack ${list(nativeTs.slice(-1))}, noop ${list(baselineTs.slice(-1))} (load ${load()})`,
      );
    }
    const tsNative = summary(nativeTs);
    const tsBaseline = summary(baselineTs);
    figures.native_preview_unchanged_seconds_ts = tsNative.seconds;
    figures.native_preview_unchanged_cpu_seconds_ts = tsNative.cpu;
    figures.native_preview_unchanged_seconds_baseline_ts = tsBaseline.seconds;
    figures.native_preview_unchanged_cpu_seconds_baseline_ts = tsBaseline.cpu;
    figures.native_preview_unchanged_ts_ratio = round3(tsNative.seconds / tsBaseline.seconds);
    figures.native_preview_unchanged_ts_cpu_ratio = round3(tsNative.cpu / tsBaseline.cpu);
    log(
      `native preview of the unchanged stack from TypeScript: ${tsNative.seconds} s (${tsNative.cpu} CPU s) vs ${tsBaseline.seconds} s (${tsBaseline.cpu} CPU s) on a provider that does nothing: ratio ${figures.native_preview_unchanged_ts_ratio} (goal ≤ 1.10; CPU ${figures.native_preview_unchanged_ts_cpu_ratio})`,
    );

    // 2. YAML, the server limited to 20 requests per second; each run declares its own flags.
    emu.setRateLimit({ requestsPerSecond: LIMIT });
    const limited: Limited[] = [];
    let yamlNative: EngineStack | undefined;
    for (let i = 0; i < runs; i++) {
      const program = scratch();
      writeFileSync(
        join(program, "Pulumi.yaml"),
        yamlProgram(spec(flags, `yaml-${i}`), "flagstack", PLUGIN_DIR),
      );
      const s = await open(program, String(LIMIT));
      // A preview first, as users run it before `up` (and as up.bench.ts does); it sends nothing.
      const previewed = await s.preview();
      if (previewed.requests.length !== 0)
        throw new Error(`the preview before the rate-limited up made ${previewed.requests.length} requests`);
      limited.push(await limitedUp(s, resources));
      const f = limited[i]!.figures;
      log(
        `native rate-limited up ${i + 1}: ${f.native_up_rate_limited_seconds} s for ${f.native_up_rate_limited_requests} requests, ratio ${f.native_up_rate_limited_ratio}, first request after ${f.native_up_rate_limited_first_request_seconds} s, pacing ${f.native_up_rate_limited_pacing_ratio}, ${f.native_up_rate_limited_429s} refused (load ${load()})`,
      );
      yamlNative = s;
    }
    emu.setRateLimit(null);
    const mid = [...limited].sort((a, b) => a.ratio - b.ratio)[Math.floor(limited.length / 2)]!;
    Object.assign(figures, mid.figures);
    log(
      `native rate-limited up (YAML): ${figures.native_up_rate_limited_seconds} s for ${figures.native_up_rate_limited_requests} requests (floor ${figures.native_up_rate_limited_requests! / LIMIT} s): ratio ${figures.native_up_rate_limited_ratio} (median of ${runs}; goal ≤ 1.10), ${figures.native_up_rate_limited_429s} refused, ${figures.native_up_rate_limited_failed_resources} failed`,
    );

    // 3. YAML, a preview of the unchanged stack: the last of those, and the same on the no-op
    // provider (which sends nothing, so its up needs no limit).
    const program = scratch();
    writeFileSync(join(program, "Pulumi.yaml"), yamlProgram(spec(flags, "yaml-noop"), "noop", NOOP_DIR));
    const yamlNoop = await open(program, UNLIMITED);
    await created(yamlNoop, "YAML noop");
    const nativeYaml: Timed[] = [];
    const baselineYaml: Timed[] = [];
    for (let i = 0; i < runs; i++) {
      nativeYaml.push(await timedPreview(yamlNative!, resources));
      baselineYaml.push(await timedPreview(yamlNoop, resources));
    }
    const yNative = summary(nativeYaml);
    const yBaseline = summary(baselineYaml);
    figures.native_preview_unchanged_seconds_yaml = yNative.seconds;
    figures.native_preview_unchanged_cpu_seconds_yaml = yNative.cpu;
    figures.native_preview_unchanged_seconds_baseline_yaml = yBaseline.seconds;
    figures.native_preview_unchanged_cpu_seconds_baseline_yaml = yBaseline.cpu;
    log(
      `native preview of the unchanged stack from YAML: ${list(nativeYaml)}; median ${yNative.seconds} s (goal ≤ 3.1 s); on a provider that does nothing ${list(baselineYaml)} (load ${load()})`,
    );
    return figures;
  } finally {
    for (const s of stacks) await s.close();
    await emu.stop();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  }
}
