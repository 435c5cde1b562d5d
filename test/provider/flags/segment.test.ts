/**
 * Segment lifecycle against the emulator, directly and through the gRPC host: check (failures
 * naming the field, no request), create (one POST; with tags, then the tag POST), read (one GET),
 * no-op diff (tags a set), tags updated in place and read back, a description change alone refused, refresh
 * after an out-of-band change (tags too), delete, delete again, gone, adopt, and a create whose
 * response was lost. Each test makes the segment it needs under a name of its own.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { impl, segmentProviderText } from "../../../provider/flags/segment";
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

describe.each(MODES)("Segment (%s)", (mode) => {
  let p: Driver;
  /** A name no other test uses. */
  const fresh = () => unique(`beta_${slug(mode)}`, "_");
  const programFor = (name: string) => ({ workspace: "Default", name, description: "Opted in" });
  /** The checked inputs of {@link programFor} with these tags. */
  const declared = (name: string, tags: string[] = []) => ({
    workspace: "Default",
    trafficType: "user",
    name,
    description: "Opted in",
    tags,
    adopt: false,
  });
  /** A segment of the test's own, created by the provider. */
  const createdSegment = async (change: Record<string, unknown> = {}) => {
    const name = fresh();
    const program = { ...programFor(name), ...change };
    const { id, outs } = await p.create((await p.check({}, program)).inputs);
    return { name, program, id, outs };
  };

  beforeAll(async () => {
    p = await bed.driver(mode, impl, segmentProviderText);
  });

  it("checks: defaults applied, tags a sorted set", async () => {
    const name = fresh();
    expect(await p.check({}, { ...programFor(name), tags: ["web", "growth", "web"] })).toEqual({
      inputs: declared(name, ["growth", "web"]),
      failures: [],
    });
  });

  it("refuses bad input naming each field, with no request", async () => {
    bed.reset();
    const checked = await p.check(
      {},
      { workspace: "", name: "1 beta", description: "x".repeat(1025), tags: ["ok", ""], colour: "red" },
    );
    expect(checked.failures).toEqual([
      { property: "workspace", reason: "workspace must not be empty" },
      { property: "name", reason: "name must start with a letter and use only letters, digits, '-' and '_'" },
      { property: "description", reason: "description must be at most 1024 characters" },
      { property: "tags[1]", reason: "a tag must not be empty" },
      { property: "colour", reason: 'unknown property "colour"' },
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
        path: `${V2}/segments/ws/${ws.id}/trafficTypes/user`,
        query: {},
        body: { name, description: "Opted in" },
        status: 200,
      },
    ]);
  });

  it("reads what it created", async () => {
    const { name, id, outs } = await createdSegment();
    expect(await p.read(id, outs)).toEqual({
      id,
      props: outs,
      inputs: declared(name),
    });
  });

  it("reports no change for the same meaning (workspace by id, tags reordered), with no request", async () => {
    const { name, id, outs } = await createdSegment({ tags: [] });
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

  it("refuses a new description alone, naming the field, with no request (replacing would drop every environment's members)", async () => {
    const { name, id, outs } = await createdSegment();
    const news = (await p.check(outs, { ...programFor(name), description: "Opted in, wave 2" })).inputs;
    bed.reset();
    await expect(p.diff(id, outs, news)).rejects.toThrow(
      `description: the API cannot change segment "${name}"'s description (recorded "Opted in", desired "Opted in, wave 2"), and replacing the segment would delete its members in every environment. Declare the recorded description, or replace it deliberately with \`pulumi up --replace\` of the segment and of each of its SegmentKeys (which uploads the members again).`,
    );
    expect(bed.emu.requests()).toEqual([]);
  });

  it("a new description with a new name is a new segment: it replaces, deleting first", async () => {
    const { name, id, outs } = await createdSegment();
    const news = (await p.check(outs, { ...programFor(`${name}-2`), description: "Opted in, wave 2" }))
      .inputs;
    expect(await p.diff(id, outs, news)).toEqual({
      changes: true,
      replaces: ["name"],
      deleteBeforeReplace: true,
    });
  });

  it("creates with tags: the segment's POST, then one tag POST of the set", async () => {
    const name = fresh();
    const inputs = (await p.check({}, { ...programFor(name), tags: ["web", "growth"] })).inputs;
    bed.reset();
    const created = await p.create(inputs);
    expect(created.outs).toMatchObject({ name, tags: ["growth", "web"] });
    expect(bed.proxy.writes().map((w) => [w.method, w.path, w.body, w.status])).toEqual([
      ["POST", `${V2}/segments/ws/${ws.id}/trafficTypes/user`, { name, description: "Opted in" }, 200],
      ["POST", `${V2}/tags/ws/${ws.id}/object/${name}/objecttype/Segment`, ["growth", "web"], 200],
    ]);
    expect((await bed.admin.segments.get(ws.id, name)).tags).toEqual([{ name: "growth" }, { name: "web" }]);
  });

  it("updates tags in place with one POST of the whole set, and reads them back", async () => {
    const { name, id, outs } = await createdSegment();
    const news = (await p.check(outs, { ...programFor(name), tags: ["web", "growth"] })).inputs;
    expect(await p.diff(id, outs, news)).toEqual({ changes: true, replaces: [], deleteBeforeReplace: false });
    bed.reset();
    const updated = (await p.update(id, outs, news)).outs;
    expect(updated).toEqual({ ...outs, tags: ["growth", "web"] });
    expect(bed.proxy.writes()).toEqual([
      {
        method: "POST",
        path: `${V2}/tags/ws/${ws.id}/object/${name}/objecttype/Segment`,
        query: {},
        body: ["growth", "web"],
        status: 200,
      },
    ]);
    expect(await p.read(id, updated)).toEqual({
      id,
      props: updated,
      inputs: declared(name, ["growth", "web"]),
    });
    expect(await p.diff(id, updated, news)).toEqual({
      changes: false,
      replaces: [],
      deleteBeforeReplace: false,
    });
  });

  it("refresh shows tags changed out of band, and the next update puts the declared ones back", async () => {
    const { name, id, outs } = await createdSegment({ tags: ["web"] });
    await bed.admin.segments.setTags(ws.id, name, ["mobile", "web"]);
    const read = await p.read(id, outs);
    expect(read.props).toEqual({ ...outs, tags: ["mobile", "web"] });
    expect(read.inputs).toMatchObject({ tags: ["mobile", "web"] });
    const news = (await p.check(outs, { ...programFor(name), tags: ["web"] })).inputs;
    const live = read.props as Record<string, unknown>;
    expect(await p.diff(id, live, news)).toEqual({ changes: true, replaces: [], deleteBeforeReplace: false });
    bed.reset();
    expect((await p.update(id, live, news)).outs).toEqual({ ...outs, tags: ["web"] });
    expect(bed.proxy.writes().map((w) => [w.method, w.body, w.status])).toEqual([["POST", ["web"], 200]]);
    expect((await bed.admin.segments.get(ws.id, name)).tags).toEqual([{ name: "web" }]);
  });

  it("reads one segment with one GET (no walk of the list)", async () => {
    const { name, id, outs } = await createdSegment();
    bed.reset();
    await p.read(id, outs);
    expect(bed.sent()).toEqual([`GET ${V2}/segments/ws/${ws.id}/${name}`]);
  });

  it("refresh picks up an out-of-band change, and the next diff shows it", async () => {
    const { name, id, outs } = await createdSegment();
    await bed.admin.segments.delete(ws.id, name);
    await bed.admin.segments.create(ws.id, "account", { name, description: "made by hand" });
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
    ).toEqual([`DELETE ${V2}/segments/ws/${ws.id}/${name}`]);
    expect(await bed.admin.segments.find(ws.id, name)).toBeUndefined();
    await expect(p.delete(id, outs)).resolves.toBeUndefined();
    expect(await p.read(id, outs)).toEqual({ id: undefined, props: undefined, inputs: undefined });
  });

  it("refuses an existing segment unless adopt is set, then takes it over with no write", async () => {
    const name = fresh();
    await bed.admin.segments.create(ws.id, "user", { name, description: "Opted in" });
    await expect(p.create((await p.check({}, programFor(name))).inputs)).rejects.toThrow(
      `a segment named "${name}" in workspace "Default" already exists. Set \`adopt: true\``,
    );
    bed.reset();
    const adopted = await p.create((await p.check({}, { ...programFor(name), adopt: true })).inputs);
    expect(adopted.outs).toMatchObject({ name, description: "Opted in", adopt: true });
    expect(bed.proxy.writes()).toEqual([]);
    await p.delete(adopted.id, adopted.outs);
  });

  it("refuses to adopt a segment whose description differs, naming both", async () => {
    const name = fresh();
    await bed.admin.segments.create(ws.id, "user", { name, description: "made by hand" });
    bed.reset();
    await expect(p.create((await p.check({}, { ...programFor(name), adopt: true })).inputs)).rejects.toThrow(
      `a segment named "${name}" in workspace "Default" exists with description "made by hand", not "Opted in"`,
    );
    expect(bed.proxy.writes()).toEqual([]);
  });

  it("recovers a create whose response was lost without creating a duplicate", async () => {
    const name = fresh();
    bed.reset();
    bed.proxy.once({ method: "POST", path: /\/segments\/ws\/[^/]+\/trafficTypes\/user$/ }, { lose: true });
    const created = await p.create((await p.check({}, programFor(name))).inputs);
    expect(bed.proxy.writes().map((w) => w.method)).toEqual(["POST"]);
    expect(created.outs).toMatchObject({ name, description: "Opted in", adopt: false });
    const same: string[] = [];
    for await (const s of bed.admin.segments.list(ws.id)) if (s.name === name) same.push(s.name);
    expect(same).toEqual([name]);
  });

  it("imports by <workspace>/<name>", async () => {
    const { name, outs } = await createdSegment();
    if (mode !== "direct") return; // the import read has no state: the native provider's path
    const read = await impl.read(`Default/${name}`, {} as never);
    expect(read).toEqual({ id: `${ws.id}/${name}`, props: outs, inputs: expect.any(Object) });
  });
});
