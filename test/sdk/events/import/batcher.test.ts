import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { Batcher } from "../../../../sdk/events/import/batcher";
import type { EventRecord } from "../../../../sdk/events/schemas";

const rec = (i: number): EventRecord => ({
  eventTypeId: "e",
  trafficTypeName: "user",
  key: `k${i}`,
  timestamp: i,
});

function run(batchSize: number, maxBytes: number, n: number) {
  const b = new Batcher(batchSize, maxBytes);
  const out = [];
  for (let i = 1; i <= n; i++) {
    const r = rec(i);
    const batch = b.add(i * 2, r, JSON.stringify(r));
    if (batch) out.push(batch);
  }
  const last = b.flush();
  if (last) out.push(last);
  return out;
}

describe("Batcher", () => {
  it("cuts by count, keeps lines and hashes the body", () => {
    const batches = run(2, 1 << 20, 5);
    expect(batches.map((b) => [b.index, b.firstLine, b.lastLine, b.count])).toEqual([
      [0, 2, 4, 2],
      [1, 6, 8, 2],
      [2, 10, 10, 1],
    ]);
    const first = batches[0]!;
    const body = `[${JSON.stringify(rec(1))},${JSON.stringify(rec(2))}]`;
    expect(JSON.stringify(first.records)).toBe(body);
    expect(first.bytes).toBe(Buffer.byteLength(body));
    expect(first.hash).toBe(createHash("sha256").update(body).digest("hex"));
  });

  it("cuts by bytes, never over the cap", () => {
    const one = JSON.stringify(rec(1)).length; // every record here has the same length for i < 10
    const cap = 2 + 3 * one + 2; // three records and their two commas
    const batches = run(100, cap, 9);
    expect(batches.map((b) => b.count)).toEqual([3, 3, 3]);
    for (const b of batches) expect(Buffer.byteLength(JSON.stringify(b.records))).toBeLessThanOrEqual(cap);
    expect(batches[0]!.bytes).toBe(cap);
  });

  it("is deterministic: the same records give the same batches", () => {
    const a = run(3, 200, 20).map((b) => [b.index, b.firstLine, b.count, b.hash]);
    const b = run(3, 200, 20).map((b) => [b.index, b.firstLine, b.count, b.hash]);
    expect(a).toEqual(b);
    expect(a.length).toBeGreaterThan(6);
  });

  it("closes one-record batches with size 1", () => {
    expect(run(1, 1 << 20, 3).map((b) => b.count)).toEqual([1, 1, 1]);
  });

  it("has nothing to flush when empty", () => {
    expect(new Batcher(10, 1000).flush()).toBeUndefined();
  });
});
