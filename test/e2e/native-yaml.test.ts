/**
 * The native provider through the real engine, from a Pulumi YAML program outside the repository
 * (`examples/native-yaml`, copied to a temporary directory) that names the provider plugin by path
 * in its `Pulumi.yaml`: `up` makes a flag, its Production targeting (individual targets, a rule, a
 * ramp) and a group; a preview right after sends not one request; `destroy` leaves nothing. Then,
 * on the same stack: a one-field change previews as a field-level diff (`trafficAllocation`) and
 * goes out as one JSON Patch of that field (bodies seen through a recording proxy in front of the
 * emulator, whose own log has none); a refresh after an out-of-band change records the live value
 * and the next preview and `up` restore the program's; `pulumi import` of a flag made outside
 * Pulumi writes YAML that, added to the program, previews with nothing to do; a rename previews as
 * a replacement whose detailed diff marks the field; `destroy` leaves nothing. The README's YAML
 * snippet runs and declares the same objects as its Python and TypeScript. And `pulumi package get-schema` of the plugin directory prints the committed schema.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseDocument } from "yaml";
import { type RecordingProxy, startRecordingProxy } from "../provider/harness";
import { clients, defaultWorkspaceId, flagNames, groupNames, NATIVE_EXAMPLE_TARGETING } from "./fixtures";
import { EngineStack, engineEnv, type PreviewStep, pulumiCli, REPO_ROOT } from "./harness";
import { declaredInputs, README_NATIVE_INPUTS, readmeNativeSnippet } from "./native-readme";
import { type NativeExample, oneFieldChange, outOfBandRefresh } from "./native-stories";
import { sharedOwnershipBlock, sharedOwnershipStory } from "./shared-ownership-story";

const execFileAsync = promisify(execFile);
const PLUGIN_DIR = join(REPO_ROOT, "provider-plugin");

describe("native provider: a YAML program outside the repository", () => {
  let s: EngineStack;
  /** Between the provider and the emulator's admin API: the emulator's log has no bodies. */
  let proxy: RecordingProxy;

  beforeAll(async () => {
    s = await EngineStack.open({ program: "examples/native-yaml" });
    proxy = await startRecordingProxy(s.emu.url);
    await s.setConfig({ "flagstack:adminApiUrl": proxy.url });
    // The copy lives outside the repository: the plugin is named by its absolute path.
    const file = join(s.programDir, "Pulumi.yaml");
    const text = readFileSync(file, "utf8");
    expect(text).toContain("path: ../../provider-plugin\n");
    writeFileSync(file, text.replace("path: ../../provider-plugin\n", `path: ${PLUGIN_DIR}\n`));
  });

  afterAll(async () => {
    await proxy?.stop();
    await s?.close();
  });

  /** Edits the program copy's Pulumi.yaml. */
  const editProgram = (edit: (text: string) => string) => {
    const file = join(s.programDir, "Pulumi.yaml");
    const before = readFileSync(file, "utf8");
    const after = edit(before);
    expect(after).not.toBe(before);
    writeFileSync(file, after);
  };

  it("up, a preview with zero requests, destroy", async () => {
    const { admin } = clients(s.emu);
    const ws = await defaultWorkspaceId(admin);

    const up = await s.up();
    expect(up.result.summary.resourceChanges).toEqual({ create: 4 });
    expect(await flagNames(admin)).toEqual(["new-checkout"]);
    expect(await groupNames(admin)).toEqual(["flag-reviewers"]);
    const flag = await admin.flags.get(ws, "new-checkout");
    expect({
      description: flag.description,
      tags: flag.tags?.map((t) => t.name).sort(),
      rolloutStatus: flag.rolloutStatus.name,
    }).toEqual({
      description: "The one-page checkout",
      tags: ["owner:payments", "web"],
      rolloutStatus: "Ramping",
    });
    const def = await admin.definitions.get(ws, "new-checkout", "Production");
    expect({
      treatments: def.treatments,
      defaultTreatment: def.defaultTreatment,
      baselineTreatment: def.baselineTreatment,
      rules: def.rules,
      defaultRule: def.defaultRule,
      killed: def.killed,
    }).toEqual({
      treatments: [
        { name: "on", description: "the new checkout", keys: ["qa-bot", "alice@example.com"] },
        { name: "off", description: "the old checkout" },
      ],
      defaultTreatment: "off",
      baselineTreatment: "off",
      ...NATIVE_EXAMPLE_TARGETING,
      killed: false,
    });
    const outputs = await s.outputs();
    expect(outputs).toEqual({
      flagId: flag.id,
      rolloutStatus: "Ramping",
      definitionEnvironment: "Production",
      groupId: expect.any(String),
    });

    // The resources carry the native tokens, under the flagstack provider (not pulumi-nodejs).
    expect((await s.resources()).map((r) => r.type)).toEqual([
      "pulumi:pulumi:Stack",
      "pulumi:providers:flagstack",
      expect.stringMatching(/^flagstack:index:(Flag|Group)$/),
      expect.stringMatching(/^flagstack:index:(Flag|Group)$/),
      "flagstack:index:FlagDefinition",
    ]);
    // The admin key is stored encrypted: it reached the provider as a secret of the stack config.
    expect(await s.exportText()).not.toContain(s.emu.adminKey);

    const preview = await s.preview();
    expect(preview.result.changeSummary).toEqual({ same: 4 });
    expect(preview.requests).toEqual([]);

    const destroy = await s.destroy();
    expect(destroy.result.summary.resourceChanges).toEqual({ delete: 4 });
    expect(await flagNames(admin)).toEqual([]);
    expect(await groupNames(admin)).toEqual([]);
  });

  /** This language's example, for the stories every language tells (`./native-stories.ts`). */
  const example = (): NativeExample => ({
    s,
    proxy,
    flag: "new-checkout",
    description: "The one-page checkout",
    lookups: false,
  });

  it("a one-field change: `preview --diff` names the field, `up` sends one PATCH of exactly that field", async () => {
    await oneFieldChange(example(), () =>
      editProgram((t) =>
        t.replace(
          '      baselineTreatment: "off"\n',
          '      baselineTreatment: "off"\n      trafficAllocation: 50\n',
        ),
      ),
    );
  });

  it("refresh after an out-of-band change records the live value; the next preview and up restore the program's", async () => {
    await outOfBandRefresh(example());
  });

  it("`pulumi import` of a flag made outside Pulumi writes YAML; with it in the program, a preview has nothing to do", async () => {
    const { admin } = clients(s.emu);
    const ws = await defaultWorkspaceId(admin);
    await admin.flags.create(ws, "user", { name: "yaml-imported", description: "made outside Pulumi" });
    const out = join(s.dir, "imported.yaml");
    await s.cli([
      "import",
      "flagstack:index:Flag",
      "imported",
      "Default/yaml-imported",
      "--yes",
      "--protect=false",
      "--out",
      out,
    ]);
    const generated = parseDocument(readFileSync(out, "utf8"));
    expect(generated.errors).toEqual([]);
    expect(generated.toJS()).toEqual({
      resources: {
        imported: {
          type: "flagstack:Flag",
          properties: {
            workspace: "Default",
            trafficType: "user",
            name: "yaml-imported",
            description: "made outside Pulumi",
            tags: [],
            rolloutStatus: "Pre-Production",
            adopt: false,
          },
        },
      },
    });
    editProgram((t) => {
      const doc = parseDocument(t);
      doc.setIn(["resources", "imported"], generated.getIn(["resources", "imported"]));
      return doc.toString();
    });
    const preview = await s.preview();
    expect(preview.result.changeSummary).toEqual({ same: 5 });
    expect(preview.requests).toEqual([]);
  });

  it("a change that replaces: the detailed diff marks the field as replacing, and a preview writes nothing", async () => {
    editProgram((t) => t.replace("      name: new-checkout\n", "      name: newer-checkout\n"));
    try {
      const before = s.emu.requests().length;
      const { stdout } = await s.cli(["preview", "--json"]);
      expect(
        s.emu
          .requests()
          .slice(before)
          .filter((r) => r.api !== "emulator"),
      ).toEqual([]);
      const steps = (JSON.parse(stdout) as { steps: PreviewStep[] }).steps
        .filter((step) => step.op !== "same")
        .map(({ op, urn, diffReasons, detailedDiff }) => ({
          op,
          name: urn.slice(urn.lastIndexOf("::") + 2),
          diffReasons,
          detailedDiff,
        }));
      expect(steps).toEqual([
        {
          op: "replace",
          name: "checkout",
          diffReasons: ["name"],
          detailedDiff: { name: { kind: "update-replace", inputDiff: false } },
        },
        // Replaced with its flag, which is deleted before it is replaced (a flag's name is
        // unique): the engine's decision, which names no property.
        { op: "replace", name: "checkoutProduction", diffReasons: undefined, detailedDiff: null },
      ]);
      const diff = await s.preview({ diff: true });
      expect(diff.result.stdout).toMatch(/\n\s+\+-flagstack:index:Flag: \(replace\)\n/);
      expect(diff.result.stdout).toMatch(/\n\s+~ name: "new-checkout" => "newer-checkout"\n/);
    } finally {
      editProgram((t) => t.replace("      name: newer-checkout\n", "      name: new-checkout\n"));
    }
  });

  it("destroy leaves nothing", async () => {
    const { admin } = clients(s.emu);
    const destroy = await s.destroy();
    expect(destroy.result.summary.resourceChanges).toEqual({ delete: 5 });
    expect(await flagNames(admin)).toEqual([]);
    expect(await groupNames(admin)).toEqual([]);
    expect(await s.resources()).toEqual([]);
  });

  it("the README's YAML runs as written and declares the same Flag and FlagDefinition as its Python and TypeScript", async () => {
    const dir = mkdtempSync(join(tmpdir(), "flagstack-readme-yaml-"));
    // Verbatim: the copy's node_modules/flagstack is this repository, as in an install.
    writeFileSync(
      join(dir, "Pulumi.yaml"),
      `name: readme-yaml\nruntime: yaml\n${readmeNativeSnippet("yaml")}`,
    );
    const r = await EngineStack.open({ program: dir });
    try {
      expect(await declaredInputs(r)).toEqual(README_NATIVE_INPUTS);
      expect((await r.destroy()).result.summary.resourceChanges).toEqual({ delete: 3 });
    } finally {
      await r.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("docs/shared-ownership.md's YAML keeps the UI's targeting through up and up --refresh, and a traffic allocation change is one PATCH", async () => {
    const dir = mkdtempSync(join(tmpdir(), "flagstack-shared-ownership-yaml-"));
    // The page's resources under the plugins entry the README's YAML names.
    writeFileSync(
      join(dir, "Pulumi.yaml"),
      `name: shared-ownership-yaml
runtime: yaml
plugins:
  providers:
    - name: flagstack
      path: node_modules/flagstack/provider-plugin
${sharedOwnershipBlock("yaml")}`,
    );
    const r = await EngineStack.open({ program: dir });
    try {
      await sharedOwnershipStory(r, () => {
        const file = join(r.programDir, "Pulumi.yaml");
        const text = readFileSync(file, "utf8");
        expect(text).toContain("trafficAllocation: 100\n");
        writeFileSync(file, text.replace("trafficAllocation: 100\n", "trafficAllocation: 50\n"));
      });
    } finally {
      await r.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("`pulumi package get-schema <plugin dir>` prints the committed schema", async () => {
    const cli = await pulumiCli();
    const { stdout } = await execFileAsync(cli.command, ["package", "get-schema", PLUGIN_DIR], {
      cwd: s.dir,
      env: { ...process.env, ...engineEnv(join(s.dir, "home"), join(s.dir, "backend")) },
      maxBuffer: 1 << 26,
    });
    expect(JSON.parse(stdout)).toEqual(JSON.parse(readFileSync(join(PLUGIN_DIR, "schema.json"), "utf8")));
  });
});
