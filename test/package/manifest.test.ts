/**
 * What the published package declares (issue 16): an entry in `typesVersions` for every subpath in
 * `exports`, pointing at the node10 twin of its declarations; the policy pack's manifest in step
 * with the package; the licence text package.json names; source maps carrying their sources.
 * test/e2e/package.test.ts installs the packed tarball and runs it; this checks the manifests.
 */
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { KIND_LIST } from "../../provider/kinds";

const REPO = join(__dirname, "..", "..");
const read = (path: string): string => readFileSync(join(REPO, path), "utf8");
const manifest = JSON.parse(read("package.json")) as {
  name: string;
  version: string;
  license: string;
  repository: { type: string; url: string };
  main: string;
  types: string;
  typesVersions: Record<string, Record<string, string[]>>;
  exports: Record<string, string>;
  files: string[];
  scripts: Record<string, string>;
  peerDependencies: Record<string, string>;
  peerDependenciesMeta: Record<string, { optional: boolean }>;
  devDependencies: Record<string, string>;
};

/** `./dist/X.js` → `dist/node10/X.d.ts`, and `*` patterns alike. */
const node10Twin = (target: string): string =>
  target.replace(/^\.\/dist\//, "dist/node10/").replace(/\.js$/, ".d.ts");

/** Each kind's public path, `flagstack/provider/<file>`, to its module under provider/<area>/. */
const KIND_EXPORTS = Object.fromEntries(
  KIND_LIST.map((k) => [`./provider/${k.file}`, `./dist/provider/${k.module}.js`]),
);

describe("package.json", () => {
  it("names its licence, repository and entry points", () => {
    expect(manifest.license).toBe("Apache-2.0");
    expect(manifest.repository).toEqual({
      type: "git",
      url: "git+https://github.com/flagstack/flagstack.git",
    });
    expect(manifest.main).toBe("dist/sdk/index.js");
    expect(manifest.exports).toEqual({
      ".": "./dist/sdk/index.js",
      "./sdk": "./dist/sdk/index.js",
      "./provider": "./dist/provider/index.js",
      ...KIND_EXPORTS,
      "./provider/*": "./dist/provider/*.js",
      "./emulator": "./dist/emulator/index.js",
      "./policy": "./dist/policy/policies.js",
      "./package.json": "./package.json",
    });
    // The path each kind's stored `__provider` text requires, to its module (`npm run generate`).
    expect(manifest.exports["./provider/flag"]).toBe("./dist/provider/flags/flag.js");
    expect(manifest.exports["./provider/trigger"]).toBe("./dist/provider/platform/trigger.js");
  });

  it("gives moduleResolution node the node10 declarations of exactly the subpaths in exports", () => {
    // typesVersions patterns map to a path TypeScript completes with .d.ts itself.
    const expected: Record<string, string[]> = {};
    for (const [subpath, target] of Object.entries(manifest.exports)) {
      if (subpath === "." || subpath === "./package.json") continue;
      const twin = node10Twin(target);
      expected[subpath.slice(2)] = [subpath.endsWith("*") ? twin.replace(/\*\.d\.ts$/, "*") : twin];
    }
    expect(manifest.typesVersions).toEqual({ "*": expected });
    expect(manifest.types).toBe(node10Twin(`./${manifest.main}`));
    expect(expected).toEqual({
      sdk: ["dist/node10/sdk/index.d.ts"],
      provider: ["dist/node10/provider/index.d.ts"],
      ...Object.fromEntries(
        KIND_LIST.map((k) => [`provider/${k.file}`, [`dist/node10/provider/${k.module}.d.ts`]]),
      ),
      "provider/*": ["dist/node10/provider/*"],
      emulator: ["dist/node10/emulator/index.d.ts"],
      policy: ["dist/node10/policy/policies.d.ts"],
    });
  });

  it("ships the policy pack's manifests and builds before packing", () => {
    for (const entry of [
      "dist",
      "!dist/.tsbuildinfo",
      "!dist/.node10-*",
      "bin",
      "policy/PulumiPolicy.yaml",
      "policy/package.json",
    ]) {
      expect(manifest.files).toContain(entry);
    }
    expect(manifest.scripts.build).toBe(
      "tsc -p tsconfig.build.json && node scripts/prune-dist.mts && node scripts/bundle.mts && node scripts/types-node10.mts",
    );
    expect(manifest.scripts.prepack).toBe("npm run build");
  });

  it("asks for @pulumi/policy as an optional peer, beside @pulumi/pulumi, and pins the dev SDK to the CLI", () => {
    expect(manifest.peerDependencies).toEqual({
      "@pulumi/policy": "^1.21.0",
      "@pulumi/pulumi": ">=3.259.0 <4.0.0",
    });
    expect(manifest.peerDependenciesMeta).toEqual({
      "@pulumi/pulumi": { optional: true },
      "@pulumi/policy": { optional: true },
    });
    expect(manifest.devDependencies["@pulumi/pulumi"]).toBe("3.259.0");
  });
});

describe("LICENSE", () => {
  it("is the Apache License 2.0, verbatim", () => {
    const text = read("LICENSE");
    // The SHA-256 of the text as the Apache Software Foundation publishes it (LICENSE-2.0.txt).
    expect(createHash("sha256").update(text).digest("hex")).toBe(
      "cfc7749b96f63bd31c3c42b5c471bf756814053e847c10f3eb003417bc523d30",
    );
    expect(text.split("\n").slice(1, 3)).toEqual([
      "                                 Apache License",
      "                           Version 2.0, January 2004",
    ]);
  });
});

describe("the policy pack's manifests", () => {
  const pack = JSON.parse(read("policy/package.json")) as Record<string, string>;

  it("runs the compiled pack and types flagstack/policy for moduleResolution node", () => {
    expect(pack).toEqual({
      name: "flagstack-rollout-safety",
      version: manifest.version,
      description:
        "flagstack rollout-safety policy pack for Pulumi CrossGuard: `pulumi preview --policy-pack node_modules/flagstack/policy` (needs @pulumi/policy installed beside flagstack)",
      license: manifest.license,
      private: true,
      main: "../dist/policy/index.js",
      types: "../dist/node10/policy/policies.d.ts",
    } as unknown as Record<string, string>);
    // node10 finds this package.json before flagstack's typesVersions; both name the same file.
    expect(resolve(REPO, "policy", pack.types!)).toBe(
      resolve(REPO, manifest.typesVersions["*"]!.policy![0]!),
    );
    // The entry point is built (by the vitest global setup, as by `npm run build`).
    expect(existsSync(resolve(REPO, "policy", pack.main!))).toBe(true);
  });

  it("tells the runner not to load TypeScript", () => {
    expect(parse(read("policy/PulumiPolicy.yaml"))).toEqual({
      description:
        "flagstack rollout safety: flag definitions, production ramps, pipelines, connectors and targeting assertions evaluated with the real feature-flag SDK",
      runtime: { name: "nodejs", options: { typescript: false } },
    });
  });
});

describe("the build", () => {
  it("inlines the sources into the source maps it ships", () => {
    const build = JSON.parse(read("tsconfig.build.json")) as {
      compilerOptions: Record<string, unknown>;
      exclude: string[];
    };
    expect(build.compilerOptions.inlineSources).toBe(true);
    expect(
      (JSON.parse(read("tsconfig.json")) as { compilerOptions: Record<string, unknown> }).compilerOptions
        .sourceMap,
    ).toBe(true);
    // policy/index.ts is built: it is the pack's entry point.
    expect(build.exclude).not.toContain("policy/index.ts");
    const map = JSON.parse(read("dist/policy/index.js.map")) as {
      sources: string[];
      sourcesContent: string[];
    };
    expect(map.sources).toEqual(["../../policy/index.ts"]);
    expect(map.sourcesContent).toEqual([read("policy/index.ts")]);
  });
});
