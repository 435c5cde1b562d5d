/** Restrictions (ref admin §1.1 "restrictions": workspace view; splitapiclient `restriction_microclient.py`). */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Emulator } from "../../../emulator";
import { adminError, type Call, start } from "../helpers";

let emu: Emulator;
let call: Call;
let ws: { id: string };

beforeAll(async () => {
  ({ emu, call, ws } = await start());
});
afterAll(() => emu.stop());

describe("restrictions", () => {
  it("sets a workspace's viewers by PUT (one restriction per workspace) and lists them", async () => {
    const viewers = [{ id: "g1", type: "group" }];
    const body = {
      resource: { id: ws.id, type: "workspace" },
      operations: { view: true },
      resourcePermissions: { view: viewers },
    };
    const r = await call("PUT", "/internal/api/v2/restrictions", { body });
    expect(r.status).toBe(200);
    const restriction = {
      id: expect.any(String),
      type: "restriction",
      resource: { id: ws.id, type: "workspace", name: "Default" },
      operations: { view: true },
      resourcePermissions: { view: viewers },
    };
    expect(r.body).toEqual(restriction);
    const again = await call("PUT", "/internal/api/v2/restrictions", { body });
    expect(again.body.id).toBe(r.body.id);
    const list = await call(
      "GET",
      `/internal/api/v2/restrictions?resource_type=workspace&resource_id=${ws.id}`,
    );
    expect(list.body).toEqual({ objects: [restriction], offset: 0, limit: 20, totalCount: 1 });
  });

  it("a PUT back to open (view false, no viewers) is answered and keeps no restriction", async () => {
    const set = (view: boolean, viewers: unknown[]) =>
      call("PUT", "/internal/api/v2/restrictions", {
        body: {
          resource: { id: ws.id, type: "workspace" },
          operations: { view },
          resourcePermissions: { view: viewers },
        },
      });
    const restricted = await set(true, [{ id: "u1", type: "user" }]);
    const open = await set(false, []);
    expect(open.status).toBe(200);
    expect(open.body).toEqual({
      id: restricted.body.id,
      type: "restriction",
      resource: { id: ws.id, type: "workspace", name: "Default" },
      operations: { view: false },
      resourcePermissions: { view: [] },
    });
    const list = await call(
      "GET",
      `/internal/api/v2/restrictions?resource_type=workspace&resource_id=${ws.id}`,
    );
    expect(list.body).toEqual({ objects: [], offset: 0, limit: 20, totalCount: 0 });
    // Open but with viewers kept: a restriction still.
    const kept = await set(false, [{ id: "u1", type: "user" }]);
    const again = await call(
      "GET",
      `/internal/api/v2/restrictions?resource_type=workspace&resource_id=${ws.id}`,
    );
    expect(again.body).toEqual({ objects: [kept.body], offset: 0, limit: 20, totalCount: 1 });
  });

  it("refuses other resource types and unknown workspaces", async () => {
    const other = await call("PUT", "/internal/api/v2/restrictions", {
      body: {
        resource: { id: ws.id, type: "environment" },
        operations: { view: true },
        resourcePermissions: { view: [] },
      },
    });
    expect(other.body).toEqual(adminError(400, "resource.type: resource.type must be workspace"));
    const gone = await call("GET", "/internal/api/v2/restrictions?resource_id=nope");
    expect(gone.body).toEqual(adminError(404, "Could not find workspace nope"));
  });
});
