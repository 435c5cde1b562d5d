/**
 * FlagDefinition lifecycle against the emulator, directly and through the gRPC host: create
 * (POST with title and comment), read (target keys kept), no-op diff (reordered keys, reformatted
 * configuration JSON), in-place update (exact guarded JSON Patch, one write per changed field),
 * kill and restore, a concurrent edit refused, replacement, refresh after an out-of-band change
 * and delete, delete, delete again, adopt. Each test makes the flag (and the definition) it needs
 * under a name of its own, so it passes alone.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { UNKNOWN } from "../../../provider/core/check";
import { flagDefinitionProviderText, impl } from "../../../provider/flags/flag-definition";
import type { Environment, Workspace } from "../../../sdk/admin/schemas";
import { type Driver, MODES } from "../harness";
import { slug, startTestbed, type Testbed, unique } from "../testbed";

let bed: Testbed;
let ws: Workspace;
let prod: Environment;

beforeAll(async () => {
  bed = await startTestbed();
  ws = (await bed.admin.workspaces.getByName("Default")) as Workspace;
  prod = (await bed.admin.environments.list(ws.id)).find((e) => e.name === "Production") as Environment;
});
afterAll(async () => {
  await bed?.stop();
});

const TITLE = "pulumi up: shop/dev";
const comment = (op: string, flag: string) =>
  `${op} of flag "${flag}" in environment "Production" by flagstack (Pulumi stack shop/dev)`;

describe.each(MODES)("FlagDefinition (%s)", (mode) => {
  let p: Driver;
  /** A flag name no other test uses. */
  const fresh = () => unique(`pricing-${slug(mode)}`);
  const programFor = (flag: string) => ({
    workspace: "Default",
    flag,
    environment: "Production",
    treatments: [
      { name: "on", configurations: { color: "green", size: 2 }, keys: ["qa-1", "qa-2"] },
      { name: "off", description: "the old page" },
    ],
    defaultTreatment: "off",
    rules: [
      {
        condition: { matchers: [{ type: "IN_SEGMENT", string: "beta" }] },
        buckets: [{ treatment: "on", size: 100 }],
      },
    ],
    defaultRule: [
      { treatment: "on", size: 50 },
      { treatment: "off", size: 50 },
    ],
  });
  const doc = {
    treatments: [
      { name: "on", configurations: '{"color":"green","size":2}', keys: ["qa-1", "qa-2"] },
      { name: "off", description: "the old page" },
    ],
    defaultTreatment: "off",
    trafficAllocation: 100,
    rules: [
      {
        buckets: [{ treatment: "on", size: 100 }],
        condition: { combiner: "AND", matchers: [{ type: "IN_SEGMENT", string: "beta" }] },
      },
    ],
    defaultRule: [
      { treatment: "on", size: 50 },
      { treatment: "off", size: 50 },
    ],
  };
  /** The program after the first two updates: a 60/40 default rule and a third QA key. */
  const movedFor = (flag: string) => {
    const program = programFor(flag);
    return {
      ...program,
      defaultRule: [
        { treatment: "on", size: 60 },
        { treatment: "off", size: 40 },
      ],
      treatments: [{ ...program.treatments[0], keys: ["qa-1", "qa-2", "qa-3"] }, program.treatments[1]],
    };
  };
  const defPath = (flag: string) => `/internal/api/v2/splits/ws/${ws.id}/${flag}/environments/${prod.id}`;
  const check = async (olds: Record<string, unknown>, news: Record<string, unknown>) =>
    (await p.check(olds, news)).inputs;
  /** A flag of the test's own, made out of band, with no definition yet. */
  const freshFlag = async () => {
    const flag = fresh();
    const { id: flagId } = await bed.admin.flags.create(ws.id, "user", { name: flag, description: "" });
    return { flag, flagId, program: programFor(flag) };
  };
  /** A flag of the test's own and its definition, created by the provider from `program(flag)`. */
  const defined = async (program: (flag: string) => Record<string, unknown> = programFor) => {
    const { flag } = await freshFlag();
    const { id, outs } = await p.create(await check({}, program(flag)));
    return { flag, program: programFor(flag), id, outs };
  };

  beforeAll(async () => {
    p = await bed.driver(mode, impl, flagDefinitionProviderText);
  });

  it("checks: configurations as JSON text, defaults filled in", async () => {
    const flag = fresh();
    const program = programFor(flag);
    expect(await p.check({}, program)).toEqual({
      inputs: { workspace: "Default", flag, environment: "Production", ...doc, killed: false, adopt: false },
      failures: [],
    });
    const noDefaultRule = await check({}, { ...program, defaultRule: undefined });
    expect(noDefaultRule.defaultRule).toEqual([{ treatment: "off", size: 100 }]);
  });

  it("creates with one POST carrying the document, title and comment", async () => {
    const { flag, program } = await freshFlag();
    bed.proxy.reset();
    const created = await p.create(await check({}, program));
    const id = created.id;
    const outs = created.outs;
    expect(id).toBe(`${outs.flagId}:${prod.id}`);
    expect(bed.proxy.writes().map(({ method, path, body }) => ({ method, path, body }))).toEqual([
      {
        method: "POST",
        path: defPath(flag),
        body: { ...doc, title: TITLE, comment: comment("create", flag) },
      },
    ]);
    expect(outs).toEqual({
      workspace: "Default",
      flag,
      environment: "Production",
      ...doc,
      flagSets: [],
      killed: false,
      adopt: false,
      flagId: expect.any(String),
      flagName: flag,
      workspaceId: ws.id,
      workspaceName: "Default",
      environmentId: prod.id,
      environmentName: "Production",
      trafficType: "user",
      creationTime: expect.any(Number),
      lastUpdateTime: expect.any(Number),
    });
  });

  it("reads it back, individual target keys included", async () => {
    const { id, outs } = await defined();
    const read = await p.read(id, outs);
    expect(read.id).toBe(id);
    expect(read.props).toEqual(outs);
    expect(read.inputs).toMatchObject({
      treatments: doc.treatments,
      defaultRule: doc.defaultRule,
      killed: false,
    });
  });

  it("reports no change for the same meaning, with no request", async () => {
    const { program, id, outs } = await defined();
    bed.emu.resetRequests();
    const same = await check(outs, {
      ...program,
      environment: prod.id,
      treatments: [
        { name: "on", configurations: '{ "size": 2, "color": "green" }', keys: ["qa-2", "qa-1"] },
        { name: "off", description: "the old page" },
      ],
    });
    expect(await p.diff(id, outs, same)).toEqual({
      changes: false,
      replaces: [],
      deleteBeforeReplace: false,
    });
    expect(bed.emu.requests()).toEqual([]);
  });

  it("updates one field with one read and one write: a guarded minimal patch", async () => {
    const { flag, program, id, outs } = await defined();
    const news = await check(outs, {
      ...program,
      defaultRule: [
        { treatment: "on", size: 60 },
        { treatment: "off", size: 40 },
      ],
    });
    expect(await p.diff(id, outs, news)).toEqual({ changes: true, replaces: [], deleteBeforeReplace: false });
    bed.proxy.reset();
    const updated = await p.update(id, outs, news);
    expect(bed.proxy.requests().map((r) => `${r.method} ${r.path}`)).toEqual([
      `GET /internal/api/v2/splits/ws/${ws.id}/${outs.flagId}/environments/${prod.id}`,
      `PATCH ${defPath(flag)}`,
    ]);
    expect(bed.proxy.writes()[0]).toMatchObject({
      query: { title: TITLE, comment: comment("update", flag) },
      body: [
        { op: "test", path: "/defaultRule/0/size", value: 50 },
        { op: "replace", path: "/defaultRule/0/size", value: 60 },
        { op: "test", path: "/defaultRule/1/size", value: 50 },
        { op: "replace", path: "/defaultRule/1/size", value: 40 },
      ],
    });
    expect(updated.outs).toEqual({
      ...outs,
      defaultRule: [
        { treatment: "on", size: 60 },
        { treatment: "off", size: 40 },
      ],
      lastUpdateTime: expect.any(Number),
    });
  });

  it("adds a target key with one guarded add, and sends the title and comment inputs", async () => {
    const { flag, program, id, outs } = await defined((f) => ({
      ...programFor(f),
      defaultRule: [
        { treatment: "on", size: 60 },
        { treatment: "off", size: 40 },
      ],
    }));
    const news = await check(outs, {
      ...program,
      defaultRule: [
        { treatment: "on", size: 60 },
        { treatment: "off", size: 40 },
      ],
      treatments: [{ ...program.treatments[0], keys: ["qa-1", "qa-2", "qa-3"] }, program.treatments[1]],
      title: "OPS-42",
      comment: "add QA key",
    });
    bed.proxy.reset();
    const updated = (await p.update(id, outs, news)).outs;
    expect(bed.proxy.writes()).toEqual([
      {
        method: "PATCH",
        path: defPath(flag),
        query: { title: "OPS-42", comment: "add QA key" },
        body: [
          { op: "test", path: "/treatments/0/keys/1", value: "qa-2" },
          { op: "add", path: "/treatments/0/keys/-", value: "qa-3" },
        ],
        status: 200,
      },
    ]);
    expect((updated.treatments as { keys?: string[] }[])[0]?.keys).toEqual(["qa-1", "qa-2", "qa-3"]);
  });

  it("kills and restores with the dedicated operations, never the patch", async () => {
    const { flag, id, outs: created } = await defined(movedFor);
    let outs = created;
    const base = movedFor(flag);
    const killed = await check(outs, { ...base, killed: true });
    expect(await p.diff(id, outs, killed)).toMatchObject({ changes: true, replaces: [] });
    bed.proxy.reset();
    outs = (await p.update(id, outs, killed)).outs;
    expect(bed.proxy.writes().map((w) => `${w.method} ${w.path}`)).toEqual([`PUT ${defPath(flag)}/kill`]);
    expect(outs.killed).toBe(true);
    expect((await bed.admin.definitions.get(ws.id, flag, prod.id)).killed).toBe(true);
    bed.proxy.reset();
    outs = (await p.update(id, outs, await check(outs, base))).outs;
    expect(bed.proxy.writes().map((w) => `${w.method} ${w.path}`)).toEqual([`PUT ${defPath(flag)}/restore`]);
    expect(outs.killed).toBe(false);
  });

  it("recovers a PATCH whose response was lost: re-reads, finds it applied, sends nothing more", async () => {
    const { flag, id, outs: created } = await defined(movedFor);
    let outs = created;
    const base = movedFor(flag);
    bed.proxy.reset();
    bed.proxy.once({ method: "PATCH", path: new RegExp(`/environments/${prod.id}$`) }, { lose: true });
    outs = (await p.update(id, outs, await check(outs, { ...base, trafficAllocation: 90 }))).outs;
    expect(bed.proxy.requests().map((r) => r.method)).toEqual(["GET", "PATCH", "GET"]);
    expect(outs.trafficAllocation).toBe(90);
    outs = (await p.update(id, outs, await check(outs, base))).outs;
    expect(outs.trafficAllocation).toBe(100);
  });

  it("tolerates values unknown during preview: check passes them, diff replaces on an unknown flag", async () => {
    const { program, id, outs } = await defined(movedFor);
    bed.emu.resetRequests();
    const checked = await p.check(outs, {
      ...program,
      flag: UNKNOWN,
      defaultRule: [
        { treatment: "on", size: UNKNOWN },
        { treatment: "off", size: 50 },
      ],
    });
    expect(checked.failures).toEqual([]);
    expect(checked.inputs).toMatchObject({ flag: UNKNOWN, trafficAllocation: 100, killed: false });
    expect(await p.diff(id, outs, checked.inputs)).toEqual({
      changes: true,
      replaces: ["flag"],
      deleteBeforeReplace: true,
    });
    expect(bed.emu.requests()).toEqual([]);
  });

  it("refuses a concurrent edit made between its read and its write, and overwrites nothing", async () => {
    const { flag, program, id, outs } = await defined(movedFor);
    const news = await check(outs, { ...program, trafficAllocation: 80 });
    bed.proxy.once(
      { method: "GET", path: new RegExp(`/environments/${prod.id}$`) },
      {
        after: async () =>
          void (await bed.admin.definitions.patch(
            ws.id,
            flag,
            prod.id,
            [{ op: "replace", path: "/trafficAllocation", value: 55 }],
            { title: "t", comment: "c" },
          )),
      },
    );
    await expect(p.update(id, outs, news)).rejects.toThrow(
      `the definition of flag "${flag}" in environment "Production" changed while this update was being applied (a concurrent edit); nothing was overwritten`,
    );
    expect((await bed.admin.definitions.get(ws.id, flag, prod.id)).trafficAllocation).toBe(55);
  });

  it("converges from whatever is live: refresh shows the out-of-band change, update reverts it", async () => {
    // The state a refused concurrent edit leaves: the recorded outputs, and a change made since.
    const { flag, program, id, outs } = await defined(movedFor);
    await bed.admin.definitions.patch(
      ws.id,
      flag,
      prod.id,
      [{ op: "replace", path: "/trafficAllocation", value: 55 }],
      { title: "t", comment: "c" },
    );
    const read = await p.read(id, outs);
    expect(read.props).toMatchObject({ trafficAllocation: 55 });
    const news = await check(outs, { ...program, trafficAllocation: 100 });
    expect(await p.diff(id, read.props as Record<string, unknown>, news)).toMatchObject({
      changes: true,
      replaces: [],
    });
    await p.update(id, read.props as Record<string, unknown>, news);
    const live = await bed.admin.definitions.get(ws.id, flag, prod.id);
    expect(live.trafficAllocation).toBe(100);
    expect(live.treatments[0]?.keys).toEqual(["qa-1", "qa-2"]);
    expect(live.defaultRule).toEqual(doc.defaultRule);
  });

  it.each([
    ["environment", () => ({ environment: "Staging" })],
    ["flag", (flag: string) => ({ flag: `${flag}-other` })],
    ["workspace", () => ({ workspace: "Other" })],
  ])("replaces on a %s change, deleting first", async (field, change) => {
    const { flag, program, id, outs } = await defined();
    expect(await p.diff(id, outs, await check(outs, { ...program, ...change(flag) }))).toEqual({
      changes: true,
      replaces: [field],
      deleteBeforeReplace: true,
    });
  });

  it("refuses to update a definition deleted out of band, writes nothing, and says to refresh; read reports it gone", async () => {
    const { flag, program, id, outs } = await defined();
    await bed.admin.definitions.delete(ws.id, flag, prod.id, { title: "t", comment: "c" });
    bed.proxy.reset();
    await expect(
      p.update(id, outs, await check(outs, { ...program, trafficAllocation: 40 })),
    ).rejects.toThrow(
      `the definition of flag "${flag}" in environment "Production" was deleted outside Pulumi since its state was recorded; nothing was written. ` +
        "Run `pulumi refresh` (it removes the object from the state) and `pulumi up` to create it again, or `pulumi up --refresh`.",
    );
    expect(bed.proxy.writes()).toEqual([]);
    expect(await p.read(id, outs)).toEqual({ id: undefined, props: undefined, inputs: undefined });
  });

  it("refuses an existing definition unless adopt is set, then converges it", async () => {
    const { flag, flagId, program } = await freshFlag();
    await bed.admin.definitions.create(ws.id, flag, prod.id, {
      treatments: [{ name: "on" }, { name: "off" }],
      defaultTreatment: "off",
      defaultRule: [{ treatment: "off", size: 100 }],
      title: "t",
      comment: "c",
    });
    await expect(p.create(await check({}, program))).rejects.toThrow(
      `a definition of flag "${flag}" in environment "Production" already exists. Set \`adopt: true\``,
    );
    bed.proxy.reset();
    const adopted = await p.create(await check({}, { ...program, adopt: true }));
    expect(adopted.id).toBe(`${flagId}:${prod.id}`);
    expect(bed.proxy.writes().map((w) => `${w.method} ${w.path}`)).toEqual([`PATCH ${defPath(flag)}`]);
    expect(adopted.outs).toMatchObject({ ...doc, adopt: true });
  });

  it("deletes with title and comment; deleting again succeeds", async () => {
    const { flag, id, outs } = await defined();
    bed.proxy.reset();
    await p.delete(id, outs);
    expect(bed.proxy.writes()).toEqual([
      {
        method: "DELETE",
        path: defPath(flag),
        query: { title: TITLE, comment: comment("delete", flag) },
        body: undefined,
        status: 200,
      },
    ]);
    await expect(bed.admin.definitions.get(ws.id, flag, prod.id)).rejects.toMatchObject({ status: 404 });
    await expect(p.delete(id, outs)).resolves.toBeUndefined();
  });

  describe("flag sets (membership by flag set id, a set)", () => {
    /** Two flag sets of the test's own, by id. */
    const twoSets = async () => {
      const make = async (name: string) =>
        (
          await bed.admin.flagSets.create({
            name: unique(name).replace(/-/g, "_"),
            workspace: { id: ws.id, type: "WORKSPACE" },
          })
        ).id;
      return [await make(`web_${slug(mode)}`), await make(`mobile_${slug(mode)}`)] as const;
    };

    it("refuses an empty flag set id naming flagSets[0], with no request", async () => {
      bed.emu.resetRequests();
      const checked = await p.check({}, { ...programFor(fresh()), flagSets: [""] });
      expect(checked.failures).toEqual([
        { property: "flagSets[0]", reason: "a flag set id must not be empty" },
      ]);
      expect(bed.emu.requests()).toEqual([]);
    });

    it("creates with the sets in the POST, sees no change for reordered or repeated ids, replaces them with one guarded replace", async () => {
      const [web, mobile] = await twoSets();
      const { flag, program } = await freshFlag();
      bed.proxy.reset();
      const created = await p.create(await check({}, { ...program, flagSets: [web, web] }));
      expect(bed.proxy.writes().map(({ method, path, body }) => ({ method, path, body }))).toEqual([
        {
          method: "POST",
          path: defPath(flag),
          body: {
            ...doc,
            flagSets: [{ id: web, type: "flag_set" }],
            title: TITLE,
            comment: comment("create", flag),
          },
        },
      ]);
      expect(created.outs.flagSets).toEqual([web]);
      const outs = (
        await p.update(
          created.id,
          created.outs,
          await check(created.outs, { ...program, flagSets: [web, mobile] }),
        )
      ).outs;
      bed.emu.resetRequests();
      const same = await check(outs, { ...program, flagSets: [mobile, web, mobile] });
      expect(await p.diff(created.id, outs, same)).toEqual({
        changes: false,
        replaces: [],
        deleteBeforeReplace: false,
      });
      expect(await p.diff(created.id, outs, await check(outs, program))).toMatchObject({ changes: false });
      expect(bed.emu.requests()).toEqual([]);
      const news = await check(outs, { ...program, flagSets: [mobile] });
      expect(await p.diff(created.id, outs, news)).toEqual({
        changes: true,
        replaces: [],
        deleteBeforeReplace: false,
      });
      bed.proxy.reset();
      const updated = await p.update(created.id, outs, news);
      expect(bed.proxy.writes().map(({ method, body }) => ({ method, body }))).toEqual([
        {
          method: "PATCH",
          body: [
            { op: "test", path: "/flagSets/0/id", value: web },
            { op: "test", path: "/flagSets/0/type", value: "flag_set" },
            { op: "test", path: "/flagSets/1/id", value: mobile },
            { op: "test", path: "/flagSets/1/type", value: "flag_set" },
            { op: "replace", path: "/flagSets", value: [{ id: mobile, type: "flag_set" }] },
          ],
        },
      ]);
      expect(updated.outs.flagSets).toEqual([mobile]);
    });

    it("leaves the service's sets alone when omitted; refresh reports an out-of-band change", async () => {
      const [web, mobile] = await twoSets();
      const { flag, program, id, outs } = await defined((f) => ({ ...programFor(f), flagSets: [web] }));
      await bed.admin.definitions.patch(
        ws.id,
        flag,
        prod.id,
        [{ op: "replace", path: "/flagSets", value: [{ id: mobile, type: "flag_set" }] }],
        { title: "t", comment: "c" },
      );
      const read = await p.read(id, outs);
      expect(read.props).toMatchObject({ flagSets: [mobile] });
      expect(read.inputs).toMatchObject({ flagSets: [mobile] });
      const props = read.props as Record<string, unknown>;
      expect(await p.diff(id, props, await check(props, { ...program, flagSets: [web] }))).toMatchObject({
        changes: true,
      });
      bed.proxy.reset();
      await p.update(
        id,
        props,
        await check(props, { ...program, defaultRule: [{ treatment: "on", size: 100 }] }),
      );
      expect(JSON.stringify(bed.proxy.writes()[0]?.body)).not.toContain("flagSets");
      expect((await bed.admin.definitions.get(ws.id, flag, prod.id)).flagSets).toEqual([
        { id: mobile, type: "flag_set" },
      ]);
    });
  });

  it("refuses a baseline a colleague set where up recorded none, naming baselineTreatment; a program without one shows no change", async () => {
    const { flag, program, id, outs } = await defined();
    expect(outs.baselineTreatment).toBeUndefined();
    await bed.admin.definitions.patch(
      ws.id,
      flag,
      prod.id,
      [{ op: "add", path: "/baselineTreatment", value: "on" }],
      { title: "t", comment: "c" },
    );
    bed.proxy.reset();
    await expect(
      p.update(id, outs, await check(outs, { ...program, baselineTreatment: "off" })),
    ).rejects.toThrow(
      `the definition of flag "${flag}" in environment "Production" was changed outside Pulumi since its state was recorded, in a field this update changes:\n` +
        '  baselineTreatment: recorded (none), live "on", desired "off"\nNothing was written.',
    );
    expect(bed.proxy.writes()).toEqual([]);
    expect((await bed.admin.definitions.get(ws.id, flag, prod.id)).baselineTreatment).toBe("on");
    // Left out by the program, the service's baseline is not managed: no change before or after a refresh.
    expect((await p.diff(id, outs, await check(outs, program))).changes).toBe(false);
    const read = (await p.read(id, outs)).props as Record<string, unknown>;
    expect(read.baselineTreatment).toBe("on");
    expect((await p.diff(id, read, await check(read, program))).changes).toBe(false);
  });

  it("creates killed: POST then kill", async () => {
    const { flag, program } = await freshFlag();
    bed.proxy.reset();
    const created = await p.create(await check({}, { ...program, killed: true }));
    expect(bed.proxy.writes().map((w) => `${w.method} ${w.path}`)).toEqual([
      `POST ${defPath(flag)}`,
      `PUT ${defPath(flag)}/kill`,
    ]);
    expect(created.outs.killed).toBe(true);
    await p.delete(created.id, created.outs);
  });
});

