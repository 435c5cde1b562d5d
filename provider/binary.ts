/**
 * The provider binary's entry point: one self-contained executable per platform (Node's
 * single-executable application, built by `npm run release`, `scripts/release-binary.mts`) that
 * serves both doors of the provider from the same code:
 * - **Terraform and OpenTofu** (plugin protocol 6, `./terraform/plugin.ts`) when started as
 *   `terraform-provider-flagstack...` (the name Terraform's installers give it) or with the argument
 *   `terraform`;
 * - **Pulumi** (the native provider's gRPC, `./native/server.ts`) when started as
 *   `pulumi-resource-flagstack...` (the name the engine runs a plugin by) or with the argument
 *   `pulumi`, the engine's address and flags following.
 *
 * `version` prints the version; anything else prints how to use it. The two schemas (Terraform's
 * precomputed answers and the package schema) and `package.json` are the executable's assets
 * (`node:sea`), so the binary reads no file of the package (`./core/package-file.ts`); run from a
 * build instead (`node dist/provider/binary.js terraform`) it reads them from the package.
 * @module
 */
import { readPackageFile, usePackageFiles } from "./core/package-file";

/** `true` in the bundle (the bundler defines it, `scripts/release-binary.mts`); not defined in the build. */
declare const FLAGSTACK_BUNDLE: boolean | undefined;

/** Which door a start serves, and the arguments left for it. */
export type Mode =
  | { door: "terraform"; args: string[] }
  | { door: "recover"; args: string[] }
  | { door: "pulumi"; args: string[] }
  | { door: "version" }
  | { door: "usage"; problem?: string };

/** The door a start serves: by the executable's name, else by its first argument. */
export function modeOf(executable: string, args: readonly string[]): Mode {
  // Either separator: the binary names Windows paths too.
  const name = (executable.split(/[\\/]/).pop() ?? "").toLowerCase();
  const [first, ...rest] = args;
  // Terraform starts a provider with no argument, Pulumi with the engine's address and flags: a
  // person asking for the version or help is neither.
  const asked =
    first === "version" ||
    first === "--version" ||
    first === "help" ||
    first === "--help" ||
    first === "recover";
  if (!asked && name.startsWith("terraform-provider-flagstack"))
    return { door: "terraform", args: [...args] };
  if (!asked && name.startsWith("pulumi-resource-flagstack")) return { door: "pulumi", args: [...args] };
  if (first === "terraform") return { door: "terraform", args: rest };
  if (first === "pulumi") return { door: "pulumi", args: rest };
  if (first === "recover") return { door: "recover", args: rest };
  if (first === "version" || first === "--version" || first === "-v") return { door: "version" };
  if (first === undefined || first === "help" || first === "--help" || first === "-h")
    return { door: "usage" };
  return { door: "usage", problem: `unknown command ${JSON.stringify(first)}` };
}

/** What the binary says when run by hand. */
export function usage(version: string): string {
  return [
    `flagstack provider ${version}: feature flags and delivery pipelines as code`,
    "",
    "Terraform, OpenTofu and Pulumi start this binary themselves; installed, it is named",
    "  terraform-provider-flagstack_v<version>   (Terraform and OpenTofu, plugin protocol 6)",
    "  pulumi-resource-flagstack                 (Pulumi, every language)",
    "",
    "Usage:",
    "  <binary> terraform          serve Terraform/OpenTofu (what `terraform init` installs)",
    "  <binary> pulumi <address>   serve the Pulumi engine at <address>",
    "  <binary> recover [options]  after a killed `terraform apply`: write the `import` blocks of",
    "                              what the service has and the state lacks (`recover --help`)",
    "  <binary> version            print the version",
    "",
  ].join("\n");
}

/** The single executable's API, or `undefined` when this process is not one. */
function seaApi(): typeof import("node:sea") | undefined {
  try {
    const sea = require("node:sea") as typeof import("node:sea");
    return sea.isSea() ? sea : undefined;
  } catch {
    return undefined;
  }
}

/** The package's files a single executable carries as its assets, by the package's paths. */
const ASSETS: Record<string, string> = {
  "provider-plugin/terraform-schema.json": "terraform-schema.json",
  "provider-plugin/schema.json": "schema.json",
  "package.json": "package.json",
};

