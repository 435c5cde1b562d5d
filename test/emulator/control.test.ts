/** Control routes (`/_emulator/...`) and the request log (issue 3 "Measurement and faults"). */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Emulator } from "../../emulator";
import { adminError, type Call, start } from "./helpers";

let emu: Emulator;
let call: Call;

beforeAll(async () => {
  ({ emu, call } = await start());
});
afterAll(() => emu.stop());

describe("the request log", () => {
  it("records method, path, query, status, time and API of every request", async () => {
    emu.resetRequests();
    await call("GET", "/internal/api/v2/workspaces?limit=5");
    await call("GET", "/api/splitChanges?s=1.3&since=-1", { key: emu.sdkKey });
    await call("GET", "/internal/api/v2/nothing-here");
    expect(emu.requests()).toEqual([
      {
        method: "GET",
        path: "/internal/api/v2/workspaces",
        query: "limit=5",
        status: 200,
        ms: expect.any(Number),
        api: "admin",
        at: expect.any(Number),
        transactionId: expect.any(String),
      },
      expect.objectContaining({
        path: "/api/splitChanges",
        query: "s=1.3&since=-1",
        status: 200,
        api: "sdk",
      }),
      expect.objectContaining({ path: "/internal/api/v2/nothing-here", status: 404, api: "admin" }),
    ]);
  });

  it("is read, filtered and reset over HTTP", async () => {
    const all = await call("GET", "/_emulator/requests", { key: null });
    expect(all.body.map((r: { api: string }) => r.api)).toContain("admin");
    const sdk = await call("GET", "/_emulator/requests?api=sdk", { key: null });
    expect(sdk.body.every((r: { api: string }) => r.api === "sdk")).toBe(true);
    expect((await call("GET", "/_emulator/requests?api=nope", { key: null })).body).toEqual(
      adminError(400, 'api: must be one of admin, events, sdk, platform, emulator, got "nope"'),
    );
    expect((await call("DELETE", "/_emulator/requests", { key: null })).body).toBe(true);
    expect(emu.requests()).toEqual([
      expect.objectContaining({ method: "DELETE", path: "/_emulator/requests", api: "emulator" }),
    ]);
  });

  it("echoes the transaction id in the X-Transaction-Id header and in error bodies", async () => {
    const r = await call("GET", "/internal/api/v2/groups/missing");
    expect(r.headers.get("x-transaction-id")).toBe(r.body.transactionId);
    expect(emu.requests().at(-1)?.transactionId).toBe(r.body.transactionId);
  });
});

describe("other control routes", () => {
  it("accepts an invitation, once", async () => {
    const u = (
      await call("POST", "/internal/api/v2/users", { body: { email: "new@example.com", groups: [] } })
    ).body;
    const r = await call("POST", `/_emulator/users/${u.id}/accept`, { key: null });
    expect(r.body).toEqual({ ...u, status: "ACTIVE" });
    expect((await call("POST", `/_emulator/users/${u.id}/accept`, { key: null })).body).toEqual(
      adminError(400, `User ${u.id} is ACTIVE; only a PENDING invitation can be accepted`),
    );
    expect((await call("POST", "/_emulator/users/nope/accept", { key: null })).status).toBe(404);
  });

  it("reports SDK telemetry counts and health", async () => {
    expect((await call("POST", "/api/testImpressions/bulk", { key: emu.sdkKey, body: [] })).status).toBe(200);
    expect((await call("POST", "/api/v1/metrics/usage", { key: emu.sdkKey, body: {} })).status).toBe(200);
    expect((await call("GET", "/_emulator/sdk", { key: null })).body).toEqual({
      impressionBatches: 1,
      impressionCountBatches: 0,
      telemetry: 1,
    });
    expect((await call("GET", "/api/version", { key: null })).status).toBe(200);
    expect((await call("GET", "/api/v2/auth?s=1.3", { key: emu.sdkKey })).body).toEqual({
      pushEnabled: false,
      token: "",
    });
  });

  it("404s unknown control and platform paths in their APIs' shapes", async () => {
    expect((await call("GET", "/_emulator/nothing", { key: null })).body).toEqual(
      adminError(404, "HTTP 404 Not Found: no route for GET /_emulator/nothing"),
    );
    const p = await call("GET", "/gateway/nothing", { key: null });
    expect(p.status).toBe(400);
    expect(p.body).toMatchObject({ status: "FAILURE", code: "RESOURCE_NOT_FOUND_EXCEPTION" });
  });
});
