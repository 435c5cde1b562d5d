/**
 * The client the importer sends batches with when the caller does not pass one: the SDK's
 * `EventsClient` on the events URL and the SDK key (spec §5.2: `Authorization: Bearer <SDK key>`).
 * Records reach it already parsed by `EventRecord` (the importer validates them to write rejects),
 * so they are sent with `validated: true` instead of being checked twice.
 *
 * It tells the importer when each attempt of a batch is about to be written to the socket, which
 * is what keeps the journal truthful (see `journal.ts`). The HTTP core admits a request through
 * the shared rate limiter (where it may wait for its turn, or for the pause a 429 asked for) and
 * only then hands it to its undici dispatcher; here that dispatcher is a {@link WireGate}, which
 * calls {@link WireHooks.beforeWrite} and waits for it (the journal's `sent`, fsync'd) before
 * passing the request on to a pool with a free connection for every slot. So no client-side wait
 * lies between `sent` and the write. The gate also tells the importer, before the core waits to
 * retry, when an attempt certainly left nothing behind (a 429 or 503, a connection refused):
 * `refused` in the journal, so a kill during that wait does not leave the batch looking in flight.
 *
 * The gate learns which batch a request belongs to from an `AsyncLocalStorage` set around the
 * `bulk` call: the core is shared code and knows nothing of batches, and the context follows the
 * call through the limiter's queue and the core's retries.
 * @module
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { Dispatcher, Pool } from "undici";
import { classifyNetworkError } from "../../core/retry";
import { EventsClient } from "../client";
import type { EventsBulkClient, WireHooks } from "./sender";

/** Settings of {@link createBulkClient}. */
export interface BulkClientOptions {
  /** Base of the events API; falls back to `FLAGSTACK_EVENTS_URL`. */
  eventsUrl?: string | undefined;
  /** Server- or client-side SDK key; falls back to `FLAGSTACK_SDK_KEY`. */
  sdkKey?: string | undefined;
  /** Client-side request rate limit; default: the SDK's (`FLAGSTACK_REQUESTS_PER_SECOND`, else 10). */
  requestsPerSecond?: number | undefined;
  /** Requests in flight at once. */
  maxConcurrent?: number | undefined;
  env?: Record<string, string | undefined>;
}

/** Statuses by which the service refuses a request before acting on it (spec §4; ref admin §4). */
const REFUSED_STATUSES = new Set([429, 503]);

/**
 * An undici dispatcher that runs the current batch's {@link WireHooks} around each request the
 * HTTP core hands it; see the module comment. Requests outside a `bulk` call pass straight through.
 */
export class WireGate extends Dispatcher {
  readonly #hooks = new AsyncLocalStorage<WireHooks>();
  #inner: Dispatcher | undefined;

  /** The dispatcher requests go on to once their hook returned. */
  set inner(d: Dispatcher) {
    this.#inner = d;
  }

  get #target(): Dispatcher {
    if (!this.#inner) throw new Error("WireGate: no dispatcher to send through");
    return this.#inner;
  }

  /** Runs `fn` with `hooks` as the hooks of every request it makes. */
  run<T>(hooks: WireHooks, fn: () => Promise<T>): Promise<T> {
    return this.#hooks.run(hooks, fn);
  }

  override dispatch(options: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
    return this.#target.dispatch(options, handler);
  }

  override request<T = null>(options: Dispatcher.RequestOptions<T>): Promise<Dispatcher.ResponseData<T>>;
  override request<T = null>(
    options: Dispatcher.RequestOptions<T>,
    callback: (err: Error | null, data: Dispatcher.ResponseData<T>) => void,
  ): void;
  override request<T = null>(
    options: Dispatcher.RequestOptions<T>,
    callback?: (err: Error | null, data: Dispatcher.ResponseData<T>) => void,
  ): Promise<Dispatcher.ResponseData<T>> | undefined {
    const hooks = this.#hooks.getStore();
    if (callback) {
      this.#target.request(options, callback);
      return undefined;
    }
    if (!hooks) return this.#target.request(options);
    return this.#gated(hooks, options);
  }

  async #gated<T>(
    hooks: WireHooks,
    options: Dispatcher.RequestOptions<T>,
  ): Promise<Dispatcher.ResponseData<T>> {
    await hooks.beforeWrite();
    let res: Dispatcher.ResponseData<T>;
    try {
      res = await this.#target.request(options);
    } catch (e) {
      // Only a failure before any byte left proves the service saw nothing (idempotent: false,
      // so a lost connection counts as reached); anything else stays in flight ("sent").
      const failure = classifyNetworkError(e, false);
      if (!failure.reachedServer) await hooks.notRecorded(failure.reason);
      throw e;
    }
    if (REFUSED_STATUSES.has(res.statusCode)) await hooks.notRecorded(`HTTP ${res.statusCode}`);
    return res;
  }

  override close(): Promise<void>;
  override close(callback: () => void): void;
  override close(callback?: () => void): Promise<void> | undefined {
    const done = this.#inner ? this.#inner.close() : Promise.resolve();
    if (!callback) return done;
    void done.then(callback, callback);
    return undefined;
  }

  override destroy(): Promise<void>;
  override destroy(err: Error | null): Promise<void>;
  override destroy(callback: () => void): void;
  override destroy(err: Error | null, callback: () => void): void;
  override destroy(a?: Error | null | (() => void), b?: () => void): Promise<void> | undefined {
    const err = typeof a === "function" ? null : (a ?? null);
    const callback = typeof a === "function" ? a : b;
    const done = this.#inner ? this.#inner.destroy(err) : Promise.resolve();
    if (!callback) return done;
    void done.then(callback, callback);
    return undefined;
  }
}

/**
 * Creates the default bulk client; throws `ConfigurationError` naming a missing URL or key. Its
 * `bulk` calls the hooks it is given around every attempt it writes (`callsWireHooks`), and
 * `close` closes its connections.
 */
export function createBulkClient(o: BulkClientOptions): EventsBulkClient & { close(): Promise<void> } {
  const gate = new WireGate();
  const client = new EventsClient({
    baseUrl: o.eventsUrl,
    sdkKey: o.sdkKey,
    requestsPerSecond: o.requestsPerSecond,
    // Spaced, not a second's budget at once: a batch is a large body, and a burst that meets the
    // server's limit sends every batch of it in full to be refused; spaced, one is, and the pause
    // it brings holds the rest back (a whole import gains nothing from a head start of a second).
    burst: 1,
    maxConcurrent: o.maxConcurrent,
    dispatcher: gate,
    ...(o.env ? { env: o.env } : {}),
  });
  // A connection for every request the limiter lets in, and as many spare: a request never queues
  // in undici behind another (not even behind a keep-alive socket the server is closing), so once
  // its hook has journaled it, it is written at once. Its own pool, so no other client of the
  // process can take the connections.
  gate.inner = new Pool(client.core.origin, {
    connections: 2 * (o.maxConcurrent ?? client.core.limiter.settings.maxConcurrent),
    pipelining: 1,
  });
  return {
    callsWireHooks: true,
    async bulk(records, hooks) {
      const send = () => client.bulk(records, { validated: true });
      await (hooks ? gate.run(hooks, send) : send());
    },
    close: () => gate.close(),
  };
}
