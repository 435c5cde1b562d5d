/**
 * EnvironmentGroup lifecycle against the emulator, directly and through the gRPC host: check
 * (failures naming the field, no request), create (one POST with the YAML), read, environments
 * compared as a set, a guarded update (one PUT with `If-Match`: the changed field desired, the rest
 * live; a colleague's edit of the same field refused naming it), refresh after a deletion out of
 * band, delete, delete again, adopt, a create whose answer was lost, import by id.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { environmentGroupProviderText, impl } from "../../../provider/platform/environment-group";
import { type Driver, MODES } from "../harness";
import { createProject, slug, startTestbed, type Testbed, unique } from "../testbed";

let bed: Testbed;
const BASE = "/ng/api/environmentGroup";
const at = { org: "default", project: "groups" };

beforeAll(async () => {
  bed = await startTestbed();
  await createProject(bed.platform, "groups", "Groups");
});
afterAll(async () => {
  await bed?.stop();
});

/** The YAML the provider sends for a group of `default/groups`. */
const yamlOf = (identifier: string, name: string, envs: string[], description = "") =>
  [
    "environmentGroup:",
    `  name: ${name}`,
    `  identifier: ${identifier}`,
    `  description: "${description}"`,
    "  orgIdentifier: default",
    "  projectIdentifier: groups",
    "  tags: {}",
    `  envIdentifiers:${envs.length === 0 ? " []" : envs.map((e) => `\n    - ${e}`).join("")}`,
    "",
  ].join("\n");

