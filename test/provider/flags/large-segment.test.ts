/**
 * LargeSegment lifecycle against the emulator, directly and through the gRPC host: check
 * (failures naming the field, no request), create (one POST, then one activation POST per
 * environment), read, no-op diff (environments by name or id, a set), one environment added or
 * removed = one request, a description change alone refused, refresh after an out-of-band change,
 * delete, delete again, gone, adopt, a create whose response was lost, import; members per
 * environment (a file or a list) uploaded through an UPLOAD change request only when the set's
 * digest changed, the state holding the count and digest, never the keys.
 */
import { createHash } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { settlePendingCreates } from "../../../provider/core/recover";
import { impl, largeSegmentProviderText } from "../../../provider/flags/large-segment";
import { KINDS } from "../../../provider/kinds";
import { LARGE_SEGMENT_TYPE } from "../../../provider/types";
import type { Workspace } from "../../../sdk/admin/schemas";
import { type Driver, MODES } from "../harness";
import { slug, startTestbed, type Testbed, unique } from "../testbed";

let bed: Testbed;
let ws: Workspace;
let prodId: string;
let stagingId: string;
const V2 = "/internal/api/v2";

beforeAll(async () => {
  bed = await startTestbed();
  ws = (await bed.admin.workspaces.getByName("Default")) as Workspace;
  prodId = (await bed.admin.environments.find(ws.id, "Production"))?.id as string;
  stagingId = (await bed.admin.environments.find(ws.id, "Staging"))?.id as string;
});
afterAll(async () => {
  await bed?.stop();
});

