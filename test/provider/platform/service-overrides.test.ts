/**
 * ServiceOverrides lifecycle against the emulator, directly and through the gRPC host: check
 * (failures naming the field, a type without what it needs, no request), create (one POST with the
 * typed spec YAML), read, a guarded update (one PUT naming the override in the body: the changed
 * field desired, the rest live; a colleague's edit of the same field refused naming it), what
 * replaces, refresh after a deletion out of band, delete, delete again, adopt, a create whose answer
 * was lost, import by id.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { impl, serviceOverridesProviderText } from "../../../provider/platform/service-overrides";
import { type Driver, MODES } from "../harness";
import { createProject, slug, startTestbed, type Testbed, unique } from "../testbed";

let bed: Testbed;
const BASE = "/ng/api/serviceOverrides";
const at = { org: "default", project: "overrides" };

beforeAll(async () => {
  bed = await startTestbed();
  await createProject(bed.platform, "overrides", "Overrides");
  await bed.platform.environments.create({
    identifier: "prod",
    orgIdentifier: "default",
    projectIdentifier: "overrides",
    name: "Prod",
    type: "Production",
  });
});
afterAll(async () => {
  await bed?.stop();
});

const variable = (value: string) => ({ name: "replicas", type: "String" as const, value });
/** The spec YAML the provider sends for one `replicas` variable. */
const yamlOf = (value: string) => `variables:\n  - name: replicas\n    type: String\n    value: "${value}"\n`;

