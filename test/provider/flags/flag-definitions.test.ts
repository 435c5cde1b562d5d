/**
 * FlagDefinitions lifecycle against the emulator, directly and through the gRPC host: check (each
 * environment's problems named under its key), create (one POST per environment), read (a
 * definition deleted out of band leaves the map; all gone: the object is gone), diff (an
 * environment named by id is the same one), update (an environment removed, added and changed in
 * one update: DELETE, POST, and the guarded PATCH), a create that fails in one environment (the
 * others recorded, the failure named), delete and delete again, import by `<workspace>/<flag>`.
 * Each test makes the flag it needs under a name of its own, so it passes alone.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { flagDefinitionsProviderText, impl } from "../../../provider/flags/flag-definitions";
import type { Environment, Workspace } from "../../../sdk/admin/schemas";
import { type Driver, HostError, MODES } from "../harness";
import { slug, startTestbed, type Testbed, unique } from "../testbed";

let bed: Testbed;
let ws: Workspace;
let prod: Environment;
let staging: Environment;
let extra: Environment;

beforeAll(async () => {
  bed = await startTestbed();
  ws = (await bed.admin.workspaces.getByName("Default")) as Workspace;
  const envs = await bed.admin.environments.list(ws.id);
  prod = envs.find((e) => e.name === "Production") as Environment;
  staging = envs.find((e) => e.name === "Staging") as Environment;
  extra = await bed.admin.environments.create(ws.id, { name: "Canary", production: false });
});
afterAll(async () => {
  await bed?.stop();
});

const onOff = [{ name: "on" }, { name: "off" }];
const half = [
  { treatment: "on", size: 50 },
  { treatment: "off", size: 50 },
];
/** A definition entry as checked: the defaults filled in. */
const checked = (defaultRule = [{ treatment: "off", size: 100 }]) => ({
  treatments: onOff,
  defaultTreatment: "off",
  trafficAllocation: 100,
  rules: [],
  defaultRule,
  killed: false,
});

/** The id and outputs a failed create or update recorded, whichever door it came through. */
function recordedBy(e: unknown): { id: string; properties: Record<string, unknown> } {
  if (e instanceof HostError && e.initFailed) {
    const { __provider: _, ...properties } = e.initFailed.properties;
    return { id: e.initFailed.id, properties };
  }
  const p = e as { name?: string; id: string; properties: Record<string, unknown> };
  if (p.name !== "PartialFailure") throw e;
  return { id: p.id, properties: p.properties };
}

