import { spawnSync } from "node:child_process";
import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  checkCompatible,
  fingerprintFile,
  Journal,
  type JournalEntry,
  JournalError,
  type JournalHeader,
  readJournal,
} from "../../../../sdk/events/import/journal";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "journal-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const header = (over: Partial<JournalHeader> = {}): JournalHeader => ({
  journal: "flagstack-events-import",
  version: 1,
  input: "/data/events.ndjson",
  format: "ndjson",
  batchSize: 1000,
  maxBatchBytes: 4194304,
  fingerprint: { size: 10, sha256: "abc" },
  createdAt: "2026-01-01T00:00:00.000Z",
  ...over,
});
const entry = (batch: number, status: JournalEntry["status"]): JournalEntry => ({
  batch,
  firstLine: batch * 10 + 1,
  lastLine: batch * 10 + 10,
  count: 10,
  status,
  hash: `h${batch}`,
});

describe("Journal", () => {
  it("writes the header, appends entries and reads back the last status of each batch", async () => {
    const path = join(dir, "j");
    const j = await Journal.open(path, header());
    expect(existsSync(`${path}.lock`)).toBe(true);
    await Promise.all([j.append(entry(0, "sent")), j.append(entry(1, "sent"))]);
    await j.append(entry(0, "acked"));
    await j.append(entry(1, "unknown"));
    await j.close();
    expect(existsSync(`${path}.lock`)).toBe(false);
    const lines = readFileSync(path, "utf8")
      .trimEnd()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines).toEqual([
      header(),
      entry(0, "sent"),
      entry(1, "sent"),
      entry(0, "acked"),
      entry(1, "unknown"),
    ]);
    const read = await readJournal(path);
    expect(read?.header).toEqual(header());
    expect([...read!.batches.values()]).toEqual([entry(0, "acked"), entry(1, "unknown")]);
    expect(read?.tornTail).toBe(false);
  });

  it("tolerates a torn last line and keeps it apart from the next entry", async () => {
    const path = join(dir, "j");
    writeFileSync(
      path,
      `${JSON.stringify(header())}\n${JSON.stringify(entry(0, "sent"))}\n{"batch":0,"first`,
    );
    const read = await readJournal(path);
    expect(read?.tornTail).toBe(true);
    expect([...read!.batches.values()]).toEqual([entry(0, "sent")]);
    const j = await Journal.open(path, header({ createdAt: "later" }));
    await j.append(entry(0, "acked"));
    await j.close();
    const again = await readJournal(path);
    expect([...again!.batches.values()]).toEqual([entry(0, "acked")]);
    expect(again?.header.createdAt).toBe("2026-01-01T00:00:00.000Z");
  });

  it("refuses a corrupt line in the middle", async () => {
    const path = join(dir, "j");
    writeFileSync(path, `${JSON.stringify(header())}\n{oops\n${JSON.stringify(entry(0, "sent"))}\n`);
    await expect(readJournal(path)).rejects.toMatchObject({
      name: "JournalError",
      message: `${path}: line 2 is not valid JSON; the journal is corrupt`,
    });
  });

  it("refuses a file that is not a journal", async () => {
    const path = join(dir, "j");
    writeFileSync(path, '{"hello":1}\n');
    await expect(readJournal(path)).rejects.toMatchObject({
      message: `${path} is not an event import journal (its first line is not a journal header)`,
    });
  });

  it("restarts a journal that holds no batch, whatever its settings", async () => {
    const path = join(dir, "j");
    writeFileSync(path, `${JSON.stringify(header({ batchSize: 7 }))}\n`);
    const j = await Journal.open(path, header());
    await j.close();
    expect((await readJournal(path))?.header.batchSize).toBe(1000);
  });

  it("refuses to resume with other settings", async () => {
    const path = join(dir, "j");
    writeFileSync(
      path,
      `${JSON.stringify(header({ batchSize: 500 }))}\n${JSON.stringify(entry(0, "acked"))}\n`,
    );
    await expect(Journal.open(path, header())).rejects.toMatchObject({
      name: "JournalError",
      message:
        `The journal ${path} was written with --batch-size 500 (this run: 1000). Batches depend on these settings: re-run with --batch-size 500 to resume. ` +
        `Resuming could skip records that were never sent or send acknowledged ones again, so nothing was sent. To start over, move ${path} away (batches it lists as acknowledged would then be sent again).`,
    });
    expect(existsSync(`${path}.lock`)).toBe(false);
  });

  it.each([
    [{ fingerprint: { size: 11, sha256: "abc" } }, "its size went from 10 to 11 bytes"],
    [{ fingerprint: { size: 10, sha256: "abd" } }, "its content differs"],
  ])("refuses a changed input (%j)", (over, what) => {
    expect(() => checkCompatible("/j", header(), header(over))).toThrow(
      new JournalError(
        `The input /data/events.ndjson changed since the journal /j was written (${what}). Resuming could skip records that were never sent or send acknowledged ones again, so nothing was sent. To start over, move /j away (batches it lists as acknowledged would then be sent again). To import new or corrected records, put them in a new file.`,
        "/j",
      ),
    );
  });

  it("refuses a second import on the same journal, and takes over a stale lock", async () => {
    const path = join(dir, "j");
    const j = await Journal.open(path, header());
    await expect(Journal.open(path, header())).rejects.toMatchObject({
      message: `Another import (pid ${process.pid}) is using the journal ${path}. Wait for it to finish, or if no such import is running, remove ${path}.lock.`,
    });
    await j.close();
    // a process that died holding the lock
    const dead = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], {
      encoding: "utf8",
    }).stdout;
    writeFileSync(`${path}.lock`, `${dead}\n`);
    const k = await Journal.open(path, header());
    await k.close();
    // our own pid left by an earlier process (pid reuse in containers)
    writeFileSync(`${path}.lock`, `${process.pid}\n`);
    const l = await Journal.open(path, header());
    await l.close();
  });

  it("fingerprints size and content", async () => {
    const path = join(dir, "f");
    writeFileSync(path, "a".repeat(3 * 1024 * 1024));
    const a = await fingerprintFile(path);
    appendFileSync(path, "b");
    const b = await fingerprintFile(path);
    expect(a.size).toBe(3 * 1024 * 1024);
    expect(b.size).toBe(a.size + 1);
    expect(b.sha256).not.toBe(a.sha256);
    writeFileSync(path, `b${"a".repeat(3 * 1024 * 1024 - 1)}`);
    expect((await fingerprintFile(path)).sha256).not.toBe(a.sha256);
  });
});
