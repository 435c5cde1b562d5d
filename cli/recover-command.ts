/**
 * `flagstack recover`: the one command to run after a `pulumi up` (or destroy) was killed.
 *
 * ```
 * flagstack recover [--stack NAME] [--cwd DIR] [--dry-run] [--no-refresh]
 * ```
 * 0. on a file backend, an empty `.attrs` file beside the stack's checkpoint (a kill while the
 *    backend wrote it) is removed: it failed every command (see {@link removeEmptyAttrs}); when
 *    the export still fails to load the checkpoint, the failure lists the stack's checkpoint files
 *    and their sizes and names the `.bak` to restore by hand ({@link explainCheckpointFailure});
 * 1. `pulumi stack export` (the state written back: its secrets stay encrypted), the same with
 *    `--show-secrets` (the pending creates' inputs are checked with their secrets revealed),
 *    `pulumi config --json --show-secrets` (the provider's URLs and keys) and `pulumi stack history
 *    --json`: the interrupted update is the one that recorded the pending creates, which began
 *    after the last update whose own final state (`pulumi stack export --version N`) does not hold
 *    them; updates retried after the kill (a CI job's retry, before anyone ran `recover`) carry them
 *    over and so do not count (where a backend cannot export an old version, such as the file
 *    backend: the last update that succeeded);
 * 2. settles each pending create of a flagstack resource (provider/core/recover.ts): an object the
 *    interrupted run made is adopted into the state, one it never made is dropped from the
 *    pending operations, one a retried update already recorded is dropped too, and one that
 *    someone else made is left alone and reported;
 * 3. `pulumi stack import` of the settled state, read from standard input (no file holds it),
 *    then `pulumi refresh --yes` (which also clears the pending updates and deletes, and records
 *    what the interrupted run changed). The lock a killed run leaves on a file backend is removed
 *    (`pulumi cancel`) only when it is provably stale: taken on this machine by a process that no
 *    longer exists.
 * Then `pulumi up` converges as usual. It needs the `pulumi` CLI on PATH and the stack's
 * passphrase or secrets provider, as every `pulumi` command does.
 * @module
 */
import { readdirSync, readFileSync, statSync, unlinkSync } from "node:fs";
import { homedir, hostname } from "node:os";
import { join, resolve } from "node:path";
import type { Command } from "commander";
import type { Deployment, RecoverReport } from "../provider/core/recover";
import { processAlive } from "../sdk/core/process";
import { readYaml } from "../sdk/core/yaml";
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

/** One update of `pulumi stack history --json` (newest first), in the members read here. */
interface HistoryEntry {
  version?: number;
  kind?: string;
  result?: string;
  endTime?: string;
}

/** The history entries, newest first. */
function historyEntries(historyJson: string): HistoryEntry[] {
  const history = JSON.parse(historyJson || "[]") as HistoryEntry[] | null;
  return [...(history ?? [])].sort((a, b) => (b.version ?? 0) - (a.version ?? 0));
}

/** When an entry ended, epoch milliseconds (NaN when it has no end). */
const endOf = (entry: HistoryEntry) => (entry.endTime === undefined ? Number.NaN : Date.parse(entry.endTime));

/**
 * When the stack's last update that succeeded ended, epoch milliseconds (0 when it has none).
 * A failed update does not count: it may be a retry run after the killed one.
 */
export function lastUpdateEnd(historyJson: string): number {
  let latest = 0;
  for (const entry of historyEntries(historyJson)) {
    if (entry.result !== "succeeded") continue;
    const end = endOf(entry);
    if (Number.isFinite(end) && end > latest) latest = end;
  }
  return latest;
}

/**
 * When the update before the interrupted one ended, per pending create: walking the history from
 * the newest update back, the first whose final state (`exportVersion`) does not hold the pending
 * create ended before the interrupted run began; the updates after it ran with the pending create
 * already in the state (retries after the kill). A pending create held by every version dates
 * from before the oldest (0). Where `exportVersion` fails (a backend that keeps no old versions),
 * every pending create gets {@link lastUpdateEnd}.
 */
export async function interruptedRunStarts(
  historyJson: string,
  pendingUrns: readonly string[],
  exportVersion: (version: number) => Promise<string>,
): Promise<(urn: string) => number> {
  const fallback = lastUpdateEnd(historyJson);
  const start = new Map<string, number>();
  let open = new Set(pendingUrns);
  try {
    for (const entry of historyEntries(historyJson)) {
      if (open.size === 0) break;
      if (entry.version === undefined) throw new Error("a history entry without a version");
      const state = JSON.parse(await exportVersion(entry.version)) as { deployment?: Deployment };
      const held = new Set(
        (state.deployment?.pending_operations ?? [])
          .filter((op) => op.type === "creating")
          .map((op) => op.resource.urn),
      );
      const end = endOf(entry);
      const still = new Set<string>();
      for (const urn of open) {
        if (held.has(urn)) still.add(urn);
        else start.set(urn, Number.isFinite(end) ? end : 0);
      }
      open = still;
    }
  } catch {
    return () => fallback;
  }
  return (urn) => start.get(urn) ?? 0;
}

