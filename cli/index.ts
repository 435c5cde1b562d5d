/**
 * The `flagstack` command: each subcommand lives in its own file and registers itself here.
 * - `flagstack emulator ...`: the local emulator of both APIs (cli/emulator-command.ts)
 * - `flagstack events import FILE`: exact, resumable event import (cli/events-command.ts)
 * @module
 */
import { Command } from "commander";

export type Register = (program: Command) => void;

/** Runs the command line; `argv` is `process.argv`. */
export async function main(argv: string[]): Promise<void> {
  const program = new Command("flagstack")
    .description("Feature flags and delivery pipelines as code: emulator and event import")
    .showHelpAfterError();
  // Each subcommand module is optional while it is being built, so a missing one never breaks the rest.
  for (const mod of ["./emulator-command", "./events-command"]) {
    let register: Register | undefined;
    try {
      register = (require(mod) as { register?: Register }).register;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "MODULE_NOT_FOUND") throw e;
    }
    register?.(program);
  }
  await program.parseAsync(argv);
}
