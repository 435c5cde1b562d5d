/** Identities (ref admin §1.1 "identities"; splitapiclient `identity_microclient.py`). */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Emulator } from "../../../emulator";
import { adminError, type Call, start } from "../helpers";

let emu: Emulator;
let call: Call;
let tt: { id: string };
let env: Record<string, { id: string }>;
let base: string;

beforeAll(async () => {
  let ws: { id: string };
  ({ emu, call, ws, env } = await start());
  tt = (await call("GET", `/internal/api/v2/trafficTypes/ws/${ws.id}`)).body[0];
  base = `/internal/api/v2/trafficTypes/${tt.id}/environments/${env.Production?.id}/identities`;
});
afterAll(() => emu.stop());

const identity = (key: string, values: Record<string, unknown>) => ({
  key,
  trafficTypeId: tt.id,
  environmentId: env.Production?.id,
  values,
});

describe("identities", () => {
  it("sets all values by PUT, merges by PATCH and POST …/patch, deletes (204)", async () => {
    const put = await call("PUT", `${base}/u1`, {
      body: { key: "u1", values: { country: "NL", plan: "free" } },
    });
    expect(put.status).toBe(200);
    expect(put.body).toEqual(identity("u1", { country: "NL", plan: "free" }));
    const patch = await call("PATCH", `${base}/u1`, { body: { values: { plan: "gold" } } });
    expect(patch.body).toEqual(identity("u1", { country: "NL", plan: "gold" }));
    const post = await call("POST", `${base}/u1/patch`, { body: { values: { age: 40 } } });
    expect(post.body).toEqual(identity("u1", { country: "NL", plan: "gold", age: 40 }));
    const mismatch = await call("PUT", `${base}/u1`, { body: { key: "u2", values: {} } });
    expect(mismatch.body).toEqual(adminError(400, "key: u2 does not match the key in the path (u1)"));
    const del = await call("DELETE", `${base}/u1`);
    expect(del.status).toBe(204);
    expect((await call("DELETE", `${base}/u1`)).body).toEqual(adminError(404, "Could not find identity u1"));
  });

  it("saves many at once, reporting each refused item", async () => {
    const r = await call("POST", base, {
      body: [{ key: "a", values: { x: 1 } }, { values: {} }, { key: "b", values: "no" }],
    });
    expect(r.body).toEqual({
      objects: [identity("a", { x: 1 })],
      failed: [
        { object: { values: {} }, status: 400, message: "[1].key: is required" },
        {
          object: { key: "b", values: "no" },
          status: 400,
          message: "[2].values: values must be an object of attribute values",
        },
      ],
      metadata: { total: 3, failed: 2 },
    });
  });

  it("404s an unknown traffic type or environment", async () => {
    expect(
      (
        await call("PUT", `/internal/api/v2/trafficTypes/nope/environments/Production/identities/k`, {
          body: { values: {} },
        })
      ).body,
    ).toEqual(adminError(404, "Could not find traffic type nope"));
    expect(
      (
        await call("PUT", `/internal/api/v2/trafficTypes/${tt.id}/environments/Nowhere/identities/k`, {
          body: { values: {} },
        })
      ).body,
    ).toEqual(adminError(404, "Could not find environment Nowhere"));
  });
});
