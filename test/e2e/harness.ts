/**
 * End-to-end harness: the real Pulumi CLI (v3.259.0) driving a real Pulumi program against the
 * flagstack emulator, entirely offline.
 *
 * Each {@link EngineStack} owns a temporary directory holding
 * - `home/`: its own `PULUMI_HOME` (plugins, workspace settings), so runs never share state;
 * - `backend/`: a file backend (`PULUMI_BACKEND_URL=file://...`, ref pulumi-notes §9);
 * - `program/`: a copy of the Pulumi program, so the per-stack `Pulumi.<stack>.yaml` that the
 *   engine writes never lands in the repository. `program/node_modules` is a symlink to the
 *   repository's `node_modules`, where `flagstack` links back to the repository: the program and
 *   the dynamic-provider process (whose cwd is the program directory) both resolve
 *   `flagstack/provider/...` and `@pulumi/pulumi` exactly as a user's install would;
 * - `emulator-state.json`: the emulator's state file.
 *
 * The program's TypeScript runs the way Pulumi runs any Node.js program: the language host loads it
 * through the vendored ts-node with the program's own TypeScript (here the repository's 5.9), type
 * checking included. The stack config carries the credentials (`flagstack:adminApiKey` and
 * `flagstack:platformApiKey` as secrets); the `FLAGSTACK_*` environment fallbacks are blanked for
 * the engine, so a passing test proves that config reaches the provider.
 *
 * Used by the tests in this directory and by `bench/up.bench.ts`; it has no vitest dependency.
 * @module
 */
import { execFile, execFileSync } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, dirname, join, resolve } from "node:path";
import { promisify } from "node:util";
import {
  type ConfigMap,
  type DestroyResult,
  LocalWorkspace,
  type PreviewResult,
  PulumiCommand,
  type RefreshResult,
  type Stack,
  type UpResult,
} from "@pulumi/pulumi/automation";
import { type Emulator, type EmulatorOptions, startEmulator } from "../../emulator";

const execFileAsync = promisify(execFile);

/** The repository root. */
export const REPO_ROOT = resolve(__dirname, "..", "..");

/** The fixed passphrase of the test stacks' secrets provider. */
export const E2E_PASSPHRASE = "flagstack-e2e-passphrase";

/** The record type of the emulator's request log. */
export type RequestRecord = ReturnType<Emulator["requests"]>[number];

let pulumiCommand: Promise<PulumiCommand> | undefined;

/**
 * Finds the Pulumi CLI: the one on PATH (scripts/test.sh puts the built v3.259.0 there), else the
 * one `scripts/env.sh`'s `flagstack_use_pulumi` provides (building it on first use). Throws a clear
 * error when neither exists: an e2e run without an engine must fail, never pass by skipping.
 */
export function pulumiCli(): Promise<PulumiCommand> {
  pulumiCommand ??= (async () => {
    let bin = findOnPath("pulumi");
    if (!bin) {
      try {
        bin = execFileSync(
          "bash",
          [
            "-c",
            `. "${join(REPO_ROOT, "scripts", "env.sh")}" && flagstack_use_pulumi >&2 && command -v pulumi`,
          ],
          { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] },
        ).trim();
      } catch {
        bin = undefined;
      }
    }
    if (!bin)
      throw new Error(
        "e2e: no Pulumi CLI: run `bash scripts/setup.sh --pulumi` or put pulumi v3.259.0+ on PATH",
      );
    // PulumiCommand.get looks for `{root}/bin/pulumi`.
    return PulumiCommand.get({ root: dirname(dirname(bin)) });
  })();
  return pulumiCommand;
}

function findOnPath(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    if (dir && existsSync(join(dir, name))) return join(dir, name);
  }
  return undefined;
}

/**
 * The engine environment shared by every run: offline switches, the file backend, the passphrase,
 * this process's Node first on PATH (the language host and the dynamic-provider shim run `node`),
 * and the `FLAGSTACK_*` fallbacks blanked (the provider treats an empty value as unset).
 */
