/**
 * Environment lifecycle against the emulator, directly and through the gRPC host: check (defaults,
 * refusals naming the field with no request), create (exact POST, its SDK keys as outputs), no-op
 * diff, one guarded PATCH per update, refresh after out-of-band changes, an update refused when the
 * field it changes was changed outside Pulumi, delete (SDK keys revoked first), gone, adopt, and a
 * lost create answer. Each test makes the environment it needs under a name of its own.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  Environment,
  type EnvironmentInputs,
  environmentProviderText,
  impl,
} from "../../../provider/flags/environment";
import { ENVIRONMENT_TYPE } from "../../../provider/types";
import type { Workspace } from "../../../sdk/admin/schemas";
import { type Driver, MODES, type Mode } from "../harness";
import { itRefusesWithNoRequest, slug, startTestbed, type Testbed, unique } from "../testbed";

const V2 = "/internal/api/v2";
let bed: Testbed;
let ws: Workspace;
let drivers: Record<Mode, Driver>;
beforeAll(async () => {
  bed = await startTestbed();
  ws = (await bed.admin.workspaces.getByName("Default")) as Workspace;
  drivers = await bed.drivers(impl, environmentProviderText);
});
afterAll(async () => {
  await bed?.stop();
});

itRefusesWithNoRequest(
  [
    ["an empty workspace", { workspace: "", name: "QA" }, "workspace", "workspace must not be empty"],
    ["a name with a slash", { workspace: "Default", name: "qa/1" }, "name", "name must start with a letter"],
    [
      "a non-boolean production",
      { workspace: "Default", name: "QA", production: "yes" },
      "production",
      "expected boolean",
    ],
    [
      "an approver of no known type",
      { workspace: "Default", name: "QA", changePermissions: { approvers: [{ type: "team", id: "t1" }] } },
      "changePermissions.approvers[0].type",
      'type must be "user" or "group"',
    ],
    [
      "an unknown input",
      { workspace: "Default", name: "QA", region: "eu" },
      "region",
      'unknown property "region"',
    ],
  ],
  () => ({ bed, drivers }),
);

describe.each(MODES)("Environment (%s)", (mode) => {
  let p: Driver;
  const fresh = () => unique(`stage-${slug(mode)}`);
  const program = (name: string, extra: Record<string, unknown> = {}) => ({
    workspace: "Default",
    name,
    ...extra,
  });
  const approvals = (groupId: string) => ({
    areApprovalsRequired: true,
    approvers: [{ type: "group", id: groupId }],
  });
  /** An environment of the test's own, created by the provider. */
  const created = async (extra: Record<string, unknown> = {}) => {
    const name = fresh();
    const { id, outs } = await p.create((await p.check({}, program(name, extra))).inputs);
    return { name, id, outs };
  };

  beforeAll(() => {
    p = drivers[mode];
  });

  it("checks: defaults applied, approvers a sorted set", async () => {
    const checked = await p.check(
      {},
      program("QA", {
        changePermissions: {
          approvers: [
            { type: "user", id: "u2" },
            { type: "group", id: "g1" },
            { type: "user", id: "u2" },
          ],
        },
      }),
    );
    expect(checked).toEqual({
      inputs: {
        workspace: "Default",
        name: "QA",
        production: false,
        changePermissions: {
          areApprovalsRequired: false,
          approvers: [
            { type: "group", id: "g1" },
            { type: "user", id: "u2" },
          ],
        },
        adopt: false,
      },
      failures: [],
    });
  });

  it("creates with one POST; the SDK keys it answers are outputs", async () => {
    const group = await bed.admin.groups.create({
      name: unique(`env-approvers-${slug(mode)}`),
      description: "",
    });
    const name = fresh();
    const inputs = (
      await p.check({}, program(name, { production: true, changePermissions: approvals(group.id) }))
    ).inputs;
    bed.reset();
    const { id, outs } = await p.create(inputs);
    expect(bed.proxy.writes()).toEqual([
      {
        method: "POST",
        path: `${V2}/environments/ws/${ws.id}`,
        query: {},
        body: { name, production: true, changePermissions: approvals(group.id) },
        status: 200,
      },
    ]);
    const tokens = outs.apiTokens as { id: string; name: string; apiKeyType: string }[];
    expect(tokens.map((t) => t.apiKeyType).sort()).toEqual(["client_side", "server_side"]);
    expect(outs).toEqual({
      workspace: "Default",
      name,
      production: true,
      changePermissions: approvals(group.id),
      adopt: false,
      environmentId: id,
      workspaceId: ws.id,
      workspaceName: "Default",
      apiTokens: tokens,
      serverSideSdkKey: expect.stringMatching(/^sdk-/),
      clientSideSdkKey: expect.stringMatching(/^sdk-/),
    });
    expect(outs.serverSideSdkKey).not.toBe(outs.clientSideSdkKey);
    expect(await bed.admin.environments.find(ws.id, id)).toEqual({ id, name, production: true });
  });

  it("reports no change for the same inputs, with no request", async () => {
    const { name, id, outs } = await created({ changePermissions: { areApprovalsRequired: false } });
    bed.reset();
    const news = (await p.check(outs, program(name, { changePermissions: { areApprovalsRequired: false } })))
      .inputs;
    expect(await p.diff(id, outs, news)).toEqual({
      changes: false,
      replaces: [],
      deleteBeforeReplace: false,
    });
    // Omitting the permissions leaves the service's alone: no change either.
    expect(await p.diff(id, outs, (await p.check(outs, program(name))).inputs)).toMatchObject({
      changes: false,
    });
    expect(bed.emu.requests()).toEqual([]);
  });

  it("replaces on another workspace, deleting first", async () => {
    const { name, id, outs } = await created();
    const news = (await p.check(outs, { ...program(name), workspace: "Other" })).inputs;
    expect(await p.diff(id, outs, news)).toEqual({
      changes: true,
      replaces: ["workspace"],
      deleteBeforeReplace: true,
    });
    // The same workspace by id is no change.
    expect(
      await p.diff(id, outs, (await p.check(outs, { ...program(name), workspace: ws.id })).inputs),
    ).toMatchObject({ changes: false });
    await p.delete(id, outs);
  });

  it("renames, flips production and requires approvals in one guarded PATCH", async () => {
    const group = await bed.admin.groups.create({
      name: unique(`env-approvers-${slug(mode)}`),
      description: "",
    });
    const { name, id, outs } = await created({ changePermissions: { areApprovalsRequired: false } });
    const news = (
      await p.check(outs, program(`${name}-x`, { production: true, changePermissions: approvals(group.id) }))
    ).inputs;
    expect(await p.diff(id, outs, news)).toEqual({ changes: true, replaces: [], deleteBeforeReplace: false });
    bed.reset();
    const updated = await p.update(id, outs, news);
    expect(bed.sent()).toEqual([
      `GET ${V2}/environments/ws/${ws.id}`,
      `PATCH ${V2}/environments/ws/${ws.id}/${id}`,
      `PATCH ${V2}/environments/ws/${ws.id}/${id}`,
    ]);
    const [dryRun, patch] = bed.proxy.writes();
    expect(dryRun).toMatchObject({ query: { dry_run: "true" }, body: [] });
    expect(patch).toMatchObject({
      query: {},
      body: [
        { op: "test", path: "/name", value: name },
        { op: "replace", path: "/name", value: `${name}-x` },
        { op: "test", path: "/production", value: false },
        { op: "replace", path: "/production", value: true },
        { op: "add", path: "/changePermissions/areApprovalsRequired", value: true },
        { op: "add", path: "/changePermissions/approvers", value: [{ type: "group", id: group.id }] },
      ],
    });
    expect(updated.outs).toEqual({
      ...outs,
      name: `${name}-x`,
      production: true,
      changePermissions: approvals(group.id),
    });
    expect(await bed.admin.environments.find(ws.id, id)).toEqual({ id, name: `${name}-x`, production: true });
  });

  it("refresh finds out-of-band changes of production and of the permissions", async () => {
    const { name, id, outs } = await created({ changePermissions: { areApprovalsRequired: false } });
    await bed.admin.environments.patch(ws.id, id, [
      { op: "replace", path: "/production", value: true },
      { op: "add", path: "/changePermissions/areApprovalsRequired", value: true },
    ]);
    const read = await p.read(id, outs);
    expect(read.props).toEqual({
      ...outs,
      production: true,
      changePermissions: { areApprovalsRequired: true, approvers: [] },
    });
    expect(read.inputs).toEqual({
      workspace: "Default",
      name,
      production: true,
      changePermissions: { areApprovalsRequired: true, approvers: [] },
      adopt: false,
    });
    const news = (await p.check(outs, program(name, { changePermissions: { areApprovalsRequired: false } })))
      .inputs;
    expect(await p.diff(id, read.props as Record<string, unknown>, news)).toMatchObject({ changes: true });
  });

  it("refuses an update of a field changed outside Pulumi, writing nothing", async () => {
    const { name, id, outs } = await created();
    await bed.admin.environments.patch(ws.id, id, [{ op: "replace", path: "/name", value: `${name}-ui` }]);
    const news = (await p.check(outs, program(`${name}-new`))).inputs;
    bed.reset();
    await expect(p.update(id, outs, news)).rejects.toThrow(
      `environment "${name}" in workspace "Default" was changed outside Pulumi since its state was recorded, in a field this update changes:\n  name: recorded "${name}", live "${name}-ui", desired "${name}-new"`,
    );
    expect(bed.proxy.writes()).toEqual([]);
  });

  it("deletes after revoking its SDK keys; deleting again succeeds", async () => {
    const { id, outs } = await created();
    const tokens = outs.apiTokens as { id: string }[];
    bed.reset();
    await p.delete(id, outs);
    expect(bed.sent()).toEqual([
      ...tokens.map((t) => `DELETE ${V2}/apiKeys/${t.id}`),
      `DELETE ${V2}/environments/ws/${ws.id}/${id}`,
    ]);
    expect(await bed.admin.environments.find(ws.id, id)).toBeUndefined();
    await expect(p.delete(id, outs)).resolves.toBeUndefined();
  });

  it("reports an environment deleted out of band as gone", async () => {
    const { id, outs } = await created();
    for (const t of outs.apiTokens as { id: string }[]) await bed.admin.apiKeys.revoke(t.id);
    await bed.admin.environments.delete(ws.id, id);
    expect(await p.read(id, outs)).toEqual({ id: undefined, props: undefined, inputs: undefined });
  });

  it("refuses a duplicate name unless adopt is set, then takes the environment over", async () => {
    const existing = await bed.admin.environments.create(ws.id, { name: fresh(), production: false });
    const plainInputs = (await p.check({}, program(existing.name, { production: true }))).inputs;
    await expect(p.create(plainInputs)).rejects.toThrow(
      `an environment named "${existing.name}" in workspace "Default" already exists. Set \`adopt: true\``,
    );
    const adoptInputs = (await p.check({}, program(existing.name, { production: true, adopt: true }))).inputs;
    bed.reset();
    const adopted = await p.create(adoptInputs);
    expect(adopted.id).toBe(existing.id);
    expect(bed.proxy.writes()).toMatchObject([
      {
        method: "PATCH",
        body: [
          { op: "test", path: "/production", value: false },
          { op: "replace", path: "/production", value: true },
        ],
      },
    ]);
    expect(adopted.outs).toMatchObject({ production: true, adopt: true, apiTokens: [] });
    for (const t of existing.apiTokens ?? []) await bed.admin.apiKeys.revoke(t.id);
    await p.delete(adopted.id, adopted.outs);
  });

  it("imports by its natural key <workspace>/<name>, permissions included", async () => {
    const { name, id, outs } = await created({ changePermissions: { areApprovalsRequired: false } });
    const imported = await p.read(`Default/${name}`, {});
    expect(imported).toEqual({
      id,
      props: { ...outs, apiTokens: [], serverSideSdkKey: undefined, clientSideSdkKey: undefined },
      inputs: {
        workspace: "Default",
        name,
        production: false,
        changePermissions: { areApprovalsRequired: false, approvers: [] },
        adopt: false,
      },
    });
    await expect(p.read("Default", {})).rejects.toThrow('import id "Default" must be <workspace>/<name>');
  });

  it("recovers a create whose answer was lost, without a duplicate", async () => {
    const name = fresh();
    bed.reset();
    bed.proxy.once({ method: "POST", path: /\/environments\/ws\/[^/]+$/ }, { lose: true });
    const { id, outs } = await p.create((await p.check({}, program(name))).inputs);
    expect(bed.proxy.writes().map((w) => w.method)).toEqual(["POST"]);
    expect(outs).toMatchObject({ name, environmentId: id, apiTokens: [] });
    const same = (await bed.admin.environments.list(ws.id)).filter((e) => e.name === name);
    expect(same.map((e) => e.id)).toEqual([id]);
  });
});

