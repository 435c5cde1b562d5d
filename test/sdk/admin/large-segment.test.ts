/**
 * `admin.largeSegments` against the emulator: exact requests (method, path, query, body) and exact
 * answers; the bare-array lists walked page by page; activation per environment; bodies refused
 * before anything is sent.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { AdminClient } from "../../../sdk/admin/client";
import { walkArrayPages } from "../../../sdk/admin/large-segment";
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
