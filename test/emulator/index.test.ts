/** `startEmulator` options and the seeded account (brief contract, issue 3 "Start"). */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Emulator, startEmulator } from "../../emulator";
import { type Call, caller } from "./helpers";

describe("startEmulator", () => {
  let emu: Emulator;
  let call: Call;
  beforeAll(async () => {
    emu = await startEmulator({
      adminKey: "given-admin-key",
      sdkKey: "given-sdk-key",
      platformKey: "given-platform-key",
      accountId: "acct_1",
    });
    call = caller(emu);
  });
  afterAll(() => emu.stop());

  it("binds 127.0.0.1 on a free port and exposes the keys it was given", () => {
    expect(emu.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(emu.url).toBe(`http://127.0.0.1:${emu.port}`);
    expect({
      admin: emu.adminKey,
      sdk: emu.sdkKey,
      platform: emu.platformKey,
      account: emu.accountId,
    }).toEqual({
      admin: "given-admin-key",
      sdk: "given-sdk-key",
      platform: "given-platform-key",
      account: "acct_1",
    });
    expect(emu.sdkKeys).toEqual({
      Production: "given-sdk-key",
      Staging: expect.stringMatching(/^sdk-[0-9a-f]{32}$/),
    });
    expect(emu.statePath).toBeUndefined();
  });

  it("seeds the account: Default, Production (production) and Staging, user and account, the rollout statuses", async () => {
    const ws = (await call("GET", "/internal/api/v2/workspaces")).body.objects;
    expect(ws).toEqual([
      { name: "Default", type: "workspace", id: expect.any(String), requiresTitleAndComments: false },
    ]);
    const envs = (await call("GET", `/internal/api/v2/environments/ws/${ws[0].id}`)).body;
    expect(envs.map((e: { name: string; production: boolean }) => [e.name, e.production])).toEqual([
      ["Production", true],
      ["Staging", false],
    ]);
    const tts = (await call("GET", `/internal/api/v2/trafficTypes/ws/${ws[0].id}`)).body;
    expect(tts.map((t: { name: string }) => t.name)).toEqual(["user", "account"]);
    const statuses = (await call("GET", `/internal/api/v2/rolloutStatuses?wsId=${ws[0].id}`)).body;
    expect(statuses.slice(0, 3).map((s: { name: string }) => s.name)).toEqual([
      "Pre-Production",
      "Ramping",
      "Experimenting",
    ]);
    const org = await call("GET", "/ng/api/projects?accountIdentifier=acct_1&orgIdentifier=default", {
      key: null,
      headers: { "x-api-key": emu.platformKey },
    });
    expect(org.status).toBe(200);
  });

  it("generates keys when none are given", async () => {
    const other = await startEmulator();
    try {
      expect(other.adminKey).toMatch(/^adm-[0-9a-f]{32}$/);
      expect(other.sdkKey).toMatch(/^sdk-[0-9a-f]{32}$/);
      expect(other.platformKey.startsWith(`pat.${other.accountId}.`)).toBe(true);
      expect(other.adminKey).not.toBe(emu.adminKey);
    } finally {
      await other.stop();
    }
  });

  it.each([
    [{ port: 70000 }, "startEmulator: port: Too big: expected number to be <=65535"],
    [{ adminKey: "short" }, "startEmulator: adminKey: key must be at least 8 characters"],
    [
      { accountId: "has space" },
      "startEmulator: accountId: accountId must be 1-64 letters, digits, '-' or '_'",
    ],
    [{ colour: "red" }, 'startEmulator: options: Unrecognized key: "colour"'],
  ])("refuses %j", async (opts, message) => {
    await expect(startEmulator(opts as never)).rejects.toThrow(message);
  });

  it("stops idempotently and frees its port", async () => {
    const other = await startEmulator();
    await Promise.all([other.stop(), other.stop()]);
    await expect(fetch(`${other.url}/_emulator/health`)).rejects.toThrow("fetch failed");
  });
});