describe.each(MODES)("EnvironmentGroup (%s)", (mode) => {
  let p: Driver;
  const fresh = () => unique(`egrp_${slug(mode)}`, "_");
  const programFor = (identifier: string, environments = ["prod_eu"]) => ({
    org: "default",
    project: "groups",
    identifier,
    name: "Production",
    environments,
  });
  /** A group of the test's own, created by the provider. */
  const created = async (environments = ["prod_eu"]) => {
    const identifier = fresh();
    const { id, outs } = await p.create((await p.check({}, programFor(identifier, environments))).inputs);
    return { identifier, id, outs };
  };
  /** Someone else's PUT of the group, with the version read. */
  const byHand = async (identifier: string, change: { name?: string; envs?: string[]; color?: string }) => {
    const live = await bed.platform.environmentGroups.get(identifier, at);
    await bed.platform.environmentGroups.update(
      {
        identifier,
        orgIdentifier: "default",
        projectIdentifier: "groups",
        color: change.color ?? live.envGroup.color,
        yaml: yamlOf(
          identifier,
          change.name ?? live.envGroup.name,
          change.envs ?? live.envGroup.envIdentifiers,
        ),
      },
      { ifMatch: live.version },
    );
  };

  beforeAll(async () => {
    p = await bed.driver(mode, impl, environmentGroupProviderText);
  });

  it("refuses bad input naming each field, with no request", async () => {
    bed.reset();
    const checked = await p.check(
      {},
      { project: "groups", identifier: "g-1", name: "G", color: "red", environments: ["prod-eu"], envs: [] },
    );
    expect(checked.failures).toEqual([
      {
        property: "identifier",
        reason: expect.stringContaining("can only contain"),
      },
      { property: "color", reason: "color must be a hex colour #RRGGBB" },
      { property: "environments[0]", reason: expect.stringContaining("can only contain") },
      { property: "envs", reason: 'unknown property "envs"' },
    ]);
    expect(bed.emu.requests()).toEqual([]);
  });

  it("checks environments as a set and applies the defaults", async () => {
    const checked = await p.check({}, programFor("g", ["prod_us", "prod_eu", "prod_us"]));
    expect(checked.failures ?? []).toEqual([]);
    expect(checked.inputs).toEqual({
      ...programFor("g", ["prod_eu", "prod_us"]),
      description: "",
      tags: {},
      color: "#0063F7",
      adopt: false,
    });
  });

  it("creates with one POST of the typed YAML", async () => {
    const identifier = fresh();
    const inputs = (await p.check({}, programFor(identifier, ["prod_us", "prod_eu"]))).inputs;
    bed.reset();
    const made = await p.create(inputs);
    const yaml = yamlOf(identifier, "Production", ["prod_eu", "prod_us"]);
    expect(made).toEqual({
      id: `default/groups/${identifier}`,
      outs: { ...inputs, yaml, ref: identifier, version: 0 },
    });
    expect(
      bed.proxy.writes().map(({ method, path, body, status }) => ({ method, path, body, status })),
    ).toEqual([
      {
        method: "POST",
        path: BASE,
        body: { identifier, orgIdentifier: "default", projectIdentifier: "groups", color: "#0063F7", yaml },
        status: 200,
      },
    ]);
  });

  it("reads what it created; environments in another order are no change, with no request", async () => {
    const { id, outs } = await created(["prod_eu", "prod_us"]);
    expect(await p.read(id, outs)).toEqual({
      id,
      props: outs,
      inputs: {
        ...programFor(outs.identifier as string, ["prod_eu", "prod_us"]),
        description: "",
        tags: {},
        color: "#0063F7",
        adopt: false,
      },
    });
    bed.reset();
    const news = (await p.check(outs, programFor(outs.identifier as string, ["prod_us", "prod_eu"]))).inputs;
    expect(await p.diff(id, outs, news)).toEqual({
      changes: false,
      replaces: [],
      deleteBeforeReplace: false,
    });
    expect(bed.emu.requests()).toEqual([]);
  });

  it("replaces on a new identifier; environments update in place", async () => {
    const { identifier, id, outs } = await created();
    const moved = (await p.check(outs, programFor(`${identifier}_2`))).inputs;
    expect(await p.diff(id, outs, moved)).toMatchObject({ changes: true, replaces: ["identifier"] });
    const more = (await p.check(outs, programFor(identifier, ["prod_eu", "prod_us"]))).inputs;
    expect(await p.diff(id, outs, more)).toEqual({ changes: true, replaces: [], deleteBeforeReplace: false });
  });

  it("updates environments with a read and one PUT with If-Match, keeping a colleague's name", async () => {
    const { identifier, id, outs } = await created();
    await byHand(identifier, { name: "Prod colleague" });
    const news = (await p.check(outs, programFor(identifier, ["prod_eu", "prod_us"]))).inputs;
    bed.reset();
    const { outs: after } = await p.update(id, outs, news);
    const yaml = yamlOf(identifier, "Prod colleague", ["prod_eu", "prod_us"]);
    expect(
      bed.proxy.writes().map(({ method, path, body, status }) => ({ method, path, body, status })),
    ).toEqual([
      {
        method: "PUT",
        path: `${BASE}/${identifier}`,
        body: { identifier, orgIdentifier: "default", projectIdentifier: "groups", color: "#0063F7", yaml },
        status: 200,
      },
    ]);
    expect(bed.sent()).toEqual([`GET ${BASE}/${identifier}`, `PUT ${BASE}/${identifier}`]);
    expect(after).toEqual({
      ...outs,
      name: "Prod colleague",
      environments: ["prod_eu", "prod_us"],
      yaml,
      version: 2,
    });
  });

  it("sends the version read as If-Match: an edit between the read and the PUT is refused, not overwritten", async () => {
    const { identifier, id, outs } = await created();
    bed.proxy.once(
      { method: "GET", path: new RegExp(`^${BASE}/${identifier}$`) },
      { after: async () => void (await byHand(identifier, { name: "Theirs" })) },
    );
    const news = (await p.check(outs, programFor(identifier, ["prod_us"]))).inputs;
    bed.reset();
    await expect(p.update(id, outs, news)).rejects.toThrow(
      `environment group "${identifier}" (${identifier}) was changed outside Pulumi while this update ran (after it read version 0, before its write)`,
    );
    expect(bed.proxy.writes().map((w) => `${w.method} ${w.path} ${w.status}`)).toEqual([
      `PUT ${BASE}/${identifier} 400`,
    ]);
    expect((await bed.platform.environmentGroups.get(identifier, at)).envGroup).toMatchObject({
      name: "Theirs",
      envIdentifiers: ["prod_eu"],
    });
  });

  it("refuses an update of environments a colleague changed, naming the field, with nothing written", async () => {
    const { identifier, id, outs } = await created();
    await byHand(identifier, { envs: ["qa"] });
    const news = (await p.check(outs, programFor(identifier, ["prod_us"]))).inputs;
    bed.reset();
    await expect(p.update(id, outs, news)).rejects.toThrow(
      `environment group "${identifier}" (${identifier}) was changed outside Pulumi since its state was recorded, in a field this update changes:\n` +
        '  environments: recorded ["prod_eu"], live ["qa"], desired ["prod_us"]\n' +
        "Nothing was written.",
    );
    expect(bed.proxy.writes()).toEqual([]);
  });

  it("refresh reports a group deleted out of band as gone; delete is one DELETE, and again succeeds", async () => {
    const gone = await created();
    await bed.platform.environmentGroups.delete(gone.identifier, at);
    expect(await p.read(gone.id, gone.outs)).toEqual({ id: undefined, props: undefined, inputs: undefined });
    const { identifier, id, outs } = await created();
    bed.reset();
    await p.delete(id, outs);
    expect(bed.sent()).toEqual([`DELETE ${BASE}/${identifier}`]);
    await expect(bed.platform.environmentGroups.get(identifier, at)).rejects.toMatchObject({ status: 400 });
    await expect(p.delete(id, outs)).resolves.toBeUndefined();
  });

  it("refuses an existing group unless adopt is set, then converges it with one guarded PUT", async () => {
    const identifier = fresh();
    await bed.platform.environmentGroups.create({
      identifier,
      orgIdentifier: "default",
      projectIdentifier: "groups",
      yaml: yamlOf(identifier, "By hand", ["qa"]),
    });
    await expect(p.create((await p.check({}, programFor(identifier))).inputs)).rejects.toThrow(
      `environment group "${identifier}" (${identifier}) already exists. Set \`adopt: true\``,
    );
    bed.reset();
    const adopted = await p.create((await p.check({}, { ...programFor(identifier), adopt: true })).inputs);
    expect(adopted.outs).toMatchObject({
      name: "Production",
      environments: ["prod_eu"],
      adopt: true,
      version: 1,
    });
    expect(bed.sent()).toEqual([`GET ${BASE}/${identifier}`, `PUT ${BASE}/${identifier}`]);
  });

  it("a create whose answer was lost is found again, with no duplicate", async () => {
    const identifier = fresh();
    bed.reset();
    bed.proxy.once({ method: "POST", path: /\/environmentGroup$/ }, { lose: true });
    const made = await p.create((await p.check({}, programFor(identifier))).inputs);
    expect(bed.proxy.writes().map((w) => `${w.method} ${w.path}`)).toEqual([`POST ${BASE}`]);
    expect(made.outs).toMatchObject({ identifier, environments: ["prod_eu"], version: 0 });
  });

  it("imports by <org>/<project>/<identifier>", async () => {
    const { id, outs } = await created();
    if (mode !== "direct") return; // the import read has no state: the native provider's path
    expect(await impl.read(id, {} as never)).toEqual({
      id,
      props: outs,
      inputs: {
        ...programFor(outs.identifier as string),
        description: "",
        tags: {},
        color: "#0063F7",
        adopt: false,
      },
    });
  });
});
