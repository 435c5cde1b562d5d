/**
 * Client-side rate limiter: a token bucket (GCRA form) plus a concurrency cap, shared by every
 * request to one base URL, so a burst of hundreds of concurrent calls is spread out and never trips
 * the server's limit. When a 429 arrives anyway, {@link RateLimiter.pause} holds back every limiter
 * of that origin for the advised time, not only the request that got it.
 *
 * Scheduling: a request is admitted when the "theoretical arrival time" (TAT) minus the burst
 * tolerance has passed, then TAT = max(TAT, now - catchUp) + interval. With the default burst of
 * 1, admissions are about one interval apart. `catchUp` (at most {@link MAX_CATCH_UP_MS}, at most
 * one interval) is timer lateness that does not push the schedule back: Node timers fire late by
 * a millisecond or more (several on a loaded machine), which would otherwise cost 10% or more of
 * throughput at 100 requests per second. Anything later is not caught up, so a stall never turns
 * into a burst.
 *
 * The interval is `1000 / rate * (1 + RATE_HEADROOM)`, i.e. 5% slower than the configured rate.
 * Why: a server that counts requests in fixed one-second windows (the emulator does; the real
 * services do not document theirs) starts a window at the arrival of its first request, and
 * requests do not arrive exactly as spaced when sent. With the headroom, `rate + 1` admissions
 * span at least 1050 ms minus the catch-up, so 40 ms of arrival jitter never shows the server
 * `rate + 1` requests in one window. The measured cost is `sdk_limit_utilization` in
 * `bench/sdk.bench.ts` (0.95 at best).
 * @module
 */

/** Timer lateness absorbed without pushing the schedule back (and at most one interval). */
export const MAX_CATCH_UP_MS = 10;

/** Fraction by which admissions are spaced wider than the configured rate; see the module comment. */
export const RATE_HEADROOM = 0.05;

/** Settings of one limiter. */
export interface RateLimiterSettings {
  /** Admissions per second; `Infinity` for none. */
  requestsPerSecond: number;
  /** Admissions allowed back to back before spacing applies (>= 1). */
  burst: number;
  /** Admitted requests in flight at once (until {@link RateLimiter.release}). */
  maxConcurrent: number;
}

/** Pause state shared by every limiter of one origin. */
interface OriginPause {
  until: number;
  /** Limiters to wake when a pause is set. */
  members: Set<RateLimiter>;
}

interface Waiter {
  resolve: () => void;
  reject: (e: unknown) => void;
  signal: AbortSignal | undefined;
  onAbort: (() => void) | undefined;
  done: boolean;
}

const now = () => performance.now();

/** Token bucket + concurrency cap; see the module comment. */
export class RateLimiter {
  readonly settings: Readonly<RateLimiterSettings>;
  readonly #interval: number;
  readonly #tolerance: number;
  readonly #catchUp: number;
  readonly #pause: OriginPause;
  #tat = 0;
  #inflight = 0;
  #queue: Waiter[] = [];
  #head = 0;
  #timer: NodeJS.Timeout | undefined;
  #timerAt = 0;

  /**
   * @param settings Rate, burst and concurrency.
   * @param pause Pause state to share with other limiters of the same origin (a fresh one if omitted).
   */
  constructor(settings: RateLimiterSettings, pause?: OriginPause) {
    this.settings = Object.freeze({ ...settings });
    this.#interval = Number.isFinite(settings.requestsPerSecond)
      ? (1000 / settings.requestsPerSecond) * (1 + RATE_HEADROOM)
      : 0;
    this.#tolerance = (settings.burst - 1) * this.#interval;
    this.#catchUp = Math.min(MAX_CATCH_UP_MS, this.#interval);
    this.#pause = pause ?? { until: 0, members: new Set() };
    this.#pause.members.add(this);
  }

  /** Requests admitted and not yet released. */
  get inFlight(): number {
    return this.#inflight;
  }

  /** Requests waiting for admission. */
  get queued(): number {
    return this.#queue.length - this.#head;
  }

