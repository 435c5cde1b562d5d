/**
 * The .NET SDK of the native provider, generated from the committed schema with
 * `pulumi package gen-sdk provider-plugin --language dotnet`, as docs/native.md's ".NET" section
 * has a .NET program's author do. (The Go SDK is the release's module, built by `npm run release`
 * and used as docs/native.md's "Go" section writes it by test/e2e/release.test.ts.)
 *
 * The .NET code generator ships only inside Pulumi's `pulumi-language-dotnet` host; with the
 * CLI built from Go modules there is none, and that test is skipped, saying so. Its compile check
 * needs `dotnet` as well and is skipped, saying so, when that is not on PATH.
 */
import { execFile } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { engineEnv, pulumiCli, REPO_ROOT } from "./harness";

const execFileAsync = promisify(execFile);
const PLUGIN_DIR = join(REPO_ROOT, "provider-plugin");

/** The resource classes every SDK must have, one per kind, and the provider's. */
const RESOURCES = ["Flag", "FlagDefinition", "Group", "UserInvite", "Project", "Connector", "Pipeline"];

/** A command's path on PATH (or in one of `extra`), else undefined. */
function which(name: string, extra: string[] = []): string | undefined {
  for (const d of [...(process.env.PATH ?? "").split(delimiter), ...extra]) {
    if (d && existsSync(join(d, name))) return join(d, name);
  }
  return undefined;
}

const DOTNET = which("dotnet");

describe("native provider: the .NET SDK from `pulumi package gen-sdk`", () => {
  let dir: string;
  let env: Record<string, string>;
  const seconds: Record<string, number> = {};
  const since = (start: number): number => Math.round((performance.now() - start) / 100) / 10;

  /** Runs a command; throws with its output when it fails. */
  async function run(command: string, args: string[], cwd: string, extraEnv: Record<string, string> = {}) {
    try {
      const { stdout, stderr } = await execFileAsync(command, args, {
        cwd,
        env: { ...process.env, ...env, ...extraEnv },
        maxBuffer: 1 << 26,
      });
      return stdout + stderr;
    } catch (e) {
      const { stdout = "", stderr = "" } = e as { stdout?: string; stderr?: string };
      throw new Error(`${command} ${args.join(" ")} failed in ${cwd}:\n${stdout}\n${stderr}`);
    }
  }

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "flagstack-native-sdks-"));
    for (const d of ["home", "backend"]) mkdirSync(join(dir, d), { recursive: true });
    env = engineEnv(join(dir, "home"), join(dir, "backend"));
  });

  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
    console.log(
      `native SDKs test, seconds: ${Object.entries(seconds)
        .map(([k, v]) => `${k} ${v}`)
        .join(", ")}`,
    );
  });

  const dotnetHost = which("pulumi-language-dotnet");
  it.skipIf(dotnetHost === undefined)(
    `.NET: the SDK is generated with a class for every resource${dotnetHost ? "" : " (skipped: no pulumi-language-dotnet on PATH; the .NET code generator ships only inside that host, which a Pulumi CLI built from Go modules lacks)"}`,
    async () => {
      const cli = await pulumiCli();
      const out = join(dir, "dotnet-sdk");
      const start = performance.now();
      await run(cli.command, ["package", "gen-sdk", PLUGIN_DIR, "--language", "dotnet", "--out", out], dir);
      seconds["gen-sdk dotnet"] = since(start);
      for (const name of RESOURCES) {
        const file = join(out, "dotnet", `${name}.cs`);
        expect(existsSync(file), file).toBe(true);
        expect(readFileSync(file, "utf8")).toContain(
          `public partial class ${name} : global::Pulumi.CustomResource`,
        );
      }
    },
  );

  it.skipIf(dotnetHost === undefined || DOTNET === undefined)(
    `.NET: the generated SDK compiles${dotnetHost === undefined ? " (skipped: no SDK to compile, see above)" : DOTNET === undefined ? " (skipped: no `dotnet` on PATH)" : ""}`,
    async () => {
      const out = join(dir, "dotnet-sdk", "dotnet");
      expect(existsSync(out)).toBe(true);
      const start = performance.now();
      await run(DOTNET as string, ["build"], out);
      seconds["dotnet build"] = since(start);
    },
  );
});
