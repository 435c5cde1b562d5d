/**
 * How the emulator's state reaches its file, for {@link Store} (which extends {@link Journal}):
 * - every change is written atomically (temporary file, fsync, rename; `disk.ts`), so a crash
 *   leaves either the old or the new file, never a torn one, and a failed write leaves no
 *   temporary file behind;
 * - writes use group commit: a handler changes the state, then awaits {@link Journal.commit},
 *   which resolves after the next flush; one flush writes once for all changes made since the
 *   last one, so 50 concurrent writers cost one file write, not 50;
 * - the emulator acknowledges only what it stored: when a flush fails (a full disk), every change
 *   not yet on disk is rolled back in memory (the state is reloaded from the text of the last
 *   successful write) and every commit waiting for it rejects with {@link StateWriteError}; the
 *   server holds each response until the changes it could show are on disk (see
 *   `middleware/commit-gate.ts`), so nothing of a refused write is ever served;
 * - a file that does not parse or does not match {@link StateFile} is refused with a clear
 *   message and never overwritten;
 * - the path is resolved to the real file first (symlinks followed), and a `<real file>.lock`
 *   holding our pid stops a second emulator from sharing the file, whichever path names it;
 *   writes go to the real file's directory, so a symlinked state file stays a symlink.
 * Events are not part of this file: see `events/event-store.ts` (an append-only NDJSON file, a
 * {@link CommitLog} written in the same flush).
 * @module
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { closeSync, existsSync, openSync, readFileSync, unlinkSync, writeFileSync } from "node:fs";
import { processAlive as isAlive } from "../../sdk/core/process";
import { realFilePath, replaceFile } from "../disk";
import { StateWriteError } from "../errors";
import { StateFile } from "./records";

/** The state file exists but cannot be used; it is left untouched. */
export class StateFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "StateFileError";
  }
}

/**
 * A second file written by the same flush as the state file (the event log). Its changes become
 * visible only when both writes succeeded, and are forgotten when either failed.
 */
export interface CommitLog {
  /** Takes the changes made so far, synchronously with the state snapshot; none: undefined. */
  prepare(): CommitLogBatch | undefined;
  /** The flush failed: forgets every change not yet visible (synchronously, with the rollback). */
  discard(): void;
  /** After {@link CommitLog.discard}: cuts the file back to its visible part. */
  repair(): Promise<void>;
}

/** The changes of a {@link CommitLog} taken for one flush. */
export interface CommitLogBatch {
  /** Writes them; on failure the file is left as before and the error is thrown. */
  write(): Promise<void>;
  /** The state file was written too: the changes become visible. */
  publish(): void;
}

/** The commits that one flush writes (group commit). */
interface CommitGroup {
  /** The last commit sequence number in the group. */
  upTo: number;
  /**
   * Set when a request that began before a rollback commits into this group: its change may rest
   * on state that was rolled back, so the group is refused instead of written.
   */
  stale: boolean;
  done: Promise<void>;
  resolve: () => void;
  reject: (e: Error) => void;
}

function newGroup(upTo: number): CommitGroup {
  let resolve!: () => void;
  let reject!: (e: Error) => void;
  const done = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  // Every committer awaits `done`; this only keeps a group nobody waits on from being reported
  // as an unhandled rejection.
  done.catch(() => undefined);
  return { upTo, stale: false, done, resolve, reject };
}

/** The request being handled and the rollback epoch its handling began in (see `Journal.runRequest`). */
const requestScope = new AsyncLocalStorage<{ journal: Journal; epoch: number }>();

/** Reads and checks a state file; throws {@link StateFileError} with the reason. */
export function readStateFile(path: string): StateFile {
  const refuse = (why: string) =>
    new StateFileError(
      `emulator state file ${path} is not usable: ${why}. It was left unchanged; move it away (or fix it) to start with a new state.`,
    );
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    throw refuse(`cannot be read (${(e as Error).message})`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw refuse(`it is not valid JSON (${(e as Error).message})`);
  }
  const parsed = StateFile.safeParse(json);
  if (!parsed.success) {
    const first = parsed.error.issues[0];
    const where = first ? first.path.join(".") || "(root)" : "(root)";
    throw refuse(`it is not a flagstack emulator state (${where}: ${first?.message ?? "invalid"})`);
  }
  return parsed.data;
}

/**
 * Persistence of a state that can write itself as a {@link StateFile} and load one back (see
 * the module comment); without a path, every commit resolves at once.
 */
