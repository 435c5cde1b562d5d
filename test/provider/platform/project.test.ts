/**
 * Project: check (field by field, no request), diff (pure), and the lifecycle against the emulator
 * both by calling the implementation directly and through the real dynamic-provider gRPC host with
 * the serialized provider (needs `npm run build`: the serialized methods require `dist/`). Each
 * lifecycle test makes the project it needs under an identifier of its own, so it passes alone.
 * A project is its FME workspace (issue 38): `workspaceId` is that workspace's id, found by the
 * project's identifiers through the admin API, best-effort (absent without the admin settings or
 * when the admin API refuses).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { configureProvider, resetProvider } from "../../../provider/core/config";
import {
  impl,
  ProjectInputs,
  projectProviderText,
  projectReplaceOnChange,
} from "../../../provider/platform/project";
import { PROJECT_TYPE } from "../../../provider/types";
import type { PlatformClient } from "../../../sdk";
import { NotFoundError } from "../../../sdk/core/errors";
import { type Driver, MODES, type Mode } from "../harness";
import { diffOfEachChange, NO_CHANGE, replaces, replacing, UPDATE } from "../kind-checks";
import { itRefusesWithNoRequest, slug, startTestbed, type Testbed, unique } from "../testbed";

type Props = Record<string, unknown>;

const valid = { identifier: "payments", name: "Payments" };

let bed: Testbed;
let platform: PlatformClient;
let drivers: Record<Mode, Driver>;

/** `METHOD path` of each request the provider sent since the last reset. */
const sent = () => bed.sent();
/** Forgets every request seen so far, by the emulator and by the proxy. */
const reset = () => bed.reset();
/** The admin API's list of workspaces, as `METHOD path` in {@link sent}. */
const WORKSPACES = "GET /internal/api/v2/workspaces";
/** The query of each workspace list the provider sent since the last reset. */
const workspaceQueries = () =>
  bed.proxy
    .requests()
    .filter((r) => `${r.method} ${r.path}` === WORKSPACES)
    .map((r) => r.query);
/** The query that finds the workspace of project `identifier` of `org` (admin ref §1.2). */
const byProject = (identifier: string, org = "default") => ({
  offset: "0",
  limit: "100",
  organizationIdentifier: org,
  projectIdentifier: identifier,
});
/** The id of the workspace that is project `identifier` (the account owner's view). */
const workspaceIdOf = async (identifier: string, org = "default") => {
  const ws = await bed.admin.workspaces.getByHarnessProject(org, identifier);
  expect(ws?.id).toEqual(expect.any(String));
  return ws?.id;
};

beforeAll(async () => {
  bed = await startTestbed();
  platform = bed.platform;
  drivers = await bed.drivers(impl, projectProviderText);
});

afterAll(async () => {
  await bed?.stop();
});

