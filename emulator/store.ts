/**
 * The emulator's state: every object of the admin API (workspaces, environments, traffic types,
 * rollout statuses, flags, per-environment definitions, segments, users, groups), the API keys,
 * the SDK bookkeeping (change numbers, ARCHIVED tombstones) and the platform API's state.
 *
 * State lives in memory, in maps with name indexes so that lookups stay O(1) with 10,000 flags.
 * With a `statePath` it is also persisted:
 * - every change is written atomically (temporary file, fsync, rename), so a crash leaves either
 *   the old or the new file, never a torn one;
 * - writes use group commit: a handler mutates the maps, then awaits {@link Store.commit}, which
 *   resolves after the next flush; one flush writes once for all changes made since the last
 *   one, so 50 concurrent writers cost one file write, not 50;
 * - a file that does not parse or does not match {@link StateFile} is refused with a clear
 *   message and never overwritten;
 * - a `<statePath>.lock` file holding our pid stops a second emulator from sharing the file.
 * Events are not part of this file: see `events/event-store.ts` (an append-only NDJSON file).
 * @module
 */
import { randomInt, randomUUID } from "node:crypto";
import { closeSync, existsSync, openSync, readFileSync, unlinkSync, writeFileSync } from "node:fs";
import { open, rename, unlink } from "node:fs/promises";
import { z } from "zod";
import { DefinitionBody, ROLLOUT_STATUSES, Tag, UserStatus } from "../sdk/admin/schemas";
import { ApiKey as PlatformApiKey, PlatformState } from "./platform";

// ---------------------------------------------------------------------------------------------
// API keys

/**
 * An API key as given to `startEmulator({keys})`, `emu.addKey()` and the platform routes: the
 * platform's `ApiKey` (type, workspace/environment and organization/project restrictions, ids or
 * names) plus what the admin side needs. An SDK key names its one environment in
 * `environments[0]` (an id, or a name looked up in `workspaces[0]`, default `Default`).
 */
export const ApiKeySpec = PlatformApiKey.extend({
  key: z.string().min(8, "key must be at least 8 characters").regex(/^\S+$/, "key must not contain spaces"),
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

/** Rollout statuses of a new account: the fixed list in the shared schemas. */
export const SEED_ROLLOUT_STATUSES: readonly { name: string; description: string }[] = ROLLOUT_STATUSES;

/** Name of the rollout status a new flag starts in (spec §3). */
export const INITIAL_ROLLOUT_STATUS = "Pre-Production";

/** Options of {@link Store.open}. */
export interface StoreOptions {
  accountId: string;
  statePath?: string | undefined;
  /** Creates the platform part of a new state. */
  emptyPlatformState: (accountId: string) => PlatformState;
}

/** A random signed 32-bit integer (SDK seeds). */
export const randomInt32 = (): number => randomInt(-(2 ** 31), 2 ** 31);

/** The emulator's state with indexes and persistence. */
export class Store {
  accountId: string;
  readonly statePath: string | undefined;

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
  private changeNumber = 0;
  private nextFlush: Promise<void> | undefined;
  private running: Promise<void> = Promise.resolve();
  private lockPath: string | undefined;
  /** Called inside every flush before the state file is written (the event log appends here). */
  beforeWrite: (() => Promise<void>) | undefined;

  private constructor(accountId: string, statePath: string | undefined) {
    this.accountId = accountId;
    this.statePath = statePath;
  }

  /**
   * Opens the state: loads `statePath` when it exists (refusing a corrupt file), else seeds a new
   * account (and writes it when `statePath` is set).
   */
  static async open(opts: StoreOptions): Promise<Store> {
    const store = new Store(opts.accountId, opts.statePath);
    if (opts.statePath) store.lock(opts.statePath);
    try {
      if (opts.statePath && existsSync(opts.statePath)) {
        store.load(Store.readStateFile(opts.statePath));
      } else {
        store.seed(opts.emptyPlatformState(opts.accountId));
        if (opts.statePath) await store.flush();
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

  private lock(path: string): void {
    const lockPath = `${path}.lock`;
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
            `emulator state file ${path} is in use by process ${pid} (lock file ${lockPath})`,
          );
        }
        if (pid === process.pid) {
          throw new StateFileError(
            `emulator state file ${path} is already open in this process; stop the other emulator first`,
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
    await this.nextFlush;
    await this.running;
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
  // Persistence: group commit

  /**
   * Call after a change. Resolves once the change is on disk (immediately without `statePath`).
   * Changes made while a write is running are written together by the next one.
   */
  commit(): Promise<void> {
    if (!this.statePath) return Promise.resolve();
    if (!this.nextFlush) {
      const flush = this.running
        .then(() => new Promise<void>((r) => setImmediate(r)))
        .then(() => {
          // From here on, new commits wait for the flush after this one.
          this.nextFlush = undefined;
          return this.flush();
        });
      this.running = flush.catch(() => undefined);
      this.nextFlush = flush;
    }
    return this.nextFlush;
  }

  private async flush(): Promise<void> {
    const path = this.statePath;
    if (!path) return;
    if (this.beforeWrite) await this.beforeWrite();
    const text = JSON.stringify(this.toFile());
    const tmp = `${path}.tmp-${process.pid}`;
    const fh = await open(tmp, "w");
    try {
      await fh.writeFile(text);
      await fh.sync();
    } finally {
      await fh.close();
    }
    try {
      await rename(tmp, path);
      this.writeCount++;
    } catch (e) {
      await unlink(tmp).catch(() => undefined);
      throw e;
    }
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
