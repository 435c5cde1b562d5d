/** Flag sets, v3 (ref admin §1.1 "flag sets"; shapes of splitapiclient 3.5.9 `flag_set_microclient.py`). */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Emulator, startEmulator } from "../../../emulator";
import { adminError, type Call, caller, start } from "../helpers";

let emu: Emulator;
let call: Call;
let ws: { id: string; name: string };
const V3 = "/internal/api/v3/flag-sets";

beforeAll(async () => {
  ({ emu, call, ws } = await start());
});
afterAll(() => emu.stop());

const flagSet = (name: string, description: string | null) => ({
  id: expect.stringMatching(/^[0-9a-f-]{36}$/),
  name,
  description,
  workspace: { id: ws.id, type: "WORKSPACE" },
  createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
  type: "flag_set",
});

describe("flag sets", () => {
  it("creates one, refusing a taken name, a bad name and an unknown workspace", async () => {
    const r = await call("POST", V3, {
      body: {
        name: "checkout",
        description: "the checkout flags",
        workspace: { id: ws.id, type: "WORKSPACE" },
      },
    });
    expect(r.status).toBe(200);
    expect(r.body).toEqual(flagSet("checkout", "the checkout flags"));
    const taken = await call("POST", V3, { body: { name: "checkout", workspace: { id: ws.id } } });
    expect(taken.status).toBe(409);
    expect(taken.body).toEqual(
      adminError(409, "Flag set with name checkout already exists in workspace Default"),
    );
    const bad = await call("POST", V3, { body: { name: "Check Out", workspace: { id: ws.id } } });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual(
      adminError(400, "name: name must start with a-z or 0-9 and use only a-z, 0-9, '_' and '.'"),
    );
    const nowhere = await call("POST", V3, { body: { name: "x", workspace: { id: "nowhere" } } });
    expect(nowhere.status).toBe(404);
    expect(nowhere.body).toEqual(adminError(404, "Could not find workspace nowhere"));
  });

  it("lists by workspace with marker pagination, reads one by id and deletes it (204)", async () => {
    await call("POST", V3, { body: { name: "search", workspace: { id: ws.id } } });
    const first = await call("GET", `${V3}?workspace_id=${ws.id}&limit=1`);
    expect(first.body).toEqual({
      data: [flagSet("checkout", "the checkout flags")],
      nextMarker: expect.any(String),
      previousMarker: null,
      limit: 1,
      count: 1,
    });
    const second = await call("GET", `${V3}?workspace_id=${ws.id}&limit=1&after=${first.body.nextMarker}`);
    expect(second.body).toEqual({
      data: [flagSet("search", null)],
      nextMarker: null,
      previousMarker: expect.any(String),
      limit: 1,
      count: 1,
    });
    const id = second.body.data[0].id;
    expect((await call("GET", `${V3}/${id}`)).body).toEqual(flagSet("search", null));
    const del = await call("DELETE", `${V3}/${id}`);
    expect(del.status).toBe(204);
    expect(del.text).toBe("");
    expect((await call("GET", `${V3}/${id}`)).body).toEqual(adminError(404, `Could not find flag set ${id}`));
    expect((await call("GET", V3)).body).toEqual(adminError(400, "workspace_id: is required"));
  });

  it("is served under the public /api/v3 too, from the same store, behind the same key check", async () => {
    // splitapiclient's default v3 base URL and the davidji99 provider's hard-coded URL (ref admin §1.1).
    const PUBLIC = "/api/v3/flag-sets";
    const made = await call("POST", PUBLIC, { body: { name: "public_made", workspace: { id: ws.id } } });
    expect(made.status).toBe(200);
    expect(made.body).toEqual(flagSet("public_made", null));
    expect((await call("GET", `${V3}/${made.body.id}`)).body).toEqual(flagSet("public_made", null));
    const internal = await call("POST", V3, { body: { name: "internal_made", workspace: { id: ws.id } } });
    expect((await call("GET", `${PUBLIC}/${internal.body.id}`)).body).toEqual(flagSet("internal_made", null));
    const names = (await call("GET", `${PUBLIC}?workspace_id=${ws.id}`)).body.data.map(
      (f: { name: string }) => f.name,
    );
    expect(names).toEqual(["checkout", "public_made", "internal_made"]);
    const taken = await call("POST", PUBLIC, { body: { name: "internal_made", workspace: { id: ws.id } } });
    expect(taken.status).toBe(409);
    expect(taken.body).toEqual(
      adminError(409, "Flag set with name internal_made already exists in workspace Default"),
    );
    const anonymous = await call("GET", `${PUBLIC}?workspace_id=${ws.id}`, { key: null });
    expect(anonymous.status).toBe(401);
    const missing = await call("GET", `${PUBLIC}/nope`);
    expect(missing.body).toEqual(adminError(404, "Could not find flag set nope"));
    expect((await call("DELETE", `${PUBLIC}/${made.body.id}`)).status).toBe(204);
    expect((await call("DELETE", `${V3}/${internal.body.id}`)).status).toBe(204);
    expect((await call("GET", `${PUBLIC}/${made.body.id}`)).status).toBe(404);
  });

  it("is kept in the state file", async () => {
    const dir = mkdtempSync(join(tmpdir(), "flagstack-flagsets-"));
    const statePath = join(dir, "state.json");
    try {
      const a = await startEmulator({ port: 0, statePath });
      const wsId = (await caller(a)("GET", "/internal/api/v2/workspaces")).body.objects[0].id;
      await caller(a)("POST", V3, { body: { name: "kept", workspace: { id: wsId } } });
      await a.stop();
      const b = await startEmulator({ port: 0, statePath });
      const list = await caller(b)("GET", `${V3}?workspace_id=${wsId}`);
      expect(list.body.data.map((f: { name: string }) => f.name)).toEqual(["kept"]);
      await b.stop();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
