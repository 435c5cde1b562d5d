/**
 * Flag lifecycle against the emulator, directly and through the gRPC host: create (POST, then one
 * PATCH for tags and rollout status), read, no-op diff, in-place update (exact PATCH body, one
 * write per changed field), replacement, refresh after an out-of-band change and delete, delete,
 * delete again, adopt. Each test makes the flag it needs under a name of its own, so it passes alone.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { flagProviderText, impl } from "../../../provider/flags/flag";
import type { RolloutStatus, Workspace } from "../../../sdk/admin/schemas";
import { type Driver, MODES } from "../harness";
import { slug, startTestbed, type Testbed, unique } from "../testbed";

let bed: Testbed;
let ws: Workspace;
let statuses: RolloutStatus[];
const statusId = (name: string) => statuses.find((s) => s.name === name)?.id;

beforeAll(async () => {
  bed = await startTestbed();
  ws = (await bed.admin.workspaces.getByName("Default")) as Workspace;
  statuses = await bed.admin.rolloutStatuses.list(ws.id);
});
afterAll(async () => {
  await bed?.stop();
});

describe.each(MODES)("Flag (%s)", (mode) => {
  let p: Driver;
  /** A name no other test uses. */
  const fresh = () => unique(`checkout-${slug(mode)}`);
  const programFor = (name: string) => ({
    workspace: "Default",
    name,
    description: "One-page checkout",
    tags: ["payments", "web", "payments"],
    rolloutStatus: "Ramping",
  });
  const flagPath = (name: string) => `/internal/api/v2/splits/ws/${ws.id}/${name}`;
  /** A flag of the test's own, created by the provider from the program with `change` applied. */
  const createdFlag = async (change: Record<string, unknown> = {}) => {
    const name = fresh();
    const program = programFor(name);
    const { id, outs } = await p.create((await p.check({}, { ...program, ...change })).inputs);
    return { name, program, id, outs };
  };
  /** The state the first update leaves: the description already moved. */
  const fasterCheckout = { description: "Faster checkout" };

  beforeAll(async () => {
    p = await bed.driver(mode, impl, flagProviderText);
  });

  it("checks: defaults applied, tags a sorted set", async () => {
    const name = fresh();
    expect(await p.check({}, programFor(name))).toEqual({
      inputs: {
        workspace: "Default",
        trafficType: "user",
        name,
        description: "One-page checkout",
        tags: ["payments", "web"],
        rolloutStatus: "Ramping",
        adopt: false,
      },
      failures: [],
    });
  });

  it("creates with a POST and one PATCH for tags and rollout status", async () => {
    const name = fresh();
    const inputs = (await p.check({}, programFor(name))).inputs;
    bed.proxy.reset();
    const created = await p.create(inputs);
    const id = created.id;
    const outs = created.outs;
    expect(outs).toEqual({
      ...inputs,
      flagId: id,
      creationTime: expect.any(Number),
      rolloutStatusId: statusId("Ramping"),
      rolloutStatusTimestamp: expect.any(Number),
      workspaceId: ws.id,
      workspaceName: "Default",
      trafficTypeId: expect.any(String),
      owners: [],
    });
    expect(bed.proxy.writes().map(({ method, path, body }) => ({ method, path, body }))).toEqual([
      {
        method: "POST",
        path: expect.stringMatching(new RegExp(`^/internal/api/v2/splits/ws/${ws.id}/trafficTypes/user/?$`)),
        body: { name, description: "One-page checkout" },
      },
      {
        method: "PATCH",
        path: flagPath(name),
        body: [
          { op: "replace", path: "/tags", value: [{ name: "payments" }, { name: "web" }] },
          { op: "replace", path: "/rolloutStatus/id", value: statusId("Ramping") },
        ],
      },
    ]);
  });

  it("reads what it created", async () => {
    const { name, id, outs } = await createdFlag();
    const read = await p.read(id, outs);
    expect(read.id).toBe(id);
    expect(read.props).toEqual(outs);
    expect(read.inputs).toEqual({
      workspace: "Default",
      trafficType: "user",
      name,
      description: "One-page checkout",
      tags: ["payments", "web"],
      rolloutStatus: "Ramping",
      adopt: false,
    });
  });

  it("reports no change for the same meaning (workspace by id, tags reordered), with no request", async () => {
    const { program, id, outs } = await createdFlag();
    bed.emu.resetRequests();
    const news = (await p.check(outs, { ...program, workspace: ws.id, tags: ["web", "payments"] })).inputs;
    expect(await p.diff(id, outs, news)).toEqual({
      changes: false,
      replaces: [],
      deleteBeforeReplace: false,
    });
    const withoutStatus = (await p.check(outs, { ...program, rolloutStatus: undefined })).inputs;
    expect(await p.diff(id, outs, withoutStatus)).toEqual({
      changes: false,
      replaces: [],
      deleteBeforeReplace: false,
    });
    expect(bed.emu.requests()).toEqual([]);
  });

  it("updates one field in place with exactly one write: one replace op", async () => {
    const { name, program, id, outs } = await createdFlag();
    const news = (await p.check(outs, { ...program, description: "Faster checkout" })).inputs;
    expect(await p.diff(id, outs, news)).toEqual({ changes: true, replaces: [], deleteBeforeReplace: false });
    bed.proxy.reset();
    const updated = await p.update(id, outs, news);
    expect(bed.proxy.writes().map(({ method, path, body }) => ({ method, path, body }))).toEqual([
      {
        method: "PATCH",
        path: flagPath(name),
        body: [{ op: "replace", path: "/description", value: "Faster checkout" }],
      },
    ]);
    expect(updated.outs).toEqual({ ...outs, description: "Faster checkout" });
  });

  it("moves the rollout status and tags in one PATCH; the timestamp follows", async () => {
    const { program, id, outs } = await createdFlag(fasterCheckout);
    const news = (
      await p.check(outs, {
        ...program,
        description: "Faster checkout",
        rolloutStatus: "Ramped",
        tags: ["web"],
      })
    ).inputs;
    bed.proxy.reset();
    const updated = await p.update(id, outs, news);
    expect(bed.proxy.writes().map(({ method, body }) => ({ method, body }))).toEqual([
      {
        method: "PATCH",
        body: [
          { op: "replace", path: "/tags", value: [{ name: "web" }] },
          { op: "replace", path: "/rolloutStatus/id", value: statusId("Ramped") },
        ],
      },
    ]);
    expect(updated.outs).toMatchObject({
      rolloutStatus: "Ramped",
      rolloutStatusId: statusId("Ramped"),
      tags: ["web"],
    });
    expect(updated.outs.rolloutStatusTimestamp).toBeGreaterThanOrEqual(outs.rolloutStatusTimestamp as number);
  });

  it.each([
    ["name", (name: string) => ({ name: `${name}-v2` })],
    ["trafficType", () => ({ trafficType: "account" })],
    ["workspace", () => ({ workspace: "Elsewhere" })],
  ])("replaces on a %s change, deleting first", async (field, change) => {
    const { name, program, id, outs } = await createdFlag({
      ...fasterCheckout,
      rolloutStatus: "Ramped",
      tags: ["web"],
    });
    const news = (await p.check(outs, { ...program, rolloutStatus: "Ramped", ...change(name) })).inputs;
    expect(await p.diff(id, outs, news)).toEqual({
      changes: true,
      replaces: [field],
      deleteBeforeReplace: true,
    });
  });

  it("sets owners in the create's one PATCH, compares them as a set, and changes them with one replace", async () => {
    const team = await bed.admin.groups.create({
      name: unique(`owners-${slug(mode)}`),
      description: "flag owners",
    });
    const other = await bed.admin.groups.create({
      name: unique(`owners2-${slug(mode)}`),
      description: "more owners",
    });
    const name = fresh();
    const owners = [
      { type: "group", id: team.id },
      { type: "group", id: team.id },
    ];
    const inputs = (await p.check({}, { ...programFor(name), owners })).inputs;
    expect(inputs.owners).toEqual([{ type: "group", id: team.id }]);
    bed.proxy.reset();
    const { id, outs } = await p.create(inputs);
    expect(bed.proxy.writes().map(({ method, body }) => ({ method, body }))[1]).toEqual({
      method: "PATCH",
      body: [
        { op: "replace", path: "/tags", value: [{ name: "payments" }, { name: "web" }] },
        { op: "replace", path: "/rolloutStatus/id", value: statusId("Ramping") },
        { op: "replace", path: "/owners", value: [{ id: team.id, type: "group" }] },
      ],
    });
    expect(outs.owners).toEqual([{ type: "group", id: team.id }]);
    expect((await bed.admin.flags.get(ws.id, name)).owners).toEqual([{ id: team.id, type: "group" }]);
    // Omitted: not managed, no change.
    const unmanaged = (await p.check(outs, programFor(name))).inputs;
    expect((await p.diff(id, outs, unmanaged)).changes).toBe(false);
    // Another group added: one PATCH with one replace of the whole set.
    const both = [
      { type: "group", id: other.id },
      { type: "group", id: team.id },
    ];
    const news = (await p.check(outs, { ...programFor(name), owners: both })).inputs;
    expect(await p.diff(id, outs, news)).toEqual({ changes: true, replaces: [], deleteBeforeReplace: false });
    bed.proxy.reset();
    const updated = await p.update(id, outs, news);
    const want = [...both].sort((a, b) => (a.id < b.id ? -1 : 1));
    expect(bed.proxy.writes().map(({ method, path, body }) => ({ method, path, body }))).toEqual([
      {
        method: "PATCH",
        path: flagPath(name),
        body: [{ op: "replace", path: "/owners", value: want.map((o) => ({ id: o.id, type: o.type })) }],
      },
    ]);
    expect(updated.outs.owners).toEqual(want);
  });

  it("refuses an owner of an unknown type at check, naming the field, and an unknown id at the service", async () => {
    const name = fresh();
    const checked = await p.check({}, { ...programFor(name), owners: [{ type: "team", id: "x" }] });
    expect(checked.failures).toEqual([
      { property: "owners[0].type", reason: 'owners[].type must be "user" or "group"' },
    ]);
    const inputs = (
      await p.check({}, { ...programFor(name), owners: [{ type: "group", id: "no-such-group" }] })
    ).inputs;
    await expect(p.create(inputs)).rejects.toThrow(/owners\[0\]\.id: no group with id no-such-group/);
  });

  it("carries out a replacement the way the engine does: delete, then create", async () => {
    const { name, program, id, outs } = await createdFlag({
      ...fasterCheckout,
      rolloutStatus: "Ramped",
      tags: ["web"],
    });
    const news = (await p.check(outs, { ...program, trafficType: "account" })).inputs;
    await p.delete(id, outs);
    const created = await p.create(news);
    expect(created.id).not.toBe(id);
    expect(created.outs).toMatchObject({ trafficType: "account", name });
  });

  it("refresh picks up an out-of-band change; the next diff shows it", async () => {
    const { name, program, id, outs } = await createdFlag({ trafficType: "account" });
    await bed.admin.flags.patch(ws.id, name, [
      { op: "replace", path: "/description", value: "edited in the UI" },
    ]);
    const read = await p.read(id, outs);
    expect(read.props).toEqual({ ...outs, description: "edited in the UI" });
    const news = (await p.check(outs, { ...program, trafficType: "account" })).inputs;
    expect(await p.diff(id, read.props as Record<string, unknown>, news)).toMatchObject({
      changes: true,
      replaces: [],
    });
    const updated = (await p.update(id, read.props as Record<string, unknown>, news)).outs;
    expect(updated.description).toBe("One-page checkout");
  });

  it("reports a flag deleted out of band as gone; delete and delete again succeed", async () => {
    const { name, id, outs } = await createdFlag({ trafficType: "account" });
    await bed.admin.flags.delete(ws.id, name);
    expect(await p.read(id, outs)).toEqual({ id: undefined, props: undefined, inputs: undefined });
    await expect(p.delete(id, outs)).resolves.toBeUndefined();
    await expect(p.delete(id, outs)).resolves.toBeUndefined();
  });

  it("deletes a flag it holds", async () => {
    const name = fresh();
    const created = await p.create((await p.check({}, programFor(name))).inputs);
    await p.delete(created.id, created.outs);
    await expect(bed.admin.flags.get(ws.id, name)).rejects.toMatchObject({ status: 404 });
  });

  it("recovers a create whose response was lost without creating a duplicate", async () => {
    const name = fresh();
    bed.proxy.reset();
    bed.proxy.once({ method: "POST", path: /\/trafficTypes\/user\/?$/ }, { lose: true });
    const created = await p.create((await p.check({}, programFor(name))).inputs);
    expect(bed.proxy.writes().map((w) => w.method)).toEqual(["POST", "PATCH"]);
    expect(created.outs).toMatchObject({
      name,
      tags: ["payments", "web"],
      rolloutStatus: "Ramping",
      adopt: false,
    });
    const same: string[] = [];
    for await (const f of bed.admin.flags.list(ws.id, { name })) same.push(f.id);
    expect(same).toEqual([created.id]);
    await p.delete(created.id, created.outs);
  });

  it("fails on an unknown rollout status at create without writing, listing the valid ones", async () => {
    const inputs = { ...(await p.check({}, programFor(fresh()))).inputs, rolloutStatus: "Shipped" };
    bed.proxy.reset();
    await expect(p.create(inputs)).rejects.toThrow(
      'rollout status "Shipped" not found in workspace "Default"; valid rollout statuses: "Pre-Production", "Ramping"',
    );
    expect(bed.proxy.writes()).toEqual([]);
  });

  it("refuses an existing flag unless adopt is set, then takes it over", async () => {
    const name = fresh();
    const program = programFor(name);
    await bed.admin.flags.create(ws.id, "user", { name, description: "made by hand" });
    await expect(p.create((await p.check({}, program)).inputs)).rejects.toThrow(
      `a flag named "${name}" in workspace "Default" already exists. Set \`adopt: true\``,
    );
    bed.proxy.reset();
    const adopted = await p.create((await p.check({}, { ...program, adopt: true })).inputs);
    expect(adopted.outs).toMatchObject({
      description: "One-page checkout",
      tags: ["payments", "web"],
      rolloutStatus: "Ramping",
      adopt: true,
    });
    expect(bed.proxy.writes().map((w) => `${w.method} ${w.path}`)).toEqual([`PATCH ${flagPath(name)}`]);
    await p.delete(adopted.id, adopted.outs);
  });
});
