/**
 * TypeScript through the SDK generated from the native provider's schema (`examples/native-typescript`,
 * from a copy outside the repository, its SDK generated into the copy with
 * `pulumi package gen-sdk --language nodejs`): `up` makes a flag, its Production targeting and a
 * group through the plugin, a lookup resolves the environment, a preview changes nothing and
 * writes nothing, `destroy` leaves nothing. Then, on the same stack: a one-field change previews as
 * a field-level diff (`trafficAllocation`) and goes out as one JSON Patch of that field (bodies seen
 * through a recording proxy in front of the emulator, whose own log has none); a refresh after an
 * out-of-band change records the live value and the next preview and `up` restore the program's;
 * `pulumi import` of a flag made outside Pulumi writes TypeScript that, added to the program,
 * previews with nothing to do; `destroy` leaves nothing. And the README's TypeScript snippet runs
 * and declares the same objects as its Python and YAML.
 */
import { execFile } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RecordingProxy, startRecordingProxy } from "../provider/harness";
import { clients, defaultWorkspaceId, flagNames, groupNames, NATIVE_EXAMPLE_TARGETING } from "./fixtures";
import { EngineStack, pulumiCli, REPO_ROOT } from "./harness";
import { declaredInputs, README_NATIVE_INPUTS, readmeNativeSnippet } from "./native-readme";
import { type NativeExample, oneFieldChange, outOfBandRefresh } from "./native-stories";

const execFileAsync = promisify(execFile);
const PLUGIN_DIR = join(REPO_ROOT, "provider-plugin");

describe("native provider: TypeScript through the generated SDK", () => {
  let s: EngineStack;
  /** Between the provider and the emulator's admin API: the emulator's log has no bodies. */
  let proxy: RecordingProxy;

  beforeAll(async () => {
    s = await EngineStack.open({ program: "examples/native-typescript" });
    proxy = await startRecordingProxy(s.emu.url);
    await s.setConfig({ "flagstack:adminApiUrl": proxy.url });
    const file = join(s.programDir, "Pulumi.yaml");
    const text = readFileSync(file, "utf8");
    expect(text).toContain("path: ../../provider-plugin\n");
    writeFileSync(file, text.replace("path: ../../provider-plugin\n", `path: ${PLUGIN_DIR}\n`));
    const cli = await pulumiCli();
    await execFileAsync(
      cli.command,
      ["package", "gen-sdk", PLUGIN_DIR, "--language", "nodejs", "--out", join(s.programDir, "sdk")],
      { cwd: s.dir, env: { ...process.env, ...s.env } },
    );
  });

  afterAll(async () => {
    await proxy?.stop();
    await s?.close();
  });

  /** Edits the program copy's index.ts. */
  const editProgram = (edit: (text: string) => string) => {
    const file = join(s.programDir, "index.ts");
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
    expect((await s.resources()).map((r) => r.type).sort()).toEqual([
      "flagstack:index:Flag",
      "flagstack:index:FlagDefinition",
      "flagstack:index:Group",
      "pulumi:providers:flagstack",
      "pulumi:pulumi:Stack",
    ]);
    expect(await flagNames(admin)).toEqual(["ts-checkout"]);
    expect(await groupNames(admin)).toEqual(["ts-reviewers"]);
    const flag = await admin.flags.get(ws, "ts-checkout");
    const def = await admin.definitions.get(ws, "ts-checkout", "Production");
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
    flag: "ts-checkout",
    description: "The one-page checkout, through the generated SDK",
    lookups: true,
  });

  it("a one-field change: `preview --diff` names the field, `up` sends one PATCH of exactly that field", async () => {
    await oneFieldChange(example(), () =>
      editProgram((t) =>
        t.replace('  defaultTreatment: "off",\n', '  defaultTreatment: "off",\n  trafficAllocation: 50,\n'),
      ),
    );
  });

  it("refresh after an out-of-band change records the live value; the next preview and up restore the program's", async () => {
    await outOfBandRefresh(example());
  });

  it("`pulumi import` of a flag made outside Pulumi writes TypeScript; with it in the program, a preview has nothing to do", async () => {
    const { admin } = clients(s.emu);
    const ws = await defaultWorkspaceId(admin);
    await admin.flags.create(ws, "user", { name: "ts-imported", description: "made outside Pulumi" });
    const out = join(s.dir, "imported.ts");
    await s.cli([
      "import",
      "flagstack:index:Flag",
      "imported",
      "Default/ts-imported",
      "--yes",
      "--protect=false",
      "--out",
      out,
    ]);
    const generated = readFileSync(out, "utf8");
    expect(generated).toBe(`import * as pulumi from "@pulumi/pulumi";
import * as flagstack from "@flagstack/pulumi";

const imported = new flagstack.Flag("imported", {
    adopt: false,
    description: "made outside Pulumi",
    name: "ts-imported",
    rolloutStatus: "Pre-Production",
    tags: [],
    trafficType: "user",
    workspace: "Default",
});
`);
    // The program already imports the generated SDK (from ./sdk/nodejs, not installed as
    // @flagstack/pulumi) as `flagstack`.
    editProgram((t) => `${t}\n${generated.replace(/^import .*\n/gm, "")}`);
    const preview = await s.preview();
    expect(preview.result.changeSummary).toEqual({ same: 5 });
    expect(preview.requests.filter((r) => r.method !== "GET")).toEqual([]);
  });

  it("destroy leaves nothing", async () => {
    const { admin } = clients(s.emu);
    const destroy = await s.destroy();
    expect(destroy.result.summary.resourceChanges).toEqual({ delete: 5 });
    expect(await flagNames(admin)).toEqual([]);
    expect(await groupNames(admin)).toEqual([]);
    expect(await s.resources()).toEqual([]);
  });

  it("the README's TypeScript runs as written and declares the same Flag and FlagDefinition as its YAML and Python", async () => {
    const dir = mkdtempSync(join(tmpdir(), "flagstack-readme-typescript-"));
    // The example's project files with the install's plugin path, the SDK generated above.
    for (const f of ["package.json", "tsconfig.json"]) {
      cpSync(join(REPO_ROOT, "examples", "native-typescript", f), join(dir, f));
    }
    const project = readFileSync(join(REPO_ROOT, "examples", "native-typescript", "Pulumi.yaml"), "utf8");
    writeFileSync(
      join(dir, "Pulumi.yaml"),
      project.replace("path: ../../provider-plugin\n", "path: node_modules/flagstack/provider-plugin\n"),
    );
    cpSync(join(s.programDir, "sdk"), join(dir, "sdk"), { recursive: true });
    writeFileSync(join(dir, "index.ts"), readmeNativeSnippet("text"));
    const r = await EngineStack.open({ program: dir });
    try {
      expect(await declaredInputs(r)).toEqual(README_NATIVE_INPUTS);
      expect((await r.destroy()).result.summary.resourceChanges).toEqual({ delete: 3 });
    } finally {
      await r.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
