/**
 * Updates change what the preview showed, guarded by what Pulumi recorded (issue: "`pulumi up`
 * silently reverted a colleague's changes the preview never showed"). For every resource kind,
 * directly and through the real gRPC host, driven by the reliability suite's engine:
 *
 * - a colleague changed the field the program changes: the update fails naming the field with its
 *   recorded, live and desired values, and writes nothing; after a refresh the next up applies it;
 * - a colleague changed another field: the update writes only its own field, the colleague's
 *   value survives (a refresh then records it);
 * - the object was deleted outside Pulumi: the update fails saying so and writes nothing (it is
 *   not silently re-created); refresh and up create it again.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type Emulator, startEmulator } from "../../emulator";
import { AdminClient, PlatformClient } from "../../sdk";
import { MODES, type Mode, type ProviderHost, startProviderHost } from "../provider/harness";
import { type Declared, MiniEngine } from "./engine";
import { configureDirect, drivers, stackConfig } from "./kinds";
import { pipelineModel } from "./program";

let emu: Emulator;
let host: ProviderHost;
let admin: AdminClient;
let platform: PlatformClient;
let wsId: string;
const modeDrivers = {} as Record<Mode, Awaited<ReturnType<typeof drivers>>>;

beforeAll(async () => {
  emu = await startEmulator({ port: 0 });
  const config = stackConfig(emu);
  configureDirect(config);
  host = await startProviderHost();
  await host.configure(config);
  modeDrivers.direct = await drivers("direct");
  modeDrivers["gRPC host"] = await drivers("gRPC host", host);
  const rate = { requestsPerSecond: Number.POSITIVE_INFINITY };
  admin = new AdminClient({ baseUrl: emu.url, apiKey: emu.adminKey, ...rate });
  platform = new PlatformClient({
    baseUrl: emu.url,
    apiKey: emu.platformKey,
    accountId: emu.accountId,
    ...rate,
  });
  wsId = (await admin.workspaces.getByName("Default"))?.id as string;
});
afterAll(async () => {
  await host?.stop();
  await emu?.stop();
});

const writes = () => emu.requests().filter((r) => r.method !== "GET" && r.method !== "HEAD");

/** One kind's scenario: a program, the program with one field changed, and what colleagues do. */
interface Case {
  /** The program before (the last element is the resource under test). */
  v1: (s: string) => Declared[];
  /** The same program with the tested field changed. */
  v2: (s: string) => Declared[];
  /** The message line of the field when the colleague changed it too. */
  conflictLine: (s: string) => string;
  /** A colleague's change of the field the program changes. */
  sameField: (s: string) => Promise<void>;
  /** A colleague's change of another field, and how to see that it survived; absent when the kind has one field. */
  otherField?: { change: (s: string) => Promise<void>; survived: (s: string) => Promise<void> };
  /** Deletes the object outside Pulumi. */
  remove: (s: string) => Promise<void>;
  /** What the failing update says the object is. */
  describe: (s: string) => RegExp;
}

const flag = (name: string, description = "declared"): Declared => ({
  urn: "flag",
  kind: "Flag",
  inputs: { workspace: "Default", name, description, tags: ["team"] },
  deps: [],
});

const definition = (name: string, trafficAllocation: number): Declared => ({
  urn: "def",
  kind: "FlagDefinition",
  inputs: {
    workspace: "Default",
    flag: name,
    environment: "Production",
    treatments: [{ name: "on", keys: ["qa-1"] }, { name: "off" }],
    defaultTreatment: "off",
    trafficAllocation,
    defaultRule: [
      { treatment: "on", size: 10 },
      { treatment: "off", size: 90 },
    ],
  },
  deps: ["flag"],
});

const project = (id: string, description = "declared"): Declared => ({
  urn: "project",
  kind: "Project",
  inputs: { identifier: id, name: `Guard ${id}`, color: "#112233", description, tags: { team: "guard" } },
  deps: [],
});

const projectId = (s: string) => `guard_${s.replace(/-/g, "_")}`;

const connector = (s: string, description: string): Declared => ({
  urn: "connector",
  kind: "Connector",
  inputs: {
    org: "default",
    project: projectId(s),
    identifier: "registry",
    name: "Registry",
    description,
    tags: { team: "guard" },
    dockerRegistry: { url: "https://registry.example.test/v2", providerType: "Harbor" },
  },
  deps: ["project"],
});

