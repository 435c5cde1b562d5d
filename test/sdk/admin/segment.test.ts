/**
 * `admin.segments` and `admin.segmentKeys` against the emulator: exact requests (method, path,
 * query, body) and exact answers; batches of at most 10,000 keys, each with the change's title and
 * comment; the member list as a paged async iterator; bodies refused before anything is sent.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { AdminClient } from "../../../sdk/admin/client";
import type { Workspace } from "../../../sdk/admin/schemas";
import { inBatches, KEYS_PER_REQUEST } from "../../../sdk/admin/segment-keys";
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
const keys = (n: number, prefix = "k") => Array.from({ length: n }, (_, i) => `${prefix}${i}`);

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

describe("admin.segments", () => {
  it("creates a segment of a traffic type and reads it back from the list", async () => {
    const made = await admin.segments.create(ws.id, "user", { name: "sdk_beta", description: "Opted in" });
    expect(made).toMatchObject({
      name: "sdk_beta",
      description: "Opted in",
      trafficType: { name: "user" },
      tags: [],
    });
    expect(seen()).toEqual([`POST ${V2}/segments/ws/${ws.id}/trafficTypes/user 200`]);
    expect(bodies()).toEqual([{ name: "sdk_beta", description: "Opted in" }]);
    expect(await admin.segments.find(ws.id, "sdk_beta")).toEqual(made);
    expect(await admin.segments.find(ws.id, "sdk_nobody")).toBeUndefined();
  });

  it("lists every page", async () => {
    for (const n of [1, 2, 3]) await admin.segments.create(ws.id, "user", { name: `sdk_page_${n}` });
    bed.reset();
    const names = (await collect(admin.segments.list(ws.id, { pageSize: 2 }))).map((s) => s.name);
    expect(names.filter((n) => n.startsWith("sdk_page_"))).toEqual([
      "sdk_page_1",
      "sdk_page_2",
      "sdk_page_3",
    ]);
    expect(seen()[0]).toBe(`GET ${V2}/segments/ws/${ws.id}?offset=0&limit=2 200`);
    expect(seen().length).toBe(Math.ceil(names.length / 2));
  });

  it("refuses a duplicate name with a ConflictError, and a bad name before sending", async () => {
    await admin.segments.create(ws.id, "user", { name: "sdk_dup" });
    await expect(admin.segments.create(ws.id, "user", { name: "sdk_dup" })).rejects.toBeInstanceOf(
      ConflictError,
    );
    bed.reset();
    await expect(admin.segments.create(ws.id, "user", { name: "1 bad" })).rejects.toBeInstanceOf(
      ValidationError,
    );
    expect(seen()).toEqual([]);
  });

  it("gets one segment by name with one GET, and a missing one is a NotFoundError", async () => {
    const made = await admin.segments.create(ws.id, "user", { name: "sdk_one", description: "just one" });
    bed.reset();
    expect(await admin.segments.get(ws.id, "sdk_one")).toEqual(made);
    expect(seen()).toEqual([`GET ${V2}/segments/ws/${ws.id}/sdk_one 200`]);
    const missing = await admin.segments.get(ws.id, "sdk_nobody").catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(NotFoundError);
    expect((missing as NotFoundError).message).toContain("Could not find segment sdk_nobody");
  });

  it("replaces the tags with one POST of the names, read back by get ([] removes them)", async () => {
    await admin.segments.create(ws.id, "user", { name: "sdk_tagged" });
    bed.reset();
    await admin.segments.setTags(ws.id, "sdk_tagged", ["web", "growth"]);
    expect(seen()).toEqual([`POST ${V2}/tags/ws/${ws.id}/object/sdk_tagged/objecttype/Segment 200`]);
    expect(bodies()).toEqual([["web", "growth"]]);
    expect((await admin.segments.get(ws.id, "sdk_tagged")).tags).toEqual([
      { name: "web" },
      { name: "growth" },
    ]);
    await admin.segments.setTags(ws.id, "sdk_tagged", []);
    expect((await admin.segments.get(ws.id, "sdk_tagged")).tags).toEqual([]);
  });

  it("deletes a segment (true), and a second delete is a NotFoundError", async () => {
    await admin.segments.create(ws.id, "user", { name: "sdk_gone" });
    expect(await admin.segments.delete(ws.id, "sdk_gone")).toBe(true);
    await expect(admin.segments.delete(ws.id, "sdk_gone")).rejects.toBeInstanceOf(NotFoundError);
  });
});

describe("admin.segmentKeys", () => {
  it("activates a segment in an environment, lists it as active, deactivates it", async () => {
    await admin.segments.create(ws.id, "user", { name: "sdk_active" });
    bed.reset();
    const a = await admin.segmentKeys.activate(prodId, "sdk_active");
    expect(a).toMatchObject({
      name: "sdk_active",
      environment: { id: prodId, name: "Production" },
      trafficType: { name: "user" },
    });
    expect(seen()).toEqual([`POST ${V2}/segments/${prodId}/sdk_active 200`]);
    expect(await admin.segmentKeys.activation(ws.id, prodId, "sdk_active")).toEqual(a);
    await expect(admin.segmentKeys.activate(prodId, "sdk_active")).rejects.toBeInstanceOf(ConflictError);
    expect(await admin.segmentKeys.deactivate(prodId, "sdk_active")).toBe(true);
    expect(await admin.segmentKeys.activation(ws.id, prodId, "sdk_active")).toBeUndefined();
  });

  it("adds and removes keys with the change's title and comment, and lists members page by page", async () => {
    await admin.segments.create(ws.id, "user", { name: "sdk_members" });
    await admin.segmentKeys.activate(prodId, "sdk_members");
    bed.reset();
    const note = { title: "Beta wave 2", comment: "from the survey" };
    expect(await admin.segmentKeys.add(prodId, "sdk_members", ["ana", "ben", "cy"], note)).toEqual({
      added: 3,
      removed: 0,
      requests: 1,
    });
    expect(await admin.segmentKeys.remove(prodId, "sdk_members", ["ben"], note)).toEqual({
      added: 0,
      removed: 1,
      requests: 1,
    });
    expect(seen()).toEqual([
      `PUT ${V2}/segments/${prodId}/sdk_members/uploadKeys?replace=false 200`,
      `PUT ${V2}/segments/${prodId}/sdk_members/removeKeys 200`,
    ]);
    expect(bodies()).toEqual([
      { keys: ["ana", "ben", "cy"], ...note },
      { keys: ["ben"], ...note },
    ]);
    bed.reset();
    expect(await collect(admin.segmentKeys.list(prodId, "sdk_members", { pageSize: 1 }))).toEqual([
      "ana",
      "cy",
    ]);
    expect(seen()).toEqual([
      `GET ${V2}/segments/${prodId}/sdk_members/keys?offset=0&limit=1 200`,
      `GET ${V2}/segments/${prodId}/sdk_members/keys?offset=1&limit=1 200`,
    ]);
  });

  it("sends 25,000 keys as three requests of at most 10,000", async () => {
    await admin.segments.create(ws.id, "user", { name: "sdk_batches" });
    await admin.segmentKeys.activate(prodId, "sdk_batches");
    bed.reset();
    const summary = await admin.segmentKeys.add(prodId, "sdk_batches", keys(25_000));
    expect(summary).toEqual({ added: 25_000, removed: 0, requests: 3 });
    expect(bodies().map((b) => (b as { keys: string[] }).keys.length)).toEqual([10_000, 10_000, 5_000]);
    expect((await collect(admin.segmentKeys.list(prodId, "sdk_batches"))).length).toBe(25_000);
  });

  it("refuses an empty key before sending, naming it", async () => {
    await admin.segments.create(ws.id, "user", { name: "sdk_bad_key" });
    await admin.segmentKeys.activate(prodId, "sdk_bad_key");
    bed.reset();
    await expect(admin.segmentKeys.add(prodId, "sdk_bad_key", ["ok", ""])).rejects.toMatchObject({
      fieldErrors: [{ field: "keys[1]", message: "a key must not be empty" }],
    });
    expect(seen()).toEqual([]);
  });

  it("the member list of a segment not active in the environment is a NotFoundError", async () => {
    await admin.segments.create(ws.id, "user", { name: "sdk_inactive" });
    await expect(collect(admin.segmentKeys.list(prodId, "sdk_inactive"))).rejects.toBeInstanceOf(
      NotFoundError,
    );
  });

  it("cuts lists into batches of the request limit", () => {
    expect(inBatches(keys(5), 2)).toEqual([["k0", "k1"], ["k2", "k3"], ["k4"]]);
    expect(inBatches([])).toEqual([]);
    expect(KEYS_PER_REQUEST).toBe(10_000);
  });
});
