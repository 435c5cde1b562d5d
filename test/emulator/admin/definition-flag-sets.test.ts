/**
 * Flag-set membership on a definition (ref admin §2 `flagSets: [{id, type}]`): stored on POST,
 * PUT and PATCH (`replace /flagSets`), checked against the workspace's flag sets, always on GET,
 * dropped when the flag set is deleted; a change request carries it too.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Emulator } from "../../../emulator";
import { adminError, type Call, definitionBody, start } from "../helpers";

let emu: Emulator;
let call: Call;
let ws: { id: string; name: string };
let web: string;
let mobile: string;
const V3 = "/internal/api/v3/flag-sets";
const defPath = (flag: string) => `/internal/api/v2/splits/ws/${ws.id}/${flag}/environments/Production`;

beforeAll(async () => {
  ({ emu, call, ws } = await start());
  web = (await call("POST", V3, { body: { name: "web", workspace: { id: ws.id } } })).body.id;
  mobile = (await call("POST", V3, { body: { name: "mobile", workspace: { id: ws.id } } })).body.id;
  for (const name of ["search", "checkout"])
    await call("POST", `/internal/api/v2/splits/ws/${ws.id}/trafficTypes/user`, { body: { name } });
});
afterAll(() => emu.stop());

describe("flag sets of a definition", () => {
  it("stores them on POST (a repeated id once), answers [] when none, refuses an unknown id", async () => {
    const made = await call("POST", defPath("search"), {
      body: definitionBody({ flagSets: [{ id: web, type: "flag_set" }, { id: web }] }),
    });
    expect(made.status).toBe(200);
    expect(made.body.flagSets).toEqual([{ id: web, type: "flag_set" }]);
    expect((await call("GET", defPath("search"))).body.flagSets).toEqual([{ id: web, type: "flag_set" }]);
    const bad = await call("POST", defPath("checkout"), {
      body: definitionBody({ flagSets: [{ id: web }, { id: "nope" }] }),
    });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual(adminError(400, "flagSets[1].id: no flag set nope in this workspace"));
    const plain = await call("POST", defPath("checkout"), { body: definitionBody() });
    expect(plain.body.flagSets).toEqual([]);
    expect(Object.keys(plain.body)).toEqual([
      "id",
      "name",
      "environment",
      "trafficType",
      "killed",
      "treatments",
      "defaultTreatment",
      "trafficAllocation",
      "rules",
      "defaultRule",
      "flagSets",
      "creationTime",
      "lastUpdateTime",
    ]);
  });

  it("keeps them on a PUT without flagSets, replaces them with a PUT or one PATCH replace", async () => {
    const kept = await call("PUT", defPath("search"), { body: definitionBody() });
    expect(kept.body.flagSets).toEqual([{ id: web, type: "flag_set" }]);
    const put = await call("PUT", defPath("search"), {
      body: definitionBody({ flagSets: [{ id: mobile }] }),
    });
    expect(put.body.flagSets).toEqual([{ id: mobile, type: "flag_set" }]);
    const patched = await call("PATCH", defPath("search"), {
      body: [
        { op: "test", path: "/flagSets/0/id", value: mobile },
        {
          op: "replace",
          path: "/flagSets",
          value: [
            { id: web, type: "flag_set" },
            { id: mobile, type: "flag_set" },
          ],
        },
      ],
    });
    expect(patched.status).toBe(200);
    expect(patched.body.flagSets).toEqual([
      { id: web, type: "flag_set" },
      { id: mobile, type: "flag_set" },
    ]);
    const bad = await call("PATCH", defPath("search"), {
      body: [{ op: "replace", path: "/flagSets", value: [{ id: "" }] }],
    });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/^flagSets\[0\]\.id: /);
  });

  it("a split change request carries them: checked on submission, stored when applied", async () => {
    await call("POST", `/internal/api/v2/splits/ws/${ws.id}/trafficTypes/user`, {
      body: { name: "by_request" },
    });
    const submit = (flagSets: unknown) =>
      call("POST", `/internal/api/v2/changeRequests/ws/${ws.id}/environments/Production`, {
        body: { split: { name: "by_request", ...definitionBody(), flagSets }, operationType: "CREATE" },
      });
    const bad = await submit([{ id: "nope", type: "flag_set" }]);
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual(adminError(400, "flagSets[0].id: no flag set nope in this workspace"));
    const ok = await submit([{ id: mobile, type: "flag_set" }]);
    expect(ok.body.status).toBe("PUBLISHED");
    expect((await call("GET", defPath("by_request"))).body.flagSets).toEqual([
      { id: mobile, type: "flag_set" },
    ]);
  });

  it("drops a deleted flag set from every definition", async () => {
    expect((await call("DELETE", `${V3}/${mobile}`)).status).toBe(204);
    expect((await call("GET", defPath("search"))).body.flagSets).toEqual([{ id: web, type: "flag_set" }]);
    expect((await call("GET", defPath("by_request"))).body.flagSets).toEqual([]);
  });
});
