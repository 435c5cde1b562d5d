/**
 * TrafficType and TrafficTypeAttribute lifecycles against the emulator, directly and through the
 * gRPC host: check refusals naming the field with no request, create (exact POST), no-op diff,
 * replacement of the natural key, a guarded attribute PATCH, refresh after out-of-band changes, an
 * update refused when the field was changed outside Pulumi, gone, delete, adopt and a lost create
 * answer. Each test makes the objects it needs under names of its own.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { impl as trafficTypeImpl, trafficTypeProviderText } from "../../../provider/flags/traffic-type";
import {
  impl as attributeImpl,
  trafficTypeAttributeProviderText,
} from "../../../provider/flags/traffic-type-attribute";
import type { Workspace } from "../../../sdk/admin/schemas";
import { type Driver, MODES, type Mode } from "../harness";
import { expectNoChange } from "../no-change";
import { itRefusesWithNoRequest, slug, startTestbed, type Testbed, unique } from "../testbed";

const V2 = "/internal/api/v2";
let bed: Testbed;
let ws: Workspace;
let types: Record<Mode, Driver>;
let attributes: Record<Mode, Driver>;
beforeAll(async () => {
  bed = await startTestbed();
  ws = (await bed.admin.workspaces.getByName("Default")) as Workspace;
  types = await bed.drivers(trafficTypeImpl, trafficTypeProviderText);
  attributes = await bed.drivers(attributeImpl, trafficTypeAttributeProviderText);
});
afterAll(async () => {
  await bed?.stop();
});

itRefusesWithNoRequest(
  [
    [
      "a name with a space",
      { workspace: "Default", name: "my type" },
      "name",
      "name must start with a letter",
    ],
    ["no workspace", { name: "account" }, "workspace", "expected string"],
  ],
  () => ({ bed, drivers: types }),
);

itRefusesWithNoRequest(
  [
    [
      "an empty attribute id",
      { workspace: "Default", attributeId: "" },
      "attributeId",
      "id must not be empty",
    ],
    [
      "an unknown data type",
      { workspace: "Default", attributeId: "plan", dataType: "BOOLEAN" },
      "dataType",
      "dataType must be one of STRING, DATETIME, NUMBER, SET",
    ],
    [
      "a long suggested value",
      { workspace: "Default", attributeId: "plan", suggestedValues: ["x".repeat(51)] },
      "suggestedValues[0]",
      "a suggested value must be at most 50 characters",
    ],
    [
      "51 suggested values",
      {
        workspace: "Default",
        attributeId: "plan",
        suggestedValues: Array.from({ length: 51 }, (_, i) => `v${i}`),
      },
      "suggestedValues",
      "at most 50 suggested values",
    ],
  ],
  () => ({ bed, drivers: attributes }),
);

describe.each(MODES)("TrafficType (%s)", (mode) => {
  let p: Driver;
  const fresh = () => unique(`tt-${slug(mode)}`);
  beforeAll(() => {
    p = types[mode];
  });

  it("creates with one POST, reads it back, and reports no change for the same inputs", async () => {
    const name = fresh();
    const inputs = (await p.check({}, { workspace: "Default", name })).inputs;
    expect(inputs).toEqual({ workspace: "Default", name, adopt: false });
    bed.reset();
    const { id, outs } = await p.create(inputs);
    expect(bed.proxy.writes()).toEqual([
      { method: "POST", path: `${V2}/trafficTypes/ws/${ws.id}`, query: {}, body: { name }, status: 200 },
    ]);
    expect(outs).toEqual({
      workspace: "Default",
      name,
      adopt: false,
      trafficTypeId: id,
      workspaceId: ws.id,
      workspaceName: "Default",
    });
    expect(await p.read(id, outs)).toEqual({ id, props: outs, inputs });
    await expectNoChange(bed, p, id, outs, inputs);
    expect(await p.diff(id, outs, { ...inputs, workspace: ws.id })).toMatchObject({ changes: false });
  });

  it("replaces on a new name, deleting first; deletes, and deleting again succeeds", async () => {
    const name = fresh();
    const { id, outs } = await p.create((await p.check({}, { workspace: "Default", name })).inputs);
    const news = (await p.check(outs, { workspace: "Default", name: `${name}x` })).inputs;
    expect(await p.diff(id, outs, news)).toEqual({
      changes: true,
      replaces: ["name"],
      deleteBeforeReplace: true,
    });
    bed.reset();
    await p.delete(id, outs);
    expect(bed.sent()).toEqual([`DELETE ${V2}/trafficTypes/${id}`]);
    expect(await bed.admin.trafficTypes.find(ws.id, id)).toBeUndefined();
    expect(await p.read(id, outs)).toEqual({ id: undefined, props: undefined, inputs: undefined });
    await expect(p.delete(id, outs)).resolves.toBeUndefined();
  });

  it("imports by its natural key <workspace>/<name>", async () => {
    const name = fresh();
    const { id, outs } = await p.create((await p.check({}, { workspace: "Default", name })).inputs);
    expect(await p.read(`Default/${name}`, {})).toEqual({
      id,
      props: outs,
      inputs: { workspace: "Default", name, adopt: false },
    });
  });

  it("adopts an existing traffic type only when told to", async () => {
    const existing = await bed.admin.trafficTypes.create(ws.id, { name: fresh() });
    await expect(
      p.create((await p.check({}, { workspace: "Default", name: existing.name })).inputs),
    ).rejects.toThrow(
      `a traffic type named "${existing.name}" in workspace "Default" already exists. Set \`adopt: true\``,
    );
    bed.reset();
    const adopted = await p.create(
      (await p.check({}, { workspace: "Default", name: existing.name, adopt: true })).inputs,
    );
    expect(adopted.id).toBe(existing.id);
    expect(bed.proxy.writes()).toEqual([]);
  });

  it("recovers a create whose answer was lost, without a duplicate", async () => {
    const name = fresh();
    bed.reset();
    bed.proxy.once({ method: "POST", path: /\/trafficTypes\/ws\/[^/]+$/ }, { lose: true });
    const { id } = await p.create((await p.check({}, { workspace: "Default", name })).inputs);
    expect(bed.proxy.writes().map((w) => w.method)).toEqual(["POST"]);
    const same = (await bed.admin.trafficTypes.list(ws.id)).filter((t) => t.name === name);
    expect(same.map((t) => t.id)).toEqual([id]);
  });
});

describe.each(MODES)("TrafficTypeAttribute (%s)", (mode) => {
  let p: Driver;
  let tt: { id: string; name: string };
  const fresh = () => unique(`attr_${slug(mode)}`, "_");
  const program = (attributeId: string, extra: Record<string, unknown> = {}) => ({
    workspace: "Default",
    trafficType: tt.name,
    attributeId,
    displayName: "Plan",
    dataType: "STRING",
    suggestedValues: ["free", "pro"],
    ...extra,
  });
  const created = async (extra: Record<string, unknown> = {}) => {
    const attributeId = fresh();
    const { id, outs } = await p.create((await p.check({}, program(attributeId, extra))).inputs);
    return { attributeId, id, outs };
  };
  beforeAll(async () => {
    p = attributes[mode];
    tt = await bed.admin.trafficTypes.create(ws.id, { name: unique(`attrs-${slug(mode)}`) });
  });

  it("creates with one POST of the whole attribute", async () => {
    const attributeId = fresh();
    const inputs = (await p.check({}, program(attributeId))).inputs;
    expect(inputs).toEqual({ ...program(attributeId), isSearchable: false, adopt: false });
    bed.reset();
    const { id, outs } = await p.create(inputs);
    expect(id).toBe(`${tt.id}/${attributeId}`);
    expect(bed.proxy.writes()).toEqual([
      {
        method: "POST",
        path: `${V2}/schema/ws/${ws.id}/trafficTypes/${tt.id}`,
        query: {},
        body: {
          id: attributeId,
          displayName: "Plan",
          description: null,
          dataType: "STRING",
          suggestedValues: ["free", "pro"],
          isSearchable: false,
        },
        status: 200,
      },
    ]);
    expect(outs).toEqual({
      ...inputs,
      workspaceId: ws.id,
      workspaceName: "Default",
      trafficTypeId: tt.id,
    });
    await expectNoChange(bed, p, id, outs, inputs);
  });

  it("updates in one PATCH: a test of each changed field's live value, then its replace", async () => {
    const { attributeId, id, outs } = await created();
    const news = (
      await p.check(outs, program(attributeId, { description: "billing plan", suggestedValues: ["free"] }))
    ).inputs;
    expect(await p.diff(id, outs, news)).toEqual({ changes: true, replaces: [], deleteBeforeReplace: false });
    bed.reset();
    const updated = await p.update(id, outs, news);
    expect(bed.proxy.writes()).toEqual([
      {
        method: "PATCH",
        path: `${V2}/schema/ws/${ws.id}/trafficTypes/${tt.id}/${attributeId}`,
        query: {},
        body: [
          { op: "test", path: "/description", value: null },
          { op: "replace", path: "/description", value: "billing plan" },
          { op: "test", path: "/suggestedValues", value: ["free", "pro"] },
          { op: "replace", path: "/suggestedValues", value: ["free"] },
        ],
        status: 200,
      },
    ]);
    expect(updated.outs).toEqual({ ...outs, description: "billing plan", suggestedValues: ["free"] });
  });

  it("replaces on a new attribute id, deleting first", async () => {
    const { attributeId, id, outs } = await created();
    const news = (await p.check(outs, program(`${attributeId}_2`))).inputs;
    expect(await p.diff(id, outs, news)).toEqual({
      changes: true,
      replaces: ["attributeId"],
      deleteBeforeReplace: true,
    });
  });

  it("refresh finds an out-of-band change; an update of that field is refused, writing nothing", async () => {
    const { attributeId, id, outs } = await created();
    await bed.admin.attributes.patch(ws.id, tt.id, attributeId, [
      { op: "replace", path: "/displayName", value: "Tier" },
    ]);
    const read = await p.read(id, outs);
    expect(read.props).toEqual({ ...outs, displayName: "Tier" });
    expect(read.inputs).toEqual({
      ...program(attributeId),
      displayName: "Tier",
      isSearchable: false,
      adopt: false,
    });
    bed.reset();
    await expect(
      p.update(id, outs, (await p.check(outs, program(attributeId, { displayName: "Plan name" }))).inputs),
    ).rejects.toThrow(`displayName: recorded "Plan", live "Tier", desired "Plan name"`);
    expect(bed.proxy.writes()).toEqual([]);
  });

  it("imports by its natural key <workspace>/<traffic type>/<attribute id>", async () => {
    const { attributeId, id, outs } = await created();
    const imported = await p.read(`Default/${tt.name}/${attributeId}`, {});
    expect(imported).toEqual({
      id,
      props: outs,
      inputs: { ...program(attributeId), isSearchable: false, adopt: false },
    });
  });

  it("deletes, and deleting again succeeds; a deleted attribute reads as gone", async () => {
    const { attributeId, id, outs } = await created();
    bed.reset();
    await p.delete(id, outs);
    expect(bed.sent()).toEqual([`DELETE ${V2}/schema/ws/${ws.id}/trafficTypes/${tt.id}/${attributeId}`]);
    expect(await p.read(id, outs)).toEqual({ id: undefined, props: undefined, inputs: undefined });
    await expect(p.delete(id, outs)).resolves.toBeUndefined();
  });

  it("adopts an existing attribute only when told to, patching what differs", async () => {
    const attributeId = fresh();
    await bed.admin.attributes.create(ws.id, tt.id, {
      id: attributeId,
      displayName: "Old",
      dataType: "STRING",
    });
    await expect(p.create((await p.check({}, program(attributeId))).inputs)).rejects.toThrow(
      "already exists. Set `adopt: true`",
    );
    bed.reset();
    const adopted = await p.create((await p.check({}, program(attributeId, { adopt: true }))).inputs);
    expect(bed.proxy.writes().map((w) => w.body)).toEqual([
      [
        { op: "test", path: "/displayName", value: "Old" },
        { op: "replace", path: "/displayName", value: "Plan" },
        { op: "test", path: "/suggestedValues", value: [] },
        { op: "replace", path: "/suggestedValues", value: ["free", "pro"] },
      ],
    ]);
    expect(adopted.outs).toMatchObject({
      displayName: "Plan",
      suggestedValues: ["free", "pro"],
      adopt: true,
    });
  });

  it("recovers a create whose answer was lost, without a duplicate", async () => {
    const attributeId = fresh();
    bed.reset();
    bed.proxy.once({ method: "POST", path: /\/schema\/ws\/[^/]+\/trafficTypes\/[^/]+$/ }, { lose: true });
    const { outs } = await p.create((await p.check({}, program(attributeId))).inputs);
    expect(bed.proxy.writes().map((w) => w.method)).toEqual(["POST"]);
    expect(outs).toMatchObject({ attributeId, displayName: "Plan" });
    const same = (await bed.admin.attributes.list(ws.id, tt.id)).filter((a) => a.id === attributeId);
    expect(same).toHaveLength(1);
  });
});
