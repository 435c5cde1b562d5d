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
 * the command's own output when it fails, and says so when `pulumi` is not on PATH. `input` is
 * written to its standard input (`pulumi stack import` reads the state from there, so a state
 * never has to be written to a file).
 */
export async function pulumi(target: StackTarget, args: string[], input?: string): Promise<string> {
  const full = [...args, ...(target.stack ? ["--stack", target.stack] : [])];
  try {
    const running = execFileAsync("pulumi", full, {
      cwd: target.cwd,
      env: { ...process.env, PULUMI_SKIP_UPDATE_CHECK: "true" },
      maxBuffer: 1 << 30,
    });
    running.child.stdin?.on("error", () => {
      // the command ended without reading all of it: its own error says why
    });
    running.child.stdin?.end(input ?? "");
    const { stdout } = await running;
    return stdout;
  } catch (e) {
    const { stdout = "", stderr = "", code } = e as { stdout?: string; stderr?: string; code?: unknown };
    if (code === "ENOENT") throw new Error("the `pulumi` command was not found on PATH");
    throw new Error(`\`pulumi ${full.join(" ")}\` failed:\n${`${stdout}\n${stderr}`.trim()}`);
  }
}
