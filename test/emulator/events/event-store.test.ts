/** The columnar event store: exact round trip of every field through growth, filters, clear. */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { EventStore } from "../../../emulator/events/event-store";
import type { EventRecord } from "../../../sdk/events/schemas";

const record = (i: number): EventRecord => {
  const r: EventRecord = {
    eventTypeId: `type_${i % 3}`,
    trafficTypeName: i % 2 ? "user" : "account",
    key: `key-${i}`,
    timestamp: 1_700_000_000_000 + i,
  };
  if (i % 4 === 1) r.value = i / 3;
  if (i % 4 === 2) r.value = null;
  if (i % 5 === 1) r.properties = { i, nested: { ok: true }, list: [1, "a"] };
  if (i % 5 === 2) r.properties = null;
  return r;
};
const PROD = { id: "env-prod", name: "Production" };
const STAGING = { id: "env-staging", name: "Staging" };

describe("EventStore", () => {
  it("returns every field exactly as stored, past several growths of its arrays", () => {
    const store = new EventStore();
    const records = Array.from({ length: 5000 }, (_, i) => record(i));
    store.append(records.slice(0, 3000), PROD);
    store.append(records.slice(3000), STAGING);
    expect(store.count).toBe(5000);
    for (let i = 0; i < 5000; i++) {
      const env = i < 3000 ? PROD : STAGING;
      expect(store.at(i)).toEqual({ ...records[i], environmentId: env.id, environmentName: env.name });
    }
    expect(store.at(5000)).toBeUndefined();
    expect(store.countOf("env-staging")).toBe(2000);
    expect(store.list({ environmentId: "env-staging", offset: 10, limit: 2 }).map((e) => e.key)).toEqual([
      "key-3010",
      "key-3011",
    ]);
    expect(store.list({ environmentId: "nope" })).toEqual([]);
  });

  it("appends accepted batches to its NDJSON file on flush and reads them back", async () => {
    const dir = mkdtempSync(join(tmpdir(), "flagstack-events-"));
    try {
      const path = join(dir, "events.ndjson");
      const a = new EventStore(path);
      a.append([record(1), record(2)], PROD);
      await a.flush();
      a.append([record(3)], STAGING);
      await a.flush();
      expect(readFileSync(path, "utf8").trim().split("\n")).toHaveLength(3);
      const b = new EventStore(path);
      await b.load();
      expect(b.list()).toEqual(a.list());
      await b.clear();
      expect(b.count).toBe(0);
      expect(readFileSync(path, "utf8")).toBe("");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