describe.each(MODES)("LargeSegment (%s)", (mode) => {
  let p: Driver;
  const fresh = () => unique(`large_${slug(mode)}`, "_");
  const programFor = (name: string, environments: string[] = ["Production"]) => ({
    workspace: "Default",
    name,
    description: "CRM export",
    environments,
  });
  const declared = (name: string, environments: string[] = ["Production"]) => ({
    workspace: "Default",
    trafficType: "user",
    name,
    description: "CRM export",
    environments,
    members: [],
    adopt: false,
  });
  const activeIn = (...envs: ("Production" | "Staging")[]) =>
    envs
      .map((n) => ({ id: n === "Production" ? prodId : stagingId, name: n }))
      .sort((a, b) => (a.id < b.id ? -1 : 1));
  const createdSegment = async (environments: string[] = ["Production"]) => {
    const name = fresh();
    const { id, outs } = await p.create((await p.check({}, programFor(name, environments))).inputs);
    return { name, id, outs };
  };

  beforeAll(async () => {
    p = await bed.driver(mode, impl, largeSegmentProviderText);
  });

  it("checks: defaults applied, environments a sorted set", async () => {
    const name = fresh();
    expect(
      await p.check({}, { ...programFor(name), environments: ["Staging", "Production", "Staging"] }),
    ).toEqual({
      inputs: declared(name, ["Production", "Staging"]),
      failures: [],
    });
  });

  it("refuses bad input naming each field, with no request", async () => {
    bed.reset();
    const checked = await p.check(
      {},
      {
        workspace: "",
        name: "1 big",
        description: "x".repeat(1025),
        environments: ["Production", ""],
        tags: ["a"],
      },
    );
    expect(checked.failures).toEqual([
      { property: "workspace", reason: "workspace must not be empty" },
      { property: "name", reason: "name must start with a letter and use only letters, digits, '-' and '_'" },
      { property: "description", reason: "description must be at most 1024 characters" },
      { property: "environments[1]", reason: "an environment must not be empty" },
      { property: "tags", reason: 'unknown property "tags"' },
    ]);
    expect(bed.emu.requests()).toEqual([]);
  });

  it("creates with one POST, then one activation per environment; the id is the natural key", async () => {
    const name = fresh();
    const inputs = (await p.check({}, programFor(name, ["Production", "Staging"]))).inputs;
    bed.reset();
    const created = await p.create(inputs);
    expect(created).toEqual({
      id: `${ws.id}/${name}`,
      outs: {
        ...inputs,
        creationTime: expect.any(Number),
        workspaceId: ws.id,
        workspaceName: "Default",
        trafficTypeId: expect.any(String),
        activeIn: activeIn("Production", "Staging"),
      },
    });
    expect(bed.proxy.writes().map((w) => [w.method, w.path, w.body, w.status])).toEqual([
      [
        "POST",
        `${V2}/large-segments/ws/${ws.id}/trafficTypes/user`,
        { name, description: "CRM export" },
        200,
      ],
      ...activeIn("Production", "Staging").map((e) => [
        "POST",
        `${V2}/large-segments/${e.id}/${name}`,
        undefined,
        200,
      ]),
    ]);
  });

  it("reads what it created", async () => {
    const { name, id, outs } = await createdSegment();
    expect(await p.read(id, outs)).toEqual({ id, props: outs, inputs: declared(name) });
  });

  it("reports no change for the same meaning (workspace and environments by id), with no request", async () => {
    const { name, id, outs } = await createdSegment(["Production", "Staging"]);
    bed.reset();
    const news = (
      await p.check(outs, {
        ...programFor(name, [stagingId, "Production"]),
        workspace: ws.id,
        trafficType: outs.trafficTypeId,
      })
    ).inputs;
    expect(await p.diff(id, outs, news)).toEqual({
      changes: false,
      replaces: [],
      deleteBeforeReplace: false,
    });
    expect(bed.emu.requests()).toEqual([]);
  });

  it("one environment added is one activation POST; one removed is one DELETE", async () => {
    const { name, id, outs } = await createdSegment();
    const more = (await p.check(outs, programFor(name, ["Production", "Staging"]))).inputs;
    expect(await p.diff(id, outs, more)).toEqual({ changes: true, replaces: [], deleteBeforeReplace: false });
    bed.reset();
    const grown = (await p.update(id, outs, more)).outs;
    expect(bed.proxy.writes().map((w) => [w.method, w.path, w.status])).toEqual([
      ["POST", `${V2}/large-segments/${stagingId}/${name}`, 200],
    ]);
    expect(grown).toEqual({
      ...outs,
      environments: ["Production", "Staging"],
      activeIn: activeIn("Production", "Staging"),
    });
    expect(await p.read(id, grown)).toEqual({
      id,
      props: grown,
      inputs: declared(name, ["Production", "Staging"]),
    });
    const fewer = (await p.check(grown, programFor(name, ["Staging"]))).inputs;
    bed.reset();
    const shrunk = (await p.update(id, grown, fewer)).outs;
    expect(bed.proxy.writes().map((w) => [w.method, w.path, w.status])).toEqual([
      ["DELETE", `${V2}/large-segments/${prodId}/${name}`, 200],
    ]);
    expect(shrunk).toMatchObject({ environments: ["Staging"], activeIn: activeIn("Staging") });
    expect(await bed.admin.largeSegments.activation(ws.id, prodId, name)).toBeUndefined();
  });

  it("refuses a new description alone, naming the field, with no request", async () => {
    const { name, id, outs } = await createdSegment();
    const news = (await p.check(outs, { ...programFor(name), description: "CRM export, v2" })).inputs;
    bed.reset();
    await expect(p.diff(id, outs, news)).rejects.toThrow(
      `description: the API cannot change large segment "${name}"'s description (recorded "CRM export", desired "CRM export, v2"), and replacing the large segment would delete its uploaded members in every environment. Declare the recorded description, or replace it deliberately with \`pulumi up --replace\` (and upload the members again).`,
    );
    expect(bed.emu.requests()).toEqual([]);
  });

  it("a new name replaces, deleting first", async () => {
    const { name, id, outs } = await createdSegment();
    const news = (await p.check(outs, programFor(`${name}_2`))).inputs;
    expect(await p.diff(id, outs, news)).toEqual({
      changes: true,
      replaces: ["name"],
      deleteBeforeReplace: true,
    });
  });

  it("refresh shows an environment activated out of band, and the next update deactivates it", async () => {
    const { name, id, outs } = await createdSegment();
    await bed.admin.largeSegments.activate(stagingId, name);
    const read = await p.read(id, outs);
    expect(read.props).toEqual({
      ...outs,
      environments: ["Production", "Staging"],
      activeIn: activeIn("Production", "Staging"),
    });
    expect(read.inputs).toMatchObject({ environments: ["Production", "Staging"] });
    const live = read.props as Record<string, unknown>;
    const news = (await p.check(outs, programFor(name))).inputs;
    expect(await p.diff(id, live, news)).toEqual({ changes: true, replaces: [], deleteBeforeReplace: false });
    bed.reset();
    expect((await p.update(id, live, news)).outs).toEqual(outs);
    expect(bed.proxy.writes().map((w) => [w.method, w.path])).toEqual([
      ["DELETE", `${V2}/large-segments/${stagingId}/${name}`],
    ]);
  });

  it("an update that only deactivates: a segment no longer active there counts as done; one deleted outside Pulumi fails saying so", async () => {
    const { name, id, outs } = await createdSegment(["Production", "Staging"]);
    const news = (await p.check(outs, programFor(name))).inputs;
    await bed.admin.largeSegments.deactivate(stagingId, name);
    bed.reset();
    expect((await p.update(id, outs, news)).outs).toMatchObject({ activeIn: activeIn("Production") });
    expect(bed.sent()).toEqual([
      `DELETE ${V2}/large-segments/${stagingId}/${name}`,
      `GET ${V2}/large-segments/ws/${ws.id}`,
    ]);
    const gone = await createdSegment(["Production", "Staging"]);
    await bed.admin.largeSegments.delete(ws.id, gone.name);
    await expect(
      p.update(gone.id, gone.outs, (await p.check(gone.outs, programFor(gone.name))).inputs),
    ).rejects.toThrow(
      `large segment "${gone.name}" in workspace "Default" was deleted outside Pulumi since its state was recorded; nothing was written.`,
    );
  });

  it("deletes with one DELETE, deleting again succeeds, and a gone segment reads as gone", async () => {
    const { name, id, outs } = await createdSegment();
    bed.reset();
    await p.delete(id, outs);
    expect(bed.sent()).toEqual([`DELETE ${V2}/large-segments/ws/${ws.id}/${name}`]);
    expect(await bed.admin.largeSegments.find(ws.id, name)).toBeUndefined();
    await expect(p.delete(id, outs)).resolves.toBeUndefined();
    expect(await p.read(id, outs)).toEqual({ id: undefined, props: undefined, inputs: undefined });
  });

  it("refuses an existing large segment unless adopt is set, then takes it over, activating only what is missing", async () => {
    const name = fresh();
    await bed.admin.largeSegments.create(ws.id, "user", { name, description: "CRM export" });
    await bed.admin.largeSegments.activate(stagingId, name);
    await expect(p.create((await p.check({}, programFor(name))).inputs)).rejects.toThrow(
      `a large segment named "${name}" in workspace "Default" already exists. Set \`adopt: true\``,
    );
    bed.reset();
    const adopted = await p.create(
      (await p.check({}, { ...programFor(name, ["Staging", "Production"]), adopt: true })).inputs,
    );
    expect(adopted.outs).toMatchObject({ name, adopt: true, activeIn: activeIn("Production", "Staging") });
    expect(bed.proxy.writes().map((w) => [w.method, w.path])).toEqual([
      ["POST", `${V2}/large-segments/${prodId}/${name}`],
    ]);
    await p.delete(adopted.id, adopted.outs);
  });

  it("refuses to adopt a large segment whose description differs, naming both", async () => {
    const name = fresh();
    await bed.admin.largeSegments.create(ws.id, "user", { name, description: "made by hand" });
    bed.reset();
    await expect(p.create((await p.check({}, { ...programFor(name), adopt: true })).inputs)).rejects.toThrow(
      `a large segment named "${name}" in workspace "Default" exists with description "made by hand", not "CRM export"`,
    );
    expect(bed.proxy.writes()).toEqual([]);
  });

  it("recovers a create whose response was lost without creating a duplicate", async () => {
    const name = fresh();
    bed.reset();
    bed.proxy.once(
      { method: "POST", path: /\/large-segments\/ws\/[^/]+\/trafficTypes\/user$/ },
      { lose: true },
    );
    const created = await p.create((await p.check({}, programFor(name))).inputs);
    expect(bed.proxy.writes().map((w) => w.method)).toEqual(["POST", "POST"]);
    expect(created.outs).toMatchObject({ name, description: "CRM export", activeIn: activeIn("Production") });
    const same: string[] = [];
    for await (const s of bed.admin.largeSegments.list(ws.id)) if (s.name === name) same.push(s.name);
    expect(same).toEqual([name]);
  });

  it("`flagstack recover` adopts the large segment of a killed create by its natural key", async () => {
    if (mode !== "direct") return; // settling a state runs in the CLI's process
    const name = fresh();
    await bed.admin.largeSegments.create(ws.id, "user", { name, description: "CRM export" });
    const u = `urn:pulumi:dev::shop::${LARGE_SEGMENT_TYPE}::${name}`;
    const inputs = { ...declared(name), __provider: largeSegmentProviderText };
    const pending = {
      type: "creating",
      resource: { urn: u, custom: true, type: LARGE_SEGMENT_TYPE, inputs },
    };
    const { deployment, report } = await settlePendingCreates(
      { resources: [], pending_operations: [pending] },
      { kinds: KINDS, notBefore: 0 },
    );
    expect(report).toEqual({
      recovered: [{ urn: u, id: `${ws.id}/${name}` }],
      cleared: [],
      kept: [],
      recorded: [],
      unknown: [],
    });
    expect(deployment.resources?.[0]?.outputs).toMatchObject({ name, activeIn: activeIn("Production") });
    expect(await bed.admin.largeSegments.activation(ws.id, prodId, name)).toBeDefined();
  });

  it("imports by <workspace>/<name>", async () => {
    const { name, outs } = await createdSegment();
    if (mode !== "direct") return; // the import read has no state: the native provider's path
    const read = await impl.read(`Default/${name}`, {} as never);
    expect(read).toEqual({
      id: `${ws.id}/${name}`,
      props: { ...outs, environments: ["Production"] },
      inputs: expect.objectContaining({ environments: ["Production"] }),
    });
  });

  describe("members", () => {
    const dir = mkdtempSync(join(tmpdir(), "ls27-provider-"));
    const sha = (keys: string[]) =>
      createHash("sha256")
        .update(
          [...new Set(keys)]
            .sort()
            .map((k) => `${k}\n`)
            .join(""),
        )
        .digest("hex");
    const uploads = () =>
      bed.emu
        .requests()
        .filter((r) => r.method !== "GET")
        .map(
          (r) => `${r.method} ${r.path.replace(/uploads\/[0-9a-f-]{36}$/, "uploads/<token>")} ${r.status}`,
        );

    it("checks each entry: one of file and keys, an environment of environments, a readable file of at most 100,000", async () => {
      const big = join(dir, "big.csv");
      writeFileSync(big, Array.from({ length: 100_001 }, (_, i) => `k${i}\n`).join(""));
      bed.reset();
      const checked = await p.check(
        {},
        {
          ...programFor(fresh()),
          members: [
            { environment: "Production", file: "a.csv", keys: ["a"] },
            { environment: "Staging", keys: ["a"] },
          ],
        },
      );
      expect(checked.failures).toEqual([
        { property: "members[0]", reason: "give exactly one of file and keys" },
      ]);
      const files = await p.check(
        {},
        {
          ...programFor(fresh()),
          members: [
            { environment: "Production", file: join(dir, "missing.csv") },
            { environment: "Staging", keys: ["a"] },
            { environment: "Production", file: big },
          ],
        },
      );
      expect(files.failures).toEqual([
        { property: "members[0].file", reason: `cannot read ${join(dir, "missing.csv")}: ENOENT` },
        {
          property: "members[1].environment",
          reason: '"Staging" is not one of environments (spell it as environments does)',
        },
        { property: "members[2].environment", reason: '"Production" has members twice' },
        {
          property: "members[2].file",
          reason: "at most 100000 members in a large segment upload, more than 100000 given",
        },
      ]);
      const badKey = await p.check(
        {},
        { ...programFor(fresh()), members: [{ environment: "Production", keys: ["ok", "a,b"] }] },
      );
      expect(badKey.failures).toEqual([
        {
          property: "members[0].keys[1]",
          reason: "a member must not contain a comma, a quote or a line break",
        },
      ]);
      expect(bed.emu.requests()).toEqual([]);
    });

    it("create uploads each set through a change request; the state holds count and digest, never a key", async () => {
      const name = fresh();
      const file = join(dir, `${name}.csv`);
      writeFileSync(file, "key\nf1\nf2\nf3\n");
      const inputs = (
        await p.check(
          {},
          {
            ...programFor(name, ["Production", "Staging"]),
            members: [
              { environment: "Production", file },
              { environment: "Staging", keys: ["s2", "s1", "s2"] },
            ],
            changeRequest: { title: "CRM", comment: "nightly" },
          },
        )
      ).inputs;
      bed.reset();
      const created = await p.create(inputs);
      expect(uploads()).toEqual([
        `POST ${V2}/large-segments/ws/${ws.id}/trafficTypes/user 200`,
        ...activeIn("Production", "Staging").map((e) => `POST ${V2}/large-segments/${e.id}/${name} 200`),
        `POST ${V2}/changeRequests/ws/${ws.id}/environments/${prodId} 200`,
        `PUT ${V2}/large-segments/uploads/<token> 200`,
        `POST ${V2}/changeRequests/ws/${ws.id}/environments/${stagingId} 200`,
        `PUT ${V2}/large-segments/uploads/<token> 200`,
      ]);
      expect(created.outs.members).toEqual([
        {
          environment: "Production",
          environmentId: prodId,
          file,
          count: 3,
          sha256: sha(["f1", "f2", "f3"]),
          changeRequest: { id: expect.any(String), status: "PUBLISHED" },
        },
        {
          environment: "Staging",
          environmentId: stagingId,
          count: 2,
          sha256: sha(["s1", "s2"]),
          changeRequest: { id: expect.any(String), status: "PUBLISHED" },
        },
      ]);
      expect(JSON.stringify(created.outs)).not.toMatch(/"(f1|s1)"/);
      const cr = await bed.admin.changeRequests.get(
        (created.outs.members as { changeRequest: { id: string } }[])[0]!.changeRequest.id,
      );
      expect(cr).toMatchObject({ title: "CRM", comment: "nightly", operationType: "UPLOAD" });
      const read = await p.read(created.id, created.outs);
      expect(read.props).toEqual(created.outs);
      expect(read.inputs?.members).toEqual([{ environment: "Production", file }, { environment: "Staging" }]);
    });

    it("the same set in another order, with repeats, or from a file is no change; a one-key change uploads once; none after it", async () => {
      const name = fresh();
      const keys = Array.from({ length: 1000 }, (_, i) => `u${i}`);
      const program = (members: unknown) => ({
        ...programFor(name),
        members: [{ environment: "Production", ...(members as object) }],
      });
      const created = await p.create((await p.check({}, program({ keys }))).inputs);
      const file = join(dir, `${name}.csv`);
      writeFileSync(file, [...keys].reverse().join("\n"));
      bed.reset();
      for (const same of [{ keys: [...keys].reverse().concat(["u1"]) }, { file }]) {
        const news = (await p.check(created.outs, program(same))).inputs;
        expect(await p.diff(created.id, created.outs, news)).toEqual({
          changes: false,
          replaces: [],
          deleteBeforeReplace: false,
        });
      }
      expect(bed.emu.requests()).toEqual([]);
      const changed = (await p.check(created.outs, program({ keys: [...keys.slice(1), "u_new"] }))).inputs;
      expect(await p.diff(created.id, created.outs, changed)).toEqual({
        changes: true,
        replaces: [],
        deleteBeforeReplace: false,
      });
      const updated = (await p.update(created.id, created.outs, changed)).outs;
      expect(uploads()).toEqual([
        `POST ${V2}/changeRequests/ws/${ws.id}/environments/${prodId} 200`,
        `PUT ${V2}/large-segments/uploads/<token> 200`,
      ]);
      expect(updated.members).toEqual([
        {
          environment: "Production",
          environmentId: prodId,
          count: 1000,
          sha256: sha([...keys.slice(1), "u_new"]),
          changeRequest: { id: expect.any(String), status: "PUBLISHED" },
        },
      ]);
      bed.reset();
      expect((await p.update(created.id, updated, changed)).outs).toEqual(updated);
      expect(uploads()).toEqual([]);
    });

    it("where approvals are required the upload waits as REQUESTED; a change while it is open fails naming the field, uploading nothing", async () => {
      const gatedName = `Gated_${slug(mode)}`.slice(0, 20);
      if (!(await bed.admin.environments.find(ws.id, gatedName)))
        await bed.admin.environments.create(ws.id, {
          name: gatedName,
          production: true,
          changePermissions: { areApprovalsRequired: true },
        });
      const gatedId = (await bed.admin.environments.find(ws.id, gatedName))!.id;
      const name = fresh();
      const program = (keys: string[]) => ({
        ...programFor(name, [gatedName]),
        members: [{ environment: gatedName, keys }],
      });
      const created = await p.create((await p.check({}, program(["g1", "g2"]))).inputs);
      const [recorded] = created.outs.members as { changeRequest: { id: string; status: string } }[];
      expect(recorded!.changeRequest.status).toBe("REQUESTED");
      const changed = (await p.check(created.outs, program(["g1", "g3"]))).inputs;
      bed.reset();
      await expect(p.update(created.id, created.outs, changed)).rejects.toThrow(
        `members[0] (environment "${gatedName}"): a change request of large segment "${name}" is still open there; approve, reject or withdraw it, then run \`pulumi up\` again`,
      );
      expect(uploads()).toEqual([`POST ${V2}/changeRequests/ws/${ws.id}/environments/${gatedId} 409`]);
    });

    it("a refresh reads a recorded upload still REQUESTED: its status follows the request, one the service no longer knows is dropped", async () => {
      const name = fresh();
      const created = await p.create(
        (await p.check({}, { ...programFor(name), members: [{ environment: "Production", keys: ["r1"] }] }))
          .inputs,
      );
      const recorded = (created.outs.members as { changeRequest: { id: string } }[])[0]!;
      // As an upload waiting for approval would be recorded: its request since applied, or unknown.
      const pending = await bed.admin.largeSegments.uploadMembers(ws.id, prodId, name, ["r2"]);
      const waiting = {
        ...created.outs,
        members: [{ ...recorded, changeRequest: { id: pending.changeRequest.id, status: "REQUESTED" } }],
      };
      const published = await p.read(created.id, waiting);
      expect(published.props?.members).toEqual([
        { ...recorded, changeRequest: { id: pending.changeRequest.id, status: "PUBLISHED" } },
      ]);
      const gone = await p.read(created.id, {
        ...waiting,
        members: [{ ...recorded, changeRequest: { id: "no-such-request", status: "REQUESTED" } }],
      });
      expect(gone.props?.members).toEqual([]);
    });
  });
});
