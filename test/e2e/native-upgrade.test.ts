/**
 * The upgrade path from the dynamic resources to the native provider, on a stack made by the
 * current release's dynamic resources (`test/e2e/programs/stack` with every kind: two flags, three
 * definitions, a group, an invited user, a project, a connector and a pipeline):
 *
 * 1. `flagstack migrate-state --dry-run` lists the resources that would move and changes nothing;
 * 2. `flagstack migrate-state` rewrites the state (types and URNs to `flagstack:index:<Type>`,
 *    `__provider` dropped) through `pulumi stack export` / `pulumi stack import`;
 * 3. the program is replaced by the equivalent native program (Pulumi YAML, the same logical
 *    names and arguments, the plugin named by path), whose preview shows every resource unchanged;
 * 4. its `pulumi up` moves each resource to the `flagstack` provider and changes nothing else (no
 *    replace, no update), and a preview after it shows no change either.
 *
 * The emulator receives not one request, read or write, from the first step to the last, and the
 * objects keep their ids. Then `destroy` through the native provider removes everything: the
 * stack is the native provider's now.
 */
import { execFile } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { delimiter, dirname, join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import {
  clients,
  defaultWorkspaceId,
  flagNames,
  fullSpec,
  groupNames,
  resourceCount,
  type StackSpec,
} from "./fixtures";
import { apiRequests, EngineStack, pulumiCli, REPO_ROOT } from "./harness";

const execFileAsync = promisify(execFile);

/** The Pulumi YAML program equivalent to test/e2e/programs/stack running `spec`. */
function nativeProgram(spec: StackSpec): string {
  const resources: Record<string, { type: string; properties: Record<string, unknown> }> = {};
  const add = (
    type: string,
    entries: Record<string, Record<string, unknown>> | undefined,
    edit = (p: Record<string, unknown>) => p,
  ) => {
    for (const [key, args] of Object.entries(entries ?? {})) {
      resources[key] = { type: `flagstack:index:${type}`, properties: edit({ ...args }) };
    }
  };
  add("Flag", spec.flags);
  add("FlagDefinition", spec.definitions, (p) => ({ ...p, flag: `\${${p.flag as string}.name}` }));
  add("Group", spec.groups);
  add("UserInvite", spec.users, (p) => ({
    ...p,
    groups: ((p.groups as string[] | undefined) ?? []).map((g) => `\${${g}.name}`),
  }));
  add("Project", spec.projects);
  add("Connector", spec.connectors, (p) =>
    p.project === undefined ? p : { ...p, project: `\${${p.project as string}.identifier}` },
  );
  add("Pipeline", spec.pipelines, (p) => ({ ...p, project: `\${${p.project as string}.identifier}` }));
  return stringify({
    name: "flagstack-e2e",
    runtime: "yaml",
    plugins: { providers: [{ name: "flagstack", path: join(REPO_ROOT, "provider-plugin") }] },
    resources,
    outputs: { resourceIds: Object.fromEntries(Object.keys(resources).map((k) => [k, `\${${k}.id}`])) },
  });
}

describe("upgrade: a stack of the dynamic resources moves to the native provider", () => {
  let s: EngineStack;
  const spec = fullSpec("upg");
  const n = resourceCount(spec);

  beforeAll(async () => {
    s = await EngineStack.open({ program: "test/e2e/programs/stack" });
    await s.setSpec(spec);
  });

  afterAll(async () => {
    await s?.close();
  });

  /** `flagstack migrate-state` as a user runs it in the project directory. */
  async function migrateState(...args: string[]): Promise<string> {
    const cli = await pulumiCli();
    const { stdout } = await execFileAsync(
      process.execPath,
      [join(REPO_ROOT, "bin", "flagstack.js"), "migrate-state", "--stack", "e2e", ...args],
      {
        cwd: s.programDir,
        env: { ...process.env, ...s.env, PATH: `${dirname(cli.command)}${delimiter}${s.env.PATH}` },
        maxBuffer: 1 << 26,
      },
    );
    return stdout;
  }

  it("migrate-state, then the native program previews and updates with no change and no request", async () => {
    const { admin } = clients(s.emu);
    const ws = await defaultWorkspaceId(admin);
    const made = await s.up();
    expect(made.result.summary.resourceChanges).toEqual({ create: n + 1 });
    const ids = (await s.outputs()).resourceIds as Record<string, string>;
    const dynamic = await s.resources();
    expect(dynamic.filter((r) => r.type.startsWith("pulumi-nodejs:dynamic/flagstack:"))).toHaveLength(n);
    const urns = dynamic.map((r) => r.urn).filter((u) => u.includes("::pulumi-nodejs:dynamic/flagstack:"));
    const nativeUrns = urns.map((u) => u.replace("::pulumi-nodejs:dynamic/flagstack:", "::flagstack:index:"));

    const start = s.emu.requests().length;

    // Dry run: the list, and the state untouched.
    const stateBefore = await s.exportText();
    const dry = await migrateState("--dry-run");
    expect(dry.trim().split("\n")).toEqual([
      ...urns.map((u, i) => `${u} → ${nativeUrns[i]}`),
      `dry run: ${n} resources would move; the state was not changed`,
    ]);
    expect(JSON.parse(await s.exportText()).deployment.resources).toEqual(
      JSON.parse(stateBefore).deployment.resources,
    );

    const migrated = await migrateState();
    expect(migrated.trim().split("\n").slice(0, n)).toEqual(urns.map((u, i) => `${u} → ${nativeUrns[i]}`));
    expect(migrated).toContain(`migrated ${n} resources to the native flagstack provider's tokens`);
    const after = await s.resources();
    expect(after.map((r) => r.type).filter((t) => t.includes("flagstack:"))).toEqual(
      dynamic
        .map((r) => r.type)
        .filter((t) => t.startsWith("pulumi-nodejs:dynamic/flagstack:"))
        .map((t) => t.replace("pulumi-nodejs:dynamic/flagstack:", "flagstack:index:")),
    );
    expect(after.some((r) => "__provider" in r.outputs)).toBe(false);
    // Nothing to do a second time.
    expect(await migrateState()).toBe("no flagstack dynamic resource in the stack: nothing to migrate\n");

    // The equivalent native program.
    writeFileSync(join(s.programDir, "Pulumi.yaml"), nativeProgram(spec));
    const preview = await s.preview({ diff: true });
    expect(preview.result.changeSummary).toEqual({ same: n + 1 });

    const moved = await s.up();
    expect(moved.result.summary.resourceChanges).toEqual({ same: n + 1 });
    const state = JSON.parse(await s.exportText()).deployment.resources as {
      urn: string;
      type: string;
      provider?: string;
    }[];
    expect(state.map((r) => r.type).filter((t) => t.startsWith("pulumi:providers:"))).toEqual([
      "pulumi:providers:flagstack",
    ]);
    for (const r of state.filter((x) => x.type.startsWith("flagstack:index:"))) {
      expect(r.provider, r.urn).toMatch(
        /^urn:pulumi:e2e::flagstack-e2e::pulumi:providers:flagstack::default::/,
      );
    }
    expect((await s.outputs()).resourceIds).toEqual(ids);
    const again = await s.preview();
    expect(again.result.changeSummary).toEqual({ same: n + 1 });

    // Not one request, read or write, from the dry run to here.
    expect(apiRequests(s.emu.requests().slice(start))).toEqual([]);
    expect((await admin.flags.get(ws, "upg-checkout")).id).toBe(ids.checkout);

    // The stack is the native provider's: destroy removes everything through it.
    const destroyed = await s.destroy();
    expect(destroyed.result.summary.resourceChanges).toEqual({ delete: n + 1 });
    expect(await flagNames(admin)).toEqual([]);
    expect(await groupNames(admin)).toEqual([]);
    expect(readFileSync(join(s.programDir, "Pulumi.yaml"), "utf8")).toContain("runtime: yaml");
  });
});
