/**
 * What one provider process of a run leaves the next. Terraform and OpenTofu run one command as
 * several provider processes in a row (validate, the plan's walk, a destroy's plan, the apply:
 * `../terraform/plugin.ts`); what one of them learnt about the service is gone when it exits,
 * unless it writes it down. A hand-over is one JSON file of entries by key, beside this machine's
 * other notes (`~/.flagstack`, `./created-journal.ts`: a directory of the user's own, not a shared
 * temporary one another user could plant a file in), each entry kept for a while after the newest
 * moment it speaks of: the rate limit's last window (`./rate-ledger.ts`) and the owner gate's
 * reads (`./gate-ledger.ts`).
 *
 * A file that cannot be read or written costs the next process what it would have been spared,
 * nothing else: it is written whole by a rename, so a start never reads half of one, and a
 * malformed entry is skipped.
 * @module
 */
import { mkdirSync, readFileSync, renameSync, unlinkSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";

/** One kind of hand-over: its file, how an entry is read back, and how long one is kept. */
export interface HandOver<T> {
  /** The file; `undefined` when this hand-over is off. */
  path: string | undefined;
  /** The entry as read from the file, or `undefined` when it is malformed (skipped). */
  accept(raw: unknown): T | undefined;
  /** The newest moment (ms since the epoch) the entry speaks of. */
  lastOf(entry: T): number;
  /** How long after {@link lastOf} an entry is kept. */
  ttlMs: number;
}

/** The young, well-formed entries of the hand-over's file (none when it is missing, unreadable or off). */
export function readHandOver<T>(h: HandOver<T>, now = Date.now()): Record<string, T> {
  const out: Record<string, T> = {};
  if (h.path === undefined) return out;
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(h.path, "utf8"));
  } catch {
    return out;
  }
  if (typeof parsed !== "object" || parsed === null) return out;
  for (const [key, raw] of Object.entries(parsed as Record<string, unknown>)) {
    const entry = h.accept(raw);
    if (entry !== undefined && h.lastOf(entry) > now - h.ttlMs) out[key] = entry;
  }
  return out;
}

/**
 * Writes `entries` into the hand-over's file, keeping the other keys' young entries (another
 * process may have written them); whole, by a rename.
 */
export function writeHandOver<T>(h: HandOver<T>, entries: Record<string, T>, now = Date.now()): void {
  if (h.path === undefined) return;
  const merged = { ...readHandOver(h, now), ...entries };
  const temporary = `${h.path}.${process.pid}`;
  try {
    mkdirSync(dirname(h.path), { recursive: true, mode: 0o700 });
    writeFileSync(temporary, JSON.stringify(merged), { mode: 0o600, flag: "wx" });
    renameSync(temporary, h.path);
  } catch {
    try {
      unlinkSync(temporary);
    } catch {
      // nothing was written
    }
  }
}

/**
 * Goes on from the previous process: gives `seed` what the file holds now, and writes what
 * `collect` gives when this process exits (only when it gives anything).
 */
export function carryOver<T>(
  h: HandOver<T>,
  seed: (entries: Record<string, T>) => void,
  collect: () => Record<string, T>,
): void {
  if (h.path === undefined) return;
  const entries = readHandOver(h);
  if (Object.keys(entries).length > 0) seed(entries);
  process.once("exit", () => {
    const mine = collect();
    if (Object.keys(mine).length > 0) writeHandOver(h, mine);
  });
}
