/**
 * `GET /api/memberships/{key}` (ref wire §6, the client-side SDK's endpoint; the shape of
 * splitio-commons `IMembershipsResponse`): the standard and large segments a key is in, in the SDK
 * key's environment, with the large segment's members applied only once its upload's change
 * request is approved.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Emulator } from "../../../emulator";
import { adminError, type Call, start } from "../helpers";

let emu: Emulator;
let call: Call;
let ws: { id: string };
const APPROVER = "adm-approver-0123456789abcdef";
const V2 = "/internal/api/v2";
const memberships = (key: string, sdkKey = emu.sdkKey) =>
  call("GET", `/api/memberships/${encodeURIComponent(key)}`, { key: sdkKey });

beforeAll(async () => {
  ({ emu, call, ws } = await start({ keys: [{ key: APPROVER, type: "admin", name: "approver" }] }));
  await call("POST", `${V2}/segments/ws/${ws.id}/trafficTypes/user`, { body: { name: "beta" } });
  await call("POST", `${V2}/segments/Production/beta`);
  await call("PUT", `${V2}/segments/Production/beta/uploadKeys?replace=false`, { body: { keys: ["u1"] } });
  await call("POST", `${V2}/large-segments/ws/${ws.id}/trafficTypes/user`, { body: { name: "crm" } });
  await call("POST", `${V2}/large-segments/Production/crm`);
});
afterAll(() => emu.stop());

/** Opens an UPLOAD change request of `crm` in Production and PUTs `csv` to its address. */
async function upload(csv: string): Promise<{ id: string; status: string; put: number }> {
  const cr = await call("POST", `${V2}/changeRequests/ws/${ws.id}/environments/Production`, {
    body: { largeSegment: { name: "crm" }, operationType: "UPLOAD" },
  });
  const put = await fetch(cr.body.transactionMetadata.url, { method: "PUT", body: csv });
  await put.arrayBuffer();
  return { id: cr.body.id, status: cr.body.status, put: put.status };
}

describe("GET /api/memberships/{key}", () => {
  it("names the standard and the large segments the key is in, each with its change number", async () => {
    expect((await memberships("u1")).body).toEqual({
      ms: { cn: expect.any(Number), k: [{ n: "beta" }] },
      ls: { cn: 0, k: [] },
    });
    expect((await upload("u1\nu2\n")).put).toBe(200);
    const after = (await memberships("u1")).body;
    expect(after.ls).toEqual({ cn: expect.any(Number), k: [{ n: "crm" }] });
    expect(after.ls.cn).toBeGreaterThan(0);
    expect((await memberships("u2")).body.ms.k).toEqual([]);
    expect((await memberships("u2")).body.ls.k).toEqual([{ n: "crm" }]);
    expect((await memberships("u3")).body.ls.k).toEqual([]);
  });

  it("serves another environment's memberships apart, and refuses a request without an SDK key", async () => {
    expect((await memberships("u1", emu.sdkKeys.Staging)).body).toEqual({
      ms: { cn: -1, k: [] },
      ls: { cn: -1, k: [] },
    });
    const anonymous = await call("GET", "/api/memberships/u1", { key: "" });
    expect(anonymous.status).toBe(401);
  });

  it("serves an upload's members only once its change request is approved", async () => {
    await call("PATCH", `${V2}/environments/ws/${ws.id}/Production`, {
      body: [{ op: "replace", path: "/changePermissions", value: { areApprovalsRequired: true } }],
    });
    const pending = await upload("u9\n");
    expect(pending).toMatchObject({ status: "REQUESTED", put: 200 });
    expect((await memberships("u9")).body.ls.k).toEqual([]);
    expect((await memberships("u1")).body.ls.k).toEqual([{ n: "crm" }]);
    const approved = await call("PUT", `${V2}/changeRequests/${pending.id}`, {
      key: APPROVER,
      body: { status: "APPROVED" },
    });
    expect(approved.body.status).toBe("PUBLISHED");
    expect((await memberships("u9")).body.ls.k).toEqual([{ n: "crm" }]);
    expect((await memberships("u1")).body.ls.k).toEqual([]);
  });

  it("refuses an upload of more than 100,000 members", async () => {
    await call("PATCH", `${V2}/environments/ws/${ws.id}/Production`, {
      body: [{ op: "replace", path: "/changePermissions", value: { areApprovalsRequired: false } }],
    });
    const cr = await call("POST", `${V2}/changeRequests/ws/${ws.id}/environments/Production`, {
      body: { largeSegment: { name: "crm" }, operationType: "UPLOAD" },
    });
    const csv = Array.from({ length: 100_001 }, (_, i) => `k${i}\n`).join("");
    const put = await fetch(cr.body.transactionMetadata.url, { method: "PUT", body: csv });
    expect(put.status).toBe(400);
    expect(await put.json()).toEqual(
      adminError(400, "file: a large segment upload holds at most 100000 members, this one has 100001"),
    );
    expect((await memberships("u9")).body.ls.k).toEqual([{ n: "crm" }]);
  });
});
