/**
 * The client-side rate limit across the processes of one run. Terraform and OpenTofu run one
 * command as several provider processes, one after another (validate, the plan's walk, a destroy's
 * plan, the apply: `../terraform/plugin.ts`), each with limiters of its own, while the limit is the
 * server's. A limiter lets one second's budget through at once after an idle second
 * (`sdk/core/rate-limiter.ts`); a process that started right after another's burst would send a
 * second one into the same server window. So each process hands on what its limiters admitted in
 * their last window, their pause and their margin ({@link carryRateLimits}): written when it exits,
 * to one file beside this machine's other notes (`./hand-over.ts`), and read when the next one
 * starts.
 * What a process reads counts in its limiters' windows, so two bursts are always a window apart.
 *
 * The file holds, by origin (the API's base URL), only times and the limiter's margin; an origin's
 * entry is dropped a minute after its last admission. A file that cannot be read or written costs
 * a start its head start, nothing else. `FLAGSTACK_RATE_LEDGER` names another file, or `off`.
 * @module
 */
import { join } from "node:path";
import { type LimiterState, limiterStates, seedLimiters } from "../../sdk/core/rate-limiter";
import { journalDir } from "./created-journal";
import { carryOver, type HandOver, readHandOver, writeHandOver } from "./hand-over";

/** How long an origin's entry is kept after its last admission or pause (a run's processes are seconds apart). */
export const LEDGER_TTL_MS = 60_000;

/** The ledger's file: `FLAGSTACK_RATE_LEDGER`, else `rate-limits.json` in the notes' directory; `undefined` when off. */
export function ledgerPath(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const set = env.FLAGSTACK_RATE_LEDGER;
  if (set === "off") return undefined;
  if (set) return set;
  return join(journalDir(), "rate-limits.json");
}

/** The newest moment an entry speaks of: its last admission, its schedule or the end of its pause. */
const lastOf = (s: LimiterState): number =>
  Math.max(s.pausedUntil, s.schedule, s.admitted[s.admitted.length - 1] ?? 0);

/** A limiter's state as read from the file, or `undefined` when any field is malformed. */
function accept(raw: unknown): LimiterState | undefined {
  const s = raw as Partial<LimiterState> | null;
  if (
    !Array.isArray(s?.admitted) ||
    !s.admitted.every((t) => typeof t === "number" && Number.isFinite(t)) ||
    typeof s.pausedUntil !== "number" ||
    typeof s.schedule !== "number" ||
    typeof s.headroom !== "number" ||
    typeof s.burstOff !== "boolean"
  )
    return undefined;
  return {
    admitted: s.admitted,
    pausedUntil: s.pausedUntil,
    schedule: s.schedule,
    headroom: s.headroom,
    burstOff: s.burstOff,
  };
}

/** The rate limit's hand-over at `path` (`./hand-over.ts`). */
const ledger = (path: string | undefined): HandOver<LimiterState> => ({
  path,
  accept,
  lastOf,
  ttlMs: LEDGER_TTL_MS,
});

/** The entries of the ledger at `path` that are younger than {@link LEDGER_TTL_MS} (none when it is missing or unreadable). */
export function readLedger(path: string, now = Date.now()): Record<string, LimiterState> {
  return readHandOver(ledger(path), now);
}

/**
 * Writes `states` into the ledger at `path`, keeping the other origins' young entries (another
 * process may have written them); whole, by a rename, so that a start never reads half of it.
 */
export function writeLedger(path: string, states: Record<string, LimiterState>, now = Date.now()): void {
  writeHandOver(ledger(path), states, now);
}

/**
 * Goes on from the previous process of the run: seeds this process's limiters from the ledger
 * now, and writes theirs into it when the process exits (only when they admitted anything).
 */
export function carryRateLimits(path = ledgerPath()): void {
  carryOver(ledger(path), seedLimiters, limiterStates);
}