/** In a single executable, the doors read the package's files from its assets (`./core/package-file.ts`). */
function useAssets(): void {
  const sea = seaApi();
  if (sea === undefined) return;
  usePackageFiles(
    Object.fromEntries(Object.entries(ASSETS).map(([path, key]) => [path, () => sea.getAsset(key, "utf8")])),
  );
}

/** The package's version. */
function packageVersion(): string {
  const text = readPackageFile("package.json", __dirname);
  if (text === undefined) throw new Error("flagstack: no package.json");
  return (JSON.parse(text) as { version: string }).version;
}

/** Serves the door the start asks for. */
export async function main(executable: string, args: readonly string[]): Promise<void> {
  const mode = modeOf(executable, args);
  useAssets();
  // The single executable's loader keeps V8's code cache of starts that serve a door (`scripts/sea-main.cjs`).
  if (mode.door === "terraform" || mode.door === "pulumi")
    (globalThis as Record<symbol, unknown>)[Symbol.for("flagstack.binary.serving")] = true;
  switch (mode.door) {
    case "version":
      process.stdout.write(`${packageVersion()}\n`);
      return;
    case "usage":
      if (mode.problem !== undefined) {
        process.stderr.write(`flagstack: ${mode.problem}\n\n${usage(packageVersion())}`);
        process.exitCode = 2;
      } else process.stdout.write(usage(packageVersion()));
      return;
    case "terraform": {
      const { main: serveTerraform } = require("./terraform/plugin") as typeof import("./terraform/plugin");
      const { interruptedApply, TERRAFORM_WORDS } = require("./core/door") as typeof import("./core/door");
      // A create that meets an existing object names this very executable's recover command.
      await serveTerraform(
        seaApi() === undefined
          ? TERRAFORM_WORDS
          : {
              ...TERRAFORM_WORDS,
              interruptedRun: interruptedApply(
                `\`${executable} recover\` (or \`npx flagstack terraform recover\`)`,
              ),
            },
      );
      return;
    }
    case "recover": {
      // The command line of `flagstack terraform recover`, the same options, from the same code.
      const { Command } = require("commander") as typeof import("commander");
      const { register } =
        require("../cli/terraform-recover-command") as typeof import("../cli/terraform-recover-command");
      const program = new Command(executable.split(/[\\/]/).pop() ?? "flagstack-provider");
      register(program);
      await program.parseAsync(["recover", ...mode.args], { from: "user" });
      return;
    }
    case "pulumi": {
      const native = require("./native/server") as typeof import("./native/server");
      if (typeof FLAGSTACK_BUNDLE !== "undefined" && FLAGSTACK_BUNDLE)
        native.useBundledSdkModules(bundledSdkModules());
      const schema = readPackageFile("provider-plugin/schema.json", __dirname);
      if (schema === undefined) throw new Error("flagstack: no provider-plugin/schema.json");
      await native.serve(mode.args, { schemaFile: { text: schema }, version: packageVersion() });
      return;
    }
  }
}

/**
 * The modules of `@pulumi/pulumi`'s own dependencies the native server takes from its directory,
 * as the bundle carries them: the `pulumi-sdk:` prefix is resolved by the bundler from
 * `@pulumi/pulumi`'s directory (`scripts/release-binary.mts`). Outside the bundle this is never called.
 */
function bundledSdkModules(): Record<string, () => unknown> {
  return {
    "@grpc/grpc-js": () => require("pulumi-sdk:@grpc/grpc-js"),
    "@pulumi/pulumi/proto/provider_pb": () => require("@pulumi/pulumi/proto/provider_pb"),
    "google-protobuf/google/protobuf/struct_pb": () =>
      require("pulumi-sdk:google-protobuf/google/protobuf/struct_pb"),
  };
}

if (require.main === module) {
  // In a single executable `process.argv[1]` is the executable again; from a build it is this file.
  const [executable = process.execPath, , ...args] = process.argv;
  main(
    executable === process.execPath && process.argv[1] !== process.execPath
      ? (process.argv[1] ?? executable)
      : executable,
    args,
  ).catch((err: unknown) => {
    // A person's command (`recover`) gets the message; a door's crash its stack, for the log.
    const crash = args[0] !== "recover" && err instanceof Error;
    const text = crash ? (err.stack ?? err.message) : err instanceof Error ? err.message : String(err);
    process.stderr.write(`flagstack: ${text}\n`);
    process.exit(1);
  });
}
