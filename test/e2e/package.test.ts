/**
 * The package as a newcomer gets it: `npm pack` of this repository, installed from the tarball
 * (with `@pulumi/pulumi@3.259.0`, `@pulumi/policy`, and the `typescript` / `@types/node` that
 * `pulumi new typescript` lists) into a directory outside the repository, then used by four
 * programs that never see the repository:
 *
 * - `classic-ts`: the tsconfig `pulumi new typescript` wrote until 2026 (`module: commonjs`,
 *   `moduleResolution: node`, no `esModuleInterop`, no `skipLibCheck`), verbatim;
 * - `nodenext-ts`: today's template tsconfig (`module`/`moduleResolution: nodenext`), in an ES
 *   module package (`"type": "module"`);
 * - `cjs-js` and `esm-js`: plain JavaScript, CommonJS and ES module.
 *
 * Both TypeScript programs type-check with `tsc` as they are; each program runs `pulumi up`, a
 * `pulumi preview` that sends no request, and `pulumi destroy` against an emulator started here.
 * The shipped policy pack blocks a mandatory violation straight from
 * `node_modules/flagstack/policy`, and a pack written by the installed `flagstack policy init`
 * runs the shipped policies with its own settings and policy.
 *
 * Every program's node_modules links to one install (`deps/node_modules`), so the registry is asked
 * once per run (`--prefer-offline`: npm's cache answers when it can); resolution from the program
 * is the same as from its own install. The repository is packed with `--ignore-scripts` after the
 * vitest global setup's `tsc` and the node10 declarations step (`npm run build` is `prepack`, and
 * fails on a type error anywhere in a checkout that others are editing). `FLAGSTACK_KEEP_PACKAGE_TEST=1`
 * keeps the directory. The durations are printed at the end.
 */
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { promisify } from "node:util";
import { LocalWorkspace, type PulumiCommand, type Stack } from "@pulumi/pulumi/automation";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Emulator, startEmulator } from "../../emulator";
import { clients, defaultWorkspaceId } from "./fixtures";
import { apiRequests, emulatorConfig, engineEnv, pulumiCli, REPO_ROOT } from "./harness";

const execFileAsync = promisify(execFile);

/** The version `pulumi new typescript` and this repository pin. */
const PULUMI_VERSION = "3.259.0";

/**
 * The tsconfig of `pulumi new typescript` until March 2026 (pulumi/templates a3029400,
 * typescript/tsconfig.json), byte for byte.
 */
const CLASSIC_TSCONFIG = `{
    "compilerOptions": {
        "strict": true,
        "outDir": "bin",
        "target": "es2020",
        "module": "commonjs",
        "moduleResolution": "node",
        "sourceMap": true,
        "experimentalDecorators": true,
        "pretty": true,
        "noFallthroughCasesInSwitch": true,
        "noImplicitReturns": true,
        "forceConsistentCasingInFileNames": true
    },
    "files": [
        "index.ts"
    ]
}
`;

/** Today's template tsconfig (pulumi/templates 81e65225): the classic one with nodenext. */
const NODENEXT_TSCONFIG = CLASSIC_TSCONFIG.replace('"commonjs"', '"nodenext"').replace(
  '"node"',
  '"nodenext"',
);

/** The flag definition every program declares beside its flag. */
const DEFINITION = `{
  workspace: "Default",
  flag: flag.name,
  environment: "Production",
  treatments: [{ name: "on", keys: ["qa-bot"] }, { name: "off" }],
  defaultTreatment: "off",
  defaultRule: [
    { treatment: "on", size: 10 },
    { treatment: "off", size: 90 },
  ],
}`;

/**
 * A TypeScript program: a flag and its production definition, with the SDK, lookups, the
 * emulator's types and a deep resource module imported, so every entry point's declarations are
 * resolved and checked under the program's tsconfig.
 */