/**
 * The directory of a file backend from its URL (`file://~`, `file://~/state`, `file:///abs`, a
 * relative path taken from `cwd`, query parameters ignored); `undefined` for any other backend.
 */
export function fileBackendDir(url: string, cwd: string): string | undefined {
  if (!url.startsWith("file://")) return undefined;
  const path = decodeURIComponent(url.slice("file://".length).replace(/\?.*$/, ""));
  if (path === "~" || path.startsWith("~/")) return join(homedir(), path.slice(1));
  return resolve(cwd, path);
}

/**
 * Removes each empty `.attrs` file of the stack's checkpoint under a file backend's directory
 * (`.pulumi/stacks/<project>/<stack>.json.attrs`, or `.pulumi/stacks/<stack>.json.attrs` in the
 * backend's older layout; every stack of the project when `stack` is not given), and returns
 * their paths.
 *
 * The file backend stores blobs through gocloud.dev's `fileblob`, which keeps each blob's
 * attributes (content type, metadata) beside it in `<blob>.attrs`, written after the blob. A kill
 * between the two can leave it empty; `fileblob` then fails to decode it (`EOF`), so every command
 * on the stack fails `failed to load checkpoint: EOF`, `pulumi stack export` included. A missing
 * `.attrs` file is read as the default attributes, so an empty one is removed and nothing else.
 */
export function removeEmptyAttrs(backendDir: string, project: string | undefined, stack?: string): string[] {
  const removed: string[] = [];
  for (const { path, size } of checkpointFiles(backendDir, project, stack)) {
    if (!path.endsWith(".attrs") || size !== 0) continue;
    try {
      unlinkSync(path);
      removed.push(path);
    } catch {
      // gone meanwhile, or not ours to remove: the export's own error then says why
    }
  }
  return removed;
}

/** The project's name from `Pulumi.yaml` in `cwd`, when it can be read. */
function projectName(cwd: string): string | undefined {
  for (const file of ["Pulumi.yaml", "Pulumi.yml"]) {
    try {
      const doc = readYaml(readFileSync(join(cwd, file), "utf8")) as { name?: unknown } | null;
      if (typeof doc?.name === "string") return doc.name;
    } catch {
      // no such file, or not one we can read: the other name, or none
    }
  }
  return undefined;
}

/** A file backend's directory and the stack's project, when the stack is on one. */
interface FileBackend {
  dir: string;
  project: string | undefined;
}

/** The stack's file backend (`pulumi whoami --json`'s `file://` URL), else `undefined`. */
async function fileBackend(options: RecoverCommandOptions): Promise<FileBackend | undefined> {
  let url: string | undefined;
  try {
    url = (JSON.parse(await pulumi(options, ["whoami", "--json"])) as { url?: string }).url;
  } catch {
    return undefined;
  }
  const dir = url === undefined ? undefined : fileBackendDir(url, options.cwd);
  if (dir === undefined) return undefined;
  const stackParts = options.stack?.split("/") ?? [];
  return { dir, project: stackParts.length === 3 ? stackParts[1] : projectName(options.cwd) };
}

/**
 * The files of the stack's checkpoint under a file backend's directory, with their sizes: the
 * checkpoint, Pulumi's copy of the one before it (`.bak`) and the `.attrs` of each, in the
 * project's directory and the older layout's (every stack of the project when `stack` is not given).
 */
export function checkpointFiles(
  backendDir: string,
  project: string | undefined,
  stack?: string,
): { path: string; size: number }[] {
  const stacksDir = join(backendDir, ".pulumi", "stacks");
  const stackName = stack?.split("/").pop();
  const files: { path: string; size: number }[] = [];
  for (const dir of [...(project ? [join(stacksDir, project)] : []), stacksDir]) {
    let names: string[];
    try {
      names = readdirSync(dir).sort();
    } catch {
      continue;
    }
    for (const name of names) {
      if (!/\.json(\.gz)?(\.bak)?(\.attrs)?$/.test(name)) continue;
      if (stackName !== undefined && !name.startsWith(`${stackName}.json`)) continue;
      const path = join(dir, name);
      try {
        const st = statSync(path);
        if (st.isFile()) files.push({ path, size: st.size });
      } catch {
        // gone meanwhile: not listed
      }
    }
  }
  return files;
}

/**
 * The failure of `pulumi stack export` on a checkpoint the file backend cannot load
 * (`failed to load checkpoint`), with what the stack's files hold: each file and its size, the
 * empty ones named, and the copy of the previous checkpoint Pulumi keeps beside it (`.bak`), which
 * the user may restore by hand. `recover` does not restore it itself: that would drop whatever the
 * killed run recorded after it. Any other failure is returned as it is.
 */
