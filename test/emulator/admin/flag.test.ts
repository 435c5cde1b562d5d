/**
 * Conformance: spec §2 "Feature flag", §3 "Rollout status of a flag", §4 "Flags (project level)";
 * ref admin §1.1-2 (get by name or id, list envelope, tags, updateDescription, immutable name).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import type { Emulator } from "../../../emulator";
import { adminError, type Call, definitionBody, start } from "../helpers";

const UUID = expect.stringMatching(/^[0-9a-f-]{36}$/);
let emu: Emulator;
let call: Call;
let ws: { id: string; name: string };
let env: Record<string, { id: string; name: string; production: boolean }>;
let statuses: { id: string; name: string }[];
let userTt: { id: string; name: string };
const base = () => `/internal/api/v2/splits/ws/${ws.id}`;

/**
 * The emulator stamps times with Date.now(): the tests that check them fake Date alone (the
 * sockets and timers stay real) and set it to {@link AT} or later.
 */
const AT = Date.UTC(2026, 0, 1);
const dateAt = (ms: number) => {
  if (!vi.isFakeTimers()) vi.useFakeTimers({ toFake: ["Date"] });
  vi.setSystemTime(ms);
};
afterEach(() => {
  vi.useRealTimers();
});

beforeAll(async () => {
  ({ emu, call, ws, env } = await start());
  statuses = (await call("GET", `/internal/api/v2/rolloutStatuses?wsId=${ws.id}`)).body;
  userTt = (await call("GET", `/internal/api/v2/trafficTypes/ws/${ws.id}`)).body[0];
});
afterAll(() => emu.stop());

const status = (name: string) => statuses.find((s) => s.name === name) as { id: string; name: string };
const create = (name: string, description = "") =>
  call("POST", `${base()}/trafficTypes/user/`, { body: { name, description } });

describe("POST /splits/ws/{ws}/trafficTypes/{tt}/", () => {
  it("creates a flag in Pre-Production with rolloutStatusTimestamp set and tags null", async () => {
    dateAt(AT);
    const r = await create("new_checkout", "New checkout flow");
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      id: UUID,
      name: "new_checkout",
      description: "New checkout flow",
      trafficType: { id: userTt.id, name: "user" },
      creationTime: AT,
      rolloutStatus: { id: status("Pre-Production").id, name: "Pre-Production" },
      rolloutStatusTimestamp: AT,
      tags: null,
      owners: [],
    });
  });

  it("takes the traffic type only from the path, by name or id", async () => {
    const r = await call("POST", `${base()}/trafficTypes/${userTt.id}`, { body: { name: "by_tt_id" } });
    expect(r.status).toBe(200);
    expect(r.body.trafficType).toEqual({ id: userTt.id, name: "user" });
    expect(r.body.description).toBe("");
    const missing = await call("POST", `${base()}/trafficTypes/robot`, { body: { name: "x1" } });
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual(adminError(404, "Could not find traffic type robot"));
  });

  it("refuses a duplicate name with 409", async () => {
    const r = await create("new_checkout");
    expect(r.status).toBe(409);
    expect(r.body).toEqual(
      adminError(409, "Split with name new_checkout already exists in workspace Default"),
    );
  });

  it.each([
    [{ name: "9lives" }, "name: name must start with a letter and use only letters, digits, '-' and '_'"],
    [{ name: "has space" }, "name: name must start with a letter and use only letters, digits, '-' and '_'"],
    [{ name: "datetime" }, "name: name is a reserved word"],
    [{ name: "a".repeat(101) }, "name: name must be at most 100 characters"],
    [
      { name: "ok", description: "d".repeat(1025) },
      "description: description must be at most 1024 characters",
    ],
    [{ description: "no name" }, "name: is required"],
  ])("refuses %j with 400 naming the field", async (body, message) => {
    const r = await call("POST", `${base()}/trafficTypes/user`, { body });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ code: 400, message, transactionId: expect.any(String) });
  });
});

describe("GET /splits/ws/{ws}/{nameOrId}", () => {
  it("reads a flag by name, by id and by URL-encoded name", async () => {
    const created = (await create("read-me", "x")).body;
    for (const ref of ["read-me", created.id, "read%2Dme"]) {
      const r = await call("GET", `${base()}/${ref}`);
      expect(r.status).toBe(200);
      expect(r.body).toEqual(created);
    }
  });

  it("404s an unknown flag", async () => {
    const r = await call("GET", `${base()}/nope`);
    expect(r.status).toBe(404);
    expect(r.body).toEqual(adminError(404, "Could not find split nope"));
  });
});

