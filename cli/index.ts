/**
 * The `flagstack` command: each subcommand lives in its own file and registers itself here.
 * - `flagstack emulator ...`: the local emulator of both APIs (cli/emulator-command.ts)
 * - `flagstack events import FILE`: exact, resumable event import (cli/events-command.ts)
 * - `flagstack recover`: settles what a killed `pulumi up` left in a stack (cli/recover-command.ts)
 * - `flagstack migrate-state`: moves a dynamic-resource stack onto the native provider's tokens (cli/migrate-state-command.ts)
 * - `flagstack policy path|init`: the shipped policy pack, and a team pack built on it (cli/policy-command.ts)
 * - `flagstack policy check PLAN`: the pack's policies on a Terraform or OpenTofu plan (cli/policy-check-command.ts)
 * - `flagstack terraform install`: the provider for Terraform and OpenTofu, where `init` finds it (cli/terraform-command.ts)
 * - `flagstack impact PLAN`: who each targeting change of a plan reaches (cli/impact-command.ts)
 * - `flagstack terraform recover`: import blocks for what a killed `terraform apply` made (cli/terraform-recover-command.ts)
 *
 * Registering a subcommand loads no resource module: `recover` loads the provider (and through it
 * `@pulumi/pulumi`, an optional peer dependency) when it runs, and `migrate-state` reads the type
 * tokens only, so `flagstack emulator` and `flagstack events import` work where the package was
 * installed alone (test/cli/index.test.ts, test/e2e/sdk-only-package.test.ts).
 * @module
 */
import { Command } from "commander";
import { register as registerEmulator } from "./emulator-command";
import { register as registerEvents } from "./events-command";
import { register as registerImpact } from "./impact-command";
import { register as registerMigrateState } from "./migrate-state-command";
import { register as registerPolicy } from "./policy-command";
import { register as registerRecover } from "./recover-command";
import { register as registerTerraform } from "./terraform-command";

export type Register = (program: Command) => void;

/** Runs the command line; `argv` is `process.argv`. */
export async function main(argv: string[]): Promise<void> {
  const program = new Command("flagstack")
    .description("Feature flags and delivery pipelines as code: emulator, event import and state recovery")
    .showHelpAfterError();
  for (const register of [
    registerEmulator,
    registerEvents,
    registerRecover,
    registerMigrateState,
    registerPolicy,
    registerImpact,
    registerTerraform,
  ])
    register(program);
  await program.parseAsync(argv);
}
