/**
 * The write of a guarded update, guarded on the wire too: where the API takes the entity's version
 * as `If-Match` (platform pipelines, projects and the NG CD entities, ref platform-api-behaviour
 * §1, §4, §6.2), the update sends the version it read, so an edit landing between that read and
 * the PUT makes the service refuse the PUT instead of being overwritten (`./guard.ts` closes the
 * window before the read; this closes the one after it). The refusal becomes
 * {@link ChangedDuringUpdateError}, naming the object and the fix.
 * @module
 */
import { ApiError } from "../../sdk/core/errors";
import { door } from "./door";

/**
 * How the service refuses a stale `If-Match`: 400 OPTIMISTIC_LOCKING_EXCEPTION (pipelines,
 * projects, input sets, triggers, ref §2), or for the NG CD entities (services, environments) an
 * INVALID_REQUEST saying it "couldn't be updated or doesn't exist." (the version is part of the
 * update's criteria, so a stale one matches no document; harness-core `ServiceEntityServiceImpl`).
 */
export function isStaleVersion(e: unknown): boolean {
  if (!ApiError.isInstance(e)) return false;
  if (e.code === "OPTIMISTIC_LOCKING_EXCEPTION") return true;
  return e.code === "INVALID_REQUEST" && /couldn't be updated or doesn't exist/.test(e.message);
}

/** How an update fails when the object changed between its read and its write. */
export class ChangedDuringUpdateError extends Error {
  /** The version the update read and sent as `If-Match`. */
  readonly version: number;
  constructor(describe: string, version: number, cause: unknown) {
    const words = door();
    super(
      `${describe} was changed outside ${words.tool} while this update ran (after it read version ${version}, ` +
        `before its write); the service refused the write, so nothing was overwritten. Run ${words.refresh} ` +
        `to record the live values (the next ${words.preview} then shows exactly what ${words.apply} will change), ` +
        `or ${words.applyRefreshing}.`,
      { cause },
    );
    this.name = "ChangedDuringUpdateError";
    this.version = version;
  }
}

/**
 * Runs `write` with `ifMatch` (the version read, or recorded when nothing was read); a refusal of
 * that version becomes {@link ChangedDuringUpdateError}. Without a version the write runs
 * unguarded, as before (an object recorded before versions were kept).
 */
export async function writeIfMatch<T>(
  describe: string,
  ifMatch: number | undefined,
  write: (ifMatch: number | undefined) => Promise<T>,
): Promise<T> {
  try {
    return await write(ifMatch);
  } catch (e) {
    if (ifMatch !== undefined && isStaleVersion(e)) throw new ChangedDuringUpdateError(describe, ifMatch, e);
    throw e;
  }
}
