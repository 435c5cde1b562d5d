/**
 * `flagstack terraform install`: puts the Terraform/OpenTofu provider where `terraform init` and
 * `tofu init` find it without a registry.
 *
 * ```
 * flagstack terraform install [--dir DIR] [--cli-config FILE]
 * ```
 * It writes a launcher, `terraform-provider-flagstack_v<version>`, that runs this package's
 * `bin/terraform-provider-flagstack` with this Node.js, into the unpacked filesystem-mirror layout
 * `DIR/<source address>/<version>/<os>_<arch>/` for the source address
 * {@link SOURCE_ADDRESS} (a made-up host: no registry serves it). DIR defaults to
 * `~/.terraform.d/plugins`, a directory both `init`s search without any configuration (as is
 * `terraform.d/plugins` in a configuration's directory); `init` then installs the provider from it
 * and records its checksum in `.terraform.lock.hcl` (OpenTofu `cmd/tofu/provider_source.go`
 * `implicitProviderSource`). A CLI configuration with its own `provider_installation` block turns
 * those implied directories off: `--cli-config FILE` writes one that names DIR as a
 * `filesystem_mirror` for flagstack and installs every other provider directly.
 * @module
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import type { Command } from "commander";
import { packageRoot } from "./policy-command";
import { register as registerRecover } from "./terraform-recover-command";

/** The provider's source address in `required_providers` (a made-up host, served by no registry). */
export const SOURCE_ADDRESS = "flagstack.local/flagstack/flagstack";

/** Terraform's name for this machine's platform: `linux_amd64`, `darwin_arm64`, ... */
export function platformDir(platform: string = process.platform, arch: string = process.arch): string {
  const goArch: Record<string, string> = { x64: "amd64", arm64: "arm64", ia32: "386", arm: "arm" };
  return `${platform === "win32" ? "windows" : platform}_${goArch[arch] ?? arch}`;
}

/** Shell-quoted text: `'...'` with each `'` closed, escaped and reopened. */
const shellQuote = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;

/** The launcher script: this Node.js running the package's plugin entry point. */
export function launcherScript(nodePath: string, root: string): string {
  return [
    "#!/bin/sh",
    "# The flagstack provider for Terraform and OpenTofu, written by `flagstack terraform install`.",
    `exec ${shellQuote(nodePath)} ${shellQuote(join(root, "bin", "terraform-provider-flagstack"))} "$@"`,
    "",
  ].join("\n");
}

/** The CLI configuration that names `dir` as flagstack's filesystem mirror. */
export function cliConfig(dir: string): string {
  return [
    "provider_installation {",
    "  filesystem_mirror {",
    `    path    = ${JSON.stringify(dir)}`,
    `    include = [${JSON.stringify(SOURCE_ADDRESS)}]`,
    "  }",
    "  direct {",
    `    exclude = [${JSON.stringify(SOURCE_ADDRESS)}]`,
    "  }",
    "}",
    "",
  ].join("\n");
}

/** What {@link install} wrote. */
export interface Installed {
  /** The launcher's path. */
  launcher: string;
  version: string;
  /** The CLI configuration file, when asked for. */
  cliConfig?: string;
}

/** Writes the launcher (and the CLI configuration) for this package and Node.js. */
export function install(options: {
  dir?: string;
  cliConfig?: string;
  root?: string;
  nodePath?: string;
}): Installed {
  const root = options.root ?? packageRoot();
  const { version } = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { version: string };
  if (!existsSync(join(root, "dist", "bundle", "flagstack-provider.js")))
    throw new Error(
      `${root} has no build of the provider (dist/bundle/flagstack-provider.js): run \`npm run build\``,
    );
  const dir = resolve(options.dir ?? join(homedir(), ".terraform.d", "plugins"));
  const target = join(dir, ...SOURCE_ADDRESS.split("/"), version, platformDir());
  mkdirSync(target, { recursive: true });
  const launcher = join(target, `terraform-provider-flagstack_v${version}`);
  writeFileSync(launcher, launcherScript(options.nodePath ?? process.execPath, root));
  chmodSync(launcher, 0o755);
  if (options.cliConfig === undefined) return { launcher, version };
  const file = resolve(options.cliConfig);
  writeFileSync(file, cliConfig(dir));
  return { launcher, version, cliConfig: file };
}

export function register(program: Command): void {
  const terraform = program
    .command("terraform")
    .description("The provider for Terraform and OpenTofu (plugin protocol 6)");
  terraform
    .command("install")
    .description(
      `Put the provider where \`terraform init\` / \`tofu init\` find it, for the source address ${SOURCE_ADDRESS}`,
    )
    .option("--dir <dir>", "the filesystem mirror to write into (default ~/.terraform.d/plugins)")
    .option("--cli-config <file>", "also write a CLI configuration naming that mirror (TF_CLI_CONFIG_FILE)")
    .action((opts: { dir?: string; cliConfig?: string }) => {
      const done = install(opts);
      process.stdout.write(`installed flagstack ${done.version} for ${SOURCE_ADDRESS}: ${done.launcher}\n`);
      if (done.cliConfig)
        process.stdout.write(
          `CLI configuration: ${done.cliConfig} (export TF_CLI_CONFIG_FILE=${done.cliConfig})\n`,
        );
    });
  registerRecover(terraform);
}
