import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type Emulator, startEmulator } from "../../../emulator";
import { ApiError, NetworkError, ValidationError } from "../../../sdk/core/errors";
import { ConfigurationError } from "../../../sdk/core/options";
import { closeSharedPools } from "../../../sdk/core/pool";
import { EventsClient } from "../../../sdk/events/client";
import { type Recorder, recordingDispatcher } from "../helpers/recording-dispatcher";

let emu: Emulator;
let rec: Recorder;
let events: EventsClient;

beforeAll(async () => {
  emu = await startEmulator({ port: 0 });
  rec = recordingDispatcher();
  events = new EventsClient({
    baseUrl: emu.url,
    sdkKey: emu.sdkKey,
    requestsPerSecond: Infinity,
    dispatcher: rec.dispatcher,
  });
});
beforeEach(() => {
  emu.resetRequests();
  rec.sent.length = 0;
});
afterEach(() => {
  emu.setFaults({});
});
afterAll(async () => {
  await emu.stop();
  await rec.close();
  await closeSharedPools();
});

const record = (i: number) => ({
  eventTypeId: "checkout",
  trafficTypeName: "user",
  key: `u-${i}`,
  timestamp: 1_700_000_000_000 + i,
});

describe("EventsClient.bulk", () => {
  it("posts the records as a JSON array with the SDK key; 202 resolves", async () => {
    const before = emu.eventCount();
    await expect(
      events.bulk([
        { ...record(1), value: 9.5, properties: { plan: "pro" } },
        { ...record(2), timestamp: "1700000000002" },
      ]),
    ).resolves.toBeUndefined();
    expect(rec.sent).toHaveLength(1);
    expect(rec.sent[0]).toMatchObject({ method: "POST", path: "/api/events/bulk" });
    expect(rec.sent[0]!.headers).toMatchObject({
      authorization: `Bearer ${emu.sdkKey}`,
      "content-type": "application/json",
    });
    // the digit-string timestamp is sent as a number (LONG, spec §2)
    expect(JSON.parse(rec.sent[0]!.body!)).toEqual([
      { ...record(1), value: 9.5, properties: { plan: "pro" } },
      { ...record(2), timestamp: 1_700_000_000_002 },
    ]);
    expect(emu.requests().map((r) => `${r.method} ${r.path} ${r.status} ${r.api}`)).toEqual([
      "POST /api/events/bulk 202 events",
    ]);
    expect(emu.eventCount()).toBe(before + 2);
    expect(
      emu
        .events()
        .slice(-2)
        .map((e) => [e.key, e.timestamp, e.environmentName]),
    ).toEqual([
      ["u-1", 1_700_000_000_001, "Production"],
      ["u-2", 1_700_000_000_002, "Production"],
    ]);
  });

  it.each([
    [
      "a missing eventTypeId",
      { ...record(0), eventTypeId: undefined },
      "records[1].eventTypeId",
      "eventTypeId is required",
    ],
    [
      "a bad eventTypeId",
      { ...record(0), eventTypeId: "-bad" },
      "records[1].eventTypeId",
      "eventTypeId must start with a letter or digit, use only letters, digits, '-', '_', '.', ':' and be at most 80 characters",
    ],
    ["a missing key", { ...record(0), key: undefined }, "records[1].key", "key is required"],
    [
      "an ISO timestamp",
      { ...record(0), timestamp: "2026-01-01T00:00:00Z" },
      "records[1].timestamp",
      "timestamp must be epoch milliseconds (digits only)",
    ],
    [
      "a fractional timestamp",
      { ...record(0), timestamp: 1.5 },
      "records[1].timestamp",
      "timestamp must be whole epoch milliseconds",
    ],
    [
      "a boolean timestamp",
      { ...record(0), timestamp: true },
      "records[1].timestamp",
      "Invalid input: expected number or string",
    ],
    ["a string value", { ...record(0), value: "3" }, "records[1].value", "value must be a number"],
    [
      "array properties",
      { ...record(0), properties: [1] },
      "records[1].properties",
      "properties must be an object",
    ],
  ])("refuses %s, naming the index and field, and sends nothing", async (_name, bad, field, message) => {
    const p = events.bulk([record(0), bad as never, record(2)]);
    await expect(p).rejects.toBeInstanceOf(ValidationError);
    await expect(p).rejects.toMatchObject({
      status: 0,
      fieldErrors: [{ field, message }],
      message: `POST /api/events/bulk: invalid event records: ${field}: ${message}`,
    });
    expect(rec.sent).toHaveLength(0);
  });

  it("reports every bad record at once", async () => {
    await expect(
      events.bulk([{ ...record(0), key: "" }, record(1), { ...record(2), trafficTypeName: "" }]),
    ).rejects.toMatchObject({
      fieldErrors: [
        { field: "records[0].key", message: "key must not be empty" },
        { field: "records[2].trafficTypeName", message: "trafficTypeName must not be empty" },
      ],
    });
  });

  it("refuses a non-array", async () => {
    await expect(events.bulk({} as never)).rejects.toMatchObject({
      kind: "validation",
      fieldErrors: [{ field: "records", message: "records must be an array of event records" }],
    });
  });

  it("an admin key is a 401 with a hint about the key type", async () => {
    const wrong = new EventsClient({ baseUrl: emu.url, sdkKey: emu.adminKey, requestsPerSecond: Infinity });
    const p = wrong.bulk([record(1)]);
    await expect(p).rejects.toBeInstanceOf(ApiError);
    await expect(p).rejects.toMatchObject({ status: 401, outcomeUnknown: false });
    const err = (await p.catch((e: unknown) => e)) as ApiError;
    expect(err.apiMessage).toMatch(
      /the events API takes a server-side or client-side SDK key, not an admin key: option sdkKey or FLAGSTACK_SDK_KEY\)$/,
    );
    expect(JSON.stringify(err)).not.toContain(emu.adminKey);
  });

  it("needs a base URL and a key, naming the variables", () => {
    expect(() => new EventsClient({ env: {} })).toThrow(
      "EventsClient: missing base URL: pass { baseUrl } or set FLAGSTACK_EVENTS_URL",
    );
    expect(() => new EventsClient({ baseUrl: emu.url, env: {} })).toThrow(
      "EventsClient: missing sdkKey: pass { sdkKey } or set FLAGSTACK_SDK_KEY",
    );
    const fromEnv = new EventsClient({
      env: { FLAGSTACK_EVENTS_URL: emu.url, FLAGSTACK_SDK_KEY: emu.sdkKey },
    });
    expect(fromEnv.core.origin).toBe(emu.url);
    expect(() => new EventsClient({ env: {} })).toThrow(ConfigurationError);
  });
});

