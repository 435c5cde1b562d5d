/**
 * Bad input, on every kind of `provider/kinds.ts` (through its sample) and on event records, each
 * refused with a message that names the field at fault, and not one request reaching the emulator
 * (its request log and the provider's proxy are reset before each case and read after it).
 *
 * - Each kind's malformed inputs (`bad-inputs.ts`: a change over the sample's inputs, the property
 *   the failure names, a part of its reason) go through `check`, directly and through the real
 *   gRPC host with the kind's `__provider` text, as the engine sends them. A kind without one fails
 *   the suite. Rows of inputs that only the service can judge (a workspace, environment, traffic
 *   type, group, project or pipeline that does not exist) pass `check` and are refused by `create`
 *   with nothing stored (no write the service accepted, its stored records as they were).
 * - Derived from each kind's zod inputs schema and its sample (`schema-attacks.ts`): every input,
 *   and every member and element the sample holds, given a value of each JSON type its schema does
 *   not take, left out when required, outside its enum or just outside its bounds, and an input or
 *   member the schema does not have, is refused by `check` with a failure naming that path, with
 *   no request. The hand-written rows are the rules across fields and what only the service judges.
 * - Event records go through `EventsClient.bulk` (refused before sending, the field named as
 *   `records[0].<field>`) and, all together, through the file importer (`importEvents`, what
 *   `flagstack events import` runs), whose rejects file names the field of every line.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { z } from "zod";
import { EventsClient, ValidationError } from "../../sdk";
import { importEvents } from "../../sdk/events/import";
import { type Driver, MODES, type Mode, type ProviderHost, startProviderHost } from "../provider/harness";
import { applyChange } from "./bad-inputs";
import { Exercised } from "./coverage";
import { type KindBed, kindDriver, names, startKindBed } from "./kind-bed";
import { type KindUnderTest, kindsUnderTest } from "./samples";
import { schemaAttacks } from "./schema-attacks";

type Props = Record<string, unknown>;
const kinds = kindsUnderTest();
const exercised = new Exercised();

let bed: KindBed;
let host: ProviderHost;
beforeAll(async () => {
  bed = await startKindBed();
  host = await startProviderHost();
  await host.configure(bed.config);
});
afterAll(async () => {
  await host?.stop();
  await bed?.stop();
});

/** Forgets every request seen so far, by the emulator and by the provider's proxy. */
const reset = () => {
  bed.emu.resetRequests();
  bed.proxy.reset();
};
/** Every request since the last {@link reset}: the provider's (through the proxy) and any other. */
const requests = () => [
  ...bed.proxy.requests().map((r) => `${r.method} ${r.path}`),
  ...bed.emu.requests().map((r) => `${r.method} ${r.path}`),
];
/** Requests that change something. */
const writes = () => bed.emu.requests().filter((r) => r.method !== "GET" && r.method !== "HEAD");

/** The kind's driver in `mode`: its implementation, or the host with its `__provider` text. */
const driverOf = (kind: KindUnderTest, mode: Mode): Driver => kindDriver(kind, mode, host);

/** Each kind's sample inputs, made once (what they live in is made on the way). */
const bases = new Map<string, Promise<Props>>();
const baseOf = (kind: KindUnderTest): Promise<Props> => {
  let base = bases.get(kind.name);
  if (!base) {
    base = kind.sample.inputs(bed.ctx);
    bases.set(kind.name, base);
  }
  return base;
};

// ---------------------------------------------------------------------------------------------
// Every kind's malformed inputs

const ROWS = "its malformed inputs";
const SCHEMA =
  "each input and member of a JSON type its schema does not take, left out when required, outside its enum or bounds, or unknown";

