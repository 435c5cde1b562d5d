/**
 * `admin.flagSets` against the emulator: the v3 routes, exact requests and answers, the marker
 * pages walked by the async iterator, a duplicate name and a bad name refused.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { AdminClient } from "../../../sdk/admin/client";
import type { Workspace } from "../../../sdk/admin/schemas";
import { ConflictError, NotFoundError, ValidationError } from "../../../sdk/core/errors";
import { closeSharedPools } from "../../../sdk/core/pool";
import { type AdminBed, collect, startAdminBed } from "../helpers/admin-bed";

let bed: AdminBed;
let admin: AdminClient;
let ws: Workspace;
const V3 = "/internal/api/v3";
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

describe("admin.flagSets", () => {
  it("creates a flag set and reads it by id and by name", async () => {
    const made = await admin.flagSets.create({
      name: "web",
      description: "Flags of the web app",
      workspace: { id: ws.id, type: "WORKSPACE" },
    });
    expect(made).toEqual({
      id: made.id,
      name: "web",
      description: "Flags of the web app",
      workspace: { id: ws.id, type: "WORKSPACE" },
      createdAt: made.createdAt,
      type: "flag_set",
    });
    expect(seen()).toEqual([`POST ${V3}/flag-sets 200`]);
    expect(await admin.flagSets.get(made.id)).toEqual(made);
    expect(await admin.flagSets.find(ws.id, "web")).toEqual(made);
    expect(await admin.flagSets.find(ws.id, "nothing")).toBeUndefined();
  });

  it("walks every marker page", async () => {
    for (const n of [1, 2, 3]) await admin.flagSets.create({ name: `page.${n}`, workspace: { id: ws.id } });
    bed.reset();
    const names = (await collect(admin.flagSets.list(ws.id, { pageSize: 2 }))).map((f) => f.name);
    expect(names.filter((n) => n.startsWith("page."))).toEqual(["page.1", "page.2", "page.3"]);
    expect(seen()[0]).toBe(`GET ${V3}/flag-sets?workspace_id=${ws.id}&limit=2 200`);
    expect(seen()).toHaveLength(Math.ceil(names.length / 2));
  });

  it("refuses a duplicate name (ConflictError) and a bad name before sending", async () => {
    await admin.flagSets.create({ name: "dup", workspace: { id: ws.id } });
    await expect(admin.flagSets.create({ name: "dup", workspace: { id: ws.id } })).rejects.toBeInstanceOf(
      ConflictError,
    );
    bed.reset();
    await expect(admin.flagSets.create({ name: "Web App", workspace: { id: ws.id } })).rejects.toBeInstanceOf(
      ValidationError,
    );
    expect(seen()).toEqual([]);
  });

  it("deletes (204), and then the flag set is not found", async () => {
    const made = await admin.flagSets.create({ name: "gone", workspace: { id: ws.id } });
    expect(await admin.flagSets.delete(made.id)).toBe(true);
    expect(seen().at(-1)).toBe(`DELETE ${V3}/flag-sets/${made.id} 204`);
    await expect(admin.flagSets.get(made.id)).rejects.toBeInstanceOf(NotFoundError);
  });
});