describe("what a failed batch tells the importer", () => {
  it("a 429 is retried (the API did nothing) and the batch lands once", async () => {
    emu.setFaults({ rate429: 1, seed: 1 });
    const p = events.bulk([record(7)]);
    setTimeout(() => emu.setFaults({}), 50);
    const before = emu.eventCount();
    await expect(p).resolves.toBeUndefined();
    expect(emu.eventCount()).toBe(before + 1);
    expect(emu.requests().map((r) => r.status)).toEqual([429, 202]);
  });

  it("a 503 is not retried and is definitely not accepted", async () => {
    emu.setFaults({ rate503: 1, seed: 1 });
    const p = events.bulk([record(8)]);
    await expect(p).rejects.toMatchObject({
      kind: "api",
      status: 503,
      outcomeUnknown: false,
      attempts: 1,
      apiMessage: "Service unavailable (injected fault)",
    });
    expect(emu.requests()).toHaveLength(1);
  });

  it("a 500 is not retried and its outcome is unknown", async () => {
    emu.setFaults({ rate500: 1, seed: 1 });
    await expect(events.bulk([record(9)])).rejects.toMatchObject({
      kind: "api",
      status: 500,
      outcomeUnknown: true,
      attempts: 1,
    });
    expect(emu.requests()).toHaveLength(1);
  });

  it("a connection lost after the batch was stored is a NetworkError with outcomeUnknown, not re-sent", async () => {
    emu.setFaults({ dropAfterRate: 1, seed: 1 });
    const before = emu.eventCount();
    const p = events.bulk([record(10)]);
    await expect(p).rejects.toBeInstanceOf(NetworkError);
    await expect(p).rejects.toMatchObject({ status: 0, outcomeUnknown: true, attempts: 1 });
    emu.setFaults({});
    expect(emu.eventCount()).toBe(before + 1); // it was recorded: re-sending would have duplicated it
    expect(emu.requests()).toHaveLength(1);
  });
});
