/**
 * The provider's `flagstack:adminAuth` setting (env `FLAGSTACK_ADMIN_AUTH`) against the emulator:
 * a Harness token works with no setting (its shape chooses `x-api-key`), the setting overrides the
 * shape, a malformed value fails naming its config key or variable, and the provider keeps one
 * client per mode.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type Emulator, startEmulator } from "../../../emulator";
import {
  adminClient,
  configureProvider,
  providerSettings,
  resetProvider,
} from "../../../provider/core/config";
import { getWorkspace } from "../../../provider/lookups";
import { AdminClient } from "../../../sdk/admin/client";
import { PlatformClient } from "../../../sdk/platform/client";

let emu: Emulator;
beforeAll(async () => {
  emu = await startEmulator({ port: 0 });
});
afterAll(async () => {
  await emu?.stop();
});
afterEach(() => resetProvider());

const configure = (values: Record<string, string>) =>
  configureProvider({
    get: (key: string) =>
      ({ "flagstack:adminApiUrl": emu.url, "flagstack:requestsPerSecond": "1000", ...values })[key],
  });

describe("flagstack:adminAuth", () => {
  it("uses a Harness token in x-api-key with no setting", async () => {
    configure({ "flagstack:adminApiKey": emu.platformKey });
    expect(providerSettings({}).adminAuth).toBeUndefined();
    emu.resetRequests();
    expect((await adminClient(providerSettings({})).workspaces.getByName("Default"))?.name).toBe("Default");
    expect(emu.requests().map((r) => r.status)).toEqual([200]);
  });

  it("sends the key as the setting says, overriding its shape", async () => {
    configure({ "flagstack:adminApiKey": emu.platformKey, "flagstack:adminAuth": "bearer" });
    expect(providerSettings({}).adminAuth).toBe("bearer");
    await expect(adminClient(providerSettings({})).workspaces.getByName("Default")).rejects.toMatchObject({
      status: 401,
    });
    configure({ "flagstack:adminApiKey": emu.adminKey, "flagstack:adminAuth": "x-api-key" });
    expect((await adminClient(providerSettings({})).workspaces.getByName("Default"))?.name).toBe("Default");
  });

  it("falls back to FLAGSTACK_ADMIN_AUTH; one client per mode", () => {
    configure({ "flagstack:adminApiKey": emu.adminKey });
    const env = { FLAGSTACK_ADMIN_AUTH: "x-api-key" };
    expect(providerSettings(env).adminAuth).toBe("x-api-key");
    expect(adminClient(providerSettings(env))).not.toBe(adminClient(providerSettings({})));
    expect(adminClient(providerSettings(env))).toBe(adminClient(providerSettings(env)));
  });

  it("names the config key or the variable of a malformed mode", () => {
    expect(() => configure({ "flagstack:adminAuth": "token" })).toThrow(
      'flagstack: invalid provider configuration: flagstack:adminAuth: must be one of "bearer", "x-api-key"',
    );
    expect(() => providerSettings({ FLAGSTACK_ADMIN_AUTH: "Bearer" })).toThrow(
      'FLAGSTACK_ADMIN_AUTH: must be one of "bearer", "x-api-key"',
    );
  });

  it("a project's Harness token reaches that project's workspace only (emulator/middleware/auth.ts)", async () => {
    const inf = Number.POSITIVE_INFINITY;
    const platform = new PlatformClient({
      baseUrl: emu.url,
      apiKey: emu.platformKey,
      accountId: emu.accountId,
      requestsPerSecond: inf,
    });
    await platform.projects.create({ identifier: "payments", name: "Payments" }, { org: "default" });
    // The project is its FME workspace (issue 38): the account's owner finds it by its identifiers.
    const owner = new AdminClient({ baseUrl: emu.url, apiKey: emu.adminKey, requestsPerSecond: inf });
    const ws = await owner.workspaces.getByHarnessProject("default", "payments");
    expect(ws).toEqual({
      id: ws?.id,
      name: "Payments",
      type: "workspace",
      requiresTitleAndComments: false,
      organizationIdentifier: "default",
      projectIdentifier: "payments",
    });
    if (ws === undefined) throw new Error("unreachable: the project's workspace was just asserted");
    const token = `pat.${emu.accountId}.payments.0123456789`;
    await emu.addKey({
      key: token,
      type: "platform",
      organizations: ["default"],
      projects: ["default/payments"],
    });
    configure({ "flagstack:adminApiKey": token });
    const admin = adminClient(providerSettings({}));
    expect((await admin.workspaces.getByHarnessProject("default", "payments"))?.id).toBe(ws.id);
    expect(await admin.workspaces.getByName("Default")).toBeUndefined();
    const options = { adminApiUrl: emu.url, adminApiKey: token };
    expect((await getWorkspace({ name: "Payments" }, options)).id).toBe(ws.id);
    expect((await getWorkspace({ name: "default/payments" }, options)).id).toBe(ws.id);
    await expect(getWorkspace({ name: "Default" }, options)).rejects.toThrow();
    expect((await admin.flags.create(ws.id, "user", { name: "pay-flag", description: "" })).name).toBe(
      "pay-flag",
    );
    await expect(admin.apiKeys.create({ name: "wider", apiKeyType: "admin" })).rejects.toMatchObject({
      status: 403,
    });
  });

  it("reaches the program-side lookups through their options", async () => {
    const options = { adminApiUrl: emu.url, adminApiKey: emu.platformKey };
    expect((await getWorkspace({ name: "Default" }, options)).name).toBe("Default");
    await expect(
      getWorkspace({ name: "Default" }, { ...options, adminAuth: "bearer" }),
    ).rejects.toMatchObject({
      status: 401,
    });
  });
});