describe("Project check", () => {
  it("applies the defaults: organization default, the service's colour, empty modules, description and tags", async () => {
    expect(await impl.check({}, valid)).toEqual({
      inputs: {
        org: "default",
        identifier: "payments",
        name: "Payments",
        color: "#0063F7",
        modules: [],
        description: "",
        tags: {},
        adopt: false,
      },
    });
  });

  const rows: [label: string, inputs: Props, property: string, reason: string][] = [
    ["missing identifier", { name: "Payments" }, "identifier", "identifier is required"],
    ["empty identifier", { ...valid, identifier: "" }, "identifier", "identifier cannot be empty"],
    [
      "identifier starting with a digit",
      { ...valid, identifier: "1payments" },
      "identifier",
      "can only contain alphanumeric, underscore and $ characters",
    ],
    [
      "identifier with a hyphen",
      { ...valid, identifier: "pay-ments" },
      "identifier",
      "can only contain alphanumeric, underscore and $ characters",
    ],
    [
      "reserved identifier",
      { ...valid, identifier: "account" },
      "identifier",
      "account is a keyword, so cannot be used",
    ],
    [
      "identifier of 129 characters",
      { ...valid, identifier: `p${"a".repeat(128)}` },
      "identifier",
      "can be 128 characters long",
    ],
    ["bad organization", { ...valid, org: "my-org" }, "org", "can only contain alphanumeric"],
    ["empty name", { ...valid, name: " " }, "name", "name cannot be empty."],
    [
      "name too long",
      { ...valid, name: "n".repeat(65) },
      "name",
      "name cannot be more than 64 characters long.",
    ],
    ["name with a colon", { ...valid, name: "Pay: ments" }, "name", "name can only contain alphanumeric"],
    ["colour by name", { ...valid, color: "red" }, "color", "color must be a hex colour #RRGGBB"],
    ["colour of five digits", { ...valid, color: "#12345" }, "color", "color must be a hex colour #RRGGBB"],
    ["colour not hex", { ...valid, color: "#GG0000" }, "color", "color must be a hex colour #RRGGBB"],
    ["colour without #", { ...valid, color: "0063F7" }, "color", "color must be a hex colour #RRGGBB"],
    ["colour a number", { ...valid, color: 255 }, "color", "color must be a hex colour #RRGGBB"],
    ["empty module", { ...valid, modules: ["CD", ""] }, "modules[1]", "module names cannot be empty"],
    [
      "description too long",
      { ...valid, description: "d".repeat(1025) },
      "description",
      "description must be at most 1024 characters",
    ],
    ["tag value not a string", { ...valid, tags: { team: 1 } }, "tags.team", "expected string"],
    ["tags a list", { ...valid, tags: ["team:payments"] }, "tags", "expected record"],
    ["adopt not a boolean", { ...valid, adopt: "yes" }, "adopt", "adopt must be true or false"],
    ["misspelt input", { ...valid, colour: "#FFFFFF" }, "colour", 'unknown property "colour"'],
  ];

  itRefusesWithNoRequest(rows, () => ({ bed, drivers }));
});

describe("Project diff", () => {
  const olds = {
    org: "default",
    identifier: "payments",
    name: "Payments",
    color: "#1F8A70",
    modules: ["CD", "CI", "CF"],
    description: "",
    tags: { team: "payments" },
    adopt: false,
    createdAt: 1,
    lastModifiedAt: 2,
  };
  const news = {
    org: "default",
    identifier: "payments",
    name: "Payments",
    color: "#1f8a70",
    modules: ["CD"],
    description: "",
    tags: { team: "payments" },
    adopt: false,
  };

  it("sees no change for the same project (colour case, enabled modules, outputs and adopt ignored)", async () => {
    expect(await impl.diff("default/payments", olds, { ...news, adopt: true })).toMatchObject({
      changes: false,
      replaces: [],
    });
  });

  it.each([
    ["name", { name: "Pay" }],
    ["color", { color: "#000000" }],
    ["description", { description: "Payment services" }],
    ["tags", { tags: { team: "web" } }],
    ["a module that is not enabled", { modules: ["STO"] }],
  ])("updates %s in place", async (_what, change) => {
    expect(await impl.diff("default/payments", olds, { ...news, ...change })).toMatchObject({
      changes: true,
      replaces: [],
      deleteBeforeReplace: false,
    });
  });

  it("replaces on organization and identifier alone, updates every other input in place but adopt", async () => {
    const table = await diffOfEachChange(impl, ProjectInputs, "default/payments", olds, news, {
      org: { org: "acme" },
      identifier: { identifier: "billing" },
      name: { name: "Pay" },
      color: { color: "#000000" },
      modules: { modules: ["STO"] },
      description: { description: "Payment services" },
      tags: { tags: { team: "web" } },
      adopt: { adopt: true },
    });
    expect(table).toEqual({
      org: replaces("org"),
      identifier: replaces("identifier"),
      name: UPDATE,
      color: UPDATE,
      modules: UPDATE,
      description: UPDATE,
      tags: UPDATE,
      adopt: NO_CHANGE,
    });
    // The replace list the native schema and the docs publish is the diff's.
    expect(projectReplaceOnChange).toEqual(replacing(table));
  });

  it("replaces on identifier and organization", async () => {
    expect(await impl.diff("default/payments", olds, { ...news, identifier: "billing" })).toMatchObject({
      changes: true,
      replaces: ["identifier"],
      deleteBeforeReplace: false,
    });
    expect(await impl.diff("default/payments", olds, { ...news, org: "acme" })).toMatchObject({
      replaces: ["org"],
      deleteBeforeReplace: false,
    });
  });

  it("deletes first when only the identifier's case changes (identifiers are case-insensitive on the service)", async () => {
    expect(await impl.diff("default/payments", olds, { ...news, identifier: "Payments" })).toMatchObject({
      changes: true,
      replaces: ["identifier"],
      deleteBeforeReplace: true,
    });
  });
});

