/**
 * The deletes a Terraform run lets the service do: a resource that lives inside another and that
 * the service deletes with it (a flag's definitions, a segment's members in each environment: the
 * kinds whose resource class names an `owner`, which Pulumi destroys with `deletedWith`) is not
 * deleted separately when its owner is deleted in the same run.
 *
 * Terraform destroys dependents first, and the protocol tells a provider nothing of the rest of
 * the run: when a definition's delete arrives, whether its flag's follows is not known, in the
 * plan (the plan of the definition's destroy comes before its flag's, OpenTofu
 * `internal/tofu/transform_destroy_edge.go`) nor in the apply. So the provider process holds the
 * delete back instead of sending it, and answers it done; then
 * - the owner's delete in the same process (the same provider configuration, the same run) does
 *   it: the owner's one DELETE removes what it holds, and the held deletes are dropped;
 * - an owner's delete that fails sends the held deletes of that owner at once, each the kind's own
 *   delete, and reports their failures with the owner's;
 * - any create or update sends every held delete first (a replaced definition is created again
 *   only once the old one is gone);
 * - the end of the run (go-plugin's `Shutdown`, which Terraform calls when the apply walk is done
 *   and waits for) sends the rest, each the kind's own delete. The run can no longer report a
 *   failure there (the protocol has no answer left to carry it, and the state no longer holds the
 *   object), so each failure is noted on this machine ({@link noteFailedHeldDeletes}) and the next
 *   run in the same directory reports it as a warning when it configures the provider
 *   ({@link takeFailedHeldDeletes}): the object may still exist, and nothing says so otherwise.
 * - a process whose run ended without `Shutdown` (`tofu` killed: `./parent-watch.ts`) drops what it
 *   holds ({@link HeldDeletes.drop}) and names it in its last log line: an orphan sends nothing,
 *   since no run is there to record or report it, and the object stays on the service.
 * A held delete is only one whose environment (each of them, for a flag's definitions in several)
 * requires no approvals (one dry-run read per environment and process, which the owner's delete
 * reads anyway, or handed over by the destroy's plan: `../core/gate-ledger.ts`): behind an
 * approval gate the kind's own delete runs at once, so a change request it needs fails the apply
 * and keeps the resource in the state, as in Pulumi.
 * @module
 */
import { mkdirSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { journalDir, readJsonLines } from "../core/created-journal";

/**
 * The environments whose approval gates decide whether an object's delete may be held: its
 * `environmentId` (a definition), or each of its `environments` (a flag's definitions in several
 * environments, `FlagDefinitions`); `undefined` when the state names none.
 */
export function heldEnvironments(olds: Readonly<Record<string, unknown>>): string[] | undefined {
  if (typeof olds.environmentId === "string") return [olds.environmentId];
  const entries = olds.environments;
  if (entries === null || typeof entries !== "object") return undefined;
  const ids = Object.values(entries).map((e) => (e as { environmentId?: unknown } | null)?.environmentId);
  return ids.length > 0 && ids.every((id) => typeof id === "string") ? (ids as string[]) : undefined;
}

/** A delete held back until its owner's. */
interface Held {
  /** `flag_definition <id>`, for messages. */
  describe: string;
  /** The kind's own delete. */
  run: () => Promise<void>;
}

/** The held deletes of one provider process, by owner. */
export class HeldDeletes {
  private readonly byOwner = new Map<string, Held[]>();

  /** The key of an owner: its type token, workspace id and name. */
  static key(ownerType: string, workspaceId: unknown, name: unknown): string | undefined {
    if (typeof workspaceId !== "string" || typeof name !== "string" || !workspaceId || !name)
      return undefined;
    return `${ownerType}\u0000${workspaceId}\u0000${name}`;
  }

  /** Holds a delete back until its owner's, or the end of the run. */
  hold(ownerKey: string, held: Held): void {
    const list = this.byOwner.get(ownerKey) ?? [];
    list.push(held);
    this.byOwner.set(ownerKey, list);
  }

  /** How many deletes are held (for tests). */
  get size(): number {
    let n = 0;
    for (const list of this.byOwner.values()) n += list.length;
    return n;
  }

  /** The owner's delete succeeded: what it held went with it. */
  done(ownerKey: string): void {
    this.byOwner.delete(ownerKey);
  }

  /** Forgets every held delete, sending none (the run is gone); what they were, as `flag_definition <id>`. */
  drop(): string[] {
    const dropped = [...this.byOwner.values()].flatMap((list) => list.map((h) => h.describe));
    this.byOwner.clear();
    return dropped;
  }

  /** Sends the held deletes (of one owner, or all), each the kind's own; the failures, as messages. */
  async send(ownerKey?: string): Promise<string[]> {
    const keys = ownerKey === undefined ? [...this.byOwner.keys()] : [ownerKey];
    const held = keys.flatMap((k) => {
      const list = this.byOwner.get(k) ?? [];
      this.byOwner.delete(k);
      return list;
    });
    const failures: string[] = [];
    for (const h of held) {
      try {
        await h.run();
      } catch (e) {
        failures.push(`${h.describe}: ${e instanceof Error ? e.message : String(e)}`);
      }
    }
    return failures;
  }
}

/** A held delete sent at the end of a run that failed: when, in which configuration directory, and the failure. */
export interface FailedHeldDelete {
  at: string;
  dir: string;
  failure: string;
}

/** The file of the failed held deletes not reported yet (one JSON line each), beside the create journal. */
export const failedHeldDeletesPath = (): string => join(journalDir(), "held-deletes.jsonl");

const readFailed = (path: string): FailedHeldDelete[] => readJsonLines<FailedHeldDelete>(path);

/** Writes the notes whole (a temporary file renamed over the old one), or removes the file's content. */
function writeFailed(path: string, notes: readonly FailedHeldDelete[]): void {
  mkdirSync(join(path, ".."), { recursive: true, mode: 0o700 });
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, notes.map((n) => `${JSON.stringify(n)}\n`).join(""), { mode: 0o600 });
  renameSync(tmp, path);
}

/** Notes the failures of the held deletes sent at the end of a run in `dir` (best effort: never throws). */
export function noteFailedHeldDeletes(
  failures: readonly string[],
  dir = process.cwd(),
  now = new Date(),
): void {
  if (failures.length === 0) return;
  try {
    const path = failedHeldDeletesPath();
    const at = now.toISOString();
    writeFailed(path, [...readFailed(path), ...failures.map((failure) => ({ at, dir, failure }))]);
  } catch {
    // best effort: the failure is also logged
  }
}

/** The failed held deletes noted for `dir`, which are then forgotten (each is reported once); the others stay. */
export function takeFailedHeldDeletes(dir = process.cwd()): FailedHeldDelete[] {
  try {
    const path = failedHeldDeletesPath();
    const notes = readFailed(path);
    const mine = notes.filter((n) => n.dir === dir);
    if (mine.length > 0)
      writeFailed(
        path,
        notes.filter((n) => n.dir !== dir),
      );
    return mine;
  } catch {
    return [];
  }
}
