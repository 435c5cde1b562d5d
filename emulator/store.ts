/**
 * The emulator's state: every object of the admin API (workspaces, environments, traffic types,
 * rollout statuses, flags, per-environment definitions, segments, users, groups), the API keys,
 * the SDK bookkeeping (change numbers, ARCHIVED tombstones) and the platform API's state.
 *
 * State lives in memory, in maps with name indexes so that lookups stay O(1) with 10,000 flags.
 * With a `statePath` it is also persisted:
 * - every change is written atomically (temporary file, fsync, rename; `disk.ts`), so a crash
 *   leaves either the old or the new file, never a torn one, and a failed write leaves no
 *   temporary file behind;
 * - writes use group commit: a handler mutates the maps, then awaits {@link Store.commit}, which
 *   resolves after the next flush; one flush writes once for all changes made since the last
 *   one, so 50 concurrent writers cost one file write, not 50;
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
import { randomInt, randomUUID } from "node:crypto";
import { closeSync, existsSync, openSync, readFileSync, unlinkSync, writeFileSync } from "node:fs";
import { z } from "zod";
import { DefinitionBody, ROLLOUT_STATUSES, Tag, UserStatus } from "../sdk/admin/schemas";
import { realFilePath, replaceFile } from "./disk";
import { StateWriteError } from "./errors";
import { emptyPlatformState, PlatformState } from "./platform/state";

// ---------------------------------------------------------------------------------------------
// API keys

/**
 * An API key as given to `startEmulator({keys})` and `emu.addKey()`: its type, and the
 * restrictions of each API (workspaces and environments, ids or names; organizations and
 * projects, a project entry being `"<org>/<project>"` or a bare `"<project>"` matching that
 * project in any organization). An SDK key names its one environment in `environments[0]` (an
 * id, or a name looked up in `workspaces[0]`, default `Default`).
 */
export const ApiKeySpec = z.object({
  key: z.string().min(8, "key must be at least 8 characters").regex(/^\S+$/, "key must not contain spaces"),
  type: z.enum(["admin", "sdk", "platform"]),
  workspaces: z.array(z.string()).optional(),
  environments: z.array(z.string()).optional(),
  organizations: z.array(z.string()).optional(),
  projects: z.array(z.string()).optional(),
  /** For SDK keys: server_side (default) or client_side; client-side keys may not read segments. */
  apiKeyType: z.enum(["server_side", "client_side"]).optional(),
  name: z.string().optional(),
  id: z.string().optional(),
});
/** An API key (input form). */
export type ApiKeyInput = z.input<typeof ApiKeySpec>;
/** An API key as the emulator holds it. */
export type ApiKey = z.output<typeof ApiKeySpec>;

const KeyRecord = ApiKeySpec.extend({
  id: z.string(),
  name: z.string(),
  /** The key the options name (`adminKey`, `platformKey`, `sdkKey` of Production). */
  primary: z.boolean().default(false),
});
/** A stored key. */
export type KeyRecord = z.output<typeof KeyRecord>;

// ---------------------------------------------------------------------------------------------
// Records

const WorkspaceRecord = z.object({
  id: z.string(),
  name: z.string(),
  requiresTitleAndComments: z.boolean(),
});
/** A workspace (project). */
export type WorkspaceRecord = z.output<typeof WorkspaceRecord>;

const EnvironmentRecord = z.object({
  id: z.string(),
  workspaceId: z.string(),
  name: z.string(),
  production: z.boolean(),
});
/** An environment of a workspace. */
export type EnvironmentRecord = z.output<typeof EnvironmentRecord>;

const TrafficTypeRecord = z.object({
  id: z.string(),
  workspaceId: z.string(),
  name: z.string(),
  displayAttributeId: z.string().nullable(),
});
/** A traffic type of a workspace. */
export type TrafficTypeRecord = z.output<typeof TrafficTypeRecord>;

const RolloutStatusRecord = z.object({ id: z.string(), name: z.string(), description: z.string() });
/** A rollout status (account-wide: every workspace lists the same ones). */
export type RolloutStatusRecord = z.output<typeof RolloutStatusRecord>;

