/**
 * DeliveryEnvironment: check (no request), the diff by meaning, and the lifecycle against the
 * emulator directly and through the real dynamic-provider gRPC host: exact requests and outputs,
 * the version sent as `If-Match` (an edit between the update's read and its PUT is refused), drift
 * found by refresh, adopt, a lost create, import by id, delete.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import YAML from "yaml";
import {
  DeliveryEnvironment,
  DeliveryEnvironmentInputs,
  deliveryEnvironmentProviderText,
  deliveryEnvironmentYaml,
  impl,
} from "../../../provider/platform/delivery-environment";
import { type Driver, MODES, type Mode } from "../harness";
import { diffOfEachChange, NO_CHANGE, registrationOf, replaces, UPDATE } from "../kind-checks";
import { createProject, itRefusesWithNoRequest, slug, startTestbed, type Testbed, unique } from "../testbed";

type Props = Record<string, unknown>;

const variables = [{ name: "replicas", type: "Number", value: 3 }];
const base = { org: "default", project: "payments", name: "Production", type: "Production", variables };

let bed: Testbed;
let drivers: Record<Mode, Driver>;
const at = { org: "default", project: "payments" };
/** An environment request in `default/payments`, as someone else sends it. */
const byHand = (identifier: string, name: string, yaml?: string) => ({
  identifier,
  orgIdentifier: "default",
  projectIdentifier: "payments",
  name,
  type: "PreProduction" as const,
  ...(yaml === undefined ? {} : { yaml }),
});

beforeAll(async () => {
  bed = await startTestbed();
  drivers = await bed.drivers(impl, deliveryEnvironmentProviderText);
  await createProject(bed.platform, "payments", "Payments");
});

afterAll(async () => {
  await bed?.stop();
});

describe("DeliveryEnvironment check", () => {
  it("applies the defaults", async () => {
    expect(await impl.check({}, { ...base, identifier: "prod", variables: undefined })).toEqual({
      inputs: {
        ...base,
        identifier: "prod",
        variables: [],
        description: "",
        tags: {},
        adopt: false,
      },
    });
  });

  itRefusesWithNoRequest(
    [
      [
        "a missing type",
        { ...base, identifier: "e", type: undefined },
        "type",
        "PreProduction or Production",
      ],
      ["another type", { ...base, identifier: "e", type: "Staging" }, "type", "PreProduction or Production"],
      [
        "a variable of no known type",
        { ...base, identifier: "e", variables: [{ name: "v", type: "Bool", value: "1" }] },
        "variables[0].type",
        "String, Secret or Number",
      ],
      [
        "an override manifest without type",
        { ...base, identifier: "e", overrides: { manifests: [{ manifest: { identifier: "m", spec: {} } }] } },
        "overrides.manifests[0].manifest.type",
        "manifest type is required",
      ],
      ["a hyphenated identifier", { ...base, identifier: "e-1" }, "identifier", "can only contain"],
      ["a project without org", { ...base, org: undefined, identifier: "e" }, "org", "needs org"],
      [
        "a misspelt input",
        { ...base, identifier: "e", variable: [] },
        "variable",
        'unknown property "variable"',
      ],
    ],
    () => ({ bed, drivers }),
  );
});