export function engineEnv(home: string, backendDir: string): Record<string, string> {
  const env: Record<string, string> = {
    PULUMI_HOME: home,
    PULUMI_BACKEND_URL: `file://${backendDir}`,
    PULUMI_CONFIG_PASSPHRASE: E2E_PASSPHRASE,
    PULUMI_SKIP_UPDATE_CHECK: "true",
    PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
    PULUMI_DISABLE_REGISTRY_RESOLVE: "true",
    PULUMI_SKIP_CONFIRMATIONS: "true",
    PATH: `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ""}`,
  };
  for (const name of Object.keys(process.env)) if (name.startsWith("FLAGSTACK_")) env[name] = "";
  for (const name of [
    "FLAGSTACK_ADMIN_API_URL",
    "FLAGSTACK_ADMIN_API_KEY",
    "FLAGSTACK_PLATFORM_API_URL",
    "FLAGSTACK_PLATFORM_API_KEY",
    "FLAGSTACK_ACCOUNT_ID",
  ]) {
    env[name] = "";
  }
  // What the provider notes for `flagstack recover` (provider/core/created-journal.ts) stays in the sandbox.
  env.FLAGSTACK_JOURNAL_DIR = join(home, "flagstack-journal");
  return env;
}

/**
 * Copies a Pulumi program directory into `dest` (without its node_modules or stack files) and
 * links `dest/node_modules` to the repository's, so package resolution is the repository's.
 */
export function copyProgram(src: string, dest: string): string {
  cpSync(src, dest, {
    recursive: true,
    filter: (from) => {
      const top = from.slice(src.length + 1).split("/")[0] ?? "";
      return top !== "node_modules" && !/^Pulumi\..+\.yaml$/.test(top);
    },
  });
  symlinkSync(join(REPO_ROOT, "node_modules"), join(dest, "node_modules"), "dir");
  return dest;
}

/** What {@link EngineStack.open} needs. */
export interface EngineStackOptions {
  /** The program directory (absolute, or relative to the repository root). */
  program: string;
  /** Stack name; default `e2e`. */
  stackName?: string;
  /** Options for the emulator this stack runs against (port 0 and a state file by default). */
  emulator?: EmulatorOptions;
  /** Reuse a running emulator instead of starting one (the caller stops it). */
  sharedEmulator?: Emulator;
  /** Extra stack config (plain values; `{ value, secret: true }` for secrets). */
  config?: ConfigMap;
  /** Extra environment for the engine (and so for the provider process). */
  env?: Record<string, string>;
  /** Keep the temporary directory after `close()` (debugging). */
  keep?: boolean;
}

/** One Pulumi stack of one program, its engine sandbox and its emulator. */
export class EngineStack {
  private constructor(
    /** The temporary directory holding home, backend, program and emulator state. */
    readonly dir: string,
    /** The copy of the program the engine runs. */
    readonly programDir: string,
    /** The Automation API stack. */
    readonly stack: Stack,
    /** The emulator serving both APIs. */
    readonly emu: Emulator,
    private readonly ownsEmulator: boolean,
    private readonly keep: boolean,
    private readonly cliCommand: PulumiCommand,
    /** The engine environment of every command of this stack. */
    readonly env: Record<string, string>,
  ) {}

  /**
   * Starts (or reuses) an emulator, creates the sandbox and the stack, and sets the provider's
   * stack config from the emulator's URL and keys.
   */
  static async open(options: EngineStackOptions): Promise<EngineStack> {
    const dir = mkdtempSync(join(tmpdir(), "flagstack-e2e-"));
    let emu: Emulator | undefined = options.sharedEmulator;
    try {
      const program = resolve(REPO_ROOT, options.program);
      const programDir = copyProgram(program, join(dir, "program"));
      const home = join(dir, "home");
      const backend = join(dir, "backend");
      for (const d of [home, backend]) mkdirSync(d, { recursive: true });
      emu ??= await startEmulator({
        port: 0,
        statePath: join(dir, "emulator-state.json"),
        ...options.emulator,
      });
      const cli = await pulumiCli();
      const env = { ...engineEnv(home, backend), ...options.env };
      const stack = await LocalWorkspace.createOrSelectStack(
        { stackName: options.stackName ?? "e2e", workDir: programDir },
        { pulumiCommand: cli, pulumiHome: home, envVars: env },
      );
      await stack.setAllConfig({ ...emulatorConfig(emu), ...options.config });
      return new EngineStack(
        dir,
        programDir,
        stack,
        emu,
        !options.sharedEmulator,
        options.keep ?? false,
        cli,
        env,
      );
    } catch (e) {
      if (emu && !options.sharedEmulator) await emu.stop();
      rmSync(dir, { recursive: true, force: true });
      throw e;
    }
  }

  /** Sets stack config values (e.g. the program's own settings); strings are plain values. */
  async setConfig(values: Record<string, string | { value: string; secret?: boolean }>): Promise<void> {
    const map: ConfigMap = {};
    for (const [k, v] of Object.entries(values)) map[k] = typeof v === "string" ? { value: v } : v;
    await this.stack.setAllConfig(map);
  }

