/**
 * The journal of what creates answered once (provider/core/created-journal.ts): a note is read back
 * by kind and id (the latest wins), a line cut by a crash does not hide the others, old notes go
 * when the file grows, the file is the user's alone, and a journal that cannot be written never
 * fails a create.
 */
import { appendFileSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createdNote,
  createNoted,
  JOURNAL_MAX_NOTES,
  JOURNAL_PRUNE_BYTES,
  journalPath,
  noteCreated,
} from "../../../provider/core/created-journal";

let dir: string;
let saved: string | undefined;
beforeAll(() => {
  saved = process.env.FLAGSTACK_JOURNAL_DIR;
  dir = mkdtempSync(join(tmpdir(), "flagstack-journal-test-"));
});
afterAll(() => {
  if (saved === undefined) delete process.env.FLAGSTACK_JOURNAL_DIR;
  else process.env.FLAGSTACK_JOURNAL_DIR = saved;
  rmSync(dir, { recursive: true, force: true });
});

describe("created-journal", () => {
  it("reads a note back by kind and id, the latest of them; the file is readable by its owner only", () => {
    process.env.FLAGSTACK_JOURNAL_DIR = join(dir, "a");
    expect(journalPath()).toBe(join(dir, "a", "created.jsonl"));
    expect(createdNote("environment", "e1")).toBeUndefined();
    noteCreated("environment", "e1", { apiTokens: [{ id: "k1" }] });
    noteCreated("environment", "e2", { apiTokens: [{ id: "k2" }] });
    noteCreated("apiKey", "e1", { other: true });
    noteCreated("environment", "e1", { apiTokens: [{ id: "k3" }] });
    appendFileSync(journalPath(), '{"kind":"environment","id":"e1","at":"2026-');
    expect(createdNote("environment", "e1")).toEqual({ apiTokens: [{ id: "k3" }] });
    expect(createdNote("environment", "e2")).toEqual({ apiTokens: [{ id: "k2" }] });
    expect(statSync(journalPath()).mode & 0o777).toBe(0o600);
  });

  it("drops notes older than 30 days once the file is past its size bound", () => {
    process.env.FLAGSTACK_JOURNAL_DIR = join(dir, "b");
    noteCreated("environment", "old", { n: 1 }, new Date("2026-01-01T00:00:00Z"));
    const filler = `${JSON.stringify({ kind: "x", id: "y", at: "2026-01-02T00:00:00Z", data: {} })}\n`;
    appendFileSync(journalPath(), filler.repeat(Math.ceil(JOURNAL_PRUNE_BYTES / filler.length) + 1));
    noteCreated("environment", "recent", { n: 2 }, new Date("2026-03-01T00:00:00Z"));
    expect(createdNote("environment", "old")).toBeUndefined();
    expect(
      readFileSync(journalPath(), "utf8")
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l).id),
    ).toEqual(["recent"]);
  });

  it("keeps at most the newest notes when pruning", () => {
    process.env.FLAGSTACK_JOURNAL_DIR = join(dir, "d");
    const at = "2026-03-01T00:00:00Z";
    const pad = "x".repeat(400);
    const lines = Array.from(
      { length: JOURNAL_MAX_NOTES + 10 },
      (_, i) => `${JSON.stringify({ kind: "environment", id: `e${i}`, at, data: { pad } })}\n`,
    );
    noteCreated("environment", "first", {}, new Date(at));
    appendFileSync(journalPath(), lines.join(""));
    noteCreated("environment", "last", {}, new Date(at));
    const ids = readFileSync(journalPath(), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l).id);
    expect(ids.length).toBe(JOURNAL_MAX_NOTES + 1);
    expect(ids[0]).toBe("e10");
    expect(ids[ids.length - 1]).toBe("last");
  });

  it("never fails a create: a journal that cannot be written is skipped", async () => {
    const blocker = join(dir, "not-a-directory");
    writeFileSync(blocker, "");
    process.env.FLAGSTACK_JOURNAL_DIR = blocker;
    expect(() => noteCreated("environment", "e", {})).not.toThrow();
    expect(
      await createNoted(
        "environment",
        async () => ({ id: "e9" }),
        (made) => ({ id: made.id, data: {} }),
      ),
    ).toEqual({ id: "e9" });
  });

  it("createNoted notes the answer before returning it, and not a failed create", async () => {
    process.env.FLAGSTACK_JOURNAL_DIR = join(dir, "c");
    const made = await createNoted(
      "environment",
      async () => ({ id: "e5", keys: [{ id: "k5" }] }),
      (answer) => ({ id: answer.id, data: { apiTokens: answer.keys } }),
    );
    expect(made).toEqual({ id: "e5", keys: [{ id: "k5" }] });
    expect(createdNote("environment", "e5")).toEqual({ apiTokens: [{ id: "k5" }] });
    await expect(
      createNoted(
        "environment",
        async () => {
          throw new Error("refused");
        },
        () => ({ id: "e6", data: {} }),
      ),
    ).rejects.toThrow("refused");
    expect(createdNote("environment", "e6")).toBeUndefined();
  });
});
