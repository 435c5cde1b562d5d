/**
 * The HTTP core under the emulator's server-side rate limit and injected faults: bursts never
 * surface a 429, idempotent calls survive 429/503/resets, non-idempotent ones fail clearly and are
 * never duplicated.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type Emulator, startEmulator } from "../../../emulator";
import { AdminClient } from "../../../sdk/admin/client";
import type { Workspace } from "../../../sdk/admin/schemas";
import { ApiError, NetworkError } from "../../../sdk/core/errors";
import { closeSharedPools } from "../../../sdk/core/pool";
import type { RetryEvent } from "../../../sdk/core/request";

let emu: Emulator;
let ws: Workspace;

beforeAll(async () => {
  emu = await startEmulator({ port: 0 });
  const setup = new AdminClient({ baseUrl: emu.url, apiKey: emu.adminKey, requestsPerSecond: Infinity });
  ws = (await setup.workspaces.getByName("Default"))!;
  await setup.flags.create(ws.id, "user", { name: "burst-flag" });
});
afterEach(() => {
  emu.setFaults({});
  emu.setRateLimit(null);
  emu.resetRequests();
});
afterAll(async () => {
  await emu.stop();
  await closeSharedPools();
});

describe("a burst through the server's rate limit", () => {
  it("500 concurrent calls at the server's limit: every call succeeds, at most a few 429s, each retried unseen", async () => {
    emu.setRateLimit({ requestsPerSecond: 100 });
    emu.resetRequests();
    const retries: RetryEvent[] = [];
    const admin = new AdminClient({
      baseUrl: emu.url,
      apiKey: emu.adminKey,
      requestsPerSecond: 100,
      onRetry: (e) => retries.push(e),
    });
    const calls = Array.from({ length: 500 }, (_, i) =>
      i % 5 === 4
        ? admin.groups.create({ name: `burst-group-${i}`, description: "" })
        : i % 2
          ? admin.flags.get(ws.id, "burst-flag")
          : admin.environments.list(ws.id),
    );
    const results = await Promise.allSettled(calls);
    // What a user sees: every call succeeded.
    expect(results.filter((r) => r.status === "rejected")).toEqual([]);
    const log = emu.requests();
    const refused = log.filter((r) => r.status === 429);
    expect(log.filter((r) => r.status >= 200 && r.status < 300)).toHaveLength(500);
    // The limiter keeps the client 2% under the server's rate, so a 429 is rare; but on a loaded
    // machine a timer that fires late, then a catch-up, can put one request into a server window
    // that is already full (issue 15: 501 requests, one 429). Such a 429 is retried and never
    // surfaces; a handful at most, each told to onRetry, never a storm. How long the burst takes is
    // measured by the benchmarks, not asserted here.
    expect(refused.length).toBeLessThanOrEqual(5);
    expect(log).toHaveLength(500 + refused.length);
    expect(retries.map((r) => r.reason)).toEqual(refused.map(() => "429"));
  }, 30_000);

  it("a client set faster than the server: 429s are retried after the advised wait, none surfaces", async () => {
    emu.setRateLimit({ requestsPerSecond: 50 });
    const retries: RetryEvent[] = [];
    const direct = new AdminClient({
      baseUrl: emu.url,
      apiKey: emu.adminKey,
      requestsPerSecond: 200,
      maxConcurrent: 20,
      onRetry: (e) => retries.push(e),
    });
    const results = await Promise.allSettled(
      Array.from({ length: 150 }, () => direct.flags.get(ws.id, "burst-flag")),
    );
    expect(results.filter((r) => r.status === "rejected")).toEqual([]);
    const log = emu.requests();
    const refused = log.filter((r) => r.status === 429).length;
    expect(refused).toBeGreaterThan(0);
    expect(log.filter((r) => r.status === 200)).toHaveLength(150);
    expect(retries.length).toBe(refused);
    // every retry waited the server's X-RateLimit-Reset-Seconds (1 s in the emulator)
    expect(new Set(retries.map((r) => `${r.reason} ${r.delayMs}`))).toEqual(new Set(["429 1000"]));
  }, 60_000);
});

describe("injected faults", () => {
  const client = (retries: RetryEvent[] = []) =>
    new AdminClient({
      baseUrl: emu.url,
      apiKey: emu.adminKey,
      requestsPerSecond: Infinity,
      retryBaseDelayMs: 20,
      retryMaxDelayMs: 100,
      maxRetries: 8,
      onRetry: (e) => retries.push(e),
    });

  it("idempotent calls (GET, PUT, DELETE) succeed through 429s, 503s and dropped connections", async () => {
    const retries: RetryEvent[] = [];
    const admin = client(retries);
    const groups = await Promise.all(
      Array.from({ length: 8 }, (_, i) => admin.groups.create({ name: `fault-g-${i}`, description: "" })),
    );
    emu.resetRequests();
    emu.setFaults({ rate429: 0.1, rate503: 0.2, dropRate: 0.15, dropAfterRate: 0.1, seed: 7 });
    const reads = await Promise.allSettled(
      Array.from({ length: 20 }, () => admin.flags.get(ws.id, "burst-flag")),
    );
    const puts = await Promise.allSettled(
      groups.map((g) => admin.groups.put(g.id, { name: `${g.name}-renamed`, description: "x" })),
    );
    // a DELETE whose response was lost finds the group gone on its retry: that is success
    const deletes = await Promise.allSettled(groups.map((g) => admin.groups.delete(g.id)));
    for (const results of [reads, puts, deletes])
      expect(results.filter((r) => r.status === "rejected")).toEqual([]);
    expect(deletes.map((r) => (r as PromiseFulfilledResult<unknown>).value)).toEqual(groups.map(() => true));
    const faults = emu
      .requests()
      .map((r) => r.fault)
      .filter(Boolean);
    expect(new Set(faults)).toEqual(new Set(["429", "503", "drop", "drop-after"]));
    expect(retries.length).toBe(faults.length);
    expect(new Set(retries.map((r) => r.reason))).toEqual(new Set(["429", "503", "UND_ERR_SOCKET"]));
  }, 60_000);

  it("a POST answered 503 fails at once with a clear error and changes nothing", async () => {
    const admin = client();
    emu.setFaults({ rate503: 1, seed: 1 });
    const p = admin.groups.create({ name: "fault-503", description: "" });
    await expect(p).rejects.toBeInstanceOf(ApiError);
    await expect(p).rejects.toMatchObject({
      status: 503,
      outcomeUnknown: false,
      attempts: 1,
      apiMessage: "Service unavailable (injected fault)",
    });
    const err = (await p.catch((e: unknown) => e)) as ApiError;
    expect(err.message).toBe(
      `POST /internal/api/v2/groups: 503 Service unavailable (injected fault) (transaction ${err.transactionId})`,
    );
    emu.setFaults({});
    expect(await admin.groups.getByName("fault-503")).toBeUndefined();
    expect(emu.requests().filter((r) => r.method === "POST")).toHaveLength(1);
  });

  it("a POST whose response is lost is not re-sent: outcome unknown, and it was in fact applied", async () => {
    const admin = client();
    emu.setFaults({ dropAfterRate: 1, seed: 1 });
    const p = admin.groups.create({ name: "fault-lost", description: "" });
    await expect(p).rejects.toBeInstanceOf(NetworkError);
    await expect(p).rejects.toMatchObject({
      status: 0,
      outcomeUnknown: true,
      attempts: 1,
      message:
        "POST /internal/api/v2/groups: network error: connection closed by the server; the request may have reached the server, so its outcome is unknown and it was not retried",
    });
    emu.setFaults({});
    // a blind retry would have hit a ConflictError (or created a duplicate where names are not unique)
    expect(await admin.groups.getByName("fault-lost")).toMatchObject({ name: "fault-lost" });
    expect(emu.requests().filter((r) => r.method === "POST")).toHaveLength(1);
  });

  it("a PATCH whose connection drops is not re-sent either", async () => {
    const admin = client();
    emu.setFaults({ dropRate: 1, seed: 1 });
    await expect(admin.flags.setDescription(ws.id, "burst-flag", "x")).rejects.toMatchObject({
      kind: "network",
      outcomeUnknown: true,
      attempts: 1,
    });
    expect(emu.requests()).toHaveLength(1);
  });

  it("a POST answered 429 is retried (the API did nothing) and succeeds once", async () => {
    const retries: RetryEvent[] = [];
    const admin = client(retries);
    emu.setFaults({ rate429: 1, seed: 1 });
    const p = admin.groups.create({ name: "fault-429", description: "" });
    setTimeout(() => emu.setFaults({}), 100);
    await expect(p).resolves.toMatchObject({ name: "fault-429" });
    expect(retries.map((r) => `${r.method} ${r.reason} ${r.delayMs}`)).toEqual(["POST 429 1000"]);
    expect(emu.requests().map((r) => r.status)).toEqual([429, 200]);
  });

  it("an idempotent call that keeps failing stops after maxRetries with the count in the message", async () => {
    const admin = new AdminClient({
      baseUrl: emu.url,
      apiKey: emu.adminKey,
      requestsPerSecond: Infinity,
      maxRetries: 2,
      retryBaseDelayMs: 5,
    });
    emu.setFaults({ rate503: 1, seed: 1 });
    const err = (await admin.environments.list(ws.id).catch((e: unknown) => e)) as ApiError;
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ status: 503, attempts: 3 });
    expect(err.message).toBe(
      `GET /internal/api/v2/environments/ws/${ws.id}: 503 Service unavailable (injected fault) (transaction ${err.transactionId}) [after 3 attempts]`,
    );
    expect(emu.requests()).toHaveLength(3);
  });
});
