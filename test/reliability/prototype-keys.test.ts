/**
 * Identifiers and map keys that are names of `Object.prototype` members (`__proto__`,
 * `constructor`, `prototype`) work end to end (issue 23, item 2). The service's identifier
 * pattern (ref platform §3, `^[a-zA-Z_][0-9a-zA-Z_$]{0,127}$`, no such reserved word) accepts
 * them and a tag key is any string, so flagstack keeps them rather than refusing them:
 * - the emulator stores them, writes them to its state file, and serves them after a restart from
 *   that file (an organization `__proto__` and the project inside it, a `__proto__` tag);
 * - a JSON body's own `"__proto__"` key (a tag) is kept, never dropped nor made a prototype;
 * - the provider's check keeps them, and the provider creates and reads such an organization and
 *   project, directly and through the real gRPC host.
 * A flag's tags are a list of names (admin API), so `__proto__` is a value there: kept too.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Emulator, startEmulator } from "../../emulator";
import { KeyExpectation } from "../../policy/targeting";
import { impl as organization, organizationProviderText } from "../../provider/platform/organization";
import { impl as project, projectProviderText } from "../../provider/platform/project";
import { IdentityBody } from "../../sdk/admin/schemas";
import { caller as adminCaller } from "../emulator/helpers";
import { simplePipeline } from "../emulator/platform/harness";
import { type Driver, MODES, type Mode } from "../provider/harness";
import { startTestbed, type Testbed } from "../provider/testbed";

const root = mkdtempSync(join(tmpdir(), "flagstack-proto-keys-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const NAMES = ["__proto__", "constructor", "prototype"] as const;

/** A platform call with a raw JSON text body (so that `"__proto__"` is sent as written). */
async function platform(emu: Emulator, method: string, path: string, json?: string) {
  const sep = path.includes("?") ? "&" : "?";
  const res = await fetch(`${emu.url}${path}${sep}accountIdentifier=${emu.accountId}`, {
    method,
    headers: {
      "x-api-key": emu.platformKey,
      ...(json === undefined ? {} : { "content-type": "application/json" }),
    },
    body: json,
  });
  const text = await res.text();
  return { status: res.status, body: text === "" ? null : JSON.parse(text) };
}

/** Own members of a parsed JSON object, in order (`__proto__` included when it is one). */
const members = (o: unknown) => Object.entries(o as object);

