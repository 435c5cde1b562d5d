/**
 * Service: check (no request), the diff by meaning, and the lifecycle against the emulator directly
 * and through the real dynamic-provider gRPC host: the typed Kubernetes definition and raw YAML, the
 * version sent as `If-Match` (an edit between the update's read and its PUT is refused), refresh,
 * adopt, a lost create, delete.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import YAML from "yaml";
import {
  impl,
  Service,
  ServiceInputs,
  serviceProviderText,
  serviceYaml,
} from "../../../provider/platform/service";
import { type Driver, MODES, type Mode } from "../harness";
import { diffOfEachChange, NO_CHANGE, registrationOf, replaces, UPDATE } from "../kind-checks";
import { createProject, itRefusesWithNoRequest, slug, startTestbed, type Testbed, unique } from "../testbed";

type Props = Record<string, unknown>;

const kubernetes = {
  manifests: [
    {
      manifest: {
        identifier: "k8s",
        type: "K8sManifest",
        spec: {
          store: { type: "Github", spec: { connectorRef: "github", repoName: "checkout", paths: ["k8s/"] } },
        },
      },
    },
  ],
  artifacts: {
    primaryArtifactRef: "image",
    sources: [
      { identifier: "image", type: "DockerRegistry", spec: { connectorRef: "hub", imagePath: "acme/co" } },
    ],
  },
};
const base = { org: "default", project: "payments", name: "Checkout" };

let bed: Testbed;
let drivers: Record<Mode, Driver>;
const at = { org: "default", project: "payments" };
/** A service request in `default/payments`, as someone else sends it. */
const byHand = (identifier: string, name: string, yaml?: string) => ({
  identifier,
  orgIdentifier: "default",
  projectIdentifier: "payments",
  name,
  ...(yaml === undefined ? {} : { yaml }),
});

beforeAll(async () => {
  bed = await startTestbed();
  drivers = await bed.drivers(impl, serviceProviderText);
  await createProject(bed.platform, "payments", "Payments");
});

afterAll(async () => {
  await bed?.stop();
});

describe("Service check", () => {
  itRefusesWithNoRequest(
    [
      [
        "both definitions",
        { ...base, identifier: "s", kubernetes, yaml: "service: {}" },
        "yaml",
        "at most one",
      ],
      [
        "YAML of another service",
        { ...base, identifier: "s", yaml: "service:\n  identifier: t\n" },
        "yaml",
        "service.identifier is",
      ],
      [
        "YAML with a duplicate key",
        { ...base, identifier: "s", yaml: "service:\n  a: 1\n  a: 2\n" },
        "yaml",
        "unique",
      ],
      [
        "a manifest without type",
        {
          ...base,
          identifier: "s",
          kubernetes: { manifests: [{ manifest: { identifier: "m", spec: {} } }] },
        },
        "kubernetes.manifests[0].manifest.type",
        "manifest type is required",
      ],
      ["a project without org", { ...base, org: undefined, identifier: "s" }, "org", "needs org"],
    ],
    () => ({ bed, drivers }),
  );
});

describe("Service diff", () => {
  it("sees no change when the stored YAML says the same in another order, and a change when a manifest changes", async () => {
    const inputs = (await impl.check({}, { ...base, identifier: "s", kubernetes })).inputs!;
    const yaml = serviceYaml(inputs);
    const reordered = YAML.stringify(YAML.parse(yaml), { sortMapEntries: true, indent: 4 });
    const olds = { ...inputs, yaml: reordered, ref: "s" };
    expect(await impl.diff("default/payments/s", olds, inputs)).toMatchObject({ changes: false });
    const moved = {
      ...inputs,
      kubernetes: { ...inputs.kubernetes!, variables: [{ name: "v", type: "String" as const, value: "1" }] },
    };
    expect(await impl.diff("default/payments/s", olds, moved)).toMatchObject({ changes: true, replaces: [] });
  });

  it("replaces when org, project or identifier changes, updates in place for every other input but adopt", async () => {
    const inputs = (await impl.check({}, { ...base, identifier: "s", kubernetes })).inputs!;
    const olds = { ...inputs, yaml: serviceYaml(inputs), ref: "s", version: 0 };
    const ssh = "service:\n  serviceDefinition:\n    type: Ssh\n    spec: {}\n";
    expect(
      await diffOfEachChange(impl, ServiceInputs, "default/payments/s", olds, inputs, {
        org: { org: "acme" },
        project: { project: "other" },
        identifier: { identifier: "s_2" },
        name: { name: "Checkout 2" },
        description: { description: "the checkout" },
        tags: { tags: { team: "payments" } },
        kubernetes: { kubernetes: { ...kubernetes, manifests: [] } },
        yaml: { kubernetes: undefined, yaml: ssh },
        adopt: { adopt: true },
      }),
    ).toEqual({
      org: replaces("org"),
      project: replaces("project"),
      identifier: replaces("identifier"),
      name: UPDATE,
      description: UPDATE,
      tags: UPDATE,
      kubernetes: UPDATE,
      yaml: UPDATE,
      adopt: NO_CHANGE,
    });
  });
});

