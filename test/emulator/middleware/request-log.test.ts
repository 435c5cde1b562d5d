/**
 * The emulator's request log (emulator/middleware/request-log.ts): the records it keeps, bounded,
 * and `busiestSecond`, the most requests that arrived within any 1,000 ms.
 */
import { describe, expect, it } from "vitest";
import { busiestSecond, RequestLog, type RequestRecord } from "../../../emulator/middleware/request-log";

const record = (at: number): RequestRecord => ({
  method: "GET",
  path: "/internal/api/v2/workspaces",
  query: "",
  status: 200,
  ms: 1,
  api: "admin",
  at,
  transactionId: `t${at}`,
});

describe("busiestSecond", () => {
  it("counts the arrivals within any 1,000 ms, in any order, a request 1,000 ms after another in the next second", () => {
    expect(busiestSecond([])).toBe(0);
    expect(busiestSecond([record(5)])).toBe(1);
    // 0, 10 and 999 share a second; 1,000 is a second after 0, so it shares one with 10 and 999
    expect(busiestSecond([999, 0, 1000, 10].map(record))).toBe(3);
    expect(busiestSecond([0, 1000, 2000, 3000].map(record))).toBe(1);
    expect(busiestSecond([...Array(20).fill(100), ...Array(20).fill(1100), 1099].map(record))).toBe(21);
  });
});

describe("RequestLog", () => {
  it("keeps the records oldest first and drops the oldest tenth when full", () => {
    const log = new RequestLog(10);
    for (let i = 0; i < 11; i++) log.push(record(i));
    expect(log.list().map((r) => r.at)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(log.discarded).toBe(1);
    log.reset();
    expect([log.list(), log.discarded]).toEqual([[], 0]);
  });
});
