/**
 * The one way the `flagstack` subcommands that work on a stack (`recover`, `migrate-state`) run
 * the `pulumi` CLI.
 * @module
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";

const execFileAsync = promisify(execFile);

/** Where and on which stack a subcommand runs `pulumi`. */
export interface StackTarget {
  /** The stack's name; the directory's selected stack when absent. */
  stack?: string;
  /** The program directory. */
  cwd: string;
}

/**
 * Runs `pulumi <args> [--stack NAME]` in `target.cwd` and returns its standard output; throws with
 * the command's own output when it fails, and says so when `pulumi` is not on PATH.
 */
export async function pulumi(target: StackTarget, args: string[]): Promise<string> {
  const full = [...args, ...(target.stack ? ["--stack", target.stack] : [])];
  try {
    const { stdout } = await execFileAsync("pulumi", full, {
      cwd: target.cwd,
      env: { ...process.env, PULUMI_SKIP_UPDATE_CHECK: "true" },
      maxBuffer: 1 << 30,
    });
    return stdout;
  } catch (e) {
    const { stdout = "", stderr = "", code } = e as { stdout?: string; stderr?: string; code?: unknown };
    if (code === "ENOENT") throw new Error("the `pulumi` command was not found on PATH");
    throw new Error(`\`pulumi ${full.join(" ")}\` failed:\n${`${stdout}\n${stderr}`.trim()}`);
  }
}
