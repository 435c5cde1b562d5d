/**
 * The Go and .NET SDKs of the native provider, generated from the committed schema with
 * `pulumi package gen-sdk provider-plugin --language go|dotnet`, as a Go or .NET program's author
 * would.
 *
 * Go: the CLI hands the schema to the Go language host's GeneratePackage. Pulumi's own
 * `pulumi-language-go` is not published where this project's machines can fetch it, but its code
 * generator is (`github.com/pulumi/pulumi/pkg/v3/codegen/go`, v3.259.0, the CLI's version), so the
 * test builds a host of a few lines that serves just GeneratePackage with it
 * (`test/e2e/programs/native-go-sdkgen`) and puts it on PATH. Then, in a program directory with
 * its own `go.mod`, it runs the commands of docs/native.md's Go section as written (gen-sdk, the
 * SDK's `go.mod`, `go mod edit` with the replace, `go mod tidy`), checks the lookups' Go names
 * against the section's table, and `go build`s the section's program (a LookupEnvironment, a Flag
 * and its FlagDefinition). Go comes from PATH or /usr/local/go; the modules from the default
 * module cache (the host's build with `GOFLAGS=-mod=mod`, the program's `go mod tidy`, fetch what
 * is missing from the module proxy). Built with the Pulumi CLI build's flags (`scripts/env.sh` → the toolchain's build.sh:
 * `-trimpath -tags osusergo,grpcnotrace`, `CGO_ENABLED=0`), so Go's build cache already holds most
 * packages: a minute or two the first time on 2 cores, seconds after.
 *
 * .NET: the .NET code generator ships only inside Pulumi's `pulumi-language-dotnet` host; with the
 * CLI built from Go modules there is none, and that test is skipped, saying so. Its compile check
 * needs `dotnet` as well and is skipped, saying so, when that is not on PATH.
 */
import { execFile } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, dirname, join } from "node:path";
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

const GO = which("go", ["/usr/local/go/bin"]);
const DOTNET = which("dotnet");

/** The module the generated Go SDK lives in: the import path its files use (the schema names none). */
const GO_MODULE = "example.com/pulumi-flagstack/sdk";

/** The "### Go" section of docs/native.md. */
function goDocs(): string {
  const page = readFileSync(join(REPO_ROOT, "docs", "native.md"), "utf8");
  const start = page.indexOf("\n### Go\n");
  const end = page.indexOf("\n## ", start + 1);
  if (start < 0 || end < 0) throw new Error("docs/native.md: no Go section");
  return page.slice(start, end);
}

/** The blocks of that fence language in the Go section, in order. */
function goDocsBlocks(lang: "sh" | "go"): string[] {
  return [...goDocs().matchAll(/^```(\w+)\n([\s\S]*?)^```$/gm)]
    .filter((m) => m[1] === lang)
    .map((m) => m[2] as string);
}

/** The lookups' Go names as the section's table lists them: schema function → Go function. */
function goLookupNames(): Record<string, string> {
  return Object.fromEntries(
    [...goDocs().matchAll(/^\| `(get\w+)` \| `(\w+)` \|/gm)].map((m) => [m[1] as string, m[2] as string]),
  );
}

/** The section's Go statements as the body of a program's `pulumi.Run`. */
const goProgram = (statements: string) => `package main

import (
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"

	"${GO_MODULE}/go/flagstack"
)

func main() {
	pulumi.Run(func(ctx *pulumi.Context) error {
${statements.replace(/^(?=.)/gm, "\t\t")}		return err
	})
}
`;

