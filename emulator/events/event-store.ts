/**
 * The event store: every event accepted by `POST /api/events/bulk` (bulk import and SDK
 * `track()`), with the environment of the SDK key that sent it.
 *
 * It must hold a million events (the import benchmark) cheaply, so it is columnar: numbers in
 * growable typed arrays, event type and traffic type names interned, keys in one array, and
 * properties (rare) as JSON strings in a sparse map. Events are materialised as objects only when
 * read.
 *
 * With a path it also appends each accepted batch to an NDJSON file (one compact line per event)
 * during the store's group-commit flush (it is the store's {@link CommitLog}), so an event is on
 * disk before its 202 is sent, and reads the file back on start. A torn last line (a crash
 * mid-append, never acknowledged) is cut off; any other bad line refuses the start.
 *
 * Appended events stay invisible (to {@link EventStore.count}, reads and lists) until the flush
 * that writes them has also written the state file; when either write fails they are discarded
 * and the file is cut back to its visible part, so a refused batch is never counted, listed or
 * read back after a restart.
 * @module
 */
import { existsSync } from "node:fs";
import { readFile, truncate, writeFile } from "node:fs/promises";
import type { EventRecord } from "../../sdk/events/schemas";
import { appendToFile } from "../disk";
import { type CommitLog, type CommitLogBatch, StateFileError } from "../store";

/** An event as stored: the record plus the environment of the SDK key that sent it. */
export type StoredEvent = EventRecord & { environmentId: string; environmentName: string };

// flags byte: bits 0-1 value (0 absent, 1 null, 2 number), bits 2-3 properties (same coding)
const ABSENT = 0;
const NULL = 1;
const PRESENT = 2;

/** One line of the NDJSON event log. */
interface EventLine {
  e: string;
  t: string;
  k: string;
  ts: number;
  v?: number | null;
  p?: Record<string, unknown> | null;
  env: string;
  en: string;
}

/** Each member of an event record and its name on a line of the log. */
const LINE_NAMES = [
  ["eventTypeId", "e"],
  ["trafficTypeName", "t"],
  ["key", "k"],
  ["timestamp", "ts"],
  ["value", "v"],
  ["properties", "p"],
] as const satisfies readonly (readonly [keyof EventRecord, keyof EventLine])[];

/** The log line of an event sent with the SDK key of `env` (absent members stay absent). */
function toLine(r: EventRecord, env: { id: string; name: string }): EventLine {
  const line: Record<string, unknown> = {};
  for (const [member, name] of LINE_NAMES) if (r[member] !== undefined) line[name] = r[member];
  line.env = env.id;
  line.en = env.name;
  return line as unknown as EventLine;
}

/** The event a log line holds (absent members stay absent). */
function fromLine(line: EventLine): EventRecord {
  const r: Record<string, unknown> = {};
  for (const [member, name] of LINE_NAMES) if (line[name] !== undefined) r[member] = line[name];
  return r as EventRecord;
}

/** Columnar, append-only storage of events. */
export class EventStore implements CommitLog {
  /** Events stored, visible or not. */
  private n = 0;
  /** Events readers see: those on disk (every event, without a path). */
  private visible = 0;
  /** Length of the file's visible part, and of the whole file (larger while a flush runs). */
  private visibleBytes = 0;
  private fileBytes = 0;
  private cap = 0;
  private timestamps = new Float64Array(0);
  private values = new Float64Array(0);
  private flags = new Uint8Array(0);
  private types = new Uint32Array(0);
  private trafficTypes = new Uint32Array(0);
  private envs = new Uint32Array(0);
  private keys: string[] = [];
  private props = new Map<number, string>();
  private strings: string[] = [];
  private stringIds = new Map<string, number>();
  private envTable: { id: string; name: string }[] = [];
  private pending: string[] = [];

  /** @param path - NDJSON file to append to (none: memory only) */
  constructor(readonly path?: string) {}

  /** Number of stored (visible) events. */
  get count(): number {
    return this.visible;
  }

