/**
 * RuleBasedSegment lifecycle against the emulator, directly and through the gRPC host: check
 * (failures naming the field, no request), create (one POST), read, no-op diff, a description
 * change alone refused, refresh after an out-of-band change, delete, delete again, gone, adopt, a
 * create whose response was lost, import.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { impl, ruleBasedSegmentProviderText } from "../../../provider/flags/rule-based-segment";
import type { Workspace } from "../../../sdk/admin/schemas";
import { type Driver, MODES } from "../harness";
import { slug, startTestbed, type Testbed, unique } from "../testbed";

let bed: Testbed;
let ws: Workspace;
const V2 = "/internal/api/v2";

beforeAll(async () => {
  bed = await startTestbed();
  ws = (await bed.admin.workspaces.getByName("Default")) as Workspace;
});
afterAll(async () => {
  await bed?.stop();
});

describe.each(MODES)("RuleBasedSegment (%s)", (mode) => {
  let p: Driver;
  const fresh = () => unique(`rbs_${slug(mode)}`, "_");
  const programFor = (name: string) => ({ workspace: "Default", name, description: "plan = pro" });
  const declared = (name: string) => ({
    workspace: "Default",
    trafficType: "user",
    name,
    description: "plan = pro",
    adopt: false,
  });
  const createdSegment = async () => {
    const name = fresh();
    const { id, outs } = await p.create((await p.check({}, programFor(name))).inputs);
    return { name, id, outs };
  };

  beforeAll(async () => {
    p = await bed.driver(mode, impl, ruleBasedSegmentProviderText);
  });

  it("checks: defaults applied", async () => {
    const name = fresh();
    expect(await p.check({}, programFor(name))).toEqual({ inputs: declared(name), failures: [] });
  });

  it("refuses bad input naming each field, with no request", async () => {
    bed.reset();
    const checked = await p.check(
      {},
      { workspace: "Default", trafficType: "", name: "pro users", rules: [] },
    );
    expect(checked.failures).toEqual([
      { property: "trafficType", reason: "trafficType must not be empty" },
      { property: "name", reason: "name must start with a letter and use only letters, digits, '-' and '_'" },
      { property: "rules", reason: 'unknown property "rules"' },
    ]);
    expect(bed.emu.requests()).toEqual([]);
  });

  it("creates with one POST; the id is the natural key", async () => {
    const name = fresh();
    const inputs = (await p.check({}, programFor(name))).inputs;
    bed.reset();
    const created = await p.create(inputs);
    expect(created).toEqual({
      id: `${ws.id}/${name}`,
      outs: {
        ...inputs,
        creationTime: expect.any(Number),
        workspaceId: ws.id,
        workspaceName: "Default",
        trafficTypeId: expect.any(String),
      },
    });
    expect(bed.proxy.writes()).toEqual([
      {
        method: "POST",
        path: `${V2}/rule-based-segments/ws/${ws.id}/trafficTypes/user`,
        query: {},
        body: { name, description: "plan = pro" },
        status: 200,
      },
    ]);
  });

  it("reads what it created from the list", async () => {
    const { name, id, outs } = await createdSegment();
    bed.reset();
    expect(await p.read(id, outs)).toEqual({ id, props: outs, inputs: declared(name) });
    expect(bed.sent()).toEqual([`GET ${V2}/rule-based-segments/ws/${ws.id}`]);
  });

  it("reports no change for the same meaning (workspace and traffic type by id), with no request", async () => {
    const { name, id, outs } = await createdSegment();
    bed.reset();
    const news = (
      await p.check(outs, { ...programFor(name), workspace: ws.id, trafficType: outs.trafficTypeId })
    ).inputs;
    expect(await p.diff(id, outs, news)).toEqual({
      changes: false,
      replaces: [],
      deleteBeforeReplace: false,
    });
    expect(bed.emu.requests()).toEqual([]);
  });

  it("refuses a new description alone, naming the field, with no request", async () => {
    const { name, id, outs } = await createdSegment();
    const news = (await p.check(outs, { ...programFor(name), description: "plan = pro or team" })).inputs;
    bed.reset();
    await expect(p.diff(id, outs, news)).rejects.toThrow(
      `description: the API cannot change rule-based segment "${name}"'s description (recorded "plan = pro", desired "plan = pro or team"), and replacing the segment would delete its definition in every environment. Declare the recorded description, or replace it deliberately with \`pulumi up --replace\` of the segment and of each of its RuleBasedSegmentDefinitions (which puts the rules back).`,
    );
    expect(bed.emu.requests()).toEqual([]);
  });

  it("a new name or traffic type replaces, deleting first", async () => {
    const { name, id, outs } = await createdSegment();
    const renamed = (await p.check(outs, programFor(`${name}_2`))).inputs;
    expect(await p.diff(id, outs, renamed)).toEqual({
      changes: true,
      replaces: ["name"],
      deleteBeforeReplace: true,
    });
    const retyped = (await p.check(outs, { ...programFor(name), trafficType: "account" })).inputs;
    expect(await p.diff(id, outs, retyped)).toEqual({
      changes: true,
      replaces: ["trafficType"],
      deleteBeforeReplace: true,
    });
  });

  it("refresh picks up an out-of-band change, and the next diff shows it", async () => {
    const { name, id, outs } = await createdSegment();
    await bed.admin.ruleBasedSegments.delete(ws.id, name);
    await bed.admin.ruleBasedSegments.create(ws.id, "account", { name, description: "made by hand" });
    const read = await p.read(id, outs);
    expect(read.props).toEqual({
      ...outs,
      trafficType: "account",
      description: "made by hand",
      creationTime: expect.any(Number),
      trafficTypeId: expect.any(String),
    });
    expect(read.inputs).toMatchObject({ trafficType: "account", description: "made by hand" });
    const news = (await p.check(outs, programFor(name))).inputs;
    expect(await p.diff(id, read.props as Record<string, unknown>, news)).toEqual({
      changes: true,
      replaces: ["trafficType"],
      deleteBeforeReplace: true,
    });
  });

  it("deletes with one DELETE, deleting again succeeds, and a gone segment reads as gone", async () => {
    const { name, id, outs } = await createdSegment();
    bed.reset();
    await p.delete(id, outs);
    // Besides the DELETE, only reads: which environments require approvals (dry runs, once per
    // process), where it would take something away behind the gate.
    expect(
      bed.proxy
        .requests()
        .filter((r) => r.method !== "GET" && r.query.dry_run !== "true")
        .map((r) => `${r.method} ${r.path}`),
    ).toEqual([`DELETE ${V2}/rule-based-segments/ws/${ws.id}/${name}`]);
    await expect(p.delete(id, outs)).resolves.toBeUndefined();
    expect(await p.read(id, outs)).toEqual({ id: undefined, props: undefined, inputs: undefined });
  });

  it("refuses an existing segment unless adopt is set, then takes it over with no write", async () => {
    const name = fresh();
    await bed.admin.ruleBasedSegments.create(ws.id, "user", { name, description: "plan = pro" });
    await expect(p.create((await p.check({}, programFor(name))).inputs)).rejects.toThrow(
      `a rule-based segment named "${name}" in workspace "Default" already exists. Set \`adopt: true\``,
    );
    bed.reset();
    const adopted = await p.create((await p.check({}, { ...programFor(name), adopt: true })).inputs);
    expect(adopted.outs).toMatchObject({ name, description: "plan = pro", adopt: true });
    expect(bed.proxy.writes()).toEqual([]);
    await p.delete(adopted.id, adopted.outs);
  });

  it("refuses to adopt a segment whose description differs, naming both", async () => {
    const name = fresh();
    await bed.admin.ruleBasedSegments.create(ws.id, "user", { name, description: "made by hand" });
    bed.reset();
    await expect(p.create((await p.check({}, { ...programFor(name), adopt: true })).inputs)).rejects.toThrow(
      `a rule-based segment named "${name}" in workspace "Default" exists with description "made by hand", not "plan = pro"`,
    );
    expect(bed.proxy.writes()).toEqual([]);
  });

  it("recovers a create whose response was lost without creating a duplicate", async () => {
    const name = fresh();
    bed.reset();
    bed.proxy.once(
      { method: "POST", path: /\/rule-based-segments\/ws\/[^/]+\/trafficTypes\/user$/ },
      { lose: true },
    );
    const created = await p.create((await p.check({}, programFor(name))).inputs);
    expect(bed.proxy.writes().map((w) => w.method)).toEqual(["POST"]);
    expect(created.outs).toMatchObject({ name, description: "plan = pro", adopt: false });
    const same: string[] = [];
    for await (const s of bed.admin.ruleBasedSegments.list(ws.id)) if (s.name === name) same.push(s.name);
    expect(same).toEqual([name]);
  });

  it("imports by <workspace>/<name>", async () => {
    const { name, outs } = await createdSegment();
    if (mode !== "direct") return; // the import read has no state: the native provider's path
    const read = await impl.read(`Default/${name}`, {} as never);
    expect(read).toEqual({ id: `${ws.id}/${name}`, props: outs, inputs: expect.any(Object) });
  });
});