describe("GET /splits/ws/{ws} (list)", () => {
  it("returns the offset envelope with limit 20 by default, at most 50", async () => {
    for (let i = 0; i < 25; i++) await create(`bulk_${String(i).padStart(2, "0")}`);
    const r = await call("GET", base());
    expect(r.status).toBe(200);
    expect(r.body.offset).toBe(0);
    expect(r.body.limit).toBe(20);
    expect(r.body.objects).toHaveLength(20);
    const total = r.body.totalCount;
    const last = await call("GET", `${base()}?offset=${total - 2}&limit=50`);
    expect(last.body.objects).toHaveLength(2);
    const tooMany = await call("GET", `${base()}?limit=51`);
    expect(tooMany.status).toBe(400);
    expect(tooMany.body).toEqual(adminError(400, "limit: must be between 1 and 50, got 51"));
  });

  it("filters by name and by tag", async () => {
    await create("tagged");
    await call("PATCH", `${base()}/tagged`, {
      body: [{ op: "add", path: "/tags/0", value: { name: "checkout" } }],
    });
    const byName = await call("GET", `${base()}?name=tagged`);
    expect(byName.body.objects.map((f: { name: string }) => f.name)).toEqual(["tagged"]);
    const byTag = await call("GET", `${base()}?tag=checkout`);
    expect(byTag.body.objects.map((f: { name: string }) => f.name)).toEqual(["tagged"]);
    expect(byTag.body.totalCount).toBe(1);
  });
});

describe("PATCH /splits/ws/{ws}/{name}", () => {
  it("replaces /rolloutStatus/id and moves rolloutStatusTimestamp to the time of the change", async () => {
    dateAt(AT);
    await create("ramp_me");
    dateAt(AT + 5000);
    const r = await call("PATCH", `${base()}/ramp_me`, {
      body: [{ op: "replace", path: "/rolloutStatus/id", value: status("Ramping").id }],
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      rolloutStatus: { id: status("Ramping").id, name: "Ramping" },
      rolloutStatusTimestamp: AT + 5000,
      creationTime: AT,
    });
    // Patching something else, later, leaves the timestamp alone.
    dateAt(AT + 9000);
    const again = await call("PATCH", `${base()}/ramp_me`, {
      body: [{ op: "replace", path: "/description", value: "d" }],
    });
    expect(again.body.rolloutStatusTimestamp).toBe(AT + 5000);
    // A second change of status within the same millisecond still moves it (never backwards, ref §3).
    dateAt(AT + 5000);
    const back = await call("PATCH", `${base()}/ramp_me`, {
      body: [{ op: "replace", path: "/rolloutStatus/id", value: status("Pre-Production").id }],
    });
    expect(back.body.rolloutStatusTimestamp).toBe(AT + 5001);
  });

  it("refuses a rollout status id that is not in the list, changing nothing", async () => {
    const before = (await create("stay_put")).body;
    const r = await call("PATCH", `${base()}/stay_put`, {
      body: [
        { op: "replace", path: "/description", value: "changed" },
        { op: "replace", path: "/rolloutStatus/id", value: "not-a-status" },
      ],
    });
    expect(r.status).toBe(400);
    expect(r.body).toEqual(
      adminError(
        400,
        `rolloutStatus.id: not-a-status is not a rollout status (see GET /rolloutStatuses?wsId=${ws.id})`,
      ),
    );
    expect((await call("GET", `${base()}/stay_put`)).body).toEqual(before);
  });

  it("edits description and tags: add /tags/0, replace /tags, remove back to null", async () => {
    await create("tags_flag", "old");
    const add = await call("PATCH", `${base()}/tags_flag`, {
      body: [
        { op: "replace", path: "/description", value: "new" },
        { op: "add", path: "/tags/0", value: { name: "a" } },
        { op: "add", path: "/tags/0", value: { name: "b" } },
      ],
    });
    expect(add.status).toBe(200);
    expect(add.body.description).toBe("new");
    expect(add.body.tags).toEqual([{ name: "b" }, { name: "a" }]);
    const replace = await call("PATCH", `${base()}/tags_flag`, {
      body: [{ op: "replace", path: "/tags", value: [{ name: "x" }, { name: "x" }] }],
    });
    expect(replace.body.tags).toEqual([{ name: "x" }]);
    const remove = await call("PATCH", `${base()}/tags_flag`, { body: [{ op: "remove", path: "/tags/0" }] });
    expect(remove.body.tags).toBeNull();
  });

  it.each([
    [[{ op: "replace", path: "/name", value: "renamed" }], 400, "name: a feature flag cannot be renamed"],
    [
      [{ op: "replace", path: "/trafficType/id", value: "x" }],
      400,
      "trafficType: read-only, it cannot be changed",
    ],
    [
      [{ op: "replace", path: "/creationTime", value: 1 }],
      400,
      "creationTime: read-only, it cannot be changed",
    ],
    [[{ op: "add", path: "/colour", value: "red" }], 400, "colour: not a field of a feature flag"],
    [
      [{ op: "replace", path: "/description", value: 5 }],
      400,
      "description: Invalid input: expected string, received number",
    ],
    [[{ op: "replace", path: "/tags", value: ["plain"] }], 400, "tags[0]: a tag is {name}"],
    [
      [{ op: "replace", path: "/nothing/here", value: 1 }],
      400,
      "body[0].path: replace /nothing/here: the path does not exist",
    ],
    [
      [{ op: "test", path: "/description", value: "other" }],
      409,
      "JSON Patch operation 0 (test /description) failed: the current value differs, nothing was changed",
    ],
    [
      [{ op: "jump", path: "/description" }],
      400,
      "body[0].op: Invalid discriminator value. Expected 'add' | 'replace' | 'remove' | 'test' | 'move' | 'copy'",
    ],
    [{ op: "replace" }, 400, "body: a JSON Patch array of {op, path, value} is required"],
  ])("refuses %j with %i and changes nothing", async (ops, code, message) => {
    const before = (await call("GET", `${base()}/new_checkout`)).body;
    const r = await call("PATCH", `${base()}/new_checkout`, { body: ops });
    expect(r.status).toBe(code);
    expect(r.body).toMatchObject({ code, message });
    expect((await call("GET", `${base()}/new_checkout`)).body).toEqual(before);
  });

  it("applies a passing test op", async () => {
    const r = await call("PATCH", `${base()}/new_checkout`, {
      body: [
        { op: "test", path: "/description", value: "New checkout flow" },
        { op: "replace", path: "/description", value: "tested" },
      ],
    });
    expect(r.status).toBe(200);
    expect(r.body.description).toBe("tested");
  });
});

