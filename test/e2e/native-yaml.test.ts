/**
 * The native provider through the real engine, from a Pulumi YAML program outside the repository
 * (`examples/native-yaml`, copied to a temporary directory) that names the provider plugin by path
 * in its `Pulumi.yaml`: `up` makes a flag, its Production targeting (individual targets, a rule, a
 * ramp) and a group; a preview right after sends not one request; `destroy` leaves nothing. And
 * `pulumi package get-schema` of the plugin directory prints the committed schema.
 */
import { execFile } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clients, defaultWorkspaceId, flagNames, groupNames, NATIVE_EXAMPLE_TARGETING } from "./fixtures";
import { EngineStack, engineEnv, pulumiCli, REPO_ROOT } from "./harness";

const execFileAsync = promisify(execFile);
const PLUGIN_DIR = join(REPO_ROOT, "provider-plugin");

describe("native provider: a YAML program outside the repository", () => {
  let s: EngineStack;

  beforeAll(async () => {
    s = await EngineStack.open({ program: "examples/native-yaml" });
    // The copy lives outside the repository: the plugin is named by its absolute path.
    const file = join(s.programDir, "Pulumi.yaml");
    const text = readFileSync(file, "utf8");
    expect(text).toContain("path: ../../provider-plugin\n");
    writeFileSync(file, text.replace("path: ../../provider-plugin\n", `path: ${PLUGIN_DIR}\n`));
  });

  afterAll(async () => {
    await s?.close();
  });

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
