/**
 * `flagstack policy`: the rollout-safety policy pack as an installed package ships it.
 *
 * ```
 * flagstack policy path                      # the shipped pack's directory
 * flagstack policy init <dir> [--name NAME] [--javascript] [--force]
 * flagstack policy check <plan.json> [--config FILE] [--format text|json]
 * ```
 * `check` runs the same policies on a Terraform or OpenTofu plan (`tofu show -json <planfile>`),
 * with a config file in the format `--policy-pack-config` takes (`./policy-check-command.ts`).
 * The shipped pack runs as it is: `pulumi preview --policy-pack node_modules/flagstack/policy`
 * (or `--policy-pack "$(npx flagstack policy path)"` where node_modules is elsewhere, as in a
 * workspace), with `@pulumi/policy` installed beside flagstack. `init` writes a pack directory of
 * the team's own (`PulumiPolicy.yaml`, `package.json`, `index.ts` and `tsconfig.json`, or
 * `index.js`) that runs every flagstack policy with the team's settings baked in (the pack's
 * initial config, which a `--policy-pack-config` file still overrides) plus an example policy of
 * its own to copy. It is run instead of the shipped pack: running both reports each flagstack
 * policy twice. Inside the Pulumi program's directory it needs no install of its own (Node finds
 * flagstack, `@pulumi/policy` and `@pulumi/pulumi` in the program's node_modules); elsewhere,
 * `npm install` in it installs what its package.json lists.
 * @module
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { type Command, InvalidArgumentError, Option } from "commander";

/** Pulumi's rule for policy pack names (`@pulumi/policy` refuses any other at start-up). */
export const POLICY_PACK_NAME_PATTERN = /^[a-zA-Z0-9-_.]{1,100}$/;

/** What {@link policyPackFiles} needs. */
export interface PolicyPackInit {
  /** The pack's name, as `pulumi preview` prints it: letters, digits, `-`, `_`, `.` (1-100). */
  name: string;
  /** Write CommonJS JavaScript (`index.js`) instead of TypeScript (`index.ts` + `tsconfig.json`). */
  javascript?: boolean;
}

/** The parts of flagstack's package.json that the generated package.json depends on. */
export interface PackageInfo {
  version: string;
  peerDependencies: Record<string, string>;
}

/** The directory of the installed flagstack package (or of this repository): the one holding its package.json. */
export function packageRoot(from: string = __dirname): string {
  // dist/cli/ in the package, cli/ when run from source: the first package.json named flagstack above.
  for (let dir = from; ; dir = dirname(dir)) {
    const manifest = join(dir, "package.json");
    if (
      existsSync(manifest) &&
      (JSON.parse(readFileSync(manifest, "utf8")) as { name?: string }).name === "flagstack"
    )
      return dir;
    if (dirname(dir) === dir) throw new Error(`no flagstack package.json above ${from}`);
  }
}

/** The shipped pack's directory: `<package>/policy`, what `--policy-pack` takes. */
export function shippedPolicyPackDir(root: string = packageRoot()): string {
  return join(root, "policy");
}

/** flagstack's version and peer dependency ranges, from its package.json. */
export function packageInfo(root: string = packageRoot()): PackageInfo {
  const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as PackageInfo;
  return { version: manifest.version, peerDependencies: manifest.peerDependencies };
}

/** The name `init` gives a pack when `--name` is absent: the directory's name, made valid. */
export function defaultPackName(dir: string): string {
  const name = basename(resolve(dir))
    .replace(/[^a-zA-Z0-9-_.]+/g, "-")
    .replace(/^[-.]+|[-.]+$/g, "")
    .slice(0, 100);
  return name === "" ? "rollout-safety" : name;
}

const json = (value: unknown): string => `${JSON.stringify(value, null, 2)}\n`;

