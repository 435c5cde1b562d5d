/**
 * `GET /api/splitChanges` (ref wire §1-§2): the 1.3 shape, strictly increasing change numbers,
 * `s == t` when nothing changed, ARCHIVED tombstones for removed definitions, stable seeds,
 * `algo: 2`, one environment per SDK key.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Emulator } from "../../../emulator";
import { adminError, type Call, definitionBody, start } from "../helpers";

let emu: Emulator;
let call: Call;
let ws: { id: string };
const base = () => `/internal/api/v2/splits/ws/${ws.id}`;
const changes = (since: number | string, key = emu.sdkKey, extra = "") =>
  call("GET", `/api/splitChanges?s=1.3&since=${since}${extra}`, { key });
const INT32 = {
  asymmetricMatch: (v: unknown) =>
    Number.isInteger(v) && (v as number) >= -(2 ** 31) && (v as number) < 2 ** 31,
};

beforeAll(async () => {
  ({ emu, call, ws } = await start());
});
afterAll(() => emu.stop());

describe("GET /api/splitChanges", () => {
  let t1: number;
  let seeds: { seed: number; trafficAllocationSeed: number };

  it("answers an empty environment with s == t == -1", async () => {
    const r = await changes(-1);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ ff: { d: [], s: -1, t: -1 }, rbs: { d: [], s: -1, t: -1 } });
  });

  it("serves a new definition in the 1.3 shape with algo 2 and int32 seeds", async () => {
    await call("POST", `${base()}/trafficTypes/account`, { body: { name: "f1" } });
    const def = (
      await call("POST", `${base()}/f1/environments/Production`, {
        body: definitionBody({ trafficAllocation: 90 }),
      })
    ).body;
    const r = await changes(-1);
    expect(r.body.ff.d).toEqual([
      expect.objectContaining({
        name: "f1",
        trafficTypeName: "account",
        status: "ACTIVE",
        killed: false,
        defaultTreatment: "off",
        trafficAllocation: 90,
        algo: 2,
        seed: INT32,
        trafficAllocationSeed: INT32,
        changeNumber: r.body.ff.t,
      }),
    ]);
    expect(r.body.ff.t).toBeGreaterThanOrEqual(def.lastUpdateTime);
    t1 = r.body.ff.t;
    seeds = { seed: r.body.ff.d[0].seed, trafficAllocationSeed: r.body.ff.d[0].trafficAllocationSeed };
  });

  it("returns nothing new with s == t when asked from the latest change number", async () => {
    expect((await changes(t1)).body.ff).toEqual({ d: [], s: t1, t: t1 });
  });

  it("serves an update with a larger change number and the same seeds", async () => {
    await call("PUT", `${base()}/f1/environments/Production/kill`);
    const r = await changes(t1);
    expect(r.body.ff.d).toHaveLength(1);
    expect(r.body.ff.d[0]).toMatchObject({ name: "f1", killed: true, ...seeds });
    expect(r.body.ff.t).toBeGreaterThan(t1);
    expect(r.body.ff.d[0].changeNumber).toBe(r.body.ff.t);
    t1 = r.body.ff.t;
  });

  it("serves a deleted definition once more as ARCHIVED, and never to a fresh SDK", async () => {
    await call("DELETE", `${base()}/f1/environments/Production`);
    const r = await changes(t1);
    expect(r.body.ff.d).toEqual([
      expect.objectContaining({
        name: "f1",
        status: "ARCHIVED",
        trafficTypeName: "account",
        conditions: [],
        ...seeds,
      }),
    ]);
    expect(r.body.ff.t).toBeGreaterThan(t1);
    expect((await changes(-1)).body.ff.d).toEqual([]);
    // Re-created: ACTIVE again with new seeds, and the tombstone is gone.
    await call("POST", `${base()}/f1/environments/Production`, { body: definitionBody() });
    const again = await changes(r.body.ff.t);
    expect(again.body.ff.d.map((s: { status: string }) => s.status)).toEqual(["ACTIVE"]);
  });

  it("gives each SDK key its own environment", async () => {
    await call("POST", `${base()}/trafficTypes/user`, { body: { name: "staging_only" } });
    await call("POST", `${base()}/staging_only/environments/Staging`, { body: definitionBody() });
    const prod = await changes(-1);
    const staging = await changes(-1, emu.sdkKeys.Staging);
    expect(prod.body.ff.d.map((s: { name: string }) => s.name)).toEqual(["f1"]);
    expect(staging.body.ff.d.map((s: { name: string }) => s.name)).toEqual(["staging_only"]);
  });

  it("serves the pre-1.3 shape when no spec version is asked, and echoes rbSince", async () => {
    const legacy = await call("GET", "/api/splitChanges?since=-1", { key: emu.sdkKey });
    expect(Object.keys(legacy.body).sort()).toEqual(["since", "splits", "till"]);
    expect(legacy.body.splits).toHaveLength(1);
    const withRb = await changes(-1, emu.sdkKey, "&rbSince=42");
    expect(withRb.body.rbs).toEqual({ d: [], s: 42, t: 42 });
  });

  it.each([
    ["no key", null, 401, 'Missing API key: send "Authorization: Bearer <SDK_API_KEY>"'],
    ["an unknown key", "sdk-unknown-key", 401, "Invalid API key"],
    ["the admin key", "ADMIN", 401, "This endpoint takes an SDK key; the key given is an Admin API key"],
  ])("refuses %s with 401", async (_what, key, code, message) => {
    const r = await call("GET", "/api/splitChanges?s=1.3&since=-1", {
      key: key === "ADMIN" ? emu.adminKey : key,
    });
    expect(r.status).toBe(code);
    expect(r.body).toEqual(adminError(code, message));
  });

  it("refuses a since that is not a number", async () => {
    const r = await changes("yesterday");
    expect(r.body).toEqual(adminError(400, 'since: must be a change number, got "yesterday"'));
  });
});
