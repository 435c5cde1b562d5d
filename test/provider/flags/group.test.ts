/**
 * Group lifecycle against the emulator, directly and through the gRPC host: create, read, no-op
 * diff, in-place update (exact PUT body, one write), rename in place, refresh after an
 * out-of-band change and delete, delete, delete again, adopt. Each test makes the group it needs
 * under a name of its own, so it passes alone.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { groupProviderText, impl } from "../../../provider/flags/group";
import { type Driver, MODES } from "../harness";
import { slug, startTestbed, type Testbed, unique } from "../testbed";

let bed: Testbed;
beforeAll(async () => {
  bed = await startTestbed();
});
afterAll(async () => {
  await bed?.stop();
});

describe.each(MODES)("Group (%s)", (mode) => {
  let p: Driver;
  /** A name no other test uses. */
  const fresh = () => unique(`reviewers-${slug(mode)}`);
  /** A group of the test's own, created by the provider. */
  const createdGroup = async (description = "Approve rollouts") => {
    const name = fresh();
    const { id, outs } = await p.create((await p.check({}, { name, description })).inputs);
    return { name, id, outs };
  };

  beforeAll(async () => {
    p = await bed.driver(mode, impl, groupProviderText);
  });

  it("checks and creates", async () => {
    const name = fresh();
    const checked = await p.check({}, { name, description: "Approve rollouts" });
    expect(checked).toEqual({
      inputs: { name, description: "Approve rollouts", adopt: false },
      failures: [],
    });
    bed.proxy.reset();
    const created = await p.create(checked.inputs);
    const id = created.id;
    expect(created.outs).toEqual({ name, description: "Approve rollouts", adopt: false, groupId: id });
    expect(bed.proxy.writes()).toEqual([
      {
        method: "POST",
        path: "/internal/api/v2/groups",
        query: {},
        body: { name, description: "Approve rollouts" },
        status: 200,
      },
    ]);
    expect((await bed.admin.groups.get(id)).name).toBe(name);
  });

  it("reads what it created", async () => {
    const { name, id, outs } = await createdGroup();
    const read = await p.read(id, outs);
    expect(read).toEqual({
      id,
      props: outs,
      inputs: { name, description: "Approve rollouts", adopt: false },
    });
  });

  it("reports no change for the same inputs, with no request", async () => {
    const { name, id, outs } = await createdGroup();
    bed.proxy.reset();
    bed.emu.resetRequests();
    const checked = await p.check(outs, { name, description: "Approve rollouts" });
    expect(await p.diff(id, outs, checked.inputs)).toEqual({
      changes: false,
      replaces: [],
      deleteBeforeReplace: false,
    });
    expect(bed.emu.requests()).toEqual([]);
  });

  it("updates the description in place with one PUT of the whole group", async () => {
    const { name, id, outs } = await createdGroup();
    const news = (await p.check(outs, { name, description: "Approve and ramp" })).inputs;
    expect(await p.diff(id, outs, news)).toEqual({ changes: true, replaces: [], deleteBeforeReplace: false });
    bed.proxy.reset();
    const updated = await p.update(id, outs, news);
    expect(bed.proxy.writes()).toEqual([
      {
        method: "PUT",
        path: `/internal/api/v2/groups/${id}`,
        query: {},
        body: { id, name, description: "Approve and ramp", type: "group" },
        status: 200,
      },
    ]);
    expect(updated.outs).toEqual({ ...outs, description: "Approve and ramp" });
  });

  it("renames in place: nothing replaces a group", async () => {
    const { name, id, outs } = await createdGroup("Approve and ramp");
    const news = (await p.check(outs, { name: `${name}-2`, description: "Approve and ramp" })).inputs;
    expect(await p.diff(id, outs, news)).toEqual({ changes: true, replaces: [], deleteBeforeReplace: false });
    const renamed = (await p.update(id, outs, news)).outs;
    expect(renamed).toMatchObject({ name: `${name}-2`, groupId: id });
    const back = (
      await p.update(id, renamed, (await p.check(renamed, { name, description: "Approve and ramp" })).inputs)
    ).outs;
    expect(back).toEqual(outs);
  });

  it("refresh picks up an out-of-band change, and the next diff shows it", async () => {
    const { name, id, outs } = await createdGroup("Approve and ramp");
    await bed.admin.groups.put(id, { id, name, description: "changed in the UI", type: "group" });
    const read = await p.read(id, outs);
    expect(read.props).toEqual({ ...outs, description: "changed in the UI" });
    expect(read.inputs).toEqual({ name, description: "changed in the UI", adopt: false });
    const news = (await p.check(outs, { name, description: "Approve and ramp" })).inputs;
    expect(await p.diff(id, read.props as Record<string, unknown>, news)).toMatchObject({
      changes: true,
      replaces: [],
    });
    const updated = (await p.update(id, read.props as Record<string, unknown>, news)).outs;
    expect(updated).toEqual(outs);
  });

  it("refuses a rename onto another group's name", async () => {
    const { name, id, outs } = await createdGroup("Approve and ramp");
    const other = await bed.admin.groups.create({ name: `${name}-taken`, description: "" });
    const news = (await p.check(outs, { name: other.name, description: "Approve and ramp" })).inputs;
    await expect(p.update(id, outs, news)).rejects.toThrow(`a group named "${other.name}" already exists`);
    await bed.admin.groups.delete(other.id);
  });

  it("deletes, and deleting again succeeds", async () => {
    const { id, outs } = await createdGroup("Approve and ramp");
    await p.delete(id, outs);
    await expect(bed.admin.groups.get(id)).rejects.toMatchObject({ status: 404 });
    await expect(p.delete(id, outs)).resolves.toBeUndefined();
  });

  it("reports a group deleted out of band as gone", async () => {
    const created = await p.create((await p.check({}, { name: fresh() })).inputs);
    await bed.admin.groups.delete(created.id);
    expect(await p.read(created.id, created.outs)).toEqual({
      id: undefined,
      props: undefined,
      inputs: undefined,
    });
    await expect(p.delete(created.id, created.outs)).resolves.toBeUndefined();
  });

  it("refuses a duplicate name unless adopt is set, then takes the group over", async () => {
    const existing = await bed.admin.groups.create({
      name: `${fresh()}-existing`,
      description: "made by hand",
    });
    const plainInputs = (await p.check({}, { name: existing.name, description: "managed" })).inputs;
    await expect(p.create(plainInputs)).rejects.toThrow(
      `a group named "${existing.name}" already exists. Set \`adopt: true\``,
    );
    const adoptInputs = (await p.check({}, { name: existing.name, description: "managed", adopt: true }))
      .inputs;
    bed.proxy.reset();
    const adopted = await p.create(adoptInputs);
    expect(adopted.id).toBe(existing.id);
    expect(adopted.outs).toEqual({
      name: existing.name,
      description: "managed",
      adopt: true,
      groupId: existing.id,
    });
    expect(bed.proxy.writes().map((w) => `${w.method} ${w.path}`)).toEqual([
      `PUT /internal/api/v2/groups/${existing.id}`,
    ]);
    await p.delete(adopted.id, adopted.outs);
  });
});
