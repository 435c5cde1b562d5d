/**
 * The native provider plugin through its gRPC interface, started as the engine starts it, against
 * the emulator: start-up time, schema, configuration (secrets, per-instance settings), and a
 * resource's whole lifecycle dispatched to the same `impl` the dynamic resource uses.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Emulator, startEmulator } from "../../emulator";
import { NATIVE_KINDS } from "../../provider/native/kinds";
import {
  type NativePlugin,
  nativeDriver,
  PLUGIN_DIR,
  PluginError,
  REPO,
  secret,
  startNativePlugin,
  urnOf,
} from "./harness";

const VERSION = (JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")) as { version: string }).version;

let emu: Emulator;
let plugin: NativePlugin;

beforeAll(async () => {
  emu = await startEmulator({ port: 0 });
  // The FLAGSTACK_* fallbacks blanked: what the provider uses comes from Configure.
  plugin = await startNativePlugin({ FLAGSTACK_ADMIN_API_URL: "", FLAGSTACK_ADMIN_API_KEY: "" });
});

afterAll(async () => {
  await plugin?.stop();
  await emu?.stop();
});

const adminRequests = () => emu.requests().filter((r) => r.path.startsWith("/internal/api/v2"));

describe("native plugin: start-up, schema and configuration", () => {
  // How fast it starts is a benchmark figure (`native_provider_start_ms`, bench/native.bench.ts).
  // The engine reads the port it dials from the first line of the plugin's stdout.
  it("prints its port alone on stdout and answers its first request with the package's version", async () => {
    expect(plugin.stdout()).toBe(`${plugin.port}\n`);
    expect(await plugin.getPluginInfo()).toEqual({ version: VERSION });
  });

  it("serves the committed schema, byte for byte", async () => {
    expect(await plugin.getSchema()).toBe(readFileSync(join(PLUGIN_DIR, "schema.json"), "utf8"));
  });

  it("CheckConfig names each bad setting and passes the inputs through", async () => {
    const news = { adminApiUrl: "ftp://nowhere", maxRetries: -1, adminApiKey: "k" };
    expect(await plugin.checkConfig(news)).toEqual({
      inputs: news,
      failures: [
        { property: "adminApiUrl", reason: "flagstack:adminApiUrl: must be an http(s) URL" },
        { property: "maxRetries", reason: "flagstack:maxRetries: must be 0 or more" },
      ],
    });
    const good = { adminApiUrl: emu.url, adminApiKey: emu.adminKey, requestsPerSecond: 1000 };
    expect(await plugin.checkConfig(good)).toEqual({ inputs: good, failures: [] });
  });

  it("Configure takes the key as a secret and answers like the dynamic-provider host", async () => {
    expect(
      await plugin.configure({
        adminApiUrl: emu.url,
        adminApiKey: secret(emu.adminKey),
        requestsPerSecond: 1000,
      }),
    ).toEqual({ acceptSecrets: false, supportsPreview: false });
  });

  it("an unknown type token fails naming the types served", async () => {
    await expect(plugin.check(urnOf("flagstack:index:Nope"), {}, {})).rejects.toThrow(
      // Every kind of the registry, in its order (the list grows with each resource).
      `flagstack: unknown resource type flagstack:index:Nope; this provider serves ${NATIVE_KINDS.map((k) => k.token).join(", ")}`,
    );
  });
});

describe("native plugin: a Flag's lifecycle through the shared impl", () => {
  const flag = () => nativeDriver(plugin, "flagstack:index:Flag");

  it("check applies the schema's defaults and reports a bad field, with no request", async () => {
    emu.resetRequests();
    expect(await flag().check({}, { workspace: "Default", name: "native-one" })).toEqual({
      inputs: {
        workspace: "Default",
        trafficType: "user",
        name: "native-one",
        description: "",
        tags: [],
        adopt: false,
      },
      failures: [],
    });
    const bad = await flag().check({}, { workspace: "Default", name: "1 bad name" });
    expect(bad.failures.map((f) => f.property)).toEqual(["name"]);
    expect(emu.requests()).toEqual([]);
  });

  it("create, read, diff, update, replace-diff and delete", async () => {
    const driver = flag();
    const { inputs } = await driver.check({}, { workspace: "Default", name: "native-two", tags: ["b", "a"] });
    const created = await driver.create(inputs);
    expect(created.outs).toEqual({
      workspace: "Default",
      trafficType: "user",
      name: "native-two",
      description: "",
      tags: ["a", "b"],
      rolloutStatus: "Pre-Production",
      owners: [],
      adopt: false,
      flagId: created.id,
      creationTime: expect.any(Number),
      rolloutStatusId: expect.any(String),
      rolloutStatusTimestamp: expect.any(Number),
      workspaceId: expect.any(String),
      workspaceName: "Default",
      trafficTypeId: expect.any(String),
    });
    const read = await driver.read(created.id, created.outs);
    expect(read.id).toBe(created.id);
    expect(read.props).toEqual(created.outs);
    expect(await driver.diff(created.id, created.outs, inputs)).toEqual({
      changes: false,
      replaces: [],
      deleteBeforeReplace: false,
    });
    const news = { ...inputs, description: "via the native provider" };
    expect(await driver.diff(created.id, created.outs, news)).toEqual({
      changes: true,
      replaces: [],
      deleteBeforeReplace: false,
    });
    emu.resetRequests();
    const updated = await driver.update(created.id, created.outs, news);
    expect(updated.outs.description).toBe("via the native provider");
    expect(adminRequests().map((r) => r.method)).toEqual(["GET", "PATCH"]);
    expect(await driver.diff(created.id, updated.outs, { ...news, name: "native-three" })).toEqual({
      changes: true,
      replaces: ["name"],
      deleteBeforeReplace: true,
    });
    await driver.delete(created.id, updated.outs);
    expect(await driver.read(created.id, updated.outs)).toEqual({
      id: undefined,
      props: undefined,
      inputs: undefined,
    });
  });

  it("a create of a name that is taken fails with the impl's message", async () => {
    const driver = flag();
    const { inputs } = await driver.check({}, { workspace: "Default", name: "native-four" });
    const created = await driver.create(inputs);
    const error = await driver.create(inputs).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PluginError);
    expect((error as PluginError).message).toMatch(
      /^a flag named "native-four" in workspace "Default" already exists\. Set `adopt: true` on the resource to manage the existing one, or choose another name\. If an interrupted `pulumi up` \(killed, or stopped by a CI timeout\) may have made it, run `npx flagstack recover`: it takes the objects of that run into the state\. \(POST \/internal\/api\/v2\/splits\/ws\/[^/]+\/trafficTypes\/user\/: 409 Split with name native-four already exists in workspace Default \(transaction \w+\)\)$/,
    );
    await driver.delete(created.id, created.outs);
  });
});

describe("native plugin: the read of `pulumi import`, by natural id and no state", () => {
  it("reads a Flag by <workspace>/<name>, a FlagDefinition by <workspace>/<flag>/<environment>, a Group by name", async () => {
    const flag = await plugin.create(urnOf("flagstack:index:Flag"), {
      workspace: "Default",
      trafficType: "user",
      name: "native-imported",
      description: "made elsewhere",
      tags: ["x"],
      adopt: false,
    });
    const def = await plugin.create(urnOf("flagstack:index:FlagDefinition"), {
      workspace: "Default",
      flag: "native-imported",
      environment: "Production",
      treatments: [{ name: "on", keys: ["qa-bot"] }, { name: "off" }],
      defaultTreatment: "off",
      trafficAllocation: 100,
      rules: [],
      defaultRule: [{ treatment: "off", size: 100 }],
      killed: false,
      adopt: false,
    });
    const group = await plugin.create(urnOf("flagstack:index:Group"), {
      name: "native-imported-group",
      description: "reviewers",
      adopt: false,
    });

    emu.resetRequests();
    const readFlag = await plugin.read(urnOf("flagstack:index:Flag"), "Default/native-imported");
    expect(adminRequests().every((r) => r.method === "GET")).toBe(true);
    expect(readFlag).toEqual({
      id: flag.id,
      properties: flag.properties,
      inputs: {
        workspace: "Default",
        trafficType: "user",
        name: "native-imported",
        description: "made elsewhere",
        tags: ["x"],
        rolloutStatus: "Pre-Production",
        adopt: false,
      },
    });

    const readDef = await plugin.read(
      urnOf("flagstack:index:FlagDefinition"),
      "Default/native-imported/Production",
    );
    expect(readDef.id).toBe(def.id);
    expect(readDef.properties).toEqual({
      ...def.properties,
      lastUpdateTime: readDef.properties.lastUpdateTime,
    });
    expect(readDef.inputs).toEqual({
      workspace: "Default",
      flag: "native-imported",
      environment: "Production",
      treatments: [{ name: "on", keys: ["qa-bot"] }, { name: "off" }],
      defaultTreatment: "off",
      trafficAllocation: 100,
      rules: [],
      defaultRule: [{ treatment: "off", size: 100 }],
      killed: false,
      adopt: false,
    });

    const readGroup = await plugin.read(urnOf("flagstack:index:Group"), "native-imported-group");
    expect(readGroup).toEqual({
      id: group.id,
      properties: group.properties,
      inputs: { name: "native-imported-group", description: "reviewers", adopt: false },
    });

    // Missing objects read as gone (the engine then says the resource does not exist).
    expect((await plugin.read(urnOf("flagstack:index:Flag"), "Default/native-nothing")).id).toBe("");
    expect((await plugin.read(urnOf("flagstack:index:Group"), "native-nothing")).id).toBe("");
    await expect(plugin.read(urnOf("flagstack:index:Flag"), "no-slash")).rejects.toThrow(
      'flag import id "no-slash" must be <workspace>/<name>, e.g. Default/new-checkout',
    );
    await expect(
      plugin.read(urnOf("flagstack:index:FlagDefinition"), "Default/native-imported"),
    ).rejects.toThrow(
      'flag definition import id "Default/native-imported" must be <workspace>/<flag>/<environment>, e.g. Default/new-checkout/Production',
    );

    await plugin.delete(urnOf("flagstack:index:FlagDefinition"), def.id, def.properties);
    await plugin.delete(urnOf("flagstack:index:Flag"), flag.id, flag.properties);
    await plugin.delete(urnOf("flagstack:index:Group"), group.id, group.properties);
  });
});

describe("native plugin: functions", () => {
  it("getWorkspace, getEnvironment and getUsers run the lookups with the provider's configuration", async () => {
    const ws = await plugin.invoke("flagstack:index:getWorkspace", { name: "Default" });
    expect(ws).toEqual({
      outputs: {
        id: expect.any(String),
        name: "Default",
        type: "workspace",
        requiresTitleAndComments: false,
      },
      failures: [],
    });
    expect(
      await plugin.invoke("flagstack:index:getEnvironment", { workspace: "Default", name: "Staging" }),
    ).toEqual({
      outputs: { id: expect.any(String), name: "Staging", production: false },
      failures: [],
    });
    expect(await plugin.invoke("flagstack:index:getUsers", { status: "ACTIVE" })).toEqual({
      outputs: { users: [] },
      failures: [],
    });
  });

  it("getOrganization is served, and says which platform setting is missing when the provider has none", async () => {
    // This plugin is configured for the admin API only.
    await expect(plugin.invoke("flagstack:index:getOrganization", { identifier: "default" })).rejects.toThrow(
      "flagstack: no platform API URL configured: run `pulumi config set flagstack:platformApiUrl <value>` or set FLAGSTACK_PLATFORM_API_URL",
    );
  });

  it("an unknown name fails with the valid ones, an unknown function with the functions served", async () => {
    await expect(plugin.invoke("flagstack:index:getWorkspace", { name: "Nowhere" })).rejects.toThrow(
      'workspace "Nowhere" not found; valid workspaces: "Default"',
    );
    await expect(plugin.invoke("flagstack:index:getNothing", {})).rejects.toThrow(
      "flagstack: unknown function flagstack:index:getNothing; this provider serves flagstack:index:getWorkspace, flagstack:index:getEnvironment, flagstack:index:getRolloutStatus, flagstack:index:getTrafficType, flagstack:index:getGroup, flagstack:index:getSegment, flagstack:index:getFlagSet, flagstack:index:getLargeSegment, flagstack:index:getRuleBasedSegment, flagstack:index:getUsers, flagstack:index:getOrganization, flagstack:index:getProject, flagstack:index:getConnector, flagstack:index:getPipeline",
    );
  });
});

describe("native plugin: two provider instances, two accounts", () => {
  it("each process keeps its own configuration", async () => {
    const other = await startEmulator({ port: 0 });
    const second = await startNativePlugin({ FLAGSTACK_ADMIN_API_URL: "", FLAGSTACK_ADMIN_API_KEY: "" });
    try {
      await second.configure({
        adminApiUrl: other.url,
        adminApiKey: secret(other.adminKey),
        requestsPerSecond: 1000,
      });
      const group = "flagstack:index:Group";
      const here = await plugin.create(urnOf(group), { name: "native-here", description: "", adopt: false });
      const there = await second.create(urnOf(group), {
        name: "native-there",
        description: "",
        adopt: false,
      });
      const names = async (e: Emulator) => {
        const res = await fetch(`${e.url}/internal/api/v2/groups`, {
          headers: { Authorization: `Bearer ${e.adminKey}` },
        });
        return ((await res.json()) as { objects: { name: string }[] }).objects.map((g) => g.name);
      };
      expect(await names(emu)).toContain("native-here");
      expect(await names(emu)).not.toContain("native-there");
      expect(await names(other)).toEqual(["native-there"]);
      await plugin.delete(urnOf(group), here.id, here.properties);
      await second.delete(urnOf(group), there.id, there.properties);
    } finally {
      await second.stop();
      await other.stop();
    }
  });
});

describe("native plugin: the engine's death", () => {
  // The probe's period (one second) is tested exactly on a fake clock in test/provider/core/host.test.ts;
  // no fake clock reaches the plugin's process, so this bound is on the real one.
  it("the plugin ends with status 1 within a few seconds of its engine", async () => {
    const orphan = await startNativePlugin();
    try {
      await orphan.configure({ adminApiUrl: emu.url, adminApiKey: secret(emu.adminKey) });
      const started = Date.now();
      await orphan.closeEngine();
      expect(await orphan.exited).toBe(1);
      expect(Date.now() - started).toBeLessThan(5000);
    } finally {
      await orphan.stop();
    }
  });
});
