/**
 * The lookups `getSegment` and `getFlagSet` against the emulator, and as functions of the native
 * provider (`flagstack:index:getSegment`, `flagstack:index:getFlagSet`): found by name (a flag set
 * also by id), an unknown name failing with the valid ones, bad arguments refused before a request.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  getFlagSet,
  getLargeSegment,
  getRuleBasedSegment,
  getSegment,
  type LookupOptions,
} from "../../provider/lookups";
import { NATIVE_FUNCTIONS_BY_TOKEN } from "../../provider/native/functions";
import { AdminClient, type Workspace } from "../../sdk";
import { type AdminBed, startAdminBed } from "../sdk/helpers/admin-bed";

let bed: AdminBed;
let opts: LookupOptions;
let ws: Workspace;

beforeAll(async () => {
  bed = await startAdminBed();
  ws = bed.ws;
  opts = { client: bed.admin };
  await bed.admin.segments.create(ws.id, "account", { name: "beta_accounts", description: "Early access" });
  await bed.admin.largeSegments.create(ws.id, "account", {
    name: "all_devices",
    description: "Every device",
  });
  await bed.admin.ruleBasedSegments.create(ws.id, "account", {
    name: "heavy_buyers",
    description: "Buy a lot",
  });
  await bed.admin.flagSets.create({
    name: "mobile",
    description: "Flags of the apps",
    workspace: { id: ws.id },
  });
});
afterAll(async () => {
  await bed?.stop();
});

describe("getSegment and getFlagSet", () => {
  it("getSegment by name", async () => {
    expect(await getSegment({ workspace: "Default", name: "beta_accounts" }, opts)).toEqual({
      name: "beta_accounts",
      description: "Early access",
      trafficType: { id: expect.any(String), name: "account" },
      creationTime: expect.any(Number),
      tags: [],
    });
  });

  it("getLargeSegment and getRuleBasedSegment by name; an unknown name lists the valid ones", async () => {
    expect(await getLargeSegment({ workspace: "Default", name: "all_devices" }, opts)).toEqual({
      name: "all_devices",
      description: "Every device",
      trafficType: { id: expect.any(String), name: "account" },
      creationTime: expect.any(Number),
      tags: [],
    });
    expect(await getRuleBasedSegment({ workspace: "Default", name: "heavy_buyers" }, opts)).toMatchObject({
      name: "heavy_buyers",
      description: "Buy a lot",
      trafficType: { name: "account" },
    });
    await expect(getLargeSegment({ workspace: "Default", name: "beta_accounts" }, opts)).rejects.toThrow(
      'large segment "beta_accounts" not found in workspace "Default"; valid large segments: "all_devices"',
    );
    expect(NATIVE_FUNCTIONS_BY_TOKEN.get("flagstack:index:getLargeSegment")?.module).toBe("lookups");
    expect(NATIVE_FUNCTIONS_BY_TOKEN.get("flagstack:index:getRuleBasedSegment")?.module).toBe("lookups");
  });

  it("getFlagSet by name and by id", async () => {
    const set = await getFlagSet({ workspace: ws.id, name: "mobile" }, opts);
    expect(set).toMatchObject({ name: "mobile", description: "Flags of the apps", type: "flag_set" });
    expect(await getFlagSet({ workspace: "Default", name: set.id }, opts)).toEqual(set);
  });

  it("an unknown name fails with the valid names", async () => {
    await expect(getSegment({ workspace: "Default", name: "nobody" }, opts)).rejects.toThrow(
      'segment "nobody" not found in workspace "Default"; valid segments: "beta_accounts"',
    );
    await expect(getFlagSet({ workspace: "Default", name: "tv" }, opts)).rejects.toThrow(
      'flag set "tv" not found in workspace "Default"; valid flag sets: "mobile"',
    );
  });

  it("lookups asked many times in one program read each workspace list once; a new name is read afresh", async () => {
    // A client of its own: the lists it has read are its own.
    const client = new AdminClient({ baseUrl: bed.emu.url, apiKey: bed.emu.adminKey });
    await bed.admin.segments.create(ws.id, "account", { name: "gamma_accounts", description: "Later" });
    bed.reset();
    const names = ["beta_accounts", "gamma_accounts", "beta_accounts"];
    const found = await Promise.all(names.map((name) => getSegment({ workspace: ws.id, name }, { client })));
    expect(found.map((x) => x.name)).toEqual(names);
    await getFlagSet({ workspace: ws.id, name: "mobile" }, { client });
    await getFlagSet({ workspace: ws.id, name: "mobile" }, { client });
    const lists = () => bed.seen().filter((r) => !r.startsWith("GET /internal/api/v2/workspaces"));
    expect(lists()).toEqual([
      `GET /internal/api/v2/segments/ws/${ws.id}?offset=0&limit=50 200`,
      `GET /internal/api/v3/flag-sets?workspace_id=${ws.id}&limit=200 200`,
    ]);
    // One made since the list was read: found in a fresh list.
    await bed.admin.segments.create(ws.id, "account", { name: "delta_accounts", description: "Later still" });
    bed.reset();
    expect((await getSegment({ workspace: ws.id, name: "delta_accounts" }, { client })).name).toBe(
      "delta_accounts",
    );
    expect(lists()).toEqual([`GET /internal/api/v2/segments/ws/${ws.id}?offset=0&limit=50 200`]);
    await bed.admin.segments.delete(ws.id, "gamma_accounts");
    await bed.admin.segments.delete(ws.id, "delta_accounts");
  });

  it("refuses bad arguments naming the field, with no request", async () => {
    bed.reset();
    await expect(getSegment({ workspace: "Default", name: "" }, opts)).rejects.toThrow(
      "getSegment: name: must not be empty",
    );
    expect(bed.seen()).toEqual([]);
  });

  it("are functions of the native provider", () => {
    expect(NATIVE_FUNCTIONS_BY_TOKEN.get("flagstack:index:getSegment")?.module).toBe("lookups");
    expect(NATIVE_FUNCTIONS_BY_TOKEN.get("flagstack:index:getFlagSet")?.module).toBe("lookups");
  });
});
