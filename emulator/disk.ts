/**
 * How the emulator's files reach the disk: the state file (replaced atomically) and the event log
 * (appended), both written through {@link diskIo}, and the resolution of a state path to the file
 * it really names.
 *
 * A write either lands whole or leaves the file as it was: the state file is written to a
 * temporary file beside the real one, synced and renamed over it (the temporary file is removed
 * when any step fails); an append that fails is cut back to the old length, so a full disk never
 * leaves half a batch in the log.
 * @module
 */
import { lstatSync, readlinkSync, realpathSync } from "node:fs";
import { type FileHandle, open, rename, truncate, unlink } from "node:fs/promises";
import { basename, dirname, join, resolve } from "node:path";

/**
 * The one place where the emulator's bytes go to disk: every write of the state file and of the
 * event log calls `diskIo.write`.
 *
 * Test seam: a test replaces `write` (`vi.spyOn(diskIo, "write")`) to make the real write path
 * fail as a full disk does, for example by writing part of the data and then throwing an `ENOSPC`
 * error; everything after it (cleanup, rollback, the client's error) is the production code.
 * Nothing else may change it.
 */
export const diskIo = {
  /** Writes all of `data` at the handle's position (the end, for a file opened to append). */
  write: async (file: FileHandle, data: string): Promise<void> => {
    await file.writeFile(data);
  },
};

/** Most symlinks followed by hand for a state path whose target does not exist yet (as ELOOP). */
const MAX_LINKS = 40;

/**
 * The file a state path really names: symlinks resolved, so that the lock, the temporary file and
 * the rename all act on the target (a symlinked state file stays a symlink, and two paths to the
 * same file share one lock). A path that does not exist yet is resolved through its directory;
 * a dangling symlink is followed to the file it will create.
 */
export function realFilePath(path: string): string {
  let p = resolve(path);
  try {
    return realpathSync(p);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
  }
  for (let i = 0; i < MAX_LINKS; i++) {
    let link: string;
    try {
      if (!lstatSync(p).isSymbolicLink()) break;
      link = readlinkSync(p);
    } catch {
      break;
    }
    p = resolve(dirname(p), link);
  }
  try {
    return join(realpathSync(dirname(p)), basename(p));
  } catch {
    return p;
  }
}

/**
 * Writes `text` to `path` opened with `flags` (`w` a new file, `a` the end of one) through
 * {@link diskIo} and syncs it before closing: `fsync` for a new file, which a rename is about to
 * make the state file; `fdatasync` (data and length) for an append.
 */
async function writeSynced(path: string, flags: "w" | "a", text: string): Promise<void> {
  const file = await open(path, flags);
  try {
    await diskIo.write(file, text);
    await (flags === "w" ? file.sync() : file.datasync());
  } finally {
    await file.close();
  }
}

/**
 * Replaces `path` (a real path, see {@link realFilePath}) with `text`: temporary file in the same
 * directory, write, fsync, rename. On any failure the temporary file is removed and `path` is
 * left as it was.
 */
export async function replaceFile(path: string, text: string): Promise<void> {
  const tmp = `${path}.tmp-${process.pid}`;
  try {
    await writeSynced(tmp, "w", text);
    await rename(tmp, path);
  } catch (e) {
    await unlink(tmp).catch(() => undefined);
    throw e;
  }
}

/**
 * Appends `text` to `path`, whose current length is `length`, and syncs it. On failure the file is
 * cut back to `length` (a full disk may have taken part of the text) and the error is rethrown.
 * @returns the new length
 */
export async function appendToFile(path: string, text: string, length: number): Promise<number> {
  try {
    await writeSynced(path, "a", text);
  } catch (e) {
    await truncate(path, length).catch(() => undefined);
    throw e;
  }
  return length + Buffer.byteLength(text);
}