describe("DeliveryEnvironment diff", () => {
  it("sees no change when the stored YAML says the same in another order; a variable or the type changes it", async () => {
    const inputs = (await impl.check({}, { ...base, identifier: "prod" })).inputs!;
    const yaml = deliveryEnvironmentYaml(inputs);
    const reordered = YAML.stringify(YAML.parse(yaml), { sortMapEntries: true, indent: 4 });
    const olds = { ...inputs, yaml: reordered, ref: "prod", version: 0 };
    expect(await impl.diff("default/payments/prod", olds, inputs)).toMatchObject({ changes: false });
    const more = {
      ...inputs,
      variables: [...inputs.variables, { name: "v", type: "String" as const, value: "1" }],
    };
    expect(await impl.diff("default/payments/prod", olds, more)).toMatchObject({
      changes: true,
      replaces: [],
    });
    expect(
      await impl.diff("default/payments/prod", olds, { ...inputs, type: "PreProduction" }),
    ).toMatchObject({
      changes: true,
      replaces: [],
    });
  });

  it("replaces when org, project or identifier changes, updates in place for every other input but adopt", async () => {
    const inputs = (await impl.check({}, { ...base, identifier: "prod" })).inputs!;
    const olds = { ...inputs, yaml: deliveryEnvironmentYaml(inputs), ref: "prod", version: 0 };
    const manifest = {
      identifier: "values",
      type: "Values",
      spec: {
        store: { type: "Github", spec: { connectorRef: "github", repoName: "checkout", paths: ["v.yaml"] } },
      },
    };
    expect(
      await diffOfEachChange(impl, DeliveryEnvironmentInputs, "default/payments/prod", olds, inputs, {
        org: { org: "acme" },
        project: { project: "other" },
        identifier: { identifier: "prod_2" },
        name: { name: "Prod" },
        description: { description: "the live one" },
        tags: { tags: { team: "payments" } },
        type: { type: "PreProduction" },
        variables: { variables: [] },
        overrides: { overrides: { manifests: [{ manifest }] } },
        adopt: { adopt: true },
      }),
    ).toEqual({
      org: replaces("org"),
      project: replaces("project"),
      identifier: replaces("identifier"),
      name: UPDATE,
      description: UPDATE,
      tags: UPDATE,
      type: UPDATE,
      variables: UPDATE,
      overrides: UPDATE,
      adopt: NO_CHANGE,
    });
  });
});

