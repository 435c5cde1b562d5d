/**
 * A working directory for the real OpenTofu (`tofu`) against an emulator, with the flagstack
 * provider installed by `flagstack terraform install` into the directory's `terraform.d/plugins`
 * (a filesystem mirror `init` searches by itself): the e2e tests of the Terraform door beside
 * `terraform.test.ts` and `bench/terraform.bench.ts` run `tofu` through it. Needs the build
 * (`dist/`): the installed launcher runs the compiled provider.
 * @module
 */
import { execFile, execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { promisify } from "node:util";
import { platformDir } from "../../cli/terraform-command";
import type { Emulator } from "../../emulator";
import { apiRequests, REPO_ROOT, type RequestRecord } from "./harness";

const run = promisify(execFile);

/** `tofu` on PATH, else the one `scripts/env.sh`'s `flagstack_use_tofu` builds; an error naming the fix otherwise. */
export function tofuBinary(): string {
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    if (dir && existsSync(join(dir, "tofu"))) return join(dir, "tofu");
  }
  try {
    const bin = execFileSync(
      "bash",
      ["-c", `. "${join(REPO_ROOT, "scripts", "env.sh")}" && flagstack_use_tofu >&2 && command -v tofu`],
      { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] },
    ).trim();
    if (bin) return bin;
  } catch {
    // reported below
  }
  throw new Error("e2e: no OpenTofu CLI: run `bash scripts/setup.sh --tofu` or put tofu v1.12+ on PATH");
}

/** The `terraform` block and a provider block for an emulator (its key from the environment). */
export const PROVIDER_HCL = `terraform {
  required_providers {
    flagstack = {
      source = "flagstack.local/flagstack/flagstack"
    }
  }
}

variable "admin_api_url" {
  type = string
}

variable "requests_per_second" {
  type    = number
  default = 100000
}

provider "flagstack" {
  admin_api_url       = var.admin_api_url
  requests_per_second = var.requests_per_second
  # admin_api_key: from FLAGSTACK_ADMIN_API_KEY
}
`;

/**
 * {@link PROVIDER_HCL} and `flags` flags named `<prefix>-<i>` (tagged), each as a block of its own
 * with a definition in Production and Staging (the emulator's environments): `flags * 3` resources.
 */
export function flagsHcl(prefix: string, flags: number): string {
  let text = PROVIDER_HCL;
  for (let i = 0; i < flags; i++) {
    text += `
resource "flagstack_flag" "f${i}" {
  workspace = "Default"
  name      = "${prefix}-${i}"
  tags      = ["owner:bench"]
}
`;
    for (const env of ["Production", "Staging"])
      text += `
resource "flagstack_flag_definition" "f${i}_${env.toLowerCase()}" {
  workspace         = "Default"
  flag              = flagstack_flag.f${i}.name
  environment       = "${env}"
  treatments        = [{ name = "on", keys = ["user-${i}"] }, { name = "off" }]
  default_treatment = "off"
  default_rule      = [{ treatment = "on", size = 10 }, { treatment = "off", size = 90 }]
}
`;
  }
  return text;
}

/** What one `tofu` command did: exit code, output, the API requests meanwhile, wall time. */
export interface TofuRun {
  code: number;
  out: string;
  requests: RequestRecord[];
  ms: number;
}

/** A working directory with the provider installed, for one emulator. */
export class TofuDir {
  private constructor(
    readonly emu: Emulator,
    readonly dir: string,
    readonly tofu: string,
    readonly env: Record<string, string>,
  ) {}

  /**
   * A new directory, the provider installed into it; `init` is the caller's first command. With
   * `mirror` (a release's `terraform-mirror/`), `init` installs the provider binary from that
   * filesystem mirror instead of the Node launcher `flagstack terraform install` writes.
   */
  static open(emu: Emulator, options: { mirror?: string } = {}): TofuDir {
    const tofu = tofuBinary();
    const dir = mkdtempSync(join(tmpdir(), "flagstack-tofu-"));
    const cliConfig = join(dir, "tofurc");
    writeFileSync(
      cliConfig,
      options.mirror === undefined
        ? ""
        : `provider_installation {\n  filesystem_mirror {\n    path = ${JSON.stringify(options.mirror)}\n  }\n}\n`,
    );
    const env = {
      PATH: `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ""}`,
      HOME: dir,
      TF_CLI_CONFIG_FILE: cliConfig,
      TF_IN_AUTOMATION: "1",
      CHECKPOINT_DISABLE: "1",
      TF_VAR_admin_api_url: emu.url,
      FLAGSTACK_ADMIN_API_URL: emu.url,
      FLAGSTACK_ADMIN_API_KEY: emu.adminKey,
      FLAGSTACK_JOURNAL_DIR: join(dir, "journal"),
    };
    if (options.mirror === undefined)
      execFileSync(
        process.execPath,
        [
          join(REPO_ROOT, "bin", "flagstack.js"),
          "terraform",
          "install",
          "--dir",
          join(dir, "terraform.d", "plugins"),
        ],
        { stdio: "pipe" },
      );
    return new TofuDir(emu, dir, tofu, env);
  }

  /** Writes `main.tf` (the provider's blocks are the caller's: see {@link PROVIDER_HCL}). */
  write(text: string, file = "main.tf"): void {
    writeFileSync(join(this.dir, file), text);
  }

  /** Runs `tofu <args> -no-color` in the directory. */
  async tf(args: string[]): Promise<TofuRun> {
    const before = this.emu.requests().length;
    const started = performance.now();
    let code = 0;
    let out: string;
    try {
      const r = await run(this.tofu, [...args, "-no-color"], {
        cwd: this.dir,
        env: this.env,
        maxBuffer: 256 * 1024 * 1024,
      });
      out = r.stdout + r.stderr;
    } catch (e) {
      const err = e as { code?: number; stdout?: string; stderr?: string };
      code = typeof err.code === "number" ? err.code : 1;
      out = (err.stdout ?? "") + (err.stderr ?? "");
    }
    const ms = performance.now() - started;
    return { code, out, requests: apiRequests(this.emu.requests().slice(before)), ms };
  }

  /** `tofu output -json`: each output's value. */
  async outputs(): Promise<Record<string, { value: unknown }>> {
    const { stdout } = await run(this.tofu, ["output", "-json"], { cwd: this.dir, env: this.env });
    return JSON.parse(stdout) as Record<string, { value: unknown }>;
  }

  close(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** The emulator's writes (dry-run probes of approval gates change nothing and are left out). */
export const writes = (requests: RequestRecord[]): string[] =>
  requests
    .filter((r) => r.method !== "GET" && !r.query.includes("dry_run=true"))
    .map((r) => `${r.method} ${r.path} ${r.status}`);

/** This machine's platform as Terraform names it (`linux_amd64`). */
export const THIS_PLATFORM = platformDir();

/**
 * The release's provider binary for `platforms` (this machine's by default) built into `out`
 * (`npm run release -- --no-build --binaries-only`, after the build the tests' global setup made):
 * its `terraform-mirror/` for {@link TofuDir.open}'s `mirror`.
 */
export function releaseBinaries(
  out: string,
  platforms: readonly string[] = [THIS_PLATFORM],
): { mirror: string } {
  execFileSync(
    process.execPath,
    [
      join(REPO_ROOT, "scripts", "release.mts"),
      "--no-build",
      "--binaries-only",
      "--platforms",
      platforms.join(","),
      "--out",
      out,
    ],
    { cwd: REPO_ROOT, stdio: "ignore" },
  );
  return { mirror: join(out, "terraform-mirror") };
}