  /** Writes `spec.json` into the program directory (test/e2e/programs/stack reads it at each run). */
  async setSpec(spec: unknown): Promise<void> {
    writeFileSync(join(this.programDir, "spec.json"), `${JSON.stringify(spec, null, 2)}\n`);
  }

  /** `pulumi up --yes --skip-preview`; returns the result and the emulator requests it made. */
  async up(opts: Parameters<Stack["up"]>[0] = {}): Promise<{ result: UpResult; requests: RequestRecord[] }> {
    return this.counted(() => this.stack.up({ color: "never", ...opts }));
  }

  /** `pulumi preview`; returns the result and the emulator requests it made. */
  async preview(
    opts: Parameters<Stack["preview"]>[0] = {},
  ): Promise<{ result: PreviewResult; requests: RequestRecord[] }> {
    return this.counted(() => this.stack.preview({ color: "never", ...opts }));
  }

  /** `pulumi refresh --yes`; returns the result and the emulator requests it made. */
  async refresh(
    opts: Parameters<Stack["refresh"]>[0] = {},
  ): Promise<{ result: RefreshResult; requests: RequestRecord[] }> {
    return this.counted(() => this.stack.refresh({ color: "never", ...opts }));
  }

  /** `pulumi destroy --yes`; returns the result and the emulator requests it made. */
  async destroy(
    opts: Parameters<Stack["destroy"]>[0] = {},
  ): Promise<{ result: DestroyResult; requests: RequestRecord[] }> {
    return this.counted(() => this.stack.destroy({ color: "never", ...opts }));
  }

  /** The stack's outputs as plain values (secrets included). */
  async outputs(): Promise<Record<string, unknown>> {
    const outs = await this.stack.outputs();
    return Object.fromEntries(Object.entries(outs).map(([k, v]) => [k, v.value]));
  }

  /**
   * Runs the CLI in the program directory on this stack (`--stack` is added); throws with the
   * output when it fails.
   */
  async cli(args: string[]): Promise<{ stdout: string; stderr: string }> {
    try {
      const { stdout, stderr } = await execFileAsync(
        this.cliCommand.command,
        [...args, "--stack", this.stack.name],
        {
          cwd: this.programDir,
          env: {
            ...process.env,
            ...this.env,
            PATH: `${dirname(this.cliCommand.command)}${delimiter}${this.env.PATH}`,
          },
          maxBuffer: 1 << 30,
        },
      );
      return { stdout, stderr };
    } catch (e) {
      const { stdout = "", stderr = "" } = e as { stdout?: string; stderr?: string };
      throw new Error(`pulumi ${args.join(" ")} failed:\n${stdout}\n${stderr}`);
    }
  }

  /**
   * The text of `pulumi stack export`, as a user runs it: secrets stay encrypted. (The Automation
   * API's `exportStack()` passes `--show-secrets`, so it is not used here.)
   */
  async exportText(): Promise<string> {
    return (await this.cli(["stack", "export"])).stdout;
  }

  /** Every file of the file backend concatenated (checkpoints, history, backups). */
  backendText(): string {
    return readTree(join(this.dir, "backend"));
  }

  /** The resources of the last deployment (type, name and outputs) from the exported state. */
  async resources(): Promise<{ type: string; urn: string; id?: string; outputs: Record<string, unknown> }[]> {
    const state = (JSON.parse(await this.exportText()) as { deployment: unknown }).deployment as {
      resources?: { type: string; urn: string; id?: string; outputs?: Record<string, unknown> }[];
    };
    return (state.resources ?? []).map((r) => ({
      type: r.type,
      urn: r.urn,
      id: r.id,
      outputs: r.outputs ?? {},
    }));
  }

  /** Destroys nothing; removes the stack's sandbox and stops the emulator if this stack owns it. */
  async close(): Promise<void> {
    if (this.ownsEmulator) await this.emu.stop();
    if (!this.keep) rmSync(this.dir, { recursive: true, force: true });
  }

  private async counted<T>(run: () => Promise<T>): Promise<{ result: T; requests: RequestRecord[] }> {
    const before = this.emu.requests().length;
    const result = await run();
    const requests = apiRequests(this.emu.requests().slice(before));
    return { result, requests };
  }
}

