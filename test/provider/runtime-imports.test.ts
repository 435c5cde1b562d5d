/**
 * The kinds, `provider/core/`, the SDK, the emulator and the Terraform door load no `@pulumi/pulumi`
 * at run time: only the Pulumi doors do (a program's resource classes, the native provider's host
 * glue), through `provider/core/pulumi-runtime.ts`, whose functions load it on a Pulumi door's
 * first call. A Terraform user installs no `@pulumi/pulumi`, and the provider binary's Terraform
 * mode must not depend on it.
 *
 * The graph is read from the build (`dist/`, what Node runs): from each entry point, every
 * `require("...")` of a module of the package, whether it runs at load or inside a function, is
 * followed; a `require` of `@pulumi/pulumi` (or a deep path of it) found at a module's top level
 * fails, and one inside a function is allowed in `pulumi-runtime.js` alone. Then a process in which
 * `@pulumi/pulumi` cannot be resolved loads the door's dispatch and every kind and checks each kind's
 * example inputs, and records that nothing asked for it.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { literalRequires, type Require } from "./requires";

const REPO = join(__dirname, "..", "..");
const DIST = join(REPO, "dist");

/** The entry points that must run without the Pulumi runtime. */
const ENTRIES = [
  "provider/terraform/plugin.js",
  "provider/terraform/server.js",
  "provider/kinds.js",
  "sdk/index.js",
  "emulator/index.js",
];

const requiresOf = (file: string): Require[] => literalRequires(join(DIST, file));

/** The module a relative specifier names, relative to dist/ (`provider/core/kind.js`). */
function resolveRelative(from: string, specifier: string): string | undefined {
  const base = resolve(DIST, dirname(from), specifier);
  const found = [base, `${base}.js`, join(base, "index.js")].find((c) => existsSync(c) && c.endsWith(".js"));
  return found && relative(DIST, found);
}

/** Every module of the package the entries reach, with the requires each makes. */
function reach(entries: readonly string[]): Map<string, Require[]> {
  const seen = new Map<string, Require[]>();
  const queue = [...entries];
  while (queue.length > 0) {
    const file = queue.shift() as string;
    if (seen.has(file)) continue;
    const requires = requiresOf(file);
    seen.set(file, requires);
    for (const r of requires) {
      if (!r.specifier.startsWith(".") || r.specifier.endsWith(".json")) continue;
      const to = resolveRelative(file, r.specifier);
      if (to === undefined) throw new Error(`${file}: require("${r.specifier}") names no built module`);
      queue.push(to);
    }
  }
  return seen;
}

const isPulumi = (specifier: string) =>
  specifier === "@pulumi/pulumi" || specifier.startsWith("@pulumi/pulumi/");

describe("the Terraform door's run-time imports", () => {
  const graph = reach(ENTRIES);

  it("reaches the door, the kinds, the SDK and the emulator", () => {
    for (const f of ["provider/core/resource.js", "provider/flags/flag.js", "provider/platform/pipeline.js"])
      expect(graph.has(f)).toBe(true);
    expect(graph.size).toBeGreaterThan(150);
  });

  it("no module it loads requires @pulumi/pulumi when it loads", () => {
    const atLoad = [...graph].flatMap(([file, requires]) =>
      requires.filter((r) => isPulumi(r.specifier) && !r.deferred).map((r) => `${file}: ${r.specifier}`),
    );
    expect(atLoad).toEqual([]);
  });

  it("only provider/core/pulumi-runtime.js requires @pulumi/pulumi, inside the functions a Pulumi door calls", () => {
    const deferred = [...graph].flatMap(([file, requires]) =>
      requires.filter((r) => isPulumi(r.specifier)).map((r) => `${file}: ${r.specifier}`),
    );
    expect(deferred.sort()).toEqual([
      "provider/core/pulumi-runtime.js: @pulumi/pulumi/config",
      "provider/core/pulumi-runtime.js: @pulumi/pulumi/log",
      "provider/core/pulumi-runtime.js: @pulumi/pulumi/runtime/state",
    ]);
    // the two loads through `load(id)` (resource, output) are a variable's, not a literal's
    expect(readFileSync(join(DIST, "provider/core/pulumi-runtime.js"), "utf8")).toContain(
      'load("@pulumi/pulumi/resource")',
    );
  });

  it("loads the dispatch and every kind, and checks each kind's example, where @pulumi/pulumi cannot be resolved", () => {
    // A process whose resolver refuses @pulumi/pulumi and counts every attempt.
    const script = `
      const Module = require("node:module");
      const resolveFilename = Module._resolveFilename;
      const asked = [];
      Module._resolveFilename = function (request, ...rest) {
        if (request === "@pulumi/pulumi" || request.startsWith("@pulumi/pulumi/")) {
          asked.push(request);
          const e = new Error("Cannot find module '" + request + "'");
          e.code = "MODULE_NOT_FOUND";
          throw e;
        }
        return resolveFilename.call(this, request, ...rest);
      };
      (async () => {
        const { useDoor, TERRAFORM_WORDS } = require(${JSON.stringify(join(DIST, "provider/core/door.js"))});
        useDoor(TERRAFORM_WORDS);
        const { catalog, TerraformProvider } = require(${JSON.stringify(join(DIST, "provider/terraform/server.js"))});
        new TerraformProvider(catalog());
        const { KIND_LIST } = require(${JSON.stringify(join(DIST, "provider/kinds.js"))});
        const checked = [];
        for (const kind of KIND_LIST) {
          const result = await kind.impl.check({}, kind.example.inputs);
          checked.push(kind.token + ":" + (result.failures ?? []).length);
        }
        process.stdout.write(JSON.stringify({ asked, kinds: KIND_LIST.length, checked }));
      })().catch((e) => { process.stderr.write(String(e && e.stack)); process.exit(1); });
    `;
    const out = JSON.parse(
      execFileSync(process.execPath, ["-e", script], { cwd: REPO, encoding: "utf8" }),
    ) as {
      asked: string[];
      kinds: number;
      checked: string[];
    };
    expect(out.asked).toEqual([]);
    expect(out.kinds).toBe(30);
    expect(out.checked.filter((c) => !c.endsWith(":0"))).toEqual([]);
  });
});