describe.each(MODES)("DeliveryEnvironment lifecycle (%s)", (via) => {
  const fresh = () => unique(`env_${slug(via)}`, "_");
  let d: Driver;
  const created = async (extra: Props = {}) => {
    const identifier = fresh();
    const inputs = (await d.check({}, { ...base, identifier, ...extra })).inputs;
    const { id, outs } = await d.create(inputs);
    return { identifier, inputs, id, outs };
  };

  beforeAll(() => {
    d = drivers[via];
  });

  it("creates with one POST of the exact body, reads it back with no diff", async () => {
    const identifier = fresh();
    const inputs = (await d.check({}, { ...base, identifier })).inputs;
    bed.reset();
    const { id, outs } = await d.create(inputs);
    expect(bed.sent()).toEqual(["POST /ng/api/environmentsV2"]);
    const yaml = `environment:
  name: Production
  identifier: ${identifier}
  orgIdentifier: default
  projectIdentifier: payments
  description: ""
  tags: {}
  type: Production
  variables:
    - name: replicas
      type: Number
      value: 3
`;
    expect(bed.proxy.writes()[0]!.body).toEqual({
      identifier,
      orgIdentifier: "default",
      projectIdentifier: "payments",
      name: "Production",
      description: "",
      tags: {},
      type: "Production",
      yaml,
    });
    expect(outs).toEqual({ ...inputs, yaml, ref: identifier, version: 0 });
    expect(id).toBe(`default/payments/${identifier}`);
    const read = await d.read(id, outs);
    expect(read.props).toEqual(outs);
    expect(read.inputs).toEqual(inputs);
    expect(await d.diff(id, read.props!, inputs)).toMatchObject({ changes: false });
  });

  it("updates with one read and one PUT guarded by the version; an edit in between is refused and survives", async () => {
    const { identifier, id, outs, inputs } = await created();
    const next = { ...inputs, description: "live traffic" };
    bed.proxy.once(
      { method: "GET", path: new RegExp(`^/ng/api/environmentsV2/${identifier}$`) },
      { after: async () => void (await bed.platform.environments.update(byHand(identifier, "Theirs"))) },
    );
    bed.reset();
    await expect(d.update(id, outs, next)).rejects.toThrow(
      `delivery environment "${identifier}" (${identifier}) was changed outside Pulumi while this update ran (after it read version 0, before its write)`,
    );
    expect(bed.sent()).toEqual([`GET /ng/api/environmentsV2/${identifier}`, "PUT /ng/api/environmentsV2"]);
    expect(bed.proxy.writes()[0]!.query).toMatchObject({ accountIdentifier: bed.emu.accountId });
    expect((await bed.platform.environments.get(identifier, at)).environment.name).toBe("Theirs");
    // Refresh finds the drift: the name, the type, and the variables gone from the YAML.
    const refreshed = await d.read(id, outs);
    expect(refreshed.props).toMatchObject({
      name: "Theirs",
      type: "PreProduction",
      variables: [],
      version: 1,
    });
    expect(await d.diff(id, refreshed.props!, next)).toMatchObject({ changes: true, replaces: [] });
    bed.reset();
    const updated = (await d.update(id, refreshed.props!, next)).outs;
    expect(bed.sent()).toEqual([`GET /ng/api/environmentsV2/${identifier}`, "PUT /ng/api/environmentsV2"]);
    expect(updated).toEqual({
      ...next,
      yaml: deliveryEnvironmentYaml(next as never),
      ref: identifier,
      version: 2,
    });
  });

  it("refuses an update over a field changed since it was recorded, with no write", async () => {
    const { identifier, id, outs, inputs } = await created();
    await bed.platform.environments.update({ ...byHand(identifier, "Theirs"), type: "Production" });
    bed.reset();
    await expect(d.update(id, outs, { ...inputs, name: "Ours" })).rejects.toThrow(
      `name: recorded "Production", live "Theirs", desired "Ours"`,
    );
    expect(bed.proxy.writes()).toEqual([]);
  });

  it("imports by <org>/<project>/<identifier>, deletes twice", async () => {
    const { identifier, id, outs, inputs } = await created();
    const imported = await d.read(`default/payments/${identifier}`, {});
    expect(imported.inputs).toEqual(inputs);
    expect(imported.props).toEqual(outs);
    await d.delete(id, outs);
    await expect(bed.platform.environments.get(identifier, at)).rejects.toMatchObject({ kind: "not-found" });
    expect(await d.read(id, outs)).toMatchObject({ id: undefined, props: undefined });
    await expect(d.delete(id, outs)).resolves.toBeUndefined();
  });

  it("adopts an existing environment with one read and one guarded PUT, and finds its own lost create", async () => {
    const identifier = fresh();
    await bed.platform.environments.create(byHand(identifier, "By hand"));
    const inputs = (await d.check({}, { ...base, identifier, adopt: true })).inputs;
    bed.reset();
    const adopted = await d.create(inputs);
    expect(bed.sent()).toEqual([`GET /ng/api/environmentsV2/${identifier}`, "PUT /ng/api/environmentsV2"]);
    expect(adopted.outs).toMatchObject({ name: "Production", type: "Production", variables, version: 1 });
    const lost = fresh();
    bed.proxy.once({ method: "POST", path: /^\/ng\/api\/environmentsV2$/ }, { lose: true });
    bed.reset();
    const found = await d.create({ ...inputs, identifier: lost, adopt: false });
    expect(bed.sent()).toEqual(["POST /ng/api/environmentsV2", `GET /ng/api/environmentsV2/${lost}`]);
    expect(found.outs).toMatchObject({ identifier: lost, version: 0 });
  });

  it("refuses a create of an identifier taken, naming adopt", async () => {
    const { inputs } = await created();
    await expect(d.create(inputs)).rejects.toThrow("already exists. Set `adopt: true`");
  });
});

describe("the DeliveryEnvironment class", () => {
  it("registers the DeliveryEnvironment type with the provider of provider/delivery-environment", async () => {
    expect(await registrationOf(DeliveryEnvironment, { ...base, identifier: "prod" })).toEqual({
      type: "pulumi-nodejs:dynamic/flagstack:DeliveryEnvironment",
      name: "r",
      provider: 'exports.handler = () => require("flagstack/provider/delivery-environment").impl;\n',
    });
  });
});
