/**
 * `flagstack recover`: the one command to run after a `pulumi up` (or destroy) was killed.
 *
 * ```
 * flagstack recover [--stack NAME] [--cwd DIR] [--dry-run] [--no-refresh]
 * ```
 * 1. `pulumi stack export`, `pulumi config --json --show-secrets` (the provider's URLs and keys)
 *    and `pulumi stack history --json` (when the last completed update ended);
 * 2. settles each pending create of a flagstack resource (provider/core/recover.ts): an object the
 *    interrupted run made is adopted into the state, one it never made is dropped from the
 *    pending operations, and one that someone else made is left alone and reported;
 * 3. `pulumi stack import` of the settled state, then `pulumi refresh --yes` (which also clears
 *    the pending updates and deletes, and records what the interrupted run changed). The lock a
 *    killed run leaves on a file backend is removed (`pulumi cancel`) only when it is provably
 *    stale: taken on this machine by a process that no longer exists.
 * Then `pulumi up` converges as usual. It needs the `pulumi` CLI on PATH and the stack's
 * passphrase or secrets provider, as every `pulumi` command does.
 * @module
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import type { Command } from "commander";
import { configureProvider, resetProvider } from "../provider/core/config";
import { type Deployment, type RecoverReport, settlePendingCreates } from "../provider/core/recover";
import { KINDS } from "../provider/kinds";
import { processAlive } from "../sdk/core/process";
import { pulumi } from "./pulumi";

/** The options commander hands to the action. */
export interface RecoverCommandOptions {
  stack?: string;
  cwd: string;
  dryRun?: boolean;
  refresh: boolean;
}

/**
 * The process that holds a stack lock, from the CLI's "currently locked" message (`created by
 * user@host (pid N)`), when the message names one.
 */
export function lockHolder(message: string): { host: string; pid: number } | undefined {
  const m = /currently locked[\s\S]*created by [^@\s]+@(\S+) \(pid (\d+)\)/.exec(message);
  return m ? { host: m[1] as string, pid: Number(m[2]) } : undefined;
}

/**
 * Runs `step`; when it fails on a lock left by a process of this machine that no longer exists
 * (the killed `pulumi up`), removes the lock with `pulumi cancel --yes` and runs it once more.
 */
async function withStaleLockCleared<T>(
  options: RecoverCommandOptions,
  log: (line: string) => void,
  step: () => Promise<T>,
): Promise<T> {
  try {
    return await step();
  } catch (e) {
    const holder = lockHolder((e as Error).message);
    if (holder === undefined || holder.host !== hostname() || processAlive(holder.pid)) throw e;
    await pulumi(options, ["cancel", "--yes"]);
    log(`removed the stack lock left by the killed process ${holder.pid}`);
    return step();
  }
}

/** When the stack's last completed update ended, epoch milliseconds (0 when it has none). */
export function lastUpdateEnd(historyJson: string): number {
  const history = JSON.parse(historyJson || "[]") as { endTime?: string }[];
  let latest = 0;
  for (const entry of history ?? []) {
    const end = entry.endTime === undefined ? Number.NaN : Date.parse(entry.endTime);
    if (Number.isFinite(end) && end > latest) latest = end;
  }
  return latest;
}

/** The report as lines for the terminal. */
export function describeReport(report: RecoverReport): string[] {
  const lines: string[] = [];
  for (const r of report.recovered)
    lines.push(`recovered ${r.urn} (id ${r.id}): created by the interrupted run`);
  for (const urn of report.cleared)
    lines.push(`cleared ${urn}: never created; the next \`pulumi up\` creates it`);
  for (const k of report.kept) lines.push(`kept pending ${k.urn}: ${k.reason}`);
  if (lines.length === 0) lines.push("no pending create of a flagstack resource");
  return lines;
}

/** The action: see the module notes. */
export async function recover(options: RecoverCommandOptions, log: (line: string) => void = console.log) {
  const exported = JSON.parse(await pulumi(options, ["stack", "export"])) as {
    version: number;
    deployment: Deployment;
  };
  const config = JSON.parse(await pulumi(options, ["config", "--json", "--show-secrets"])) as Record<
    string,
    { value?: unknown }
  >;
  resetProvider();
  configureProvider({
    get: (key) => (config[key]?.value === undefined ? undefined : String(config[key]?.value)),
  });
  const notBefore = lastUpdateEnd(await pulumi(options, ["stack", "history", "--json"]));
  const { deployment, report } = await settlePendingCreates(exported.deployment, { kinds: KINDS, notBefore });
  for (const line of describeReport(report)) log(line);
  if (options.dryRun) {
    log("dry run: the state was not changed");
    return report;
  }
  if (report.recovered.length > 0 || report.cleared.length > 0) {
    const dir = mkdtempSync(join(tmpdir(), "flagstack-recover-"));
    try {
      const file = join(dir, "state.json");
      writeFileSync(file, JSON.stringify({ ...exported, deployment }), { mode: 0o600 });
      await withStaleLockCleared(options, log, () => pulumi(options, ["stack", "import", "--file", file]));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    log("the settled state was imported");
  }
  if (options.refresh) {
    await withStaleLockCleared(options, log, () =>
      pulumi(options, [
        "refresh",
        "--yes",
        "--non-interactive",
        ...(report.kept.length > 0 ? ["--skip-pending-creates"] : []),
      ]),
    );
    log("refreshed: the state now holds what the services hold. Run `pulumi up` to converge.");
  } else log("Run `pulumi refresh` and `pulumi up` to converge.");
  return report;
}

/** Registers `flagstack recover`. */
export function register(program: Command): void {
  program
    .command("recover")
    .description(
      "after a killed `pulumi up`: adopt the objects its interrupted creates made, drop the creates that never happened, then refresh",
    )
    .option("-s, --stack <name>", "the stack (default: the selected stack)")
    .option("-C, --cwd <dir>", "the Pulumi project directory", process.cwd())
    .option("--dry-run", "report what would be done and change nothing")
    .option("--no-refresh", "do not run `pulumi refresh` afterwards")
    .action(async (opts: RecoverCommandOptions) => {
      await recover(opts);
    });
}