const FlagRecord = z.object({
  id: z.string(),
  workspaceId: z.string(),
  name: z.string(),
  description: z.string(),
  trafficTypeId: z.string(),
  creationTime: z.number().int(),
  rolloutStatusId: z.string(),
  rolloutStatusTimestamp: z.number().int(),
  tags: z.array(Tag).nullable(),
});
/** A flag at project level. */
export type FlagRecord = z.output<typeof FlagRecord>;

/** The stored writable document of a definition: the POST body minus title, comment and killed. */
export const DefinitionDocument = DefinitionBody.omit({ title: true, comment: true, killed: true });
/** A definition's writable document. */
export type DefinitionDocument = z.output<typeof DefinitionDocument>;

const int32 = z
  .number()
  .int()
  .min(-(2 ** 31))
  .max(2 ** 31 - 1);

const DefinitionRecord = z.object({
  flagId: z.string(),
  environmentId: z.string(),
  doc: DefinitionDocument,
  killed: z.boolean(),
  creationTime: z.number().int(),
  lastUpdateTime: z.number().int(),
  /** SDK change number: strictly increasing across the account (sdk-wire-format §2.5). */
  changeNumber: z.number().int(),
  /** Chosen once per definition and kept across updates so keys never re-bucket (wire §2.5). */
  seed: int32,
  trafficAllocationSeed: int32,
});
/** A flag's definition in one environment. */
export type DefinitionRecord = z.output<typeof DefinitionRecord>;

const TombstoneRecord = z.object({
  environmentId: z.string(),
  name: z.string(),
  trafficTypeName: z.string(),
  changeNumber: z.number().int(),
  seed: int32,
  trafficAllocationSeed: int32,
});
/** A removed definition, served once more as ARCHIVED by `/api/splitChanges` (wire §1). */
export type TombstoneRecord = z.output<typeof TombstoneRecord>;

const SegmentRecord = z.object({
  id: z.string(),
  workspaceId: z.string(),
  name: z.string(),
  description: z.string(),
  trafficTypeId: z.string(),
  creationTime: z.number().int(),
});
/** A segment of a workspace. */
export type SegmentRecord = z.output<typeof SegmentRecord>;

const SegmentEnvironmentFile = z.object({
  segmentId: z.string(),
  environmentId: z.string(),
  creationTime: z.number().int(),
  changeNumber: z.number().int(),
  /** `[key, changeNumber when added]`. */
  members: z.array(z.tuple([z.string(), z.number().int()])),
  /** `[key, changeNumber when removed]`, so `segmentChanges?since=N` can answer with deltas. */
  removed: z.array(z.tuple([z.string(), z.number().int()])),
});

/** A segment activated in an environment, with its keys. */
export interface SegmentEnvironment {
  segmentId: string;
  environmentId: string;
  creationTime: number;
  changeNumber: number;
  members: Map<string, number>;
  removed: Map<string, number>;
}

const UserRecord = z.object({
  id: z.string(),
  name: z.string(),
  email: z.string(),
  status: UserStatus,
  twoFactor: z.boolean(),
  /** Group ids, in order. */
  groups: z.array(z.string()),
  /**
   * Workspace ids of the key that invited the user (empty: an unrestricted key). A restricted key
   * sees the users whose scope overlaps its own workspaces (spec §5 item 4).
   */
  scope: z.array(z.string()),
  creationTime: z.number().int(),
});
/** A user. */
export type UserRecord = z.output<typeof UserRecord>;

const GroupRecord = z.object({ id: z.string(), name: z.string(), description: z.string() });
/** A group. */
export type GroupRecord = z.output<typeof GroupRecord>;

/** Format tag of the state file, checked on load. */
export const STATE_FORMAT = "flagstack-emulator-state";

