/**
 * SegmentKeys lifecycle against the emulator, directly and through the gRPC host: check (a set;
 * failures naming the field, no request), create (activation, then uploads of at most 10,000 keys
 * with title and comment), read, no-op diff, the minimal update (a one-key change of a 1,000-member
 * segment is exactly one request), a 100,000-member first apply in exactly 10 uploads, refresh
 * after an out-of-band change, a colleague's key surviving an update, delete, delete again, gone,
 * adopt, and an activation whose response was lost.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { impl, segmentKeysProviderText } from "../../../provider/flags/segment-keys";
import type { Workspace } from "../../../sdk/admin/schemas";
import { type Driver, MODES } from "../harness";
import { slug, startTestbed, type Testbed, unique } from "../testbed";

let bed: Testbed;
let ws: Workspace;
let prodId: string;
const V2 = "/internal/api/v2";
const keys = (n: number, prefix = "user") =>
  Array.from({ length: n }, (_, i) => `${prefix}${String(i).padStart(6, "0")}`);

beforeAll(async () => {
  bed = await startTestbed();
  ws = (await bed.admin.workspaces.getByName("Default")) as Workspace;
  prodId = (await bed.admin.environments.find(ws.id, "Production"))!.id;
});
afterAll(async () => {
  await bed?.stop();
});

describe.each(MODES)("SegmentKeys (%s)", (mode) => {
  let p: Driver;
  const note = { title: "Beta testers", comment: "managed by Pulumi" };
  /** A segment of the test's own, made out of band (a `Segment` would make it in a program). */
  const freshSegment = async () => {
    const name = unique(`beta_${slug(mode)}`, "_");
    await bed.admin.segments.create(ws.id, "user", { name });
    return name;
  };
  const programFor = (segment: string, members: string[] = ["cy", "ana", "ben", "ana"]) => ({
    workspace: "Default",
    environment: "Production",
    segment,
    keys: members,
    ...note,
  });
  const place = () => ({
    workspaceId: ws.id,
    workspaceName: "Default",
    environmentId: prodId,
    environmentName: "Production",
  });
  const members = async (segment: string) => {
    const out: string[] = [];
    for await (const k of bed.admin.segmentKeys.list(prodId, segment)) out.push(k);
    return out.sort();
  };
  /** Members of the test's own, applied by the provider. */
  const created = async (memberList?: string[]) => {
    const segment = await freshSegment();
    const program = programFor(segment, memberList);
    const { id, outs } = await p.create((await p.check({}, program)).inputs);
    return { segment, program, id, outs };
  };

  beforeAll(async () => {
    p = await bed.driver(mode, impl, segmentKeysProviderText);
  });

  it("checks: the keys a sorted set, the note kept", async () => {
    expect(await p.check({}, programFor("beta"))).toEqual({
      inputs: {
        workspace: "Default",
        environment: "Production",
        segment: "beta",
        keys: ["ana", "ben", "cy"],
        ...note,
        adopt: false,
      },
      failures: [],
    });
  });

  it("refuses bad input naming each field, with no request", async () => {
    bed.reset();
    const checked = await p.check({}, { ...programFor(""), keys: ["ok", "", "x".repeat(251)], colour: 1 });
    expect(checked.failures).toEqual([
      { property: "segment", reason: "segment must not be empty" },
      { property: "keys[1]", reason: "a key must not be empty" },
      { property: "keys[2]", reason: "a key must be at most 250 characters" },
      { property: "colour", reason: 'unknown property "colour"' },
    ]);
    const tooMany = await p.check({}, programFor("beta", keys(100_001)));
    expect(tooMany.failures).toEqual([
      { property: "keys", reason: "keys: a segment holds at most 100000 members in an environment" },
    ]);
    expect(bed.emu.requests()).toEqual([]);
  });

  it("creates: one activation, then one upload of the members with title and comment", async () => {
    const segment = await freshSegment();
    const inputs = (await p.check({}, programFor(segment))).inputs;
    bed.reset();
    const made = await p.create(inputs);
    expect(made).toEqual({ id: `${prodId}/${segment}`, outs: { ...inputs, ...place() } });
    expect(bed.proxy.writes()).toEqual([
      {
        method: "POST",
        path: `${V2}/segments/${prodId}/${segment}`,
        query: {},
        body: undefined,
        status: 200,
      },
      {
        method: "PUT",
        path: `${V2}/segments/${prodId}/${segment}/uploadKeys`,
        query: { replace: "false" },
        body: { keys: ["ana", "ben", "cy"], ...note },
        status: 200,
      },
    ]);
    expect(await members(segment)).toEqual(["ana", "ben", "cy"]);
  });

  it("reads what it created", async () => {
    const { id, outs } = await created();
    expect(await p.read(id, outs)).toEqual({
      id,
      props: outs,
      inputs: {
        workspace: "Default",
        environment: "Production",
        segment: outs.segment,
        keys: ["ana", "ben", "cy"],
        ...note,
        adopt: false,
      },
    });
  });

  it("reports no change for the same set (reordered, duplicated, by ids) or a new note, with no request", async () => {
    const { segment, id, outs } = await created();
    bed.reset();
    const same = {
      ...programFor(segment, ["ben", "cy", "ana", "cy"]),
      workspace: ws.id,
      environment: prodId,
      title: "another title",
    };
    const news = (await p.check(outs, same)).inputs;
    expect(await p.diff(id, outs, news)).toEqual({
      changes: false,
      replaces: [],
      deleteBeforeReplace: false,
    });
    expect(bed.emu.requests()).toEqual([]);
  });

  it("replaces on another environment or segment, deleting first", async () => {
    const { segment, id, outs } = await created();
    const news = (await p.check(outs, { ...programFor(segment), environment: "Staging" })).inputs;
    expect(await p.diff(id, outs, news)).toEqual({
      changes: true,
      replaces: ["environment"],
      deleteBeforeReplace: true,
    });
  });

  it("a one-key change to a 1,000-member segment is exactly one request", async () => {
    const { segment, id, outs } = await created(keys(1_000));
    const news = (await p.check(outs, programFor(segment, [...keys(1_000), "newcomer"]))).inputs;
    expect(await p.diff(id, outs, news)).toMatchObject({ changes: true, replaces: [] });
    bed.reset();
    const updated = await p.update(id, outs, news);
    expect(bed.proxy.requests()).toEqual([
      {
        method: "PUT",
        path: `${V2}/segments/${prodId}/${segment}/uploadKeys`,
        query: { replace: "false" },
        body: { keys: ["newcomer"], ...note },
        status: 200,
      },
    ]);
    expect(updated.outs).toEqual({ ...outs, keys: [...keys(1_000), "newcomer"].sort() });
    expect((await members(segment)).length).toBe(1_001);
  });

  it("removes and adds in one update: one request each, with the note", async () => {
    const { segment, id, outs } = await created();
    const news = (await p.check(outs, { ...programFor(segment, ["ben", "dee"]), title: "Wave 2" })).inputs;
    bed.reset();
    await p.update(id, outs, news);
    expect(bed.proxy.requests().map((r) => [r.method, r.path, r.body])).toEqual([
      [
        "PUT",
        `${V2}/segments/${prodId}/${segment}/removeKeys`,
        { keys: ["ana", "cy"], ...note, title: "Wave 2" },
      ],
      ["PUT", `${V2}/segments/${prodId}/${segment}/uploadKeys`, { keys: ["dee"], ...note, title: "Wave 2" }],
    ]);
    expect(await members(segment)).toEqual(["ben", "dee"]);
  });

  it("a first apply of 100,000 members is one activation and exactly 10 uploads of 10,000", async () => {
    if (mode !== "direct") return; // the same implementation; the host's half would only move 2 MB twice more
    const segment = await freshSegment();
    const all = keys(100_000);
    const inputs = (await p.check({}, programFor(segment, all))).inputs;
    bed.reset();
    const made = await p.create(inputs);
    const writes = bed.proxy.writes();
    expect(writes.map((w) => `${w.method} ${w.path}`)).toEqual([
      `POST ${V2}/segments/${prodId}/${segment}`,
      ...Array(10).fill(`PUT ${V2}/segments/${prodId}/${segment}/uploadKeys`),
    ]);
    expect(writes.slice(1).map((w) => (w.body as { keys: string[] }).keys.length)).toEqual(
      Array(10).fill(10_000),
    );
    expect((made.outs.keys as string[]).length).toBe(100_000);
    expect(await members(segment)).toEqual(all);
  });

  it("refresh picks up an out-of-band change, and the update from it takes the members back", async () => {
    const { segment, id, outs } = await created();
    await bed.admin.segmentKeys.add(prodId, segment, ["zed"]);
    const read = await p.read(id, outs);
    expect(read.props).toEqual({ ...outs, keys: ["ana", "ben", "cy", "zed"] });
    expect(read.inputs).toMatchObject({ keys: ["ana", "ben", "cy", "zed"] });
    const news = (await p.check(outs, programFor(segment))).inputs;
    const refreshed = read.props as Record<string, unknown>;
    expect(await p.diff(id, refreshed, news)).toMatchObject({ changes: true, replaces: [] });
    bed.reset();
    await p.update(id, refreshed, news);
    expect(bed.sent()).toEqual([`PUT ${V2}/segments/${prodId}/${segment}/removeKeys`]);
    expect(await members(segment)).toEqual(["ana", "ben", "cy"]);
  });

  it("an update leaves a key a colleague added since the recorded state alone", async () => {
    const { segment, id, outs } = await created();
    await bed.admin.segmentKeys.add(prodId, segment, ["colleague"]);
    const news = (await p.check(outs, programFor(segment, ["ana", "ben", "cy", "dee"]))).inputs;
    bed.reset();
    const updated = await p.update(id, outs, news);
    expect(bed.sent()).toEqual([`PUT ${V2}/segments/${prodId}/${segment}/uploadKeys`]);
    expect(updated.outs).toMatchObject({ keys: ["ana", "ben", "cy", "dee"] });
    expect(await members(segment)).toEqual(["ana", "ben", "colleague", "cy", "dee"]);
  });

  it("fails an update of a segment deactivated outside Pulumi, and does not re-create it", async () => {
    const { segment, id, outs } = await created();
    await bed.admin.segmentKeys.deactivate(prodId, segment);
    const news = (await p.check(outs, programFor(segment, ["ana"]))).inputs;
    await expect(p.update(id, outs, news)).rejects.toThrow(
      `segment "${segment}" in environment "Production" of workspace "Default" was deleted outside Pulumi`,
    );
    expect(await bed.admin.segmentKeys.activation(ws.id, prodId, segment)).toBeUndefined();
  });

  it("deletes with one DELETE, deleting again succeeds, and then it reads as gone", async () => {
    const { segment, id, outs } = await created();
    bed.reset();
    await p.delete(id, outs);
    expect(bed.sent()).toEqual([`DELETE ${V2}/segments/${prodId}/${segment}`]);
    await expect(p.delete(id, outs)).resolves.toBeUndefined();
    expect(await p.read(id, outs)).toEqual({ id: undefined, props: undefined, inputs: undefined });
  });

  it("refuses a segment already active unless adopt is set, then sends only the difference", async () => {
    const segment = await freshSegment();
    await bed.admin.segmentKeys.activate(prodId, segment);
    await bed.admin.segmentKeys.add(prodId, segment, ["ana", "old"]);
    await expect(p.create((await p.check({}, programFor(segment))).inputs)).rejects.toThrow(
      `segment "${segment}" active in environment "Production" of workspace "Default" already exists. Set \`adopt: true\``,
    );
    bed.reset();
    const adopted = await p.create((await p.check({}, { ...programFor(segment), adopt: true })).inputs);
    expect(bed.proxy.writes().map((w) => [w.path.split("/").at(-1), w.body])).toEqual([
      ["removeKeys", { keys: ["old"], ...note }],
      ["uploadKeys", { keys: ["ben", "cy"], ...note }],
    ]);
    expect(adopted.outs).toMatchObject({ keys: ["ana", "ben", "cy"], adopt: true });
    expect(await members(segment)).toEqual(["ana", "ben", "cy"]);
  });

  it("recovers an activation whose response was lost without a second activation", async () => {
    const segment = await freshSegment();
    bed.reset();
    bed.proxy.once({ method: "POST", path: new RegExp(`/segments/${prodId}/${segment}$`) }, { lose: true });
    const made = await p.create((await p.check({}, programFor(segment))).inputs);
    expect(bed.proxy.writes().map((w) => `${w.method} ${w.path.split("/").at(-1)}`)).toEqual([
      `POST ${segment}`,
      "PUT uploadKeys",
    ]);
    expect(made.outs).toMatchObject({ keys: ["ana", "ben", "cy"] });
    expect(await members(segment)).toEqual(["ana", "ben", "cy"]);
  });

  it("in a workspace that requires titles and comments: without them the upload says so, with them it goes", async () => {
    const wsName = unique(`Notes-${slug(mode)}`);
    const noted = await bed.admin.workspaces.create({ name: wsName, requiresTitleAndComments: true });
    await bed.admin.environments.create(noted.id, { name: "Production", production: true });
    await bed.admin.segments.create(noted.id, "user", { name: "beta" });
    await bed.admin.segments.create(noted.id, "user", { name: "gamma" });
    const program = { workspace: wsName, environment: "Production", keys: ["ana"] };
    await expect(p.create((await p.check({}, { ...program, segment: "beta" })).inputs)).rejects.toThrow(
      "the workspace requires a title and comment for segment key changes; pass { title, comment }",
    );
    const made = await p.create((await p.check({}, { ...program, segment: "gamma", ...note })).inputs);
    expect(made.outs).toMatchObject({ keys: ["ana"], ...note });
  });

  it("imports by <workspace>/<environment>/<segment>", async () => {
    const { segment, outs } = await created();
    if (mode !== "direct") return; // the import read has no state: the native provider's path
    const read = await impl.read(`Default/Production/${segment}`, {} as never);
    expect(read.id).toBe(`${prodId}/${segment}`);
    expect(read.props).toEqual({ ...outs, title: undefined, comment: undefined, adopt: false });
  });
});
