/**
 * Conformance: spec §2 "Feature flag definition", §3 "Environment definition of a flag", §4 "Flag
 * definitions", §7 (404 message, empty 400 without title/comment); ref admin §2 (POST required
 * fields, PUT full replace, PATCH RFC 6902, kill/restore, environment by id or name, 409
 * duplicate, whole-document validation).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import type { Emulator } from "../../../emulator";
import { adminError, type Call, definitionBody, start } from "../helpers";

let emu: Emulator;
let call: Call;
let ws: { id: string; name: string };
let env: Record<string, { id: string; name: string; production: boolean }>;
let flag: { id: string; name: string };
let userTt: { id: string };
const path = (flagRef: string, envRef: string, wsId = ws.id) =>
  `/internal/api/v2/splits/ws/${wsId}/${flagRef}/environments/${envRef}`;

/**
 * The emulator stamps times with Date.now(): the tests that check them fake Date alone (the
 * sockets and timers stay real) and set it to {@link AT} or later.
 */
const AT = Date.UTC(2026, 0, 1);
const dateAt = (ms: number) => {
  if (!vi.isFakeTimers()) vi.useFakeTimers({ toFake: ["Date"] });
  vi.setSystemTime(ms);
};
afterEach(() => {
  vi.useRealTimers();
});

beforeAll(async () => {
  ({ emu, call, ws, env } = await start());
  userTt = (await call("GET", `/internal/api/v2/trafficTypes/ws/${ws.id}`)).body[0];
  flag = (
    await call("POST", `/internal/api/v2/splits/ws/${ws.id}/trafficTypes/user`, {
      body: { name: "checkout" },
    })
  ).body;
});
afterAll(() => emu.stop());

const newFlag = async (name: string, wsId = ws.id) =>
  (await call("POST", `/internal/api/v2/splits/ws/${wsId}/trafficTypes/user`, { body: { name } })).body as {
    id: string;
    name: string;
  };

describe("GET", () => {
  it("404s with the spec's message when no definition exists in the environment", async () => {
    for (const ref of [flag.name, flag.id]) {
      const r = await call("GET", path(ref, env.Production?.id ?? ""));
      expect(r.status).toBe(404);
      expect(r.body).toEqual(adminError(404, `Could not find splitmetadata ${ref}`));
    }
  });
});

