/**
 * Harness-mode authentication of the admin client against the emulator: the header each mode
 * sends (exactly one credential header), the default chosen by the key's shape, the option's
 * environment fallback and its validation, and a refused key that appears nowhere in the error.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type Emulator, startEmulator } from "../../../emulator";
import { adminAuthForKey } from "../../../sdk/admin/auth";
import { AdminClient, type AdminClientOptions } from "../../../sdk/admin/client";
import { ConfigurationError } from "../../../sdk/core/options";
import { type Recorder, recordingDispatcher } from "../helpers/recording-dispatcher";

let emu: Emulator;
let rec: Recorder;
beforeAll(async () => {
  emu = await startEmulator({ port: 0 });
  rec = recordingDispatcher();
});
afterAll(async () => {
  await emu?.stop();
});
beforeEach(() => {
  rec.sent.length = 0;
});

const client = (o: AdminClientOptions) =>
  new AdminClient({
    baseUrl: emu.url,
    requestsPerSecond: Infinity,
    dispatcher: rec.dispatcher,
    env: {},
    ...o,
  });

/** The credential headers of the one request sent. */
const credentialHeaders = () => {
  expect(rec.sent).toHaveLength(1);
  const h = rec.sent[0]!.headers;
  return { authorization: h.authorization, "x-api-key": h["x-api-key"] };
};

describe("AdminClient authentication", () => {
  it("sends an admin key as Authorization: Bearer by default", async () => {
    const ws = await client({ apiKey: emu.adminKey }).workspaces.getByName("Default");
    expect(ws?.name).toBe("Default");
    expect(credentialHeaders()).toEqual({ authorization: `Bearer ${emu.adminKey}`, "x-api-key": undefined });
  });

  it("sends a Harness token in x-api-key, chosen by its shape", async () => {
    expect(adminAuthForKey(emu.platformKey)).toBe("x-api-key");
    const ws = await client({ apiKey: emu.platformKey }).workspaces.getByName("Default");
    expect(ws?.name).toBe("Default");
    expect(credentialHeaders()).toEqual({ authorization: undefined, "x-api-key": emu.platformKey });
  });

  it("sends an admin key in x-api-key when told to (the emulator accepts both modes per key)", async () => {
    await client({ apiKey: emu.adminKey, adminAuth: "x-api-key" }).workspaces.getByName("Default");
    expect(credentialHeaders()).toEqual({ authorization: undefined, "x-api-key": emu.adminKey });
  });

  it("takes the mode from FLAGSTACK_ADMIN_AUTH when the option is absent", async () => {
    await client({ apiKey: emu.adminKey, env: { FLAGSTACK_ADMIN_AUTH: "x-api-key" } }).workspaces.getByName(
      "Default",
    );
    expect(credentialHeaders()).toEqual({ authorization: undefined, "x-api-key": emu.adminKey });
  });

  it("refuses a Harness token forced into Bearer with a 401 that never shows the token", async () => {
    const error = await client({ apiKey: emu.platformKey, adminAuth: "bearer" })
      .workspaces.getByName("Default")
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(error).toMatchObject({ status: 401 });
    const text = JSON.stringify({ ...(error as object), message: (error as Error).message });
    expect(text).not.toContain(emu.platformKey);
    expect((error as Error).message).toContain("check the admin API key");
  });

  it("names the Harness token and its header in a 401 of x-api-key mode, without the token", async () => {
    const wrong = "pat.acct123.tok456.secret789abc";
    const error = await client({ apiKey: wrong })
      .workspaces.getByName("Default")
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(error).toMatchObject({ status: 401 });
    expect(credentialHeaders()).toEqual({ authorization: undefined, "x-api-key": wrong });
    expect((error as Error).message).toContain("check the Harness token sent in x-api-key");
    expect(JSON.stringify({ ...(error as object), message: (error as Error).message })).not.toContain(wrong);
  });

  it("refuses an unknown mode, naming the option or the variable, with no request", () => {
    expect(() => client({ apiKey: "k-123456", adminAuth: "basic" as never })).toThrow(
      'AdminClient: adminAuth must be one of "bearer", "x-api-key", got "basic"',
    );
    const fromEnv = () => client({ apiKey: "k-123456", env: { FLAGSTACK_ADMIN_AUTH: "header" } });
    expect(fromEnv).toThrow(
      'AdminClient: FLAGSTACK_ADMIN_AUTH must be one of "bearer", "x-api-key", got "header"',
    );
    expect(fromEnv).toThrow(ConfigurationError);
    expect(rec.sent).toEqual([]);
  });

  it("tells Harness tokens from admin keys by shape", () => {
    expect(adminAuthForKey("pat.acc.tid.secret")).toBe("x-api-key");
    expect(adminAuthForKey("sat.acc.tid.secret")).toBe("x-api-key");
    expect(adminAuthForKey("adm-0123456789abcdef")).toBe("bearer");
    expect(adminAuthForKey("pat.only.three")).toBe("bearer");
  });
});