const tsProgram = (flagName: string): string => `import * as pulumi from "@pulumi/pulumi";
import { ApiError, type AdminClientOptions } from "flagstack";
import type { Emulator } from "flagstack/emulator";
import { Flag, FlagDefinition, type FlagArgs, getWorkspace } from "flagstack/provider";
import { FLAG_TYPE } from "flagstack/provider/types";
import { PlatformClient } from "flagstack/sdk";

const args: FlagArgs = {
  workspace: "Default",
  trafficType: "user",
  name: ${JSON.stringify(flagName)},
  description: "installed from the packed tarball",
};
const flag = new Flag("flag", args);
new FlagDefinition("flag-production", ${DEFINITION});

const options: Partial<AdminClientOptions> = {};
const emulator: Emulator | undefined = undefined;
export const flagId: pulumi.Output<string> = flag.flagId;
export const type: string = FLAG_TYPE;
export const exported: string[] = [ApiError.name, PlatformClient.name, typeof getWorkspace, typeof options, typeof emulator];
`;

/** A JavaScript program with the same resources (CommonJS or ES module). */
const jsProgram = (flagName: string, esm: boolean): string =>
  `${esm ? 'import { Flag, FlagDefinition } from "flagstack/provider";' : '"use strict";\nconst { Flag, FlagDefinition } = require("flagstack/provider");'}

const flag = new Flag("flag", {
  workspace: "Default",
  trafficType: "user",
  name: ${JSON.stringify(flagName)},
  description: "installed from the packed tarball",
});
new FlagDefinition("flag-production", ${DEFINITION});

${esm ? "export const flagId = flag.flagId;" : "exports.flagId = flag.flagId;"}
`;

/** A program's files, by name. */
type ProgramFiles = Record<string, string>;

function pulumiYaml(name: string): string {
  return `name: ${name}\nruntime: nodejs\ndescription: flagstack installed from its tarball\n`;
}

/** The four kinds of program, with the flag each one declares. */
const PROGRAMS: { name: string; flag: string; files: ProgramFiles }[] = [
  {
    name: "classic-ts",
    flag: "pkg-classic-ts",
    files: {
      "package.json": `${JSON.stringify({ name: "classic-ts", main: "index.ts" }, null, 4)}\n`,
      "tsconfig.json": CLASSIC_TSCONFIG,
      "index.ts": tsProgram("pkg-classic-ts"),
    },
  },
  {
    name: "nodenext-ts",
    flag: "pkg-nodenext-ts",
    files: {
      "package.json": `${JSON.stringify({ name: "nodenext-ts", type: "module", main: "index.ts" }, null, 4)}\n`,
      "tsconfig.json": NODENEXT_TSCONFIG,
      "index.ts": tsProgram("pkg-nodenext-ts"),
    },
  },
  {
    name: "cjs-js",
    flag: "pkg-cjs-js",
    files: {
      "package.json": `${JSON.stringify({ name: "cjs-js", main: "index.js" }, null, 4)}\n`,
      "index.js": jsProgram("pkg-cjs-js", false),
    },
  },
  {
    name: "esm-js",
    flag: "pkg-esm-js",
    files: {
      "package.json": `${JSON.stringify({ name: "esm-js", type: "module", main: "index.js" }, null, 4)}\n`,
      "index.js": jsProgram("pkg-esm-js", true),
    },
  },
];

/** A program that sends everyone to `on` in production while its flag is still Pre-Production. */
const VIOLATING: ProgramFiles = {
  "package.json": `${JSON.stringify({ name: "violating", main: "index.js" }, null, 4)}\n`,
  "index.js": `"use strict";
const { Flag, FlagDefinition } = require("flagstack/provider");

const flag = new Flag("flag", {
  workspace: "Default",
  trafficType: "user",
  name: "pkg-violating",
  description: "everyone on in production",
  tags: ["owner:payments"],
});
new FlagDefinition("flag-production", {
  workspace: "Default",
  flag: flag.name,
  environment: "Production",
  treatments: [{ name: "on" }, { name: "off" }],
  defaultTreatment: "off",
  defaultRule: [{ treatment: "on", size: 100 }],
});
`,
};