/** The persisted state file (version 1). */
export const StateFile = z.object({
  format: z.literal(STATE_FORMAT),
  version: z.literal(1),
  accountId: z.string(),
  changeNumber: z.number().int(),
  workspaces: z.array(WorkspaceRecord),
  environments: z.array(EnvironmentRecord),
  trafficTypes: z.array(TrafficTypeRecord),
  rolloutStatuses: z.array(RolloutStatusRecord),
  flags: z.array(FlagRecord),
  definitions: z.array(DefinitionRecord),
  tombstones: z.array(TombstoneRecord),
  segments: z.array(SegmentRecord),
  segmentEnvironments: z.array(SegmentEnvironmentFile),
  users: z.array(UserRecord),
  groups: z.array(GroupRecord),
  keys: z.array(KeyRecord),
  /** Owned by `emulator/platform`. */
  platform: PlatformState,
});
/** The persisted state file. */
export type StateFile = z.output<typeof StateFile>;

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

/** The request being handled and the rollback epoch its handling began in (see `Store.runRequest`). */
const requestScope = new AsyncLocalStorage<{ store: Store; epoch: number }>();

/** Rollout statuses of a new account: the fixed list in the shared schemas. */
export const SEED_ROLLOUT_STATUSES: readonly { name: string; description: string }[] = ROLLOUT_STATUSES;

/** Name of the rollout status a new flag starts in (spec §3). */
export const INITIAL_ROLLOUT_STATUS = "Pre-Production";

/** Options of {@link Store.open}. */
export interface StoreOptions {
  accountId: string;
  statePath?: string | undefined;
  /** Creates the platform part of a new state (default: the organization `default` alone). */
  emptyPlatformState?: (accountId: string) => PlatformState;
}

/** A random signed 32-bit integer (SDK seeds). */
export const randomInt32 = (): number => randomInt(-(2 ** 31), 2 ** 31);

/** The emulator's state with indexes and persistence. */
export class Store {
  accountId: string;
  /** The state path as given. */
  readonly statePath: string | undefined;
  /** The file it names, symlinks resolved: what is locked, written and renamed over. */
  readonly filePath: string | undefined;

  readonly workspaces = new Map<string, WorkspaceRecord>();
  readonly environments = new Map<string, EnvironmentRecord>();
  readonly trafficTypes = new Map<string, TrafficTypeRecord>();
  rolloutStatuses: RolloutStatusRecord[] = [];
  readonly flags = new Map<string, FlagRecord>();
  /** workspaceId → flag name → flag. */
  readonly flagsByName = new Map<string, Map<string, FlagRecord>>();
  /** environmentId → flagId → definition. */
  readonly definitions = new Map<string, Map<string, DefinitionRecord>>();
  /** environmentId → flag name → tombstone. */
  readonly tombstones = new Map<string, Map<string, TombstoneRecord>>();
  readonly segments = new Map<string, SegmentRecord>();
  /** environmentId → segmentId → activation. */
  readonly segmentEnvironments = new Map<string, Map<string, SegmentEnvironment>>();
  readonly users = new Map<string, UserRecord>();
  readonly groups = new Map<string, GroupRecord>();
  /** key string → key. */
  readonly keys = new Map<string, KeyRecord>();
  platform!: PlatformState;

  /** How many times the state file was written (group commit makes this far fewer than commits). */
  writeCount = 0;
  /** How many times a failed write rolled the state back; a request compares it across its life. */
  epoch = 0;
  /** The error of the last failed write. */
  lastFailure: StateWriteError | undefined;
  /** Written by every flush together with the state file (the event log). */
  log: CommitLog | undefined;
  private changeNumber = 0;
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

  private constructor(accountId: string, statePath: string | undefined) {
    this.accountId = accountId;
    this.statePath = statePath;
    this.filePath = statePath === undefined ? undefined : realFilePath(statePath);
  }

  /**
   * Opens the state: loads `statePath` when it exists (refusing a corrupt file), else seeds a new
   * account (and writes it when `statePath` is set).
   */
  static async open(opts: StoreOptions): Promise<Store> {
    const store = new Store(opts.accountId, opts.statePath);
    const file = store.filePath;
    if (file) store.lock(file);
    try {
      if (file && existsSync(file)) {
        store.load(Store.readStateFile(file));
        store.durable = JSON.stringify(store.toFile());
      } else {
        store.seed((opts.emptyPlatformState ?? emptyPlatformState)(opts.accountId));
        if (file) {
          const text = JSON.stringify(store.toFile());
          await replaceFile(file, text);
          store.durable = text;
          store.writeCount++;
        }
      }
    } catch (e) {
      store.unlock();
      throw e;
    }
    return store;
  }

