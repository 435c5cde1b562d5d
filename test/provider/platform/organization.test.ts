/**
 * Organization: check (field by field, no request), diff (pure), and the lifecycle against the
 * emulator both by calling the implementation directly and through the real dynamic-provider gRPC
 * host with the serialized provider (needs `npm run build`: the serialized methods require `dist/`).
 * Each lifecycle test makes the organization it needs under an identifier of its own.
 */
import * as pulumi from "@pulumi/pulumi";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { providerText } from "../../../provider/core/resource";
import {
  impl,
  Organization,
  OrganizationInputs,
  organizationProviderText,
  organizationReplaceOnChange,
} from "../../../provider/platform/organization";
import { Project, impl as project } from "../../../provider/platform/project";
import { getOrganization } from "../../../provider/platform-lookups";
import { ORGANIZATION_TYPE, PROJECT_TYPE } from "../../../provider/types";
import type { PlatformClient } from "../../../sdk";
import { NotFoundError } from "../../../sdk/core/errors";
import { type Driver, MODES, type Mode } from "../harness";
import { diffOfEachChange, NO_CHANGE, replaces, replacing, UPDATE } from "../kind-checks";
import { itRefusesWithNoRequest, slug, startTestbed, type Testbed, unique } from "../testbed";

type Props = Record<string, unknown>;

const valid = { identifier: "payments_org", name: "Payments" };

let bed: Testbed;
let platform: PlatformClient;
let drivers: Record<Mode, Driver>;

const sent = () => bed.sent();
const reset = () => bed.reset();

beforeAll(async () => {
  bed = await startTestbed();
  platform = bed.platform;
  drivers = await bed.drivers(impl, organizationProviderText);
});

afterAll(async () => {
  await bed?.stop();
});

describe("Organization check", () => {
  it("applies the defaults: empty description and tags, no adopt", async () => {
    expect(await impl.check({}, valid)).toEqual({
      inputs: { identifier: "payments_org", name: "Payments", description: "", tags: {}, adopt: false },
    });
  });

  const rows: [label: string, inputs: Props, property: string, reason: string][] = [
    ["missing identifier", { name: "Payments" }, "identifier", "identifier is required"],
    [
      "identifier with a hyphen",
      { ...valid, identifier: "pay-ments" },
      "identifier",
      "can only contain alphanumeric, underscore and $ characters",
    ],
    [
      "reserved identifier",
      { ...valid, identifier: "org" },
      "identifier",
      "org is a keyword, so cannot be used",
    ],
    ["empty name", { ...valid, name: " " }, "name", "name cannot be empty."],
    [
      "description too long",
      { ...valid, description: "d".repeat(1025) },
      "description",
      "description must be at most 1024 characters",
    ],
    ["tag value not a string", { ...valid, tags: { team: 1 } }, "tags.team", "expected string"],
    ["adopt not a boolean", { ...valid, adopt: "yes" }, "adopt", "adopt must be true or false"],
    ["misspelt input", { ...valid, color: "#FFFFFF" }, "color", 'unknown property "color"'],
  ];

  itRefusesWithNoRequest(rows, () => ({ bed, drivers }));
});

describe("Organization diff", () => {
  const olds = {
    identifier: "payments_org",
    name: "Payments",
    description: "",
    tags: { team: "payments" },
    adopt: false,
    createdAt: 1,
    lastModifiedAt: 2,
    version: 0,
  };
  const news = {
    identifier: "payments_org",
    name: "Payments",
    description: "",
    tags: { team: "payments" },
    adopt: false,
  };

  it("sees no change for the same organization (outputs and adopt ignored)", async () => {
    expect(await impl.diff("payments_org", olds, { ...news, adopt: true })).toMatchObject({
      changes: false,
      replaces: [],
    });
  });

  it.each([
    ["name", { name: "Pay" }],
    ["description", { description: "Payment services" }],
    ["tags", { tags: { team: "web" } }],
  ])("updates %s in place", async (_what, change) => {
    expect(await impl.diff("payments_org", olds, { ...news, ...change })).toMatchObject({
      changes: true,
      replaces: [],
      deleteBeforeReplace: false,
    });
  });

  it("replaces on identifier alone, updates every other input in place but adopt", async () => {
    const table = await diffOfEachChange(impl, OrganizationInputs, "payments_org", olds, news, {
      identifier: { identifier: "billing" },
      name: { name: "Pay" },
      description: { description: "Payment services" },
      tags: { tags: { team: "web" } },
      adopt: { adopt: true },
    });
    expect(table).toEqual({
      identifier: replaces("identifier"),
      name: UPDATE,
      description: UPDATE,
      tags: UPDATE,
      adopt: NO_CHANGE,
    });
    // The replace list the native schema and the docs publish is the diff's.
    expect(organizationReplaceOnChange).toEqual(replacing(table));
  });

  it("replaces on identifier, deleting first when only its case changes", async () => {
    expect(await impl.diff("payments_org", olds, { ...news, identifier: "billing" })).toMatchObject({
      changes: true,
      replaces: ["identifier"],
      deleteBeforeReplace: false,
    });
    expect(await impl.diff("payments_org", olds, { ...news, identifier: "Payments_Org" })).toMatchObject({
      replaces: ["identifier"],
      deleteBeforeReplace: true,
    });
  });
});