describe.each(MODES)("Service lifecycle (%s)", (via) => {
  const fresh = () => unique(`svc_${slug(via)}`, "_");
  let d: Driver;
  const created = async (extra: Props = {}) => {
    const identifier = fresh();
    const inputs = (await d.check({}, { ...base, identifier, kubernetes, ...extra })).inputs;
    const { id, outs } = await d.create(inputs);
    return { identifier, inputs, id, outs };
  };

  beforeAll(() => {
    d = drivers[via];
  });

  it("creates the typed definition with one POST, reads it back as typed with no diff", async () => {
    const identifier = fresh();
    const inputs = (await d.check({}, { ...base, identifier, kubernetes })).inputs;
    bed.reset();
    const { id, outs } = await d.create(inputs);
    expect([id, outs.ref, outs.version]).toEqual([`default/payments/${identifier}`, identifier, 0]);
    expect(bed.sent()).toEqual(["POST /ng/api/servicesV2"]);
    const stored = YAML.parse((await bed.platform.services.get(identifier, at)).service.yaml!);
    expect(stored.service.serviceDefinition).toEqual({
      type: "Kubernetes",
      spec: { manifests: kubernetes.manifests, artifacts: { primary: kubernetes.artifacts }, variables: [] },
    });
    const read = await d.read(id, outs);
    expect(read.props).toEqual(outs);
    expect(read.inputs).toEqual(inputs);
    expect(await d.diff(id, read.props!, inputs)).toMatchObject({ changes: false });
  });

  it("updates with one read and one PUT guarded by the version; an edit in between is refused and survives", async () => {
    const { identifier, id, outs, inputs } = await created();
    const next = { ...inputs, description: "the checkout" };
    bed.proxy.once(
      { method: "GET", path: new RegExp(`^/ng/api/servicesV2/${identifier}$`) },
      {
        after: async () =>
          void (await bed.platform.services.update(byHand(identifier, "Theirs", outs.yaml as string))),
      },
    );
    bed.reset();
    await expect(d.update(id, outs, next)).rejects.toThrow(
      `service "${identifier}" (${identifier}) was changed outside Pulumi while this update ran (after it read version 0, before its write)`,
    );
    expect((await bed.platform.services.get(identifier, at)).service.name).toBe("Theirs");
    const refreshed = await d.read(id, outs);
    expect(refreshed.props).toMatchObject({ name: "Theirs", version: 1 });
    bed.reset();
    const updated = (await d.update(id, refreshed.props!, next)).outs;
    expect(bed.sent()).toEqual([`GET /ng/api/servicesV2/${identifier}`, "PUT /ng/api/servicesV2"]);
    expect(updated).toMatchObject({ name: "Checkout", description: "the checkout", version: 2 });
  });

  it("manages raw YAML, filling in the resource's fields, and deletes twice", async () => {
    const identifier = fresh();
    const yaml = "service:\n  serviceDefinition:\n    type: Ssh\n    spec: {}\n";
    const inputs = (await d.check({}, { ...base, identifier, yaml })).inputs;
    const { id, outs } = await d.create(inputs);
    expect(YAML.parse(outs.yaml as string).service).toMatchObject({
      identifier,
      name: "Checkout",
      orgIdentifier: "default",
      projectIdentifier: "payments",
      serviceDefinition: { type: "Ssh", spec: {} },
    });
    expect(await d.diff(id, (await d.read(id, outs)).props!, inputs)).toMatchObject({ changes: false });
    await d.delete(id, outs);
    await expect(bed.platform.services.get(identifier, at)).rejects.toMatchObject({ kind: "not-found" });
    await expect(d.delete(id, outs)).resolves.toBeUndefined();
  });

  it("adopts an existing service with one read and one guarded PUT, and finds its own lost create", async () => {
    const identifier = fresh();
    await bed.platform.services.create(byHand(identifier, "By hand"));
    const inputs = (await d.check({}, { ...base, identifier, kubernetes, adopt: true })).inputs;
    bed.reset();
    const adopted = await d.create(inputs);
    expect(bed.sent()).toEqual([`GET /ng/api/servicesV2/${identifier}`, "PUT /ng/api/servicesV2"]);
    expect(adopted.outs).toMatchObject({ name: "Checkout", version: 1 });
    const lost = fresh();
    bed.proxy.once({ method: "POST", path: /^\/ng\/api\/servicesV2$/ }, { lose: true });
    bed.reset();
    await d.create({ ...inputs, identifier: lost, adopt: false });
    expect(bed.sent()).toEqual(["POST /ng/api/servicesV2", `GET /ng/api/servicesV2/${lost}`]);
  });
});

describe("the Service class", () => {
  it("registers the Service type with the provider of provider/service", async () => {
    expect(await registrationOf(Service, { ...base, identifier: "s", kubernetes })).toEqual({
      type: "pulumi-nodejs:dynamic/flagstack:Service",
      name: "r",
      provider: 'exports.handler = () => require("flagstack/provider/service").impl;\n',
    });
  });
});
