/**
 * `flagstack policy path|init` (cli/policy-command.ts): the shipped pack's directory, and the
 * files of a team pack, which type-check against the built package as the policy runner checks
 * them. test/e2e/package.test.ts runs such a pack with the engine from an installed tarball.
 */
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import ts from "typescript";
import { afterEach, describe, expect, it, vi } from "vitest";
import { main } from "../../cli";
import {
  defaultPackName,
  initPolicyPack,
  type PackageInfo,
  packageInfo,
  packageRoot,
  policyPackFiles,
  shippedPolicyPackDir,
} from "../../cli/policy-command";

const execFileAsync = promisify(execFile);
const REPO = join(__dirname, "..", "..");
const INFO: PackageInfo = {
  version: "1.2.3",
  peerDependencies: { "@pulumi/policy": "^1.21.0", "@pulumi/pulumi": ">=3.259.0 <4.0.0" },
};

const temps: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "flagstack-policy-init-"));
  temps.push(dir);
  return dir;
}
afterEach(() => {
  for (const d of temps.splice(0)) rmSync(d, { recursive: true, force: true });
  vi.restoreAllMocks();
});

describe("the shipped pack", () => {
  it("is the policy/ directory of the package", () => {
    expect(packageRoot()).toBe(REPO);
    expect(shippedPolicyPackDir()).toBe(join(REPO, "policy"));
    expect(packageInfo()).toEqual({
      version: JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")).version,
      peerDependencies: { "@pulumi/policy": "^1.21.0", "@pulumi/pulumi": ">=3.259.0 <4.0.0" },
    });
  });

  it("`flagstack policy path` prints it", async () => {
    const log = vi.spyOn(console, "log").mockImplementation(() => {});
    await main(["node", "flagstack", "policy", "path"]);
    expect(log.mock.calls).toEqual([[join(REPO, "policy")]]);
  });
});

describe("policyPackFiles", () => {
  it("writes a TypeScript pack: manifest, settings, the team's policy, and the template's compiler options", () => {
    const files = policyPackFiles({ name: "payments-rollout" }, INFO);
    expect(Object.keys(files)).toEqual(["PulumiPolicy.yaml", "package.json", "index.ts", "tsconfig.json"]);
    expect(files["PulumiPolicy.yaml"]).toBe(
      'description: "payments-rollout: flagstack rollout safety with this team\'s settings and policies"\nruntime: nodejs\n',
    );
    expect(JSON.parse(files["package.json"]!)).toEqual({
      name: "payments-rollout",
      version: "0.1.0",
      description: "payments-rollout: flagstack rollout safety with this team's settings and policies",
      private: true,
      main: "index.ts",
      dependencies: {
        "@pulumi/policy": "^1.21.0",
        "@pulumi/pulumi": ">=3.259.0 <4.0.0",
        flagstack: "^1.2.3",
      },
    });
    const tsconfig = ts.parseConfigFileTextToJson("tsconfig.json", files["tsconfig.json"]!);
    expect(tsconfig.error).toBeUndefined();
    expect(tsconfig.config).toEqual({
      compilerOptions: {
        strict: true,
        target: "es2020",
        module: "nodenext",
        moduleResolution: "nodenext",
        skipLibCheck: true,
        noFallthroughCasesInSwitch: true,
        noImplicitReturns: true,
        forceConsistentCasingInFileNames: true,
      },
      files: ["index.ts"],
    });
    const index = files["index.ts"]!;
    expect(index).toContain('import { policies } from "flagstack/policy";\n');
    expect(index).toContain(
      '  "flag-naming": "mandatory",\n  "flag-required-tags": { requiredTags: ["owner:*"] },\n',
    );
    expect(
      index.endsWith(
        'new PolicyPack("payments-rollout", { policies: [...policies, flagDescribed] }, config);\n',
      ),
    ).toBe(true);
  });

  it("writes a JavaScript pack that the runner loads without TypeScript", () => {
    const files = policyPackFiles({ name: "payments-rollout", javascript: true }, INFO);
    expect(Object.keys(files)).toEqual(["PulumiPolicy.yaml", "package.json", "index.js"]);
    expect(files["PulumiPolicy.yaml"]).toBe(
      'description: "payments-rollout: flagstack rollout safety with this team\'s settings and policies"\n' +
        "runtime:\n  name: nodejs\n  options:\n    typescript: false\n",
    );
    expect(JSON.parse(files["package.json"]!).main).toBe("index.js");
    const index = files["index.js"]!;
    expect(index.startsWith("// @ts-check\n/**\n * The payments-rollout policy pack:")).toBe(true);
    expect(index).toContain('"use strict";\nconst { PolicyPack } = require("@pulumi/policy");\n');
    expect(index).toContain(
      '/** @type {import("@pulumi/policy").ResourceValidationPolicy} */\nconst flagDescribed = {',
    );
  });

  it("refuses a name Pulumi refuses", () => {
    expect(() => policyPackFiles({ name: "team rollout" }, INFO)).toThrow(
      'policy pack name "team rollout" may only contain letters, digits, hyphens, underscores and periods (1-100 of them)',
    );
    expect(() => policyPackFiles({ name: "x".repeat(101) }, INFO)).toThrow("may only contain");
  });

  it.each([
    ["policy-pack", "policy-pack"],
    ["./teams/Payments Rollout", "Payments-Rollout"],
    ["/tmp/é", "rollout-safety"],
    ["./.policy", "policy"],
    ["a".repeat(120), "a".repeat(100)],
  ])("names a pack in %j %j by default", (dir, name) => {
    expect(defaultPackName(dir)).toBe(name);
  });
});

