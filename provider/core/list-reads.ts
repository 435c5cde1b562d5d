/**
 * Reads that share a list (issue 25): when the engine reads many objects of one kind in one scope
 * (the refresh of `pulumi refresh`, `pulumi preview --refresh`, `pulumi up --refresh`, and the
 * refresh of `flagstack recover`), the provider fetches the scope's list once, in pages of the API's
 * largest size, and answers each read from it, instead of one GET per object.
 *
 * The rules (DESIGN.md "Reads that share a list"):
 * - **Reads only.** A list answers a kind's `read` and nothing else: the read an update makes
 *   before it writes (the guard's, `./guard.ts`), a create's look-up by natural key and a delete's
 *   checks stay single fresh GETs (they call the API, not {@link listRead}).
 * - **Within one engine operation.** Lists are kept only while the window is open, and the
 *   provider opens it only in a process the engine started for one operation (the
 *   dynamic-provider host, the native provider plugin: `./resource.ts` `configure`,
 *   `../native/server.ts` `serve`); the process ends with the operation
 *   ({@link openListReadsForOperation}; `FLAGSTACK_LIST_READS=off` keeps every read single).
 *   Elsewhere (the tests' direct calls, `flagstack recover`'s own look-ups) every read is single
 *   unless a caller opens the window. Inside it, a list serves reads for at most
 *   {@link LIST_MAX_AGE_MS} after its first page was asked for; an older one is read again.
 * - **Any write drops the lists.** Every request but a GET through the process's clients (a
 *   create, update or delete of any kind, a change request) drops every list, when it starts and
 *   again when it settles, so no list fetched before a write ends answers a read after it. That is
 *   wider than the write's own scope on purpose: a flag's DELETE also removes its definitions in
 *   every environment, a flag set's change edits definitions (`./config.ts` `cachedClient` wires
 *   each client's core to {@link dropLists}).
 * - **Gone is confirmed.** An object missing from its list is read once more by a single GET
 *   before the read reports it gone, so a page that shifted under the scan (an object deleted
 *   while the pages were read moves the next one onto the previous page) never drops a resource
 *   from the state; that GET's answer is the read's answer.
 * - **A failed list is no failure.** When the list cannot be read (an error after the core's
 *   retries), each read of that scope falls back to its single GET, as without lists.
 *
 * - **Never dearer than single reads by much.** A list's pages are read only while reads of the
 *   scope wait for them, and never more pages than the scope has had reads (and, once, the reads
 *   that waited for a page in vain: {@link PAGE_WAIT_MS}), so a small stack in a large workspace
 *   costs at most three times its single reads (two pages and a single GET per read).
 *
 * Concurrent reads of a scope wait on the same pages.
 * @module
 */
import { isNotFound } from "../../sdk/core/errors";

/** How long a fetched list answers reads: a refresh's reads arrive within seconds of each other. */
export const LIST_MAX_AGE_MS = 60_000;

/** One read of an object that its scope's list may answer. */
export interface ListRead<T> {
  /** The API client the list is read with (lists are kept per client). */
  client: object;
  /** The scope, unique per kind and container: `flags of workspace <id>`. */
  scope: string;
  /** The id or name the read asks for (any of {@link keys}). */
  key: string;
  /** Every object of the scope, paged by the API's largest page size. */
  list: () => AsyncIterable<T>;
  /**
   * The objects one request of {@link list} answers (`Infinity` for a list of one request): the
   * pages read never outnumber the reads of the scope ({@link listRead}).
   */
  pageSize: number;
  /** The ids and names an object answers to (`[flag.id, flag.name]`). */
  keys: (item: T) => readonly string[];
  /**
   * The single read of the object: `undefined` or a `NotFoundError` when it is gone (for a kind the
   * API has no GET of one, a walk of the list: `admin.environments.find`).
   */
  single: () => Promise<T | undefined>;
}

interface Entry {
  /** When the first page was asked for. */
  startedAt: number;
  /** The objects read so far, by each of their keys. */
  index: Map<string, unknown>;
  /** The rest of the list; `undefined` once it is all read, or could not be read. */
  rest: AsyncIterator<unknown> | undefined;
  keys: (item: never) => readonly string[];
  pageSize: number;
  /** Objects read so far. */
  items: number;
  /** Reads of the scope so far: what the pages may cost ({@link pump}). */
  reads: number;
  /** The reads waiting for the next pages, by key. */
  waiting: Map<string, ((found: unknown) => void)[]>;
  pumping: boolean;
  /** While the reads have paid for no more pages: when the reads waiting pay for the next ones ({@link PAGE_WAIT_MS}). */
  giveUp: ReturnType<typeof setTimeout> | undefined;
  /** Pages paid for by reads that waited for them in vain ({@link payForPages}). */
  paidByWaiting: number;
  /** Whether the pages being read are those the waiting reads paid for: after them, they read singly. */
  paying: boolean;
}

