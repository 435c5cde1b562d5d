/**
 * The native provider as a program in another language gets it from the package: `npm pack` of
 * this repository, installed with the one documented command (`npm install flagstack
 * @pulumi/pulumi`, the tarball standing for `flagstack`) into a directory outside the repository
 * that holds a Pulumi YAML program, then the command docs/native.md's YAML section gives as the
 * alternative to naming the plugin under `plugins:` (test/e2e/release.test.ts runs that one):
 * `pulumi package add ./node_modules/flagstack/provider-plugin`. It records the plugin directory in
 * the program's `Pulumi.yaml` (`packages: flagstack: ...`), where the engine finds the provider
 * from then on (no `plugins:` section), and writes the package declaration under `sdks/`. Then
 * `up` of a flag and its Production definition against an emulator, a preview that sends no
 * request, and `destroy`. Offline: npm's cache answers the install when it can
 * (`--prefer-offline`), and `pulumi package add` of a path needs nothing else.
 */
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { promisify } from "node:util";
import { LocalWorkspace, type Stack } from "@pulumi/pulumi/automation";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { type Emulator, startEmulator } from "../../emulator";
import { clients, defaultWorkspaceId, flagNames } from "./fixtures";
import { apiRequests, emulatorConfig, engineEnv, packRepository, pulumiCli } from "./harness";

const execFileAsync = promisify(execFile);

/** The program, block-style YAML (the command re-writes the file with its own YAML writer). */
const PULUMI_YAML = `name: native-package
runtime: yaml
description: the native provider, added from the installed package
resources:
  checkout:
    type: flagstack:index:Flag
    properties:
      workspace: Default
      name: pkg-native-checkout
      description: added with pulumi package add
      tags:
        - owner:payments
  checkoutProduction:
    type: flagstack:index:FlagDefinition
    properties:
      workspace: Default
      flag: \${checkout.name}
      environment: Production
      treatments:
        - name: "on"
        - name: "off"
      defaultTreatment: "off"
      defaultRule:
        - treatment: "on"
          size: 10
        - treatment: "off"
          size: 90
outputs:
  flagId: \${checkout.flagId}
`;

/** The documented command's argument: the plugin directory of the installed package. */
const PLUGIN_PATH = "./node_modules/flagstack/provider-plugin";

describe("the packed package: `pulumi package add` of its provider, from a YAML program elsewhere", () => {
  let dir: string;
  let programDir: string;
  let emu: Emulator;
  let env: Record<string, string>;
  let stack: Stack;
  const seconds: Record<string, number> = {};
  const since = (start: number): number => Math.round((performance.now() - start) / 100) / 10;

  /** Runs a command in the program directory; throws with its output when it fails. */
  async function run(
    command: string,
    args: string[],
    extraEnv: Record<string, string> = {},
  ): Promise<string> {
    try {
      const { stdout, stderr } = await execFileAsync(command, args, {
        cwd: programDir,
        env: { ...process.env, ...extraEnv },
        maxBuffer: 1 << 26,
      });
      return stdout + stderr;
    } catch (e) {
      const { stdout = "", stderr = "" } = e as { stdout?: string; stderr?: string };
      throw new Error(`${command} ${args.join(" ")} failed:\n${stdout}\n${stderr}`);
    }
  }

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "flagstack-native-package-"));
    programDir = join(dir, "program");
    for (const d of [programDir, join(dir, "home"), join(dir, "backend")]) mkdirSync(d, { recursive: true });
    let start = performance.now();
    const { tarball } = await packRepository(dir);
    seconds.pack = since(start);

    writeFileSync(join(programDir, "Pulumi.yaml"), PULUMI_YAML);
    writeFileSync(join(programDir, "package.json"), `${JSON.stringify({ private: true }, null, 2)}\n`);
    start = performance.now();
    await run(
      "npm",
      [
        "install",
        "--prefer-offline",
        "--no-audit",
        "--no-fund",
        "--loglevel=error",
        tarball,
        "@pulumi/pulumi@3.259.0",
      ],
      { PATH: `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ""}` },
    );
    seconds.install = since(start);

    emu = await startEmulator({ port: 0 });
    env = engineEnv(join(dir, "home"), join(dir, "backend"));
  });

  afterAll(async () => {
    await emu?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
    console.log(
      `native package test, seconds: ${Object.entries(seconds)
        .map(([k, v]) => `${k} ${v}`)
        .join(", ")}`,
    );
  });

  it("`pulumi package add ./node_modules/flagstack/provider-plugin` records the plugin in Pulumi.yaml", async () => {
    const cli = await pulumiCli();
    const start = performance.now();
    const output = await run(cli.command, ["package", "add", PLUGIN_PATH], env);
    seconds["package add"] = since(start);
    expect(output).toContain("Added package flagstack");
    // The program as written, plus the package: the engine loads the provider from that directory.
    expect(parseYaml(readFileSync(join(programDir, "Pulumi.yaml"), "utf8"))).toEqual({
      ...parseYaml(PULUMI_YAML),
      packages: { flagstack: PLUGIN_PATH },
    });
    // YAML needs no generated code: the "SDK" is the package's name and version.
    expect(
      parseYaml(readFileSync(join(programDir, "sdks", "flagstack", "flagstack-0.1.0.yaml"), "utf8")),
    ).toEqual({
      packageDeclarationVersion: 1,
      name: "flagstack",
      version: "0.1.0",
    });
  });

  it("up, a preview that sends no request, destroy", async () => {
    const cli = await pulumiCli();
    stack = await LocalWorkspace.createOrSelectStack(
      { stackName: "package", workDir: programDir },
      { pulumiCommand: cli, pulumiHome: join(dir, "home"), envVars: env },
    );
    await stack.setAllConfig(emulatorConfig(emu));
    const { admin } = clients(emu);
    const ws = await defaultWorkspaceId(admin);

    let start = performance.now();
    const up = await stack.up({ color: "never" });
    seconds.up = since(start);
    expect(up.summary.resourceChanges).toEqual({ create: 3 });
    const flag = await admin.flags.get(ws, "pkg-native-checkout");
    expect(flag.description).toBe("added with pulumi package add");
    expect(up.outputs.flagId?.value).toBe(flag.id);
    const def = await admin.definitions.get(ws, "pkg-native-checkout", "Production");
    expect(def.defaultRule).toEqual([
      { treatment: "on", size: 10 },
      { treatment: "off", size: 90 },
    ]);
    // The provider is the package's plugin, at the package's version.
    const exported = (await stack.exportStack()).deployment as { resources: { urn: string }[] };
    expect(exported.resources.map((r) => r.urn)).toEqual([
      "urn:pulumi:package::native-package::pulumi:pulumi:Stack::native-package-package",
      "urn:pulumi:package::native-package::pulumi:providers:flagstack::default_0_1_0",
      "urn:pulumi:package::native-package::flagstack:index:Flag::checkout",
      "urn:pulumi:package::native-package::flagstack:index:FlagDefinition::checkoutProduction",
    ]);

    start = performance.now();
    const before = emu.requests().length;
    const preview = await stack.preview({ color: "never" });
    seconds.preview = since(start);
    expect(preview.changeSummary).toEqual({ same: 3 });
    expect(apiRequests(emu.requests().slice(before))).toEqual([]);

    start = performance.now();
    const destroy = await stack.destroy({ color: "never" });
    seconds.destroy = since(start);
    expect(destroy.summary.resourceChanges).toEqual({ delete: 3 });
    expect(await flagNames(admin)).toEqual([]);
  });
});