  /** Reads and checks a state file; throws {@link StateFileError} with the reason. */
  static readStateFile(path: string): StateFile {
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

  /** Locks the real file (`path` is {@link Store.filePath}), so every path to it shares the lock. */
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

  private seed(platform: PlatformState): void {
    const ws = this.addWorkspace({ id: randomUUID(), name: "Default", requiresTitleAndComments: false });
    this.addEnvironment({ id: randomUUID(), workspaceId: ws.id, name: "Production", production: true });
    this.addEnvironment({ id: randomUUID(), workspaceId: ws.id, name: "Staging", production: false });
    for (const name of ["user", "account"]) {
      const id = randomUUID();
      this.trafficTypes.set(id, { id, workspaceId: ws.id, name, displayAttributeId: null });
    }
    this.rolloutStatuses = SEED_ROLLOUT_STATUSES.map((s) => ({ id: randomUUID(), ...s }));
    this.platform = platform;
  }

  /** Empties every map (before a rollback reloads them). */
  private clear(): void {
    for (const m of [
      this.workspaces,
      this.environments,
      this.trafficTypes,
      this.flags,
      this.flagsByName,
      this.definitions,
      this.tombstones,
      this.segments,
      this.segmentEnvironments,
      this.users,
      this.groups,
      this.keys,
    ]) {
      m.clear();
    }
    this.rolloutStatuses = [];
  }

  private load(file: StateFile): void {
    this.accountId = file.accountId;
    this.changeNumber = file.changeNumber;
    for (const w of file.workspaces) this.addWorkspace(w);
    for (const e of file.environments) this.addEnvironment(e);
    for (const t of file.trafficTypes) this.trafficTypes.set(t.id, t);
    this.rolloutStatuses = file.rolloutStatuses;
    for (const f of file.flags) this.addFlag(f);
    for (const d of file.definitions) this.setDefinition(d);
    for (const t of file.tombstones) this.envMap(this.tombstones, t.environmentId).set(t.name, t);
    for (const s of file.segments) this.segments.set(s.id, s);
    for (const a of file.segmentEnvironments) {
      this.envMap(this.segmentEnvironments, a.environmentId).set(a.segmentId, {
        segmentId: a.segmentId,
        environmentId: a.environmentId,
        creationTime: a.creationTime,
        changeNumber: a.changeNumber,
        members: new Map(a.members),
        removed: new Map(a.removed),
      });
    }
    for (const u of file.users) this.users.set(u.id, u);
    for (const g of file.groups) this.groups.set(g.id, g);
    for (const k of file.keys) this.keys.set(k.key, k);
    this.platform = file.platform;
  }

  /** The whole state as a JSON-ready object. */
  toFile(): StateFile {
    const flat = <T>(m: Map<string, Map<string, T>>): T[] =>
      [...m.values()].flatMap((inner) => [...inner.values()]);
    return {
      format: STATE_FORMAT,
      version: 1,
      accountId: this.accountId,
      changeNumber: this.changeNumber,
      workspaces: [...this.workspaces.values()],
      environments: [...this.environments.values()],
      trafficTypes: [...this.trafficTypes.values()],
      rolloutStatuses: this.rolloutStatuses,
      flags: [...this.flags.values()],
      definitions: flat(this.definitions),
      tombstones: flat(this.tombstones),
      segments: [...this.segments.values()],
      segmentEnvironments: flat(this.segmentEnvironments).map((a) => ({
        segmentId: a.segmentId,
        environmentId: a.environmentId,
        creationTime: a.creationTime,
        changeNumber: a.changeNumber,
        members: [...a.members],
        removed: [...a.removed],
      })),
      users: [...this.users.values()],
      groups: [...this.groups.values()],
      keys: [...this.keys.values()],
      platform: this.platform,
    };
  }

  // -------------------------------------------------------------------------------------------
  // Persistence: group commit, rollback

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
    if (scope?.store === this && scope.epoch !== this.epoch) group.stale = true;
    this.pumping ??= this.pump();
    return group.done;
  }