  /** Milliseconds until the origin's pause ends (0 when not paused). */
  get pausedForMs(): number {
    return Math.max(0, this.#pause.until - now());
  }

  /**
   * Waits for admission. Returns `undefined` when admitted at once (the common, allocation-free
   * path), else a promise that resolves on admission. Every admission must be followed by exactly
   * one {@link release}.
   * @param priority Put the request at the head of the queue (a retry, which has waited already).
   * @param signal Aborts the wait; the promise then rejects with the signal's reason.
   */
  acquire(priority = false, signal?: AbortSignal): Promise<void> | undefined {
    if (this.#head === this.#queue.length && this.#tryAdmit()) return undefined;
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise<void>((resolve, reject) => {
      const w: Waiter = { resolve, reject, signal, onAbort: undefined, done: false };
      if (signal) {
        w.onAbort = () => {
          if (w.done) return;
          w.done = true;
          reject(signal.reason);
          this.#pump();
        };
        signal.addEventListener("abort", w.onAbort, { once: true });
      }
      if (priority && this.#head > 0) {
        this.#queue[--this.#head] = w;
      } else if (priority) {
        this.#queue.unshift(w);
      } else {
        this.#queue.push(w);
      }
      this.#pump();
    });
  }

  /** Ends one admitted request, letting a queued one in when the concurrency cap was reached. */
  release(): void {
    this.#inflight--;
    if (this.#head !== this.#queue.length) this.#pump();
  }

  /**
   * Holds back every limiter of this origin for `ms` (a server's 429 said so). Requests already
   * admitted are not affected; queued and new ones wait, then resume at the configured spacing.
   */
  pause(ms: number): void {
    const until = now() + ms;
    if (until <= this.#pause.until) return;
    this.#pause.until = until;
    for (const l of this.#pause.members) l.#onPause();
  }

  /** Detaches from the origin's pause state; for limiters that are thrown away. */
  dispose(): void {
    this.#pause.members.delete(this);
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #onPause(): void {
    // Nothing to do for an idle limiter; a queued one re-plans its timer.
    if (this.#head !== this.#queue.length) this.#schedule(this.#pause.until);
  }

  #tryAdmit(): boolean {
    if (this.#inflight >= this.settings.maxConcurrent) return false;
    const t = now();
    if (t < this.#pause.until) return false;
    if (this.#interval > 0) {
      if (t < this.#tat - this.#tolerance) return false;
      // Lateness up to catchUp keeps the schedule; beyond it only the excess is lost.
      this.#tat = Math.max(this.#tat, t - this.#catchUp) + this.#interval;
    }
    this.#inflight++;
    return true;
  }

  #pump(): void {
    while (this.#head !== this.#queue.length) {
      const w = this.#queue[this.#head]!;
      if (w.done) {
        this.#shift();
        continue;
      }
      if (!this.#tryAdmit()) {
        if (this.#inflight < this.settings.maxConcurrent) {
          this.#schedule(Math.max(this.#pause.until, this.#tat - this.#tolerance));
        }
        return; // else release() pumps again
      }
      this.#shift();
      w.done = true;
      if (w.onAbort) w.signal!.removeEventListener("abort", w.onAbort);
      w.resolve();
    }
  }

  #shift(): void {
    this.#queue[this.#head++] = undefined as unknown as Waiter;
    if (this.#head === this.#queue.length) {
      this.#queue.length = 0;
      this.#head = 0;
    } else if (this.#head > 1024 && this.#head * 2 > this.#queue.length) {
      this.#queue = this.#queue.slice(this.#head);
      this.#head = 0;
    }
  }

  #schedule(at: number): void {
    if (this.#timer !== undefined) {
      if (this.#timerAt === at) return;
      clearTimeout(this.#timer);
    }
    this.#timerAt = at;
    // Not unref'd: a queued request is real work the process must wait for.
    this.#timer = setTimeout(
      () => {
        this.#timer = undefined;
        this.#pump();
      },
      Math.max(0, Math.ceil(at - now())),
    );
  }
}

const pauses = new Map<string, OriginPause>();
const limiters = new Map<string, RateLimiter>();

/**
 * The process-wide limiter for `origin` with these settings. Clients that agree on the settings
 * share one bucket; all limiters of one origin share the 429 pause.
 */
export function sharedLimiter(origin: string, settings: RateLimiterSettings): RateLimiter {
  const key = `${origin}|${settings.requestsPerSecond}|${settings.burst}|${settings.maxConcurrent}`;
  let limiter = limiters.get(key);
  if (limiter === undefined) {
    let pause = pauses.get(origin);
    if (pause === undefined) {
      pause = { until: 0, members: new Set() };
      pauses.set(origin, pause);
    }
    limiter = new RateLimiter(settings, pause);
    limiters.set(key, limiter);
  }
  return limiter;
}
