/** Traffic-type attributes (ref admin §1.1 "attributes", §9.1; splitapiclient `attribute_microclient.py`). */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Emulator } from "../../../emulator";
import { adminError, type Call, start } from "../helpers";

let emu: Emulator;
let call: Call;
let ws: { id: string };
let tt: { id: string };
let base: string;

beforeAll(async () => {
  ({ emu, call, ws } = await start());
  tt = (await call("GET", `/internal/api/v2/trafficTypes/ws/${ws.id}`)).body[0];
  base = `/internal/api/v2/schema/ws/${ws.id}/trafficTypes/${tt.id}`;
});
afterAll(() => emu.stop());

const attribute = (over: Record<string, unknown> = {}) => ({
  id: "country",
  trafficTypeId: tt.id,
  displayName: "Country",
  description: "where",
  dataType: "STRING",
  isSearchable: false,
  suggestedValues: ["NL", "DE"],
  ...over,
});

describe("attributes", () => {
  it("creates one (by traffic type id or name), refusing a taken id and a bad data type", async () => {
    const body = {
      id: "country",
      displayName: "Country",
      description: "where",
      dataType: "STRING",
      suggestedValues: ["NL", "DE"],
    };
    const r = await call("POST", base, { body });
    expect(r.status).toBe(200);
    expect(r.body).toEqual(attribute());
    const taken = await call("POST", `/internal/api/v2/schema/ws/${ws.id}/trafficTypes/user`, { body });
    expect(taken.status).toBe(409);
    expect(taken.body).toEqual(
      adminError(409, "Attribute with id country already exists in traffic type user"),
    );
    const bad = await call("POST", base, { body: { id: "age", dataType: "INTEGER" } });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual(
      adminError(400, 'dataType: Invalid option: expected one of "STRING"|"DATETIME"|"NUMBER"|"SET"'),
    );
    expect((await call("GET", base)).body).toEqual([attribute()]);
  });

  it("takes a lower-case data type as the Harness Go SDK sends it (attributes.go), answering upper case", async () => {
    const r = await call("POST", base, { body: { id: "since", displayName: "Since", dataType: "datetime" } });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      id: "since",
      trafficTypeId: tt.id,
      displayName: "Since",
      description: null,
      dataType: "DATETIME",
      isSearchable: false,
      suggestedValues: [],
    });
    const patched = await call("PATCH", `${base}/since`, {
      body: { displayName: "Since", dataType: "number" },
    });
    expect(patched.body.dataType).toBe("NUMBER");
    expect((await call("DELETE", `${base}/since`)).body).toBe(true);
  });

  it("replaces by PUT, changes by PATCH (fields or JSON Patch) and deletes", async () => {
    const put = await call("PUT", base, { body: { id: "country", displayName: "Land", dataType: "STRING" } });
    expect(put.body).toEqual(attribute({ displayName: "Land", description: null, suggestedValues: [] }));
    const patched = await call("PATCH", `${base}/country`, { body: { isSearchable: true } });
    expect(patched.body).toEqual(
      attribute({ displayName: "Land", description: null, suggestedValues: [], isSearchable: true }),
    );
    const jp = await call("PATCH", `${base}/country`, {
      body: [{ op: "replace", path: "/description", value: "home" }],
    });
    expect(jp.body.description).toBe("home");
    expect((await call("PUT", base, { body: { id: "nope" } })).body).toEqual(
      adminError(404, "Could not find attribute nope"),
    );
    expect((await call("DELETE", `${base}/country`)).body).toBe(true);
    expect((await call("DELETE", `${base}/country`)).body).toEqual(
      adminError(404, "Could not find attribute country"),
    );
  });

  it("imports in bulk, reporting each refused item", async () => {
    const r = await call("POST", `${base}/attribute:bulk`, {
      body: [
        { id: "plan", dataType: "STRING" },
        { id: "plan", dataType: "STRING" },
        { id: "", dataType: "NUMBER" },
      ],
    });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      objects: [attribute({ id: "plan", displayName: null, description: null, suggestedValues: [] })],
      failed: [
        {
          object: { id: "plan", dataType: "STRING" },
          status: 409,
          message: "Attribute with id plan already exists in traffic type user",
        },
        { object: { id: "", dataType: "NUMBER" }, status: 400, message: "[2].id: id must not be empty" },
      ],
      metadata: { total: 3, failed: 2 },
    });
    expect((await call("POST", `${base}/other:thing`, { body: [] })).status).toBe(404);
    expect((await call("POST", `${base}/attribute:bulk`, { body: {} })).body).toEqual(
      adminError(400, "body: an array of attributes is required"),
    );
  });

  it("goes with its traffic type", async () => {
    const other = (
      await call("POST", `/internal/api/v2/trafficTypes/ws/${ws.id}`, { body: { name: "device" } })
    ).body;
    await call("POST", `/internal/api/v2/schema/ws/${ws.id}/trafficTypes/device`, { body: { id: "os" } });
    expect((await call("DELETE", `/internal/api/v2/trafficTypes/${other.id}`)).body).toBe(true);
    const again = (
      await call("POST", `/internal/api/v2/trafficTypes/ws/${ws.id}`, { body: { name: "device" } })
    ).body;
    expect((await call("GET", `/internal/api/v2/schema/ws/${ws.id}/trafficTypes/${again.id}`)).body).toEqual(
      [],
    );
  });
});