describe("POST", () => {
  it("returns the definition as sent plus creationTime and lastUpdateTime", async () => {
    const body = definitionBody({
      treatments: [
        { name: "on", description: "enabled", configurations: '{"color":"blue"}', keys: ["qa-bot"] },
        { name: "off", description: "disabled" },
      ],
      baselineTreatment: "off",
      trafficAllocation: 80,
      rules: [
        {
          condition: { combiner: "AND", matchers: [{ type: "IN_SEGMENT", string: "beta" }] },
          buckets: [{ treatment: "on", size: 100 }],
        },
      ],
    });
    dateAt(AT);
    const r = await call("POST", path(flag.name, env.Production?.id ?? ""), {
      body: { ...body, title: "t", comment: "c" },
    });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      id: flag.id,
      name: "checkout",
      environment: { id: env.Production?.id, name: "Production" },
      trafficType: { id: userTt.id, name: "user" },
      killed: false,
      ...body,
      flagSets: [],
      creationTime: AT,
      lastUpdateTime: AT,
    });
    // GET returns the same document and never title/comment (ref §2).
    const got = await call("GET", path(flag.id, env.Production?.id ?? ""));
    expect(got.body).toEqual(r.body);
  });

  it("accepts the environment by name and fills trafficAllocation 100 and rules []", async () => {
    const f = await newFlag("by_env_name");
    const r = await call("POST", path(f.name, "Staging"), { body: definitionBody() });
    expect(r.status).toBe(200);
    expect(r.body.environment).toEqual({ id: env.Staging?.id, name: "Staging" });
    expect(r.body.trafficAllocation).toBe(100);
    expect(r.body.rules).toEqual([]);
  });

  it("refuses a second POST with 409", async () => {
    const r = await call("POST", path(flag.name, "Production"), { body: definitionBody() });
    expect(r.status).toBe(409);
    expect(r.body).toEqual(
      adminError(
        409,
        "Split checkout already has a definition in environment Production; use PUT or PATCH to change it",
      ),
    );
  });

  it("404s an unknown flag or environment", async () => {
    expect((await call("POST", path("ghost", "Production"), { body: definitionBody() })).body).toEqual(
      adminError(404, "Could not find splitmetadata ghost"),
    );
    expect((await call("POST", path(flag.name, "Moon"), { body: definitionBody() })).body).toEqual(
      adminError(404, "Could not find environment Moon"),
    );
  });

  const matcherRule = (matcher: Record<string, unknown>) => ({
    rules: [
      { condition: { combiner: "AND", matchers: [matcher] }, buckets: [{ treatment: "on", size: 100 }] },
    ],
  });
  it.each([
    [
      "buckets of the default rule not summing to 100",
      { defaultRule: [{ treatment: "on", size: 60 }] },
      "defaultRule: bucket sizes must sum to 100, got 60",
    ],
    [
      "buckets of a rule not summing to 100",
      {
        rules: [
          {
            condition: { matchers: [{ type: "IN_SEGMENT", string: "s" }] },
            buckets: [{ treatment: "on", size: 30 }],
          },
        ],
      },
      "rules[0].buckets: bucket sizes must sum to 100, got 30",
    ],
    [
      "a bucket naming an unknown treatment",
      { defaultRule: [{ treatment: "maybe", size: 100 }] },
      'defaultRule[0].treatment: treatment "maybe" is not one of the treatments ("on", "off")',
    ],
    [
      "an unknown defaultTreatment",
      { defaultTreatment: "maybe" },
      'defaultTreatment: defaultTreatment "maybe" is not one of the treatments ("on", "off")',
    ],
    [
      "an unknown baselineTreatment",
      { baselineTreatment: "maybe" },
      'baselineTreatment: baselineTreatment "maybe" is not one of the treatments ("on", "off")',
    ],
    [
      "trafficAllocation above 100",
      { trafficAllocation: 101 },
      "trafficAllocation: trafficAllocation must be 0..100",
    ],
    [
      "trafficAllocation below 0",
      { trafficAllocation: -1 },
      "trafficAllocation: trafficAllocation must be 0..100",
    ],
    [
      "a fractional trafficAllocation",
      { trafficAllocation: 1.5 },
      "trafficAllocation: trafficAllocation must be a whole number",
    ],
    [
      "a reserved treatment name",
      { treatments: [{ name: "control" }, { name: "off" }] },
      "treatments[0].name: treatment name is a reserved word",
    ],
    [
      "a treatment defined twice",
      { treatments: [{ name: "on" }, { name: "on" }, { name: "off" }] },
      'treatments[1].name: treatment "on" is defined twice',
    ],
    [
      "more than 20 treatments",
      {
        treatments: [
          { name: "on" },
          { name: "off" },
          ...Array.from({ length: 19 }, (_, i) => ({ name: `t${i}` })),
        ],
      },
      "treatments: at most 20 treatments are allowed, got 21",
    ],
    ["no treatments", { treatments: undefined }, "treatments: is required"],
    ["no defaultRule", { defaultRule: undefined }, "defaultRule: is required"],
    ["no defaultTreatment", { defaultTreatment: undefined }, "defaultTreatment: is required"],
    [
      "an IN_SEGMENT matcher without a segment",
      matcherRule({ type: "IN_SEGMENT" }),
      "rules[0].condition.matchers[0].string: string is required for a IN_SEGMENT matcher",
    ],
    [
      "a set matcher without an attribute",
      matcherRule({ type: "ANY_OF_SET", strings: ["a"] }),
      "rules[0].condition.matchers[0].attribute: attribute is required for a ANY_OF_SET matcher",
    ],
    [
      "an invalid regular expression",
      matcherRule({ type: "MATCHES_STRING", string: "([" }),
      "rules[0].condition.matchers[0].string: string is not a valid regular expression: ([",
    ],
    [
      "an SDK matcher name",
      matcherRule({ type: "ALL_KEYS" }),
      'rules[0].condition.matchers[0].type: Invalid option: expected one of "IN_SEGMENT"|"EQUAL_SET"|"ANY_OF_SET"|"ALL_OF_SET"|"PART_OF_SET"|"ON_DATE"|"ON_OR_AFTER_DATE"|"ON_OR_BEFORE_DATE"|"BETWEEN_DATE"|"BOOLEAN"|"EQUAL_NUMBER"|"LESS_THAN_OR_EQUAL_NUMBER"|"GREATER_THAN_OR_EQUAL_NUMBER"|"BETWEEN_NUMBER"|"IN_LIST_STRING"|"STARTS_WITH_STRING"|"ENDS_WITH_STRING"|"CONTAINS_STRING"|"MATCHES_STRING"|"IN_SPLIT"',
    ],
    [
      "a combiner other than AND",
      {
        rules: [
          {
            condition: { combiner: "OR", matchers: [{ type: "IN_SEGMENT", string: "s" }] },
            buckets: [{ treatment: "on", size: 100 }],
          },
        ],
      },
      'rules[0].condition.combiner: Invalid input: expected "AND"',
    ],
  ])("refuses %s with 400 naming the field, creating nothing", async (_what, over, message) => {
    const f = await newFlag(`bad_${Math.random().toString(36).slice(2, 8)}`);
    const r = await call("POST", path(f.name, "Production"), { body: definitionBody(over) });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ code: 400, message });
    expect((await call("GET", path(f.name, "Production"))).status).toBe(404);
  });
});

