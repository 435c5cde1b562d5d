/**
 * The provider process ends when the engine does (provider/core/host.ts): the real
 * dynamic-provider host, once flagstack's provider is loaded, exits within a few seconds of its
 * engine endpoint going away, and stays up while the engine is there; work held with `holdExit`
 * (a create whose answer must be noted for `flagstack recover`) is finished first.
 */
import { createServer } from "node:net";
import { afterAll, describe, expect, it } from "vitest";
import { engineAddress, heldWorkSettled, holdExit, watchEngine } from "../../../provider/core/host";
import { flagProviderText } from "../../../provider/flag";
import { hostDriver, type ProviderHost, startProviderHost } from "../harness";

const HOST_SCRIPT = "/app/node_modules/@pulumi/pulumi/cmd/dynamic-provider/index.js";

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

  it("waits at most the bound it is given, and at once when nothing is held", async () => {
    const started = Date.now();
    await heldWorkSettled(1000);
    expect(Date.now() - started).toBeLessThan(100);
    void holdExit(sleep(3000));
    const bounded = Date.now();
    await heldWorkSettled(300);
    const waited = Date.now() - bounded;
    expect(waited).toBeGreaterThanOrEqual(290);
    expect(waited).toBeLessThan(2000);
  });
});
