/**
 * The SDK, the emulator, the event importer and the `flagstack` command work where the package was
 * installed without `@pulumi/pulumi` (an application's test suite that wants the emulator, a
 * script on the typed clients): each subcommand loads its own modules when it runs (cli/index.ts).
 *
 * Run on the built `dist/` (the vitest global setup compiles it) in a node whose preloaded hook
 * makes every `@pulumi/...` request fail as a missing module does (`MODULE_NOT_FOUND`) and records
 * it; the full story, the packed package installed alone, is test/e2e/sdk-only-package.test.ts.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NO_PULUMI_HOOK } from "./no-pulumi";

const execFileAsync = promisify(execFile);
const ROOT = join(__dirname, "..", "..");

describe("without @pulumi/pulumi installed", () => {
  let dir: string;
  let hook: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "flagstack-no-pulumi-"));
    hook = join(dir, "no-pulumi.cjs");
    writeFileSync(hook, NO_PULUMI_HOOK);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** Runs node with the hook; its stdout, and stderr (which lists each `@pulumi/...` request). */
  const node = async (args: string[]) => {
    const { stdout, stderr } = await execFileAsync(process.execPath, ["-r", hook, ...args], { cwd: ROOT });
    return { stdout, stderr };
  };

  it("the SDK, emulator, event importer and command-line entry points load no @pulumi module", async () => {
    const entries = ["sdk/index.js", "emulator/index.js", "sdk/events/import/index.js", "cli/index.js"];
    const script = `for (const e of ${JSON.stringify(entries)}) require("./dist/" + e);
console.log(Object.keys(require.cache).filter((f) => f.includes("@pulumi")).length);`;
    expect(await node(["-e", script])).toEqual({ stdout: "0\n", stderr: "" });
  });

  it("the kinds load without it, and making a Pulumi resource fails as a missing @pulumi/pulumi does (the guard can fail)", async () => {
    const { stdout, stderr } = await node([
      "-e",
      `const { KIND_LIST } = require("./dist/provider/kinds.js"); const { Flag } = require("./dist/provider/flags/flag.js");
console.log(KIND_LIST.length);
try { new Flag("checkout", { workspace: "Default", name: "checkout" }) } catch (e) { console.log(e.message, "|", e.cause.code) }`,
    ]);
    expect(stdout).toBe(
      "30\nflagstack's Pulumi resources need @pulumi/pulumi (3.259.0 or newer): add it to the program's dependencies | MODULE_NOT_FOUND\n",
    );
    // the program's run first (its stack config), then the class to extend
    expect(stderr).toBe("loaded @pulumi/pulumi/runtime/state\nloaded @pulumi/pulumi/resource\n");
  });

  it("`flagstack --help` lists every subcommand", async () => {
    const { stdout, stderr } = await node(["bin/flagstack.js", "--help"]);
    expect(stdout.match(/^ {2}[a-z-]+(?= )/gm)).toEqual([
      "  emulator",
      "  events",
      "  recover",
      "  migrate-state",
      "  policy",
      "  impact",
      "  terraform",
      "  help",
    ]);
    expect(stderr).toBe("");
  });

  it("`flagstack emulator --port 0` starts, answers its health route and stops on SIGTERM", async () => {
    const child: ChildProcess = spawn(
      process.execPath,
      ["-r", hook, "bin/flagstack.js", "emulator", "--port", "0"],
      {
        cwd: ROOT,
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let stdout = "";
    let stderr = "";
    child.stderr?.on("data", (d: Buffer) => {
      stderr += d.toString();
    });
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout?.on("data", (d: Buffer) => {
        stdout += d.toString();
        const m = /listening on (http:\/\/127\.0\.0\.1:\d+)\n/.exec(stdout);
        if (m) resolve(m[1] as string);
      });
      child.on("exit", (code) => reject(new Error(`the emulator exited (${code}): ${stderr}`)));
    });
    const health = await fetch(`${url}/_emulator/health`);
    expect(await health.json()).toEqual({ status: "ok" });
    child.kill("SIGTERM");
    expect(await exited).toBe(0);
    expect(stderr).toBe("");
  });
});
