/**
 * The Python example (`examples/python`) through the real engine and the native provider, from a
 * copy outside the repository: its Python SDK generated from the plugin's schema
 * (`pulumi package gen-sdk`) and installed in a virtualenv with `pulumi==3.259.0` (made once, from
 * PyPI, in `~/.cache/flagstack`), where the engine's Python language host runs it. `up` makes a flag, its
 * Production targeting and a group, a lookup resolves the environment, a preview changes nothing
 * and writes nothing, `destroy` leaves nothing.
 */
import { execFile, execFileSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clients, defaultWorkspaceId, flagNames, groupNames, NATIVE_EXAMPLE_TARGETING } from "./fixtures";
import { EngineStack, pulumiCli, REPO_ROOT } from "./harness";

const execFileAsync = promisify(execFile);
const PLUGIN_DIR = join(REPO_ROOT, "provider-plugin");

/** The virtualenv the Python programs run in: `pulumi` at the CLI's version and the SDK's needs. */
const VENV = join(homedir(), ".cache", "flagstack", "python-pulumi-3.259.0");

function ensureVenv(): void {
  const python = join(VENV, "bin", "python");
  if (existsSync(python)) {
    try {
      execFileSync(python, ["-c", "import pulumi, parver, semver, setuptools, wheel"], { stdio: "ignore" });
      return;
    } catch {
      // incomplete: install again below
    }
  }
  execFileSync("python3", ["-m", "venv", VENV], { stdio: "inherit" });
  execFileSync(
    join(VENV, "bin", "pip"),
    [
      "install",
      "-q",
      "pulumi==3.259.0",
      "parver>=0.2.1",
      "semver>=2.8.1",
      "typing-extensions>=4.11",
      "setuptools",
      "wheel",
    ],
    { stdio: "inherit" },
  );
}

describe("native provider: the Python example", () => {
  let s: EngineStack;

  beforeAll(async () => {
    ensureVenv();
    s = await EngineStack.open({ program: "examples/python" });
    const file = join(s.programDir, "Pulumi.yaml");
    const text = readFileSync(file, "utf8");
    expect(text).toContain("path: ../../provider-plugin\n");
    expect(text).toContain("virtualenv: venv\n");
    writeFileSync(
      file,
      text
        .replace("path: ../../provider-plugin\n", `path: ${PLUGIN_DIR}\n`)
        .replace("virtualenv: venv\n", `virtualenv: ${VENV}\n`),
    );
    const cli = await pulumiCli();
    await execFileAsync(
      cli.command,
      ["package", "gen-sdk", PLUGIN_DIR, "--language", "python", "--out", join(s.programDir, "sdk")],
      { cwd: s.dir, env: { ...process.env, ...s.env } },
    );
    // As `pip install -r requirements.txt` would (the SDK reads its version from its metadata).
    await execFileAsync(
      join(VENV, "bin", "pip"),
      [
        "install",
        "-q",
        "--no-deps",
        "--no-build-isolation",
        "--force-reinstall",
        join(s.programDir, "sdk", "python"),
      ],
      { cwd: s.dir },
    );
  });

  afterAll(async () => {
    await s?.close();
  });

  it("up, a preview that changes and writes nothing, destroy", async () => {
    const { admin } = clients(s.emu);
    const ws = await defaultWorkspaceId(admin);

    const up = await s.up();
    expect(up.result.summary.resourceChanges).toEqual({ create: 4 });
    expect(await flagNames(admin)).toEqual(["py-checkout"]);
    expect(await groupNames(admin)).toEqual(["py-reviewers"]);
    const flag = await admin.flags.get(ws, "py-checkout");
    expect(flag.description).toBe("The one-page checkout, from Python");
    const def = await admin.definitions.get(ws, "py-checkout", "Production");
    expect({ treatments: def.treatments, rules: def.rules, defaultRule: def.defaultRule }).toEqual({
      treatments: [{ name: "on", keys: ["qa-bot", "alice@example.com"] }, { name: "off" }],
      ...NATIVE_EXAMPLE_TARGETING,
    });
    expect(await s.outputs()).toEqual({
      flagId: flag.id,
      environmentId: def.environment.id,
      productionIsProduction: true,
      groupId: expect.any(String),
    });

    const preview = await s.preview();
    expect(preview.result.changeSummary).toEqual({ same: 4 });
    // The lookup runs in a preview too: it reads, and nothing else does anything.
    expect(preview.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      "GET /internal/api/v2/workspaces",
      `GET /internal/api/v2/environments/ws/${ws}`,
    ]);

    const destroy = await s.destroy();
    expect(destroy.result.summary.resourceChanges).toEqual({ delete: 4 });
    expect(await flagNames(admin)).toEqual([]);
    expect(await groupNames(admin)).toEqual([]);
  });
});
