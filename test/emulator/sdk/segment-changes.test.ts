/** `GET /api/segmentChanges/{name}` (ref wire §4): full list, deltas, `since == till` when current. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Emulator } from "../../../emulator";
import { adminError, type Call, start } from "../helpers";

let emu: Emulator;
let call: Call;
let ws: { id: string };
const seg = (name: string, since: number, key = emu.sdkKey) =>
  call("GET", `/api/segmentChanges/${name}?since=${since}`, { key });

beforeAll(async () => {
  ({ emu, call, ws } = await start());
  await call("POST", `/internal/api/v2/segments/ws/${ws.id}/trafficTypes/user`, { body: { name: "beta" } });
  await call("POST", "/internal/api/v2/segments/Production/beta");
});
afterAll(() => emu.stop());

describe("GET /api/segmentChanges/{name}", () => {
  it("serves an unknown or inactive segment empty with till == since", async () => {
    expect((await seg("nope", -1)).body).toEqual({
      name: "nope",
      added: [],
      removed: [],
      since: -1,
      till: -1,
    });
    expect((await seg("beta", -1, emu.sdkKeys.Staging)).body).toEqual({
      name: "beta",
      added: [],
      removed: [],
      since: -1,
      till: -1,
    });
  });

  it("serves every member from -1, nothing once current, and deltas after changes", async () => {
    await call("PUT", "/internal/api/v2/segments/Production/beta/uploadKeys?replace=false", {
      body: { keys: ["a", "b", "c"] },
    });
    const full = (await seg("beta", -1)).body;
    expect(full).toEqual({
      name: "beta",
      added: ["a", "b", "c"],
      removed: [],
      since: -1,
      till: expect.any(Number),
    });
    expect((await seg("beta", full.till)).body).toEqual({
      name: "beta",
      added: [],
      removed: [],
      since: full.till,
      till: full.till,
    });
    await call("PUT", "/internal/api/v2/segments/Production/beta/uploadKeys?replace=true", {
      body: { keys: ["b", "c", "d"] },
    });
    const delta = (await seg("beta", full.till)).body;
    expect(delta).toEqual({
      name: "beta",
      added: ["d"],
      removed: ["a"],
      since: full.till,
      till: expect.any(Number),
    });
    expect(delta.till).toBeGreaterThan(full.till);
    expect((await seg("beta", -1)).body.added).toEqual(["b", "c", "d"]);
  });

  it("refuses a client-side SDK key with 403", async () => {
    const envBody = (
      await call("POST", `/internal/api/v2/environments/ws/${ws.id}`, { body: { name: "Web" } })
    ).body;
    const clientKey = envBody.apiTokens.find(
      (t: { apiKeyType: string }) => t.apiKeyType === "client_side",
    ).key;
    const r = await seg("beta", -1, clientKey);
    expect(r.status).toBe(403);
    expect(r.body).toEqual(adminError(403, "segmentChanges takes a server-side SDK key"));
  });
});
