/**
 * The release (`npm run release`, scripts/release.mts) and each language's install from it, as
 * docs/native.md's "Installing, language by language" writes it, run in directories outside the
 * repository from the release's files alone:
 *
 * - the files: the npm tarball, the schema with the version stamped, the wheel
 *   `pulumi_flagstack-<version>-py3-none-any.whl` (its metadata: name, version, `pulumi>=3.259.0,<4.0.0`),
 *   the Go module directory with its `go.mod`, and the same module as a module proxy's files that
 *   `go mod download` takes by the module path;
 * - Python: the section's commands (`python3 -m venv venv`, `pip install` of the wheel), its
 *   `Pulumi.yaml` and `__main__.py`; `up` against an emulator, a preview that writes nothing; then
 *   the import section's commands: `pulumi import` of a flag made outside Pulumi (protected, so
 *   `destroy` fails naming it), `pulumi state unprotect` of the documented URN and `destroy`, which
 *   leaves nothing;
 * - Go: the section's commands (the `replace` to the release's module directory, `go mod tidy`)
 *   and `go build` of its program; the lookups' Go names in the section's table are the module's;
 * - TypeScript through the native provider: the section's `gen-sdk` from the installed package and
 *   its program, in a program as `pulumi new typescript` leaves it: `up`, a preview that writes
 *   nothing, `destroy` (the dynamic resources' install is test/e2e/package.test.ts's);
 * - YAML: the section's `Pulumi.yaml` naming the plugin by path: `up`, a preview that writes
 *   nothing, `destroy`.
 * .NET has no test here: test/e2e/native-sdks.test.ts, skipped without `pulumi-language-dotnet`.
 *
 * `npm install flagstack @pulumi/pulumi`, each section's first command, is run once, from the
 * tarball (`@pulumi/pulumi@3.259.0`, `--prefer-offline`, with the `typescript` and `@types/node` a
 * `pulumi new typescript` program has), and each program's `node_modules` links to that install. The Python virtualenv the section makes (`python3 -m venv venv`) is likewise a link
 * to one reused from the OS temp directory, keyed by the Pulumi version (made once, from PyPI, with
 * what the wheel requires), the wheel uninstalled first so the section's `pip install` installs
 * this release's. Go's modules come from the module cache (the proxy for what is missing), the Go
 * SDK generator is built once (scripts/release.mts). The release is built
 * once per run of this file, `--no-build` after the vitest global setup's `tsc`. Durations are
 * printed at the end.
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
import { LocalWorkspace, type Stack } from "@pulumi/pulumi/automation";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Emulator, startEmulator } from "../../emulator";
import { clients, defaultWorkspaceId, flagNames } from "./fixtures";
import { apiRequests, emulatorConfig, engineEnv, pulumiCli, REPO_ROOT } from "./harness";
import { THIS_PLATFORM } from "./tofu";

const execFileAsync = promisify(execFile);

const VERSION = (JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8")) as { version: string })
  .version;
const PULUMI_VERSION = "3.259.0";
const GO_MODULE = "github.com/flagstack/flagstack/sdk";
const WHEEL = `pulumi_flagstack-${VERSION}-py3-none-any.whl`;
const PYTHON = process.env.FLAGSTACK_PYTHON ?? "python3";
/** The virtualenv the Python section makes, reused between runs (its `venv` links here). */
const VENV = join(tmpdir(), `flagstack-release-python-pulumi-${PULUMI_VERSION}`);
const VENV_READY = join(VENV, ".flagstack-ready");

/** A command's path on PATH (or in one of `extra`), else undefined. */
function which(name: string, extra: string[] = []): string | undefined {
  for (const d of [...(process.env.PATH ?? "").split(delimiter), ...extra]) {
    if (d && existsSync(join(d, name))) return join(d, name);
  }
  return undefined;
}
const GO = which("go", ["/usr/local/go/bin"]);