describe.each(MODES)("FlagDefinitions (%s)", (mode) => {
  let p: Driver;
  const defPath = (flag: string, env: Environment) =>
    `/internal/api/v2/splits/ws/${ws.id}/${flag}/environments/${env.id}`;
  const check = async (olds: Record<string, unknown>, news: Record<string, unknown>) =>
    (await p.check(olds, news)).inputs;
  /** A flag of the test's own, made out of band, with no definition yet. */
  const freshFlag = async () => {
    const flag = unique(`multi-${slug(mode)}`);
    const { id: flagId } = await bed.admin.flags.create(ws.id, "user", { name: flag, description: "" });
    return { flag, flagId };
  };
  const programFor = (flag: string) => ({
    workspace: "Default",
    flag,
    definitions: {
      Production: { treatments: onOff, defaultTreatment: "off" },
      Staging: { treatments: onOff, defaultTreatment: "off", defaultRule: half },
    },
    title: "ramp",
  });
  /** A flag of the test's own and its definitions in Production and Staging, made by the provider. */
  const defined = async () => {
    const { flag, flagId } = await freshFlag();
    const program = programFor(flag);
    const { id, outs } = await p.create(await check({}, program));
    return { flag, flagId, program, id, outs };
  };
  /** An environment's definition as recorded: the document as the service holds it. */
  const entry = (defaultRule?: typeof half) => ({ ...checked(defaultRule), flagSets: [] });
  /** What the outputs say of an environment beside its definition. */
  const about = (env: Environment) => ({
    environmentId: env.id,
    environmentName: env.name,
    creationTime: expect.any(Number),
    lastUpdateTime: expect.any(Number),
  });

  beforeAll(async () => {
    p = await bed.driver(mode, impl, flagDefinitionsProviderText);
  });

  it("checks each environment's definition, naming its problems under the environment", async () => {
    const flag = unique("checked");
    expect(await p.check({}, programFor(flag))).toEqual({
      inputs: {
        workspace: "Default",
        flag,
        definitions: { Production: checked(), Staging: checked(half) },
        title: "ramp",
        adopt: false,
      },
      failures: [],
    });
    const bad = await p.check(
      {},
      {
        ...programFor(flag),
        definitions: {
          Production: { treatments: onOff, defaultTreatment: "off" },
          Staging: {
            treatments: onOff,
            defaultTreatment: "off",
            defaultRule: [{ treatment: "on", size: 40 }],
          },
        },
      },
    );
    expect(bad.failures.map((f) => f.property)).toEqual(["definitions.Staging.defaultRule"]);
    const none = await p.check({}, { ...programFor(flag), definitions: {} });
    expect(none.failures).toEqual([
      { property: "definitions", reason: "definitions needs at least one environment" },
    ]);
  });

  it("creates each environment's definition with one POST, and records them by environment", async () => {
    const { flag, flagId } = await freshFlag();
    bed.reset();
    const { id, outs } = await p.create(await check({}, programFor(flag)));
    expect(id).toBe(flagId);
    expect(
      bed.proxy
        .writes()
        .map((w) => `${w.method} ${w.path}`)
        .sort(),
    ).toEqual([`POST ${defPath(flag, prod)}`, `POST ${defPath(flag, staging)}`].sort());
    expect(outs).toEqual({
      workspace: "Default",
      flag,
      definitions: { Production: entry(), Staging: entry(half) },
      environments: { Production: about(prod), Staging: about(staging) },
      title: "ramp",
      adopt: false,
      flagId,
      flagName: flag,
      workspaceId: ws.id,
      workspaceName: "Default",
      trafficType: "user",
    });
  });

  it("reads them back; a definition deleted out of band leaves the map, and with none left the object is gone", async () => {
    const { flag, id, outs } = await defined();
    const read = await p.read(id, outs);
    expect(read.id).toBe(id);
    expect(read.props).toEqual(outs);
    expect(read.inputs).toEqual({
      workspace: "Default",
      flag,
      definitions: {
        Production: { ...checked(), flagSets: undefined },
        Staging: { ...checked(half), flagSets: undefined },
      },
      title: "ramp",
      adopt: false,
    });
    await bed.admin.definitions.delete(ws.id, flag, staging.id, { title: "t", comment: "c" });
    const after = await p.read(id, outs);
    expect(Object.keys(after.props?.definitions as object)).toEqual(["Production"]);
    await bed.admin.definitions.delete(ws.id, flag, prod.id, { title: "t", comment: "c" });
    expect((await p.read(id, outs)).id).toBeUndefined();
  });

  it("diffs: an environment named by id is the same one; a changed entry updates in place; a new flag replaces", async () => {
    const { program, id, outs } = await defined();
    const byId = await check(outs, {
      ...program,
      definitions: { [prod.id]: program.definitions.Production, Staging: program.definitions.Staging },
    });
    expect(await p.diff(id, outs, byId)).toEqual({
      changes: false,
      replaces: [],
      deleteBeforeReplace: false,
    });
    const moved = await check(outs, {
      ...program,
      definitions: { ...program.definitions, Staging: { treatments: onOff, defaultTreatment: "on" } },
    });
    expect(await p.diff(id, outs, moved)).toEqual({
      changes: true,
      replaces: [],
      deleteBeforeReplace: false,
    });
    const other = await check(outs, { ...program, flag: "another-flag" });
    expect(await p.diff(id, outs, other)).toEqual({
      changes: true,
      replaces: ["flag"],
      deleteBeforeReplace: true,
    });
  });

  it("updates: an environment removed is deleted, one added created, one changed patched, and no request for the rest", async () => {
    const { flag, flagId, program, id, outs } = await defined();
    const news = await check(outs, {
      ...program,
      definitions: {
        Staging: {
          treatments: onOff,
          defaultTreatment: "off",
          defaultRule: [{ treatment: "on", size: 100 }],
        },
        Canary: { treatments: onOff, defaultTreatment: "on" },
      },
    });
    bed.reset();
    const { outs: updated } = await p.update(id, outs, news);
    expect(
      bed.proxy
        .writes()
        .map((w) => `${w.method} ${w.path}`)
        .sort(),
    ).toEqual(
      [
        `DELETE ${defPath(flag, prod)}`,
        `POST ${defPath(flag, extra)}`,
        `PATCH ${defPath(flag, staging)}`,
      ].sort(),
    );
    expect(updated).toEqual({
      ...outs,
      definitions: {
        Staging: entry([{ treatment: "on", size: 100 }]),
        Canary: { ...entry(), defaultTreatment: "on", defaultRule: [{ treatment: "on", size: 100 }] },
      },
      environments: { Staging: about(staging), Canary: about(extra) },
      flagId,
    });
    expect(await bed.admin.definitions.list(ws.id, prod.id)).not.toContainEqual(
      expect.objectContaining({ name: flag }),
    );
  });

  it("a create that fails in one environment records the others and names the one that failed", async () => {
    const { flag, flagId } = await freshFlag();
    const program = {
      ...programFor(flag),
      definitions: {
        ...programFor(flag).definitions,
        Nowhere: { treatments: onOff, defaultTreatment: "off" },
      },
    };
    const error = await p.create(await check({}, program)).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect((error as Error).message).toMatch(
      /^definitions.Nowhere \(creating\): .*Nowhere.*\nApplied, and recorded: definitions.Production, definitions.Staging.$/s,
    );
    const recorded = recordedBy(error);
    expect(recorded.id).toBe(flagId);
    expect(Object.keys(recorded.properties.definitions as object).sort()).toEqual(["Production", "Staging"]);
    // What was made is recorded: the program without the environment that failed shows no change.
    bed.reset();
    const fixed = await check(recorded.properties, programFor(flag));
    expect(await p.diff(flagId, recorded.properties, fixed)).toMatchObject({ changes: false });
  });

  it("deletes each environment's definition, and a second delete finds them gone", async () => {
    const { flag, id, outs } = await defined();
    bed.reset();
    await p.delete(id, outs);
    expect(
      bed.proxy
        .writes()
        .map((w) => `${w.method} ${w.path}`)
        .sort(),
    ).toEqual([`DELETE ${defPath(flag, prod)}`, `DELETE ${defPath(flag, staging)}`].sort());
    await p.delete(id, outs);
    expect(await bed.admin.definitions.list(ws.id, staging.id)).not.toContainEqual(
      expect.objectContaining({ name: flag }),
    );
  });

  it("imports by <workspace>/<flag>: the environments where the flag has a definition, by name", async () => {
    const { flag, id, outs } = await defined();
    const imported = await p.read(`Default/${flag}`, {});
    expect(imported.id).toBe(id);
    expect(imported.props).toEqual({ ...outs, title: undefined, adopt: false });
    expect(Object.keys(imported.props?.definitions as object).sort()).toEqual(["Production", "Staging"]);
  });
});
