/**
 * `admin.largeSegments` against the emulator: exact requests (method, path, query, body) and exact
 * answers; the bare-array lists walked page by page; activation per environment; bodies refused
 * before anything is sent; members uploaded through an UPLOAD change request and its
 * `transactionMetadata.url` (splitapiclient 3.5.9 `large_segment_definition_microclient.py`).
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { AdminClient } from "../../../sdk/admin/client";
import { LARGE_SEGMENT_MEMBERS_MAX, readMembersFile, walkArrayPages } from "../../../sdk/admin/large-segment";
import type { Workspace } from "../../../sdk/admin/schemas";
import { ConflictError, NotFoundError, ValidationError } from "../../../sdk/core/errors";
import { closeSharedPools } from "../../../sdk/core/pool";
import { type AdminBed, collect, startAdminBed } from "../helpers/admin-bed";

let bed: AdminBed;
let admin: AdminClient;
let ws: Workspace;
let prodId: string;
const V2 = "/internal/api/v2";
const seen = () => bed.seen();
const bodies = () => bed.bodies();

beforeAll(async () => {
  bed = await startAdminBed();
  ({ admin, ws, prodId } = bed);
});
beforeEach(() => {
  bed.reset();
});
afterAll(async () => {
  await bed.stop();
  await closeSharedPools();
});

describe("admin.largeSegments", () => {
  it("creates a large segment of a traffic type and finds it in the list", async () => {
    const made = await admin.largeSegments.create(ws.id, "user", {
      name: "sdk_large",
      description: "CRM export",
    });
    expect(made).toMatchObject({
      name: "sdk_large",
      description: "CRM export",
      trafficType: { name: "user" },
      tags: [],
    });
    expect(seen()).toEqual([`POST ${V2}/large-segments/ws/${ws.id}/trafficTypes/user 200`]);
    expect(bodies()).toEqual([{ name: "sdk_large", description: "CRM export" }]);
    bed.reset();
    expect(await admin.largeSegments.get(ws.id, "sdk_large")).toEqual(made);
    expect(seen()).toEqual([`GET ${V2}/large-segments/ws/${ws.id}?offset=0&limit=50 200`]);
    expect(await admin.largeSegments.find(ws.id, "sdk_nobody")).toBeUndefined();
    const missing = await admin.largeSegments.get(ws.id, "sdk_nobody").catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(NotFoundError);
    expect((missing as NotFoundError).message).toContain("Could not find large segment sdk_nobody");
  });

  it("lists every page, asking for the next while a page is full", async () => {
    for (const n of [1, 2, 3]) await admin.largeSegments.create(ws.id, "user", { name: `sdk_lpage_${n}` });
    bed.reset();
    const names = (await collect(admin.largeSegments.list(ws.id, { pageSize: 2 }))).map((s) => s.name);
    expect(names.filter((n) => n.startsWith("sdk_lpage_"))).toEqual([
      "sdk_lpage_1",
      "sdk_lpage_2",
      "sdk_lpage_3",
    ]);
    expect(seen()[0]).toBe(`GET ${V2}/large-segments/ws/${ws.id}?offset=0&limit=2 200`);
    expect(seen().length).toBe(Math.floor(names.length / 2) + 1);
  });

  it("takes a page longer than the limit as the whole list (a service that does not page)", async () => {
    const asked: unknown[] = [];
    const all = await collect(
      walkArrayPages(async (q) => {
        asked.push(q);
        return [1, 2, 3];
      }, 2),
    );
    expect(all).toEqual([1, 2, 3]);
    expect(asked).toEqual([{ offset: 0, limit: 2 }]);
  });

  it("refuses a duplicate name with a ConflictError, and a bad name or page size before sending", async () => {
    await admin.largeSegments.create(ws.id, "user", { name: "sdk_ldup" });
    await expect(admin.largeSegments.create(ws.id, "user", { name: "sdk_ldup" })).rejects.toBeInstanceOf(
      ConflictError,
    );
    bed.reset();
    await expect(admin.largeSegments.create(ws.id, "user", { name: "1 bad" })).rejects.toMatchObject({
      fieldErrors: [
        { field: "name", message: "name must start with a letter and use only letters, digits, '-' and '_'" },
      ],
    });
    expect(() => admin.largeSegments.list(ws.id, { pageSize: 51 })).toThrow(ValidationError);
    expect(seen()).toEqual([]);
  });

  it("activates a large segment in an environment, lists it as active, deactivates it", async () => {
    await admin.largeSegments.create(ws.id, "user", { name: "sdk_lactive" });
    bed.reset();
    const a = await admin.largeSegments.activate(prodId, "sdk_lactive");
    expect(a).toMatchObject({
      name: "sdk_lactive",
      environment: { id: prodId, name: "Production" },
      trafficType: { name: "user" },
    });
    expect(seen()).toEqual([`POST ${V2}/large-segments/${prodId}/sdk_lactive 200`]);
    bed.reset();
    expect(await admin.largeSegments.activation(ws.id, prodId, "sdk_lactive")).toEqual(a);
    expect(seen()).toEqual([
      `GET ${V2}/large-segments/ws/${ws.id}/environments/${prodId}?offset=0&limit=50 200`,
    ]);
    await expect(admin.largeSegments.activate(prodId, "sdk_lactive")).rejects.toBeInstanceOf(ConflictError);
    bed.reset();
    expect(await admin.largeSegments.deactivate(prodId, "sdk_lactive")).toBe(true);
    expect(seen()).toEqual([`DELETE ${V2}/large-segments/${prodId}/sdk_lactive 200`]);
    expect(await admin.largeSegments.activation(ws.id, prodId, "sdk_lactive")).toBeUndefined();
    await expect(admin.largeSegments.deactivate(prodId, "sdk_lactive")).rejects.toBeInstanceOf(NotFoundError);
  });

  it("deletes a large segment (true) and it leaves every environment; a second delete is a NotFoundError", async () => {
    await admin.largeSegments.create(ws.id, "user", { name: "sdk_lgone" });
    await admin.largeSegments.activate(prodId, "sdk_lgone");
    bed.reset();
    expect(await admin.largeSegments.delete(ws.id, "sdk_lgone")).toBe(true);
    expect(seen()).toEqual([`DELETE ${V2}/large-segments/ws/${ws.id}/sdk_lgone 200`]);
    expect(await admin.largeSegments.activation(ws.id, prodId, "sdk_lgone")).toBeUndefined();
    await expect(admin.largeSegments.delete(ws.id, "sdk_lgone")).rejects.toBeInstanceOf(NotFoundError);
  });
});

/** The large segments a key belongs to in an SDK key's environment, as the client-side SDK reads them. */
async function largeMemberships(sdkKey: string, key: string): Promise<string[]> {
  const res = await fetch(`${bed.emu.url}/api/memberships/${encodeURIComponent(key)}`, {
    headers: { authorization: `Bearer ${sdkKey}` },
  });
  const body = (await res.json()) as { ls: { k: { n: string }[] } };
  return body.ls.k.map((k) => k.n);
}

