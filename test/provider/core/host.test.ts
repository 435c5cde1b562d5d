/**
 * The provider process ends when the engine does (provider/core/host.ts): the real
 * dynamic-provider host, once flagstack's provider is loaded, exits within a few seconds of its
 * engine endpoint going away, and stays up while the engine is there.
 */
import { afterAll, describe, expect, it } from "vitest";
import { engineAddress } from "../../../provider/core/host";
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
