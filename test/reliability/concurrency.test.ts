/**
 * Concurrency, on every kind of `provider/kinds.ts` (through its sample, `samples.ts`): 1,000
 * provider creates, an equal share of every kind, started at once in one process (as the engine
 * sends a whole deployment to one dynamic-provider host) share one client-side rate limiter, so
 * against an emulator that enforces 200 requests per second every operation succeeds, none sees a
 * 429, and the server refuses no (or almost no) request; the run takes about as long as the rate
 * allows and leaves exactly the objects asked for: the emulator's stored records change by the sum
 * of what one create of each kind adds, times the number of its operations. What each object lives
 * in is made first. Through the real gRPC host and directly.
 *
 * When the server's limit is below the client's configured rate, the 429s it answers pause every
 * request of the process and are retried: still every operation succeeds and none surfaces a 429.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { busiestSecond } from "../../emulator";
import { NATIVE_KINDS } from "../../provider/native/kinds";
import { type Driver, type ProviderHost, startProviderHost } from "../provider/harness";
import { censusDelta, type KindBed, startKindBed } from "./kind-bed";
import { configureDirect, drivers, stackConfig } from "./kinds";
import { kindsUnderTest } from "./samples";

type Props = Record<string, unknown>;
const kinds = kindsUnderTest();
/** The list's kinds by name, from `provider/kinds.ts` itself. */
const LIST = NATIVE_KINDS.map((k) => k.name);

const SERVER_LIMIT = 200;

let bed: KindBed;
let host: ProviderHost | undefined;
/** What one create of each kind adds to the emulator's stored records (measured once). */
const perObject = new Map<string, Record<string, number>>();

beforeAll(async () => {
  bed = await startKindBed();
  // Straight to the emulator (not through the bed's recording proxy).
  configureDirect(stackConfig(bed.emu));
  const d: Readonly<Record<string, Driver>> = await drivers("direct");
  for (const kind of kinds) {
    const driver = d[kind.name] as Driver;
    const checked = await driver.check({}, await kind.sample.inputs(bed.ctx));
    expect(checked.failures).toEqual([]);
    const before = await bed.census();
    await driver.create(checked.inputs);
    perObject.set(kind.name, censusDelta(before, await bed.census()));
  }
  bed.emu.setRateLimit({ requestsPerSecond: SERVER_LIMIT });
}, 60_000);
afterAll(async () => {
  await host?.stop();
  await bed?.stop();
});

/** One create to run: its kind and the program's inputs (what it lives in already made). */
interface Operation {
  kind: string;
  inputs: Props;
}

/**
 * `n` operations, an equal share of every kind in turn, with what each lives in made first (with
 * the server's limit lifted, at the client's full rate, so that only the operations are paced).
 */
async function operations(n: number): Promise<Operation[]> {
  bed.emu.setRateLimit(null);
  configureDirect(stackConfig(bed.emu));
  try {
    const ops: Operation[] = [];
    for (let i = 0; i < n; i++) {
      const kind = kinds[i % kinds.length];
      if (!kind) throw new Error("no kinds");
      ops.push({ kind: kind.name, inputs: await kind.sample.inputs(bed.ctx) });
    }
    return ops;
  } finally {
    bed.emu.setRateLimit({ requestsPerSecond: SERVER_LIMIT });
  }
}

/** How many operations of each kind. */
function perKind(ops: readonly Operation[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const op of ops) out[op.kind] = (out[op.kind] ?? 0) + 1;
  return out;
}

/** What `ops` must add to the emulator's stored records: each kind's share of one create's. */
function expectedCensus(ops: readonly Operation[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const op of ops)
    for (const [collection, n] of Object.entries(perObject.get(op.kind) ?? {}))
      out[collection] = (out[collection] ?? 0) + n;
  return Object.fromEntries(Object.entries(out).filter(([, n]) => n !== 0));
}

