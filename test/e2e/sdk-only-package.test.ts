/**
 * The package installed alone (issue 27): an application's test suite that wants the emulator, or
 * a script on the typed clients, runs `npm install flagstack` without `@pulumi/pulumi` (an
 * optional peer dependency, so npm installs none). In a directory outside the repository:
 * `npx flagstack emulator --port 0` starts, the README's SDK program (its "SDK" section, as
 * written, run by Node's own type stripping: `node main.ts`) runs against it, `npx flagstack
 * events import` sends a file to it, and the Terraform story of docs/terraform.md's "With Node:
 * the npm package" runs with the real `tofu` (`npx flagstack terraform install --dir
 * ./terraform.d/plugins`, then `init`, `apply`, a `plan` with no change, `destroy`): the Terraform
 * door loads no `@pulumi/pulumi` (test/provider/runtime-imports.test.ts). No Pulumi engine is
 * involved.
 *
 * Packed with {@link packRepository}; npm is asked with `--prefer-offline`. The durations are
 * printed at the end.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { packRepository, REPO_ROOT } from "./harness";
import { tofuBinary } from "./tofu";

const execFileAsync = promisify(execFile);

/** The keys the README's commands use. */
const KEYS = {
  admin: "local-admin-key",
  sdk: "local-sdk-key",
  platform: "local-platform-key",
  account: "local",
};

/** The one TypeScript block of the README's "SDK" section. */
function readmeSdkProgram(): string {
  const readme = readFileSync(join(REPO_ROOT, "README.md"), "utf8");
  const start = readme.indexOf("\n## SDK\n");
  const end = readme.indexOf("\n## ", start + 1);
  if (start < 0 || end < 0) throw new Error("README.md: no SDK section");
  const blocks = [...readme.slice(start, end).matchAll(/^```ts\n([\s\S]*?)^```$/gm)];
  if (blocks.length !== 1) throw new Error(`README.md SDK: ${blocks.length} ts blocks`);
  return blocks[0]?.[1] as string;
}

/** Seconds since `start` (a `performance.now()`), to one decimal. */
const since = (start: number): number => Math.round((performance.now() - start) / 100) / 10;

