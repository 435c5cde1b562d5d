/**
 * Restriction lifecycle against the emulator, directly and through the gRPC host: check (failures
 * naming the field, no request), create (a read of the workspace's restriction, then one PUT),
 * read, viewers compared as a set, a guarded update (one PUT of the whole: the changed field
 * desired, the rest live; a colleague's edit of the same field refused naming it), refresh after
 * the workspace was opened out of band, delete (a PUT back to open), delete again, adopt, a
 * create whose answer was lost, import by `<workspace>` and `lookup`.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { impl, restrictionProviderText } from "../../../provider/flags/restriction";
import { KIND_LIST } from "../../../provider/kinds";
import type { Group, Workspace } from "../../../sdk/admin/schemas";
import { type Driver, MODES } from "../harness";
import { slug, startTestbed, type Testbed, unique } from "../testbed";

let bed: Testbed;
let ana: Group;
let bob: Group;
const PATH = "/internal/api/v2/restrictions";

beforeAll(async () => {
  bed = await startTestbed();
  ana = await bed.admin.groups.create({ name: unique("restriction-ana") });
  bob = await bed.admin.groups.create({ name: unique("restriction-bob") });
});
afterAll(async () => {
  await bed?.stop();
});

const group = (g: Group) => ({ type: "group" as const, id: g.id });

describe.each(MODES)("Restriction (%s)", (mode) => {
  let p: Driver;
  /** A workspace of the test's own: a workspace has one restriction. */
  const freshWorkspace = async (): Promise<Workspace> =>
    bed.admin.workspaces.create({ name: unique(`restricted-${slug(mode)}`) });
  const programFor = (ws: Workspace, viewers = [group(ana)]) => ({ workspace: ws.name, viewers });
  /** A restriction of a new workspace, created by the provider. */
  const created = async (viewers = [group(ana)]) => {
    const ws = await freshWorkspace();
    const { id, outs } = await p.create((await p.check({}, programFor(ws, viewers))).inputs);
    return { ws, id, outs };
  };
  /** Deletes a workspace out of band: its `user` traffic type first (the service refuses otherwise). */
  const deleteWorkspace = async (ws: Workspace) => {
    for (const tt of await bed.admin.trafficTypes.list(ws.id)) await bed.admin.trafficTypes.delete(tt.id);
    await bed.admin.workspaces.delete(ws.id);
  };
  /** What the emulator lists for the workspace. */
  const listed = async (ws: Workspace) => {
    const out: unknown[] = [];
    for await (const r of bed.admin.restrictions.list("workspace", ws.id)) out.push(r);
    return out;
  };

  beforeAll(async () => {
    p = await bed.driver(mode, impl, restrictionProviderText);
  });

  it("refuses bad input naming each field, with no request", async () => {
    bed.reset();
    const checked = await p.check(
      {},
      { workspace: "", view: "yes", viewers: [{ type: "team", id: "" }, { type: "user" }], size: 2 },
    );
    expect(checked.failures).toEqual([
      { property: "workspace", reason: "workspace must not be empty" },
      { property: "view", reason: "view must be a boolean" },
      { property: "viewers[0].type", reason: "type must be user or group" },
      { property: "viewers[0].id", reason: "id must not be empty" },
      { property: "viewers[1].id", reason: "id must be a string" },
      { property: "size", reason: 'unknown property "size"' },
    ]);
    const open = await p.check({}, { workspace: "Default", view: false, viewers: [] });
    expect(open.failures).toEqual([
      {
        property: "view",
        reason:
          "view: false with no viewers is a workspace open to everyone, which is no restriction: remove the Restriction instead",
      },
    ]);
    expect(bed.emu.requests()).toEqual([]);
  });

  it("checks viewers as a set: sorted by type and id, repetitions dropped; view defaults to true", async () => {
    const checked = await p.check(
      {},
      { workspace: "Default", viewers: [group(bob), { type: "user", id: "u1" }, group(ana), group(bob)] },
    );
    expect(checked.failures ?? []).toEqual([]);
    expect(checked.inputs).toEqual({
      workspace: "Default",
      view: true,
      viewers: [
        ...[group(ana), group(bob)].sort((a, b) => (a.id < b.id ? -1 : 1)),
        { type: "user", id: "u1" },
      ],
      adopt: false,
    });
  });

  it("creates with a read of the workspace's restriction and one PUT", async () => {
    const ws = await freshWorkspace();
    const inputs = (await p.check({}, programFor(ws))).inputs;
    bed.reset();
    const made = await p.create(inputs);
    expect(made).toEqual({
      id: ws.id,
      outs: {
        workspace: ws.name,
        view: true,
        viewers: [group(ana)],
        adopt: false,
        restrictionId: expect.any(String),
        workspaceId: ws.id,
        workspaceName: ws.name,
      },
    });
    expect(bed.proxy.writes()).toEqual([
      {
        method: "PUT",
        path: PATH,
        query: {},
        body: {
          resource: { id: ws.id, type: "workspace" },
          operations: { view: true },
          resourcePermissions: { view: [{ id: ana.id, type: "group" }] },
        },
        status: 200,
      },
    ]);
    expect(bed.sent().filter((s) => s.includes("restrictions"))).toEqual([`GET ${PATH}`, `PUT ${PATH}`]);
    expect(await listed(ws)).toEqual([
      {
        id: made.outs.restrictionId,
        type: "restriction",
        resource: { id: ws.id, type: "workspace", name: ws.name },
        operations: { view: true },
        resourcePermissions: { view: [{ id: ana.id, type: "group" }] },
      },
    ]);
  });

  it("reads what it created; the workspace by id and the viewers in another order are no change, with no request", async () => {
    const { ws, id, outs } = await created([group(ana), group(bob)]);
    expect(await p.read(id, outs)).toEqual({
      id: ws.id,
      props: outs,
      inputs: { workspace: ws.name, view: true, viewers: outs.viewers, adopt: false },
    });
    bed.reset();
    const news = (await p.check(outs, { workspace: ws.id, viewers: [group(bob), group(ana), group(bob)] }))
      .inputs;
    expect(await p.diff(id, outs, news)).toEqual({
      changes: false,
      replaces: [],
      deleteBeforeReplace: false,
    });
    expect(bed.emu.requests()).toEqual([]);
  });

  it("replaces on another workspace; view and viewers update in place", async () => {
    const { id, outs } = await created();
    const other = (await p.check(outs, { workspace: "Default", viewers: [group(ana)] })).inputs;
    expect(await p.diff(id, outs, other)).toEqual({
      changes: true,
      replaces: ["workspace"],
      deleteBeforeReplace: false,
    });
    const viewers = (await p.check(outs, { workspace: outs.workspace, view: false, viewers: [group(bob)] }))
      .inputs;
    expect(await p.diff(id, outs, viewers)).toEqual({
      changes: true,
      replaces: [],
      deleteBeforeReplace: false,
    });
  });

  it("updates viewers with a read and one PUT of the whole, keeping a colleague's view", async () => {
    const { ws, id, outs } = await created();
    // A colleague lets everyone view, keeping the viewers.
    await bed.admin.restrictions.put({
      resource: { id: ws.id, type: "workspace" },
      operations: { view: false },
      resourcePermissions: { view: [{ id: ana.id, type: "group" }] },
    });
    const news = (await p.check(outs, programFor(ws, [group(bob)]))).inputs;
    bed.reset();
    const { outs: after } = await p.update(id, outs, news);
    expect(bed.proxy.writes()).toEqual([
      {
        method: "PUT",
        path: PATH,
        query: {},
        body: {
          resource: { id: ws.id, type: "workspace" },
          operations: { view: false },
          resourcePermissions: { view: [{ id: bob.id, type: "group" }] },
        },
        status: 200,
      },
    ]);
    expect(bed.sent()).toEqual([`GET ${PATH}`, `PUT ${PATH}`]);
    expect(after).toEqual({ ...outs, view: false, viewers: [group(bob)] });
  });

  it("refuses an update of viewers a colleague changed, naming the field, with nothing written", async () => {
    const { ws, id, outs } = await created();
    await bed.admin.restrictions.put({
      resource: { id: ws.id, type: "workspace" },
      operations: { view: true },
      resourcePermissions: { view: [{ id: "u-colleague", type: "user" }] },
    });
    const news = (await p.check(outs, programFor(ws, [group(bob)]))).inputs;
    bed.reset();
    await expect(p.update(id, outs, news)).rejects.toThrow(
      `the restriction of workspace "${ws.name}" was changed outside Pulumi since its state was recorded, in a field this update changes:\n` +
        `  viewers: recorded [{"id":"${ana.id}","type":"group"}], live [{"id":"u-colleague","type":"user"}], desired [{"id":"${bob.id}","type":"group"}]\n` +
        "Nothing was written.",
    );
    expect(bed.proxy.writes()).toEqual([]);
  });

  it("refuses an update that would leave a colleague's view: false with no viewers, with nothing written", async () => {
    const { ws, id, outs } = await created();
    await bed.admin.restrictions.put({
      resource: { id: ws.id, type: "workspace" },
      operations: { view: false },
      resourcePermissions: { view: [{ id: ana.id, type: "group" }] },
    });
    const news = (await p.check(outs, programFor(ws, []))).inputs;
    bed.reset();
    await expect(p.update(id, outs, news)).rejects.toThrow(
      `the restriction of workspace "${ws.name}": the update would leave view false (live) with no viewers, which opens the workspace to everyone; nothing was written.`,
    );
    expect(bed.proxy.writes()).toEqual([]);
  });

  it("refresh reports a workspace opened out of band as gone, and one deleted out of band", async () => {
    const { ws, id, outs } = await created();
    await bed.admin.restrictions.put({
      resource: { id: ws.id, type: "workspace" },
      operations: { view: false },
      resourcePermissions: { view: [] },
    });
    expect(await p.read(id, outs)).toEqual({ id: undefined, props: undefined, inputs: undefined });
    const again = await created();
    await deleteWorkspace(again.ws);
    expect(await p.read(again.id, again.outs)).toEqual({
      id: undefined,
      props: undefined,
      inputs: undefined,
    });
  });

  it("an update of a restriction opened out of band refuses saying it is gone, with nothing written", async () => {
    const { ws, id, outs } = await created();
    await p.delete(id, outs);
    const news = (await p.check(outs, programFor(ws, [group(bob)]))).inputs;
    bed.reset();
    await expect(p.update(id, outs, news)).rejects.toThrow(
      `the restriction of workspace "${ws.name}" was deleted outside Pulumi since its state was recorded; nothing was written.`,
    );
    expect(bed.proxy.writes()).toEqual([]);
  });

  it("deletes with one PUT back to open; deleting again, or after the workspace is gone, succeeds", async () => {
    const { ws, id, outs } = await created();
    bed.reset();
    await p.delete(id, outs);
    expect(bed.proxy.writes()).toEqual([
      {
        method: "PUT",
        path: PATH,
        query: {},
        body: {
          resource: { id: ws.id, type: "workspace" },
          operations: { view: false },
          resourcePermissions: { view: [] },
        },
        status: 200,
      },
    ]);
    expect(await listed(ws)).toEqual([]);
    await expect(p.delete(id, outs)).resolves.toBeUndefined();
    await deleteWorkspace(ws);
    bed.reset();
    await expect(p.delete(id, outs)).resolves.toBeUndefined();
    expect(bed.proxy.writes().map((w) => `${w.method} ${w.path} ${w.status}`)).toEqual([`PUT ${PATH} 404`]);
  });

  it("refuses a workspace restricted otherwise unless adopt is set, then writes the declared one", async () => {
    const ws = await freshWorkspace();
    await bed.admin.restrictions.put({
      resource: { id: ws.id, type: "workspace" },
      operations: { view: true },
      resourcePermissions: { view: [{ id: bob.id, type: "group" }] },
    });
    bed.reset();
    await expect(p.create((await p.check({}, programFor(ws))).inputs)).rejects.toThrow(
      `the restriction of workspace "${ws.name}" already exists (view true, viewers group/${bob.id}), not view true, viewers group/${ana.id}. Set \`adopt: true\``,
    );
    expect(bed.proxy.writes()).toEqual([]);
    const adopted = await p.create((await p.check({}, { ...programFor(ws), adopt: true })).inputs);
    expect(adopted.outs).toMatchObject({ viewers: [group(ana)], adopt: true });
    expect(
      bed.proxy.writes().map((w) => (w.body as { resourcePermissions: unknown }).resourcePermissions),
    ).toEqual([{ view: [{ id: ana.id, type: "group" }] }]);
  });

  it("refuses an equal restriction made elsewhere unless adopt, and adopts it with no write", async () => {
    const ws = await freshWorkspace();
    const existing = await bed.admin.restrictions.put({
      resource: { id: ws.id, type: "workspace" },
      operations: { view: true },
      resourcePermissions: { view: [{ id: ana.id, type: "group", name: "Ana" }] },
    });
    bed.reset();
    // Another stack's (or a person's) restriction: a destroy here would open the workspace under it.
    await expect(p.create((await p.check({}, programFor(ws))).inputs)).rejects.toThrow(
      `the restriction of workspace "${ws.name}" already exists (view true, viewers group/${ana.id}). Set \`adopt: true\``,
    );
    const made = await p.create((await p.check({}, { ...programFor(ws), adopt: true })).inputs);
    expect(made).toEqual({
      id: ws.id,
      outs: {
        workspace: ws.name,
        view: true,
        viewers: [group(ana)],
        adopt: true,
        restrictionId: existing.id,
        workspaceId: ws.id,
        workspaceName: ws.name,
      },
    });
    expect(bed.proxy.writes()).toEqual([]);
  });

  it("a create whose answer was lost ends with the one restriction declared", async () => {
    const ws = await freshWorkspace();
    bed.reset();
    bed.proxy.once({ method: "PUT", path: /\/restrictions$/ }, { lose: true });
    const made = await p.create((await p.check({}, programFor(ws))).inputs);
    expect(bed.proxy.writes().map((w) => `${w.method} ${w.path}`)).toEqual([`PUT ${PATH}`, `PUT ${PATH}`]);
    expect(await listed(ws)).toEqual([
      {
        id: made.outs.restrictionId,
        type: "restriction",
        resource: { id: ws.id, type: "workspace", name: ws.name },
        operations: { view: true },
        resourcePermissions: { view: [{ id: ana.id, type: "group" }] },
      },
    ]);
  });

  it("imports by <workspace>, by name or id", async () => {
    const { ws, id, outs } = await created();
    if (mode !== "direct") return; // the import read has no state: the native provider's path
    const expected = {
      id,
      props: outs,
      inputs: { workspace: ws.name, view: true, viewers: [group(ana)], adopt: false },
    };
    expect(await impl.read(ws.name, {} as never)).toEqual(expected);
    expect((await impl.read(ws.id, {} as never)).props).toEqual({ ...outs, workspace: ws.id });
  });

  it("lookup finds a restricted workspace, and none for an open one", async () => {
    const { ws, id, outs } = await created();
    if (mode !== "direct") return; // `flagstack recover` calls the implementation
    const inputs = (await p.check({}, programFor(ws))).inputs as never;
    expect(await impl.lookup(inputs)).toEqual({});
    await p.delete(id, outs);
    expect(await impl.lookup(inputs)).toBeUndefined();
  });

  it("is one line of the list of kinds, importable by <workspace>", () => {
    expect(KIND_LIST.find((k) => k.name === "Restriction")).toMatchObject({
      name: "Restriction",
      token: "pulumi-nodejs:dynamic/flagstack:Restriction",
      nativeToken: "flagstack:index:Restriction",
      area: "flags",
      replaceOnChange: ["workspace"],
      importId: { form: "<workspace>", example: "Default" },
    });
  });
});
