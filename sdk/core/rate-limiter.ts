/**
 * Client-side rate limiter: a token bucket (GCRA form) plus a concurrency cap, shared by every
 * request to one base URL, so a burst of hundreds of concurrent calls is spread out and never trips
 * the server's limit. When a 429 arrives anyway, {@link RateLimiter.pause} holds back every limiter
 * of that origin for the advised time, not only the request that got it.
 *
 * Scheduling, with `interval = 1000 / rate * (1 + RATE_HEADROOM)`:
 * - Spacing: admissions follow an ideal schedule one interval apart (GCRA "theoretical arrival
 *   time"; `burst` lets that many through back to back: by default one second's budget,
 *   `./options.ts`). An idle limiter restarts the schedule at the next request. When the schedule
 *   falls behind while requests are waiting (Node timers fire late, by many milliseconds on a
 *   loaded machine), it is caught up at up to twice the rate (bunching within
 *   {@link CATCH_UP_SLACK_MS}) instead of being lost, so the configured rate is actually reached.
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
 * - Late arrivals: the window cap counts a request from its admission, but the server counts it
 *   when it arrives, and a request can be slow to leave: the first of a process (its code still
 *   compiling, a connection to open), one behind a stalled event loop. Such a request's window
 *   would open late at the server and the next window's first requests, leaving on time, would
 *   land in it. So each answer tells the limiter how long the request took
 *   ({@link RateLimiter.answered}), and a request slower than the quickest answered so far counts
 *   in the window from its admission plus that difference: an upper bound of how late it left.
 * - Bursts: a server that counts requests per second (in fixed windows, a sliding window, or a
 *   bucket that holds a second's worth) takes a second's budget at once after an idle second, and
 *   the window cap above never sends more in any 1.02 s. A run's phases start after idle time
 *   (Terraform's refresh, the apply's first writes after the plan), so each starts a second's worth
 *   of requests sooner. A server that refuses a burst (one that spaces requests itself) answers
 *   429, which turns bursting off for the origin ({@link RateLimiter.pause}).
 * - Hand-over: a limit is the server's, not the process's, and Terraform runs one command as
 *   several provider processes, one after another. {@link limiterStates} is what the limiters of
 *   each origin admitted in their last window, their pause and their margin; {@link seedLimiters}
 *   gives that to the next process, so that its first burst counts the last one's requests.
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

/** One admission: its place in the window ring and when it was admitted ({@link RateLimiter.answered}). */
export interface Admission {
  slot: number;
  at: number;
}

/** What a limiter hands to the next process of a run ({@link RateLimiter.state}); times in epoch ms. */
export interface LimiterState {
  /** Admissions within the last window, oldest first. */
  admitted: number[];
  /** When the server's advised pause ends, or 0. */
  pausedUntil: number;
  /** Where the spacing schedule stands (GCRA's theoretical arrival time) when it is ahead, or 0. */
  schedule: number;
  /** The margin below the rate (widened by 429s). */
  headroom: number;
  /** Whether a 429 turned bursting off. */
  burstOff: boolean;
}

/** Pause state shared by every limiter of one origin. */
interface OriginPause {
  until: number;
  /** Limiters to wake when a pause is set. */
  members: Set<RateLimiter>;
}