/** Starts every operation at once (check, then create); returns the failures. */
async function runAll(d: Readonly<Record<string, Driver>>, ops: readonly Operation[]): Promise<string[]> {
  const results = await Promise.allSettled(
    ops.map(async ({ kind, inputs }) => {
      const driver = d[kind];
      if (!driver) throw new Error(`no driver of ${kind}`);
      const checked = await driver.check({}, inputs);
      if (checked.failures.length > 0) throw new Error(`${kind}: ${JSON.stringify(checked.failures)}`);
      return driver.create(checked.inputs);
    }),
  );
  return results.flatMap((r, i) =>
    r.status === "rejected"
      ? [`${ops[i]?.kind}: ${String((r.reason as Error).message ?? r.reason).split("\n")[0]}`]
      : [],
  );
}

it("one create of each kind stores a record (the counts below add these up)", () => {
  expect(LIST.filter((k) => Object.keys(perObject.get(k) ?? {}).length === 0)).toEqual([]);
  expect([...perObject.keys()]).toEqual(LIST);
});

describe.each(["gRPC host", "direct"] as const)(
  "1,000 concurrent operations over every kind through one process (%s)",
  (mode) => {
    it(`all succeed, share the limiter and stay under the server's ${SERVER_LIMIT} requests per second`, async () => {
      const ops = await operations(1000);
      // Every kind of the list, an equal share each.
      // Round robin over the list: the first 1000 mod n kinds get one more.
      const share = (j: number) => Math.floor(1000 / LIST.length) + (j < 1000 % LIST.length ? 1 : 0);
      expect(perKind(ops)).toEqual(Object.fromEntries(LIST.map((k, j) => [k, share(j)])));
      // The client may use the server's whole budget: its limiter spaces requests 2% wider than asked.
      const config = stackConfig(bed.emu, { "flagstack:requestsPerSecond": String(SERVER_LIMIT) });
      let d: Readonly<Record<string, Driver>>;
      if (mode === "direct") {
        configureDirect(config);
        d = await drivers("direct");
      } else {
        host = await startProviderHost();
        await host.configure(config);
        d = await drivers("gRPC host", host);
      }
      const before = await bed.census();
      bed.emu.resetRequests();
      const started = performance.now();
      const failures = await runAll(d, ops);
      const seconds = (performance.now() - started) / 1000;
      const records = bed.emu.requests();
      const refused = records.filter((r) => r.status === 429);
      console.log(
        `concurrency (${mode}): 1000 operations over ${LIST.length} kinds, ${records.length} requests in ` +
          `${seconds.toFixed(1)} s, ${refused.length} refused with 429, peak ${busiestSecond(records)} ` +
          "requests in one second",
      );
      expect(failures).toEqual([]);
      // "No or few": a timer that fires late on a loaded machine may let one request land a hair early.
      expect(refused.length).toBeLessThanOrEqual(Math.ceil(records.length / 100));
      // Every request went through the one limiter: the run takes as long as the rate allows.
      expect(records.length).toBeGreaterThanOrEqual(1000);
      expect(seconds).toBeGreaterThan((records.length - SERVER_LIMIT) / SERVER_LIMIT);
      expect(busiestSecond(records)).toBeLessThanOrEqual(SERVER_LIMIT * 1.1);
      expect(censusDelta(before, await bed.census())).toEqual(expectedCensus(ops));
    }, 120_000);
  },
);

describe("a server limit below the client's configured rate", () => {
  it("its 429s pause and retry: every operation succeeds over every kind, none surfaces a 429", async () => {
    const ops = await operations(8 * LIST.length);
    expect(Object.keys(perKind(ops))).toEqual(LIST);
    bed.emu.setRateLimit({ requestsPerSecond: 60 });
    try {
      configureDirect(stackConfig(bed.emu, { "flagstack:requestsPerSecond": "1000" }));
      const d = await drivers("direct");
      const before = await bed.census();
      bed.emu.resetRequests();
      const failures = await runAll(d, ops);
      const refused = bed.emu.requests().filter((r) => r.status === 429);
      console.log(
        `concurrency: server limit 60/s, client 1000/s: ${ops.length} operations over ${LIST.length} kinds, ` +
          `${refused.length} requests refused with 429 and retried`,
      );
      expect(failures).toEqual([]);
      expect(refused.length).toBeGreaterThan(0);
      expect(censusDelta(before, await bed.census())).toEqual(expectedCensus(ops));
    } finally {
      bed.emu.setRateLimit({ requestsPerSecond: SERVER_LIMIT });
    }
  }, 120_000);
});