it.each(names(kinds))("%s has malformed inputs derived from its schema to attack it with", async (name) => {
  const kind = kinds.find((k) => k.name === name) as KindUnderTest;
  const attacks = schemaAttacks(kind.inputs, await baseOf(kind));
  // At least the unknown input, and each required input left out.
  const required = Object.entries(kind.inputs.shape as Record<string, z.ZodType>).filter(
    ([, s]) => !s.safeParse(undefined).success,
  );
  expect(attacks.filter((a) => a.label.endsWith(" left out") && !a.property.includes("."))).toHaveLength(
    required.filter(([f]) => !/[[.]/.test(f)).length,
  );
  expect(attacks.at(-1)?.property).toBe("notAnInput");
});

describe.each(MODES)("(%s)", (mode) => {
  describe.each(names(kinds))("%s: bad input refused naming the field, with no request", (name) => {
    const kind = kinds.find((k) => k.name === name) as KindUnderTest;
    const rows = (kind.sample.badInputs ?? []).map((r) => [r.label, r.property, r] as const);

    if (rows.length > 0)
      it.each(rows)(`${ROWS}: %s → %s`, async (_label, property, row) => {
        const d = driverOf(kind, mode);
        const inputs = applyChange(await baseOf(kind), row.change);
        reset();
        const { inputs: checkedInputs, failures } = await d.check({}, inputs);
        if (row.create) {
          expect(failures).toEqual([]);
          const before = await bed.census();
          const refused = await d.create(checkedInputs).then(
            () => "(created)",
            (e: unknown) => (e instanceof Error ? e.message : String(e)),
          );
          expect(refused).toContain(row.reason);
          expect(requests().length).toBeGreaterThan(0);
          // Nothing stored: no write the service accepted, the emulator's records as they were.
          expect(
            bed.proxy
              .writes()
              .filter((r) => r.status < 300)
              .map((r) => `${r.method} ${r.path}`),
          ).toEqual([]);
          expect(await bed.census()).toEqual(before);
        } else {
          expect(failures).toContainEqual({ property, reason: expect.stringContaining(row.reason) });
          expect(requests()).toEqual([]);
        }
        exercised.ran(`${ROWS} (${mode})`, name);
      });

    it(`${SCHEMA}: refused naming it, with no request`, async () => {
      const d = driverOf(kind, mode);
      const base = await baseOf(kind);
      const attacks = schemaAttacks(kind.inputs, base);
      expect(attacks.length).toBeGreaterThan(0);
      const missed: string[] = [];
      const names = (property: string, at: string) =>
        at === property || at.startsWith(`${property}.`) || at.startsWith(`${property}[`);
      for (const { property, label, inputs: raw } of attacks) {
        const inputs = JSON.parse(JSON.stringify(raw)) as Props;
        reset();
        const { failures } = await d.check({}, inputs);
        if (!failures.some((f) => names(property, f.property)))
          missed.push(`${label}: ${JSON.stringify(failures)}`);
        const sent = requests();
        if (sent.length > 0) missed.push(`${label}: sent ${sent.join(", ")}`);
      }
      expect(missed).toEqual([]);
      exercised.ran(`${SCHEMA} (${mode})`, name);
    });
  });

  it("every kind of the list was attacked by every case", () => {
    exercised.expectEvery([`${SCHEMA} (${mode})`], names(kinds));
    // Hand-written rows only where the schema cannot say it: a kind whose rules it all says has none.
    exercised.expectEvery(
      [`${ROWS} (${mode})`],
      names(kinds.filter((k) => (k.sample.badInputs?.length ?? 0) > 0)),
    );
  });
});

// ---------------------------------------------------------------------------------------------
// Event records

const event = { eventTypeId: "checkout", trafficTypeName: "user", key: "u-1", timestamp: 1_700_000_000_000 };
const { eventTypeId: _e, ...noEventType } = event;
const { trafficTypeName: _t, ...noTrafficType } = event;
const { key: _k, ...noKey } = event;
const { timestamp: _s, ...noTimestamp } = event;

/** [what is wrong, the record, the field the message must name]. */
type EventRow = [label: string, record: unknown, field: string];

const eventRows: EventRow[] = [
  ["missing eventTypeId", noEventType, "eventTypeId"],
  ["eventTypeId with a space", { ...event, eventTypeId: "check out" }, "eventTypeId"],
  ["eventTypeId starting with '-'", { ...event, eventTypeId: "-checkout" }, "eventTypeId"],
  ["eventTypeId of 81 characters", { ...event, eventTypeId: `e${"x".repeat(80)}` }, "eventTypeId"],
  ["eventTypeId not a string", { ...event, eventTypeId: 7 }, "eventTypeId"],
  ["missing trafficTypeName", noTrafficType, "trafficTypeName"],
  ["empty trafficTypeName", { ...event, trafficTypeName: "" }, "trafficTypeName"],
  ["missing key", noKey, "key"],
  ["empty key", { ...event, key: "" }, "key"],
  ["key of 251 characters", { ...event, key: "k".repeat(251) }, "key"],
  ["key not a string", { ...event, key: 42 }, "key"],
  ["missing timestamp", noTimestamp, "timestamp"],
  ["timestamp as a word", { ...event, timestamp: "yesterday" }, "timestamp"],
  ["negative timestamp", { ...event, timestamp: -1 }, "timestamp"],
  ["fractional timestamp", { ...event, timestamp: 1.5 }, "timestamp"],
  ["timestamp as an ISO date", { ...event, timestamp: "2026-11-22T10:00:00Z" }, "timestamp"],
  ["value as a string", { ...event, value: "12" }, "value"],
  ["value as a boolean", { ...event, value: true }, "value"],
  ["properties as a list", { ...event, properties: ["plan"] }, "properties"],
  [
    "properties with 301 keys",
    { ...event, properties: Object.fromEntries(Array.from({ length: 301 }, (_, i) => [`p${i}`, i])) },
    "properties",
  ],
  ["environmentName not a string", { ...event, environmentName: 3 }, "environmentName"],
];

describe("event records are refused before sending, naming the field", () => {
  beforeEach(reset);

  const events = () =>
    new EventsClient({
      baseUrl: bed.emu.url,
      sdkKey: bed.emu.sdkKey,
      requestsPerSecond: Number.POSITIVE_INFINITY,
    });

  it.each(eventRows)("EventsClient.bulk: %s", async (_label, record, field) => {
    const err = await events()
      .bulk([event, record as typeof event])
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(err).toBeInstanceOf(ValidationError);
    const v = err as ValidationError;
    expect(v.fieldErrors.map((f) => f.field)).toContain(`records[1].${field}`);
    expect(v.message).toContain(`records[1].${field}`);
    expect(bed.emu.requests()).toEqual([]);
  });

  it.each([
    ["a record that is null", null],
    ["a record that is a list", [event]],
    ["a record over 32 KB", { ...event, properties: { blob: "x".repeat(33 * 1024) } }],
  ])("EventsClient.bulk: %s names the record", async (_label, record) => {
    await expect(events().bulk([record as typeof event])).rejects.toMatchObject({
      kind: "validation",
      message: expect.stringContaining("records[0]"),
    });
    expect(bed.emu.requests()).toEqual([]);
  });

  it("the file importer rejects every bad line, naming its field, and sends nothing", async () => {
    const dir = mkdtempSync(join(tmpdir(), "flagstack-bad-events-"));
    try {
      const input = join(dir, "events.ndjson");
      writeFileSync(input, `${eventRows.map(([, record]) => JSON.stringify(record)).join("\n")}\n`);
      const rejects = join(dir, "rejects.ndjson");
      const summary = await importEvents({
        input,
        eventsUrl: bed.emu.url,
        sdkKey: bed.emu.sdkKey,
        rejects,
        journal: false,
        requestsPerSecond: Number.POSITIVE_INFINITY,
      });
      expect(summary).toMatchObject({
        read: eventRows.length,
        valid: 0,
        rejected: eventRows.length,
        sent: 0,
      });
      const lines = readFileSync(rejects, "utf8")
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l) as { line: number; reason: string });
      expect(lines.map((l) => l.line)).toEqual(eventRows.map((_, i) => i + 1));
      lines.forEach((l, i) => {
        expect(l.reason, `line ${l.line}`).toContain(eventRows[i]?.[2]);
      });
      expect(writes()).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

it("the corpus holds at least 100 malformed inputs", () => {
  const rows = kinds.reduce((n, k) => n + (k.sample.badInputs?.length ?? 0), 0);
  expect(rows + eventRows.length + 3).toBeGreaterThanOrEqual(100);
});
