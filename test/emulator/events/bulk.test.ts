/**
 * Conformance: spec §2 "Event record", §4 "Event import" (202, not idempotent), §5 item 2 (SDK key,
 * not an Admin key), §6; ref admin §6 (limits).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Emulator } from "../../../emulator";
import { adminError, type Call, start } from "../helpers";

let emu: Emulator;
let call: Call;

beforeAll(async () => {
  ({ emu, call } = await start());
});
afterAll(() => emu.stop());
beforeEach(async () => {
  await call("DELETE", "/_emulator/events", { key: null });
});

const ev = (over: Record<string, unknown> = {}) => ({
  eventTypeId: "checkout",
  trafficTypeName: "user",
  key: "user-1",
  timestamp: 1_700_000_000_000,
  ...over,
});
const bulk = (body: unknown, key: string | null = emu.sdkKey) =>
  call("POST", "/api/events/bulk", { body, key });

describe("POST /api/events/bulk", () => {
  it("accepts a batch with 202 and an empty body, storing each event with the key's environment", async () => {
    const r = await bulk([
      ev({ value: 9.5, properties: { plan: "pro" } }),
      ev({ key: "user-2", timestamp: "1700000000001", value: null }),
    ]);
    expect(r.status).toBe(202);
    expect(r.text).toBe("");
    expect(r.headers.get("content-length")).toBe("0");
    expect(emu.events()).toEqual([
      {
        eventTypeId: "checkout",
        trafficTypeName: "user",
        key: "user-1",
        timestamp: 1_700_000_000_000,
        value: 9.5,
        properties: { plan: "pro" },
        environmentId: expect.any(String),
        environmentName: "Production",
      },
      {
        eventTypeId: "checkout",
        trafficTypeName: "user",
        key: "user-2",
        timestamp: 1_700_000_000_001,
        value: null,
        environmentId: expect.any(String),
        environmentName: "Production",
      },
    ]);
  });

  it("is not idempotent: the same batch twice is stored twice", async () => {
    const batch = [ev(), ev({ key: "user-2" })];
    expect((await bulk(batch)).status).toBe(202);
    expect((await bulk(batch)).status).toBe(202);
    expect(emu.eventCount()).toBe(4);
  });

  it("stores events sent with the Staging key in Staging", async () => {
    await bulk([ev()], emu.sdkKeys.Staging);
    expect(emu.events({ environment: "Staging" })).toHaveLength(1);
    expect(emu.events({ environment: "Production" })).toHaveLength(0);
  });

  it.each([
    ["no key", null, 'Missing API key: send "Authorization: Bearer <SDK_API_KEY>"'],
    ["an unknown key", "sdk-not-a-real-key", "Invalid API key"],
    ["the Admin key", "ADMIN", "This endpoint takes an SDK key; the key given is an Admin API key"],
    ["the platform key", "PLATFORM", "This endpoint takes an SDK key; the key given is a platform key"],
  ])("refuses %s with 401 and stores nothing", async (_what, key, message) => {
    const real = key === "ADMIN" ? emu.adminKey : key === "PLATFORM" ? emu.platformKey : key;
    const r = await bulk([ev()], real);
    expect(r.status).toBe(401);
    expect(r.body).toEqual(adminError(401, message));
    expect(emu.eventCount()).toBe(0);
  });

  it.each([
    ["a missing timestamp", [ev(), ev({ timestamp: undefined })], "events[1].timestamp: is required"],
    [
      "a timestamp with letters",
      [ev({ timestamp: "17000x" })],
      "events[0].timestamp: timestamp must be epoch milliseconds (digits only)",
    ],
    ["a missing eventTypeId", [ev({ eventTypeId: undefined })], "events[0].eventTypeId: is required"],
    [
      "a bad eventTypeId",
      [ev({ eventTypeId: "-bad" })],
      "events[0].eventTypeId: eventTypeId must start with a letter or digit, use only letters, digits, '-', '_', '.', ':' and be at most 80 characters",
    ],
    ["an empty key", [ev({ key: "" })], "events[0].key: key must not be empty"],
    ["a string value", [ev({ value: "12" })], "events[0].value: value must be a number"],
    ["array properties", [ev({ properties: [1] })], "events[0].properties: properties must be an object"],
    ["a record that is not an object", ["x"], "events[0]: Invalid input: expected object, received string"],
    ["an object instead of an array", { events: [] }, "body: a JSON array of event records is required"],
    [
      "broken JSON",
      "[{",
      "body: not valid JSON (Expected property name or '}' in JSON at position 2 (line 1 column 3))",
    ],
  ])(
    "refuses %s with 400 naming the record and field, storing none of the batch",
    async (_what, body, message) => {
      const r = await bulk(body);
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({ code: 400, message });
      expect(emu.eventCount()).toBe(0);
    },
  );

  it("refuses more than 10,000 records in one request", async () => {
    const r = await bulk(Array.from({ length: 10_001 }, () => ev()));
    expect(r.body).toEqual(adminError(400, "body: at most 10000 events per request, got 10001"));
  });

  it("takes one record on POST /api/events", async () => {
    const r = await call("POST", "/api/events", { body: ev(), key: emu.sdkKey });
    expect(r.status).toBe(202);
    expect(emu.eventCount()).toBe(1);
  });
});

describe("GET and DELETE /_emulator/events", () => {
  it("lists, counts, pages and clears the stored events", async () => {
    await bulk([ev({ key: "a" }), ev({ key: "b" }), ev({ key: "c" })]);
    expect((await call("GET", "/_emulator/events?countOnly=true", { key: null })).body).toEqual({ count: 3 });
    const page = await call("GET", "/_emulator/events?offset=1&limit=1", { key: null });
    expect(page.body).toEqual({ count: 3, offset: 1, events: [expect.objectContaining({ key: "b" })] });
    expect((await call("GET", "/_emulator/events?environment=Staging", { key: null })).body).toEqual({
      count: 0,
      offset: 0,
      events: [],
    });
    expect((await call("DELETE", "/_emulator/events", { key: null })).body).toBe(true);
    expect(emu.eventCount()).toBe(0);
  });
});
