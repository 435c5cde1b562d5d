/**
 * Conformance: spec §2 "Group" (unique name), §4 "Groups" (offset envelope, past the end is empty
 * with the true total), §8 (50 by default, at most 200); ref admin §5.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Emulator } from "../../../emulator";
import { adminError, type Call, start } from "../helpers";

const UUID = expect.stringMatching(/^[0-9a-f-]{36}$/);
let emu: Emulator;
let call: Call;

beforeAll(async () => {
  ({ emu, call } = await start());
});
afterAll(() => emu.stop());

describe("groups", () => {
  it("starts with an empty list in the offset envelope with limit 50", async () => {
    const r = await call("GET", "/internal/api/v2/groups");
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ objects: [], offset: 0, limit: 50, totalCount: 0 });
  });

  it("creates a group and refuses a duplicate name with 409", async () => {
    const r = await call("POST", "/internal/api/v2/groups", {
      body: { name: "Admins", description: "people who approve" },
    });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ id: UUID, name: "Admins", description: "people who approve", type: "group" });
    const dup = await call("POST", "/internal/api/v2/groups", { body: { name: "Admins", description: "" } });
    expect(dup.status).toBe(409);
    expect(dup.body).toEqual(adminError(409, "Group with name Admins already exists"));
    expect((await call("GET", `/internal/api/v2/groups/${r.body.id}`)).body).toEqual(r.body);
  });

  it.each([
    [{ description: "x" }, "name: is required"],
    [{ name: "" }, "name: name must not be empty"],
    [{ name: "n".repeat(257) }, "name: name must be at most 256 characters"],
  ])("refuses %j with 400", async (body, message) => {
    const r = await call("POST", "/internal/api/v2/groups", { body });
    expect(r.status).toBe(400);
    expect(r.body).toEqual(adminError(400, message));
  });

  it("pages with offset and limit; past the end gives empty objects and the true totalCount", async () => {
    for (let i = 0; i < 59; i++)
      await call("POST", "/internal/api/v2/groups", { body: { name: `g${String(i).padStart(2, "0")}` } });
    const first = await call("GET", "/internal/api/v2/groups");
    expect(first.body.objects).toHaveLength(50);
    expect(first.body.totalCount).toBe(60);
    const rest = await call("GET", "/internal/api/v2/groups?offset=50");
    expect(rest.body.objects).toHaveLength(10);
    expect(rest.body.objects.at(-1).name).toBe("g58");
    expect((await call("GET", "/internal/api/v2/groups?offset=60")).body).toEqual({
      objects: [],
      offset: 60,
      limit: 50,
      totalCount: 60,
    });
    expect((await call("GET", "/internal/api/v2/groups?offset=500&limit=200")).body).toEqual({
      objects: [],
      offset: 500,
      limit: 200,
      totalCount: 60,
    });
    const tooBig = await call("GET", "/internal/api/v2/groups?limit=201");
    expect(tooBig.body).toEqual(adminError(400, "limit: must be between 1 and 200, got 201"));
  });

  it("PUT replaces name and description, refusing a taken name, a missing description and a mismatched id", async () => {
    const g = (await call("POST", "/internal/api/v2/groups", { body: { name: "Editors" } })).body;
    const r = await call("PUT", `/internal/api/v2/groups/${g.id}`, {
      body: { id: g.id, name: "Writers", description: "d", type: "group" },
    });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ id: g.id, name: "Writers", description: "d", type: "group" });
    const taken = await call("PUT", `/internal/api/v2/groups/${g.id}`, {
      body: { name: "Admins", description: "" },
    });
    expect(taken.body).toEqual(adminError(409, "Group with name Admins already exists"));
    const partial = await call("PUT", `/internal/api/v2/groups/${g.id}`, { body: { name: "Writers" } });
    expect(partial.body).toEqual(adminError(400, "description: is required"));
    const mismatch = await call("PUT", `/internal/api/v2/groups/${g.id}`, {
      body: { id: "other", name: "W", description: "" },
    });
    expect(mismatch.body).toEqual(
      adminError(400, `id: other does not match the group in the path (${g.id})`),
    );
  });

  it("PUT with only a description keeps the name (the davidji99 Terraform provider sends that, issue 18)", async () => {
    const g = (await call("POST", "/internal/api/v2/groups", { body: { name: "Readers", description: "a" } }))
      .body;
    const r = await call("PUT", `/internal/api/v2/groups/${g.id}`, { body: { description: "b" } });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ id: g.id, name: "Readers", description: "b", type: "group" });
    expect((await call("GET", `/internal/api/v2/groups/${g.id}`)).body).toEqual(r.body);
  });

  it("DELETE returns true, frees the name and removes the group from its members", async () => {
    const g = (await call("POST", "/internal/api/v2/groups", { body: { name: "Temp" } })).body;
    const u = (
      await call("POST", "/internal/api/v2/users", {
        body: { email: "t@example.com", groups: [{ id: g.id, type: "group" }] },
      })
    ).body;
    const r = await call("DELETE", `/internal/api/v2/groups/${g.id}`);
    expect(r.status).toBe(200);
    expect(r.text).toBe("true");
    expect((await call("GET", `/internal/api/v2/groups/${g.id}`)).body).toEqual(
      adminError(404, `Could not find group ${g.id}`),
    );
    expect((await call("GET", `/internal/api/v2/users/${u.id}`)).body.groups).toEqual([]);
    expect((await call("POST", "/internal/api/v2/groups", { body: { name: "Temp" } })).status).toBe(200);
  });
});