describe("PATCH (RFC 6902)", () => {
  let f: { id: string; name: string };
  beforeAll(async () => {
    f = await newFlag("patch_me");
    await call("POST", path("patch_me", "Production"), { body: definitionBody() });
  });

  it("adds an individual target with /treatments/<index>/keys/- and returns the full definition", async () => {
    const before = (await call("GET", path(f.id, "Production"))).body;
    dateAt(before.lastUpdateTime + 3000);
    const r = await call("PATCH", path(f.name, "Production"), {
      body: [{ op: "add", path: "/treatments/0/keys/-", value: "qa-bot" }],
    });
    expect(r.status).toBe(200);
    expect(r.body.treatments).toEqual([
      { name: "on", description: "enabled", keys: ["qa-bot"] },
      { name: "off", description: "disabled" },
    ]);
    expect([r.body.creationTime, r.body.lastUpdateTime]).toEqual([
      before.creationTime,
      before.lastUpdateTime + 3000,
    ]);
    const more = await call("PATCH", path(f.name, "Production"), {
      body: [{ op: "add", path: "/treatments/0/keys/-", value: "qa-2" }],
    });
    expect(more.body.treatments[0].keys).toEqual(["qa-bot", "qa-2"]);
  });

  it("replaces /defaultRule, /trafficAllocation and /killed", async () => {
    const r = await call("PATCH", path(f.name, env.Production?.id ?? ""), {
      body: [
        {
          op: "replace",
          path: "/defaultRule",
          value: [
            { treatment: "on", size: 10 },
            { treatment: "off", size: 90 },
          ],
        },
        { op: "replace", path: "/trafficAllocation", value: 50 },
        { op: "replace", path: "/killed", value: true },
      ],
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      defaultRule: [
        { treatment: "on", size: 10 },
        { treatment: "off", size: 90 },
      ],
      trafficAllocation: 50,
      killed: true,
    });
  });

  it.each([
    [
      [{ op: "replace", path: "/defaultRule/0/size", value: 11 }],
      400,
      "defaultRule: bucket sizes must sum to 100, got 101",
    ],
    [
      [{ op: "replace", path: "/defaultTreatment", value: "maybe" }],
      400,
      'defaultTreatment: defaultTreatment "maybe" is not one of the treatments ("on", "off")',
    ],
    [
      [{ op: "remove", path: "/treatments/0" }],
      400,
      'defaultRule[0].treatment: treatment "on" is not one of the treatments ("off")',
    ],
    [
      [{ op: "replace", path: "/trafficAllocation", value: 150 }],
      400,
      "trafficAllocation: trafficAllocation must be 0..100",
    ],
    [[{ op: "replace", path: "/name", value: "other" }], 400, "name: read-only, it cannot be changed"],
    [
      [{ op: "replace", path: "/environment/id", value: "x" }],
      400,
      "environment: read-only, it cannot be changed",
    ],
    [[{ op: "add", path: "/colour", value: "red" }], 400, "colour: not a field of a feature flag definition"],
    [[{ op: "remove", path: "/rules/3" }], 400, "body[0].path: remove /rules/3: the path does not exist"],
    [
      [
        { op: "replace", path: "/trafficAllocation", value: 10 },
        { op: "test", path: "/killed", value: false },
      ],
      409,
      "JSON Patch operation 1 (test /killed) failed: the current value differs, nothing was changed",
    ],
  ])("refuses %j with %i and changes nothing", async (ops, code, message) => {
    const before = (await call("GET", path(f.name, "Production"))).body;
    const r = await call("PATCH", path(f.name, "Production"), { body: ops });
    expect(r.status).toBe(code);
    expect(r.body).toMatchObject({ code, message });
    expect((await call("GET", path(f.name, "Production"))).body).toEqual(before);
  });

  it("applies the rest when a test op holds", async () => {
    const r = await call("PATCH", path(f.name, "Production"), {
      body: [
        { op: "test", path: "/killed", value: true },
        { op: "replace", path: "/killed", value: false },
      ],
    });
    expect(r.status).toBe(200);
    expect(r.body.killed).toBe(false);
  });
});