export function explainCheckpointFailure(error: unknown, files: { path: string; size: number }[]): unknown {
  const text = error instanceof Error ? error.message : String(error);
  if (!/failed to load checkpoint/.test(text) || files.length === 0) return error;
  const lines = files.map((f) => `  ${f.path}: ${f.size === 0 ? "EMPTY (0 bytes)" : `${f.size} bytes`}`);
  const empty = files.filter((f) => f.size === 0 && !f.path.endsWith(".attrs"));
  const advice = empty.flatMap((f) => {
    const bak = files.find((b) => b.path === `${f.path}.bak` && b.size > 0);
    return bak
      ? [
          `${f.path} is empty: the killed run was writing it. Pulumi kept the checkpoint before it in ${bak.path}; ` +
            `restoring it (cp '${bak.path}' '${f.path}') drops what that run recorded after it: an object it ` +
            "created since is then not in the state, and the next `pulumi up` finds it existing (set `adopt` on " +
            "its resource, or `pulumi import` it). Run `flagstack recover` again after.",
        ]
      : [
          `${f.path} is empty and no non-empty .bak is beside it: the stack's last state is lost on this backend.`,
        ];
  });
  return new Error(
    [
      `${text.trimEnd()}`,
      "",
      "The stack's checkpoint files on the file backend:",
      ...lines,
      ...(advice.length > 0 ? ["", ...advice] : []),
    ].join("\n"),
  );
}

/**
 * On a file backend, removes the empty `.attrs` files a kill left beside the stack's checkpoint
 * ({@link removeEmptyAttrs}), logging each.
 */
function repairFileBackend(
  backend: FileBackend,
  options: RecoverCommandOptions,
  log: (line: string) => void,
): void {
  for (const path of removeEmptyAttrs(backend.dir, backend.project, options.stack))
    log(
      `removed ${path}: empty, left by the killed run (the file backend keeps the checkpoint's attributes there, ` +
        "and an empty one failed every command with `failed to load checkpoint: EOF`; without it the defaults apply)",
    );
}

/** The report as lines for the terminal. */
export function describeReport(report: RecoverReport): string[] {
  const lines: string[] = [];
  for (const r of report.recovered)
    lines.push(`recovered ${r.urn} (id ${r.id}): created by the interrupted run`);
  for (const urn of report.cleared)
    lines.push(`cleared ${urn}: never created; the next \`pulumi up\` creates it`);
  for (const urn of report.recorded) lines.push(`cleared ${urn}: a later update already recorded it`);
  for (const k of report.kept) lines.push(`kept pending ${k.urn}: ${k.reason}`);
  for (const u of report.unknown) lines.push(`unknown ${u.urn}: ${u.reason}`);
  if (lines.length === 0) lines.push("no pending create of a flagstack resource");
  return lines;
}

/** The action: see the module notes. */
export async function recover(options: RecoverCommandOptions, log: (line: string) => void = console.log) {
  const backend = await fileBackend(options);
  if (backend !== undefined) repairFileBackend(backend, options, log);
  const exportedText = await pulumi(options, ["stack", "export"]).catch((e: unknown) => {
    throw backend === undefined
      ? e
      : explainCheckpointFailure(e, checkpointFiles(backend.dir, backend.project, options.stack));
  });
  const exported = JSON.parse(exportedText) as {
    version: number;
    deployment: Deployment;
  };
  const pendingCreates = (exported.deployment.pending_operations ?? []).filter(
    (op) => op.type === "creating",
  );
  // Only when there is something to settle: the revealed state holds every secret of the stack.
  const revealed =
    pendingCreates.length > 0
      ? (
          JSON.parse(await pulumi(options, ["stack", "export", "--show-secrets"])) as {
            deployment: Deployment;
          }
        ).deployment
      : undefined;
  const config = JSON.parse(await pulumi(options, ["config", "--json", "--show-secrets"])) as Record<
    string,
    { value?: unknown }
  >;
  // The provider's modules (and through them `@pulumi/pulumi`) load only when `recover` runs, so the
  // other subcommands work where only the SDK and the emulator are installed (cli/index.ts).
  const [{ configureProvider, resetProvider }, { settlePendingCreates }, { KINDS }] = await Promise.all([
    import("../provider/core/config.js"),
    import("../provider/core/recover.js"),
    import("../provider/kinds.js"),
  ]);
  resetProvider();
  configureProvider({
    get: (key) => (config[key]?.value === undefined ? undefined : String(config[key]?.value)),
  });
  const notBefore = await interruptedRunStarts(
    await pulumi(options, ["stack", "history", "--json"]),
    pendingCreates.map((op) => op.resource.urn),
    (version) => pulumi(options, ["stack", "export", "--version", String(version)]),
  );
  const { deployment, report } = await settlePendingCreates(exported.deployment, {
    kinds: KINDS,
    notBefore,
    ...(revealed ? { revealed } : {}),
  });
  for (const line of describeReport(report)) log(line);
  if (options.dryRun) {
    log("dry run: the state was not changed");
    return report;
  }
  if (
    report.recovered.length > 0 ||
    report.cleared.length > 0 ||
    report.recorded.length > 0 ||
    report.unknown.length > 0
  ) {
    const state = JSON.stringify({ ...exported, deployment });
    await withStaleLockCleared(options, log, () => pulumi(options, ["stack", "import"], state));
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
