import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type Emulator, startEmulator } from "../../../emulator";
import { AdminClient } from "../../../sdk/admin/client";
import { adminEndpoints, TITLE_AND_COMMENT_REQUIRED } from "../../../sdk/admin/endpoints";
import type { Workspace } from "../../../sdk/admin/schemas";
import { ApiError, ConflictError, NotFoundError, ValidationError } from "../../../sdk/core/errors";
import { closeSharedPools } from "../../../sdk/core/pool";
import { type Recorder, recordingDispatcher } from "../helpers/recording-dispatcher";

let emu: Emulator;
let rec: Recorder;
let admin: AdminClient;
let ws: Workspace;
let prodId: string;
const V2 = "/internal/api/v2";

/** What the emulator saw since the last reset: `METHOD path?query status`. */
const seen = () =>
  emu.requests().map((r) => `${r.method} ${r.path}${r.query ? `?${r.query}` : ""} ${r.status}`);
const collect = async <T>(it: AsyncIterable<T>) => {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
};

beforeAll(async () => {
  emu = await startEmulator({ port: 0 });
  rec = recordingDispatcher();
  admin = new AdminClient({
    baseUrl: emu.url,
    apiKey: emu.adminKey,
    requestsPerSecond: Infinity,
    dispatcher: rec.dispatcher,
  });
  ws = (await admin.workspaces.getByName("Default"))!;
  prodId = (await admin.environments.find(ws.id, "Production"))!.id;
});
beforeEach(() => {
  emu.resetRequests();
  rec.sent.length = 0;
});
afterAll(async () => {
  await emu.stop();
  await rec.close();
  await closeSharedPools();
});