describe("description and tag endpoints of the real API", () => {
  it("PUT …/updateDescription takes the raw description", async () => {
    await create("describe_me");
    const r = await call("PUT", `${base()}/describe_me/updateDescription`, {
      body: "plain text body",
      headers: { "content-type": "text/plain" },
    });
    expect(r.status).toBe(200);
    expect(r.body.description).toBe("plain text body");
  });

  it("POST /tags/ws/{ws}/object/{name}/objecttype/Split sets the tags", async () => {
    await create("tag_me");
    const r = await call("POST", `/internal/api/v2/tags/ws/${ws.id}/object/tag_me/objecttype/Split`, {
      body: ["b", "a", "b"],
    });
    expect(r.status).toBe(200);
    expect(r.body.tags).toEqual([{ name: "b" }, { name: "a" }]);
  });
});

describe("DELETE /splits/ws/{ws}/{name}", () => {
  it("removes every environment definition and returns the literal true", async () => {
    await create("doomed");
    for (const e of ["Production", "Staging"]) {
      expect(
        (await call("POST", `${base()}/doomed/environments/${e}`, { body: definitionBody() })).status,
      ).toBe(200);
    }
    const r = await call("DELETE", `${base()}/doomed`);
    expect(r.status).toBe(200);
    expect(r.text).toBe("true");
    expect((await call("GET", `${base()}/doomed`)).status).toBe(404);
    for (const e of ["Production", "Staging"]) {
      const d = await call("GET", `${base()}/doomed/environments/${env[e]?.id}`);
      expect(d.status).toBe(404);
      expect(d.body).toEqual(adminError(404, "Could not find splitmetadata doomed"));
    }
    const again = await call("DELETE", `${base()}/doomed`);
    expect(again.status).toBe(404);
  });
});