describe("native provider: the Go and .NET SDKs from `pulumi package gen-sdk`", () => {
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

  /** The Go environment: the Pulumi CLI build's flags, modules fetched as needed. */
  const goEnv = (): Record<string, string> => ({
    GOFLAGS: "-mod=mod",
    CGO_ENABLED: "0",
    GOTOOLCHAIN: "auto",
  });
  const GO_BUILD_FLAGS = ["-trimpath", "-tags", "osusergo,grpcnotrace"];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "flagstack-native-sdks-"));
    for (const d of ["home", "backend", "bin"]) mkdirSync(join(dir, d), { recursive: true });
    env = engineEnv(join(dir, "home"), join(dir, "backend"));
    // The Go host is found on PATH (the CLI warns that it uses one from PATH).
    env.PATH = `${join(dir, "bin")}${delimiter}${env.PATH}`;
  });

  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
    console.log(
      `native SDKs test, seconds: ${Object.entries(seconds)
        .map(([k, v]) => `${k} ${v}`)
        .join(", ")}`,
    );
  });

  it("Go: docs/native.md's commands generate the SDK with its go.mod and a replace, and `go build` compiles the documented program; the lookups' Go names are the docs' table", async () => {
    if (!GO) throw new Error("no `go` on PATH or in /usr/local/go/bin: the Go SDK cannot be built");
    const cli = await pulumiCli();
    const host = join(dir, "go-host");
    cpSync(join(REPO_ROOT, "test", "e2e", "programs", "native-go-sdkgen"), host, { recursive: true });
    let start = performance.now();
    await run(
      GO,
      ["build", ...GO_BUILD_FLAGS, "-o", join(dir, "bin", "pulumi-language-go"), "."],
      host,
      goEnv(),
    );
    seconds["go host build"] = since(start);

    // The program's directory as `pulumi new go` leaves it (its own go.mod) after `npm install
    // flagstack` (node_modules/flagstack: here the repository); then the documented commands.
    const program = join(dir, "go-program");
    mkdirSync(join(program, "node_modules"), { recursive: true });
    symlinkSync(REPO_ROOT, join(program, "node_modules", "flagstack"), "dir");
    writeFileSync(
      join(program, "go.mod"),
      "module checkout-flags\n\ngo 1.25\n\nrequire github.com/pulumi/pulumi/sdk/v3 v3.259.0\n",
    );
    const [commands = "", afterProgram = "", ...others] = goDocsBlocks("sh");
    expect(others).toEqual([]);
    expect(commands.split("\n")[0]).toBe("npm install flagstack @pulumi/pulumi");
    const [statements = "", ...otherGo] = goDocsBlocks("go");
    expect(otherGo).toEqual([]);
    const shell = (script: string) =>
      run("bash", ["-euo", "pipefail", "-c", script], program, {
        ...goEnv(),
        GOFLAGS: "",
        PATH: [join(dir, "bin"), dirname(cli.command), dirname(GO), env.PATH].join(delimiter),
      });
    start = performance.now();
    const text = await shell(commands.split("\n").slice(1).join("\n"));
    seconds["go sdk commands"] = since(start);
    expect(text).toContain("SDK has been written to sdks/flagstack/go");
    const pkgDir = join(program, "sdks", "flagstack", "go", "flagstack");
    const files = readdirSync(pkgDir).sort();
    for (const name of RESOURCES) {
      const file = `${name[0]?.toLowerCase()}${name.slice(1)}.go`;
      expect(files, file).toContain(file);
      expect(readFileSync(join(pkgDir, file), "utf8")).toContain(
        `func New${name}(ctx *pulumi.Context,\n\tname string, args *${name}Args, opts ...pulumi.ResourceOption) (*${name}, error) {`,
      );
    }
    expect(files).toContain("provider.go");
    expect(JSON.parse(readFileSync(join(pkgDir, "pulumi-plugin.json"), "utf8"))).toEqual({
      resource: true,
      name: "flagstack",
    });
    expect(readFileSync(join(program, "go.mod"), "utf8")).toContain(
      `replace ${GO_MODULE} => ./sdks/flagstack\n`,
    );

    // Every lookup of the schema is in the docs' table, under the name the generator gave it.
    const schema = JSON.parse(readFileSync(join(PLUGIN_DIR, "schema.json"), "utf8")) as {
      functions: Record<string, unknown>;
    };
    const names = goLookupNames();
    expect(Object.keys(names).sort()).toEqual(
      Object.keys(schema.functions)
        .map((token) => token.slice(token.lastIndexOf(":") + 1))
        .sort(),
    );
    for (const [fn, goName] of Object.entries(names)) {
      expect(readFileSync(join(pkgDir, `${fn}.go`), "utf8"), fn).toContain(
        `func ${goName}(ctx *pulumi.Context, args *${goName}Args, opts ...pulumi.InvokeOption) (*${goName}Result, error) {`,
      );
    }

    writeFileSync(join(program, "main.go"), goProgram(statements));
    start = performance.now();
    await shell(afterProgram);
    seconds["go mod tidy"] = since(start);
    start = performance.now();
    await run(GO, ["build", ...GO_BUILD_FLAGS, "-o", join(dir, "checkout-flags"), "."], program, {
      ...goEnv(),
      GOFLAGS: "",
    });
    seconds["go build"] = since(start);
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
