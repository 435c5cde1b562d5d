/**
 * Client-side rate limiter: a token bucket (GCRA form) plus a concurrency cap, shared by every
 * request to one base URL, so a burst of hundreds of concurrent calls is spread out and never trips
 * the server's limit. When a 429 arrives anyway, {@link RateLimiter.pause} holds back every limiter
 * of that origin for the advised time, not only the request that got it.
 *
 * Scheduling, with `interval = 1000 / rate * (1 + RATE_HEADROOM)`:
 * - Spacing: admissions follow an ideal schedule one interval apart (GCRA "theoretical arrival
 *   time"; `burst` lets that many through back to back). An idle limiter restarts the schedule at
 *   the next request. When the schedule falls behind while requests are waiting (Node timers fire
 *   late, by many milliseconds on a loaded machine), it is caught up at up to twice the rate
 *   (bunching within {@link CATCH_UP_SLACK_MS}) instead of being lost, so the configured rate is
 *   actually reached.
 * - Window cap: never more than `K = ceil(rate)` admissions in any `K * interval` window (about
 *   1.02 s). This is what makes catching up safe: whatever the timers do, a server that counts
 *   `rate` requests per one-second window never sees `rate + 1` of them in a window, with about
 *   20 ms of slack for requests that arrive less evenly than they were sent.
 * - The 2% headroom is that slack: a server counting in fixed windows (the emulator does; the real
 *   services do not document theirs) starts a window at the arrival of its first request, so a
 *   request that reaches it later than the others shifts the window. The margin is a trade: 5%
 *   costs 2.5 s per 1,000 requests at 20/s, and a 429 costs about a second (servers advise waits
 *   in whole seconds), so the narrower margin wins unless it trips more than twice per thousand
 *   requests. `up_rate_limited_closest_window_ms` in `bench/up.bench.ts` reports how close, at the
 *   server, 21 requests came to fitting in one second during a `pulumi up` of 800 resources on
 *   2 cores (1,014 ms, against 1,020 sent: 6 ms of jitter, within the 20 ms). Where the network
 *   jitters more, each 429 that is not part of a burst refused together widens the margin by
 *   another 2%, up to 10% ({@link RateLimiter.pause}). The margin's price is
 *   `sdk_limit_utilization` in `bench/sdk.bench.ts` (0.98 at best).
 * @module
 */

/** How much faster than the rate a schedule that fell behind is caught up. */
export const CATCH_UP_SPEED = 2;

/**
 * While catching up, admissions may bunch within this many milliseconds (a timer that fires
 * late admits everything due, instead of one request per timer).
 */
export const CATCH_UP_SLACK_MS = 10;

/** Largest window ring kept (rates above this many per second use a proportionally shorter window). */
const MAX_WINDOW_COUNT = 4096;

/** Fraction by which admissions are spaced wider than the configured rate; see the module comment. */
export const RATE_HEADROOM = 0.02;

/** The widest the margin grows, by {@link RATE_HEADROOM} per 429, when the server still refuses. */
export const MAX_RATE_HEADROOM = 0.1;

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
  #headroom = RATE_HEADROOM;
  #interval = 0;
  #tolerance = 0;
  readonly #pause: OriginPause;
  /** Admission times of the last `K` admissions (a ring), for the window cap. */
  readonly #ring: Float64Array;
  #window = 0;
  #ringAt = 0;
  /** Schedule of the catch-up pace (twice the rate), with {@link CATCH_UP_SLACK_MS} of slack. */
  #cat = 0;
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
    const k = Number.isFinite(settings.requestsPerSecond)
      ? Math.min(MAX_WINDOW_COUNT, Math.max(1, Math.ceil(settings.requestsPerSecond)))
      : 0;
    this.#ring = new Float64Array(k).fill(Number.NEGATIVE_INFINITY);
    this.#space();
    this.#pause = pause ?? { until: 0, members: new Set() };
    this.#pause.members.add(this);
  }

  /** The current margin below the configured rate: {@link RATE_HEADROOM}, wider after 429s. */
  get headroom(): number {
    return this.#headroom;
  }

  /** Spacing, burst tolerance and window from the rate and the current margin. */
  #space(): void {
    const rate = this.settings.requestsPerSecond;
    this.#interval = Number.isFinite(rate) ? (1000 / rate) * (1 + this.#headroom) : 0;
    this.#tolerance = (this.settings.burst - 1) * this.#interval;
    this.#window = this.#ring.length * this.#interval;
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
    if (this.#head === this.#queue.length && this.#tryAdmit(false)) return undefined;
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
   * A 429 that arrives while no pause is running (not one of a burst refused together) also
   * widens every such limiter's margin by {@link RATE_HEADROOM}, up to {@link MAX_RATE_HEADROOM}:
   * the server's window or the network's jitter needs more room than the margin gave.
   */
  pause(ms: number): void {
    const t = now();
    const until = t + ms;
    if (until <= this.#pause.until) return;
    const fresh = this.#pause.until <= t;
    this.#pause.until = until;
    for (const l of this.#pause.members) {
      if (fresh && l.#interval > 0 && l.#headroom < MAX_RATE_HEADROOM) {
        l.#headroom = Math.min(MAX_RATE_HEADROOM, l.#headroom + RATE_HEADROOM);
        l.#space();
      }
      l.#onPause();
    }
  }

  /** Detaches from the origin's pause state; for limiters that are thrown away. */
  dispose(): void {
    this.#pause.members.delete(this);
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #onPause(): void {
    // The schedule restarts after the pause: no catching up on time the server asked us to wait.
    if (this.#tat < this.#pause.until) this.#tat = this.#pause.until;
    if (this.#head !== this.#queue.length) this.#schedule(this.#pause.until);
  }

  /** When the next admission may happen (ignoring concurrency). */
  #earliest(): number {
    let at = this.#pause.until;
    if (this.#interval > 0) {
      const t = now();
      // behind schedule (catching up): at most CATCH_UP_SPEED times the rate; else the schedule
      const spacing = this.#tat < t ? this.#cat - CATCH_UP_SLACK_MS : this.#tat - this.#tolerance;
      const windowed = this.#ring[this.#ringAt]! + this.#window;
      at = Math.max(at, spacing, windowed);
    }
    return at;
  }

  /** Admits one request now if the rules allow it. `queued`: it has been waiting (may catch up). */
  #tryAdmit(queued: boolean): boolean {
    if (this.#inflight >= this.settings.maxConcurrent) return false;
    const t = now();
    if (t < this.#earliest()) return false;
    if (this.#interval > 0) {
      // An idle limiter restarts the schedule; a waiting request keeps it (up to one window behind).
      this.#tat = (queued ? Math.max(this.#tat, t - this.#window) : Math.max(this.#tat, t)) + this.#interval;
      this.#ring[this.#ringAt] = t;
      this.#ringAt = (this.#ringAt + 1) % this.#ring.length;
      this.#cat = Math.max(this.#cat, t) + this.#interval / CATCH_UP_SPEED;
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
      if (!this.#tryAdmit(true)) {
        if (this.#inflight < this.settings.maxConcurrent) this.#schedule(this.#earliest());
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
