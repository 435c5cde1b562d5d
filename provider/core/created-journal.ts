/**
 * What a create's answer showed once, noted on this machine for `flagstack recover`.
 *
 * Some creates answer with what no later read shows: an API key's id (the API cannot find a key
 * by its name) and an environment's SDK keys, which the service makes with it (the admin API has
 * no read or list of keys, ref admin §1.1, and refuses to delete an environment while they exist,
 * §1.2). When `pulumi up` is killed after the service answered but before the engine recorded
 * the answer, only the provider process saw it: the key could not be found, and the environment
 * adopted by `flagstack recover` could never be deleted. So such a create notes the ids in
 * its answer here before it returns (and the provider process, whose engine is gone, waits for
 * it: `./host.ts` {@link holdExit}), and `recover` reads them back.
 *
 * Only ids and names are noted, never a key or any other secret (an id revokes nothing without
 * an admin key). The journal is one JSON line per create in `created.jsonl` under
 * `$FLAGSTACK_JOURNAL_DIR`, by default `~/.flagstack`; when it grows past
 * {@link JOURNAL_PRUNE_BYTES}, notes older than {@link JOURNAL_DAYS} days are dropped and at most
 * the newest {@link JOURNAL_MAX_NOTES} kept. Noting is best effort: a create
 * never fails because the journal cannot be written.
 * @module
 */
import {
  appendFileSync,
  closeSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readFileSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { holdExit } from "./host";

/** How long a note is kept, in days. */
export const JOURNAL_DAYS = 30;
/** The journal's size past which old notes are dropped. */
export const JOURNAL_PRUNE_BYTES = 256 * 1024;
/** The most notes kept when the journal is pruned (the newest). */
export const JOURNAL_MAX_NOTES = 1000;

/** One note: the kind, the object's id, when, and what the answer showed. */
interface Note {
  kind: string;
  id: string;
  at: string;
  data: Record<string, unknown>;
}

/** The directory of this machine's notes: `$FLAGSTACK_JOURNAL_DIR`, by default `~/.flagstack`. */
export function journalDir(): string {
  return process.env.FLAGSTACK_JOURNAL_DIR || join(homedir(), ".flagstack");
}

/** The journal file. */
export function journalPath(): string {
  return join(journalDir(), "created.jsonl");
}

/** The JSON lines of a file of this machine's notes (none when it does not exist; a line cut by a crash is skipped). */
export function readJsonLines<T>(path: string): T[] {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    return [];
  }
  return text.split("\n").flatMap((line) => {
    try {
      return line.trim() === "" ? [] : [JSON.parse(line) as T];
    } catch {
      return []; // a line cut by a crash: the others stand
    }
  });
}

const readNotes = (path: string): Note[] => readJsonLines<Note>(path);

/** Notes what the create of the `kind` object `id` answered (ids only, never a secret). */
export function noteCreated(kind: string, id: string, data: Record<string, unknown>, now = new Date()): void {
  const path = journalPath();
  try {
    mkdirSync(join(path, ".."), { recursive: true, mode: 0o700 });
    const note: Note = { kind, id, at: now.toISOString(), data };
    if (statSize(path) > JOURNAL_PRUNE_BYTES) {
      const cutoff = now.getTime() - JOURNAL_DAYS * 86_400_000;
      const kept = readNotes(path)
        .filter((n) => Date.parse(n.at) >= cutoff)
        .slice(-JOURNAL_MAX_NOTES);
      writeFileSync(path, kept.map((n) => `${JSON.stringify(n)}\n`).join(""), { mode: 0o600 });
    }
    appendFileSync(path, `${JSON.stringify(note)}\n`, { mode: 0o600 });
    const fd = openSync(path, "r");
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    // best effort: see the module notes
  }
}

function statSize(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

/** What the create of the `kind` object `id` answered, from its latest note; `undefined` when none. */
export function createdNote(kind: string, id: string): Record<string, unknown> | undefined {
  const notes = readNotes(journalPath()).filter((n) => n.kind === kind && n.id === id);
  return notes[notes.length - 1]?.data;
}

/**
 * The latest note of `kind` whose data `match` accepts, with its id and when it was noted (epoch
 * milliseconds): how `flagstack recover` finds an object that no API call can find by its name
 * (an API key).
 */
export function findNote(
  kind: string,
  match: (data: Record<string, unknown>) => boolean,
): { id: string; at: number; data: Record<string, unknown> } | undefined {
  const notes = readNotes(journalPath()).filter(
    (n) => n.kind === kind && typeof n.data === "object" && n.data !== null && match(n.data),
  );
  const last = notes[notes.length - 1];
  return last && { id: last.id, at: Date.parse(last.at), data: last.data };
}

/**
 * Runs a create whose answer shows what no read shows again, and notes `note(answer)` before
 * returning it; the provider process does not end (its engine gone) while it runs.
 */
export function createNoted<T>(
  kind: string,
  create: () => Promise<T>,
  note: (answer: T) => { id: string; data: Record<string, unknown> },
): Promise<T> {
  return holdExit(
    create().then((answer) => {
      const { id, data } = note(answer);
      noteCreated(kind, id, data);
      return answer;
    }),
  );
}