/** The example policy and the settings, shared by both languages (the JS one has no type annotations). */
function packBody(name: string, javascript: boolean): string {
  const policyType = javascript ? "" : ": ResourceValidationPolicy";
  const configType = javascript ? "" : ": PolicyPackConfig";
  const policyDoc = javascript ? '/** @type {import("@pulumi/policy").ResourceValidationPolicy} */\n' : "";
  const configDoc = javascript ? '/** @type {import("@pulumi/policy").PolicyPackConfig} */\n' : "";
  return `/**
 * A policy of this team, to copy for more. Flagstack resources are matched on their type token
 * (a dynamic resource never matches \`validateResourceOfType\`); \`args.props\` are the resource's
 * inputs as its provider checked them, defaults included.
 */
${policyDoc}const flagDescribed${policyType} = {
  name: "flag-described",
  description: "Every flag says what it is for.",
  enforcementLevel: "advisory",
  severity: "low",
  validateResource: (args, reportViolation) => {
    if (args.type !== FLAG_TYPE) return;
    const description = args.props.description;
    if (typeof description !== "string" || description.trim() === "") {
      reportViolation(\`flag "\${args.props.name}" has no description\`);
    }
  },
};

/**
 * This team's settings, as a --policy-pack-config file gives them: a policy's level ("advisory",
 * "mandatory" or "disabled") or its settings (with "enforcementLevel" among them to change both).
 * A --policy-pack-config file given with this pack still overrides them. Every policy and
 * setting: flagstack's docs/policy.md.
 */
${configDoc}const config${configType} = {
  "flag-naming": "mandatory",
  "flag-required-tags": { requiredTags: ["owner:*"] },
};

new PolicyPack(${JSON.stringify(name)}, { policies: [...policies, flagDescribed] }, config);
`;
}

/** The header comment of the generated entry point. */
function packHeader(name: string): string {
  return `/**
 * The ${name} policy pack: flagstack's rollout-safety policies with this team's settings, plus
 * the team's own policies.
 *
 *   pulumi preview --policy-pack <this directory>
 *
 * Run it instead of node_modules/flagstack/policy (running both reports each flagstack policy
 * twice). flagstack, @pulumi/policy and @pulumi/pulumi are found in the node_modules of the
 * Pulumi program this directory sits in; elsewhere, run \`npm install\` here.
 */
`;
}

/**
 * The files of a new team pack, by name: `PulumiPolicy.yaml`, `package.json` and the entry
 * point (`index.ts` with a `tsconfig.json`, or `index.js`). `package.json` pins flagstack to
 * this version's minor range and `@pulumi/policy` / `@pulumi/pulumi` to flagstack's peer ranges.
 */
export function policyPackFiles(
  init: PolicyPackInit,
  info: PackageInfo = packageInfo(),
): Record<string, string> {
  const { name } = init;
  if (!POLICY_PACK_NAME_PATTERN.test(name)) {
    throw new Error(
      `policy pack name "${name}" may only contain letters, digits, hyphens, underscores and periods (1-100 of them)`,
    );
  }
  const javascript = init.javascript ?? false;
  const main = javascript ? "index.js" : "index.ts";
  const files: Record<string, string> = {};
  // A JavaScript pack tells the runner not to load TypeScript, so it runs where no `typescript` is installed.
  files["PulumiPolicy.yaml"] =
    `description: ${JSON.stringify(`${name}: flagstack rollout safety with this team's settings and policies`)}\n` +
    (javascript ? "runtime:\n  name: nodejs\n  options:\n    typescript: false\n" : "runtime: nodejs\n");
  files["package.json"] = json({
    name,
    version: "0.1.0",
    description: `${name}: flagstack rollout safety with this team's settings and policies`,
    private: true,
    main,
    dependencies: {
      "@pulumi/policy": info.peerDependencies["@pulumi/policy"],
      "@pulumi/pulumi": info.peerDependencies["@pulumi/pulumi"],
      flagstack: `^${info.version}`,
    },
  });
  if (javascript) {
    files["index.js"] =
      `// @ts-check\n${packHeader(name)}"use strict";\n` +
      'const { PolicyPack } = require("@pulumi/policy");\n' +
      'const { policies } = require("flagstack/policy");\n' +
      'const { FLAG_TYPE } = require("flagstack/provider/types");\n\n' +
      packBody(name, true);
  } else {
    files["index.ts"] =
      packHeader(name) +
      'import { PolicyPack, type PolicyPackConfig, type ResourceValidationPolicy } from "@pulumi/policy";\n' +
      'import { policies } from "flagstack/policy";\n' +
      'import { FLAG_TYPE } from "flagstack/provider/types";\n\n' +
      packBody(name, false);
    // The compiler options of `pulumi new typescript`, plus skipLibCheck: @pulumi/policy's own
    // declarations do not check (its index.d.ts re-exports names its proxy.d.ts leaves out).
    files["tsconfig.json"] = `{
  // The policy runner type-checks index.ts with these options.
  "compilerOptions": {
    "strict": true,
    "target": "es2020",
    "module": "nodenext",
    "moduleResolution": "nodenext",
    "skipLibCheck": true,
    "noFallthroughCasesInSwitch": true,
    "noImplicitReturns": true,
    "forceConsistentCasingInFileNames": true
  },
  "files": ["index.ts"]
}
`;
  }
  return files;
}