  private intern(s: string): number {
    let id = this.stringIds.get(s);
    if (id === undefined) {
      id = this.strings.length;
      this.strings.push(s);
      this.stringIds.set(s, id);
    }
    return id;
  }

  private envIndex(id: string, name: string): number {
    let i = this.envTable.findIndex((e) => e.id === id);
    if (i < 0) {
      i = this.envTable.length;
      this.envTable.push({ id, name });
    }
    return i;
  }

  private grow(need: number): void {
    if (need <= this.cap) return;
    let cap = Math.max(1024, this.cap);
    while (cap < need) cap *= 2;
    const f64 = (a: Float64Array) => {
      const b = new Float64Array(cap);
      b.set(a);
      return b;
    };
    const u32 = (a: Uint32Array) => {
      const b = new Uint32Array(cap);
      b.set(a);
      return b;
    };
    this.timestamps = f64(this.timestamps);
    this.values = f64(this.values);
    const flags = new Uint8Array(cap);
    flags.set(this.flags);
    this.flags = flags;
    this.types = u32(this.types);
    this.trafficTypes = u32(this.trafficTypes);
    this.envs = u32(this.envs);
    this.cap = cap;
  }

  private put(r: EventRecord, envIdx: number): void {
    const i = this.n;
    this.timestamps[i] = r.timestamp;
    let flags = ABSENT;
    if (r.value === null) flags |= NULL;
    else if (r.value !== undefined) {
      flags |= PRESENT;
      this.values[i] = r.value;
    }
    if (r.properties === null) flags |= NULL << 2;
    else if (r.properties !== undefined) {
      flags |= PRESENT << 2;
      this.props.set(i, JSON.stringify(r.properties));
    }
    this.flags[i] = flags;
    this.types[i] = this.intern(r.eventTypeId);
    this.trafficTypes[i] = this.intern(r.trafficTypeName);
    this.envs[i] = envIdx;
    this.keys[i] = r.key;
    this.n = i + 1;
  }

  /** Stores validated records for an environment; with a path they are queued for the next flush. */
  append(records: readonly EventRecord[], env: { id: string; name: string }): void {
    this.grow(this.n + records.length);
    const envIdx = this.envIndex(env.id, env.name);
    for (const r of records) {
      this.put(r, envIdx);
      if (this.path) this.pending.push(JSON.stringify(toLine(r, env)));
    }
    if (!this.path) this.visible = this.n;
  }

  /** The event at index `i` (0 = oldest). */
  at(i: number): StoredEvent | undefined {
    if (i < 0 || i >= this.visible) return undefined;
    const flags = this.flags[i] ?? 0;
    const env = this.envTable[this.envs[i] ?? 0] ?? { id: "", name: "" };
    const e: StoredEvent = {
      eventTypeId: this.strings[this.types[i] ?? 0] ?? "",
      trafficTypeName: this.strings[this.trafficTypes[i] ?? 0] ?? "",
      key: this.keys[i] ?? "",
      timestamp: this.timestamps[i] ?? 0,
      environmentId: env.id,
      environmentName: env.name,
    };
    const v = flags & 3;
    if (v === NULL) e.value = null;
    else if (v === PRESENT) e.value = this.values[i] ?? 0;
    const p = (flags >> 2) & 3;
    if (p === NULL) e.properties = null;
    else if (p === PRESENT) e.properties = JSON.parse(this.props.get(i) ?? "{}") as Record<string, unknown>;
    return e;
  }

  /** Events in arrival order, optionally of one environment, from `offset`, at most `limit`. */
  list({
    offset = 0,
    limit = Number.POSITIVE_INFINITY,
    environmentId,
  }: {
    offset?: number;
    limit?: number;
    environmentId?: string;
  } = {}): StoredEvent[] {
    const out: StoredEvent[] = [];
    const envIdx = environmentId === undefined ? -1 : this.envTable.findIndex((e) => e.id === environmentId);
    if (environmentId !== undefined && envIdx < 0) return out;
    let skipped = 0;
    for (let i = 0; i < this.visible && out.length < limit; i++) {
      if (envIdx >= 0 && this.envs[i] !== envIdx) continue;
      if (skipped++ < offset) continue;
      const e = this.at(i);
      if (e) out.push(e);
    }
    return out;
  }