  /**
   * Runs the handling of one request; {@link Store.commit} then knows which rollback epoch the
   * request began in.
   */
  runRequest<T>(fn: () => T): T {
    return requestScope.run({ store: this, epoch: this.epoch }, fn);
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
        this.flushing = undefined;
        if (failure) {
          this.rollBack(failure, group);
          await this.log?.repair().catch((e: unknown) => {
            console.error("flagstack emulator: could not cut the event log back after a failed write:", e);
          });
        } else {
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

  /** Resolves once no write is running or waiting. */
  async idle(): Promise<void> {
    while (this.pumping) await this.pumping;
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
   * A write failed: returns the state to the last successful write and rejects the group that
   * failed and the one gathering after it (its changes were made on top of the refused ones and
   * are gone with them).
   */
  private rollBack(failure: StateWriteError, group: CommitGroup): void {
    const refused = [group, ...(this.next ? [this.next] : [])];
    this.next = undefined;
    this.epoch++;
    this.lastFailure = failure;
    this.settledUpTo = this.requested;
    if (this.durable !== undefined) {
      this.clear();
      this.load(StateFile.parse(JSON.parse(this.durable)));
    }
    this.log?.discard();
    const cause = failure.cause instanceof Error ? failure.cause.message : failure.message;
    console.error(
      group.stale
        ? "flagstack emulator: refused the changes of requests that began before the last rollback; rolled back to the last write"
        : `flagstack emulator: could not write ${this.filePath} (${cause}); the changes not yet on disk were rolled back and refused`,
    );
    for (const g of refused) g.reject(failure);
  }

  // -------------------------------------------------------------------------------------------
  // Small helpers used by the routes

  /** A strictly increasing change number close to the clock (wire §2.5). */
  nextChangeNumber(): number {
    this.changeNumber = Math.max(Date.now(), this.changeNumber + 1);
    return this.changeNumber;
  }

  /** The inner map of an environment-keyed map, created on demand. */
  envMap<T>(m: Map<string, Map<string, T>>, envId: string): Map<string, T> {
    let inner = m.get(envId);
    if (!inner) {
      inner = new Map();
      m.set(envId, inner);
    }
    return inner;
  }

  addWorkspace(w: WorkspaceRecord): WorkspaceRecord {
    this.workspaces.set(w.id, w);
    if (!this.flagsByName.has(w.id)) this.flagsByName.set(w.id, new Map());
    return w;
  }

  addEnvironment(e: EnvironmentRecord): EnvironmentRecord {
    this.environments.set(e.id, e);
    return e;
  }

  addFlag(f: FlagRecord): FlagRecord {
    this.flags.set(f.id, f);
    this.envMap(this.flagsByName, f.workspaceId).set(f.name, f);
    return f;
  }

  removeFlag(f: FlagRecord): void {
    this.flags.delete(f.id);
    this.flagsByName.get(f.workspaceId)?.delete(f.name);
  }

  setDefinition(d: DefinitionRecord): void {
    this.envMap(this.definitions, d.environmentId).set(d.flagId, d);
  }

  getDefinition(flagId: string, envId: string): DefinitionRecord | undefined {
    return this.definitions.get(envId)?.get(flagId);
  }

  /** Environments of a workspace, in creation order. */
  environmentsOf(workspaceId: string): EnvironmentRecord[] {
    return [...this.environments.values()].filter((e) => e.workspaceId === workspaceId);
  }

  /** Traffic types of a workspace, in creation order. */
  trafficTypesOf(workspaceId: string): TrafficTypeRecord[] {
    return [...this.trafficTypes.values()].filter((t) => t.workspaceId === workspaceId);
  }

  /** Adds or replaces a key (by key string). */
  putKey(k: KeyRecord): KeyRecord {
    this.keys.set(k.key, k);
    return k;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}