/**
 * Writes a new team pack into `dir` (created if missing) and returns the paths written. Refuses,
 * writing nothing, when one of its files exists, unless `force`.
 */
export function initPolicyPack(
  dir: string,
  init: PolicyPackInit & { force?: boolean },
  info: PackageInfo = packageInfo(),
): string[] {
  const files = policyPackFiles(init, info);
  const paths = Object.keys(files).map((f) => join(dir, f));
  const existing = paths.filter((p) => existsSync(p));
  if (existing.length > 0 && !init.force) {
    throw new Error(
      `${existing.join(", ")} already exist${existing.length === 1 ? "s" : ""} (--force overwrites)`,
    );
  }
  mkdirSync(dir, { recursive: true });
  for (const [file, text] of Object.entries(files)) writeFileSync(join(dir, file), text);
  return paths;
}

/** Registers `flagstack policy path`, `flagstack policy init` and `flagstack policy check`. */
export function register(program: Command): void {
  const policy = program
    .command("policy")
    .description(
      "The rollout-safety policy pack: where it is installed, a team pack built on it, and its policies on a Terraform plan",
    );
  policy
    .command("path")
    .description(
      "print the shipped pack's directory, for `pulumi preview --policy-pack` (node_modules/flagstack/policy in a program)",
    )
    .action(() => {
      console.log(shippedPolicyPackDir());
    });
  policy
    .command("init")
    .description(
      "write a policy pack into DIR that runs every flagstack policy with the team's settings, plus the team's own policies",
    )
    .argument("<dir>", "the pack's directory (created if missing)")
    .option("--name <name>", "the pack's name (default: the directory's name)", (v) => {
      if (!POLICY_PACK_NAME_PATTERN.test(v)) {
        throw new InvalidArgumentError("letters, digits, hyphens, underscores and periods only (1-100)");
      }
      return v;
    })
    .option("--javascript", "write index.js (CommonJS) instead of index.ts and tsconfig.json")
    .option("--force", "overwrite the pack's files if they exist")
    .action((dir: string, opts: { name?: string; javascript?: boolean; force?: boolean }) => {
      const name = opts.name ?? defaultPackName(dir);
      const written = initPolicyPack(dir, {
        name,
        javascript: opts.javascript ?? false,
        force: opts.force ?? false,
      });
      for (const path of written) console.log(`wrote ${path}`);
      console.log(`run it with: pulumi preview --policy-pack ${dir}`);
    });
  policy
    .command("check")
    .description(
      "run the pack's policies on a Terraform or OpenTofu plan (the JSON of `tofu show -json <planfile>`), their settings from --config FILE, their findings as --format text or json; exits 1 on a mandatory violation",
    )
    .argument("<plan>", "the plan's JSON file (- for standard input)")
    .option("--config <file>", "the pack's config file, as `pulumi preview --policy-pack-config` takes it")
    .addOption(
      new Option("--format <format>", "how the findings are printed")
        .choices(["text", "json"])
        .default("text"),
    )
    .action(async (plan: string, opts: { config?: string; format: "text" | "json" }) => {
      // Loaded when the command runs: it loads the kinds.
      const { runPolicyCheck } = await import("./policy-check-command.js");
      process.exitCode = await runPolicyCheck(plan, opts);
    });
}