describe("Environment: flagstack recover of a killed up's environment (direct)", () => {
  const program = (name: string) => ({ workspace: "Default", name });

  it("records the SDK keys its create noted; a destroy then revokes them and deletes it", async () => {
    const name = unique("recovered-env");
    const inputs = (await impl.check({}, program(name))).inputs as EnvironmentInputs;
    // The interrupted run's create: the service answered, the engine never recorded it.
    const made = await impl.create(inputs);
    const tokens = made.outs?.apiTokens ?? [];
    expect(tokens.map((t) => t.apiKeyType).sort()).toEqual(["client_side", "server_side"]);
    const { id, outs } = await (impl.recover as NonNullable<typeof impl.recover>)(inputs);
    expect(id).toBe(made.id);
    expect(outs).toEqual({
      ...made.outs,
      apiTokens: tokens,
      serverSideSdkKey: undefined,
      clientSideSdkKey: undefined,
    });
    bed.reset();
    await impl.delete(id, outs as NonNullable<typeof outs>);
    expect(bed.sent()).toEqual([
      ...tokens.map((t) => `DELETE ${V2}/apiKeys/${t.id}`),
      `DELETE ${V2}/environments/ws/${ws.id}/${id}`,
    ]);
    expect(await bed.admin.environments.find(ws.id, name)).toBeUndefined();
  });

  it("without a note it records no keys, and its delete says to revoke them", async () => {
    const name = unique("unnoted-env");
    const existing = await bed.admin.environments.create(ws.id, { name, production: false });
    const inputs = (await impl.check({}, program(name))).inputs as EnvironmentInputs;
    const { id, outs } = await (impl.recover as NonNullable<typeof impl.recover>)(inputs);
    expect(id).toBe(existing.id);
    expect(outs?.apiTokens).toEqual([]);
    await expect(impl.delete(id, outs as NonNullable<typeof outs>)).rejects.toThrow(
      `environment "${name}" in workspace "Default" cannot be deleted while its SDK keys exist, and the state ` +
        "records none (the environment was adopted, or the answer of its create was lost; the API cannot list " +
        "keys): revoke its server-side and client-side keys in the admin settings (API keys), then delete again (",
    );
    for (const t of existing.apiTokens ?? []) await bed.admin.apiKeys.revoke(t.id);
    await impl.delete(id, outs as NonNullable<typeof outs>);
    expect(await bed.admin.environments.find(ws.id, name)).toBeUndefined();
  });
});

describe("the Environment class", () => {
  it("is the Environment kind and stores the SDK keys as secrets", () => {
    expect(Environment.__pulumiType).toBe(ENVIRONMENT_TYPE);
    expect(Environment.name).toBe("Environment");
    expect(Environment.secretOutputs).toEqual(["serverSideSdkKey", "clientSideSdkKey"]);
  });
});
