/**
 * Workspace lifecycle against the emulator, directly and through the gRPC host: check refusals
 * naming the field with no request, create (exact POST), no-op diff, rename and the title rule in
 * one guarded PATCH, refresh after an out-of-band change, an update refused when the field was
 * changed outside Pulumi, delete after its traffic types, gone, adopt and a lost create answer.
 * A Harness project is its FME workspace (issue 38): the outputs name the project's organization
 * and identifier, from the service's answer, and only on a project's workspace.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { impl, workspaceProviderText } from "../../../provider/flags/workspace";
import { type Driver, MODES, type Mode } from "../harness";
import { expectNoChange } from "../no-change";
import { createProject, itRefusesWithNoRequest, slug, startTestbed, type Testbed, unique } from "../testbed";

const V2 = "/internal/api/v2";
let bed: Testbed;
let drivers: Record<Mode, Driver>;
beforeAll(async () => {
  bed = await startTestbed();
  drivers = await bed.drivers(impl, workspaceProviderText);
});
afterAll(async () => {
  await bed?.stop();
});

itRefusesWithNoRequest(
  [
    ["an empty name", { name: "" }, "name", "name must not be empty"],
    [
      "a non-boolean title rule",
      { name: "Payments", requiresTitleAndComments: "yes" },
      "requiresTitleAndComments",
      "expected boolean",
    ],
    ["an unknown input", { name: "Payments", owner: "me" }, "owner", 'unknown property "owner"'],
  ],
  () => ({ bed, drivers }),
);

describe.each(MODES)("Workspace (%s)", (mode) => {
  let p: Driver;
  const fresh = () => unique(`Payments-${slug(mode)}`);
  const created = async (extra: Record<string, unknown> = {}) => {
    const name = fresh();
    const { id, outs } = await p.create((await p.check({}, { name, ...extra })).inputs);
    return { name, id, outs };
  };
  beforeAll(() => {
    p = drivers[mode];
  });

  it("creates with one POST, reads it back, and reports no change for the same inputs", async () => {
    const name = fresh();
    const inputs = (await p.check({}, { name })).inputs;
    expect(inputs).toEqual({ name, requiresTitleAndComments: false, adopt: false });
    bed.reset();
    const { id, outs } = await p.create(inputs);
    expect(bed.proxy.writes()).toEqual([
      {
        method: "POST",
        path: `${V2}/workspaces`,
        query: {},
        body: { name, requiresTitleAndComments: false },
        status: 200,
      },
    ]);
    expect(outs).toEqual({ ...inputs, workspaceId: id });
    expect(await p.read(id, outs)).toEqual({ id, props: outs, inputs });
    await expectNoChange(bed, p, id, outs, inputs);
  });

  it("renames and requires titles in one guarded PATCH", async () => {
    const { name, id, outs } = await created();
    const news = (await p.check(outs, { name: `${name}-x`, requiresTitleAndComments: true })).inputs;
    expect(await p.diff(id, outs, news)).toEqual({ changes: true, replaces: [], deleteBeforeReplace: false });
    bed.reset();
    const updated = await p.update(id, outs, news);
    expect(bed.proxy.writes()).toEqual([
      {
        method: "PATCH",
        path: `${V2}/workspaces/${id}`,
        query: {},
        body: [
          { op: "test", path: "/name", value: name },
          { op: "replace", path: "/name", value: `${name}-x` },
          { op: "test", path: "/requiresTitleAndComments", value: false },
          { op: "replace", path: "/requiresTitleAndComments", value: true },
        ],
        status: 200,
      },
    ]);
    expect(updated.outs).toEqual({ ...outs, name: `${name}-x`, requiresTitleAndComments: true });
  });

  it("refresh finds an out-of-band change; an update of that field is refused, writing nothing", async () => {
    const { name, id, outs } = await created();
    await bed.admin.workspaces.patch(id, [{ op: "replace", path: "/name", value: `${name}-ui` }]);
    const read = await p.read(id, outs);
    expect(read.props).toEqual({ ...outs, name: `${name}-ui` });
    expect(read.inputs).toEqual({ name: `${name}-ui`, requiresTitleAndComments: false, adopt: false });
    bed.reset();
    await expect(p.update(id, outs, (await p.check(outs, { name: `${name}-new` })).inputs)).rejects.toThrow(
      `name: recorded "${name}", live "${name}-ui", desired "${name}-new"`,
    );
    expect(bed.proxy.writes()).toEqual([]);
  });

  it("deletes after the traffic types left in it; deleting again succeeds; then it reads as gone", async () => {
    const { id, outs } = await created();
    const account = await bed.admin.trafficTypes.create(id, { name: "account" });
    const left = await bed.admin.trafficTypes.list(id);
    expect(left.map((t) => t.name).sort()).toEqual(["account", "user"]);
    bed.reset();
    await p.delete(id, outs);
    expect(bed.sent()).toEqual([
      `GET ${V2}/trafficTypes/ws/${id}`,
      ...left.map((t) => `DELETE ${V2}/trafficTypes/${t.id}`),
      `DELETE ${V2}/workspaces/${id}`,
    ]);
    expect(left.map((t) => t.id)).toContain(account.id);
    expect(await p.read(id, outs)).toEqual({ id: undefined, props: undefined, inputs: undefined });
    await expect(p.delete(id, outs)).resolves.toBeUndefined();
  });

  it("imports by its name or id", async () => {
    const { name, id, outs } = await created({ requiresTitleAndComments: true });
    const inputs = { name, requiresTitleAndComments: true, adopt: false };
    expect(await p.read(name, {})).toEqual({ id, props: outs, inputs });
    expect(await p.read(id, {})).toEqual({ id, props: outs, inputs });
  });

  it("adopts an existing workspace only when told to, patching what differs", async () => {
    const existing = await bed.admin.workspaces.create({ name: fresh(), requiresTitleAndComments: false });
    await expect(p.create((await p.check({}, { name: existing.name })).inputs)).rejects.toThrow(
      `a workspace named "${existing.name}" already exists. Set \`adopt: true\``,
    );
    bed.reset();
    const adopted = await p.create(
      (await p.check({}, { name: existing.name, requiresTitleAndComments: true, adopt: true })).inputs,
    );
    expect(adopted.id).toBe(existing.id);
    expect(bed.proxy.writes().map((w) => w.body)).toEqual([
      [
        { op: "test", path: "/requiresTitleAndComments", value: false },
        { op: "replace", path: "/requiresTitleAndComments", value: true },
      ],
    ]);
    expect(adopted.outs).toEqual({
      name: existing.name,
      requiresTitleAndComments: true,
      adopt: true,
      workspaceId: existing.id,
    });
  });

  it("adopts a Harness project's workspace, naming the project in its outputs but not its inputs", async () => {
    const name = fresh();
    const identifier = unique(`ws_${slug(mode)}`, "_");
    await createProject(bed.platform, identifier, name);
    const own = await bed.admin.workspaces.getByHarnessProject("default", identifier);
    const inputs = (await p.check({}, { name, adopt: true })).inputs;
    bed.reset();
    const { id, outs } = await p.create(inputs);
    expect(bed.proxy.writes()).toEqual([]);
    expect(id).toBe(own?.id);
    expect(outs).toEqual({
      name,
      requiresTitleAndComments: false,
      adopt: true,
      workspaceId: id,
      organizationIdentifier: "default",
      projectIdentifier: identifier,
    });
    expect(await p.read(id, outs)).toEqual({ id, props: outs, inputs });
    expect(await p.read(name, {})).toEqual({
      id,
      props: { ...outs, adopt: false },
      inputs: { ...inputs, adopt: false },
    });
    await expectNoChange(bed, p, id, outs, inputs);
  });

  it("a workspace a new project takes shows the project on refresh, and keeps it through a rename", async () => {
    const { name, id, outs } = await created();
    expect(outs).toEqual({ name, requiresTitleAndComments: false, adopt: false, workspaceId: id });
    const identifier = unique(`taken_${slug(mode)}`, "_");
    await createProject(bed.platform, identifier, name);
    const link = { organizationIdentifier: "default", projectIdentifier: identifier };
    const read = await p.read(id, outs);
    expect(read).toEqual({
      id,
      props: { ...outs, ...link },
      inputs: { name, requiresTitleAndComments: false, adopt: false },
    });
    const news = (await p.check(read.props ?? {}, { name: `${name}-x` })).inputs;
    const updated = await p.update(id, read.props ?? {}, news);
    expect(updated.outs).toEqual({ ...outs, name: `${name}-x`, ...link });
  });

  it("recovers a create whose answer was lost, without a duplicate", async () => {
    const name = fresh();
    bed.reset();
    bed.proxy.once({ method: "POST", path: /\/workspaces$/ }, { lose: true });
    const { id } = await p.create((await p.check({}, { name })).inputs);
    expect(bed.proxy.writes().map((w) => w.method)).toEqual(["POST"]);
    const same: string[] = [];
    for await (const w of bed.admin.workspaces.list({ name })) same.push(w.id);
    expect(same).toEqual([id]);
  });
});