describe.each(MODES)("FlagDefinition in a workspace that requires title and comment (%s)", (mode) => {
  const flag = mode === "direct" ? "audited-d" : "audited-g";
  const setRequired = async (value: boolean) => {
    const res = await fetch(`${bed.emu.url}/internal/api/v2/workspaces/${ws.id}`, {
      method: "PATCH",
      headers: { authorization: `Bearer ${bed.emu.adminKey}`, "content-type": "application/json" },
      body: JSON.stringify([{ op: "replace", path: "/requiresTitleAndComments", value }]),
    });
    expect(res.status).toBe(200);
  };

  beforeAll(async () => {
    await bed.admin.flags.create(ws.id, "user", { name: flag, description: "" });
    await setRequired(true);
  });
  afterAll(async () => {
    await setRequired(false);
  });

  it("creates, patches, kills and deletes: every change carries a title and comment", async () => {
    const p = await bed.driver(mode, impl, flagDefinitionProviderText);
    const program = {
      workspace: "Default",
      flag,
      environment: "Production",
      treatments: [{ name: "on" }, { name: "off" }],
      defaultTreatment: "off",
    };
    await expect(
      bed.admin.definitions.create(ws.id, flag, prod.id, {
        treatments: [{ name: "on" }],
        defaultTreatment: "on",
        defaultRule: [{ treatment: "on", size: 100 }],
      }),
    ).rejects.toMatchObject({ status: 400 });
    bed.proxy.reset();
    const created = await p.create((await p.check({}, program)).inputs);
    const updated = await p.update(
      created.id,
      created.outs,
      (await p.check(created.outs, { ...program, trafficAllocation: 50, killed: true })).inputs,
    );
    expect(updated.outs).toMatchObject({ trafficAllocation: 50, killed: true });
    await p.delete(created.id, updated.outs);
    const writes = bed.proxy.writes();
    expect(writes.map((w) => `${w.method} ${w.status}`)).toEqual([
      "POST 200",
      "PATCH 200",
      "PUT 200",
      "DELETE 200",
    ]);
    expect(writes[0]?.body).toMatchObject({ title: TITLE, comment: comment("create", flag) });
    for (const w of writes.slice(1))
      expect(w.query).toEqual({
        title: TITLE,
        comment: expect.stringContaining(`flag "${flag}" in environment "Production"`),
      });
  });
});