  /** Number of events of one environment (all when omitted). */
  countOf(environmentId?: string): number {
    if (environmentId === undefined) return this.visible;
    const envIdx = this.envTable.findIndex((e) => e.id === environmentId);
    let c = 0;
    for (let i = 0; i < this.visible; i++) if (this.envs[i] === envIdx) c++;
    return c;
  }

  /** Removes every event (and empties the file, first: when that fails nothing changes). */
  async clear(): Promise<void> {
    if (this.path) await writeFile(this.path, "");
    this.n = 0;
    this.visible = 0;
    this.visibleBytes = 0;
    this.fileBytes = 0;
    this.keys = [];
    this.props.clear();
    this.pending = [];
  }

  /** Takes the queued lines for the store's flush (with the state snapshot). */
  prepare(): CommitLogBatch | undefined {
    const path = this.path;
    if (!path || this.pending.length === 0) return undefined;
    const text = `${this.pending.join("\n")}\n`;
    this.pending = [];
    const upTo = this.n;
    let bytes = this.fileBytes;
    return {
      write: async () => {
        bytes = await appendToFile(path, text, this.fileBytes);
        this.fileBytes = bytes;
      },
      publish: () => {
        this.visible = upTo;
        this.visibleBytes = bytes;
      },
    };
  }

  /** Forgets the events that are not visible yet (a flush failed). */
  discard(): void {
    for (let i = this.visible; i < this.n; i++) this.props.delete(i);
    this.n = this.visible;
    this.keys.length = this.visible;
    this.pending = [];
  }

  /** Cuts the file back to its visible part (a batch was appended, then the state write failed). */
  async repair(): Promise<void> {
    if (!this.path || this.fileBytes === this.visibleBytes) return;
    await truncate(this.path, this.visibleBytes);
    this.fileBytes = this.visibleBytes;
  }

  /** Writes and publishes the queued lines on their own (the store does this in its flush). */
  async flush(): Promise<void> {
    const batch = this.prepare();
    if (!batch) return;
    try {
      await batch.write();
    } catch (e) {
      this.discard();
      throw e;
    }
    batch.publish();
  }

  /** Reads the NDJSON file back (when it exists). */
  async load(): Promise<void> {
    const path = this.path;
    if (!path || !existsSync(path)) return;
    const buf = await readFile(path);
    const endsWithNewline = buf.length === 0 || buf[buf.length - 1] === 0x0a;
    let start = 0;
    let length = buf.length;
    let lineNo = 0;
    while (start < buf.length) {
      let nl = buf.indexOf(0x0a, start);
      const last = nl < 0;
      if (last) nl = buf.length;
      lineNo++;
      const text = buf.toString("utf8", start, nl);
      if (text.trim() !== "") {
        let line: EventLine;
        try {
          line = JSON.parse(text) as EventLine;
          if (
            typeof line.e !== "string" ||
            typeof line.k !== "string" ||
            typeof line.ts !== "number" ||
            typeof line.env !== "string"
          ) {
            throw new Error("a field is missing");
          }
        } catch (e) {
          if (last && !endsWithNewline) {
            // A torn append from a crash: never acknowledged, so it is dropped.
            await truncate(path, start);
            length = start;
            break;
          }
          throw new StateFileError(
            `event log ${path} is corrupt at line ${lineNo} (${(e as Error).message}); it was left unchanged`,
          );
        }
        this.grow(this.n + 1);
        this.put(fromLine(line), this.envIndex(line.env, line.en));
      }
      start = nl + 1;
    }
    this.visible = this.n;
    this.visibleBytes = length;
    this.fileBytes = length;
  }
}