/** A flag whose name is not kebab-case and which has no description (advisory in the shipped pack). */
const TEAM: ProgramFiles = {
  "package.json": `${JSON.stringify({ name: "team", main: "index.js" }, null, 4)}\n`,
  "index.js": `"use strict";
const { Flag } = require("flagstack/provider");

new Flag("flag", { workspace: "Default", trafficType: "user", name: "Team_Flag", tags: ["owner:payments"] });
`,
};

/** Seconds since `start` (a `performance.now()`), to one decimal. */
const since = (start: number): number => Math.round((performance.now() - start) / 100) / 10;

/** Runs a command; throws with its output when it fails. */
async function run(
  command: string,
  args: string[],
  cwd: string,
  env: Record<string, string | undefined> = process.env,
): Promise<string> {
  try {
    const { stdout } = await execFileAsync(command, args, { cwd, env, maxBuffer: 1 << 28 });
    return stdout;
  } catch (e) {
    const { stdout = "", stderr = "" } = e as { stdout?: string; stderr?: string };
    throw new Error(`${command} ${args.join(" ")} failed in ${cwd}:\n${stdout}\n${stderr}`);
  }
}

/** The error text of a command that must fail. */
async function failureText(p: Promise<unknown>): Promise<string> {
  const e = await p.then(
    () => {
      throw new Error("expected the command to fail");
    },
    (err: unknown) => err,
  );
  return String(e);
}