describe("the emulator stores, persists and serves prototype-named identifiers and tags", () => {
  it("an organization __proto__ (constructor, prototype) and the project inside it survive a restart from the state file", async () => {
    const statePath = join(root, "identifiers.json");
    const emu = await startEmulator({ port: 0, statePath });
    for (const id of NAMES) {
      const org = await platform(
        emu,
        "POST",
        "/ng/api/organizations",
        `{"organization":{"identifier":"${id}","name":"n_${id}"}}`,
      );
      expect([org.status, org.body.data.organization.identifier]).toEqual([200, id]);
      const made = await platform(
        emu,
        "POST",
        `/ng/api/projects?orgIdentifier=${id}`,
        `{"project":{"orgIdentifier":"${id}","identifier":"${id}","name":"p_${id}"}}`,
      );
      expect([made.status, made.body.data.project.identifier]).toEqual([200, id]);
    }
    await emu.stop();

    const file = JSON.parse(readFileSync(statePath, "utf8"));
    expect(Object.keys(file.platform.organizations)).toEqual(["default", ...NAMES]);
    expect(Object.keys(file.platform.projects)).toEqual(NAMES.map((id) => `${id}/${id.toLowerCase()}`));

    const again = await startEmulator({ port: 0, statePath });
    for (const id of NAMES) {
      const org = await platform(again, "GET", `/ng/api/organizations/${id}`);
      expect([
        org.status,
        org.body.data?.organization?.identifier,
        org.body.data?.organization?.name,
      ]).toEqual([200, id, `n_${id}`]);
      const read = await platform(again, "GET", `/ng/api/projects/${id}?orgIdentifier=${id}`);
      expect([read.status, read.body.data?.project?.identifier, read.body.data?.project?.name]).toEqual([
        200,
        id,
        `p_${id}`,
      ]);
    }
    const list = await platform(again, "GET", "/ng/api/organizations?pageSize=10");
    expect(
      list.body.data.content
        .map((o: { organization: { identifier: string } }) => o.organization.identifier)
        .sort(),
    ).toEqual(["__proto__", "constructor", "default", "prototype"]);
    await again.stop();
  });

  it("a __proto__ tag of an organization and of a project is kept through create, read and restart", async () => {
    const statePath = join(root, "tags.json");
    const emu = await startEmulator({ port: 0, statePath });
    const org = await platform(
      emu,
      "POST",
      "/ng/api/organizations",
      '{"organization":{"identifier":"acme","name":"Acme","tags":{"__proto__":"x","team":"web"}}}',
    );
    expect([org.status, members(org.body.data.organization.tags)]).toEqual([
      200,
      [
        ["__proto__", "x"],
        ["team", "web"],
      ],
    ]);
    const made = await platform(
      emu,
      "POST",
      "/ng/api/projects?orgIdentifier=acme",
      '{"project":{"orgIdentifier":"acme","identifier":"shop","name":"Shop","tags":{"__proto__":"y"}}}',
    );
    expect([made.status, members(made.body.data.project.tags)]).toEqual([200, [["__proto__", "y"]]]);
    const readBack = await platform(emu, "GET", "/ng/api/projects/shop?orgIdentifier=acme");
    expect(members(readBack.body.data.project.tags)).toEqual([["__proto__", "y"]]);
    await emu.stop();

    const again = await startEmulator({ port: 0, statePath });
    const orgAfter = await platform(again, "GET", "/ng/api/organizations/acme");
    expect(members(orgAfter.body.data.organization.tags)).toEqual([
      ["__proto__", "x"],
      ["team", "web"],
    ]);
    const projectAfter = await platform(again, "GET", "/ng/api/projects/shop?orgIdentifier=acme");
    expect(members(projectAfter.body.data.project.tags)).toEqual([["__proto__", "y"]]);
    await again.stop();
  });

  it("a pipeline YAML's __proto__ tag is stored with the pipeline", async () => {
    const statePath = join(root, "pipeline.json");
    const emu = await startEmulator({ port: 0, statePath });
    const made = await platform(
      emu,
      "POST",
      "/ng/api/projects",
      '{"project":{"identifier":"proj","name":"P"}}',
    );
    expect(made.status).toBe(200);
    const res = await fetch(
      `${emu.url}/pipeline/api/pipelines/v2?accountIdentifier=${emu.accountId}&orgIdentifier=default&projectIdentifier=proj`,
      {
        method: "POST",
        headers: { "x-api-key": emu.platformKey, "content-type": "application/yaml" },
        body: simplePipeline("tagged", "proj", "default", "  tags:\n    __proto__: x\n    team: web\n"),
      },
    );
    expect(res.status).toBe(200);
    await emu.stop();
    const file = JSON.parse(readFileSync(statePath, "utf8"));
    expect(members(file.platform.pipelines["default/proj/tagged"].tags)).toEqual([
      ["__proto__", "x"],
      ["team", "web"],
    ]);
  });

  it("an event property __proto__ is stored and read back after a restart", async () => {
    const statePath = join(root, "events.json");
    const emu = await startEmulator({ port: 0, statePath });
    const sent = await fetch(`${emu.url}/api/events/bulk`, {
      method: "POST",
      headers: { authorization: `Bearer ${emu.sdkKey}`, "content-type": "application/json" },
      body: '[{"eventTypeId":"e","trafficTypeName":"user","key":"k","timestamp":1,"properties":{"__proto__":1,"plan":"pro"}}]',
    });
    expect(sent.status).toBe(202);
    expect(members(emu.events()[0]?.properties)).toEqual([
      ["__proto__", 1],
      ["plan", "pro"],
    ]);
    await emu.stop();
    const again = await startEmulator({ port: 0, statePath });
    expect(members(again.events()[0]?.properties)).toEqual([
      ["__proto__", 1],
      ["plan", "pro"],
    ]);
    await again.stop();
  });

  it("a tag __proto__ replacing another is kept by a PUT, and a change of its value is stored", async () => {
    const statePath = join(root, "put.json");
    const emu = await startEmulator({ port: 0, statePath });
    const org = (tags: string) => `{"organization":{"identifier":"tagged","name":"Tagged","tags":${tags}}}`;
    expect((await platform(emu, "POST", "/ng/api/organizations", org('{"a":"1"}'))).status).toBe(200);
    const put = await platform(emu, "PUT", "/ng/api/organizations/tagged", org('{"__proto__":"2"}'));
    expect([put.status, members(put.body.data.organization.tags)]).toEqual([200, [["__proto__", "2"]]]);
    await emu.stop();
    const again = await startEmulator({ port: 0, statePath });
    const read = await platform(again, "GET", "/ng/api/organizations/tagged");
    expect(members(read.body.data.organization.tags)).toEqual([["__proto__", "2"]]);
    await again.stop();
  });

  it("a flag tagged __proto__ and constructor keeps both tags through a restart", async () => {
    const statePath = join(root, "admin.json");
    const emu = await startEmulator({ port: 0, statePath });
    const call = adminCaller(emu);
    const ws = (await call("GET", "/internal/api/v2/workspaces?name=Default")).body.objects[0];
    const made = await call("POST", `/internal/api/v2/splits/ws/${ws.id}/trafficTypes/user/`, {
      body: { name: "constructor", description: "" },
    });
    expect(made.status).toBe(200);
    const tagged = await call(
      "POST",
      `/internal/api/v2/tags/ws/${ws.id}/object/constructor/objecttype/Split`,
      {
        body: ["__proto__", "constructor"],
      },
    );
    expect([tagged.status, tagged.body.tags]).toEqual([
      200,
      [{ name: "__proto__" }, { name: "constructor" }],
    ]);
    await emu.stop();
    const again = await startEmulator({ port: 0, statePath });
    const read = await adminCaller(again)("GET", `/internal/api/v2/splits/ws/${ws.id}/constructor`);
    expect([read.status, read.body.name, read.body.tags]).toEqual([
      200,
      "constructor",
      [{ name: "__proto__" }, { name: "constructor" }],
    ]);
    await again.stop();
  });
});