/** A `### <title>` section of docs/native.md's install part (to the next heading). */
function section(title: string): string {
  const page = readFileSync(join(REPO_ROOT, "docs", "native.md"), "utf8");
  const start = page.indexOf(`\n${title}\n`);
  if (start < 0) throw new Error(`docs/native.md: no "${title}"`);
  const next = page.slice(start + title.length + 2).search(/^#{2,3} /m);
  return next < 0 ? page.slice(start) : page.slice(start, start + title.length + 2 + next);
}

/** The fenced blocks of a language in a section, in order. */
function blocks(text: string, lang: string): string[] {
  return [...text.matchAll(/^```(\w+)\n([\s\S]*?)^```$/gm)]
    .filter((m) => m[1] === lang)
    .map((m) => m[2] as string);
}

/** The one block of a language in a section. */
function block(text: string, lang: string): string {
  const found = blocks(text, lang);
  if (found.length !== 1) throw new Error(`${found.length} ${lang} blocks in:\n${text}`);
  return found[0] as string;
}

/** The documented npm install, which the test runs once (`deps/`), as a link to that install. */
const NPM_INSTALL = "npm install flagstack @pulumi/pulumi";
/** This machine's platform, as Terraform and Pulumi name it (the release is built for it alone). */
const PLATFORM = THIS_PLATFORM;
const PLUGIN_TARBALL = `pulumi-resource-flagstack-v${VERSION}-${PLATFORM.replace("_", "-")}.tar.gz`;
/** The documented plugin install, from the release's tarball (the docs show Linux x64's). */
const PLUGIN_INSTALL = `pulumi plugin install resource flagstack ${VERSION} --file ./pulumi-resource-flagstack-v${VERSION}-linux-amd64.tar.gz`;

/**
 * A directory of links to every command on PATH but Node's (`node`, `npm`, `npx`, `corepack`):
 * the PATH of a machine without Node.js, for the sections that need none.
 */
function pathWithoutNode(into: string, extra: string[]): string {
  mkdirSync(into, { recursive: true });
  const skip = new Set(["node", "nodejs", "npm", "npx", "corepack"]);
  for (const d of [...extra, ...(process.env.PATH ?? "").split(delimiter)]) {
    if (!d || !existsSync(d) || d.includes("node24")) continue;
    for (const name of readdirSync(d)) {
      if (skip.has(name) || existsSync(join(into, name))) continue;
      symlinkSync(join(d, name), join(into, name));
    }
  }
  return into;
}

describe("the release: its files, and each language's documented install from them", () => {
  let dir: string;
  let release: string;
  let deps: string;
  let emu: Emulator;
  let env: Record<string, string>;
  const seconds: Record<string, number> = {};
  const since = (start: number): number => Math.round((performance.now() - start) / 100) / 10;

  /** Runs a command; throws with its output when it fails. */
  async function run(command: string, args: string[], cwd: string, extraEnv: Record<string, string> = {}) {
    try {
      const { stdout, stderr } = await execFileAsync(command, args, {
        cwd,
        env: { ...process.env, ...env, ...extraEnv },
        maxBuffer: 1 << 28,
      });
      return stdout + stderr;
    } catch (e) {
      const { stdout = "", stderr = "" } = e as { stdout?: string; stderr?: string };
      throw new Error(`${command} ${args.join(" ")} failed in ${cwd}:\n${stdout}\n${stderr}`);
    }
  }

  /**
   * Runs a documented shell block in a program directory, its npm install as the link to `deps/`
   * and each line of `instead` as its replacement (the same effect, from what this run made once).
   */
  async function shell(
    script: string,
    cwd: string,
    extraEnv: Record<string, string> = {},
    instead: Record<string, string> = {},
  ) {
    expect([NPM_INSTALL, PLUGIN_INSTALL]).toContain(script.split("\n")[0]);
    // The plugin's tarball is in the program's directory as the section says (the docs name Linux x64's).
    if (script.startsWith(PLUGIN_INSTALL))
      cpSync(
        join(release, PLUGIN_TARBALL),
        join(cwd, `pulumi-resource-flagstack-v${VERSION}-linux-amd64.tar.gz`),
      );
    const lines: Record<string, string> = {
      [NPM_INSTALL]: `ln -s ${join(deps, "node_modules")} node_modules`,
      ...instead,
    };
    const body = script
      .split("\n")
      .map((line) => lines[line] ?? line)
      .join("\n");
    return run("bash", ["-euo", "pipefail", "-c", body], cwd, extraEnv);
  }

  /** A new program directory holding the files given. */
  function programDir(name: string, files: Record<string, string>): string {
    const d = join(dir, name);
    mkdirSync(d, { recursive: true });
    for (const [file, text] of Object.entries(files)) writeFileSync(join(d, file), text);
    return d;
  }

  /**
   * The stack `dev` of a program (each program's own file backend: the documented programs share
   * the project name `checkout`), its config the emulator's; and the environment that reaches it.
   */
  async function devStack(
    workDir: string,
    extraEnv: Record<string, string> = {},
  ): Promise<{ stack: Stack; stackEnv: Record<string, string> }> {
    const cli = await pulumiCli();
    const backend = `${workDir}-backend`;
    mkdirSync(backend, { recursive: true });
    const stackEnv = { ...env, PULUMI_BACKEND_URL: `file://${backend}`, ...extraEnv };
    await run(cli.command, ["stack", "init", "dev"], workDir, stackEnv);
    const stack = await LocalWorkspace.selectStack(
      { stackName: "dev", workDir },
      { pulumiCommand: cli, pulumiHome: join(dir, "home"), envVars: stackEnv },
    );
    await stack.setAllConfig(emulatorConfig(emu));
    return { stack, stackEnv };
  }

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "flagstack-release-test-"));
    release = join(dir, "release");
    deps = join(dir, "deps");
    for (const d of [join(dir, "home"), join(dir, "backend"), deps]) mkdirSync(d, { recursive: true });
    env = engineEnv(join(dir, "home"), join(dir, "backend"));
    const cli = await pulumiCli();
    env.PATH = [dirname(cli.command), env.PATH].join(delimiter);

    let start = performance.now();
    await run(
      process.execPath,
      [join(REPO_ROOT, "scripts", "release.mts"), "--no-build", "--platforms", PLATFORM, "--out", release],
      REPO_ROOT,
    );
    seconds.release = since(start);

    start = performance.now();
    writeFileSync(join(deps, "package.json"), `${JSON.stringify({ private: true }, null, 2)}\n`);
    await run(
      "npm",
      [
        "install",
        "--prefer-offline",
        "--no-audit",
        "--no-fund",
        "--loglevel=error",
        join(release, `flagstack-${VERSION}.tgz`),
        `@pulumi/pulumi@${PULUMI_VERSION}`,
        // What a `pulumi new typescript` program has beside them (the TypeScript section's program).
        "typescript@^5.9.0",
        "@types/node@^24",
      ],
      deps,
    );
    seconds["npm install"] = since(start);
    emu = await startEmulator({ port: 0 });
  });

  afterAll(async () => {
    await emu?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
    console.log(
      `release test, seconds: ${Object.entries(seconds)
        .map(([k, v]) => `${k} ${v}`)
        .join(", ")}`,
    );
  });

  it("one command writes the npm tarball, the stamped schema, the wheel, the Go module and its module-proxy files", async () => {
    expect(readdirSync(release).sort()).toEqual([
      `flagstack-${VERSION}.tgz`,
      "flagstack-go-sdk",
      `flagstack-schema-${VERSION}.json`,
      "goproxy",
      PLUGIN_TARBALL,
      WHEEL,
      "terraform-mirror",
      `terraform-provider-flagstack_${VERSION}_SHA256SUMS`,
      `terraform-provider-flagstack_${VERSION}_${PLATFORM}.zip`,
      `terraform-provider-flagstack_${VERSION}_manifest.json`,
    ]);
    const schema = JSON.parse(readFileSync(join(release, `flagstack-schema-${VERSION}.json`), "utf8"));
    expect({ name: schema.name, version: schema.version, language: schema.language }).toEqual({
      name: "flagstack",
      version: VERSION,
      language: {
        nodejs: { packageName: "@flagstack/pulumi", respectSchemaVersion: true },
        python: {
          packageName: "pulumi_flagstack",
          respectSchemaVersion: true,
          requires: { pulumi: ">=3.259.0,<4.0.0" },
        },
        go: { importBasePath: `${GO_MODULE}/go/flagstack`, respectSchemaVersion: true },
      },
    });

    // The wheel: the SDK package, its plugin marker at the version, what pip installs with it.
    const wheel = join(release, WHEEL);
    const names = (await run("unzip", ["-Z1", wheel], dir)).trim().split("\n");
    expect(names).toContain("pulumi_flagstack/__init__.py");
    expect(names).toContain("pulumi_flagstack/flag.py");
    expect(JSON.parse(await run("unzip", ["-p", wheel, "pulumi_flagstack/pulumi-plugin.json"], dir))).toEqual(
      {
        resource: true,
        name: "flagstack",
        version: VERSION,
      },
    );
    const metadata = await run("unzip", ["-p", wheel, `pulumi_flagstack-${VERSION}.dist-info/METADATA`], dir);
    expect(
      metadata.split("\n").filter((l) => /^(Name|Version|Requires-Dist|Requires-Python):/.test(l)),
    ).toEqual([
      "Name: pulumi_flagstack",
      `Version: ${VERSION}`,
      "Requires-Python: >=3.9",
      "Requires-Dist: parver>=0.2.1",
      "Requires-Dist: pulumi<4.0.0,>=3.259.0",
      "Requires-Dist: semver>=2.8.1",
      'Requires-Dist: typing-extensions<5,>=4.11; python_version < "3.11"',
    ]);

    // The Go module: its go.mod names the module and the Pulumi SDK; the package is under go/flagstack.
    const goMod = readFileSync(join(release, "flagstack-go-sdk", "go.mod"), "utf8");
    expect(goMod.split("\n")[0]).toBe(`module ${GO_MODULE}`);
    expect(goMod).toContain(`\tgithub.com/pulumi/pulumi/sdk/v3 v${PULUMI_VERSION}\n`);
    expect(readFileSync(join(release, "flagstack-go-sdk", "go", "flagstack", "flag.go"), "utf8")).toContain(
      `"${GO_MODULE}/go/flagstack/internal"`,
    );
    const at = join(release, "goproxy", ...GO_MODULE.split("/"), "@v");
    expect(readdirSync(at).sort()).toEqual([
      "list",
      `v${VERSION}.info`,
      `v${VERSION}.mod`,
      `v${VERSION}.zip`,
    ]);
    expect(readFileSync(join(at, "list"), "utf8")).toBe(`v${VERSION}\n`);
    expect(readFileSync(join(at, `v${VERSION}.mod`), "utf8")).toBe(goMod);

    // By the module path: Go takes the module from the proxy directory (no replace).
    if (!GO) throw new Error("no `go` on PATH or in /usr/local/go/bin");
    const cache = join(dir, "gomodcache");
    const text = await run(GO, ["mod", "download", "-json", `${GO_MODULE}@v${VERSION}`], dir, {
      GOPROXY: `file://${join(release, "goproxy")}`,
      GONOSUMDB: "github.com/flagstack/flagstack",
      GOFLAGS: "-modcacherw",
      GOMODCACHE: cache,
      GO111MODULE: "on",
    });
    const downloaded = JSON.parse(text) as { Path: string; Version: string; Dir: string; Error?: string };
    expect({ path: downloaded.Path, version: downloaded.Version, error: downloaded.Error }).toEqual({
      path: GO_MODULE,
      version: `v${VERSION}`,
      error: undefined,
    });
    expect(readFileSync(join(downloaded.Dir, "go", "flagstack", "flag.go"), "utf8")).toBe(
      readFileSync(join(release, "flagstack-go-sdk", "go", "flagstack", "flag.go"), "utf8"),
    );
  });

  it("Python, on a PATH without node: the section's plugin install, venv and `pip install` of the wheel, its program up and a preview of 0 requests; the import section's import, unprotect and destroy", async () => {
    const docs = section("### Python");
    const [install = "", ...otherSh] = blocks(docs, "sh");
    expect(otherSh).toEqual([]);
    const program = programDir("python", {
      "Pulumi.yaml": block(docs, "yaml"),
      "__main__.py": block(docs, "python"),
    });
    cpSync(join(release, WHEEL), join(program, WHEEL));
    // The section's virtualenv, made once with what the wheel requires (so pip asks no index).
    let start = performance.now();
    if (!existsSync(VENV_READY)) {
      rmSync(VENV, { recursive: true, force: true });
      await run(PYTHON, ["-m", "venv", VENV], dir);
      await run(
        join(VENV, "bin", "python"),
        [
          "-m",
          "pip",
          "install",
          "--quiet",
          "--disable-pip-version-check",
          `pulumi==${PULUMI_VERSION}`,
          "parver>=0.2.1",
          "semver>=2.8.1",
        ],
        dir,
      );
      writeFileSync(VENV_READY, `${PULUMI_VERSION}\n`);
    }
    await run(
      join(VENV, "bin", "python"),
      ["-m", "pip", "uninstall", "--quiet", "--yes", "pulumi_flagstack"],
      dir,
    ).catch(() => undefined);
    seconds["python venv"] = since(start);
    start = performance.now();
    expect(install.split("\n")[1]).toBe("python3 -m venv venv");
    const noNode = {
      PATH: pathWithoutNode(join(dir, "bin-without-node"), [dirname((await pulumiCli()).command)]),
    };
    await shell(install, program, noNode, { "python3 -m venv venv": `ln -s ${VENV} venv` });
    seconds["python install"] = since(start);
    expect(
      (
        await run(
          join(VENV, "bin", "python"),
          ["-c", "import importlib.metadata as m; print(m.version('pulumi_flagstack'), m.version('pulumi'))"],
          dir,
        )
      ).trim(),
    ).toBe(`${VERSION} ${PULUMI_VERSION}`);

    const { stack, stackEnv } = await devStack(program, noNode);
    const { admin } = clients(emu);
    const ws = await defaultWorkspaceId(admin);
    start = performance.now();
    const up = await stack.up({ color: "never" });
    seconds["python up"] = since(start);
    expect(up.summary.resourceChanges).toEqual({ create: 3 });
    const flag = await admin.flags.get(ws, "new-checkout");
    expect(flag.tags).toEqual([{ name: "owner:payments" }]);
    expect(up.outputs.flagId?.value).toBe(flag.id);
    const def = await admin.definitions.get(ws, "new-checkout", "Production");
    expect(def.treatments).toEqual([{ name: "on" }, { name: "off" }]);
    expect(def.defaultTreatment).toBe("off");

    let before = emu.requests().length;
    const preview = await stack.preview({ color: "never" });
    expect(preview.changeSummary).toEqual({ same: 3 });
    expect(apiRequests(emu.requests().slice(before)).filter((r) => r.method !== "GET")).toEqual([]);

    // The import section, as written, on this stack (`dev` of the project `checkout`).
    const imports = block(section("## Importing objects made outside Pulumi"), "sh").trimEnd().split("\n");
    expect(imports).toEqual([
      "pulumi import --yes flagstack:index:Flag legacy Default/legacy-checkout",
      "pulumi state unprotect --yes 'urn:pulumi:dev::checkout::flagstack:index:Flag::legacy'",
      "pulumi destroy --yes",
    ]);
    await admin.flags.create(ws, "user", { name: "legacy-checkout", description: "made in the UI" });
    const sh = (line: string) => run("bash", ["-euo", "pipefail", "-c", line], program, stackEnv);
    await sh(imports[0] as string);
    const exported = (await stack.exportStack()).deployment as {
      resources: { urn: string; protect?: boolean }[];
    };
    expect(
      exported.resources
        .filter((r) => r.urn.endsWith("::legacy"))
        .map((r) => ({ urn: r.urn, protect: r.protect })),
    ).toEqual([{ urn: "urn:pulumi:dev::checkout::flagstack:index:Flag::legacy", protect: true }]);
    // Protected: destroy deletes nothing of it and says so.
    before = emu.requests().length;
    const refused = await sh("pulumi destroy --yes").then(
      () => "destroyed",
      (e: unknown) => String(e),
    );
    expect(refused).toContain(
      'error: Preview failed: resource "urn:pulumi:dev::checkout::flagstack:index:Flag::legacy" cannot be deleted\n',
    );
    expect(refused).toContain("because it is protected. To unprotect the resource,");
    expect(await flagNames(admin)).toEqual(["legacy-checkout", "new-checkout"]);
    start = performance.now();
    await sh(imports[1] as string);
    await sh(imports[2] as string);
    seconds["python unprotect + destroy"] = since(start);
    expect(await flagNames(admin)).toEqual([]);
    expect(
      apiRequests(emu.requests().slice(before))
        .filter((r) => r.method === "DELETE" && r.path.endsWith("/legacy-checkout"))
        .map((r) => r.status),
    ).toEqual([200]);
  });

  it("Go: the section's replace to the release's module, `go mod tidy` and `go build` of its program; the lookups' Go names are the module's", async () => {
    if (!GO) throw new Error("no `go` on PATH or in /usr/local/go/bin: the Go SDK cannot be built");
    const docs = section("### Go");
    const [install = "", tidy = "", ...otherSh] = blocks(docs, "sh");
    expect(otherSh).toEqual([]);
    expect(tidy).toBe("go mod tidy\n");
    // The program's directory as `pulumi new go` leaves it, with the release's module directory.
    const program = programDir("go", {
      "go.mod": `module checkout\n\ngo 1.25\n\nrequire github.com/pulumi/pulumi/sdk/v3 v${PULUMI_VERSION}\n`,
      "Pulumi.yaml": `name: checkout\nruntime: go\n${block(section("## Installing, language by language"), "yaml")}`,
    });
    cpSync(join(release, "flagstack-go-sdk"), join(program, "flagstack-go-sdk"), { recursive: true });
    const goEnv = {
      GOFLAGS: "",
      CGO_ENABLED: "0",
      GOTOOLCHAIN: "auto",
      PATH: `${dirname(GO)}${delimiter}${env.PATH}`,
    };
    let start = performance.now();
    await shell(install, program, goEnv);
    expect(readFileSync(join(program, "go.mod"), "utf8")).toContain(
      `replace ${GO_MODULE} => ./flagstack-go-sdk\n`,
    );
    writeFileSync(join(program, "main.go"), block(docs, "go"));
    await run("bash", ["-euo", "pipefail", "-c", tidy], program, goEnv);
    seconds["go mod tidy"] = since(start);
    start = performance.now();
    await run(
      GO,
      ["build", "-trimpath", "-tags", "osusergo,grpcnotrace", "-o", join(dir, "checkout"), "."],
      program,
      goEnv,
    );
    seconds["go build"] = since(start);
    expect(existsSync(join(dir, "checkout"))).toBe(true);

    // Every lookup of the schema is in the table, under the name the module gives it.
    const schema = JSON.parse(readFileSync(join(release, `flagstack-schema-${VERSION}.json`), "utf8")) as {
      functions: Record<string, unknown>;
    };
    const names = Object.fromEntries(
      [...docs.matchAll(/^\| `(get\w+)` \| `(\w+)` \|/gm)].map((m) => [m[1] as string, m[2] as string]),
    );
    expect(Object.keys(names).sort()).toEqual(
      Object.keys(schema.functions)
        .map((token) => token.slice(token.lastIndexOf(":") + 1))
        .sort(),
    );
    const pkg = join(release, "flagstack-go-sdk", "go", "flagstack");
    for (const [fn, goName] of Object.entries(names)) {
      expect(readFileSync(join(pkg, `${fn}.go`), "utf8"), fn).toContain(
        `func ${goName}(ctx *pulumi.Context, args *${goName}Args, opts ...pulumi.InvokeOption) (*${goName}Result, error) {`,
      );
    }
  });

  it("TypeScript, native provider: the section's gen-sdk from the installed package, its program up and a preview that writes nothing, destroy", async () => {
    const docs = section("### TypeScript, native provider");
    // The program as `pulumi new typescript` leaves it: package.json, the template's tsconfig.
    const program = programDir("typescript", {
      "Pulumi.yaml": `name: checkout\nruntime: nodejs\n${block(section("## Installing, language by language"), "yaml")}`,
      "package.json": `${JSON.stringify({ name: "checkout", main: "index.ts" }, null, 2)}\n`,
      "tsconfig.json": readFileSync(
        join(REPO_ROOT, "examples", "native-typescript", "tsconfig.json"),
        "utf8",
      ),
      "index.ts": block(docs, "text"),
    });
    let start = performance.now();
    const generated = await shell(block(docs, "sh"), program);
    seconds["typescript gen-sdk"] = since(start);
    expect(generated).toContain("SDK has been written to sdk/nodejs");
    const { stack } = await devStack(program);
    const { admin } = clients(emu);
    const ws = await defaultWorkspaceId(admin);
    start = performance.now();
    const up = await stack.up({ color: "never" });
    seconds["typescript up"] = since(start);
    expect(up.summary.resourceChanges).toEqual({ create: 3 });
    const flag = await admin.flags.get(ws, "new-checkout");
    expect(up.outputs.flagId?.value).toBe(flag.id);
    expect((await admin.definitions.get(ws, "new-checkout", "Production")).defaultTreatment).toBe("off");
    const before = emu.requests().length;
    const preview = await stack.preview({ color: "never" });
    expect(preview.changeSummary).toEqual({ same: 3 });
    expect(apiRequests(emu.requests().slice(before)).filter((r) => r.method !== "GET")).toEqual([]);
    const destroy = await stack.destroy({ color: "never" });
    expect(destroy.summary.resourceChanges).toEqual({ delete: 3 });
    expect(await flagNames(admin)).toEqual([]);
  });

  it("YAML, on a PATH without node: the section's plugin install from the tarball and its Pulumi.yaml: up, a preview of 0 requests, destroy", async () => {
    const docs = section("### YAML");
    const program = programDir("yaml", { "Pulumi.yaml": block(docs, "yaml") });
    const noNode = {
      PATH: pathWithoutNode(join(dir, "bin-without-node"), [dirname((await pulumiCli()).command)]),
    };
    await shell(block(docs, "sh"), program, noNode);
    expect(
      existsSync(join(dir, "home", "plugins", `resource-flagstack-v${VERSION}`, "pulumi-resource-flagstack")),
    ).toBe(true);
    const { stack } = await devStack(program, noNode);
    const { admin } = clients(emu);
    const ws = await defaultWorkspaceId(admin);
    let start = performance.now();
    const up = await stack.up({ color: "never" });
    seconds["yaml up"] = since(start);
    expect(up.summary.resourceChanges).toEqual({ create: 3 });
    const flag = await admin.flags.get(ws, "new-checkout");
    expect(up.outputs.flagId?.value).toBe(flag.id);
    expect((await admin.definitions.get(ws, "new-checkout", "Production")).treatments).toEqual([
      { name: "on" },
      { name: "off" },
    ]);
    const before = emu.requests().length;
    start = performance.now();
    const preview = await stack.preview({ color: "never" });
    seconds["yaml preview"] = since(start);
    expect(preview.changeSummary).toEqual({ same: 3 });
    expect(apiRequests(emu.requests().slice(before)).filter((r) => r.method !== "GET")).toEqual([]);
    const destroy = await stack.destroy({ color: "never" });
    expect(destroy.summary.resourceChanges).toEqual({ delete: 3 });
    expect(await flagNames(admin)).toEqual([]);
  });
});