describe("admin.largeSegments.uploadMembers", () => {
  it("opens an UPLOAD change request, then PUTs the CSV to its transactionMetadata.url without the admin key", async () => {
    await admin.largeSegments.create(ws.id, "user", { name: "sdk_lup" });
    await admin.largeSegments.activate(prodId, "sdk_lup");
    bed.reset();
    const done = await admin.largeSegments.uploadMembers(ws.id, prodId, "sdk_lup", ["m1", "m2", "m1", "m3"], {
      title: "CRM export",
      comment: "nightly",
    });
    expect(done.members).toBe(3);
    expect(done.changeRequest).toMatchObject({ status: "PUBLISHED", operationType: "UPLOAD" });
    expect("transactionMetadata" in done.changeRequest).toBe(false);
    const seenNow = seen();
    expect(seenNow).toHaveLength(2);
    expect(seenNow[0]).toBe(`POST ${V2}/changeRequests/ws/${ws.id}/environments/${prodId} 200`);
    expect(seenNow[1]).toMatch(new RegExp(`^PUT ${V2}/large-segments/uploads/[0-9a-f-]{36} 200$`));
    const [cr, put] = bed.rec.sent;
    expect(JSON.parse(String(cr!.body))).toEqual({
      largeSegment: { name: "sdk_lup" },
      operationType: "UPLOAD",
      title: "CRM export",
      comment: "nightly",
      approvers: [],
    });
    expect(put!.method).toBe("PUT");
    expect(put!.headers.authorization).toBeUndefined();
    expect(put!.headers["x-api-key"]).toBeUndefined();
    expect(put!.headers["content-type"]).toBe("text/csv");
    expect(put!.headers["content-length"]).toBe("9");
    expect(put!.headers.host).toBe(new URL(bed.emu.url).host);
    for (const m of ["m1", "m2", "m3"])
      expect(await largeMemberships(bed.emu.sdkKey, m)).toEqual(["sdk_lup"]);
    expect(await largeMemberships(bed.emu.sdkKey, "m4")).toEqual([]);
  });

  it("refuses more than 100,000 members, or a member that is not one CSV field, before any request", async () => {
    bed.reset();
    const many = Array.from({ length: LARGE_SEGMENT_MEMBERS_MAX + 1 }, (_, i) => `k${i}`);
    const tooMany = await admin.largeSegments.uploadMembers(ws.id, prodId, "sdk_lup", many).catch((e) => e);
    expect(tooMany).toBeInstanceOf(ValidationError);
    expect((tooMany as ValidationError).fieldErrors).toEqual([
      { field: "members", message: "at most 100000 members in a large segment upload, 100001 given" },
    ]);
    const bad = await admin.largeSegments
      .uploadMembers(ws.id, prodId, "sdk_lup", ["ok", "a,b", ""])
      .catch((e) => e);
    expect((bad as ValidationError).fieldErrors).toEqual([
      { field: "members[1]", message: "a member must not contain a comma, a quote or a line break" },
      { field: "members[2]", message: "a member must not be empty" },
    ]);
    expect(seen()).toEqual([]);
    // Exactly the bound is sent.
    const done = await admin.largeSegments.uploadMembers(ws.id, prodId, "sdk_lup", many.slice(1));
    expect(done.members).toBe(100_000);
    expect(await largeMemberships(bed.emu.sdkKey, "k100000")).toEqual(["sdk_lup"]);
    expect(await largeMemberships(bed.emu.sdkKey, "m1")).toEqual([]);
  });

  it("where approvals are required, the members wait for the approval and are applied by it", async () => {
    await admin.environments.create(ws.id, {
      name: "SdkGated",
      production: true,
      changePermissions: { areApprovalsRequired: true },
    });
    const gated = (await admin.environments.find(ws.id, "SdkGated"))!;
    await admin.largeSegments.create(ws.id, "user", { name: "sdk_lgated" });
    await admin.largeSegments.activate(gated.id, "sdk_lgated");
    const sdkKey = (
      await admin.apiKeys.create({
        name: "sdk-gated",
        apiKeyType: "client_side",
        environments: [{ type: "environment", id: gated.id }],
        workspace: { type: "workspace", id: ws.id },
      })
    ).key;
    const done = await admin.largeSegments.uploadMembers(ws.id, gated.id, "sdk_lgated", ["g1", "g2"], {
      approvers: ["lead@example.com"],
    });
    expect(done.changeRequest).toMatchObject({ status: "REQUESTED", approvers: ["lead@example.com"] });
    expect(await largeMemberships(sdkKey, "g1")).toEqual([]);
    const approverKey = await admin.apiKeys.create({
      name: "approver",
      apiKeyType: "admin",
      roles: ["API_ALL_GRANTED"],
      workspace: { type: "workspace", id: ws.id },
    });
    const approver = new AdminClient({ baseUrl: bed.emu.url, apiKey: approverKey.key, env: {} });
    expect((await approver.changeRequests.approve(done.changeRequest.id, "ok")).status).toBe("PUBLISHED");
    expect(await largeMemberships(sdkKey, "g1")).toEqual(["sdk_lgated"]);
    expect(await largeMemberships(sdkKey, "g3")).toEqual([]);
    // A second upload while none is open replaces the members.
    const again = await admin.largeSegments.uploadMembers(ws.id, gated.id, "sdk_lgated", ["g3"]);
    await approver.changeRequests.approve(again.changeRequest.id);
    expect(await largeMemberships(sdkKey, "g1")).toEqual([]);
    expect(await largeMemberships(sdkKey, "g3")).toEqual(["sdk_lgated"]);
  });
});

describe("readMembersFile", () => {
  const dir = mkdtempSync(join(tmpdir(), "ls27-members-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("reads one key a line: a `key` header, blank lines, further CSV fields and repeats dropped", async () => {
    const file = join(dir, "members.csv");
    writeFileSync(file, "key\r\nu1\n\nu2,extra\nu1\n u3 \n");
    expect(await readMembersFile(file)).toEqual(["u1", "u2", "u3"]);
  });

  it("stops at the first member past 100,000 and names the field; a bad line is named with its number", async () => {
    const file = join(dir, "many.csv");
    writeFileSync(file, Array.from({ length: 100_001 }, (_, i) => `k${i}\n`).join(""));
    const e = await readMembersFile(file, "members[0].file").catch((x) => x);
    expect((e as ValidationError).fieldErrors).toEqual([
      {
        field: "members[0].file",
        message: "at most 100000 members in a large segment upload, more than 100000 given",
      },
    ]);
    writeFileSync(file, 'a\n"b\n');
    expect(((await readMembersFile(file).catch((x) => x)) as ValidationError).fieldErrors).toEqual([
      { field: "file", message: "line 2: a member must not contain a comma, a quote or a line break" },
    ]);
  });
});
