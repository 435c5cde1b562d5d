/**
 * Conformance: spec §2 "User", §3 "User status", §4 "Users" (invite, marker pagination, PUT of
 * all properties, PATCH of groups), §7 (DELETE of an ACTIVE user), §8 (20 by default, at most
 * 200); ref admin §5.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Emulator } from "../../../emulator";
import { adminError, type Call, start } from "../helpers";

const UUID = expect.stringMatching(/^[0-9a-f-]{36}$/);
let emu: Emulator;
let call: Call;
let groupA: { id: string };
let groupB: { id: string };

beforeAll(async () => {
  ({ emu, call } = await start());
  groupA = (await call("POST", "/internal/api/v2/groups", { body: { name: "A", description: "" } })).body;
  groupB = (await call("POST", "/internal/api/v2/groups", { body: { name: "B", description: "" } })).body;
});
afterAll(() => emu.stop());

const invite = (email: string, groups: { id: string; type: "group" }[] = []) =>
  call("POST", "/internal/api/v2/users", { body: { email, groups } });

describe("POST /users (invite)", () => {
  it("invites a PENDING user named after the local part of the e-mail", async () => {
    const r = await invite("ada.lovelace@example.com", [{ id: groupA.id, type: "group" }]);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      id: UUID,
      type: "user",
      name: "ada.lovelace",
      email: "ada.lovelace@example.com",
      status: "PENDING",
      "2fa": false,
      groups: [{ id: groupA.id, type: "group" }],
    });
    expect((await call("GET", `/internal/api/v2/users/${r.body.id}`)).body).toEqual(r.body);
  });

  it.each([
    [{ email: "not-an-email", groups: [] }, 400, "email: email must be a valid e-mail address"],
    [{ groups: [] }, 400, "email: is required"],
    [
      { email: "x@example.com", groups: [{ id: "nope", type: "group" }] },
      400,
      "groups[0].id: group nope does not exist",
    ],
    [
      { email: "x@example.com", groups: [{ id: "g" }] },
      400,
      'groups[0].type: Invalid input: expected "group"',
    ],
    [
      { email: "ADA.LOVELACE@example.com", groups: [] },
      409,
      "User with email ADA.LOVELACE@example.com already exists",
    ],
  ])("refuses %j", async (body, code, message) => {
    const r = await call("POST", "/internal/api/v2/users", { body });
    expect(r.status).toBe(code);
    expect(r.body).toEqual(adminError(code, message));
  });
});

describe("GET /users (marker pagination)", () => {
  beforeAll(async () => {
    for (let i = 0; i < 44; i++)
      await invite(
        `user${String(i).padStart(2, "0")}@example.com`,
        i % 2 ? [{ id: groupB.id, type: "group" }] : [],
      );
  });

  it("pages 20 at a time, following nextMarker with after, until nextMarker is null", async () => {
    const seen: string[] = [];
    let after: string | null = null;
    const pages: { count: number; limit: number; previous: boolean }[] = [];
    do {
      const r: {
        body: {
          data: { email: string }[];
          nextMarker: string | null;
          previousMarker: string | null;
          limit: number;
          count: number;
        };
      } = await call("GET", `/internal/api/v2/users${after ? `?after=${after}` : ""}`);
      pages.push({ count: r.body.count, limit: r.body.limit, previous: r.body.previousMarker !== null });
      seen.push(...r.body.data.map((u) => u.email));
      after = r.body.nextMarker;
    } while (after);
    expect(pages).toEqual([
      { count: 20, limit: 20, previous: false },
      { count: 20, limit: 20, previous: true },
      { count: 5, limit: 20, previous: true },
    ]);
    expect(seen).toHaveLength(45);
    expect(new Set(seen).size).toBe(45);
    expect(seen[0]).toBe("ada.lovelace@example.com");
  });

  it("goes back with before=previousMarker", async () => {
    const first = await call("GET", "/internal/api/v2/users?limit=10");
    const second = await call("GET", `/internal/api/v2/users?limit=10&after=${first.body.nextMarker}`);
    const back = await call("GET", `/internal/api/v2/users?limit=10&before=${second.body.previousMarker}`);
    expect(back.body.data).toEqual(first.body.data);
    expect(back.body.previousMarker).toBeNull();
  });

  it("has both markers null on a single page, and filters by status and group_id", async () => {
    const r = await call("GET", `/internal/api/v2/users?group_id=${groupA.id}`);
    expect(r.body).toEqual({
      data: [expect.objectContaining({ email: "ada.lovelace@example.com" })],
      nextMarker: null,
      previousMarker: null,
      limit: 20,
      count: 1,
    });
    const inB = await call("GET", `/internal/api/v2/users?group_id=${groupB.id}&limit=200`);
    expect(inB.body.count).toBe(22);
    const active = await call("GET", "/internal/api/v2/users?status=ACTIVE");
    expect(active.body).toEqual({ data: [], nextMarker: null, previousMarker: null, limit: 20, count: 0 });
  });

  it.each([
    ["limit=201", "limit: must be between 1 and 200, got 201"],
    ["limit=0", "limit: must be between 1 and 200, got 0"],
    ["status=GONE", 'status: Invalid option: expected one of "PENDING"|"ACTIVE"|"DEACTIVATED"'],
    ["after=garbage", 'after: not a marker returned by this API ("garbage")'],
  ])("refuses %s with 400", async (query, message) => {
    const r = await call("GET", `/internal/api/v2/users?${query}`);
    expect(r.status).toBe(400);
    expect(r.body).toEqual(adminError(400, message));
  });
});

describe("user lifecycle: accept, PUT, PATCH groups, DELETE", () => {
  it("deletes a PENDING user (removed) but not an ACTIVE one (the spec's 400); PUT deactivates", async () => {
    const pending = (await invite("pending@example.com")).body;
    const del = await call("DELETE", `/internal/api/v2/users/${pending.id}`);
    expect(del.status).toBe(200);
    expect(del.body).toBe(true);
    expect((await call("GET", `/internal/api/v2/users/${pending.id}`)).body).toEqual(
      adminError(404, `Could not find user ${pending.id}`),
    );

    const active = (await invite("active@example.com")).body;
    const accepted = await call("POST", `/_emulator/users/${active.id}/accept`, { key: null });
    expect(accepted.body.status).toBe("ACTIVE");
    const refused = await call("DELETE", `/internal/api/v2/users/${active.id}`);
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual(
      adminError(
        400,
        "Active users cannot be deleted from your org. You can use a PUT request to deactivate the user",
      ),
    );
    expect((await call("GET", `/internal/api/v2/users/${active.id}`)).body.status).toBe("ACTIVE");

    const put = await call("PUT", `/internal/api/v2/users/${active.id}`, {
      body: {
        email: "active@example.com",
        name: "Active Person",
        status: "DEACTIVATED",
        "2fa": false,
        type: "user",
      },
    });
    expect(put.status).toBe(200);
    expect(put.body).toEqual({ ...active, name: "Active Person", status: "DEACTIVATED" });
  });

  it.each([
    [
      { email: "p@example.com", name: "P", status: "ACTIVE", "2fa": false },
      "PUT replaces the whole user: all of email, name, status, 2fa, type must be sent (not a partial update); missing: type",
    ],
    [
      { email: "p@example.com", status: "ACTIVE", "2fa": false, type: "user" },
      "PUT replaces the whole user: all of email, name, status, 2fa, type must be sent (not a partial update); missing: name",
    ],
    [
      { name: "P" },
      "PUT replaces the whole user: all of email, name, status, 2fa, type must be sent (not a partial update); missing: email, status, 2fa, type",
    ],
    [
      { email: "p@example.com", name: "P", status: "ACTIVE", "2fa": true, type: "user" },
      "2fa: two-factor authentication cannot be enabled through the API",
    ],
    [
      { email: "p@example.com", name: "P", status: "PENDING", "2fa": false, type: "user" },
      "status: a user cannot be set back to PENDING",
    ],
  ])("PUT needs all properties and valid transitions: %j", async (body, message) => {
    const u = (await invite(`put${Math.random().toString(36).slice(2, 8)}@example.com`)).body;
    await emu.acceptInvitation(u.id);
    const r = await call("PUT", `/internal/api/v2/users/${u.id}`, { body });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ code: 400, message });
  });

  it("refuses to make a PENDING user ACTIVE through PUT", async () => {
    const u = (await invite("still-pending@example.com")).body;
    const r = await call("PUT", `/internal/api/v2/users/${u.id}`, {
      body: { email: u.email, name: u.name, status: "ACTIVE", "2fa": false, type: "user" },
    });
    expect(r.status).toBe(400);
    expect(r.body.message).toBe(
      "status: a PENDING user becomes ACTIVE only by accepting the invitation; delete the invitation instead",
    );
  });

  it("PATCH adds a group with add /groups/0 and removes it with test + remove, returning the full user", async () => {
    const u = (await invite("member@example.com")).body;
    const added = await call("PATCH", `/internal/api/v2/users/${u.id}`, {
      body: [{ op: "add", path: "/groups/0", value: { id: groupB.id, type: "group" } }],
    });
    expect(added.status).toBe(200);
    expect(added.body).toEqual({ ...u, groups: [{ id: groupB.id, type: "group" }] });
    const wrongTest = await call("PATCH", `/internal/api/v2/users/${u.id}`, {
      body: [
        { op: "test", path: "/groups/0/id", value: groupA.id },
        { op: "remove", path: "/groups/0" },
      ],
    });
    expect(wrongTest.status).toBe(409);
    const removed = await call("PATCH", `/internal/api/v2/users/${u.id}`, {
      body: [
        { op: "test", path: "/groups/0/id", value: groupB.id },
        { op: "remove", path: "/groups/0" },
      ],
    });
    expect(removed.body.groups).toEqual([]);
    const other = await call("PATCH", `/internal/api/v2/users/${u.id}`, {
      body: [{ op: "replace", path: "/name", value: "x" }],
    });
    expect(other.status).toBe(400);
    expect(other.body).toEqual(
      adminError(400, "name: only /groups can be changed with PATCH; use PUT for the other fields"),
    );
    const unknownGroup = await call("PATCH", `/internal/api/v2/users/${u.id}`, {
      body: [{ op: "add", path: "/groups/0", value: { id: "nope", type: "group" } }],
    });
    expect(unknownGroup.body).toEqual(adminError(400, "groups[0].id: group nope does not exist"));
  });
});

describe("the davidji99 Terraform provider's deactivation (issue 18)", () => {
  it("refuses PUT {status: DEACTIVATED} alone: the spec requires the full object", async () => {
    const u = (await call("POST", "/internal/api/v2/users", { body: { email: "tf-deactivate@example.com" } }))
      .body;
    await emu.acceptInvitation(u.id);
    const r = await call("PUT", `/internal/api/v2/users/${u.id}`, { body: { status: "DEACTIVATED" } });
    expect(r.status).toBe(400);
    expect(r.body).toEqual(
      adminError(
        400,
        "PUT replaces the whole user: all of email, name, status, 2fa, type must be sent (not a partial update); missing: email, name, 2fa, type",
      ),
    );
    expect((await call("GET", `/internal/api/v2/users/${u.id}`)).body.status).toBe("ACTIVE");
  });
});