/** Requests to the APIs proper (the emulator's own control routes excluded). */
export function apiRequests(records: RequestRecord[]): RequestRecord[] {
  return records.filter((r) => r.api !== "emulator");
}

/** The provider's stack config for an emulator: URLs, account and both keys as secrets. */
export function emulatorConfig(emu: Emulator): ConfigMap {
  return {
    "flagstack:adminApiUrl": { value: emu.url },
    "flagstack:adminApiKey": { value: emu.adminKey, secret: true },
    "flagstack:platformApiUrl": { value: emu.url },
    "flagstack:platformApiKey": { value: emu.platformKey, secret: true },
    "flagstack:accountId": { value: emu.accountId },
  };
}

function readTree(dir: string): string {
  if (!existsSync(dir)) return "";
  let text = "";
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) text += readFileSync(join(entry.parentPath, entry.name), "utf8");
  }
  return text;
}

/** Writes a JSON file (policy-pack config and the like) into the stack's sandbox; returns its path. */
export function writeJson(dir: string, name: string, value: unknown): string {
  const path = join(dir, name);
  writeFileSync(path, `${JSON.stringify(value, null, 2)}\n`);
  return path;
}

/** One step of `pulumi preview --json`: what the engine would do to one resource, and why. */
export interface PreviewStep {
  op: string;
  urn: string;
  /** The changed properties the provider's `Diff` named (`diffs`). */
  diffReasons?: string[];
  /** The provider's detailed diff: property path → `{kind, inputDiff}`. */
  detailedDiff?: Record<string, { kind: string; inputDiff: boolean }> | null;
}

/**
 * `pulumi preview --json` on the stack (the program runs, nothing is written): the steps whose
 * operation is not `same`, by resource name, the change summary, and the API requests it made.
 */
export async function previewJson(s: EngineStack): Promise<{
  changes: Record<string, PreviewStep>;
  summary: Record<string, number>;
  requests: RequestRecord[];
}> {
  const before = s.emu.requests().length;
  const { stdout } = await s.cli(["preview", "--json"]);
  const requests = apiRequests(s.emu.requests().slice(before));
  const out = JSON.parse(stdout) as { steps?: PreviewStep[]; changeSummary?: Record<string, number> };
  const changes: Record<string, PreviewStep> = {};
  for (const step of out.steps ?? []) {
    if (step.op === "same") continue;
    const { op, urn, diffReasons, detailedDiff } = step;
    changes[urn.slice(urn.lastIndexOf("::") + 2)] = { op, urn, diffReasons, detailedDiff };
  }
  return { changes, summary: out.changeSummary ?? {}, requests };
}

/** The outputs the state records for the resource of that name (the last `::` part of its URN). */
export async function recordedOutputs(s: EngineStack, name: string): Promise<Record<string, unknown>> {
  const found = (await s.resources()).find((r) => r.urn.endsWith(`::${name}`));
  if (!found) throw new Error(`no resource named ${name} in the stack's state`);
  return found.outputs;
}

/** What {@link packRepository} made: the tarball and the files `npm pack` put in it. */
export interface PackedRepository {
  /** The tarball's path. */
  tarball: string;
  /** The tarball's files, as `npm pack --json` lists them. */
  files: string[];
}

const packed = new Map<string, Promise<PackedRepository>>();

/**
 * `npm pack` of this repository into `destDir` (once per directory and process), as a user's
 * `npm install flagstack` gets it. Packed with `--ignore-scripts` after the node10 declarations
 * step (`npm run build` is `prepack`; the vitest global setup has run `tsc` already, and a full
 * build fails on a type error anywhere in a checkout that others are editing).
 */
export function packRepository(destDir: string): Promise<PackedRepository> {
  let result = packed.get(destDir);
  if (result === undefined) {
    result = (async () => {
      const env = {
        ...process.env,
        PATH: `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ""}`,
      };
      await execFileAsync(process.execPath, [join(REPO_ROOT, "scripts", "types-node10.mts")], {
        cwd: REPO_ROOT,
        env,
      });
      const { stdout } = await execFileAsync(
        "npm",
        ["pack", "--ignore-scripts", "--json", "--pack-destination", destDir],
        { cwd: REPO_ROOT, env, maxBuffer: 1 << 28 },
      );
      const [first] = JSON.parse(stdout) as { filename: string; files: { path: string }[] }[];
      if (first === undefined) throw new Error("npm pack listed no tarball");
      return { tarball: join(destDir, first.filename), files: first.files.map((f) => f.path) };
    })();
    packed.set(destDir, result);
  }
  return result;
}