interface Waiter {
  resolve: (admission: Admission) => void;
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
  /** Admissions back to back: the setting's, until a 429 turns bursting off. */
  #burst: number;
  #interval = 0;
  #tolerance = 0;
  readonly #pause: OriginPause;
  /**
   * The last `K` admissions (a ring), for the window cap: when each counts from, its admission
   * time or later when its answer showed it left late ({@link answered}).
   */
  readonly #ring: Float64Array;
  /**
   * Each ring slot's admission time (`NaN` for one another process handed on: {@link seed}), and
   * how long its answer took (`NaN` until answered).
   */
  readonly #admittedAt: Float64Array;
  readonly #took: Float64Array;
  /** The quickest answer so far (ms from admission to the response's headers). */
  #quickest = Number.POSITIVE_INFINITY;
  /** The last admission's slot and time (read at once after {@link acquire} admits). */
  #lastSlot = -1;
  #lastAt = 0;
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
    this.#burst = settings.burst;
    const k = Number.isFinite(settings.requestsPerSecond)
      ? Math.min(MAX_WINDOW_COUNT, Math.max(1, Math.ceil(settings.requestsPerSecond)))
      : 0;
    this.#ring = new Float64Array(k).fill(Number.NEGATIVE_INFINITY);
    this.#admittedAt = new Float64Array(k).fill(Number.NEGATIVE_INFINITY);
    this.#took = new Float64Array(k).fill(Number.NaN);
    this.#space();
    this.#pause = pause ?? { until: 0, members: new Set() };
    this.#pause.members.add(this);
  }

  /** The current margin below the configured rate: {@link RATE_HEADROOM}, wider after 429s. */
  get headroom(): number {
    return this.#headroom;
  }

  /** Admissions let through back to back now: the setting's, 1 once a 429 turned bursting off. */
  get burst(): number {
    return this.#burst;
  }

  /** How far back an admission counts: `K` intervals (about 1.02 s). */
  get windowMs(): number {
    return this.#window;
  }

  /**
   * What this limiter admitted in its last window (epoch ms, oldest first), its origin's pause and
   * its margin: what the next process of the same run needs to go on from here ({@link seed}).
   * `seeded: false` leaves out the admissions another process handed to it.
   */
  state(seeded = true): LimiterState {
    const t = now();
    const origin = performance.timeOrigin;
    const admitted: number[] = [];
    for (let i = 0; i < this.#ring.length; i++) {
      const at = this.#ring[i]!;
      if (at > t - this.#window && (seeded || !Number.isNaN(this.#admittedAt[i]))) admitted.push(origin + at);
    }
    admitted.sort((a, b) => a - b);
    return {
      admitted,
      pausedUntil: this.#pause.until > t ? origin + this.#pause.until : 0,
      schedule: this.#tat > t ? origin + this.#tat : 0,
      headroom: this.#headroom,
      burstOff: this.#burst < this.settings.burst,
    };
  }

  /**
   * Goes on from another process's {@link state} (the same origin): its admissions count in this
   * limiter's window and schedule, its pause holds, and its margin and burst stand where they are
   * narrower.
   */
  seed(s: LimiterState): void {
    const origin = performance.timeOrigin;
    if (s.pausedUntil > 0) this.#pause.until = Math.max(this.#pause.until, s.pausedUntil - origin);
    // The other's schedule goes on here (a pause restarts it, as in `#onPause`).
    this.#tat = Math.max(this.#tat, s.schedule > 0 ? s.schedule - origin : 0, this.#pause.until);
    const headroom = Math.min(MAX_RATE_HEADROOM, Math.max(this.#headroom, s.headroom));
    const burst = s.burstOff ? 1 : this.#burst;
    if (headroom !== this.#headroom || burst !== this.#burst) {
      this.#headroom = headroom;
      this.#burst = burst;
      this.#space();
    }
    const k = this.#ring.length;
    if (k === 0) return;
    // Each entry: when it counts from, when it was admitted here (`NaN`: in another process) and
    // how long its answer took; the newest `k` of this limiter's and the other's, oldest first.
    const entries: [number, number, number][] = [];
    for (let i = 0; i < k; i++)
      if (Number.isFinite(this.#ring[i]))
        entries.push([this.#ring[i]!, this.#admittedAt[i]!, this.#took[i]!]);
    for (const at of s.admitted) entries.push([at - origin, Number.NaN, Number.NaN]);
    entries.sort((a, b) => a[0] - b[0]);
    const kept = entries.slice(-k);
    this.#ring.fill(Number.NEGATIVE_INFINITY);
    this.#admittedAt.fill(Number.NEGATIVE_INFINITY);
    this.#took.fill(Number.NaN);
    kept.forEach(([from, admittedAt, took], i) => {
      this.#ring[i] = from;
      this.#admittedAt[i] = admittedAt;
      this.#took[i] = took;
    });
    this.#ringAt = kept.length % k;
  }

  /** Spacing, burst tolerance and window from the rate and the current margin. */
  #space(): void {
    const rate = this.settings.requestsPerSecond;
    this.#interval = Number.isFinite(rate) ? (1000 / rate) * (1 + this.#headroom) : 0;
    this.#tolerance = (this.#burst - 1) * this.#interval;
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
   * path; {@link admission} is then this one), else a promise that resolves with the admission.
   * Every admission must be followed by exactly one {@link release}.
   * @param priority Put the request at the head of the queue (a retry, which has waited already).
   * @param signal Aborts the wait; the promise then rejects with the signal's reason.
   */
  acquire(priority = false, signal?: AbortSignal): Promise<Admission> | undefined {
    if (this.#head === this.#queue.length && this.#tryAdmit(false)) return undefined;
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise<Admission>((resolve, reject) => {
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

  /** The last admission: what a synchronous {@link acquire} admitted, read at once. */
  get admission(): Admission {
    return { slot: this.#lastSlot, at: this.#lastAt };
  }

  /**
   * The request admitted as `a` was answered (its response's headers) at `answeredAt`
   * (`performance.now()`): it reached the server no later than that. Slower than the quickest
   * answer so far, it left late by at most the difference, and counts in the window from then; when
   * an answer is the quickest yet, the requests of the window are counted again from it.
   */
  answered(a: Admission, answeredAt: number): void {
    const k = this.#ring.length;
    if (k === 0 || a.slot < 0 || this.#admittedAt[a.slot] !== a.at) return;
    const took = answeredAt - a.at;
    this.#took[a.slot] = took;
    if (took < this.#quickest) {
      this.#quickest = took;
      for (let i = 0; i < k; i++) {
        const t = this.#took[i]!;
        if (!Number.isNaN(t)) this.#ring[i] = this.#admittedAt[i]! + (t - took);
      }
      return;
    }
    this.#ring[a.slot] = a.at + (took - this.#quickest);
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
   * the server's window or the network's jitter needs more room than the margin gave; and it turns
   * bursting off: the server may be one that spaces requests itself.
   */
  pause(ms: number): void {
    const t = now();
    const until = t + ms;
    if (until <= this.#pause.until) return;
    const fresh = this.#pause.until <= t;
    this.#pause.until = until;
    for (const l of this.#pause.members) {
      if (fresh && l.#interval > 0 && (l.#headroom < MAX_RATE_HEADROOM || l.#burst > 1)) {
        l.#headroom = Math.min(MAX_RATE_HEADROOM, l.#headroom + RATE_HEADROOM);
        l.#burst = 1;
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
      this.#admittedAt[this.#ringAt] = t;
      this.#took[this.#ringAt] = Number.NaN;
      this.#lastSlot = this.#ringAt;
      this.#lastAt = t;
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
      w.resolve(this.admission);
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

/** States given by {@link seedLimiters}, by origin, for the limiters made after. */
const seeds = new Map<string, LimiterState>();

/**
 * The state of every shared limiter, by origin ({@link RateLimiter.state}); the limiters of one
 * origin (its pause's members) merged: every admission, the latest pause and schedule, the
 * widest margin, bursting off if any is. An origin with nothing to hand on is left out.
 */
export function limiterStates(): Record<string, LimiterState> {
  const out: Record<string, LimiterState> = {};
  for (const [origin, { members }] of pauses) {
    const states = [...members].map((l) => l.state(false));
    // What another process handed on is in every limiter it was given to: it goes on once.
    const since = performance.timeOrigin + now() - Math.max(0, ...[...members].map((l) => l.windowMs));
    const seeded = (seeds.get(origin)?.admitted ?? []).filter((at) => at > since);
    const s: LimiterState = {
      admitted: [...states.flatMap((x) => x.admitted), ...seeded].sort((a, b) => a - b),
      pausedUntil: Math.max(0, ...states.map((x) => x.pausedUntil)),
      schedule: Math.max(0, ...states.map((x) => x.schedule)),
      headroom: Math.max(RATE_HEADROOM, ...states.map((x) => x.headroom)),
      burstOff: states.some((x) => x.burstOff),
    };
    const handsOn =
      s.admitted.length > 0 ||
      s.pausedUntil > 0 ||
      s.schedule > 0 ||
      s.burstOff ||
      s.headroom > RATE_HEADROOM;
    if (handsOn) out[origin] = s;
  }
  return out;
}

/**
 * Goes on from another process's {@link limiterStates}: each origin's limiters, those there are
 * and those made later, are seeded with its state ({@link RateLimiter.seed}).
 */
export function seedLimiters(states: Record<string, LimiterState>): void {
  for (const [origin, s] of Object.entries(states)) {
    seeds.set(origin, s);
    for (const limiter of pauses.get(origin)?.members ?? []) limiter.seed(s);
  }
}

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
    const seed = seeds.get(origin);
    if (seed !== undefined) limiter.seed(seed);
    limiters.set(key, limiter);
  }
  return limiter;
}
