/**
 * The Python example (`examples/python`) through the real engine and the native provider, from a
 * copy outside the repository: its Python SDK generated from the plugin's schema
 * (`pulumi package gen-sdk`) and installed in a virtualenv with `pulumi==3.259.0` (made once, from
 * PyPI, in `~/.cache/flagstack`), where the engine's Python language host runs it. `up` makes a flag, its
 * Production targeting and a group, a lookup resolves the environment, a preview changes nothing
 * and writes nothing, `destroy` leaves nothing. Then, on the same stack: a one-field change
 * previews as a field-level diff (`trafficAllocation`) and goes out as one JSON Patch of that field
 * (bodies seen through a recording proxy in front of the emulator, whose own log has none); a
 * refresh after an out-of-band change records the live value and the next preview and `up` restore
 * the program's; `pulumi import` of a flag made outside Pulumi writes Python that, added to the
 * program, previews with nothing to do; the policy pack checks the program's native resources (a
 * failed targeting assertion blocks the preview); `destroy` leaves nothing. And the README's Python snippet
 * runs and declares the same objects as its YAML and TypeScript.
 */
import { execFile, execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RecordingProxy, startRecordingProxy } from "../provider/harness";
import { clients, defaultWorkspaceId, flagNames, groupNames, NATIVE_EXAMPLE_TARGETING } from "./fixtures";
import { EngineStack, pulumiCli, REPO_ROOT, writeJson } from "./harness";
import { declaredInputs, README_NATIVE_INPUTS, readmeNativeSnippet } from "./native-readme";
import { type NativeExample, oneFieldChange, outOfBandRefresh } from "./native-stories";
import { sharedOwnershipBlock, sharedOwnershipStory } from "./shared-ownership-story";