export abstract class Journal {
  /** The state path as given. */
  readonly statePath: string | undefined;
  /** The file it names, symlinks resolved: what is locked, written and renamed over. */
  readonly filePath: string | undefined;
  /** How many times the state file was written (group commit makes this far fewer than commits). */
  writeCount = 0;
  /** How many times a failed write rolled the state back; a request compares it across its life. */
  epoch = 0;
  /** The error of the last failed write. */
  lastFailure: StateWriteError | undefined;
  /** Written by every flush together with the state file (the event log). */
  log: CommitLog | undefined;
  private lockPath: string | undefined;
  /** The text of the last successful write: what a rollback returns to. */
  private durable: string | undefined;
  /** Commits requested so far (each gets the next number). */
  private requested = 0;
  /** Every commit up to this number is on disk, or was rolled back. */
  private settledUpTo = 0;
  /** The group being written, and the one gathering commits for the write after it. */
  private flushing: CommitGroup | undefined;
  private next: CommitGroup | undefined;
  private pumping: Promise<void> | undefined;

  protected constructor(statePath: string | undefined) {
    this.statePath = statePath;
    this.filePath = statePath === undefined ? undefined : realFilePath(statePath);
  }

  /** The whole state as the file holds it. */
  abstract toFile(): StateFile;
  /** Replaces the whole state with a file's. */
  protected abstract load(file: StateFile): void;

  /**
   * Locks the file, then loads it when it exists (refusing a corrupt one), else keeps the state
   * the caller seeded and writes it.
   */
  protected async openFile(): Promise<void> {
    const file = this.filePath;
    if (!file) return;
    this.lock(file);
    try {
      if (existsSync(file)) {
        this.load(readStateFile(file));
        this.durable = JSON.stringify(this.toFile());
      } else {
        const text = JSON.stringify(this.toFile());
        await replaceFile(file, text);
        this.durable = text;
        this.writeCount++;
      }
    } catch (e) {
      this.unlock();
      throw e;
    }
  }

