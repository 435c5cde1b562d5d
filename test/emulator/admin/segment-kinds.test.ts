/**
 * Large and rule-based segments (ref admin §9.2; splitapiclient `large_segment*_microclient.py`,
 * `rule_based_segment*_microclient.py`): the same routes for both kinds, and the rule-based
 * segment's definition PUT.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Emulator } from "../../../emulator";
import { adminError, type Call, start } from "../helpers";

let emu: Emulator;
let call: Call;
let ws: { id: string };
let env: Record<string, { id: string; name: string }>;
let tt: { id: string; name: string };

beforeAll(async () => {
  ({ emu, call, ws, env } = await start());
  tt = (await call("GET", `/internal/api/v2/trafficTypes/ws/${ws.id}`)).body[0];
});
afterAll(() => emu.stop());

describe.each([
  ["large-segments", "Large segment", { id: expect.any(String) }, {}],
  ["rule-based-segments", "Rule-based segment", {}, { rules: [], excludedKeys: [], excludedSegments: [] }],
])("%s", (path, label, idPart, content) => {
  const p = `/internal/api/v2/${path}`;
  const definition = () => ({
    ...idPart,
    name: "beta",
    environment: { id: env.Production?.id, name: "Production" },
    trafficType: { id: tt.id, name: "user" },
    creationTime: expect.any(Number),
    ...content,
  });

  it("creates, lists and refuses a taken name", async () => {
    const r = await call("POST", `${p}/ws/${ws.id}/trafficTypes/user`, {
      body: { name: "beta", description: "testers" },
    });
    expect(r.status).toBe(200);
    const seg = {
      name: "beta",
      description: "testers",
      trafficType: { id: tt.id, name: "user" },
      creationTime: expect.any(Number),
      tags: null,
    };
    expect(r.body).toEqual(seg);
    expect(
      (await call("POST", `${p}/ws/${ws.id}/trafficTypes/user`, { body: { name: "beta" } })).body,
    ).toEqual(adminError(409, `${label} with name beta already exists in workspace Default`));
    expect((await call("GET", `${p}/ws/${ws.id}`)).body).toEqual([seg]);
    expect((await call("GET", `${p}/ws/${ws.id}?offset=1&limit=5`)).body).toEqual([]);
  });

  it("reads one segment by name with its id (the Harness Go SDK's Get), 404 for a name it does not have", async () => {
    const one = await call("GET", `${p}/ws/${ws.id}/beta`);
    expect(one.status).toBe(200);
    expect(one.body).toEqual({
      id: expect.any(String),
      name: "beta",
      description: "testers",
      trafficType: { id: tt.id, name: "user" },
      creationTime: expect.any(Number),
      tags: null,
    });
    expect((await call("GET", `${p}/ws/${ws.id}/nobody`)).body).toEqual(
      adminError(404, `Could not find ${label.toLowerCase()} nobody`),
    );
  });

  it("activates in an environment once, lists the definitions and deactivates", async () => {
    const r = await call("POST", `${p}/${env.Production?.id}/beta`);
    expect(r.status).toBe(200);
    expect(r.body).toEqual(definition());
    expect((await call("POST", `${p}/Production/beta`)).body).toEqual(
      adminError(409, `${label} beta is already active in environment Production`),
    );
    expect((await call("GET", `${p}/ws/${ws.id}/environments/Production`)).body).toEqual([definition()]);
    expect((await call("DELETE", `${p}/Production/beta`)).body).toBe(true);
    expect((await call("DELETE", `${p}/Production/beta`)).body).toEqual(
      adminError(404, `${label} beta is not active in environment Production`),
    );
    expect((await call("GET", `${p}/ws/${ws.id}/environments/Production`)).body).toEqual([]);
  });

  it("deletes the segment from everywhere; its traffic type cannot go before it", async () => {
    await call("POST", `${p}/Staging/beta`);
    const device = (
      await call("POST", `/internal/api/v2/trafficTypes/ws/${ws.id}`, { body: { name: `d${path.length}` } })
    ).body;
    await call("POST", `${p}/ws/${ws.id}/trafficTypes/${device.name}`, { body: { name: "gadgets" } });
    expect((await call("DELETE", `/internal/api/v2/trafficTypes/${device.id}`)).body).toEqual(
      adminError(409, `Traffic type ${device.name} is used by segments; delete them first`),
    );
    expect((await call("DELETE", `${p}/ws/${ws.id}/beta`)).body).toBe(true);
    expect((await call("GET", `${p}/ws/${ws.id}/environments/Staging`)).body).toEqual([]);
    expect((await call("DELETE", `${p}/ws/${ws.id}/beta`)).body).toEqual(
      adminError(404, `Could not find ${label.toLowerCase()} beta`),
    );
  });
});

describe("a rule-based segment's definition", () => {
  const rules = [
    {
      condition: {
        combiner: "AND",
        matchers: [{ type: "IN_LIST_STRING", attribute: "country", strings: ["NL"] }],
      },
    },
  ];

  beforeAll(async () => {
    await call("POST", `/internal/api/v2/rule-based-segments/ws/${ws.id}/trafficTypes/user`, {
      body: { name: "dutch" },
    });
    await call("POST", "/internal/api/v2/rule-based-segments/Production/dutch");
  });

  it("is replaced by PUT with rules of the definitions' typed matchers", async () => {
    const r = await call(
      "PUT",
      `/internal/api/v2/rule-based-segments/ws/${ws.id}/dutch/environments/Production`,
      {
        body: {
          rules,
          excludedKeys: ["bot"],
          excludedSegments: [{ name: "staff", type: "standard" }],
          title: "t",
        },
      },
    );
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      name: "dutch",
      environment: { id: env.Production?.id, name: "Production" },
      trafficType: { id: tt.id, name: "user" },
      creationTime: expect.any(Number),
      rules,
      excludedKeys: ["bot"],
      excludedSegments: [{ name: "staff", type: "standard" }],
    });
  });

  it("refuses a matcher without the field its type needs, naming it as a definition's", async () => {
    const r = await call(
      "PUT",
      `/internal/api/v2/rule-based-segments/ws/${ws.id}/dutch/environments/Production`,
      {
        body: { rules: [{ condition: { matchers: [{ type: "IN_LIST_STRING", attribute: "country" }] } }] },
      },
    );
    expect(r.status).toBe(400);
    expect(r.body).toEqual(
      adminError(
        400,
        "rules[0].condition.matchers[0].strings: strings is required for a IN_LIST_STRING matcher",
      ),
    );
  });
});