const execFileAsync = promisify(execFile);
const PLUGIN_DIR = join(REPO_ROOT, "provider-plugin");
const POLICY_PACK = join(REPO_ROOT, "policy");

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
  /** Between the provider and the emulator's admin API: the emulator's log has no bodies. */
  let proxy: RecordingProxy;

  beforeAll(async () => {
    ensureVenv();
    s = await EngineStack.open({ program: "examples/python" });
    proxy = await startRecordingProxy(s.emu.url);
    await s.setConfig({ "flagstack:adminApiUrl": proxy.url });
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
    await proxy?.stop();
    await s?.close();
  });

  /** Edits the program copy's __main__.py. */
  const editProgram = (edit: (text: string) => string) => {
    const file = join(s.programDir, "__main__.py");
    const before = readFileSync(file, "utf8");
    const after = edit(before);
    expect(after).not.toBe(before);
    writeFileSync(file, after);
  };

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

  /** This language's example, for the stories every language tells (`./native-stories.ts`). */
  const example = (): NativeExample => ({
    s,
    proxy,
    flag: "py-checkout",
    description: "The one-page checkout, from Python",
    lookups: true,
  });

  it("a one-field change: `preview --diff` names the field, `up` sends one PATCH of exactly that field", async () => {
    await oneFieldChange(example(), () =>
      editProgram((t) =>
        t.replace(
          '    default_treatment="off",\n',
          '    default_treatment="off",\n    traffic_allocation=50,\n',
        ),
      ),
    );
  });

  it("refresh after an out-of-band change records the live value; the next preview and up restore the program's", async () => {
    await outOfBandRefresh(example());
  });

  it("`pulumi import` of a flag made outside Pulumi writes Python; with it in the program, a preview has nothing to do", async () => {
    const { admin } = clients(s.emu);
    const ws = await defaultWorkspaceId(admin);
    await admin.flags.create(ws, "user", { name: "py-imported", description: "made outside Pulumi" });
    const out = join(s.dir, "imported.py");
    await s.cli([
      "import",
      "flagstack:index:Flag",
      "imported",
      "Default/py-imported",
      "--yes",
      "--protect=false",
      "--out",
      out,
    ]);
    const generated = readFileSync(out, "utf8");
    expect(generated).toBe(`import pulumi
import pulumi_flagstack as flagstack

imported = flagstack.Flag("imported",
    adopt=False,
    description="made outside Pulumi",
    name="py-imported",
    rollout_status="Pre-Production",
    tags=[],
    traffic_type="user",
    workspace="Default")
`);
    editProgram((t) => `${t}\n${generated}`);
    const preview = await s.preview();
    expect(preview.result.changeSummary).toEqual({ same: 5 });
    expect(preview.requests.filter((r) => r.method !== "GET")).toEqual([]);
  });

  it("the policy pack checks the Python program's native resources: a failed targeting assertion blocks the preview", async () => {
    const config = writeJson(s.dir, "python-targeting.json", {
      "flag-naming": "disabled",
      "flag-required-tags": "disabled",
      "targeting-assertions": {
        expectations: [
          { flag: "py-checkout", environment: "Production", key: "alice@example.com", treatment: "on" },
          { flag: "py-checkout", environment: "Production", key: "qa-bot", treatment: "off" },
        ],
      },
    });
    const error = await s.preview({ policyPacks: [POLICY_PACK], policyPackConfigs: [config] }).then(
      () => new Error("expected the policy pack to block the preview"),
      (e: unknown) => e,
    );
    const text = String(error);
    expect(text).toContain("[mandatory]");
    expect(text).toContain("targeting-assertions");
    expect(text).toContain(
      'in environment "Production", key "qa-bot" gets treatment "on" for flag "py-checkout" (label "whitelisted"), expected "off"',
    );
    // The expectation that holds is not reported.
    expect(text).not.toContain('key "alice@example.com" gets treatment');
  });

  it("destroy leaves nothing", async () => {
    const { admin } = clients(s.emu);
    const destroy = await s.destroy();
    expect(destroy.result.summary.resourceChanges).toEqual({ delete: 5 });
    expect(await flagNames(admin)).toEqual([]);
    expect(await groupNames(admin)).toEqual([]);
    expect(await s.resources()).toEqual([]);
  });

  it("the README's Python runs as written and declares the same Flag and FlagDefinition as its YAML and TypeScript", async () => {
    const dir = mkdtempSync(join(tmpdir(), "flagstack-readme-python-"));
    // The SDK is the one installed in the virtualenv above; the plugin path is the install's.
    writeFileSync(
      join(dir, "Pulumi.yaml"),
      `name: readme-python
runtime:
  name: python
  options:
    toolchain: pip
    virtualenv: ${VENV}
plugins:
  providers:
    - name: flagstack
      path: node_modules/flagstack/provider-plugin
`,
    );
    writeFileSync(join(dir, "__main__.py"), readmeNativeSnippet("python"));
    const r = await EngineStack.open({ program: dir });
    try {
      expect(await declaredInputs(r)).toEqual(README_NATIVE_INPUTS);
      expect((await r.destroy()).result.summary.resourceChanges).toEqual({ delete: 3 });
    } finally {
      await r.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("docs/shared-ownership.md's Python keeps the UI's targeting through up and up --refresh, and a traffic allocation change is one PATCH", async () => {
    const dir = mkdtempSync(join(tmpdir(), "flagstack-shared-ownership-python-"));
    // The SDK is the one installed in the virtualenv above; the plugin path is the install's.
    writeFileSync(
      join(dir, "Pulumi.yaml"),
      `name: shared-ownership-python
runtime:
  name: python
  options:
    toolchain: pip
    virtualenv: ${VENV}
plugins:
  providers:
    - name: flagstack
      path: node_modules/flagstack/provider-plugin
`,
    );
    writeFileSync(join(dir, "__main__.py"), sharedOwnershipBlock("python"));
    const r = await EngineStack.open({ program: dir });
    try {
      await sharedOwnershipStory(r, () => {
        const file = join(r.programDir, "__main__.py");
        const text = readFileSync(file, "utf8");
        expect(text).toContain("traffic_allocation=100,");
        writeFileSync(file, text.replace("traffic_allocation=100,", "traffic_allocation=50,"));
      });
    } finally {
      await r.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