describe("PUT (full replace), kill and restore, DELETE", () => {
  it("PUT replaces the whole document, defaulting omitted rules and trafficAllocation, keeping killed", async () => {
    const f = await newFlag("put_me");
    await call("POST", path(f.name, "Production"), {
      body: definitionBody({
        trafficAllocation: 30,
        rules: [
          {
            condition: { matchers: [{ type: "IN_SEGMENT", string: "s" }] },
            buckets: [{ treatment: "on", size: 100 }],
          },
        ],
      }),
    });
    await call("PUT", `${path(f.name, "Production")}/kill`);
    const r = await call("PUT", path(f.name, "Production"), {
      body: definitionBody({ defaultTreatment: "on" }),
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ rules: [], trafficAllocation: 100, defaultTreatment: "on", killed: true });
    const missing = await call("PUT", path("checkout", "Staging"), { body: definitionBody() });
    expect(missing.status).toBe(404);
  });

  it("kill and restore set and clear killed", async () => {
    const f = await newFlag("kill_me");
    await call("POST", path(f.name, "Production"), { body: definitionBody() });
    const killed = await call("PUT", `${path(f.name, "Production")}/kill`);
    expect(killed.status).toBe(200);
    expect(killed.body.killed).toBe(true);
    const restored = await call("PUT", `${path(f.name, "Production")}/restore`);
    expect(restored.body.killed).toBe(false);
  });

  it("DELETE removes the definition and returns true; then GET and DELETE 404", async () => {
    const f = await newFlag("delete_me");
    await call("POST", path(f.name, "Production"), { body: definitionBody() });
    const r = await call("DELETE", path(f.name, "Production"));
    expect(r.status).toBe(200);
    expect(r.text).toBe("true");
    expect((await call("GET", path(f.id, "Production"))).body).toEqual(
      adminError(404, `Could not find splitmetadata ${f.id}`),
    );
    expect((await call("DELETE", path(f.name, "Production"))).status).toBe(404);
    // The flag itself stays.
    expect((await call("GET", `/internal/api/v2/splits/ws/${ws.id}/${f.name}`)).status).toBe(200);
  });

  it("lists the definitions of an environment in the offset envelope", async () => {
    const r = await call("GET", `/internal/api/v2/splits/ws/${ws.id}/environments/Production?limit=2`);
    expect(r.status).toBe(200);
    expect(r.body.limit).toBe(2);
    expect(r.body.objects).toHaveLength(2);
    expect(r.body.totalCount).toBeGreaterThanOrEqual(4);
    expect(r.body.objects[0]).toHaveProperty("environment", { id: env.Production?.id, name: "Production" });
  });
});

