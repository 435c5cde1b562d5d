/**
 * Concurrency: 1,000 provider operations started at once in one process (as the engine sends a
 * whole deployment to one dynamic-provider host) share one client-side rate limiter, so against an
 * emulator that enforces 200 requests per second every operation succeeds, none sees a 429, and
 * the server refuses no (or almost no) request; the run takes about as long as the rate allows and
 * leaves exactly the 1,000 objects asked for. Through the real gRPC host and directly.
 *
 * When the server's limit is below the client's configured rate, the 429s it answers pause every
 * request of the process and are retried: still every operation succeeds and none surfaces a 429.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Emulator, type RequestRecord, startEmulator } from "../../emulator";
import { AdminClient, PlatformClient } from "../../sdk";
import { type Driver, type ProviderHost, startProviderHost } from "../provider/harness";
import { configureDirect, drivers, type Kind, stackConfig } from "./kinds";

type Props = Record<string, unknown>;

const SERVER_LIMIT = 200;

/** `n` operations: a quarter each of groups, flags (half with tags: two requests), projects and user invites. */
function operations(prefix: string, n: number): { kind: Kind; inputs: Props }[] {
  const ops: { kind: Kind; inputs: Props }[] = [];
  for (let i = 0; i < n; i++) {
    const k = i % 4;
    if (k === 0) ops.push({ kind: "Group", inputs: { name: `${prefix}-group-${i}`, description: `g${i}` } });
    else if (k === 1)
      ops.push({
        kind: "Flag",
        inputs: {
          workspace: "Default",
          name: `${prefix}-flag-${i}`,
          ...(i % 8 === 1 ? { tags: ["load"] } : {}),
        },
      });
    else if (k === 2)
      ops.push({ kind: "Project", inputs: { identifier: `${prefix}_project_${i}`, name: `P ${i}` } });
    else ops.push({ kind: "UserInvite", inputs: { email: `${prefix}-${i}@example.test` } });
  }
  return ops;
}

/** Starts every operation at once (check, then create); returns the failures. */
async function runAll(d: Record<Kind, Driver>, ops: { kind: Kind; inputs: Props }[]): Promise<string[]> {
  const results = await Promise.allSettled(
    ops.map(async ({ kind, inputs }) => {
      const checked = await d[kind].check({}, inputs);
      if (checked.failures.length > 0) throw new Error(JSON.stringify(checked.failures));
      return d[kind].create(checked.inputs);
    }),
  );
  return results.flatMap((r) =>
    r.status === "rejected" ? [String((r.reason as Error).message ?? r.reason)] : [],
  );
}

/** The most requests the server received in any one-second span. */
function peakPerSecond(records: RequestRecord[]): number {
  const at = records.map((r) => r.at).sort((a, b) => a - b);
  let peak = 0;
  let start = 0;
  for (let end = 0; end < at.length; end++) {
    while ((at[end] as number) - (at[start] as number) >= 1000) start++;
    peak = Math.max(peak, end - start + 1);
  }
  return peak;
}

let emu: Emulator;
let host: ProviderHost;
let admin: AdminClient;
let platform: PlatformClient;

beforeAll(async () => {
  emu = await startEmulator({ port: 0, rateLimit: { requestsPerSecond: SERVER_LIMIT } });
  const inf = Number.POSITIVE_INFINITY;
  admin = new AdminClient({ baseUrl: emu.url, apiKey: emu.adminKey, requestsPerSecond: inf });
  platform = new PlatformClient({
    baseUrl: emu.url,
    apiKey: emu.platformKey,
    accountId: emu.accountId,
    requestsPerSecond: inf,
  });
});
afterAll(async () => {
  await host?.stop();
  await emu?.stop();
});

/** How many objects of each kind carry `prefix`. */
async function inventory(prefix: string): Promise<Record<string, number>> {
  emu.setRateLimit(null);
  try {
    const ws = (await admin.workspaces.getByName("Default"))?.id as string;
    const count = async (items: AsyncIterable<unknown>, name: (x: never) => string) => {
      let n = 0;
      for await (const x of items) if (name(x as never).startsWith(prefix)) n++;
      return n;
    };
    return {
      groups: await count(admin.groups.list(), (g: { name: string }) => g.name),
      flags: await count(admin.flags.list(ws), (f: { name: string }) => f.name),
      projects: await count(
        platform.projects.list({ org: "default" }),
        (p: { project: { identifier: string } }) => p.project.identifier,
      ),
      users: await count(admin.users.list({ status: "PENDING" }), (u: { email: string }) => u.email),
    };
  } finally {
    emu.setRateLimit({ requestsPerSecond: SERVER_LIMIT });
  }
}

describe.each(["gRPC host", "direct"] as const)(
  "1,000 concurrent operations through one process (%s)",
  (mode) => {
    const prefix = mode === "direct" ? "cd" : "cg";

    it(`all succeed, share the limiter and stay under the server's ${SERVER_LIMIT} requests per second`, async () => {
      // The client may use the server's whole budget: its limiter spaces requests 5% wider than asked.
      const config = stackConfig(emu, { "flagstack:requestsPerSecond": String(SERVER_LIMIT) });
      let d: Record<Kind, Driver>;
      if (mode === "direct") {
        configureDirect(config);
        d = await drivers("direct");
      } else {
        host = await startProviderHost();
        await host.configure(config);
        d = await drivers("gRPC host", host);
      }
      const ops = operations(prefix, 1000);
      emu.resetRequests();
      const started = performance.now();
      const failures = await runAll(d, ops);
      const seconds = (performance.now() - started) / 1000;
      const records = emu.requests();
      const refused = records.filter((r) => r.status === 429);
      console.log(
        `concurrency (${mode}): 1000 operations, ${records.length} requests in ${seconds.toFixed(1)} s, ` +
          `${refused.length} refused with 429, peak ${peakPerSecond(records)} requests in one second`,
      );
      expect(failures).toEqual([]);
      // "No or few": a timer that fires late on a loaded machine may let one request land a hair early.
      expect(refused.length).toBeLessThanOrEqual(Math.ceil(records.length / 100));
      // Every request went through the one limiter: the run takes as long as the rate allows.
      expect(records.length).toBeGreaterThanOrEqual(1125);
      expect(seconds).toBeGreaterThan((records.length - SERVER_LIMIT) / SERVER_LIMIT);
      expect(peakPerSecond(records)).toBeLessThanOrEqual(SERVER_LIMIT * 1.1);
      expect(await inventory(prefix)).toEqual({ groups: 250, flags: 250, projects: 250, users: 250 });
    }, 60_000);
  },
);

describe("a server limit below the client's configured rate", () => {
  it("its 429s pause and retry: every operation succeeds, none surfaces a 429", async () => {
    emu.setRateLimit({ requestsPerSecond: 60 });
    try {
      configureDirect(stackConfig(emu, { "flagstack:requestsPerSecond": "1000" }));
      const d = await drivers("direct");
      emu.resetRequests();
      const failures = await runAll(d, operations("slow", 200));
      const refused = emu.requests().filter((r) => r.status === 429);
      console.log(
        `concurrency: server limit 60/s, client 1000/s: ${refused.length} requests refused with 429 and retried`,
      );
      expect(failures).toEqual([]);
      expect(refused.length).toBeGreaterThan(0);
      expect(await inventory("slow")).toEqual({ groups: 50, flags: 50, projects: 50, users: 50 });
    } finally {
      emu.setRateLimit({ requestsPerSecond: SERVER_LIMIT });
    }
  }, 60_000);
});
