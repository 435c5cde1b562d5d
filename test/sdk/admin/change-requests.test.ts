/**
 * `admin.changeRequests` against the emulator: an approval-gated environment refuses the direct
 * write, a change request is submitted with the exact body, listed (marker pages, by status and
 * environment), read, approved by a second admin key made through `admin.apiKeys` (the submitter
 * cannot approve its own), rejected, and withdrawn.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { AdminClient } from "../../../sdk/admin/client";
import type { Workspace } from "../../../sdk/admin/schemas";
import { ApiError, ConflictError, ValidationError } from "../../../sdk/core/errors";
import { closeSharedPools } from "../../../sdk/core/pool";
import { type AdminBed, collect, startAdminBed } from "../helpers/admin-bed";

let bed: AdminBed;
let admin: AdminClient;
let approver: AdminClient;
let ws: Workspace;
let gatedId: string;
const CR = "/internal/api/v2/changeRequests";
const seen = () => bed.seen();
const definition = {
  treatments: [{ name: "on" }, { name: "off" }],
  defaultTreatment: "off",
  defaultRule: [{ treatment: "on", size: 100 }],
};

beforeAll(async () => {
  bed = await startAdminBed();
  ({ admin, ws } = bed);
  const gated = await admin.environments.create(ws.id, {
    name: "Gated",
    production: true,
    changePermissions: { areApprovalsRequired: true },
  });
  gatedId = gated.id;
  for (const name of ["cr_one", "cr_two", "cr_three", "cr_four"]) {
    await admin.flags.create(ws.id, "user", { name, description: "" });
  }
  const key = await admin.apiKeys.create({
    name: "approver",
    apiKeyType: "admin",
    roles: ["API_ALL_GRANTED"],
    workspace: { type: "workspace", id: ws.id },
  });
  approver = new AdminClient({
    baseUrl: bed.emu.url,
    apiKey: key.key,
    requestsPerSecond: Number.POSITIVE_INFINITY,
  });
});
beforeEach(() => {
  bed.reset();
});
afterAll(async () => {
  await bed.stop();
  await closeSharedPools();
});

describe("admin.changeRequests", () => {
  it("submits a definition change, which a second admin key approves and the service applies", async () => {
    await expect(admin.definitions.create(ws.id, "cr_one", gatedId, definition)).rejects.toMatchObject({
      status: 403,
    });
    bed.reset();
    const body = {
      split: { name: "cr_one", ...definition },
      operationType: "CREATE" as const,
      title: "turn it on",
      comment: "please",
      approvers: ["boss@example.com"],
    };
    const cr = await admin.changeRequests.create(ws.id, gatedId, body);
    expect(seen()).toEqual([`POST ${CR}/ws/${ws.id}/environments/${gatedId} 200`]);
    expect(bed.bodies()).toEqual([body]);
    expect(cr).toMatchObject({
      status: "REQUESTED",
      title: "turn it on",
      comment: "please",
      approvers: ["boss@example.com"],
      operationType: "CREATE",
      split: { name: "cr_one", ...definition },
    });
    expect(await admin.changeRequests.get(cr.id)).toEqual(cr);

    // The submitter cannot approve its own change.
    const own = await admin.changeRequests.approve(cr.id, "self").catch((e: unknown) => e);
    expect(ApiError.isInstance(own) && own.status).toBe(403);

    bed.reset();
    const approved = await approver.changeRequests.approve(cr.id, "looks good");
    expect(seen()).toEqual([`PUT ${CR}/${cr.id} 200`]);
    expect(approved.status).toBe("PUBLISHED");
    expect(approved.comments.map((c) => [c.role, c.comment])).toEqual([
      ["SUBMITTER", "please"],
      ["APPROVER", "looks good"],
      ["APPROVER", ""],
    ]);
    const live = await admin.definitions.get(ws.id, "cr_one", gatedId);
    expect(live.defaultRule).toEqual([{ treatment: "on", size: 100 }]);
  });

  it("one open change per object (ConflictError); reject and withdraw end it", async () => {
    const body = {
      split: { name: "cr_two", ...definition },
      operationType: "CREATE" as const,
      title: "t",
      comment: "c",
    };
    const first = await admin.changeRequests.create(ws.id, gatedId, body);
    await expect(admin.changeRequests.create(ws.id, gatedId, body)).rejects.toBeInstanceOf(ConflictError);
    const rejected = await approver.changeRequests.reject(first.id, "not now");
    expect(rejected.status).toBe("REJECTED");
    await expect(approver.changeRequests.approve(first.id)).rejects.toMatchObject({ status: 400 });

    const second = await admin.changeRequests.create(ws.id, gatedId, body);
    await expect(approver.changeRequests.withdraw(second.id)).rejects.toMatchObject({ status: 403 });
    bed.reset();
    expect((await admin.changeRequests.withdraw(second.id, "changed my mind")).status).toBe("WITHDRAWN");
    expect(bed.bodies()).toEqual([{ status: "WITHDRAWN", comment: "changed my mind" }]);
  });

  it("lists by status and environment, following nextMarker", async () => {
    for (const name of ["cr_three", "cr_four"]) {
      await admin.changeRequests.create(ws.id, gatedId, {
        split: { name, ...definition },
        operationType: "CREATE",
        title: "t",
        comment: "c",
      });
    }
    bed.reset();
    const open = await collect(
      admin.changeRequests.list({ status: "REQUESTED", environmentId: gatedId, pageSize: 1 }),
    );
    expect(open.map((c) => (c.split as { name: string }).name)).toEqual(["cr_three", "cr_four"]);
    expect(seen()[0]).toBe(`GET ${CR}?status=REQUESTED&environmentId=${gatedId}&limit=1 200`);
    expect(seen()).toHaveLength(2);
    const all = await collect(admin.changeRequests.list());
    expect(all.map((c) => c.status)).toEqual([
      "PUBLISHED",
      "REJECTED",
      "WITHDRAWN",
      "REQUESTED",
      "REQUESTED",
    ]);
  });

  it("refuses a bad body and a bad page size before sending", async () => {
    await expect(
      admin.changeRequests.create(ws.id, gatedId, { operationType: "UPDATE", title: "t", comment: "c" }),
    ).rejects.toBeInstanceOf(ValidationError);
    expect(() => admin.changeRequests.list({ pageSize: 101 })).toThrow(ValidationError);
    expect(seen()).toEqual([]);
  });
});