describe("every request", () => {
  it("carries the bearer admin key, accept and user-agent; JSON bodies their content type", async () => {
    await admin.groups.create({ name: "hdr-group", description: "" });
    expect(rec.sent).toHaveLength(1);
    expect(rec.sent[0]!.headers).toMatchObject({
      authorization: `Bearer ${emu.adminKey}`,
      accept: "application/json",
      "content-type": "application/json",
    });
    expect(rec.sent[0]!.headers["user-agent"]).toMatch(/^flagstack\//);
  });

  it("a wrong key is a 401 ApiError naming the option, not retried", async () => {
    const bad = new AdminClient({ baseUrl: emu.url, apiKey: "not-a-key", requestsPerSecond: Infinity });
    const p = bad.environments.list(ws.id);
    await expect(p).rejects.toBeInstanceOf(ApiError);
    await expect(p).rejects.toMatchObject({
      kind: "api",
      status: 401,
      code: 401,
      apiMessage: "Invalid API key (check the admin API key: option apiKey or FLAGSTACK_ADMIN_API_KEY)",
    });
    expect(seen()).toEqual([`GET ${V2}/environments/ws/${ws.id} 401`]);
  });

  it("accepts a base URL that already ends in /internal/api/v2", async () => {
    const c = new AdminClient({
      baseUrl: `${emu.url}${V2}`,
      apiKey: emu.adminKey,
      requestsPerSecond: Infinity,
    });
    expect((await c.environments.list(ws.id)).map((e) => e.name).sort()).toEqual(["Production", "Staging"]);
  });
});

describe("workspaces", () => {
  it("getByName asks for the exact name and returns the workspace, or undefined", async () => {
    expect(await admin.workspaces.getByName("Default")).toEqual({
      id: ws.id,
      name: "Default",
      type: "workspace",
      requiresTitleAndComments: false,
    });
    expect(await admin.workspaces.getByName("Nope")).toBeUndefined();
    expect(seen()).toEqual([
      `GET ${V2}/workspaces?offset=0&limit=100&name=Default&nameOp=IS 200`,
      `GET ${V2}/workspaces?offset=0&limit=100&name=Nope&nameOp=IS 200`,
    ]);
  });

  it("create sends {name, requiresTitleAndComments} and returns the workspace; a duplicate is a ConflictError", async () => {
    const created = await admin.workspaces.create({ name: "ws-create", requiresTitleAndComments: true });
    expect(created).toMatchObject({ name: "ws-create", type: "workspace", requiresTitleAndComments: true });
    expect(rec.sent[0]).toMatchObject({
      method: "POST",
      path: `${V2}/workspaces`,
      body: '{"name":"ws-create","requiresTitleAndComments":true}',
    });
    await expect(admin.workspaces.create({ name: "ws-create" })).rejects.toBeInstanceOf(ConflictError);
  });

  it("list walks every page by offset", async () => {
    for (const n of ["ws-page-1", "ws-page-2", "ws-page-3"]) await admin.workspaces.create({ name: n });
    emu.resetRequests();
    const all = await collect(admin.workspaces.list({ pageSize: 2 }));
    const total = all.length;
    expect(total).toBeGreaterThanOrEqual(5);
    expect(new Set(all.map((w) => w.id)).size).toBe(total);
    expect(all.map((w) => w.name)).toEqual(
      expect.arrayContaining(["Default", "ws-page-1", "ws-page-2", "ws-page-3"]),
    );
    const pages = Math.ceil(total / 2);
    expect(seen()).toEqual(
      Array.from({ length: pages }, (_, i) => `GET ${V2}/workspaces?offset=${i * 2}&limit=2 200`),
    );
  });

  it("refuses a page size above 100 before sending, naming pageSize", () => {
    expect(() => admin.workspaces.list({ pageSize: 101 })).toThrow(ValidationError);
    expect(() => admin.workspaces.list({ pageSize: 101 })).toThrow(
      "GET /internal/api/v2/workspaces: invalid option: pageSize: pageSize must be a whole number from 1 to 100, got 101",
    );
    expect(rec.sent).toHaveLength(0);
  });

  it("refuses an empty name before sending", async () => {
    await expect(admin.workspaces.create({ name: "" })).rejects.toMatchObject({
      kind: "validation",
      status: 0,
      fieldErrors: [{ field: "name", message: "name must not be empty" }],
    });
    expect(rec.sent).toHaveLength(0);
  });
});

describe("environments, traffic types, rollout statuses", () => {
  it("environments.list reads the bare array", async () => {
    const envs = await admin.environments.list(ws.id);
    expect(
      envs.map(({ name, production }) => ({ name, production })).sort((a, b) => a.name.localeCompare(b.name)),
    ).toEqual([
      { name: "Production", production: true },
      { name: "Staging", production: false },
    ]);
    expect(seen()).toEqual([`GET ${V2}/environments/ws/${ws.id} 200`]);
  });

  it("environments.create sends {name, production}", async () => {
    const w = await admin.workspaces.create({ name: "ws-env-create" });
    rec.sent.length = 0;
    const env = await admin.environments.create(w.id, { name: "QA" });
    expect(env).toMatchObject({ name: "QA", production: false });
    expect(rec.sent[0]).toMatchObject({
      method: "POST",
      path: `${V2}/environments/ws/${w.id}`,
      body: '{"name":"QA","production":false}',
    });
  });

  it("trafficTypes.list and find", async () => {
    expect((await admin.trafficTypes.list(ws.id)).map((t) => t.name).sort()).toEqual(["account", "user"]);
    expect(await admin.trafficTypes.find(ws.id, "account")).toMatchObject({ name: "account" });
    expect(await admin.trafficTypes.find(ws.id, "nope")).toBeUndefined();
  });

  it("rolloutStatuses.list sends wsId as a query parameter", async () => {
    const statuses = await admin.rolloutStatuses.list(ws.id);
    expect(statuses.map((s) => s.name)).toEqual(
      expect.arrayContaining(["Pre-Production", "Ramping", "Experimenting"]),
    );
    expect(seen()).toEqual([`GET ${V2}/rolloutStatuses?wsId=${ws.id} 200`]);
  });
});

describe("flags", () => {
  it("create posts {name, description} to the traffic type path and starts in Pre-Production", async () => {
    const flag = await admin.flags.create(ws.id, "user", { name: "flag-create", description: "first" });
    expect(flag).toMatchObject({
      name: "flag-create",
      description: "first",
      trafficType: { name: "user" },
      rolloutStatus: { name: "Pre-Production" },
      tags: null,
    });
    expect(rec.sent).toEqual([
      expect.objectContaining({
        method: "POST",
        path: `${V2}/splits/ws/${ws.id}/trafficTypes/user/`,
        body: '{"name":"flag-create","description":"first"}',
      }),
    ]);
  });

  it("refuses a bad flag name before sending", async () => {
    await expect(admin.flags.create(ws.id, "user", { name: "9lives" })).rejects.toMatchObject({
      kind: "validation",
      message:
        "POST /internal/api/v2/splits/ws/{wsId}/trafficTypes/{trafficType}/: invalid request body: name: name must start with a letter and use only letters, digits, '-' and '_'",
    });
    expect(rec.sent).toHaveLength(0);
  });

  it("a duplicate name is a ConflictError", async () => {
    await admin.flags.create(ws.id, "user", { name: "flag-dup" });
    await expect(admin.flags.create(ws.id, "user", { name: "flag-dup" })).rejects.toBeInstanceOf(
      ConflictError,
    );
  });

  it("get by name or id; a missing flag is a NotFoundError", async () => {
    const flag = await admin.flags.create(ws.id, "user", { name: "flag-get" });
    expect(await admin.flags.get(ws.id, "flag-get")).toEqual(flag);
    expect(await admin.flags.get(ws.id, flag.id)).toEqual(flag);
    const p = admin.flags.get(ws.id, "no-such-flag");
    await expect(p).rejects.toBeInstanceOf(NotFoundError);
    await expect(p).rejects.toMatchObject({ status: 404, code: 404 });
  });

  it("list walks pages by offset and filters by tag and name", async () => {
    const w = await admin.workspaces.create({ name: "ws-flag-list" });
    for (let i = 0; i < 5; i++) await admin.flags.create(w.id, "user", { name: `lf-${i}` });
    await admin.flags.setTags(w.id, "lf-3", ["blue"]);
    emu.resetRequests();
    expect((await collect(admin.flags.list(w.id, { pageSize: 2 }))).map((f) => f.name).sort()).toEqual([
      "lf-0",
      "lf-1",
      "lf-2",
      "lf-3",
      "lf-4",
    ]);
    expect(seen()).toEqual([
      `GET ${V2}/splits/ws/${w.id}?offset=0&limit=2 200`,
      `GET ${V2}/splits/ws/${w.id}?offset=2&limit=2 200`,
      `GET ${V2}/splits/ws/${w.id}?offset=4&limit=2 200`,
    ]);
    expect((await collect(admin.flags.list(w.id, { tag: "blue" }))).map((f) => f.name)).toEqual(["lf-3"]);
    expect((await collect(admin.flags.list(w.id, { name: "lf-1" }))).map((f) => f.name)).toEqual(["lf-1"]);
    expect(seen().slice(3)).toEqual([
      `GET ${V2}/splits/ws/${w.id}?offset=0&limit=50&tag=blue 200`,
      `GET ${V2}/splits/ws/${w.id}?offset=0&limit=50&name=lf-1 200`,
    ]);
    expect(() => admin.flags.list(w.id, { pageSize: 51 })).toThrow(
      "pageSize must be a whole number from 1 to 50, got 51",
    );
  });

  it("patch sends the JSON Patch; setRolloutStatus, setDescription and setTags are patches", async () => {
    await admin.flags.create(ws.id, "user", { name: "flag-patch", description: "old" });
    const ramping = (await admin.rolloutStatuses.find(ws.id, "Ramping"))!;
    rec.sent.length = 0;
    const moved = await admin.flags.setRolloutStatus(ws.id, "flag-patch", ramping.id);
    expect(moved.rolloutStatus).toEqual({ id: ramping.id, name: "Ramping" });
    expect(await admin.flags.setDescription(ws.id, "flag-patch", "new")).toMatchObject({
      description: "new",
    });
    expect(await admin.flags.setTags(ws.id, "flag-patch", ["a", "b"])).toMatchObject({
      tags: [{ name: "a" }, { name: "b" }],
    });
    expect(rec.sent.map((s) => [s.method, s.path, s.body])).toEqual([
      [
        "PATCH",
        `${V2}/splits/ws/${ws.id}/flag-patch`,
        `[{"op":"replace","path":"/rolloutStatus/id","value":"${ramping.id}"}]`,
      ],
      [
        "PATCH",
        `${V2}/splits/ws/${ws.id}/flag-patch`,
        '[{"op":"replace","path":"/description","value":"new"}]',
      ],
      [
        "PATCH",
        `${V2}/splits/ws/${ws.id}/flag-patch`,
        '[{"op":"replace","path":"/tags","value":[{"name":"a"},{"name":"b"}]}]',
      ],
    ]);
  });

  it("refuses a malformed JSON Patch before sending", async () => {
    await expect(admin.flags.patch(ws.id, "x", [{ op: "replace", value: 1 } as never])).rejects.toMatchObject(
      {
        kind: "validation",
        fieldErrors: [{ field: "[0].path", message: "Invalid input: expected string, received undefined" }],
      },
    );
    expect(rec.sent).toHaveLength(0);
  });

  it("delete returns true; the flag is then gone", async () => {
    await admin.flags.create(ws.id, "user", { name: "flag-delete" });
    await expect(admin.flags.delete(ws.id, "flag-delete")).resolves.toBe(true);
    await expect(admin.flags.get(ws.id, "flag-delete")).rejects.toBeInstanceOf(NotFoundError);
    expect(seen()).toEqual([
      `POST ${V2}/splits/ws/${ws.id}/trafficTypes/user 200`,
      `DELETE ${V2}/splits/ws/${ws.id}/flag-delete 200`,
      `GET ${V2}/splits/ws/${ws.id}/flag-delete 404`,
    ]);
  });

  it("URL-encodes names in paths", async () => {
    await expect(admin.flags.get(ws.id, "a b/c")).rejects.toBeInstanceOf(NotFoundError);
    expect(rec.sent[0]!.path).toBe(`${V2}/splits/ws/${ws.id}/a%20b%2Fc`);
  });
});

describe("definitions", () => {
  const body = {
    treatments: [{ name: "on" }, { name: "off" }],
    defaultTreatment: "off",
    defaultRule: [{ treatment: "off", size: 100 }],
  };

  it("get of a flag with no definition in the environment is a NotFoundError (spec §7)", async () => {
    const flag = await admin.flags.create(ws.id, "user", { name: "def-missing" });
    const p = admin.definitions.get(ws.id, flag.id, prodId);
    await expect(p).rejects.toBeInstanceOf(NotFoundError);
    await expect(p).rejects.toMatchObject({
      status: 404,
      code: 404,
      apiMessage: `Could not find splitmetadata ${flag.id}`,
    });
    expect(seen().at(-1)).toBe(`GET ${V2}/splits/ws/${ws.id}/${flag.id}/environments/${prodId} 404`);
  });

  it("create posts the normalised body and returns it with timestamps; get by flag id reads it back", async () => {
    const flag = await admin.flags.create(ws.id, "user", { name: "def-create" });
    rec.sent.length = 0;
    const def = await admin.definitions.create(ws.id, "def-create", prodId, body);
    expect(def).toMatchObject({
      id: flag.id,
      name: "def-create",
      environment: { id: prodId, name: "Production" },
      killed: false,
      treatments: [{ name: "on" }, { name: "off" }],
      defaultTreatment: "off",
      trafficAllocation: 100,
      rules: [],
      defaultRule: [{ treatment: "off", size: 100 }],
    });
    expect(def.creationTime).toBeGreaterThan(0);
    expect(rec.sent[0]).toMatchObject({
      method: "POST",
      path: `${V2}/splits/ws/${ws.id}/def-create/environments/${prodId}`,
    });
    expect(JSON.parse(rec.sent[0]!.body!)).toEqual({ ...body, trafficAllocation: 100, rules: [] });
    expect(await admin.definitions.get(ws.id, flag.id, prodId)).toEqual(def);
  });

  it("refuses a definition whose buckets do not sum to 100, naming the field, before sending", async () => {
    await expect(
      admin.definitions.create(ws.id, "x", prodId, {
        ...body,
        defaultRule: [{ treatment: "off", size: 90 }],
      }),
    ).rejects.toMatchObject({
      kind: "validation",
      status: 0,
      fieldErrors: [{ field: "defaultRule", message: "bucket sizes must sum to 100, got 90" }],
    });
    expect(rec.sent).toHaveLength(0);
  });

  it("patch sends title and comment as query parameters; put replaces; list reads the environment", async () => {
    await admin.flags.create(ws.id, "user", { name: "def-patch" });
    await admin.definitions.create(ws.id, "def-patch", "Production", body);
    rec.sent.length = 0;
    const patched = await admin.definitions.patch(
      ws.id,
      "def-patch",
      "Production",
      [{ op: "replace", path: "/defaultRule", value: [{ treatment: "on", size: 100 }] }],
      { title: "Full rollout", comment: "green & ready" },
    );
    expect(patched.defaultRule).toEqual([{ treatment: "on", size: 100 }]);
    expect(rec.sent[0]).toMatchObject({
      method: "PATCH",
      path: `${V2}/splits/ws/${ws.id}/def-patch/environments/Production?title=Full%20rollout&comment=green%20%26%20ready`,
      body: '[{"op":"replace","path":"/defaultRule","value":[{"treatment":"on","size":100}]}]',
    });
    const replaced = await admin.definitions.put(ws.id, "def-patch", "Production", {
      ...body,
      trafficAllocation: 50,
    });
    expect(replaced).toMatchObject({ trafficAllocation: 50, defaultRule: [{ treatment: "off", size: 100 }] });
    const inProd = await collect(admin.definitions.list(ws.id, "Production"));
    expect(inProd.map((d) => d.name)).toContain("def-patch");
  });

  it("kill and restore flip killed", async () => {
    await admin.flags.create(ws.id, "user", { name: "def-kill" });
    await admin.definitions.create(ws.id, "def-kill", prodId, body);
    rec.sent.length = 0;
    expect((await admin.definitions.kill(ws.id, "def-kill", prodId)).killed).toBe(true);
    expect((await admin.definitions.restore(ws.id, "def-kill", prodId)).killed).toBe(false);
    expect(rec.sent.map((s) => `${s.method} ${s.path} ${s.body}`)).toEqual([
      `PUT ${V2}/splits/ws/${ws.id}/def-kill/environments/${prodId}/kill undefined`,
      `PUT ${V2}/splits/ws/${ws.id}/def-kill/environments/${prodId}/restore undefined`,
    ]);
  });

  it("delete returns true and the definition is gone", async () => {
    const flag = await admin.flags.create(ws.id, "user", { name: "def-delete" });
    await admin.definitions.create(ws.id, "def-delete", prodId, body);
    await expect(admin.definitions.delete(ws.id, "def-delete", prodId)).resolves.toBe(true);
    await expect(admin.definitions.get(ws.id, flag.id, prodId)).rejects.toBeInstanceOf(NotFoundError);
  });

  describe("in a workspace that requires a title and comment", () => {
    let strict: Workspace;
    let envId: string;
    beforeAll(async () => {
      strict = await admin.workspaces.create({ name: "ws-strict", requiresTitleAndComments: true });
      envId = (await admin.environments.create(strict.id, { name: "Production", production: true })).id;
      await admin.flags.create(strict.id, "user", { name: "strict-flag" });
      await admin.definitions.create(strict.id, "strict-flag", envId, { ...body, title: "t", comment: "c" });
    });

    it("a patch without them gets the empty-body 400, explained", async () => {
      const p = admin.definitions.patch(strict.id, "strict-flag", envId, [
        { op: "replace", path: "/trafficAllocation", value: 10 },
      ]);
      await expect(p).rejects.toBeInstanceOf(ApiError);
      const err = (await p.catch((e: unknown) => e)) as ApiError;
      const [record] = emu.requests();
      expect(err).toMatchObject({
        kind: "api",
        status: 400,
        body: undefined,
        transactionId: record!.transactionId,
      });
      expect(err.message).toBe(
        `PATCH ${V2}/splits/ws/${strict.id}/strict-flag/environments/${envId}: 400 ${TITLE_AND_COMMENT_REQUIRED} (transaction ${record!.transactionId})`,
      );
      expect(seen()).toEqual([`PATCH ${V2}/splits/ws/${strict.id}/strict-flag/environments/${envId} 400`]);
    });

    it("with them it goes through, and so does a delete", async () => {
      const note = { title: "Cut traffic", comment: "incident 42" };
      expect(
        await admin.definitions.patch(
          strict.id,
          "strict-flag",
          envId,
          [{ op: "replace", path: "/trafficAllocation", value: 10 }],
          note,
        ),
      ).toMatchObject({ trafficAllocation: 10 });
      await expect(admin.definitions.delete(strict.id, "strict-flag", envId)).rejects.toMatchObject({
        status: 400,
        apiMessage: TITLE_AND_COMMENT_REQUIRED,
      });
      await expect(admin.definitions.delete(strict.id, "strict-flag", envId, note)).resolves.toBe(true);
      expect(seen()).toEqual([
        `PATCH ${V2}/splits/ws/${strict.id}/strict-flag/environments/${envId}?title=Cut%20traffic&comment=incident%2042 200`,
        `DELETE ${V2}/splits/ws/${strict.id}/strict-flag/environments/${envId} 400`,
        `DELETE ${V2}/splits/ws/${strict.id}/strict-flag/environments/${envId}?title=Cut%20traffic&comment=incident%2042 200`,
      ]);
    });
  });
});

describe("users", () => {
  it("invite posts {email, groups} and returns a PENDING user", async () => {
    const user = await admin.users.invite({ email: "ivy@example.com", groups: [] });
    expect(user).toMatchObject({
      type: "user",
      name: "ivy",
      email: "ivy@example.com",
      status: "PENDING",
      "2fa": false,
    });
    expect(rec.sent[0]).toMatchObject({
      method: "POST",
      path: `${V2}/users`,
      body: '{"email":"ivy@example.com","groups":[]}',
    });
  });

  it("refuses a bad e-mail before sending", async () => {
    await expect(admin.users.invite({ email: "nope", groups: [] })).rejects.toMatchObject({
      kind: "validation",
      fieldErrors: [{ field: "email", message: "email must be a valid e-mail address" }],
    });
    expect(rec.sent).toHaveLength(0);
  });

  it("list follows nextMarker across pages until it is null", async () => {
    const g = await admin.groups.create({ name: "users-page-group", description: "" });
    for (let i = 0; i < 5; i++)
      await admin.users.invite({ email: `page${i}@example.com`, groups: [{ id: g.id, type: "group" }] });
    emu.resetRequests();
    const users = await collect(admin.users.list({ groupId: g.id, pageSize: 2 }));
    expect(users.map((u) => u.email).sort()).toEqual([0, 1, 2, 3, 4].map((i) => `page${i}@example.com`));
    const log = emu.requests();
    expect(log).toHaveLength(3);
    expect(log[0]!.query).toBe(`group_id=${g.id}&limit=2`);
    expect(log[1]!.query).toMatch(new RegExp(`^group_id=${g.id}&limit=2&after=[^&]+$`));
    expect(log[2]!.query).toMatch(new RegExp(`^group_id=${g.id}&limit=2&after=[^&]+$`));
    expect(log[1]!.query).not.toBe(log[2]!.query);
  });

  it("list filters by status; pageSize above 200 is refused", async () => {
    const u = await admin.users.invite({ email: "active-one@example.com", groups: [] });
    await emu.acceptInvitation(u.id);
    const active = await collect(admin.users.list({ status: "ACTIVE" }));
    expect(active.every((x) => x.status === "ACTIVE")).toBe(true);
    expect(active.map((x) => x.email)).toContain("active-one@example.com");
    expect(seen().at(-1)).toBe(`GET ${V2}/users?status=ACTIVE&limit=200 200`);
    expect(() => admin.users.list({ pageSize: 201 })).toThrow(
      "pageSize must be a whole number from 1 to 200, got 201",
    );
  });

  it("get, put (deactivate) and a 404 for an unknown id", async () => {
    const u = await admin.users.invite({ email: "put-me@example.com", groups: [] });
    await emu.acceptInvitation(u.id);
    const active = await admin.users.get(u.id);
    expect(active.status).toBe("ACTIVE");
    rec.sent.length = 0;
    const off = await admin.users.put(u.id, {
      email: active.email,
      name: "Put Me",
      status: "DEACTIVATED",
      "2fa": false,
      type: "user",
    });
    expect(off).toMatchObject({ name: "Put Me", status: "DEACTIVATED" });
    expect(rec.sent[0]).toMatchObject({
      method: "PUT",
      path: `${V2}/users/${u.id}`,
      body: '{"email":"put-me@example.com","name":"Put Me","status":"DEACTIVATED","2fa":false,"type":"user"}',
    });
    await expect(admin.users.get("00000000-0000-0000-0000-000000000000")).rejects.toBeInstanceOf(
      NotFoundError,
    );
  });

  it("addToGroup and removeFromGroup send the spec's patches", async () => {
    const g1 = await admin.groups.create({ name: "member-g1", description: "" });
    const g2 = await admin.groups.create({ name: "member-g2", description: "" });
    const u = await admin.users.invite({
      email: "member@example.com",
      groups: [{ id: g1.id, type: "group" }],
    });
    rec.sent.length = 0;
    expect((await admin.users.addToGroup(u.id, g2.id)).groups?.map((g) => g.id).sort()).toEqual(
      [g1.id, g2.id].sort(),
    );
    const after = await admin.users.removeFromGroup(u.id, g1.id);
    expect(after.groups).toEqual([{ id: g2.id, type: "group" }]);
    const idx = JSON.parse(rec.sent[2]!.body!)[0].path.split("/")[2];
    expect(rec.sent.map((s) => `${s.method} ${s.path} ${s.body ?? ""}`)).toEqual([
      `PATCH ${V2}/users/${u.id} [{"op":"add","path":"/groups/0","value":{"id":"${g2.id}","type":"group"}}]`,
      `GET ${V2}/users/${u.id} `,
      `PATCH ${V2}/users/${u.id} [{"op":"test","path":"/groups/${idx}/id","value":"${g1.id}"},{"op":"remove","path":"/groups/${idx}"}]`,
    ]);
    rec.sent.length = 0;
    expect(await admin.users.removeFromGroup(u.id, g1.id)).toEqual(after);
    expect(rec.sent.map((s) => s.method)).toEqual(["GET"]);
  });

  it("delete of a PENDING user returns true; of an ACTIVE user is the spec's 400", async () => {
    const pending = await admin.users.invite({ email: "pending-del@example.com", groups: [] });
    await expect(admin.users.delete(pending.id)).resolves.toBe(true);
    const active = await admin.users.invite({ email: "active-del@example.com", groups: [] });
    await emu.acceptInvitation(active.id);
    const p = admin.users.delete(active.id);
    await expect(p).rejects.toBeInstanceOf(ApiError);
    await expect(p).rejects.toMatchObject({
      kind: "api",
      status: 400,
      code: 400,
      apiMessage:
        "Active users cannot be deleted from your org. You can use a PUT request to deactivate the user",
    });
    const err = (await p.catch((e: ApiError) => e)) as ApiError;
    expect(err.message).toBe(
      `DELETE ${V2}/users/${active.id}: 400 Active users cannot be deleted from your org. You can use a PUT request to deactivate the user (transaction ${err.transactionId})`,
    );
    expect(err.transactionId).toMatch(/^[a-z0-9]+$/);
  });
});

describe("groups", () => {
  it("create, get, getByName, put and delete", async () => {
    const g = await admin.groups.create({ name: "grp-crud", description: "first" });
    expect(g).toMatchObject({ name: "grp-crud", description: "first", type: "group" });
    expect(await admin.groups.get(g.id)).toEqual(g);
    expect(await admin.groups.getByName("grp-crud")).toEqual(g);
    expect(await admin.groups.getByName("grp-none")).toBeUndefined();
    rec.sent.length = 0;
    const renamed = await admin.groups.put(g.id, { name: "grp-crud-2", description: "second" });
    expect(renamed).toEqual({ ...g, name: "grp-crud-2", description: "second" });
    expect(rec.sent[0]).toMatchObject({
      method: "PUT",
      path: `${V2}/groups/${g.id}`,
      body: JSON.stringify({ id: g.id, name: "grp-crud-2", description: "second", type: "group" }),
    });
    await expect(admin.groups.delete(g.id)).resolves.toBe(true);
    await expect(admin.groups.get(g.id)).rejects.toBeInstanceOf(NotFoundError);
  });

  it("a duplicate name is a ConflictError; a put with another id is refused", async () => {
    const g = await admin.groups.create({ name: "grp-dup", description: "" });
    await expect(admin.groups.create({ name: "grp-dup", description: "" })).rejects.toBeInstanceOf(
      ConflictError,
    );
    await expect(admin.groups.put(g.id, { id: "other", name: "x", description: "" })).rejects.toMatchObject({
      kind: "validation",
      fieldErrors: [{ field: "id", message: `id must equal the group id in the path (${g.id})` }],
    });
  });

  it("list walks pages by offset and stops at totalCount", async () => {
    const before = (await collect(admin.groups.list())).length;
    const want = before % 3 === 0 ? 6 : 6 - (before % 3); // end on a full page
    for (let i = 0; i < want; i++) await admin.groups.create({ name: `grp-page-${i}`, description: "" });
    emu.resetRequests();
    const total = before + want;
    expect(total % 3).toBe(0);
    const all = await collect(admin.groups.list({ pageSize: 3 }));
    expect(all).toHaveLength(total);
    expect(seen()).toEqual(
      Array.from({ length: total / 3 }, (_, i) => `GET ${V2}/groups?offset=${i * 3}&limit=3 200`),
    );
  });

  it("an empty page past the end ends the walk (objects removed while iterating)", async () => {
    const mine: string[] = [];
    for (let i = 0; i < 4; i++)
      mine.push((await admin.groups.create({ name: `grp-shrink-${i}`, description: "" })).id);
    const total = (await collect(admin.groups.list())).length;
    emu.resetRequests();
    const seenIds: string[] = [];
    for await (const g of admin.groups.list({ pageSize: total - 2 })) {
      seenIds.push(g.id);
      if (seenIds.length === total - 2)
        for (const id of mine) await admin.groups.delete(id).catch(() => undefined);
    }
    expect(seenIds).toHaveLength(total - 2);
    const lists = emu.requests().filter((r) => r.method === "GET");
    expect(lists.map((r) => `${r.query} ${r.status}`)).toEqual([
      `offset=0&limit=${total - 2} 200`,
      `offset=${total - 2}&limit=${total - 2} 200`,
    ]);
  });

  it("a page requested past the end is empty, with the same totalCount (spec §4)", async () => {
    const page = await admin.core.request(
      adminEndpoints.groups.list,
      {},
      { query: { offset: 10_000, limit: 5 } },
    );
    expect(page.objects).toEqual([]);
    expect(page.offset).toBe(10_000);
    expect(page.totalCount).toBeGreaterThan(0);
  });
});