describe.each(MODES)("Project lifecycle (%s)", (via) => {
  /** An identifier no other test uses. */
  const fresh = () => unique(`payments_${slug(via)}`, "_");
  const programFor = (identifier: string) => ({
    identifier,
    name: "Payments",
    color: "#1F8A70",
    modules: ["CD"],
    description: "Payment services",
    tags: { team: "payments" },
  });
  /** The program after its update: name, colour, description and tags changed. */
  const updatedFor = (identifier: string) => ({
    ...programFor(identifier),
    name: "Payments Team",
    color: "#FF8800",
    description: "",
    tags: { team: "payments", tier: "1" },
  });
  let d: Driver;
  /** A project of the test's own, created by the provider from `program(identifier)`. */
  const createdProject = async (program: (identifier: string) => Props = programFor) => {
    const identifier = fresh();
    const inputs = (await d.check({}, program(identifier))).inputs;
    const { id, outs } = await d.create(inputs);
    return { identifier, inputs, id, outs };
  };

  beforeAll(() => {
    d = drivers[via];
  });

  it("creates the project with one POST, and finds its workspace by its identifiers", async () => {
    const identifier = fresh();
    const checked = await d.check({}, programFor(identifier));
    expect(checked.failures ?? []).toEqual([]);
    const inputs = checked.inputs;
    reset();
    const { id, outs } = await d.create(inputs);
    expect(id).toBe(`default/${identifier}`);
    // The service enables every module (ref platform §4): the wanted one is among them.
    expect(outs).toMatchObject({
      ...inputs,
      modules: expect.arrayContaining(["CD"]),
      createdAt: expect.any(Number),
      lastModifiedAt: expect.any(Number),
      workspaceId: await workspaceIdOf(identifier),
    });
    expect(sent()).toEqual(["POST /ng/api/projects", WORKSPACES]);
    expect(workspaceQueries()).toEqual([byProject(identifier)]);
    const live = await platform.projects.get(identifier, { org: "default" });
    expect(live.project).toMatchObject({
      identifier,
      name: "Payments",
      color: "#1F8A70",
      description: "Payment services",
      tags: { team: "payments" },
    });
  });

  it("reads it back unchanged, and diffs as no change", async () => {
    const { inputs, id, outs } = await createdProject();
    const read = await d.read(id, outs);
    expect(read.id).toBe(id);
    expect(read.props).toEqual(outs);
    expect(await d.diff(id, read.props!, inputs)).toMatchObject({ changes: false, replaces: [] });
  });

  it("updates name, colour, description and tags in place with one read (and its workspace's) and one PUT", async () => {
    const { identifier, id, outs } = await createdProject();
    const next = (await d.check({}, updatedFor(identifier))).inputs;
    expect(await d.diff(id, outs, next)).toMatchObject({ changes: true, replaces: [] });
    reset();
    const updated = (await d.update(id, outs, next)).outs;
    expect(updated).toMatchObject({
      name: "Payments Team",
      color: "#FF8800",
      description: "",
      tags: { team: "payments", tier: "1" },
      // A rename renames the project's workspace; it is the same one.
      workspaceId: outs.workspaceId,
    });
    expect(outs.workspaceId).toBe(await workspaceIdOf(identifier));
    expect(sent()).toEqual([
      `GET /ng/api/projects/${identifier}`,
      WORKSPACES,
      `PUT /ng/api/projects/${identifier}`,
    ]);
    expect((await platform.projects.get(identifier, { org: "default" })).project).toMatchObject({
      name: "Payments Team",
      color: "#FF8800",
    });
    expect(await d.diff(id, updated, next)).toMatchObject({ changes: false });
  });

  it("refresh picks up an out-of-band change, and the next diff shows it", async () => {
    const { identifier, inputs, id, outs } = await createdProject(updatedFor);
    await platform.projects.update(
      identifier,
      {
        orgIdentifier: "default",
        identifier,
        name: "Renamed",
        color: "#FF8800",
        modules: outs.modules as string[],
        description: "",
        tags: {},
      },
      { org: "default" },
    );
    const read = await d.read(id, outs);
    expect(read.props).toMatchObject({ name: "Renamed", tags: {} });
    expect(read.inputs).toMatchObject({ name: "Renamed", tags: {} });
    expect(read.inputs).not.toHaveProperty("createdAt");
    expect(await d.diff(id, read.props!, inputs)).toMatchObject({ changes: true, replaces: [] });
    const updated = (await d.update(id, read.props!, inputs)).outs;
    expect(updated).toMatchObject({ name: "Payments Team", tags: { team: "payments", tier: "1" } });
  });

  it("an out-of-band edit between the update's read and its PUT is refused by the version, overwriting nothing", async () => {
    const { identifier, id, outs } = await createdProject();
    const next = (await d.check({}, updatedFor(identifier))).inputs;
    const theirs = { ...programFor(identifier), orgIdentifier: "default", name: "Edited in the UI" };
    bed.proxy.once(
      { method: "GET", path: new RegExp(`^/ng/api/projects/${identifier}$`) },
      { after: async () => void (await platform.projects.update(identifier, theirs, { org: "default" })) },
    );
    reset();
    await expect(d.update(id, outs, next)).rejects.toThrow(
      `project "${identifier}" in organization default was changed outside Pulumi while this update ran (after it read version ${outs.version}, before its write); the service refused the write, so nothing was overwritten. Run \`pulumi refresh\``,
    );
    expect(bed.proxy.requests().map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual([
      `GET /ng/api/projects/${identifier} 200`,
      `${WORKSPACES} 200`,
      `PUT /ng/api/projects/${identifier} 400`,
    ]);
    expect((await platform.projects.get(identifier, { org: "default" })).project.name).toBe(
      "Edited in the UI",
    );
  });

  it("refresh after an out-of-band delete reports it gone", async () => {
    const { identifier, id, outs } = await createdProject(updatedFor);
    await platform.projects.delete(identifier, { org: "default" });
    const read = await d.read(id, outs);
    expect(read.id).toBeUndefined();
  });

  it("deletes, and deleting again succeeds", async () => {
    const identifier = fresh();
    const inputs = (await d.check({}, updatedFor(identifier))).inputs;
    const { id, outs } = await d.create(inputs);
    await d.delete(id, outs);
    await expect(platform.projects.get(identifier, { org: "default" })).rejects.toMatchObject({
      kind: "not-found",
    });
    reset();
    await expect(d.delete(id, outs)).resolves.toBeUndefined();
  });

  it("refuses to take over an existing project without adopt, and adopts it with adopt: true", async () => {
    const identifier = fresh();
    const inputs = (await d.check({}, updatedFor(identifier))).inputs;
    await platform.projects.create(
      {
        orgIdentifier: "default",
        identifier,
        name: "Made by hand",
        color: "#000000",
        modules: [],
        description: "",
        tags: {},
      },
      { org: "default" },
    );
    await expect(d.create(inputs)).rejects.toThrow(
      `project "${identifier}" in organization default already exists. Set \`adopt: true\``,
    );
    reset();
    const adopted = await d.create({ ...inputs, adopt: true });
    expect(adopted.id).toBe(`default/${identifier}`);
    // One read to find it, its workspace's, one PUT to converge it to the program; no create.
    expect(sent()).toEqual([
      `GET /ng/api/projects/${identifier}`,
      WORKSPACES,
      `PUT /ng/api/projects/${identifier}`,
    ]);
    expect(adopted.outs).toMatchObject({
      name: "Payments Team",
      color: "#FF8800",
      adopt: true,
      workspaceId: await workspaceIdOf(identifier),
    });
    expect((await platform.projects.get(identifier, { org: "default" })).project.name).toBe("Payments Team");
    await d.delete(adopted.id, adopted.outs);
  });

  it("reads back the same workspaceId, and reports it in the props but not the inputs", async () => {
    const { identifier, id, outs } = await createdProject();
    reset();
    const read = await d.read(id, outs);
    expect(read.props).toEqual({ ...outs, workspaceId: await workspaceIdOf(identifier) });
    expect(read.inputs).not.toHaveProperty("workspaceId");
    expect(workspaceQueries()).toEqual([byProject(identifier)]);
  });

  it("takes the workspace made before it under its identifier: workspaceId is that workspace's", async () => {
    const identifier = fresh();
    const made = await bed.admin.workspaces.create({ name: identifier, requiresTitleAndComments: false });
    const { outs } = await d.create((await d.check({}, programFor(identifier))).inputs);
    expect(outs.workspaceId).toBe(made.id);
    expect(await bed.admin.workspaces.getByHarnessProject("default", identifier)).toEqual({
      ...made,
      organizationIdentifier: "default",
      projectIdentifier: identifier,
    });
  });

  it("reads a project by id alone (no old state)", async () => {
    const created = await createdProject(updatedFor);
    const read = await d.read(created.id, {});
    expect(read.id).toBe(created.id);
    expect(read.props).toMatchObject({
      org: "default",
      identifier: created.identifier,
      name: "Payments Team",
      color: "#FF8800",
      workspaceId: await workspaceIdOf(created.identifier),
    });
    expect(read.inputs).not.toHaveProperty("workspaceId");
    await d.delete(created.id, created.outs);
  });
});

describe.each(MODES)("Project create whose response was lost (%s)", (mode) => {
  it("finds the project it created instead of creating a duplicate", async () => {
    const identifier = `lost_${mode === "direct" ? "d" : "g"}`;
    const inputs = (await drivers[mode].check({}, { identifier, name: "Lost create" })).inputs;
    reset();
    bed.proxy.once({ method: "POST", path: /^\/ng\/api\/projects$/ }, { lose: true });
    const created = await drivers[mode].create(inputs);
    expect(created.id).toBe(`default/${identifier}`);
    expect(sent()).toEqual(["POST /ng/api/projects", `GET /ng/api/projects/${identifier}`, WORKSPACES]);
    expect(created.outs).toMatchObject({
      identifier,
      name: "Lost create",
      workspaceId: await workspaceIdOf(identifier),
    });
    await drivers[mode].delete(created.id, created.outs);
    await expect(platform.projects.get(identifier, { org: "default" })).rejects.toBeInstanceOf(NotFoundError);
  });
});

describe("Project workspaceId, best-effort (direct)", () => {
  /** Configures the direct calls' provider with `changes` over the testbed's settings, for `run`. */
  const withSettings = async (changes: Record<string, string | undefined>, run: () => Promise<void>) => {
    const config: Record<string, string | undefined> = { ...bed.config, ...changes };
    resetProvider();
    configureProvider({ get: (k) => config[k] });
    try {
      await run();
    } finally {
      resetProvider();
      configureProvider({ get: (k) => bed.config[k as keyof typeof bed.config] });
    }
  };
  const program = (identifier: string) => ({ identifier, name: "Payments" });
  /** Direct calls: the settings changed here are the process's, not the gRPC host's. */
  let d: Driver;
  beforeAll(() => {
    d = drivers.direct;
  });

  it("is absent without the admin API settings, which no request needs", async () => {
    await withSettings(
      { "flagstack:adminApiUrl": undefined, "flagstack:adminApiKey": undefined },
      async () => {
        const identifier = unique("no_admin", "_");
        reset();
        const { id, outs } = await d.create((await d.check({}, program(identifier))).inputs);
        expect(outs).not.toHaveProperty("workspaceId");
        expect((await d.read(id, outs)).props).toEqual(outs);
        expect(sent()).toEqual(["POST /ng/api/projects", `GET /ng/api/projects/${identifier}`]);
      },
    );
  });

  it("is absent when the admin API refuses the lookup, and the project is made all the same", async () => {
    await withSettings({ "flagstack:adminApiKey": "not-a-key" }, async () => {
      const identifier = unique("refused", "_");
      reset();
      const { id, outs } = await d.create((await d.check({}, program(identifier))).inputs);
      expect(id).toBe(`default/${identifier}`);
      expect(outs).not.toHaveProperty("workspaceId");
      expect(bed.proxy.requests().map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual([
        "POST /ng/api/projects 200",
        `${WORKSPACES} 401`,
      ]);
      expect((await platform.projects.get(identifier, { org: "default" })).project.identifier).toBe(
        identifier,
      );
    });
  });
});

describe("Project resource class", () => {
  it("registers under its own type token", () => {
    expect(PROJECT_TYPE).toBe("pulumi-nodejs:dynamic/flagstack:Project");
  });
});