describe("the provider keeps prototype-named identifiers and tags", () => {
  let bed: Testbed;
  const orgs = {} as Record<Mode, Driver>;
  const projects = {} as Record<Mode, Driver>;
  beforeAll(async () => {
    bed = await startTestbed();
    Object.assign(orgs, await bed.drivers(organization, organizationProviderText));
    Object.assign(projects, await bed.drivers(project, projectProviderText));
  });
  afterAll(async () => {
    await bed?.stop();
  });

  /** Inputs with `tags` as JSON text, so that a `"__proto__"` key is an own member. */
  const tagged = (fields: Record<string, unknown>, tags: string) =>
    JSON.parse(`{${JSON.stringify(fields).slice(1, -1)},"tags":${tags}}`);

  // Through the gRPC host, tag keys `constructor` and `prototype`: Pulumi's Node.js runtime drops
  // an own `__proto__` key itself (google-protobuf `Struct.toJavaScript` assigns into `{}`), so the
  // resource class refuses one when the program declares it (test/provider/core/resource.test.ts).
  it.each(MODES)(
    "Organization check accepts each identifier, tag keys constructor and prototype kept (%s)",
    async (mode) => {
      for (const id of NAMES) {
        const checked = await orgs[mode].check(
          {},
          tagged({ identifier: id, name: "Named" }, '{"constructor":"c","prototype":"p"}'),
        );
        expect(checked.failures).toEqual([]);
        expect([checked.inputs.identifier, members(checked.inputs.tags)]).toEqual([
          id,
          [
            ["constructor", "c"],
            ["prototype", "p"],
          ],
        ]);
      }
    },
  );

  it("Organization check keeps a __proto__ tag (direct)", async () => {
    const checked = await orgs.direct.check(
      {},
      tagged({ identifier: "__proto__", name: "P" }, '{"__proto__":"x","team":"web"}'),
    );
    expect(checked.failures).toEqual([]);
    expect(members(checked.inputs.tags)).toEqual([
      ["__proto__", "x"],
      ["team", "web"],
    ]);
  });

  it("Organization diff sees a change of a __proto__ tag's value (direct)", async () => {
    const olds = tagged({ identifier: "acme", name: "Acme", description: "" }, '{"__proto__":"x"}');
    const news = tagged({ identifier: "acme", name: "Acme", description: "" }, '{"__proto__":"y"}');
    expect(await orgs.direct.diff("acme", olds, news)).toEqual({
      changes: true,
      replaces: [],
      deleteBeforeReplace: false,
    });
    expect((await orgs.direct.diff("acme", olds, olds)).changes).toBe(false);
  });

  it.each(MODES)(
    "creates and reads an organization __proto__ and a project in it, tags kept (%s)",
    async (mode) => {
      const tags = mode === "direct" ? '{"__proto__":"x","team":"web"}' : '{"constructor":"x","team":"web"}';
      const key = mode === "direct" ? "__proto__" : "constructor";
      const org = await orgs[mode].check({}, tagged({ identifier: "__proto__", name: "Proto" }, tags));
      const createdOrg = await orgs[mode].create(org.inputs);
      expect([createdOrg.id, createdOrg.outs.identifier, members(createdOrg.outs.tags)]).toEqual([
        "__proto__",
        "__proto__",
        [
          [key, "x"],
          ["team", "web"],
        ],
      ]);
      const proj = await projects[mode].check(
        {},
        tagged({ org: "__proto__", identifier: "prototype", name: "Proto" }, tags),
      );
      expect(proj.failures).toEqual([]);
      const createdProject = await projects[mode].create(proj.inputs);
      const read = await projects[mode].read(createdProject.id, createdProject.outs);
      expect([read.id, read.props?.org, read.props?.identifier, members(read.props?.tags)]).toEqual([
        createdProject.id,
        "__proto__",
        "prototype",
        [
          [key, "x"],
          ["team", "web"],
        ],
      ]);
      const live = await bed.platform.organizations.get("__proto__", {});
      expect([live.organization.identifier, members(live.organization.tags)]).toEqual([
        "__proto__",
        [
          [key, "x"],
          ["team", "web"],
        ],
      ]);
      await projects[mode].delete(createdProject.id, read.props!);
      await orgs[mode].delete(createdOrg.id, createdOrg.outs);
    },
  );
});

describe("the SDK's schemas of user-keyed maps keep a __proto__ key", () => {
  it("an identity's attribute values, and a targeting expectation's attributes", () => {
    const identity = IdentityBody.parse(JSON.parse('{"key":"k","values":{"__proto__":"gold","plan":"pro"}}'));
    expect(members(identity.values)).toEqual([
      ["__proto__", "gold"],
      ["plan", "pro"],
    ]);
    const expectation = KeyExpectation.parse(
      JSON.parse(
        '{"flag":"f","environment":"Production","key":"k","treatment":"on","attributes":{"__proto__":"gold"}}',
      ),
    );
    expect(members(expectation.attributes)).toEqual([["__proto__", "gold"]]);
  });
});