describe("a workspace that requires title and comments", () => {
  let strict: { id: string };
  let f: { id: string; name: string };
  let envId: string;
  beforeAll(async () => {
    strict = (
      await call("POST", "/internal/api/v2/workspaces", {
        body: { name: "Strict", requiresTitleAndComments: true },
      })
    ).body;
    envId = (await call("POST", `/internal/api/v2/environments/ws/${strict.id}`, { body: { name: "Prod" } }))
      .body.id;
    f = await newFlag("guarded", strict.id);
  });

  it("refuses POST without title and comment in the body with 400 and an empty body", async () => {
    const r = await call("POST", path(f.name, envId, strict.id), {
      body: { ...definitionBody(), title: "only title" },
    });
    expect(r.status).toBe(400);
    expect(r.text).toBe("");
    expect(r.headers.get("content-length")).toBe("0");
    const ok = await call("POST", path(f.name, envId, strict.id), {
      body: { ...definitionBody(), title: "t", comment: "c" },
    });
    expect(ok.status).toBe(200);
    expect(ok.body).not.toHaveProperty("title");
  });

  it.each([
    ["", "no title or comment"],
    ["?title=t", "no comment"],
    ["?comment=c", "no title"],
    ["?title=&comment=c", "an empty title"],
  ])("refuses PATCH%s (%s) with 400, content-length 0, and changes nothing", async (query) => {
    const before = (await call("GET", path(f.name, envId, strict.id))).body;
    const r = await call("PATCH", path(f.name, envId, strict.id) + query, {
      body: [{ op: "replace", path: "/killed", value: true }],
    });
    expect(r.status).toBe(400);
    expect(r.text).toBe("");
    expect(r.headers.get("content-length")).toBe("0");
    expect((await call("GET", path(f.name, envId, strict.id))).body).toEqual(before);
  });

  it("accepts PATCH and DELETE with title and comment query parameters", async () => {
    const r = await call("PATCH", `${path(f.name, envId, strict.id)}?title=Kill&comment=incident%20123`, {
      body: [{ op: "replace", path: "/killed", value: true }],
    });
    expect(r.status).toBe(200);
    expect(r.body.killed).toBe(true);
    const refused = await call("DELETE", path(f.name, envId, strict.id));
    expect(refused.status).toBe(400);
    expect(refused.text).toBe("");
    const del = await call("DELETE", `${path(f.name, envId, strict.id)}?title=t&comment=c`);
    expect(del.body).toBe(true);
  });
});

describe("null lists (the davidji99 Terraform provider's Go client, issue 18)", () => {
  it('reads "rules": null and null keys, segments and strings as empty', async () => {
    const f = (
      await call("POST", `/internal/api/v2/splits/ws/${ws.id}/trafficTypes/user`, {
        body: { name: "tf_nulls" },
      })
    ).body;
    const body = definitionBody({
      rules: null,
      treatments: [
        { name: "on", description: "enabled", keys: null, segments: null },
        { name: "off", description: "disabled" },
      ],
    });
    const r = await call("POST", path(f.name, "Production"), { body });
    expect(r.status).toBe(200);
    expect(r.body.rules).toEqual([]);
    expect(r.body.treatments).toEqual([
      { name: "on", description: "enabled" },
      { name: "off", description: "disabled" },
    ]);
    const put = await call("PUT", path(f.name, "Production"), {
      body: definitionBody({
        rules: [
          {
            condition: { combiner: "AND", matchers: [{ type: "IN_SEGMENT", string: "beta", strings: null }] },
            buckets: [{ treatment: "on", size: 100 }],
          },
        ],
      }),
    });
    expect(put.status).toBe(200);
    expect(put.body.rules).toEqual([
      {
        condition: { combiner: "AND", matchers: [{ type: "IN_SEGMENT", string: "beta" }] },
        buckets: [{ treatment: "on", size: 100 }],
      },
    ]);
  });

  it("still refuses null where the spec requires a value", async () => {
    const r = await call("POST", path(flag.name, "Staging"), { body: definitionBody({ defaultRule: null }) });
    expect(r.status).toBe(400);
    expect(r.body).toEqual(adminError(400, "defaultRule: Invalid input: expected array, received null"));
  });
});
