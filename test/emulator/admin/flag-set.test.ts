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