describe("initPolicyPack", () => {
  it("writes the files, refuses to overwrite them, and overwrites with force", () => {
    const dir = join(tempDir(), "team-policy");
    const written = initPolicyPack(dir, { name: "team-policy" }, INFO);
    expect(written).toEqual(
      ["PulumiPolicy.yaml", "package.json", "index.ts", "tsconfig.json"].map((f) => join(dir, f)),
    );
    const files = policyPackFiles({ name: "team-policy" }, INFO);
    for (const [file, text] of Object.entries(files))
      expect(readFileSync(join(dir, file), "utf8")).toBe(text);

    writeFileSync(join(dir, "index.ts"), "// the team's edits\n");
    expect(() => initPolicyPack(dir, { name: "team-policy" }, INFO)).toThrow(
      `${written.join(", ")} already exist (--force overwrites)`,
    );
    expect(readFileSync(join(dir, "index.ts"), "utf8")).toBe("// the team's edits\n");
    initPolicyPack(dir, { name: "team-policy", force: true }, INFO);
    expect(readFileSync(join(dir, "index.ts"), "utf8")).toBe(files["index.ts"]);
  });

  it("`flagstack policy init` prints what it wrote and how to run it", async () => {
    const dir = join(tempDir(), "rollout");
    const log = vi.spyOn(console, "log").mockImplementation(() => {});
    await main(["node", "flagstack", "policy", "init", dir, "--javascript", "--name", "acme"]);
    expect(log.mock.calls).toEqual([
      [`wrote ${join(dir, "PulumiPolicy.yaml")}`],
      [`wrote ${join(dir, "package.json")}`],
      [`wrote ${join(dir, "index.js")}`],
      [`run it with: pulumi preview --policy-pack ${dir}`],
    ]);
    expect(JSON.parse(readFileSync(join(dir, "package.json"), "utf8")).name).toBe("acme");
    expect(existsSync(join(dir, "tsconfig.json"))).toBe(false);
  });

  it("writes packs that type-check against the built package (TypeScript with its tsconfig, JavaScript with @ts-check)", async () => {
    // A program directory whose node_modules is the repository's, where flagstack links back to
    // the repository: the pack resolves flagstack/policy through the package's exports, as installed.
    const program = tempDir();
    symlinkSync(join(REPO, "node_modules"), join(program, "node_modules"), "dir");
    const tsc = join(REPO, "node_modules", "typescript", "bin", "tsc");
    initPolicyPack(join(program, "ts-pack"), { name: "ts-pack" });
    const tsRun = await execFileAsync(process.execPath, [tsc, "--noEmit", "-p", "ts-pack"], { cwd: program });
    expect(tsRun.stdout).toBe("");

    initPolicyPack(join(program, "js-pack"), { name: "js-pack", javascript: true });
    writeFileSync(
      join(program, "js-pack", "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          allowJs: true,
          checkJs: true,
          noEmit: true,
          strict: true,
          module: "nodenext",
          skipLibCheck: true,
          types: ["node"],
        },
        files: ["index.js"],
      }),
    );
    const jsRun = await execFileAsync(process.execPath, [tsc, "-p", "js-pack"], { cwd: program });
    expect(jsRun.stdout).toBe("");
  }, 180_000);
});
