/**
 * What one provider process leaves the next (provider/core/hand-over.ts): entries kept while
 * young, merged with other processes' young entries, malformed ones skipped, written whole with
 * the user's own permissions, and nothing read or written when off.
 */
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type HandOver, readHandOver, writeHandOver } from "../../../provider/core/hand-over";

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "flagstack-hand-over-"));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** A hand-over of `{at, n}` entries kept 1,000 ms. */
const counts = (path: string | undefined): HandOver<{ at: number; n: number }> => ({
  path,
  accept: (raw) => {
    const e = raw as { at?: unknown; n?: unknown } | null;
    return typeof e?.at === "number" && typeof e.n === "number" ? { at: e.at, n: e.n } : undefined;
  },
  lastOf: (e) => e.at,
  ttlMs: 1000,
});

describe("hand-over", () => {
  it("keeps the young entries of both writers, drops the old and the malformed", () => {
    const h = counts(join(dir, "sub", "counts.json"));
    const now = 1_000_000;
    writeHandOver(h, { a: { at: now - 10, n: 1 }, old: { at: now - 1000, n: 2 } }, now);
    writeHandOver(h, { b: { at: now, n: 3 } }, now);
    expect(readHandOver(h, now)).toEqual({ a: { at: now - 10, n: 1 }, b: { at: now, n: 3 } });
    expect(readHandOver(h, now + 991)).toEqual({ b: { at: now, n: 3 } });
    // The directory and the file are the user's own; no temporary file is left.
    expect((statSync(join(dir, "sub")).mode & 0o777).toString(8)).toBe("700");
    expect((statSync(h.path as string).mode & 0o777).toString(8)).toBe("600");
    expect(existsSync(`${h.path}.${process.pid}`)).toBe(false);
    writeFileSync(
      h.path as string,
      JSON.stringify({ c: { at: now, n: "x" }, d: { at: now, n: 4 }, e: null }),
    );
    expect(readHandOver(h, now)).toEqual({ d: { at: now, n: 4 } });
    writeFileSync(h.path as string, "[not json");
    expect(readHandOver(h, now)).toEqual({});
  });

  it("reads and writes nothing when off", () => {
    const h = counts(undefined);
    writeHandOver(h, { a: { at: Date.now(), n: 1 } });
    expect(readHandOver(h)).toEqual({});
    const missing = counts(join(dir, "missing.json"));
    expect(readHandOver(missing)).toEqual({});
    expect(existsSync(join(dir, "missing.json"))).toBe(false);
  });
});
