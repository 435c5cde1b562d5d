/**
 * `admin.restrictions` against the emulator: the exact requests and answers of the list (filtered
 * by resource, offset pages) and of the PUT, a workspace's restriction or none, a PUT back to open,
 * and a bad body refused before sending.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { AdminClient } from "../../../sdk/admin/client";
import type { Workspace } from "../../../sdk/admin/schemas";
import { NotFoundError, ValidationError } from "../../../sdk/core/errors";
import { closeSharedPools } from "../../../sdk/core/pool";
import { type AdminBed, collect, startAdminBed } from "../helpers/admin-bed";

let bed: AdminBed;
let admin: AdminClient;
let ws: Workspace;
const PATH = "/internal/api/v2/restrictions";
const seen = () => bed.seen();

beforeAll(async () => {
  bed = await startAdminBed();
  ({ admin, ws } = bed);
});
beforeEach(() => {
  bed.reset();
});
afterAll(async () => {
  await bed.stop();
  await closeSharedPools();
});

const body = (view: boolean, viewers: { id: string; type: string }[]) => ({
  resource: { id: ws.id, type: "workspace" as const },
  operations: { view },
  resourcePermissions: { view: viewers },
});

describe("admin.restrictions", () => {
  it("sets a workspace's restriction by PUT and finds it by the filtered list", async () => {
    expect(await admin.restrictions.ofWorkspace(ws.id)).toBeUndefined();
    expect(seen()).toEqual([
      `GET ${PATH}?offset=0&limit=20&resource_type=workspace&resource_id=${ws.id} 200`,
    ]);
    bed.reset();
    const made = await admin.restrictions.put(body(true, [{ id: "g1", type: "group" }]));
    const restriction = {
      id: made.id,
      type: "restriction",
      resource: { id: ws.id, type: "workspace", name: ws.name },
      operations: { view: true },
      resourcePermissions: { view: [{ id: "g1", type: "group" }] },
    };
    expect(made).toEqual(restriction);
    expect(seen()).toEqual([`PUT ${PATH} 200`]);
    expect(await admin.restrictions.ofWorkspace(ws.id)).toEqual(restriction);
    expect(await collect(admin.restrictions.list("workspace", ws.id, { pageSize: 1 }))).toEqual([
      restriction,
    ]);
  });

  it("a PUT back to open (view false, no viewers) leaves the workspace with no restriction", async () => {
    await admin.restrictions.put(body(true, [{ id: "u1", type: "user" }]));
    const open = await admin.restrictions.put(body(false, []));
    expect(open).toMatchObject({ operations: { view: false }, resourcePermissions: { view: [] } });
    expect(await admin.restrictions.ofWorkspace(ws.id)).toBeUndefined();
  });

  it("a workspace that does not exist is a NotFoundError; a bad body is refused before sending", async () => {
    await expect(admin.restrictions.ofWorkspace("nope")).rejects.toBeInstanceOf(NotFoundError);
    bed.reset();
    const bad = { ...body(true, []), resource: { id: ws.id, type: "environment" } };
    await expect(admin.restrictions.put(bad as never)).rejects.toBeInstanceOf(ValidationError);
    await expect(admin.restrictions.put(bad as never)).rejects.toThrow("resource.type must be workspace");
    expect(() => admin.restrictions.list("workspace", ws.id, { pageSize: 21 })).toThrow(
      "pageSize must be a whole number from 1 to 20, got 21",
    );
    expect(seen()).toEqual([]);
  });
});