interface ListState {
  /** Open: reads may share lists. */
  open: boolean;
  maxAgeMs: number;
  now: () => number;
  lists: Map<object, Map<string, Entry>>;
  /** What was sent, for tests: lists fetched and single reads made through {@link listRead}. */
  stats: ListReadStats;
}

/** What {@link listRead} did since the window opened. */
export interface ListReadStats {
  /** Lists fetched, by scope. */
  lists: Record<string, number>;
  /** Single reads: objects missing from their list (confirmations) or reads without a list. */
  singles: number;
  /** Reads answered from a list. */
  fromList: number;
}

// On globalThis under a registered symbol, as `./config.ts` keeps its clients: two copies of this
// module in one process (the package's source and its build) share one window.
const STATE_KEY = Symbol.for("flagstack.provider.list-reads");

function state(): ListState {
  const g = globalThis as unknown as Record<symbol, ListState | undefined>;
  let s = g[STATE_KEY];
  if (!s) {
    s = {
      open: false,
      maxAgeMs: LIST_MAX_AGE_MS,
      now: Date.now,
      lists: new Map(),
      stats: { lists: {}, singles: 0, fromList: 0 },
    };
    g[STATE_KEY] = s;
  }
  return s;
}

/**
 * Opens the window: from now on reads may share lists, until {@link closeListReads}. The provider
 * calls it once in a process the engine started for one operation. `maxAgeMs` and `now` are for
 * tests.
 */
export function openListReads(options: { maxAgeMs?: number; now?: () => number } = {}): void {
  const s = state();
  s.open = true;
  s.maxAgeMs = options.maxAgeMs ?? LIST_MAX_AGE_MS;
  s.now = options.now ?? Date.now;
  s.lists.clear();
  s.stats = { lists: {}, singles: 0, fromList: 0 };
}

/**
 * Opens the window for the engine operation this process serves (the provider process's start),
 * once: unless `FLAGSTACK_LIST_READS=off`, which keeps every read single (a host that serves many
 * operations, as the tests' gRPC host does, or a list endpoint that misbehaves).
 */
export function openListReadsForOperation(): void {
  if (state().open || process.env.FLAGSTACK_LIST_READS === "off") return;
  openListReads();
}

/** Closes the window and forgets every list: each read is a single GET again. */
export function closeListReads(): void {
  const s = state();
  s.open = false;
  s.lists.clear();
}

/** Whether reads may share lists now. */
export function listReadsOpen(): boolean {
  return state().open;
}

/** Drops every list (a write started or settled): the next read of any scope fetches its list again. */
export function dropLists(): void {
  state().lists.clear();
}

/** What {@link listRead} did since the window opened (a copy). */
export function listReadStats(): ListReadStats {
  const { stats } = state();
  return { lists: { ...stats.lists }, singles: stats.singles, fromList: stats.fromList };
}

/**
 * Reads one object: from its scope's list while the window is open, else by its single read. The
 * list's pages are read as the reads of the scope wait for them (concurrent reads share each
 * page), and never more pages than the scope has had reads, and a page more for each read that
 * waited for one in vain ({@link PAGE_WAIT_MS}): a workspace of 5,000 flags whose stack holds 3
 * costs at most 6 pages and 3 single reads, not 100 pages. A read whose object is not in
 * the pages the reads paid for, or not in the list at all, is read singly, and reported gone only
 * when that read finds nothing. Returns `undefined` when the object is gone.
 */