describe("the packed package installed alone, without @pulumi/pulumi", () => {
  let dir: string;
  let project: string;
  let emulator: ChildProcess;
  let url: string;
  let emulatorOut = "";
  const seconds: Record<string, number> = {};
  /** Process environment with this Node first on PATH (npm, npx and the installed bin run on it). */
  const nodeEnv = {
    ...process.env,
    PATH: `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ""}`,
  };

  async function run(command: string, args: string[], env: NodeJS.ProcessEnv = nodeEnv) {
    try {
      return await execFileAsync(command, args, { cwd: project, env, maxBuffer: 1 << 26 });
    } catch (e) {
      const { stdout = "", stderr = "" } = e as { stdout?: string; stderr?: string };
      throw new Error(`${command} ${args.join(" ")} failed:\n${stdout}\n${stderr}`);
    }
  }

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "flagstack-sdk-only-"));
    project = join(dir, "app");
    mkdirSync(project);
    let start = performance.now();
    const { tarball } = await packRepository(dir);
    seconds.pack = since(start);
    writeFileSync(
      join(project, "package.json"),
      `${JSON.stringify({ name: "app", private: true, dependencies: { flagstack: `file:${tarball}` } }, null, 2)}\n`,
    );
    start = performance.now();
    await run("npm", ["install", "--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error"]);
    seconds.install = since(start);

    start = performance.now();
    emulator = spawn(
      "npx",
      [
        "flagstack",
        "emulator",
        "--port",
        "0",
        "--admin-key",
        KEYS.admin,
        "--sdk-key",
        KEYS.sdk,
        "--platform-key",
        KEYS.platform,
        "--account",
        KEYS.account,
      ],
      { cwd: project, env: nodeEnv, stdio: ["ignore", "pipe", "pipe"] },
    );
    emulator.stderr?.on("data", (d: Buffer) => {
      emulatorOut += d.toString();
    });
    url = await new Promise<string>((resolve, reject) => {
      emulator.stdout?.on("data", (d: Buffer) => {
        emulatorOut += d.toString();
        const m = /listening on (http:\/\/127\.0\.0\.1:\d+)\n/.exec(emulatorOut);
        if (m) resolve(m[1] as string);
      });
      emulator.on("exit", (code) =>
        reject(new Error(`flagstack emulator exited (${code}):\n${emulatorOut}`)),
      );
    });
    seconds["emulator start"] = since(start);
  });

  afterAll(async () => {
    if (emulator && emulator.exitCode === null) {
      const exited = new Promise((resolve) => emulator.on("exit", resolve));
      emulator.kill("SIGTERM");
      await exited;
    }
    if (dir) rmSync(dir, { recursive: true, force: true });
    console.log(
      `sdk-only package test, seconds: ${Object.entries(seconds)
        .map(([k, v]) => `${k} ${v}`)
        .join(", ")}`,
    );
  });

  it("npm installs no @pulumi package beside it", () => {
    expect(existsSync(join(project, "node_modules", "flagstack", "dist", "sdk", "index.js"))).toBe(true);
    expect(existsSync(join(project, "node_modules", "@pulumi"))).toBe(false);
  });

  it("`npx flagstack emulator` prints its banner with the keys given", () => {
    expect(emulatorOut.split("\n").slice(5, 9)).toEqual([
      `  admin key     ${KEYS.admin}`,
      `  SDK keys      Production: ${KEYS.sdk}, Staging: ${emulatorOut.match(/Staging: (\S+)/)?.[1]}`,
      `  platform key  ${KEYS.platform}`,
      `  account       ${KEYS.account}`,
    ]);
  });

  it("the README's SDK program runs as written against it (node main.ts)", async () => {
    writeFileSync(join(project, "main.ts"), readmeSdkProgram());
    const start = performance.now();
    const { stdout } = await run(process.execPath, ["--no-warnings", "main.ts"], {
      ...nodeEnv,
      FLAGSTACK_ADMIN_API_URL: url,
      FLAGSTACK_ADMIN_API_KEY: KEYS.admin,
      FLAGSTACK_EVENTS_URL: url,
      FLAGSTACK_SDK_KEY: KEYS.sdk,
      FLAGSTACK_PLATFORM_API_URL: url,
      FLAGSTACK_PLATFORM_API_KEY: KEYS.platform,
      FLAGSTACK_ACCOUNT_ID: KEYS.account,
    });
    seconds["sdk program"] = since(start);
    expect(stdout).toBe("on 10%, off 90%\nhello\n404 NotFoundError\n");
  });

  it("the Terraform story: `npx flagstack terraform install`, then tofu init, apply, a plan with no change and destroy", async () => {
    const tf = join(project, "infra");
    mkdirSync(tf);
    writeFileSync(
      join(tf, "main.tf"),
      `terraform {
  required_providers {
    flagstack = {
      source = "flagstack.local/flagstack/flagstack"
    }
  }
}

provider "flagstack" {}

resource "flagstack_flag" "checkout" {
  workspace    = "Default"
  name         = "pkg_checkout"
  traffic_type = "user"
}

resource "flagstack_flag_definition" "checkout" {
  workspace   = "Default"
  flag        = flagstack_flag.checkout.name
  environment = "Production"
  treatments  = [{ name = "on" }, { name = "off" }]
  default_treatment = "off"
  default_rule      = [{ treatment = "on", size = 10 }, { treatment = "off", size = 90 }]
}
`,
    );
    const tfEnv = {
      ...nodeEnv,
      HOME: tf,
      TF_CLI_CONFIG_FILE: join(tf, "none.tfrc"),
      TF_IN_AUTOMATION: "1",
      FLAGSTACK_ADMIN_API_URL: url,
      FLAGSTACK_ADMIN_API_KEY: KEYS.admin,
    };
    writeFileSync(join(tf, "none.tfrc"), "");
    const inTf = async (command: string, args: string[]) => {
      try {
        const r = await execFileAsync(command, args, { cwd: tf, env: tfEnv, maxBuffer: 1 << 26 });
        return r.stdout + r.stderr;
      } catch (e) {
        const { stdout = "", stderr = "" } = e as { stdout?: string; stderr?: string };
        throw new Error(`${command} ${args.join(" ")} failed:\n${stdout}\n${stderr}`);
      }
    };
    const start = performance.now();
    expect(
      await inTf("npx", ["flagstack", "terraform", "install", "--dir", "./terraform.d/plugins"]),
    ).toMatch(/^installed flagstack \S+ for flagstack\.local\/flagstack\/flagstack: /);
    const tofu = tofuBinary();
    expect(await inTf(tofu, ["init", "-no-color"])).toContain(
      "Installed flagstack.local/flagstack/flagstack",
    );
    expect(await inTf(tofu, ["apply", "-auto-approve", "-no-color"])).toContain(
      "Apply complete! Resources: 2 added, 0 changed, 0 destroyed.",
    );
    const requests = async () =>
      ((await (await fetch(`${url}/_emulator/requests?api=admin`)).json()) as unknown[]).length;
    const before = await requests();
    expect(await inTf(tofu, ["plan", "-refresh=false", "-no-color"])).toContain("No changes.");
    expect(await requests()).toBe(before);
    expect(await inTf(tofu, ["destroy", "-auto-approve", "-no-color"])).toContain(
      "Destroy complete! Resources: 2 destroyed.",
    );
    seconds.terraform = since(start);
  });

  it("`npx flagstack events import` sends a file to it", async () => {
    const before = (await (await fetch(`${url}/_emulator/events?countOnly=true`)).json()) as {
      count: number;
    };
    const lines = [1, 2, 3].map((i) =>
      JSON.stringify({
        eventTypeId: "checkout",
        trafficTypeName: "user",
        key: `user-${i}`,
        timestamp: 1_760_000_000_000 + i,
        value: i,
      }),
    );
    writeFileSync(join(project, "events.ndjson"), `${lines.join("\n")}\n`);
    const start = performance.now();
    const { stdout } = await run("npx", [
      "flagstack",
      "events",
      "import",
      "events.ndjson",
      "--events-url",
      url,
      "--sdk-key",
      KEYS.sdk,
      "--progress",
      "none",
    ]);
    seconds["events import"] = since(start);
    expect(stdout.endsWith("Done: all 3 valid records are accepted.\n")).toBe(true);
    const after = (await (await fetch(`${url}/_emulator/events?countOnly=true`)).json()) as { count: number };
    expect(after.count - before.count).toBe(3);
  });
});
