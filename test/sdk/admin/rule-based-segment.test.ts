/**
 * `admin.ruleBasedSegments` against the emulator: exact requests (method, path, query, body) and
 * exact answers; the bare-array lists walked page by page; activation per environment; the
 * definition replaced with one PUT of rules (typed matchers, as a definition's), excluded keys and
 * segments, title and comment; bad rules refused before anything is sent, naming the field.
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

const proRule = {
  condition: {
    combiner: "AND" as const,
    matchers: [{ type: "EQUAL_SET" as const, attribute: "plan", strings: ["pro"] }],
  },
};

describe("admin.ruleBasedSegments", () => {
  it("creates a rule-based segment and finds it in the list", async () => {
    const made = await admin.ruleBasedSegments.create(ws.id, "user", {
      name: "sdk_rbs",
      description: "plan = pro",
    });
    expect(made).toMatchObject({
      name: "sdk_rbs",
      description: "plan = pro",
      trafficType: { name: "user" },
      tags: [],
    });
    expect(seen()).toEqual([`POST ${V2}/rule-based-segments/ws/${ws.id}/trafficTypes/user 200`]);
    expect(bodies()).toEqual([{ name: "sdk_rbs", description: "plan = pro" }]);
    bed.reset();
    expect(await admin.ruleBasedSegments.get(ws.id, "sdk_rbs")).toEqual(made);
    expect(seen()).toEqual([`GET ${V2}/rule-based-segments/ws/${ws.id}?offset=0&limit=50 200`]);
    const missing = await admin.ruleBasedSegments.get(ws.id, "sdk_nobody").catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(NotFoundError);
    expect((missing as NotFoundError).message).toContain("Could not find rule-based segment sdk_nobody");
  });

  it("lists every page", async () => {
    for (const n of [1, 2, 3])
      await admin.ruleBasedSegments.create(ws.id, "user", { name: `sdk_rpage_${n}` });
    bed.reset();
    const names = (await collect(admin.ruleBasedSegments.list(ws.id, { pageSize: 2 }))).map((s) => s.name);
    expect(names.filter((n) => n.startsWith("sdk_rpage_"))).toEqual([
      "sdk_rpage_1",
      "sdk_rpage_2",
      "sdk_rpage_3",
    ]);
    expect(seen().slice(0, 2)).toEqual([
      `GET ${V2}/rule-based-segments/ws/${ws.id}?offset=0&limit=2 200`,
      `GET ${V2}/rule-based-segments/ws/${ws.id}?offset=2&limit=2 200`,
    ]);
  });

  it("activates in an environment with an empty definition, replaces it with one PUT, deactivates", async () => {
    await admin.ruleBasedSegments.create(ws.id, "user", { name: "sdk_rdef" });
    bed.reset();
    const active = await admin.ruleBasedSegments.activate(prodId, "sdk_rdef");
    expect(active).toMatchObject({
      name: "sdk_rdef",
      environment: { id: prodId, name: "Production" },
      rules: [],
      excludedKeys: [],
      excludedSegments: [],
    });
    expect(seen()).toEqual([`POST ${V2}/rule-based-segments/${prodId}/sdk_rdef 200`]);
    await expect(admin.ruleBasedSegments.activate(prodId, "sdk_rdef")).rejects.toBeInstanceOf(ConflictError);
    bed.reset();
    const body = {
      rules: [proRule],
      excludedKeys: ["qa-bot"],
      excludedSegments: [{ name: "employees", type: "standard" }],
      title: "Pro users",
      comment: "plan attribute",
    };
    const put = await admin.ruleBasedSegments.put(ws.id, "sdk_rdef", prodId, body);
    expect(put).toMatchObject({
      rules: [proRule],
      excludedKeys: ["qa-bot"],
      excludedSegments: body.excludedSegments,
    });
    expect(seen()).toEqual([`PUT ${V2}/rule-based-segments/ws/${ws.id}/sdk_rdef/environments/${prodId} 200`]);
    expect(bodies()).toEqual([body]);
    bed.reset();
    expect(await admin.ruleBasedSegments.definition(ws.id, prodId, "sdk_rdef")).toEqual(put);
    expect(seen()).toEqual([
      `GET ${V2}/rule-based-segments/ws/${ws.id}/environments/${prodId}?offset=0&limit=50 200`,
    ]);
    expect(await admin.ruleBasedSegments.deactivate(prodId, "sdk_rdef")).toBe(true);
    expect(await admin.ruleBasedSegments.definition(ws.id, prodId, "sdk_rdef")).toBeUndefined();
  });

  it("refuses rules the service would refuse, naming the field, before sending", async () => {
    await admin.ruleBasedSegments.create(ws.id, "user", { name: "sdk_rbad" });
    await admin.ruleBasedSegments.activate(prodId, "sdk_rbad");
    bed.reset();
    const noStrings = { condition: { matchers: [{ type: "EQUAL_SET" as const, attribute: "plan" }] } };
    const err = await admin.ruleBasedSegments
      .put(ws.id, "sdk_rbad", prodId, { rules: [noStrings] })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).fieldErrors).toEqual([
      {
        field: "rules[0].condition.matchers[0].strings",
        message: "strings is required for a EQUAL_SET matcher",
      },
    ]);
    const noMatchers = await admin.ruleBasedSegments
      .put(ws.id, "sdk_rbad", prodId, { rules: [{ condition: { matchers: [] } }] })
      .catch((e: unknown) => e);
    expect((noMatchers as ValidationError).fieldErrors).toEqual([
      { field: "rules[0].condition.matchers", message: "a condition needs at least one matcher" },
    ]);
    expect(seen()).toEqual([]);
  });

  it("a PUT where the segment is not active is a NotFoundError; delete is true, then a NotFoundError", async () => {
    await admin.ruleBasedSegments.create(ws.id, "user", { name: "sdk_rgone" });
    await expect(
      admin.ruleBasedSegments.put(ws.id, "sdk_rgone", prodId, { rules: [proRule] }),
    ).rejects.toBeInstanceOf(NotFoundError);
    expect(await admin.ruleBasedSegments.delete(ws.id, "sdk_rgone")).toBe(true);
    await expect(admin.ruleBasedSegments.delete(ws.id, "sdk_rgone")).rejects.toBeInstanceOf(NotFoundError);
  });
});
