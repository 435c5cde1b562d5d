/**
 * Conformance: spec §2 "Project (workspace)", §4 "Projects and environments" (workspace list),
 * §8 (project list page size); ref admin §1.1-1.2 (create, name filter, limit ≤ 100).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Emulator } from "../../../emulator";
import { adminError, type Call, start } from "../helpers";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
let emu: Emulator;
let call: Call;
let defaultWs: { id: string; name: string };

beforeAll(async () => {
  ({ emu, call, ws: defaultWs } = await start());
});
afterAll(() => emu.stop());

describe("GET /workspaces", () => {
  it("returns the seeded Default workspace in the offset envelope, limit 10 by default", async () => {
    const r = await call("GET", "/internal/api/v2/workspaces");
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      objects: [
        {
          name: "Default",
          type: "workspace",
          id: expect.stringMatching(UUID),
          requiresTitleAndComments: false,
        },
      ],
      offset: 0,
      limit: 10,
      totalCount: 1,
    });
  });

  it.each([
    ["limit=0", "limit: must be between 1 and 100, got 0"],
    ["limit=101", "limit: must be between 1 and 100, got 101"],
    ["limit=ten", 'limit: must be a whole number, got "ten"'],
    ["offset=-1", "offset: must be between 0 and 9007199254740991, got -1"],
    ["name=x&nameOp=LIKE", 'nameOp: must be one of IS, STARTS_WITH, CONTAINS, got "LIKE"'],
  ])("refuses %s with 400 naming the parameter", async (query, message) => {
    const r = await call("GET", `/internal/api/v2/workspaces?${query}`);
    expect(r.status).toBe(400);
    expect(r.body).toEqual(adminError(400, message));
  });
});

describe("POST /workspaces", () => {
  it("creates a workspace with a user traffic type and no environment", async () => {
    const r = await call("POST", "/internal/api/v2/workspaces", {
      body: { name: "Payments", requiresTitleAndComments: true },
    });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      name: "Payments",
      type: "workspace",
      id: expect.stringMatching(UUID),
      requiresTitleAndComments: true,
    });
    const tts = await call("GET", `/internal/api/v2/trafficTypes/ws/${r.body.id}`);
    expect(tts.body.map((t: { name: string }) => t.name)).toEqual(["user"]);
    const envs = await call("GET", `/internal/api/v2/environments/ws/${r.body.id}`);
    expect(envs.body).toEqual([]);
  });

  it("defaults requiresTitleAndComments to false", async () => {
    const r = await call("POST", "/internal/api/v2/workspaces", { body: { name: "Search" } });
    expect(r.body.requiresTitleAndComments).toBe(false);
  });

  it("refuses a duplicate name with 409", async () => {
    const r = await call("POST", "/internal/api/v2/workspaces", { body: { name: "Payments" } });
    expect(r.status).toBe(409);
    expect(r.body).toEqual(adminError(409, "Workspace with name Payments already exists"));
  });

  it.each([
    [{ name: "" }, "name: name must not be empty"],
    [{}, "name: is required"],
    [
      { name: "X", requiresTitleAndComments: "yes" },
      "requiresTitleAndComments: Invalid input: expected boolean, received string",
    ],
    ["[1,", "body: not valid JSON (Unexpected end of JSON input)"],
    ["", "body: a JSON request body is required"],
  ])("refuses body %j with 400", async (body, message) => {
    const r = await call("POST", "/internal/api/v2/workspaces", { body });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ code: 400, message });
  });
});

describe("pagination and filters", () => {
  beforeAll(async () => {
    for (let i = 0; i < 10; i++)
      await call("POST", "/internal/api/v2/workspaces", {
        body: { name: `team-${String(i).padStart(2, "0")}` },
      });
  });

  it("pages with offset and limit, and an offset past the end gives an empty page with the true total", async () => {
    const first = await call("GET", "/internal/api/v2/workspaces");
    expect(first.body.objects).toHaveLength(10);
    expect(first.body.totalCount).toBe(13);
    const second = await call("GET", "/internal/api/v2/workspaces?offset=10&limit=10");
    expect(second.body.objects.map((w: { name: string }) => w.name)).toEqual([
      "team-07",
      "team-08",
      "team-09",
    ]);
    const past = await call("GET", "/internal/api/v2/workspaces?offset=13");
    expect(past.body).toEqual({ objects: [], offset: 13, limit: 10, totalCount: 13 });
    const max = await call("GET", "/internal/api/v2/workspaces?limit=100");
    expect(max.body.objects).toHaveLength(13);
  });

  it.each([
    ["name=Payments", ["Payments"]],
    ["name=Payments&nameOp=IS", ["Payments"]],
    ["name=team-0&nameOp=STARTS_WITH&limit=3", ["team-00", "team-01", "team-02"]],
    ["name=ear&nameOp=CONTAINS", ["Search"]],
    ["name=nothing", []],
  ])("filters by %s", async (query, names) => {
    const r = await call("GET", `/internal/api/v2/workspaces?${query}`);
    expect(r.body.objects.map((w: { name: string }) => w.name)).toEqual(names);
  });
});

describe("GET, PATCH and DELETE /workspaces/{id}", () => {
  it("reads one workspace by id and 404s an unknown one", async () => {
    const r = await call("GET", `/internal/api/v2/workspaces/${defaultWs.id}`);
    expect(r.body).toEqual({
      name: "Default",
      type: "workspace",
      id: defaultWs.id,
      requiresTitleAndComments: false,
    });
    const missing = await call("GET", "/internal/api/v2/workspaces/nope");
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual(adminError(404, "Could not find workspace nope"));
  });

  it("patches name and requiresTitleAndComments with JSON Patch", async () => {
    const ws = (await call("POST", "/internal/api/v2/workspaces", { body: { name: "Old" } })).body;
    const r = await call("PATCH", `/internal/api/v2/workspaces/${ws.id}`, {
      body: [
        { op: "replace", path: "/name", value: "New" },
        { op: "replace", path: "/requiresTitleAndComments", value: true },
      ],
    });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ name: "New", type: "workspace", id: ws.id, requiresTitleAndComments: true });
    const bad = await call("PATCH", `/internal/api/v2/workspaces/${ws.id}`, {
      body: [{ op: "replace", path: "/id", value: "x" }],
    });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual(adminError(400, "id and type of a workspace cannot be changed"));
  });

  it("refuses to delete a workspace that has traffic types, then deletes it once they are gone", async () => {
    const ws = (await call("POST", "/internal/api/v2/workspaces", { body: { name: "Temp" } })).body;
    const refused = await call("DELETE", `/internal/api/v2/workspaces/${ws.id}`);
    expect(refused.status).toBe(409);
    expect(refused.body).toEqual(
      adminError(409, "Workspace Temp still has traffic types (user); delete them first"),
    );
    const tt = (await call("GET", `/internal/api/v2/trafficTypes/ws/${ws.id}`)).body[0];
    expect((await call("DELETE", `/internal/api/v2/trafficTypes/${tt.id}`)).body).toBe(true);
    const r = await call("DELETE", `/internal/api/v2/workspaces/${ws.id}`);
    expect(r.status).toBe(200);
    expect(r.text).toBe("true");
    expect((await call("GET", `/internal/api/v2/workspaces/${ws.id}`)).status).toBe(404);
  });
});

describe("a Harness project is its FME workspace (ref admin §9.2: [HSDK] workspaces.go, [HP] workspace.go)", () => {
  let h: Awaited<ReturnType<typeof start>>;
  const platform = (method: string, path: string, body?: unknown, org?: string) =>
    h.call(method, `${path}?accountIdentifier=${h.emu.accountId}${org ? `&orgIdentifier=${org}` : ""}`, {
      key: null,
      headers: { "x-api-key": h.emu.platformKey },
      body,
    });
  const ofProject = async (org: string, project: string) =>
    (
      await h.call(
        "GET",
        `/internal/api/v2/workspaces?organizationIdentifier=${org}&projectIdentifier=${project}`,
      )
    ).body.objects;

  beforeAll(async () => {
    h = await start();
    expect(
      (
        await platform("POST", "/ng/api/organizations", {
          organization: { identifier: "acme", name: "Acme" },
        })
      ).status,
    ).toBe(200);
  });
  afterAll(() => h.emu.stop());

  it("a new project has its workspace, carrying its organization and project, with the user traffic type and Production and Staging", async () => {
    expect(
      (await platform("POST", "/ng/api/projects", { project: { identifier: "shop", name: "Shop" } })).status,
    ).toBe(200);
    const [ws, ...more] = await ofProject("default", "shop");
    expect(more).toEqual([]);
    expect(ws).toEqual({
      name: "Shop",
      type: "workspace",
      id: expect.stringMatching(UUID),
      requiresTitleAndComments: false,
      organizationIdentifier: "default",
      projectIdentifier: "shop",
    });
    expect((await h.call("GET", `/internal/api/v2/workspaces/${ws.id}`)).body).toEqual(ws);
    // Project identifiers are case-insensitive (ref platform §3).
    expect(await ofProject("default", "SHOP")).toEqual([ws]);
    const tts = await h.call("GET", `/internal/api/v2/trafficTypes/ws/${ws.id}`);
    expect(tts.body.map((t: { name: string }) => t.name)).toEqual(["user"]);
    const envs = await h.call("GET", `/internal/api/v2/environments/ws/${ws.id}`);
    expect(envs.body.map((e: { name: string; production: boolean }) => [e.name, e.production])).toEqual([
      ["Production", true],
      ["Staging", false],
    ]);
  });

  it("same-named projects of two organizations are two workspaces, the second named with its organization", async () => {
    expect(
      (await platform("POST", "/ng/api/projects", { project: { identifier: "shop", name: "Shop" } }, "acme"))
        .status,
    ).toBe(200);
    const [mine] = await ofProject("default", "shop");
    const [theirs, ...more] = await ofProject("acme", "shop");
    expect(more).toEqual([]);
    expect(theirs).toEqual({
      name: "Shop (acme)",
      type: "workspace",
      id: expect.stringMatching(UUID),
      requiresTitleAndComments: false,
      organizationIdentifier: "acme",
      projectIdentifier: "shop",
    });
    expect(theirs.id).not.toBe(mine.id);
    // No project: no workspace; an organization alone is refused.
    expect(await ofProject("default", "nothing")).toEqual([]);
    expect((await h.call("GET", "/internal/api/v2/workspaces?projectIdentifier=shop")).body).toEqual(
      adminError(400, "organizationIdentifier and projectIdentifier must be given together"),
    );
  });

  it("a workspace made first through the admin API, named like the project, becomes the project's", async () => {
    const made = await h.call("POST", "/internal/api/v2/workspaces", { body: { name: "Search" } });
    expect(made.body.organizationIdentifier).toBeUndefined();
    expect(
      (await platform("POST", "/ng/api/projects", { project: { identifier: "search", name: "Search" } }))
        .status,
    ).toBe(200);
    expect(await ofProject("default", "search")).toEqual([
      { ...made.body, organizationIdentifier: "default", projectIdentifier: "search" },
    ]);
  });

  it("a renamed project renames its workspace; its deletion takes the workspace and what is in it along", async () => {
    const [ws] = await ofProject("default", "shop");
    const put = await platform("PUT", "/ng/api/projects/shop", {
      project: { identifier: "shop", name: "Store" },
    });
    expect(put.status).toBe(200);
    expect((await ofProject("default", "shop"))[0]).toEqual({ ...ws, name: "Store" });
    const flag = await h.call("POST", `/internal/api/v2/splits/ws/${ws.id}/trafficTypes/user`, {
      body: { name: "f" },
    });
    expect(flag.status).toBe(200);
    const seg = await h.call("POST", `/internal/api/v2/segments/ws/${ws.id}/trafficTypes/user`, {
      body: { name: "s" },
    });
    expect(seg.status).toBe(200);
    expect((await platform("DELETE", "/ng/api/projects/shop")).status).toBe(200);
    expect(await ofProject("default", "shop")).toEqual([]);
    expect((await h.call("GET", `/internal/api/v2/workspaces/${ws.id}`)).status).toBe(404);
    const names = (await h.call("GET", "/internal/api/v2/workspaces")).body.objects.map(
      (w: { name: string }) => w.name,
    );
    expect(names).toEqual(["Default", "Shop (acme)", "Search"]);
    // An organization's deletion takes its projects' workspaces too.
    expect((await platform("DELETE", "/ng/api/organizations/acme")).status).toBe(200);
    expect(await ofProject("acme", "shop")).toEqual([]);
  });
});
