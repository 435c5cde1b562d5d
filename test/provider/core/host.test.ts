/**
 * The provider process ends when the engine does (provider/core/host.ts): the real
 * dynamic-provider host, once flagstack's provider is loaded, exits within a few seconds of its
 * engine endpoint going away, and stays up while the engine is there; work held with `holdExit`
 * (a create whose answer must be noted for `flagstack recover`) is finished first.
 */
import { createServer } from "node:net";
import { afterAll, describe, expect, it, vi } from "vitest";
import {
  ENGINE_PROBE_MS,
  engineAddress,
  heldWorkSettled,
  holdExit,
  watchEngine,
} from "../../../provider/core/host";
import { flagProviderText } from "../../../provider/flags/flag";
import { hostDriver, type ProviderHost, startProviderHost } from "../harness";

const HOST_SCRIPT = "/app/node_modules/@pulumi/pulumi/cmd/dynamic-provider/index.js";
const realSetTimeout = setTimeout;
/** Real time for the sockets' events while the timers are fake. */
const sleepReal = (ms: number) => new Promise((resolve) => realSetTimeout(resolve, ms));

describe("engineAddress", () => {
  it.each([
    [["node", HOST_SCRIPT, "127.0.0.1:43615"], { host: "127.0.0.1", port: 43615 }],
    [["node", "/app/node_modules/@pulumi/pulumi/cmd/dynamic-provider", "[::1]:9"], { host: "::1", port: 9 }],
    [
      ["node", "C:\\app\\node_modules\\@pulumi\\pulumi\\cmd\\dynamic-provider\\index.js", "localhost:1"],
      { host: "localhost", port: 1 },
    ],
  ])("reads the engine's address from the host's arguments %j", (argv, expected) => {
    expect(engineAddress(argv)).toEqual(expected);
  });

  it.each([
    [["node", "/app/index.js", "127.0.0.1:43615"]],
    [["node", HOST_SCRIPT]],
    [["node", HOST_SCRIPT, "not-an-address"]],
  ])("is undefined outside the host or without an address %j", (argv) => {
    expect(engineAddress(argv)).toBeUndefined();
  });
});

describe("the dynamic-provider host with flagstack's provider loaded", () => {
  let host: ProviderHost | undefined;
  afterAll(async () => {
    await host?.stop();
  });

  it("stays up while the engine listens, and exits with status 1 once the engine is gone", async () => {
    host = await startProviderHost();
    await host.configure({
      "flagstack:adminApiUrl": "http://127.0.0.1:9",
      "flagstack:adminApiKey": "k".repeat(16),
    });
    const driver = hostDriver(host, flagProviderText);
    // The first verb loads the provider and runs its configure, which starts the watch.
    const checked = await driver.check({}, { workspace: "Default", name: "watched" });
    expect(checked.failures).toEqual([]);
    const state = await Promise.race([
      host.exited.then(() => "exited"),
      new Promise((resolve) => setTimeout(() => resolve("running"), 2500)),
    ]);
    expect(state).toBe("running");
    await host.closeEngine();
    expect(await host.exited).toBe(1);
  }, 20_000);
});

describe("work held when the engine is gone", () => {
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  it("the watch calls onGone only once the held work has settled", async () => {
    const engine = createServer();
    await new Promise<void>((resolve) => engine.listen(0, "127.0.0.1", resolve));
    const { port } = engine.address() as { port: number };
    const events: string[] = [];
    const answer = sleep(800).then(() => {
      events.push("answer noted");
    });
    expect(holdExit(answer)).toBe(answer);
    watchEngine(["node", HOST_SCRIPT, `127.0.0.1:${port}`], () => events.push("gone"), 50, 10_000);
    await sleep(200);
    expect(events).toEqual([]);
    await new Promise<void>((resolve) => engine.close(() => resolve()));
    for (let i = 0; i < 60 && !events.includes("gone"); i++) await sleep(50);
    expect(events).toEqual(["answer noted", "gone"]);
  });

  it("waits at most the bound it is given, as long as held work lasts, and at once when nothing is held", async () => {
    vi.useFakeTimers();
    try {
      const t0 = performance.now();
      // Nothing held: no timer, no time passes.
      await heldWorkSettled(1000);
      expect([vi.getTimerCount(), performance.now() - t0]).toEqual([0, 0]);

      // Work that outlasts the bound: settled when the bound ends, not a millisecond before.
      let finishSlow = () => {};
      void holdExit(new Promise<void>((resolve) => (finishSlow = resolve)));
      let bounded: number | undefined;
      void heldWorkSettled(300).then(() => (bounded = performance.now() - t0));
      await vi.advanceTimersByTimeAsync(299);
      expect(bounded).toBeUndefined();
      await vi.advanceTimersByTimeAsync(1);
      expect([bounded, vi.getTimerCount()]).toEqual([300, 0]);

      // Work that ends within the bound: settled when it ends, its timer cleared.
      finishSlow();
      let finishQuick = () => {};
      void holdExit(new Promise<void>((resolve) => (finishQuick = resolve)));
      let settled: number | undefined;
      void heldWorkSettled(1000).then(() => (settled = performance.now() - t0));
      await vi.advanceTimersByTimeAsync(100);
      expect([settled, vi.getTimerCount()]).toEqual([undefined, 1]);
      finishQuick();
      await vi.advanceTimersByTimeAsync(0);
      expect([settled, vi.getTimerCount()]).toEqual([400, 0]);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe("the watch's probe period", () => {
  it("is half a second by default", () => {
    expect(ENGINE_PROBE_MS).toBe(500);
  });

  it("dials the engine every interval: a closed engine is noticed at the first probe after it, not before", async () => {
    // A fresh copy of the module: a process starts one watch, and the test above started this one's.
    vi.resetModules();
    const fresh = await import("../../../provider/core/host.js");
    const engine = createServer();
    await new Promise<void>((resolve) => engine.listen(0, "127.0.0.1", resolve));
    const { port } = engine.address() as { port: number };
    vi.useFakeTimers({ toFake: ["setInterval", "clearInterval", "setTimeout", "clearTimeout"] });
    try {
      const gone: string[] = [];
      fresh.watchEngine(["node", HOST_SCRIPT, `127.0.0.1:${port}`], () => gone.push("gone"), 1000, 10_000);
      // Probes at 1 s and 2 s find the engine listening.
      await vi.advanceTimersByTimeAsync(2000);
      await sleepReal(100);
      expect(gone).toEqual([]);
      await new Promise<void>((resolve) => engine.close(() => resolve()));
      await vi.advanceTimersByTimeAsync(999);
      await sleepReal(100);
      expect(gone).toEqual([]);
      await vi.advanceTimersByTimeAsync(1);
      // (vi.waitFor would move the fake clock on: wait in real time instead.)
      for (let i = 0; i < 500 && gone.length === 0; i++) await sleepReal(10);
      expect(gone).toEqual(["gone"]);
      // No further probe once the engine is gone.
      expect(vi.getTimerCount()).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });
});
