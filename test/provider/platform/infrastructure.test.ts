/**
 * Infrastructure: check (no request), the diff by meaning, and the lifecycle against the emulator
 * directly and through the real dynamic-provider gRPC host: exact requests and outputs, an
 * environment that does not exist refused by the service, drift found by refresh, adopt, a lost
 * create, import by id, delete.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import YAML from "yaml";
import {
  Infrastructure,
  InfrastructureInputs,
  impl,
  infrastructureProviderText,
  infrastructureYaml,
  parseInfrastructureId,
} from "../../../provider/platform/infrastructure";
import { type Driver, MODES, type Mode } from "../harness";
import { diffOfEachChange, NO_CHANGE, ONE_VALUE, registrationOf, replaces, UPDATE } from "../kind-checks";
import { createProject, itRefusesWithNoRequest, slug, startTestbed, type Testbed, unique } from "../testbed";

type Props = Record<string, unknown>;

const gke = {
  type: "KubernetesGcp",
  connectorRef: "gcp",
  cluster: "prod-1",
  namespace: "co",
  releaseName: "co",
};
const direct = { type: "KubernetesDirect", connectorRef: "k8s", namespace: "co", releaseName: "co" };
const base = { org: "default", project: "payments", environment: "prod", name: "GKE", definition: gke };
const at = { org: "default", project: "payments", environment: "prod" };

let bed: Testbed;
let drivers: Record<Mode, Driver>;

beforeAll(async () => {
  bed = await startTestbed();
  drivers = await bed.drivers(impl, infrastructureProviderText);
  await createProject(bed.platform, "payments", "Payments");
  await bed.platform.environments.create({
    identifier: "prod",
    orgIdentifier: "default",
    projectIdentifier: "payments",
    name: "Production",
    type: "Production",
  });
});

afterAll(async () => {
  await bed?.stop();
});

describe("Infrastructure check", () => {
  it("applies the defaults", async () => {
    expect(await impl.check({}, { ...base, identifier: "gke" })).toEqual({
      inputs: {
        ...base,
        identifier: "gke",
        deploymentType: "Kubernetes",
        description: "",
        tags: {},
        adopt: false,
      },
    });
  });

  itRefusesWithNoRequest(
    [
      ["no definition", { ...base, identifier: "i", definition: undefined }, "definition", ""],
      [
        "an untyped kind",
        { ...base, identifier: "i", definition: { ...direct, type: "Pdc" } },
        "definition.type",
        "KubernetesDirect or KubernetesGcp",
      ],
      [
        "GKE without cluster",
        { ...base, identifier: "i", definition: { ...gke, cluster: undefined } },
        "definition.cluster",
        "cluster is required",
      ],
      [
        "a direct cluster with an empty namespace",
        { ...base, identifier: "i", definition: { ...direct, namespace: "" } },
        "definition.namespace",
        "namespace cannot be empty",
      ],
      [
        "a cluster on a direct definition",
        { ...base, identifier: "i", definition: { ...direct, cluster: "x" } },
        "definition.cluster",
        'unknown property "cluster"',
      ],
      ["no environment", { ...base, identifier: "i", environment: undefined }, "environment", ""],
      [
        "another deployment type",
        { ...base, identifier: "i", deploymentType: "Ssh" },
        "deploymentType",
        "Kubernetes",
      ],
      ["a project without org", { ...base, org: undefined, identifier: "i" }, "org", "needs org"],
    ],
    () => ({ bed, drivers }),
  );
});

describe("Infrastructure diff", () => {
  it("compares the YAML by meaning; the spec updates in place", async () => {
    const inputs = (await impl.check({}, { ...base, identifier: "gke" })).inputs!;
    const reordered = YAML.stringify(YAML.parse(infrastructureYaml(inputs)), { sortMapEntries: true });
    const olds = { ...inputs, yaml: reordered };
    const id = "default/payments/prod/gke";
    expect(await impl.diff(id, olds, inputs)).toMatchObject({ changes: false });
    const moved = { ...inputs, definition: { ...inputs.definition, namespace: "other" } };
    expect(await impl.diff(id, olds, moved)).toMatchObject({ changes: true, replaces: [] });
  });

  it("replaces when org, project, identifier or environment changes, updates in place for every other input but adopt", async () => {
    const inputs = (await impl.check({}, { ...base, identifier: "gke" })).inputs!;
    const olds = { ...inputs, yaml: infrastructureYaml(inputs) };
    expect(
      await diffOfEachChange(impl, InfrastructureInputs, "default/payments/prod/gke", olds, inputs, {
        org: { org: "acme" },
        project: { project: "other" },
        identifier: { identifier: "gke_2" },
        name: { name: "GKE 2" },
        description: { description: "the cluster" },
        tags: { tags: { team: "payments" } },
        environment: { environment: "qa" },
        definition: {
          definition: { type: "KubernetesDirect", connectorRef: "k8s", namespace: "co", releaseName: "co" },
        },
        deploymentType: ONE_VALUE,
        adopt: { adopt: true },
      }),
    ).toEqual({
      org: replaces("org"),
      project: replaces("project"),
      identifier: replaces("identifier"),
      name: UPDATE,
      description: UPDATE,
      tags: UPDATE,
      environment: replaces("environment"),
      definition: UPDATE,
      deploymentType: ONE_VALUE,
      adopt: NO_CHANGE,
    });
  });

  it("reads ids of every scope back", () => {
    expect(parseInfrastructureId("default/payments/prod/gke")).toEqual({
      org: "default",
      project: "payments",
      environment: "prod",
      identifier: "gke",
    });
    expect(() => parseInfrastructureId("gke")).toThrow("expected <org>/<project>/<environment>/<identifier>");
  });
});

describe.each(MODES)("Infrastructure lifecycle (%s)", (via) => {
  const fresh = () => unique(`infra_${slug(via)}`, "_");
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
    expect(bed.sent()).toEqual(["POST /ng/api/infrastructures"]);
    const yaml = `infrastructureDefinition:
  name: GKE
  identifier: ${identifier}
  orgIdentifier: default
  projectIdentifier: payments
  environmentRef: prod
  description: ""
  tags: {}
  deploymentType: Kubernetes
  type: KubernetesGcp
  spec:
    connectorRef: gcp
    cluster: prod-1
    namespace: co
    releaseName: co
`;
    expect(bed.proxy.writes()[0]!.body).toEqual({
      identifier,
      orgIdentifier: "default",
      projectIdentifier: "payments",
      name: "GKE",
      description: "",
      tags: {},
      environmentRef: "prod",
      type: "KubernetesGcp",
      yaml,
    });
    expect(id).toBe(`default/payments/prod/${identifier}`);
    expect(outs).toEqual({ ...inputs, yaml });
    const read = await d.read(id, outs);
    expect(read.props).toEqual(outs);
    expect(read.inputs).toEqual(inputs);
    const imported = await d.read(id, {});
    expect(imported.inputs).toEqual(inputs);
    expect(await d.diff(id, read.props!, inputs)).toMatchObject({ changes: false });
  });

  it("fails in an environment that does not exist with the service's message", async () => {
    const inputs = (await d.check({}, { ...base, identifier: fresh(), environment: "nowhere" })).inputs;
    await expect(d.create(inputs)).rejects.toThrow("Environment with ref [nowhere] not found");
  });

  it("refresh finds a spec changed by hand; the update writes one PUT after one read", async () => {
    const { identifier, id, outs, inputs } = await created();
    const theirs = infrastructureYaml({ ...inputs, definition: direct } as never);
    await bed.platform.infrastructures.update({
      identifier,
      orgIdentifier: "default",
      projectIdentifier: "payments",
      name: "GKE",
      environmentRef: "prod",
      yaml: theirs,
    });
    const refreshed = await d.read(id, outs);
    expect(refreshed.props).toMatchObject({ definition: direct, yaml: theirs });
    expect(await d.diff(id, refreshed.props!, inputs)).toMatchObject({ changes: true, replaces: [] });
    // From the stale record the update refuses, naming the input the YAML holds (`definition`)
    // with its recorded, live and desired values, and writes nothing.
    bed.reset();
    const ours = { ...gke, namespace: "x" };
    await expect(d.update(id, outs, { ...inputs, definition: ours })).rejects.toThrow(
      `was changed outside Pulumi since its state was recorded, in a field this update changes:\n  definition: recorded {"cluster":"prod-1","connectorRef":"gcp","namespace":"co","releaseName":"co","type":"KubernetesGcp"}, live {"connectorRef":"k8s","namespace":"co","releaseName":"co","type":"KubernetesDirect"}, desired {"cluster":"prod-1","connectorRef":"gcp","namespace":"x","releaseName":"co","type":"KubernetesGcp"}\nNothing was written.`,
    );
    expect(bed.proxy.writes()).toEqual([]);
    bed.reset();
    const updated = (await d.update(id, refreshed.props!, inputs)).outs;
    expect(bed.sent()).toEqual([`GET /ng/api/infrastructures/${identifier}`, "PUT /ng/api/infrastructures"]);
    expect(updated).toEqual(outs);
  });

  it("adopts an existing infrastructure, finds its own lost create, deletes twice", async () => {
    const { identifier, inputs } = await created({ name: "By hand" });
    bed.reset();
    const adopted = await d.create({ ...inputs, name: "GKE", adopt: true });
    expect(bed.sent()).toEqual([`GET /ng/api/infrastructures/${identifier}`, "PUT /ng/api/infrastructures"]);
    expect(adopted.outs).toMatchObject({ name: "GKE" });
    const lost = fresh();
    bed.proxy.once({ method: "POST", path: /^\/ng\/api\/infrastructures$/ }, { lose: true });
    bed.reset();
    const found = await d.create({ ...inputs, identifier: lost });
    expect(bed.sent()).toEqual(["POST /ng/api/infrastructures", `GET /ng/api/infrastructures/${lost}`]);
    expect(found.id).toBe(`default/payments/prod/${lost}`);
    await d.delete(found.id, found.outs);
    await expect(bed.platform.infrastructures.get(lost, at)).rejects.toMatchObject({ kind: "not-found" });
    expect(await d.read(found.id, found.outs)).toMatchObject({ id: undefined });
    await expect(d.delete(found.id, found.outs)).resolves.toBeUndefined();
  });
});

describe("the Infrastructure class", () => {
  it("registers the Infrastructure type with the provider of provider/infrastructure", async () => {
    expect(await registrationOf(Infrastructure, { ...base, identifier: "gke" })).toEqual({
      type: "pulumi-nodejs:dynamic/flagstack:Infrastructure",
      name: "r",
      provider: 'exports.handler = () => require("flagstack/provider/infrastructure").impl;\n',
    });
  });
});
