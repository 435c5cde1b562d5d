/** Segments, minimal (ref admin §1.1-1.2): create, activate per environment, upload/remove/list keys. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Emulator } from "../../../emulator";
import { adminError, type Call, start } from "../helpers";

let emu: Emulator;
let call: Call;
let ws: { id: string };
let env: Record<string, { id: string; name: string }>;

beforeAll(async () => {
  ({ emu, call, ws, env } = await start());
});
afterAll(() => emu.stop());

describe("segments", () => {
  it("creates a segment, refusing duplicates and unknown traffic types", async () => {
    const r = await call("POST", `/internal/api/v2/segments/ws/${ws.id}/trafficTypes/user`, {
      body: { name: "vip", description: "big spenders" },
    });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      name: "vip",
      description: "big spenders",
      trafficType: { id: expect.any(String), name: "user" },
      creationTime: expect.any(Number),
      tags: null,
    });
    expect(
      (
        await call("POST", `/internal/api/v2/segments/ws/${ws.id}/trafficTypes/user`, {
          body: { name: "vip" },
        })
      ).body,
    ).toEqual(adminError(409, "Segment with name vip already exists in workspace Default"));
    expect(
      (
        await call("POST", `/internal/api/v2/segments/ws/${ws.id}/trafficTypes/robot`, {
          body: { name: "x" },
        })
      ).status,
    ).toBe(404);
    const list = await call("GET", `/internal/api/v2/segments/ws/${ws.id}`);
    expect(list.body).toMatchObject({ offset: 0, limit: 20, totalCount: 1, objects: [{ name: "vip" }] });
  });

  it("activates in an environment (by id or name) once, and lists the active ones", async () => {
    const r = await call("POST", `/internal/api/v2/segments/${env.Production?.id}/vip`);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      name: "vip",
      environment: { id: env.Production?.id, name: "Production" },
      trafficType: { id: expect.any(String), name: "user" },
      creationTime: expect.any(Number),
    });
    expect((await call("POST", "/internal/api/v2/segments/Production/vip")).body).toEqual(
      adminError(409, "Segment vip is already active in environment Production"),
    );
    const active = await call("GET", `/internal/api/v2/segments/ws/${ws.id}/environments/Production`);
    expect(active.body).toMatchObject({ totalCount: 1, objects: [{ name: "vip" }] });
    expect(
      (await call("PUT", "/internal/api/v2/segments/Staging/vip/uploadKeys", { body: { keys: ["a"] } })).body,
    ).toEqual(adminError(404, "Segment vip is not active in environment Staging"));
  });

  it("uploads keys (adding, or replacing), removes keys and lists them", async () => {
    const up = await call("PUT", "/internal/api/v2/segments/Production/vip/uploadKeys?replace=false", {
      body: { keys: ["k1", "k2", "k2"], comment: "c" },
    });
    expect(up.body).toEqual({ added: 2, removed: 0, totalCount: 2 });
    const replace = await call("PUT", "/internal/api/v2/segments/Production/vip/uploadKeys?replace=true", {
      body: { keys: ["k2", "k3"] },
    });
    expect(replace.body).toEqual({ added: 1, removed: 1, totalCount: 2 });
    const removed = await call("PUT", "/internal/api/v2/segments/Production/vip/removeKeys", {
      body: { keys: ["k3", "zz"], comment: "c" },
    });
    expect(removed.body).toEqual({ added: 0, removed: 1, totalCount: 1 });
    const keys = await call("GET", "/internal/api/v2/segments/Production/vip/keys");
    // `count` is what splitapiclient reads, `totalCount` what ref §1.2 shows: both are served.
    expect(keys.body).toEqual({ keys: [{ key: "k2" }], offset: 0, limit: 100, count: 1, totalCount: 1 });
  });

  it("reads replace as the service does: any case of true/false (Python sends True), else 400", async () => {
    const path = "/internal/api/v2/segments/Production/vip/uploadKeys";
    const py = await call("PUT", `${path}?replace=True`, { body: { keys: ["p1"] } });
    expect(py.status).toBe(200);
    expect(py.body).toEqual({ added: 1, removed: 1, totalCount: 1 });
    const add = await call("PUT", `${path}?replace=False`, { body: { keys: ["p2"] } });
    expect(add.body).toEqual({ added: 1, removed: 0, totalCount: 2 });
    expect((await call("PUT", `${path}?replace=TRUE`, { body: { keys: ["k2"] } })).body).toEqual({
      added: 1,
      removed: 2,
      totalCount: 1,
    });
    const bad = await call("PUT", `${path}?replace=yes`, { body: { keys: ["x"] } });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual(adminError(400, 'replace: must be true or false, got "yes"'));
  });

  it.each([
    [{ keys: "k1" }, "keys: keys must be an array of strings"],
    [{ keys: [""] }, "keys[0]: a key must not be empty"],
    [{ keys: Array.from({ length: 10_001 }, (_, i) => `k${i}`) }, "keys: at most 10000 keys per request"],
  ])("refuses an upload of %#", async (body, message) => {
    const r = await call("PUT", "/internal/api/v2/segments/Production/vip/uploadKeys", { body });
    expect(r.status).toBe(400);
    expect(r.body.message).toBe(message);
  });

  it("needs title and comment for uploads in a workspace that requires them (empty 400)", async () => {
    const strict = (
      await call("POST", "/internal/api/v2/workspaces", {
        body: { name: "Strict", requiresTitleAndComments: true },
      })
    ).body;
    const e = (
      await call("POST", `/internal/api/v2/environments/ws/${strict.id}`, { body: { name: "Prod" } })
    ).body;
    await call("POST", `/internal/api/v2/segments/ws/${strict.id}/trafficTypes/user`, {
      body: { name: "s" },
    });
    await call("POST", `/internal/api/v2/segments/${e.id}/s`);
    const refused = await call("PUT", `/internal/api/v2/segments/${e.id}/s/uploadKeys`, {
      body: { keys: ["a"], title: "t" },
    });
    expect(refused.status).toBe(400);
    expect(refused.text).toBe("");
    const ok = await call("PUT", `/internal/api/v2/segments/${e.id}/s/uploadKeys`, {
      body: { keys: ["a"], title: "t", comment: "c" },
    });
    expect(ok.body).toEqual({ added: 1, removed: 0, totalCount: 1 });
  });

  it("deactivates and deletes, each returning true", async () => {
    expect((await call("DELETE", "/internal/api/v2/segments/Production/vip")).body).toBe(true);
    expect((await call("GET", "/internal/api/v2/segments/Production/vip/keys")).status).toBe(404);
    expect((await call("DELETE", `/internal/api/v2/segments/ws/${ws.id}/vip`)).body).toBe(true);
    expect((await call("GET", `/internal/api/v2/segments/ws/${ws.id}`)).body.totalCount).toBe(0);
  });
});