describe("the packed package, installed into programs outside the repository", () => {
  let dir: string;
  let depsDir: string;
  let tarball: string;
  /** The tarball's files, as `npm pack --json` lists them. */
  let packedFiles: string[];
  let emu: Emulator;
  let cli: PulumiCommand;
  let env: Record<string, string>;
  /** Process environment with this Node first on PATH (npm and the installed bin run on it). */
  const nodeEnv = {
    ...process.env,
    PATH: `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ""}`,
  };
  const seconds: Record<string, number> = {};

  /** Writes a program next to the install, its node_modules linked to the install's. */
  function writeProgram(name: string, files: ProgramFiles): string {
    const programDir = join(dir, "programs", name);
    mkdirSync(programDir, { recursive: true });
    writeFileSync(join(programDir, "Pulumi.yaml"), pulumiYaml(name));
    for (const [file, text] of Object.entries(files)) writeFileSync(join(programDir, file), text);
    symlinkSync(join(depsDir, "node_modules"), join(programDir, "node_modules"), "dir");
    return programDir;
  }

  /** A stack of the program on the test's file backend, configured for the emulator. */
  async function openStack(programDir: string): Promise<Stack> {
    const stack = await LocalWorkspace.createOrSelectStack(
      { stackName: "package", workDir: programDir },
      { pulumiCommand: cli, pulumiHome: join(dir, "home"), envVars: env },
    );
    await stack.setAllConfig(emulatorConfig(emu));
    return stack;
  }

  /** The emulator's API requests made while `f` runs. */
  async function requestsDuring<T>(f: () => Promise<T>): Promise<{ result: T; requests: unknown[] }> {
    const before = emu.requests().length;
    const result = await f();
    return { result, requests: apiRequests(emu.requests().slice(before)) };
  }

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "flagstack-package-"));
    depsDir = join(dir, "deps");
    for (const d of [depsDir, join(dir, "home"), join(dir, "backend")]) mkdirSync(d, { recursive: true });

    let start = performance.now();
    // The declarations for moduleResolution node10, which `npm run build` writes after tsc.
    await run(process.execPath, [join(REPO_ROOT, "scripts", "types-node10.mts")], REPO_ROOT, nodeEnv);
    const packed = JSON.parse(
      await run("npm", ["pack", "--ignore-scripts", "--json", "--pack-destination", dir], REPO_ROOT, nodeEnv),
    ) as { filename: string; files: { path: string }[] }[];
    tarball = join(dir, packed[0]!.filename);
    packedFiles = packed[0]!.files.map((f) => f.path);
    seconds.pack = since(start);

    start = performance.now();
    writeFileSync(
      join(depsDir, "package.json"),
      `${JSON.stringify(
        {
          name: "flagstack-package-test",
          private: true,
          dependencies: {
            "@pulumi/policy": "^1.21.0",
            "@pulumi/pulumi": PULUMI_VERSION,
            flagstack: `file:${tarball}`,
            typescript: "^5.0.0",
          },
          devDependencies: { "@types/node": "^18" },
        },
        null,
        2,
      )}\n`,
    );
    await run(
      "npm",
      ["install", "--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error"],
      depsDir,
      nodeEnv,
    );
    seconds.install = since(start);

    emu = await startEmulator({ port: 0 });
    cli = await pulumiCli();
    env = engineEnv(join(dir, "home"), join(dir, "backend"));
  });

  afterAll(async () => {
    await emu?.stop();
    if (dir && !process.env.FLAGSTACK_KEEP_PACKAGE_TEST) rmSync(dir, { recursive: true, force: true });
    console.log(
      `package test, seconds: ${Object.entries(seconds)
        .map(([k, v]) => `${k} ${v}`)
        .join(", ")}`,
    );
  });

  it("ships the compiled package, its declarations for every resolution mode, the policy pack and the licence, no sources", () => {
    for (const path of [
      "LICENSE",
      "package.json",
      "bin/flagstack.js",
      "policy/PulumiPolicy.yaml",
      "policy/package.json",
      "dist/policy/index.js",
      "dist/policy/policies.d.ts",
      "dist/provider/index.d.ts",
      "dist/node10/provider/index.d.ts",
      "dist/node10/policy/policies.d.ts",
      "dist/sdk/core/request.js.map",
    ]) {
      expect(packedFiles, path).toContain(path);
    }
    expect(
      packedFiles.filter((f) =>
        /\.tsbuildinfo$|^dist\/\.node10-|^(sdk|provider|emulator|cli|test)\//.test(f),
      ),
    ).toEqual([]);
    expect(packedFiles.filter((f) => f.endsWith(".ts") && !f.endsWith(".d.ts"))).toEqual([]);
    const installed = (path: string) => join(depsDir, "node_modules", "flagstack", path);
    expect(readFileSync(installed("LICENSE"), "utf8")).toBe(readFileSync(join(REPO_ROOT, "LICENSE"), "utf8"));
    // Stack traces through the package resolve to its sources, which travel inside the maps.
    const map = JSON.parse(readFileSync(installed("dist/sdk/core/request.js.map"), "utf8")) as {
      sources: string[];
      sourcesContent: string[];
    };
    expect(map.sources).toEqual(["../../../sdk/core/request.ts"]);
    expect(map.sourcesContent[0]).toBe(readFileSync(join(REPO_ROOT, "sdk", "core", "request.ts"), "utf8"));
  });

  for (const program of PROGRAMS.filter((p) => p.files["tsconfig.json"])) {
    it(`${program.name}: tsc type-checks the program with the template's tsconfig as it is`, async () => {
      const programDir = writeProgram(`${program.name}-tsc`, program.files);
      const start = performance.now();
      const tsc = join(depsDir, "node_modules", "typescript", "bin", "tsc");
      expect(await run(process.execPath, [tsc, "--noEmit", "-p", "."], programDir, nodeEnv)).toBe("");
      seconds[`${program.name} tsc`] = since(start);
    });
  }

  for (const program of PROGRAMS) {
    it(`${program.name}: up, a preview that sends no request, destroy`, async () => {
      const stack = await openStack(writeProgram(program.name, program.files));
      const { admin } = clients(emu);
      const ws = await defaultWorkspaceId(admin);

      let start = performance.now();
      const up = await stack.up({ color: "never" });
      seconds[`${program.name} up`] = since(start);
      expect(up.summary.resourceChanges).toEqual({ create: 3 });
      const flag = await admin.flags.get(ws, program.flag);
      expect(flag.description).toBe("installed from the packed tarball");
      expect(up.outputs.flagId?.value).toBe(flag.id);

      start = performance.now();
      const preview = await requestsDuring(() => stack.preview({ color: "never" }));
      seconds[`${program.name} preview`] = since(start);
      expect(preview.result.changeSummary).toEqual({ same: 3 });
      expect(preview.requests).toEqual([]);

      start = performance.now();
      const destroy = await stack.destroy({ color: "never" });
      seconds[`${program.name} destroy`] = since(start);
      expect(destroy.summary.resourceChanges).toEqual({ delete: 3 });
      const names: string[] = [];
      for await (const f of admin.flags.list(ws)) names.push(f.name);
      expect(names).not.toContain(program.flag);
    });
  }

  it("the shipped pack blocks a mandatory violation from node_modules/flagstack/policy, before any write", async () => {
    const stack = await openStack(writeProgram("violating", VIOLATING));
    const start = performance.now();
    const { result: text, requests } = await requestsDuring(() =>
      failureText(stack.preview({ color: "never", policyPacks: ["node_modules/flagstack/policy"] })),
    );
    seconds["shipped pack preview"] = since(start);
    expect(text).toContain("flagstack-rollout-safety@v0.1.0 (local: node_modules/flagstack/policy)");
    expect(text).toContain(
      "[mandatory] [severity: high]  production-ramp-guard  (pulumi-nodejs:dynamic/flagstack:FlagDefinition: flag-production)",
    );
    expect(text).toContain(
      'flag "pkg-violating" in environment "Production" sends 100% of untargeted traffic to treatments other than the baseline "off"',
    );
    expect(requests).toEqual([]);
  });

  it("a pack from `flagstack policy init` runs the shipped policies with its settings, plus its own policy", async () => {
    const programDir = writeProgram("team", TEAM);
    const bin = join(depsDir, "node_modules", ".bin", "flagstack");
    expect(await run(bin, ["policy", "init", "team-policy"], programDir, nodeEnv)).toBe(
      [
        "wrote team-policy/PulumiPolicy.yaml",
        "wrote team-policy/package.json",
        "wrote team-policy/index.ts",
        "wrote team-policy/tsconfig.json",
        "run it with: pulumi preview --policy-pack team-policy",
        "",
      ].join("\n"),
    );
    const stack = await openStack(programDir);

    // The shipped pack only advises on the name and has no description policy...
    const shipped = await stack.preview({ color: "never", policyPacks: ["node_modules/flagstack/policy"] });
    expect(shipped.stdout).toContain(
      "[advisory] [severity: low]  flag-naming  (pulumi-nodejs:dynamic/flagstack:Flag: flag)",
    );
    expect(shipped.stdout).not.toContain("flag-described");

    // ...the team pack makes the name mandatory (its settings) and adds its own policy.
    const start = performance.now();
    const text = await failureText(stack.preview({ color: "never", policyPacks: ["team-policy"] }));
    seconds["team pack preview"] = since(start);
    expect(text).toContain("team-policy@v0.1.0 (local: team-policy)");
    expect(text).toContain(
      "[mandatory] [severity: low]  flag-naming  (pulumi-nodejs:dynamic/flagstack:Flag: flag)",
    );
    expect(text).toContain('flag name "Team_Flag" does not match the pattern ^[a-z][a-z0-9]*(-[a-z0-9]+)*$');
    expect(text).toContain(
      "[advisory] [severity: low]  flag-described  (pulumi-nodejs:dynamic/flagstack:Flag: flag)",
    );
    expect(text).toContain('flag "Team_Flag" has no description');
  });
});