const pipeline = (s: string, script: string): Declared => ({
  urn: "pipeline",
  kind: "Pipeline",
  inputs: { project: projectId(s), pipeline: pipelineModel("deploy", script) },
  deps: ["project"],
});

/** A connector as read back, as an update body (the read's null scope members left out). */
const scoped = <T extends { orgIdentifier?: string | null; projectIdentifier?: string | null }>(c: T) => ({
  ...c,
  orgIdentifier: c.orgIdentifier ?? undefined,
  projectIdentifier: c.projectIdentifier ?? undefined,
});

const groupIdOf = async (name: string) => (await admin.groups.getByName(name))?.id as string;

const CASES: Record<string, Case> = {
  Flag: {
    v1: (s) => [flag(`guard-${s}`)],
    v2: (s) => [flag(`guard-${s}`, "ours")],
    conflictLine: () => 'description: recorded "declared", live "theirs", desired "ours"',
    sameField: (s) =>
      admin.flags
        .patch(wsId, `guard-${s}`, [{ op: "replace", path: "/description", value: "theirs" }])
        .then(() => undefined),
    otherField: {
      change: (s) =>
        admin.flags
          .patch(wsId, `guard-${s}`, [{ op: "replace", path: "/tags", value: [{ name: "theirs" }] }])
          .then(() => undefined),
      survived: async (s) => {
        const live = await admin.flags.get(wsId, `guard-${s}`);
        expect({ description: live.description, tags: live.tags }).toEqual({
          description: "ours",
          tags: [{ name: "theirs" }],
        });
      },
    },
    remove: (s) => admin.flags.delete(wsId, `guard-${s}`).then(() => undefined),
    describe: (s) => new RegExp(`^flag "guard-${s}" in workspace "Default"`),
  },
  FlagDefinition: {
    v1: (s) => [flag(`guard-${s}`), definition(`guard-${s}`, 100)],
    v2: (s) => [flag(`guard-${s}`), definition(`guard-${s}`, 50)],
    conflictLine: () => "trafficAllocation: recorded 100, live 70, desired 50",
    // The scenario: allocation 70, default rule 50/50 and a target key added by hand.
    sameField: (s) =>
      admin.definitions
        .patch(wsId, `guard-${s}`, "Production", [
          { op: "replace", path: "/trafficAllocation", value: 70 },
          { op: "replace", path: "/defaultRule/0/size", value: 50 },
          { op: "replace", path: "/defaultRule/1/size", value: 50 },
          { op: "add", path: "/treatments/0/keys/-", value: "colleague" },
        ])
        .then(() => undefined),
    otherField: {
      change: (s) =>
        admin.definitions
          .patch(wsId, `guard-${s}`, "Production", [
            { op: "replace", path: "/defaultRule/0/size", value: 50 },
            { op: "replace", path: "/defaultRule/1/size", value: 50 },
            { op: "add", path: "/treatments/0/keys/-", value: "colleague" },
          ])
          .then(() => undefined),
      survived: async (s) => {
        const live = await admin.definitions.get(wsId, `guard-${s}`, "Production");
        expect({
          trafficAllocation: live.trafficAllocation,
          defaultRule: live.defaultRule,
          keys: live.treatments[0]?.keys,
        }).toEqual({
          trafficAllocation: 50,
          defaultRule: [
            { treatment: "on", size: 50 },
            { treatment: "off", size: 50 },
          ],
          keys: ["qa-1", "colleague"],
        });
      },
    },
    remove: (s) =>
      admin.definitions
        .delete(wsId, `guard-${s}`, "Production", { title: "t", comment: "c" })
        .then(() => undefined),
    describe: (s) => new RegExp(`^the definition of flag "guard-${s}" in environment "Production"`),
  },
  Group: {
    v1: (s) => [
      { urn: "group", kind: "Group", inputs: { name: `guard-${s}`, description: "declared" }, deps: [] },
    ],
    v2: (s) => [
      { urn: "group", kind: "Group", inputs: { name: `guard-${s}`, description: "ours" }, deps: [] },
    ],
    conflictLine: () => 'description: recorded "declared", live "theirs", desired "ours"',
    sameField: async (s) => {
      const id = await groupIdOf(`guard-${s}`);
      await admin.groups.put(id, { id, name: `guard-${s}`, description: "theirs", type: "group" });
    },
    otherField: {
      change: async (s) => {
        const id = await groupIdOf(`guard-${s}`);
        await admin.groups.put(id, {
          id,
          name: `guard-${s}-renamed`,
          description: "declared",
          type: "group",
        });
      },
      survived: async (s) => {
        const live = await admin.groups.getByName(`guard-${s}-renamed`);
        expect(live?.description).toBe("ours");
      },
    },
    remove: async (s) => {
      await admin.groups.delete(await groupIdOf(`guard-${s}`));
    },
    describe: (s) => new RegExp(`^group "guard-${s}" \\(`),
  },
  UserInvite: {
    v1: (s) => [
      { urn: "g1", kind: "Group", inputs: { name: `guard-${s}-1` }, deps: [] },
      { urn: "g2", kind: "Group", inputs: { name: `guard-${s}-2` }, deps: [] },
      {
        urn: "user",
        kind: "UserInvite",
        inputs: { email: `guard-${s}@example.test`, groups: [] },
        deps: ["g1", "g2"],
      },
    ],
    v2: (s) => [
      { urn: "g1", kind: "Group", inputs: { name: `guard-${s}-1` }, deps: [] },
      { urn: "g2", kind: "Group", inputs: { name: `guard-${s}-2` }, deps: [] },
      {
        urn: "user",
        kind: "UserInvite",
        inputs: { email: `guard-${s}@example.test`, groups: [`guard-${s}-1`] },
        deps: ["g1", "g2"],
      },
    ],
    conflictLine: (s) => `groups: recorded [], live ["guard-${s}-2"], desired ["guard-${s}-1"]`,
    sameField: async (s) => {
      for await (const u of admin.users.list({ status: "PENDING" })) {
        if (u.email === `guard-${s}@example.test`) {
          await admin.users.patch(u.id, [
            { op: "add", path: "/groups/0", value: { id: await groupIdOf(`guard-${s}-2`), type: "group" } },
          ]);
        }
      }
    },
    remove: async (s) => {
      for await (const u of admin.users.list({ status: "PENDING" }))
        if (u.email === `guard-${s}@example.test`) await admin.users.delete(u.id);
    },
    describe: (s) => new RegExp(`^user guard-${s}@example.test \\(`),
  },
  Project: {
    v1: (s) => [project(projectId(s))],
    v2: (s) => [project(projectId(s), "ours")],
    conflictLine: () => 'description: recorded "declared", live "theirs", desired "ours"',
    sameField: async (s) => {
      const live = (await platform.projects.get(projectId(s), { org: "default" })).project;
      await platform.projects.update(projectId(s), { ...live, description: "theirs" }, { org: "default" });
    },
    otherField: {
      change: async (s) => {
        const live = (await platform.projects.get(projectId(s), { org: "default" })).project;
        await platform.projects.update(projectId(s), { ...live, color: "#FFFFFF" }, { org: "default" });
      },
      survived: async (s) => {
        const live = (await platform.projects.get(projectId(s), { org: "default" })).project;
        expect({ description: live.description, color: live.color }).toEqual({
          description: "ours",
          color: "#FFFFFF",
        });
      },
    },
    remove: (s) => platform.projects.delete(projectId(s), { org: "default" }).then(() => undefined),
    describe: (s) => new RegExp(`^project "${projectId(s)}" in organization default`),
  },
  Connector: {
    v1: (s) => [project(projectId(s)), connector(s, "declared")],
    v2: (s) => [project(projectId(s)), connector(s, "ours")],
    conflictLine: () => 'description: recorded "declared", live "theirs", desired "ours"',
    sameField: async (s) => {
      const scope = { org: "default", project: projectId(s) };
      const live = (await platform.connectors.get("registry", scope)).connector;
      await platform.connectors.update({ ...scoped(live), description: "theirs" });
    },
    otherField: {
      change: async (s) => {
        const scope = { org: "default", project: projectId(s) };
        const live = (await platform.connectors.get("registry", scope)).connector;
        await platform.connectors.update({ ...scoped(live), tags: { team: "theirs" } });
      },
      survived: async (s) => {
        const scope = { org: "default", project: projectId(s) };
        const live = (await platform.connectors.get("registry", scope)).connector;
        expect({ description: live.description, tags: live.tags }).toEqual({
          description: "ours",
          tags: { team: "theirs" },
        });
      },
    },
    remove: (s) =>
      platform.connectors.delete("registry", { org: "default", project: projectId(s) }).then(() => undefined),
    describe: () => /^connector "registry" \(default\/guard_/,
  },
  Pipeline: {
    v1: (s) => [project(projectId(s)), pipeline(s, "echo declared")],
    v2: (s) => [project(projectId(s)), pipeline(s, "echo ours")],
    // The input the read parsed from the YAML, at the place the colleague changed.
    conflictLine: () =>
      'pipeline.stages[0].execution.steps[0].script: recorded "echo declared", live "echo theirs", desired "echo ours"',
    sameField: async (s) => {
      const scope = { org: "default", project: projectId(s) };
      const live = await platform.pipelines.get("deploy", scope);
      await platform.pipelines.update(
        "deploy",
        live.yamlPipeline.replace("echo declared", "echo theirs"),
        scope,
      );
    },
    remove: (s) =>
      platform.pipelines.delete("deploy", { org: "default", project: projectId(s) }).then(() => undefined),
    describe: (s) => new RegExp(`^pipeline "deploy" in project default/${projectId(s)}`),
  },
};

describe.each(MODES)("updates guarded by the recorded state (%s)", (mode) => {
  const m = mode === "direct" ? "d" : "g";
  let engine: MiniEngine;
  beforeEach(() => {
    engine = new MiniEngine(modeDrivers[mode]);
  });

  describe.each(Object.keys(CASES))("%s", (kind) => {
    const c = CASES[kind] as Case;
    const slug = (what: string) => `${kind.toLowerCase()}-${what}-${m}`;

    it("a colleague changed the field the program changes: refused naming recorded, live and desired, nothing written; refresh then up applies it", async () => {
      const s = slug("same");
      expect((await engine.up(c.v1(s))).errors).toEqual([]);
      await c.sameField(s);
      emu.resetRequests();
      const up = await engine.up(c.v2(s));
      expect(up.errors).toHaveLength(1);
      const message = up.errors[0]?.message as string;
      expect(message).toMatch(c.describe(s));
      expect(message).toContain("was changed outside Pulumi since its state was recorded");
      expect(message).toContain(c.conflictLine(s));
      expect(message).toContain(
        "Nothing was written. Run `pulumi refresh` to record the live values (the next `pulumi preview` then shows exactly what `pulumi up` will change), or `pulumi up --refresh`.",
      );
      expect(writes()).toEqual([]);
      expect((await engine.refresh()).errors).toEqual([]);
      const healed = await engine.up(c.v2(s));
      expect(healed.errors).toEqual([]);
      expect(await engine.up(c.v2(s))).toEqual({ steps: [], errors: [] });
    });

    it.skipIf(c.otherField === undefined)(
      "a colleague changed another field: only the program's field is written, the colleague's value survives",
      async () => {
        const s = slug("other");
        expect((await engine.up(c.v1(s))).errors).toEqual([]);
        await c.otherField?.change(s);
        const up = await engine.up(c.v2(s));
        expect(up.errors).toEqual([]);
        await c.otherField?.survived(s);
      },
    );

    it("deleted outside Pulumi: the update is refused, nothing written; refresh then up creates it again", async () => {
      const s = slug("gone");
      expect((await engine.up(c.v1(s))).errors).toEqual([]);
      await c.remove(s);
      emu.resetRequests();
      const up = await engine.up(c.v2(s));
      expect(up.errors.map((e) => e.message)).toEqual([expect.stringMatching(c.describe(s))]);
      expect(up.errors[0]?.message).toContain(
        "was deleted outside Pulumi since its state was recorded; nothing was written. Run `pulumi refresh` (it removes the object from the state) and `pulumi up` to create it again, or `pulumi up --refresh`.",
      );
      expect(writes()).toEqual([]);
      expect((await engine.refresh()).errors).toEqual([]);
      expect((await engine.up(c.v2(s))).errors).toEqual([]);
      expect(await engine.up(c.v2(s))).toEqual({ steps: [], errors: [] });
    });
  });
});