describe.each(MODES)("Organization lifecycle (%s)", (via) => {
  const fresh = () => unique(`org_${slug(via)}`, "_");
  const programFor = (identifier: string) => ({
    identifier,
    name: "Payments",
    description: "Payment teams",
    tags: { team: "payments" },
  });
  const updatedFor = (identifier: string) => ({
    ...programFor(identifier),
    name: "Payments Group",
    tags: { team: "payments", tier: "1" },
  });
  let d: Driver;
  const createdOrg = async (program: (identifier: string) => Props = programFor) => {
    const identifier = fresh();
    const inputs = (await d.check({}, program(identifier))).inputs;
    const { id, outs } = await d.create(inputs);
    return { identifier, inputs, id, outs };
  };

  beforeAll(() => {
    d = drivers[via];
  });

  it("creates the organization with one POST, and reads it back as no change", async () => {
    const identifier = fresh();
    const inputs = (await d.check({}, programFor(identifier))).inputs;
    reset();
    const { id, outs } = await d.create(inputs);
    expect(id).toBe(identifier);
    expect(outs).toEqual({
      ...inputs,
      createdAt: expect.any(Number),
      lastModifiedAt: expect.any(Number),
      version: 0,
    });
    expect(sent()).toEqual(["POST /ng/api/organizations"]);
    expect((await platform.organizations.get(identifier, {})).organization).toEqual({
      identifier,
      name: "Payments",
      description: "Payment teams",
      tags: { team: "payments" },
    });
    const read = await d.read(id, outs);
    expect(read.props).toEqual(outs);
    expect(await d.diff(id, read.props!, inputs)).toMatchObject({ changes: false, replaces: [] });
  });

  it("updates one field with one read and one PUT guarded by the version", async () => {
    const { identifier, id, outs } = await createdOrg();
    const next = (await d.check({}, { ...programFor(identifier), name: "Payments Group" })).inputs;
    reset();
    const updated = (await d.update(id, outs, next)).outs;
    expect(updated).toMatchObject({ name: "Payments Group", tags: { team: "payments" }, version: 1 });
    expect(bed.proxy.requests().map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual([
      `GET /ng/api/organizations/${identifier} 200`,
      `PUT /ng/api/organizations/${identifier} 200`,
    ]);
    expect(await d.diff(id, updated, next)).toMatchObject({ changes: false });
  });

  it("an out-of-band edit between the update's read and its PUT is refused, overwriting nothing", async () => {
    const { identifier, id, outs } = await createdOrg();
    const next = (await d.check({}, updatedFor(identifier))).inputs;
    bed.proxy.once(
      { method: "GET", path: new RegExp(`^/ng/api/organizations/${identifier}$`) },
      {
        after: async () =>
          void (await platform.organizations.update({ ...programFor(identifier), name: "Edited in the UI" })),
      },
    );
    await expect(d.update(id, outs, next)).rejects.toThrow(
      `organization "${identifier}" was changed outside Pulumi while this update ran (after it read version ${outs.version}, before its write); the service refused the write, so nothing was overwritten.`,
    );
    expect((await platform.organizations.get(identifier, {})).organization.name).toBe("Edited in the UI");
  });

  it("refresh picks up an out-of-band change; after an out-of-band delete it is gone", async () => {
    const { identifier, inputs, id, outs } = await createdOrg();
    await platform.organizations.update({ ...programFor(identifier), name: "Renamed", tags: {} });
    const read = await d.read(id, outs);
    expect(read.inputs).toMatchObject({ name: "Renamed", tags: {} });
    expect(read.inputs).not.toHaveProperty("version");
    expect(await d.diff(id, read.props!, inputs)).toMatchObject({ changes: true, replaces: [] });
    await platform.organizations.delete(identifier, {});
    expect((await d.read(id, outs)).id).toBeUndefined();
  });

  it("imports by identifier alone (no old state)", async () => {
    const created = await createdOrg(updatedFor);
    const read = await d.read(created.identifier, {});
    expect(read.id).toBe(created.identifier);
    expect(read.inputs).toEqual({
      identifier: created.identifier,
      name: "Payments Group",
      description: "Payment teams",
      tags: { team: "payments", tier: "1" },
      adopt: false,
    });
    await d.delete(created.id, created.outs);
  });

  it("refuses to take over an existing organization without adopt, and adopts it with adopt: true", async () => {
    const identifier = fresh();
    const inputs = (await d.check({}, updatedFor(identifier))).inputs;
    await platform.organizations.create({ identifier, name: "Made by hand" });
    await expect(d.create(inputs)).rejects.toThrow(
      `organization "${identifier}" already exists. Set \`adopt: true\``,
    );
    reset();
    const adopted = await d.create({ ...inputs, adopt: true });
    expect(sent()).toEqual([
      `GET /ng/api/organizations/${identifier}`,
      `PUT /ng/api/organizations/${identifier}`,
    ]);
    expect(adopted.outs).toMatchObject({ name: "Payments Group", adopt: true });
    await d.delete(adopted.id, adopted.outs);
  });

  it("deletes, and deleting again succeeds", async () => {
    const { identifier, id, outs } = await createdOrg();
    await d.delete(id, outs);
    await expect(platform.organizations.get(identifier, {})).rejects.toBeInstanceOf(NotFoundError);
    await expect(d.delete(id, outs)).resolves.toBeUndefined();
  });
});

describe("Organization create whose response was lost", () => {
  it("finds the organization it created instead of creating a duplicate", async () => {
    const identifier = "lost_org";
    const inputs = (await drivers.direct.check({}, { identifier, name: "Lost create" })).inputs;
    reset();
    bed.proxy.once({ method: "POST", path: /^\/ng\/api\/organizations$/ }, { lose: true });
    const created = await drivers.direct.create(inputs);
    expect(created.id).toBe(identifier);
    expect(sent()).toEqual(["POST /ng/api/organizations", `GET /ng/api/organizations/${identifier}`]);
    await drivers.direct.delete(created.id, created.outs);
  });
});

describe("Organization and its projects", () => {
  it("a project takes the organization's identifier output, lives in it, and the lookup finds the organization", async () => {
    const org = await impl.create(
      (await impl.check({}, { identifier: "delivery_org", name: "Delivery" })).inputs!,
    );
    const proj = await project.create(
      (await project.check({}, { org: org.outs!.identifier, identifier: "checkout", name: "Checkout" }))
        .inputs!,
    );
    expect(proj.id).toBe("delivery_org/checkout");
    expect((await platform.projects.get("checkout", { org: "delivery_org" })).project.orgIdentifier).toBe(
      "delivery_org",
    );
    expect(await getOrganization({ identifier: "delivery_org" }, { client: platform })).toEqual({
      identifier: "delivery_org",
      name: "Delivery",
      description: "",
      tags: {},
      createdAt: org.outs!.createdAt,
      lastModifiedAt: org.outs!.lastModifiedAt,
      version: 0,
    });
    await project.delete(proj.id, proj.outs!);
    await impl.delete(org.id, org.outs!);
  });
});

describe("Organization resource class", () => {
  it("registers under its own type token", () => {
    expect(ORGANIZATION_TYPE).toBe("pulumi-nodejs:dynamic/flagstack:Organization");
    expect(Organization.__pulumiType).toBe(ORGANIZATION_TYPE);
  });

  it("gives a Project its identifier output: the project is registered with it once the organization is", async () => {
    const registered: pulumi.runtime.MockResourceArgs[] = [];
    await pulumi.runtime.setMocks(
      {
        newResource: (args) => {
          registered.push(args);
          const { __provider: _, ...inputs } = args.inputs as Record<string, unknown>;
          return { id: `${args.name}-id`, state: { ...inputs, createdAt: 1, lastModifiedAt: 2 } };
        },
        call: () => ({}),
      },
      "shop",
      "dev",
    );
    const org = new Organization("delivery", { identifier: "delivery", name: "Delivery" });
    const proj = new Project("storefront", {
      org: org.identifier,
      identifier: "storefront",
      name: "Storefront",
    });
    const projectOrg = await new Promise((resolve) => proj.org.apply(resolve));
    expect(projectOrg).toBe("delivery");
    expect(registered.map((r) => [r.type, (r.inputs as { org?: string }).org])).toEqual([
      [ORGANIZATION_TYPE, undefined],
      [PROJECT_TYPE, "delivery"],
    ]);
    expect((registered[0]!.inputs as { __provider: string }).__provider).toBe(providerText("organization"));
  });
});
