/**
 * Whether a process exists: the one test behind every lock of the project (the emulator's state
 * file, the event import's journal, a killed `pulumi up`'s stack lock), so a lock left by a dead
 * process can be told from one that is held.
 * @module
 */

/** True when a process with this pid exists (one we may not signal counts: it exists). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}
