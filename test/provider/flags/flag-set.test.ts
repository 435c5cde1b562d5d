/**
 * FlagSet lifecycle against the emulator, directly and through the gRPC host: check (failures
 * naming the field, no request), create (one POST to the v3 API), read, no-op diff, replacement
 * (the API updates nothing), refresh after an out-of-band change, delete, delete again, gone,
 * adopt, and a create whose response was lost.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { flagSetProviderText, impl } from "../../../provider/flags/flag-set";
import type { Workspace } from "../../../sdk/admin/schemas";
import { type Driver, MODES } from "../harness";
import { slug, startTestbed, type Testbed, unique } from "../testbed";

let bed: Testbed;
let ws: Workspace;
const V3 = "/internal/api/v3";

beforeAll(async () => {
  bed = await startTestbed();
  ws = (await bed.admin.workspaces.getByName("Default")) as Workspace;
});
afterAll(async () => {
  await bed?.stop();
});

describe.each(MODES)("FlagSet (%s)", (mode) => {
  let p: Driver;
  /** A name no other test uses. */
  const fresh = () => unique(`web.${slug(mode)}`, ".");
  const programFor = (name: string) => ({ workspace: "Default", name, description: "Flags of the web app" });
  /** A flag set of the test's own, created by the provider. */
  const createdSet = async () => {
    const name = fresh();
    const { id, outs } = await p.create((await p.check({}, programFor(name))).inputs);
    return { name, id, outs };
  };

  beforeAll(async () => {
    p = await bed.driver(mode, impl, flagSetProviderText);
  });

  it("refuses bad input naming each field, with no request", async () => {
    bed.reset();
    const checked = await p.check(
      {},
      { workspace: "Default", name: "Web App", description: "x".repeat(256), size: 2 },
    );
    expect(checked.failures).toEqual([
      { property: "name", reason: "name must start with a-z or 0-9 and use only a-z, 0-9, '_' and '.'" },
      { property: "description", reason: "description must be at most 255 characters" },
      { property: "size", reason: 'unknown property "size"' },
    ]);
    expect(bed.emu.requests()).toEqual([]);
  });

  it("creates with one POST to the v3 API", async () => {
    const name = fresh();
    const inputs = (await p.check({}, programFor(name))).inputs;
    expect(inputs).toEqual({ ...programFor(name), adopt: false });
    bed.reset();
    const made = await p.create(inputs);
    expect(made).toEqual({
      id: made.id,
      outs: {
        ...inputs,
        flagSetId: made.id,
        createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        workspaceId: ws.id,
        workspaceName: "Default",
      },
    });
    expect(bed.proxy.writes()).toEqual([
      {
        method: "POST",
        path: `${V3}/flag-sets`,
        query: {},
        body: { name, description: "Flags of the web app", workspace: { id: ws.id, type: "WORKSPACE" } },
        status: 200,
      },
    ]);
  });

  it("reads what it created, and the same meaning (workspace by id) is no change, with no request", async () => {
    const { name, id, outs } = await createdSet();
    expect(await p.read(id, outs)).toEqual({
      id,
      props: outs,
      inputs: { ...programFor(name), adopt: false },
    });
    bed.reset();
    const news = (await p.check(outs, { ...programFor(name), workspace: ws.id })).inputs;
    expect(await p.diff(id, outs, news)).toEqual({
      changes: false,
      replaces: [],
      deleteBeforeReplace: false,
    });
    expect(bed.emu.requests()).toEqual([]);
  });

  it("replaces on a new description or name (the API updates nothing), deleting first", async () => {
    const { name, id, outs } = await createdSet();
    const news = (await p.check(outs, { ...programFor(`${name}.2`), description: "Web and mobile" })).inputs;
    expect(await p.diff(id, outs, news)).toEqual({
      changes: true,
      replaces: ["name", "description"],
      deleteBeforeReplace: true,
    });
  });

  it("an update changes only what the program says of itself, with no write", async () => {
    const { name, id, outs } = await createdSet();
    const news = (await p.check(outs, { ...programFor(name), adopt: true })).inputs;
    bed.reset();
    expect((await p.update(id, outs, news)).outs).toEqual({ ...outs, adopt: true });
    expect(bed.proxy.writes()).toEqual([]);
  });

  it("refresh reports a flag set deleted out of band as gone", async () => {
    const { id, outs } = await createdSet();
    await bed.admin.flagSets.delete(id);
    expect(await p.read(id, outs)).toEqual({ id: undefined, props: undefined, inputs: undefined });
  });

  it("deletes with one DELETE, and deleting again succeeds", async () => {
    const { id, outs } = await createdSet();
    bed.reset();
    await p.delete(id, outs);
    expect(bed.sent()).toEqual([`DELETE ${V3}/flag-sets/${id}`]);
    await expect(bed.admin.flagSets.get(id)).rejects.toMatchObject({ status: 404 });
    await expect(p.delete(id, outs)).resolves.toBeUndefined();
  });

  it("refuses an existing flag set unless adopt is set, then takes it over with no write", async () => {
    const name = fresh();
    const existing = await bed.admin.flagSets.create({
      name,
      description: "Flags of the web app",
      workspace: { id: ws.id },
    });
    await expect(p.create((await p.check({}, programFor(name))).inputs)).rejects.toThrow(
      `a flag set named "${name}" in workspace "Default" already exists. Set \`adopt: true\``,
    );
    bed.reset();
    const adopted = await p.create((await p.check({}, { ...programFor(name), adopt: true })).inputs);
    expect(adopted).toMatchObject({ id: existing.id, outs: { name, adopt: true, flagSetId: existing.id } });
    expect(bed.proxy.writes()).toEqual([]);
  });

  it("refuses to adopt a flag set whose description differs", async () => {
    const name = fresh();
    await bed.admin.flagSets.create({ name, description: "made by hand", workspace: { id: ws.id } });
    await expect(p.create((await p.check({}, { ...programFor(name), adopt: true })).inputs)).rejects.toThrow(
      `a flag set named "${name}" in workspace "Default" exists with description "made by hand", not "Flags of the web app"`,
    );
  });

  it("recovers a create whose response was lost without creating a duplicate", async () => {
    const name = fresh();
    bed.reset();
    bed.proxy.once({ method: "POST", path: /\/flag-sets$/ }, { lose: true });
    const made = await p.create((await p.check({}, programFor(name))).inputs);
    expect(bed.proxy.writes().map((w) => `${w.method} ${w.path}`)).toEqual([`POST ${V3}/flag-sets`]);
    const same: string[] = [];
    for await (const f of bed.admin.flagSets.list(ws.id)) if (f.name === name) same.push(f.id);
    expect(same).toEqual([made.id]);
  });

  it("imports by <workspace>/<name>", async () => {
    const { name, id, outs } = await createdSet();
    if (mode !== "direct") return; // the import read has no state: the native provider's path
    expect(await impl.read(`Default/${name}`, {} as never)).toEqual({
      id,
      props: outs,
      inputs: { ...programFor(name), adopt: false },
    });
  });
});
