/**
 * TypeScript through the SDK generated from the native provider's schema (`examples/native-typescript`,
 * from a copy outside the repository, its SDK generated into the copy with
 * `pulumi package gen-sdk --language nodejs`): `up` makes a flag, its Production targeting and a
 * group through the plugin, a lookup resolves the environment, a preview changes nothing and
 * writes nothing, `destroy` leaves nothing.
 */
import { execFile } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clients, defaultWorkspaceId, flagNames, groupNames, NATIVE_EXAMPLE_TARGETING } from "./fixtures";
import { EngineStack, pulumiCli, REPO_ROOT } from "./harness";

const execFileAsync = promisify(execFile);
const PLUGIN_DIR = join(REPO_ROOT, "provider-plugin");

describe("native provider: TypeScript through the generated SDK", () => {
  let s: EngineStack;

  beforeAll(async () => {
    s = await EngineStack.open({ program: "examples/native-typescript" });
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
    await s?.close();
  });

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
});
