/**
 * Conformance: spec §2 "Traffic type" (named in the path when creating a flag); ref admin §1.1
 * (bare-array list, create, delete).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Emulator } from "../../../emulator";
import { adminError, type Call, start } from "../helpers";

const UUID = expect.stringMatching(/^[0-9a-f-]{36}$/);
let emu: Emulator;
let call: Call;
let ws: { id: string; name: string };

beforeAll(async () => {
  ({ emu, call, ws } = await start());
});
afterAll(() => emu.stop());

describe("traffic types", () => {
  it("lists the seeded user and account traffic types as a bare array", async () => {
    const r = await call("GET", `/internal/api/v2/trafficTypes/ws/${ws.id}`);
    expect(r.status).toBe(200);
    const workspace = { id: ws.id, name: "Default", type: "workspace" };
    expect(r.body).toEqual([
      { name: "user", type: "trafficType", id: UUID, displayAttributeId: null, workspace },
      { name: "account", type: "trafficType", id: UUID, displayAttributeId: null, workspace },
    ]);
  });

  it("creates one, refuses a duplicate (names are case-insensitive for the SDK) and a bad name", async () => {
    const r = await call("POST", `/internal/api/v2/trafficTypes/ws/${ws.id}`, { body: { name: "device" } });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ name: "device", type: "trafficType", id: UUID });
    const dup = await call("POST", `/internal/api/v2/trafficTypes/ws/${ws.id}`, { body: { name: "Device" } });
    expect(dup.status).toBe(409);
    expect(dup.body).toEqual(
      adminError(409, "Traffic type with name Device already exists in workspace Default"),
    );
    const bad = await call("POST", `/internal/api/v2/trafficTypes/ws/${ws.id}`, { body: { name: "9lives" } });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual(
      adminError(400, "name: name must start with a letter and use only letters, digits, '-' and '_'"),
    );
  });

  it("refuses to delete a traffic type used by a flag, and deletes an unused one", async () => {
    const tts = (await call("GET", `/internal/api/v2/trafficTypes/ws/${ws.id}`)).body;
    const account = tts.find((t: { name: string }) => t.name === "account");
    await call("POST", `/internal/api/v2/splits/ws/${ws.id}/trafficTypes/account`, {
      body: { name: "acct_flag" },
    });
    const refused = await call("DELETE", `/internal/api/v2/trafficTypes/${account.id}`);
    expect(refused.status).toBe(409);
    expect(refused.body).toEqual(
      adminError(
        409,
        "Traffic type account is used by 1 feature flag(s) (acct_flag, ...); delete them first",
      ),
    );
    const device = tts.find((t: { name: string }) => t.name === "device");
    const r = await call("DELETE", `/internal/api/v2/trafficTypes/${device.id}`);
    expect(r.status).toBe(200);
    expect(r.text).toBe("true");
    const missing = await call("DELETE", `/internal/api/v2/trafficTypes/${device.id}`);
    expect(missing.status).toBe(404);
  });
});
