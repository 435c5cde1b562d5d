/**
 * The package installed alone (issue 27): an application's test suite that wants the emulator, or
 * a script on the typed clients, runs `npm install flagstack` without `@pulumi/pulumi` (an
 * optional peer dependency, so npm installs none). In a directory outside the repository:
 * `npx flagstack emulator --port 0` starts, the README's SDK program (its "SDK" section, as
 * written, run by Node's own type stripping: `node main.ts`) runs against it, and `npx flagstack
 * events import` sends a file to it. No Pulumi engine is involved.
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
