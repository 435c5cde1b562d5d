import { describe, expect, it } from "vitest";
import { validateItem } from "../../../../sdk/events/import/validate";
import { event } from "./helpers";

describe("validateItem", () => {
  it("accepts a record and normalises a digit-string timestamp to a number", () => {
    const r = validateItem({
      line: 3,
      value: { ...event(1), timestamp: "1700000000001", value: 2.5, properties: { a: 1 } },
    });
    expect(r).toEqual({
      ok: true,
      line: 3,
      record: {
        eventTypeId: "page_view",
        trafficTypeName: "user",
        key: "user-1",
        timestamp: 1700000000001,
        value: 2.5,
        properties: { a: 1 },
      },
      json: '{"eventTypeId":"page_view","trafficTypeName":"user","key":"user-1","timestamp":1700000000001,"value":2.5,"properties":{"a":1}}',
    });
  });

  it.each([
    [{ ...event(1), eventTypeId: undefined }, "eventTypeId is required"],
    [
      { ...event(1), eventTypeId: "bad id" },
      "eventTypeId must start with a letter or digit, use only letters, digits, '-', '_', '.', ':' and be at most 80 characters",
    ],
    [
      { ...event(1), eventTypeId: "a".repeat(81) },
      "eventTypeId must start with a letter or digit, use only letters, digits, '-', '_', '.', ':' and be at most 80 characters",
    ],
    [{ ...event(1), trafficTypeName: "" }, "trafficTypeName must not be empty"],
    [{ ...event(1), key: undefined }, "key is required"],
    [{ ...event(1), key: "k".repeat(251) }, "key must be at most 250 characters"],
    [{ ...event(1), timestamp: "17e11" }, "timestamp must be epoch milliseconds (digits only)"],
    [{ ...event(1), timestamp: 1.5 }, "timestamp must be whole epoch milliseconds"],
    [
      { ...event(1), timestamp: true },
      "timestamp must be epoch milliseconds, as a number or a string of digits",
    ],
    [{ ...event(1), timestamp: -1 }, "timestamp must not be negative"],
    [{ ...event(1), value: "3" }, "value must be a number"],
    [{ ...event(1), properties: [1] }, "properties must be an object"],
    [
      { ...event(1), properties: Object.fromEntries(Array.from({ length: 301 }, (_, i) => [`p${i}`, i])) },
      "properties may hold at most 300 keys",
    ],
    [{ ...event(1), properties: { big: "x".repeat(33_000) } }, "an event must be at most 32768 bytes"],
    [{ ...event(1), key: 5, value: "x" }, "key is required; value must be a number"],
  ])("rejects %#, naming the field", (value, reason) => {
    expect(validateItem({ line: 9, value })).toEqual({ ok: false, line: 9, reason, record: value });
  });

  it.each([
    [null, "record must be a JSON object, not null"],
    [[1], "record must be a JSON object, not an array"],
    [7, "record must be a JSON object, not a number"],
    ["s", "record must be a JSON object, not a string"],
  ])("rejects the non-object %j", (value, reason) => {
    expect(validateItem({ line: 1, value })).toEqual({ ok: false, line: 1, reason, record: value });
  });

  it("passes a read error through", () => {
    expect(validateItem({ line: 4, error: "invalid JSON: x", record: "{x" })).toEqual({
      ok: false,
      line: 4,
      reason: "invalid JSON: x",
      record: "{x",
    });
  });
});