describe.each(MODES)("ServiceOverrides (%s)", (mode) => {
  let p: Driver;
  const fresh = () => unique(`ovr_${slug(mode)}`, "_");
  const programFor = (identifier: string, value = "2") => ({
    org: "default",
    project: "overrides",
    identifier,
    type: "ENV_SERVICE_OVERRIDE",
    environment: "prod",
    service: "checkout",
    variables: [variable(value)],
  });
  const created = async (value = "2") => {
    const identifier = fresh();
    const { id, outs } = await p.create((await p.check({}, programFor(identifier, value))).inputs);
    return { identifier, id, outs };
  };
  /** Someone else's PUT of the override. */
  const byHand = async (identifier: string, yamlInternal: string) => {
    await bed.platform.serviceOverrides.update({
      identifier,
      orgIdentifier: "default",
      projectIdentifier: "overrides",
      environmentRef: "prod",
      serviceRef: "checkout",
      type: "ENV_SERVICE_OVERRIDE",
      yamlInternal,
    });
  };

  beforeAll(async () => {
    p = await bed.driver(mode, impl, serviceOverridesProviderText);
  });

  it("refuses bad input naming each field, with no request", async () => {
    bed.reset();
    const checked = await p.check(
      {},
      {
        project: "overrides",
        identifier: "o-1",
        type: "INFRA_SERVICE_OVERRIDE",
        environment: "project.prod",
        env: 1,
      },
    );
    expect(checked.failures).toEqual([
      { property: "identifier", reason: expect.stringContaining("can only contain") },
      { property: "environment", reason: "must be <id>, org.<id> or account.<id>" },
      { property: "env", reason: 'unknown property "env"' },
    ]);
    const needs = await p.check(
      {},
      { ...programFor("o"), type: "INFRA_SERVICE_OVERRIDE", service: undefined, org: undefined },
    );
    expect(needs.failures).toEqual([
      { property: "org", reason: "a project-level service override needs org as well as project" },
      { property: "service", reason: "a INFRA_SERVICE_OVERRIDE needs service" },
      { property: "infrastructure", reason: "an INFRA_SERVICE_OVERRIDE needs infrastructure" },
    ]);
    expect(bed.emu.requests()).toEqual([]);
  });

  it("creates with one POST of the typed spec YAML, and reads it back", async () => {
    const identifier = fresh();
    const inputs = (await p.check({}, programFor(identifier))).inputs;
    expect(inputs).toEqual({ ...programFor(identifier), manifests: [], configFiles: [], adopt: false });
    bed.reset();
    const made = await p.create(inputs);
    expect(made).toEqual({ id: `default/overrides/${identifier}`, outs: { ...inputs, yaml: yamlOf("2") } });
    expect(
      bed.proxy.writes().map(({ method, path, body, status }) => ({ method, path, body, status })),
    ).toEqual([
      {
        method: "POST",
        path: BASE,
        body: {
          identifier,
          orgIdentifier: "default",
          projectIdentifier: "overrides",
          environmentRef: "prod",
          serviceRef: "checkout",
          type: "ENV_SERVICE_OVERRIDE",
          yamlInternal: yamlOf("2"),
        },
        status: 200,
      },
    ]);
    expect(await p.read(made.id, made.outs)).toEqual({ id: made.id, props: made.outs, inputs });
  });

  it("replaces on another environment, service or type; variables update in place", async () => {
    const { identifier, id, outs } = await created();
    for (const [change, field] of [
      [{ environment: "qa" }, "environment"],
      [{ service: "cart" }, "service"],
      [{ type: "ENV_GLOBAL_OVERRIDE", service: undefined }, "type"],
    ] as const) {
      const news = (await p.check(outs, { ...programFor(identifier), ...change })).inputs;
      expect((await p.diff(id, outs, news)).replaces).toContain(field);
    }
    const more = (await p.check(outs, programFor(identifier, "3"))).inputs;
    expect(await p.diff(id, outs, more)).toEqual({ changes: true, replaces: [], deleteBeforeReplace: false });
  });

  it("updates variables with a read and one PUT naming the override in the body", async () => {
    const { identifier, id, outs } = await created();
    const manifests = [
      {
        identifier: "values",
        type: "Values",
        spec: { store: { type: "Harness", spec: { files: ["account:/v"] } } },
      },
    ];
    const news = (await p.check(outs, { ...programFor(identifier, "5"), manifests })).inputs;
    bed.reset();
    const { outs: after } = await p.update(id, outs, news);
    const yaml = `${yamlOf("5")}manifests:\n  - manifest:\n      identifier: values\n      type: Values\n      spec:\n        store:\n          spec:\n            files:\n              - account:/v\n          type: Harness\n`;
    expect(bed.sent()).toEqual([`GET ${BASE}/${identifier}`, `PUT ${BASE}`]);
    expect(bed.proxy.writes().map((w) => (w.body as { yamlInternal: string }).yamlInternal)).toEqual([yaml]);
    expect(after).toEqual({ ...outs, variables: [variable("5")], manifests, yaml });
  });

  it("refuses an update of variables a colleague changed, naming the field, with nothing written", async () => {
    const { identifier, id, outs } = await created();
    await byHand(identifier, yamlOf("9"));
    const news = (await p.check(outs, programFor(identifier, "4"))).inputs;
    bed.reset();
    await expect(p.update(id, outs, news)).rejects.toThrow(
      `service override "${identifier}" (default/overrides/${identifier}) was changed outside Pulumi since its state was recorded, in a field this update changes:\n` +
        '  variables: recorded [{"name":"replicas","type":"String","value":"2"}], live [{"name":"replicas","type":"String","value":"9"}], desired [{"name":"replicas","type":"String","value":"4"}]\n' +
        "Nothing was written.",
    );
    expect(bed.proxy.writes()).toEqual([]);
  });

  it("refresh reports an override deleted out of band as gone; delete is one DELETE, and again succeeds", async () => {
    const gone = await created();
    await bed.platform.serviceOverrides.delete(gone.identifier, at);
    expect(await p.read(gone.id, gone.outs)).toEqual({ id: undefined, props: undefined, inputs: undefined });
    const { identifier, id, outs } = await created();
    bed.reset();
    await p.delete(id, outs);
    expect(bed.sent()).toEqual([`DELETE ${BASE}/${identifier}`]);
    await expect(bed.platform.serviceOverrides.get(identifier, at)).rejects.toMatchObject({ status: 400 });
    await expect(p.delete(id, outs)).resolves.toBeUndefined();
  });

  it("refuses an existing override unless adopt is set, then converges it with one PUT", async () => {
    const identifier = fresh();
    await bed.platform.serviceOverrides.create({
      identifier,
      orgIdentifier: "default",
      projectIdentifier: "overrides",
      environmentRef: "prod",
      serviceRef: "checkout",
      type: "ENV_SERVICE_OVERRIDE",
      yamlInternal: yamlOf("7"),
    });
    await expect(p.create((await p.check({}, programFor(identifier))).inputs)).rejects.toThrow(
      `service override "${identifier}" (default/overrides/${identifier}) already exists. Set \`adopt: true\``,
    );
    bed.reset();
    const adopted = await p.create((await p.check({}, { ...programFor(identifier), adopt: true })).inputs);
    expect(adopted.outs).toMatchObject({ variables: [variable("2")], adopt: true, yaml: yamlOf("2") });
    expect(bed.sent()).toEqual([`GET ${BASE}/${identifier}`, `PUT ${BASE}`]);
  });

  it("a create whose answer was lost is found again, with no duplicate", async () => {
    const identifier = fresh();
    bed.reset();
    bed.proxy.once({ method: "POST", path: /\/serviceOverrides$/ }, { lose: true });
    const made = await p.create((await p.check({}, programFor(identifier))).inputs);
    expect(bed.proxy.writes().map((w) => `${w.method} ${w.path}`)).toEqual([`POST ${BASE}`]);
    expect(made.outs).toMatchObject({ identifier, variables: [variable("2")] });
  });

  it("imports by <org>/<project>/<identifier>", async () => {
    const { id, outs } = await created();
    if (mode !== "direct") return; // the import read has no state: the native provider's path
    expect(await impl.read(id, {} as never)).toEqual({
      id,
      props: outs,
      inputs: { ...programFor(outs.identifier as string), manifests: [], configFiles: [], adopt: false },
    });
  });
});
