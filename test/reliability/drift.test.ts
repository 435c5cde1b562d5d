/**
 * Drift: each kind of change made outside Pulumi, through the SDK clients straight to the
 * emulator (a definition edited, a target key added, a flag deleted, a rollout status moved, a
 * user deactivated, a pipeline's YAML edited, a connector deleted, and a few more), is detected by
 * the provider's `read` (a refresh shows the changed value, or the object gone) and put back by
 * the next `up` (an update, or a create for what was deleted), leaving exactly the declared state;
 * a further `up` then has nothing to do. Run directly and through the real gRPC host.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import YAML from "yaml";
import { type Emulator, startEmulator } from "../../emulator";
import { AdminClient, PlatformClient } from "../../sdk";
import type { RolloutStatus } from "../../sdk/admin/schemas";
import { MODES, type Mode, type ProviderHost, startProviderHost } from "../provider/harness";
import { type Declared, MiniEngine } from "./engine";
import { configureDirect, drivers, stackConfig } from "./kinds";
import { pipelineModel } from "./program";

let emu: Emulator;
let host: ProviderHost;
let admin: AdminClient;
let platform: PlatformClient;
let wsId: string;
let statuses: RolloutStatus[];
const modeDrivers = {} as Record<Mode, Awaited<ReturnType<typeof drivers>>>;

beforeAll(async () => {
  emu = await startEmulator({ port: 0 });
  const config = stackConfig(emu);
  configureDirect(config);
  host = await startProviderHost();
  await host.configure(config);
  modeDrivers.direct = await drivers("direct");
  modeDrivers["gRPC host"] = await drivers("gRPC host", host);
  admin = new AdminClient({
    baseUrl: emu.url,
    apiKey: emu.adminKey,
    requestsPerSecond: Number.POSITIVE_INFINITY,
  });
  platform = new PlatformClient({
    baseUrl: emu.url,
    apiKey: emu.platformKey,
    accountId: emu.accountId,
    requestsPerSecond: Number.POSITIVE_INFINITY,
  });
  wsId = (await admin.workspaces.getByName("Default"))?.id as string;
  statuses = await admin.rolloutStatuses.list(wsId);
});
afterAll(async () => {
  await host?.stop();
  await emu?.stop();
});

const statusId = (name: string) => statuses.find((s) => s.name === name)?.id as string;

describe.each(MODES)("drift (%s)", (mode) => {
  const m = mode === "direct" ? "d" : "g";
  // A fresh state per case: each case is its own small stack.
  let engine: MiniEngine;
  beforeEach(() => {
    engine = new MiniEngine(modeDrivers[mode]);
  });

  /** The state's outputs of one resource. */
  const outs = (urn: string) => engine.state.get(urn)?.outs as Record<string, unknown>;

  /**
   * Applies `program` (must succeed), makes the out-of-band change, refreshes and checks what the
   * refresh saw, then applies `program` again and returns that run's steps.
   */
  async function drift(
    program: Declared[],
    change: () => Promise<void>,
    detected: (refresh: { gone: string[] }) => void,
  ): Promise<string[]> {
    expect((await engine.up(program)).errors).toEqual([]);
    await change();
    const refresh = await engine.refresh();
    expect(refresh.errors).toEqual([]);
    detected(refresh);
    const up = await engine.up(program);
    expect(up.errors).toEqual([]);
    const after = await engine.up(program);
    expect(after).toEqual({ steps: [], errors: [] });
    return up.steps.map((s) => `${s.op} ${s.urn}`).sort();
  }

  const flag = (urn: string, name: string, extra: Record<string, unknown> = {}): Declared => ({
    urn,
    kind: "Flag",
    inputs: { workspace: "Default", name, description: `${name} flag`, tags: ["drift"], ...extra },
    deps: [],
  });
  const definition = (urn: string, flagUrn: string, flagName: string): Declared => ({
    urn,
    kind: "FlagDefinition",
    inputs: {
      workspace: "Default",
      flag: flagName,
      environment: "Production",
      treatments: [{ name: "on", keys: ["qa-1", "qa-2"] }, { name: "off" }],
      defaultTreatment: "off",
      rules: [
        {
          condition: { matchers: [{ type: "IN_LIST_STRING", attribute: "country", strings: ["NL"] }] },
          buckets: [{ treatment: "on", size: 100 }],
        },
      ],
      defaultRule: [
        { treatment: "on", size: 10 },
        { treatment: "off", size: 90 },
      ],
    },
    deps: [flagUrn],
  });
  /** The definition as declared by {@link definition}, as the service returns it. */
  const declaredDefinition = {
    killed: false,
    treatments: [
      { name: "on", keys: ["qa-1", "qa-2"] },
      { name: "off", keys: [] },
    ],
    defaultTreatment: "off",
    trafficAllocation: 100,
    rules: [
      {
        condition: {
          combiner: "AND",
          matchers: [{ type: "IN_LIST_STRING", attribute: "country", strings: ["NL"] }],
        },
        buckets: [{ treatment: "on", size: 100 }],
      },
    ],
    defaultRule: [
      { treatment: "on", size: 10 },
      { treatment: "off", size: 90 },
    ],
  };
  const liveDefinition = async (name: string) => {
    const d = await admin.definitions.get(wsId, name, "Production");
    return {
      killed: d.killed,
      treatments: d.treatments.map((t) => ({ name: t.name, keys: t.keys ?? [] })),
      defaultTreatment: d.defaultTreatment,
      trafficAllocation: d.trafficAllocation,
      rules: d.rules.map((r) => ({
        condition: {
          combiner: r.condition.combiner,
          matchers: r.condition.matchers.map((x) => ({
            type: x.type,
            attribute: x.attribute,
            strings: x.strings,
          })),
        },
        buckets: r.buckets,
      })),
      defaultRule: d.defaultRule,
    };
  };

  it("a definition edited (default rule, traffic allocation, a rule removed) is seen and patched back", async () => {
    const name = `drift-edit-${m}`;
    const program = [flag("f-edit", name), definition("d-edit", "f-edit", name)];
    const steps = await drift(
      program,
      async () => {
        await admin.definitions.patch(wsId, name, "Production", [
          { op: "replace", path: "/defaultRule/0/size", value: 60 },
          { op: "replace", path: "/defaultRule/1/size", value: 40 },
          { op: "replace", path: "/trafficAllocation", value: 30 },
          { op: "remove", path: "/rules/0" },
        ]);
      },
      (refresh) => {
        expect(refresh.gone).toEqual([]);
        expect(outs("d-edit")).toMatchObject({
          trafficAllocation: 30,
          rules: [],
          defaultRule: [
            { treatment: "on", size: 60 },
            { treatment: "off", size: 40 },
          ],
        });
      },
    );
    expect(steps).toEqual(["update d-edit"]);
    expect(await liveDefinition(name)).toEqual(declaredDefinition);
  });

  it("a target key added is seen and removed", async () => {
    const name = `drift-key-${m}`;
    const program = [flag("f-key", name), definition("d-key", "f-key", name)];
    const steps = await drift(
      program,
      async () => {
        await admin.definitions.patch(wsId, name, "Production", [
          { op: "add", path: "/treatments/0/keys/-", value: "intruder" },
        ]);
      },
      () => {
        expect((outs("d-key").treatments as { keys?: string[] }[])[0]?.keys).toEqual([
          "qa-1",
          "qa-2",
          "intruder",
        ]);
      },
    );
    expect(steps).toEqual(["update d-key"]);
    expect(await liveDefinition(name)).toEqual(declaredDefinition);
  });

  it("a flag deleted (with its definition) is seen gone and created again, definition included", async () => {
    const name = `drift-gone-${m}`;
    const program = [
      flag("f-gone", name, { rolloutStatus: "Ramping" }),
      definition("d-gone", "f-gone", name),
    ];
    const steps = await drift(
      program,
      async () => {
        await admin.flags.delete(wsId, name);
      },
      (refresh) => {
        expect(refresh.gone).toEqual(["d-gone", "f-gone"]);
      },
    );
    expect(steps).toEqual(["create d-gone", "create f-gone"]);
    const live = await admin.flags.get(wsId, name);
    expect({
      description: live.description,
      tags: (live.tags ?? []).map((t) => t.name),
      rolloutStatus: live.rolloutStatus.name,
    }).toEqual({ description: `${name} flag`, tags: ["drift"], rolloutStatus: "Ramping" });
    expect(await liveDefinition(name)).toEqual(declaredDefinition);
  });

  it("a rollout status moved is seen and moved back", async () => {
    const name = `drift-status-${m}`;
    const program = [flag("f-status", name, { rolloutStatus: "Ramping" })];
    const steps = await drift(
      program,
      async () => {
        await admin.flags.setRolloutStatus(wsId, name, statusId("Killed"));
      },
      () => {
        expect(outs("f-status")).toMatchObject({
          rolloutStatus: "Killed",
          rolloutStatusId: statusId("Killed"),
        });
      },
    );
    expect(steps).toEqual(["update f-status"]);
    expect((await admin.flags.get(wsId, name)).rolloutStatus).toMatchObject({
      id: statusId("Ramping"),
      name: "Ramping",
    });
  });

  it("a flag's description and tags edited are seen and put back", async () => {
    const name = `drift-desc-${m}`;
    const program = [flag("f-desc", name)];
    const steps = await drift(
      program,
      async () => {
        await admin.flags.patch(wsId, name, [
          { op: "replace", path: "/description", value: "edited by hand" },
          { op: "replace", path: "/tags", value: [{ name: "hand" }] },
        ]);
      },
      () => {
        expect(outs("f-desc")).toMatchObject({ description: "edited by hand", tags: ["hand"] });
      },
    );
    expect(steps).toEqual(["update f-desc"]);
    const live = await admin.flags.get(wsId, name);
    expect({ description: live.description, tags: (live.tags ?? []).map((t) => t.name) }).toEqual({
      description: `${name} flag`,
      tags: ["drift"],
    });
  });

  it("a flag killed by hand is seen and restored", async () => {
    const name = `drift-kill-${m}`;
    const program = [flag("f-kill", name), definition("d-kill", "f-kill", name)];
    const steps = await drift(
      program,
      async () => {
        await admin.definitions.kill(wsId, name, "Production");
      },
      () => {
        expect(outs("d-kill")).toMatchObject({ killed: true });
      },
    );
    expect(steps).toEqual(["update d-kill"]);
    expect(await liveDefinition(name)).toEqual(declaredDefinition);
  });

  it("a user deactivated is seen and made active again", async () => {
    const email = `drift-${m}@example.test`;
    const program: Declared[] = [
      { urn: "grp", kind: "Group", inputs: { name: `drift-team-${m}`, description: "" }, deps: [] },
      { urn: "user", kind: "UserInvite", inputs: { email, groups: [`drift-team-${m}`] }, deps: ["grp"] },
    ];
    expect((await engine.up(program)).errors).toEqual([]);
    const id = engine.state.get("user")?.id as string;
    await emu.acceptInvitation(id);
    expect((await engine.refresh()).errors).toEqual([]);
    expect(outs("user")).toMatchObject({ status: "ACTIVE" });
    const steps = await drift(
      program,
      async () => {
        const u = await admin.users.get(id);
        await admin.users.put(id, {
          email: u.email,
          name: u.name,
          "2fa": u["2fa"],
          status: "DEACTIVATED",
          type: "user",
        });
      },
      () => {
        expect(outs("user")).toMatchObject({ status: "DEACTIVATED" });
      },
    );
    expect(steps).toEqual(["update user"]);
    const live = await admin.users.get(id);
    expect({ status: live.status, groups: (live.groups ?? []).map((g) => g.id) }).toEqual({
      status: "ACTIVE",
      groups: [engine.state.get("grp")?.id],
    });
  });

  it("a user removed from a group by hand is seen and added back", async () => {
    const email = `drift-member-${m}@example.test`;
    const program: Declared[] = [
      { urn: "grp-m", kind: "Group", inputs: { name: `drift-members-${m}`, description: "" }, deps: [] },
      {
        urn: "user-m",
        kind: "UserInvite",
        inputs: { email, groups: [`drift-members-${m}`] },
        deps: ["grp-m"],
      },
    ];
    const steps = await drift(
      program,
      async () => {
        await admin.users.removeFromGroup(
          engine.state.get("user-m")?.id as string,
          engine.state.get("grp-m")?.id as string,
        );
      },
      () => {
        expect(outs("user-m")).toMatchObject({ groupIds: [] });
      },
    );
    expect(steps).toEqual(["update user-m"]);
    const live = await admin.users.get(engine.state.get("user-m")?.id as string);
    expect((live.groups ?? []).map((g) => g.id)).toEqual([engine.state.get("grp-m")?.id]);
  });

  it("a group renamed by hand is seen and renamed back", async () => {
    const program: Declared[] = [
      { urn: "grp-r", kind: "Group", inputs: { name: `drift-rename-${m}`, description: "kept" }, deps: [] },
    ];
    const steps = await drift(
      program,
      async () => {
        const id = engine.state.get("grp-r")?.id as string;
        await admin.groups.put(id, {
          id,
          name: `renamed-by-hand-${m}`,
          description: "changed",
          type: "group",
        });
      },
      () => {
        expect(outs("grp-r")).toMatchObject({ name: `renamed-by-hand-${m}`, description: "changed" });
      },
    );
    expect(steps).toEqual(["update grp-r"]);
    const live = await admin.groups.get(engine.state.get("grp-r")?.id as string);
    expect({ name: live.name, description: live.description }).toEqual({
      name: `drift-rename-${m}`,
      description: "kept",
    });
  });

  const project = (urn: string, identifier: string): Declared => ({
    urn,
    kind: "Project",
    inputs: {
      identifier,
      name: `Drift ${identifier}`,
      color: "#112233",
      description: "declared",
      tags: { team: "drift" },
    },
    deps: [],
  });

  it("a pipeline's YAML edited is seen and put back", async () => {
    const proj = `drift_pipe_${m}`;
    const program: Declared[] = [
      project("p-pipe", proj),
      {
        urn: "pipe",
        kind: "Pipeline",
        inputs: { project: proj, pipeline: pipelineModel("deploy", "echo declared") },
        deps: ["p-pipe"],
      },
    ];
    const scope = { org: "default", project: proj };
    const steps = await drift(
      program,
      async () => {
        const live = await platform.pipelines.get("deploy", scope);
        await platform.pipelines.update(
          "deploy",
          live.yamlPipeline.replace("echo declared", "rm -rf /tmp/x"),
          scope,
        );
      },
      () => {
        expect(outs("pipe").yaml).toContain("rm -rf /tmp/x");
        expect(JSON.stringify(outs("pipe").pipeline)).toContain("rm -rf /tmp/x");
      },
    );
    expect(steps).toEqual(["update pipe"]);
    const yaml = YAML.parse((await platform.pipelines.get("deploy", scope)).yamlPipeline) as {
      pipeline: {
        stages: {
          stage: {
            spec: { execution: { steps: { step: { spec: { source: { spec: { script: string } } } } }[] } };
          };
        }[];
      };
    };
    expect(yaml.pipeline.stages[0]?.stage.spec.execution.steps[0]?.step.spec.source.spec.script).toBe(
      "echo declared",
    );
  });

  it("a connector deleted is seen gone and created again", async () => {
    const proj = `drift_conn_${m}`;
    const program: Declared[] = [
      project("p-conn", proj),
      {
        urn: "conn",
        kind: "Connector",
        inputs: {
          org: "default",
          project: proj,
          identifier: "registry",
          name: "Registry",
          description: "declared",
          dockerRegistry: { url: "https://registry.example.test/v2", providerType: "Harbor" },
        },
        deps: ["p-conn"],
      },
    ];
    const scope = { org: "default", project: proj };
    const steps = await drift(
      program,
      async () => {
        await platform.connectors.delete("registry", scope);
      },
      (refresh) => {
        expect(refresh.gone).toEqual(["conn"]);
      },
    );
    expect(steps).toEqual(["create conn"]);
    const live = (await platform.connectors.get("registry", scope)).connector;
    expect({ name: live.name, description: live.description, type: live.type, spec: live.spec }).toEqual({
      name: "Registry",
      description: "declared",
      type: "DockerRegistry",
      spec: expect.objectContaining({
        dockerRegistryUrl: "https://registry.example.test/v2",
        providerType: "Harbor",
        auth: { type: "Anonymous" },
      }),
    });
  });

  it("a project edited by hand is seen and put back", async () => {
    const proj = `drift_proj_${m}`;
    const program = [project("p-edit", proj)];
    const steps = await drift(
      program,
      async () => {
        const live = (await platform.projects.get(proj, { org: "default" })).project;
        await platform.projects.update(
          proj,
          { ...live, name: "Edited", color: "#ffffff", tags: { team: "hand" } },
          { org: "default" },
        );
      },
      () => {
        expect(outs("p-edit")).toMatchObject({ name: "Edited", color: "#ffffff", tags: { team: "hand" } });
      },
    );
    expect(steps).toEqual(["update p-edit"]);
    const live = (await platform.projects.get(proj, { org: "default" })).project;
    expect({
      name: live.name,
      color: live.color.toLowerCase(),
      description: live.description,
      tags: live.tags,
    }).toEqual({
      name: `Drift ${proj}`,
      color: "#112233",
      description: "declared",
      tags: { team: "drift" },
    });
  });
});