export async function listRead<T>(read: ListRead<T>): Promise<T | undefined> {
  const s = state();
  if (!s.open) return single(s, read);
  let lists = s.lists.get(read.client);
  if (lists === undefined) {
    lists = new Map();
    s.lists.set(read.client, lists);
  }
  let entry = lists.get(read.scope);
  if (entry !== undefined && s.now() - entry.startedAt > s.maxAgeMs) entry = undefined;
  if (entry === undefined) {
    s.stats.lists[read.scope] = (s.stats.lists[read.scope] ?? 0) + 1;
    entry = {
      startedAt: s.now(),
      index: new Map(),
      rest: read.list()[Symbol.asyncIterator](),
      keys: read.keys as (item: never) => readonly string[],
      pageSize: read.pageSize,
      items: 0,
      reads: 0,
      waiting: new Map(),
      pumping: false,
      giveUp: undefined,
      paidByWaiting: 0,
      paying: false,
    };
    lists.set(read.scope, entry);
  }
  entry.reads++;
  // Each read pays for a page more: the reads waiting for one go on ({@link pump}).
  if (entry.waiting.size > 0) void pump(entry);
  let found = entry.index.get(read.key);
  if (found === undefined && entry.rest !== undefined) {
    const e = entry;
    found = await new Promise<unknown>((resolve) => {
      const waiting = e.waiting.get(read.key);
      if (waiting) waiting.push(resolve);
      else e.waiting.set(read.key, [resolve]);
      void pump(e);
    });
  }
  if (found === undefined) return single(s, read);
  s.stats.fromList++;
  return found as T;
}

/**
 * How long the reads waiting for a page the reads have not paid for yet wait for the scope's next
 * reads to pay for it, before each pays for one page more itself ({@link payForPages}). The engine
 * sends a refresh's reads a few at a time as it walks (OpenTofu, ten at once), while a page is
 * answered in milliseconds: without the wait, a walk's first reads, whose objects are on later
 * pages, would go singly only because the reads that pay for those pages have not arrived yet.
 */
export const PAGE_WAIT_MS = 25;

/**
 * Reads the list on while reads wait and the reads of the scope pay for the pages (objects read
 * fewer than reads x page size); each object read answers the reads waiting for it. When the list
 * ends or fails, the reads still waiting are answered `undefined` (they read singly); when the
 * reads have paid for no more pages, they wait {@link PAGE_WAIT_MS} for a later read of the scope
 * to pay for the next ones (each such read pumps again), then pay for one page more each
 * ({@link payForPages}), and read singly only when that page did not hold their object either.
 */
async function pump(e: Entry): Promise<void> {
  if (e.pumping) return;
  e.pumping = true;
  clearTimeout(e.giveUp);
  e.giveUp = undefined;
  try {
    while (e.waiting.size > 0 && e.rest !== undefined && e.items < (e.reads + e.paidByWaiting) * e.pageSize) {
      const next = await e.rest.next();
      if (next.done) {
        e.rest = undefined;
        break;
      }
      e.items++;
      for (const k of e.keys(next.value as never)) {
        e.index.set(k, next.value);
        const waiting = e.waiting.get(k);
        if (waiting === undefined) continue;
        e.waiting.delete(k);
        for (const resolve of waiting) resolve(next.value);
      }
    }
  } catch {
    // Each read of the scope falls back to its single GET (whose error, if any, it reports).
    e.rest = undefined;
  } finally {
    e.pumping = false;
    const paid = e.paying;
    e.paying = false;
    if (e.rest === undefined || (paid && e.waiting.size > 0)) release(e);
    else if (e.waiting.size > 0) e.giveUp = setTimeout(() => payForPages(e), PAGE_WAIT_MS);
  }
}

/**
 * No read of the scope came to pay for the next pages (the engine sends no more while its reads
 * wait: OpenTofu's ten may all be waiting here): each read waiting pays for one page more, as its
 * single read would have cost one request, and the list goes on. So a read costs at most two
 * pages and a single read, and a walk whose reads come in another order than the list's reads
 * the list rather than its objects one by one.
 */
function payForPages(e: Entry): void {
  e.giveUp = undefined;
  for (const waiting of e.waiting.values()) e.paidByWaiting += waiting.length;
  e.paying = true;
  void pump(e);
}

/** Answers the reads still waiting `undefined`: each reads singly. */
function release(e: Entry): void {
  clearTimeout(e.giveUp);
  e.giveUp = undefined;
  const left = [...e.waiting.values()].flat();
  e.waiting.clear();
  for (const resolve of left) resolve(undefined);
}

/**
 * A list the API answers in one request (a bare array: traffic types, attributes), as the
 * iterable {@link ListRead.list} takes; its `pageSize` is `Infinity`.
 */
export async function* oneRequest<T>(fetch: () => Promise<readonly T[]>): AsyncIterable<T> {
  yield* await fetch();
}

async function single<T>(s: ListState, read: ListRead<T>): Promise<T | undefined> {
  s.stats.singles++;
  try {
    return await read.single();
  } catch (e) {
    if (isNotFound(e)) return undefined;
    throw e;
  }
}
