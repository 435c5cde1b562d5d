/**
 * Everything a provider lifecycle test needs: the emulator on port 0, a recording proxy in front
 * of it (request bodies), the real dynamic-provider gRPC host configured through `Configure` with
 * the proxy's URL and the admin key, the process settings configured the same way for direct calls,
 * and an SDK client straight to the emulator for out-of-band changes.
 * @module
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it } from "vitest";
import { type Emulator, startEmulator } from "../../emulator";
import { configureProvider, resetProvider } from "../../provider/core/config";
import { AdminClient, PlatformClient } from "../../sdk";
import {
  type Driver,
  directDriver,
  hostDriver,
  type Impl,
  MODES,
  type Mode,
  type ProviderHost,
  type RecordingProxy,
  startProviderHost,
  startRecordingProxy,
} from "./harness";

/** A running testbed. */
export interface Testbed {
  emu: Emulator;
  proxy: RecordingProxy;
  host: ProviderHost;
  /** Talks to the emulator directly: the "someone else" of out-of-band changes. */
  admin: AdminClient;
  /** The same, for the platform API. */
  platform: PlatformClient;
  /** The stack config given to the host (and to the direct settings). */
  config: Record<string, string>;
  /** A driver for `mode`: the implementation object, or the host with the `__provider` text. */
  driver(mode: Mode, impl: Impl, provider: string): Promise<Driver>;
  /** A driver for every mode. */
  drivers(impl: Impl, provider: string): Promise<Record<Mode, Driver>>;
  /** `METHOD path` of each request the provider sent since the last {@link reset}. */
  sent(): string[];
  /** Forgets every request seen so far, by the emulator and by the proxy. */
  reset(): void;
  stop(): Promise<void>;
}

/** A short identifier-safe tag per mode, for names that must differ between the two runs. */
export const slug = (mode: Mode): string => (mode === "direct" ? "d" : "g");

let serial = 0;
/**
 * A name that no other test of the file uses: `prefix`, `separator` and a three-digit serial
 * (`checkout-d-007`). Each lifecycle test makes its own objects under such names, so it passes
 * alone (`vitest -t`) as well as after its neighbours, whose objects it never sees.
 */
export function unique(prefix: string, separator = "-"): string {
  serial += 1;
  return `${prefix}${separator}${String(serial).padStart(3, "0")}`;
}

/** Starts a {@link Testbed}. */
export async function startTestbed(): Promise<Testbed> {
  const emu = await startEmulator({ port: 0 });
  const proxy = await startRecordingProxy(emu.url);
  // The engine sets these for the provider; direct calls see the same stack as the host.
  process.env.PULUMI_NODEJS_PROJECT = "shop";
  process.env.PULUMI_NODEJS_STACK = "dev";
  // What creates note for `flagstack recover` (provider/core/created-journal.ts) stays out of $HOME.
  process.env.FLAGSTACK_JOURNAL_DIR ||= mkdtempSync(join(tmpdir(), "flagstack-journal-"));
  const host = await startProviderHost();
  const config = {
    "flagstack:adminApiUrl": proxy.url,
    "flagstack:adminApiKey": emu.adminKey,
    "flagstack:platformApiUrl": proxy.url,
    "flagstack:platformApiKey": emu.platformKey,
    "flagstack:accountId": emu.accountId,
    // A local emulator needs no client-side pacing; the default (10/s) would only slow the tests.
    "flagstack:requestsPerSecond": "1000",
  };
  await host.configure(config);
  resetProvider();
  configureProvider({ get: (k) => config[k as keyof typeof config] });
  const admin = new AdminClient({
    baseUrl: emu.url,
    apiKey: emu.adminKey,
    requestsPerSecond: Number.POSITIVE_INFINITY,
  });
  const platform = new PlatformClient({
    baseUrl: emu.url,
    apiKey: emu.platformKey,
    accountId: emu.accountId,
    requestsPerSecond: Number.POSITIVE_INFINITY,
  });
  const driver = async (mode: Mode, impl: Impl, provider: string): Promise<Driver> =>
    mode === "direct" ? directDriver(impl) : hostDriver(host, provider);
  return {
    emu,
    proxy,
    host,
    admin,
    platform,
    config,
    driver,
    async drivers(impl, provider) {
      return {
        direct: await driver("direct", impl, provider),
        "gRPC host": await driver("gRPC host", impl, provider),
      };
    },
    sent: () => proxy.requests().map((r) => `${r.method} ${r.path}`),
    reset() {
      emu.resetRequests();
      proxy.reset();
    },
    async stop() {
      await host.stop();
      await proxy.stop();
      await emu.stop();
      resetProvider();
    },
  };
}

/** A `check` refusal case: label, inputs, the property named, and a part of the reason. */
export type RefusalRow = readonly [
  label: string,
  inputs: Record<string, unknown>,
  property: string,
  reason: string,
];

/**
 * Registers, for every row and both modes, a test that `check` refuses the inputs with a failure
 * naming the property, and that no request reached the emulator. `state` is read when the tests
 * run (after `beforeAll` has started the testbed).
 */
export function itRefusesWithNoRequest(
  rows: readonly RefusalRow[],
  state: () => { bed: Testbed; drivers: Record<Mode, Driver> },
): void {
  for (const mode of MODES) {
    it.each(rows)(
      `refuses %s, naming %s, with no request (${mode})`,
      async (_label, inputs, property, reason) => {
        const { bed, drivers } = state();
        bed.reset();
        const result = await drivers[mode].check({}, inputs);
        expect(result.failures).toContainEqual({ property, reason: expect.stringContaining(reason) });
        expect(bed.emu.requests()).toEqual([]);
      },
    );
  }
}

/** Creates the platform project `identifier` in the default org, as the platform tests' fixture. */
export async function createProject(
  platform: PlatformClient,
  identifier: string,
  name: string,
): Promise<void> {
  await platform.projects.create(
    {
      orgIdentifier: "default",
      identifier,
      name,
      color: "#0063F7",
      modules: [],
      description: "",
      tags: {},
    },
    { org: "default" },
  );
}

/** Creates the environment `name` of workspace `wsId` requiring approvals, as the change-request tests' fixture; its id. */
export async function createGatedEnvironment(
  admin: AdminClient,
  wsId: string,
  name = "Gated",
): Promise<string> {
  const env = await admin.environments.create(wsId, {
    name,
    production: true,
    changePermissions: { areApprovalsRequired: true },
  });
  return env.id;
}