  /** Locks the real file (`path` is {@link Journal.filePath}), so every path to it shares the lock. */
  private lock(path: string): void {
    const lockPath = `${path}.lock`;
    const named = this.statePath === path ? path : `${this.statePath} (${path})`;
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        const fd = openSync(lockPath, "wx");
        writeFileSync(fd, String(process.pid));
        closeSync(fd);
        this.lockPath = lockPath;
        return;
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
        const pid = Number(readFileSync(lockPath, "utf8").trim());
        if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && isAlive(pid)) {
          throw new StateFileError(
            `emulator state file ${named} is in use by process ${pid} (lock file ${lockPath})`,
          );
        }
        if (pid === process.pid) {
          throw new StateFileError(
            `emulator state file ${named} is already open in this process (lock file ${lockPath}); stop the other emulator first`,
          );
        }
        // A stale lock from a process that is gone.
        unlinkSync(lockPath);
      }
    }
  }

  private unlock(): void {
    if (!this.lockPath) return;
    try {
      unlinkSync(this.lockPath);
    } catch {
      // already gone
    }
    this.lockPath = undefined;
  }

  /** Waits for pending writes, then releases the lock. */
  async close(): Promise<void> {
    await this.idle();
    this.unlock();
  }

  /** True when changes are written to a state file (and so can be refused by it). */
  get persistent(): boolean {
    return this.filePath !== undefined;
  }

  /**
   * Call after a change. Resolves once the change is on disk (immediately without `statePath`);
   * rejects with {@link StateWriteError} when the write failed, after the change (and every other
   * change not yet on disk) was rolled back. Changes made while a write is running are written
   * together by the next one.
   *
   * A handler calls it right after its change, in the same synchronous run. A request whose
   * handling spans a rollback (it read the state before, and commits after) is refused with its
   * group: its change may rest on state that no longer exists.
   */
  commit(): Promise<void> {
    if (!this.filePath) return Promise.resolve();
    this.requested++;
    let group = this.next;
    if (!group) {
      group = newGroup(this.requested);
      this.next = group;
    }
    group.upTo = this.requested;
    // A request that read the state before a rollback may have changed it on the strength of a
    // change that no longer exists (a group name it saw taken, a flag it found): refuse its group.
    const scope = requestScope.getStore();
    if (scope?.journal === this && scope.epoch !== this.epoch) group.stale = true;
    this.pumping ??= this.pump();
    return group.done;
  }

  /**
   * Runs the handling of one request; {@link Journal.commit} then knows which rollback epoch the
   * request began in.
   */
  runRequest<T>(fn: () => T): T {
    return requestScope.run({ journal: this, epoch: this.epoch }, fn);
  }

  /** True when every change made so far is on disk and no rollback happened since `epoch`. */
  isSettled(epoch: number): boolean {
    return epoch === this.epoch && this.settledUpTo >= this.requested;
  }

  /**
   * Waits until every change made so far is on disk. Resolves with the write error when a
   * rollback happened since `epoch` (what the caller computed may show a refused change), else
   * with undefined.
   */
  async settle(epoch: number): Promise<StateWriteError | undefined> {
    const target = this.requested;
    for (;;) {
      if (epoch !== this.epoch) return this.lastFailure ?? new StateWriteError("the state was rolled back");
      if (this.settledUpTo >= target) return undefined;
      const group = this.flushing && this.flushing.upTo >= target ? this.flushing : this.next;
      if (!group) return undefined;
      await group.done.catch(() => undefined);
    }
  }

  /** Resolves once no write is running or waiting. */
  async idle(): Promise<void> {
    while (this.pumping) await this.pumping;
  }

  /** Writes the gathered groups one after another until none is left; never rejects. */
  private async pump(): Promise<void> {
    try {
      while (this.next) {
        // Let the handlers of this turn commit too, so one write carries all of them.
        await new Promise<void>((r) => setImmediate(r));
        const group = this.next;
        this.next = undefined;
        this.flushing = group;
        let failure: StateWriteError | undefined;
        if (group.stale) {
          const earlier = this.lastFailure?.cause;
          failure = new StateWriteError(
            `the emulator could not save its state file earlier (${earlier instanceof Error ? earlier.message : "a write failed"}) and rolled back; this request began before that and may rest on the rolled-back state, so nothing of it was stored`,
            earlier,
          );
        } else {
          try {
            await this.write();
            this.settledUpTo = group.upTo;
          } catch (e) {
            failure = new StateWriteError(
              `the emulator could not save its state file (${(e as Error).message}); nothing of this request was stored`,
              e,
            );
          }
        }
        if (failure) {
          const refused = this.rollBack(failure, group);
          // The refusal is answered once the event log is cut back too, so nothing of the
          // refused batch is on disk when the client (or a held read) hears of it.
          await this.log?.repair().catch((e: unknown) => {
            console.error("flagstack emulator: could not cut the event log back after a failed write:", e);
          });
          this.flushing = undefined;
          for (const g of refused) g.reject(failure);
        } else {
          this.flushing = undefined;
          group.resolve();
        }
      }
    } catch (e) {
      // Unreachable unless the rollback itself fails; no committer may be left waiting.
      const failure = new StateWriteError(
        `the emulator's state could not be saved (${(e as Error).message})`,
        e,
      );
      for (const g of [this.flushing, this.next]) g?.reject(failure);
      this.flushing = undefined;
      this.next = undefined;
      console.error("flagstack emulator: the state writer failed:", e);
    } finally {
      this.pumping = undefined;
    }
  }

  /** One flush: the event log's batch, then the state file; both snapshots taken at once. */
  private async write(): Promise<void> {
    const path = this.filePath;
    if (!path) return;
    const batch = this.log?.prepare();
    const text = JSON.stringify(this.toFile());
    if (batch) await batch.write();
    await replaceFile(path, text);
    this.durable = text;
    this.writeCount++;
    batch?.publish();
  }

  /**
   * A write failed: returns the state to the last successful write and returns the groups to
   * refuse: the one that failed and the one gathering after it (its changes were made on top of
   * the refused ones and are gone with them).
   */
  private rollBack(failure: StateWriteError, group: CommitGroup): CommitGroup[] {
    const refused = [group, ...(this.next ? [this.next] : [])];
    this.next = undefined;
    this.epoch++;
    this.lastFailure = failure;
    this.settledUpTo = this.requested;
    if (this.durable !== undefined) this.load(StateFile.parse(JSON.parse(this.durable)));
    this.log?.discard();
    const cause = failure.cause instanceof Error ? failure.cause.message : failure.message;
    console.error(
      group.stale
        ? "flagstack emulator: refused the changes of requests that began before the last rollback; rolled back to the last write"
        : `flagstack emulator: could not write ${this.filePath} (${cause}); the changes not yet on disk were rolled back and refused`,
    );
    return refused;
  }
}
