/**
 * Bad input: a corpus of malformed inputs across all seven resources and the event import, each
 * refused with a message that names the field at fault, and not one write request reaching the
 * emulator (its request log is reset before each case and read after it).
 *
 * - Resource inputs go through `check`, directly and through the real gRPC host with the
 *   serialized provider, as the engine sends them: the failure's `property` is the field's path
 *   and, rendered the way the engine prints it, names the field.
 * - Inputs that only the service can judge (a workspace, environment, traffic type or group that
 *   does not exist) pass `check` and are refused by `create` after reads only.
 * - Event records go through `EventsClient.bulk` (refused before sending, the field named as
 *   `records[0].<field>`) and, all together, through the file importer (`importEvents`, what
 *   `flagstack events import` runs), whose rejects file names the field of every line.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type Emulator, startEmulator } from "../../emulator";
import { EventsClient, ValidationError } from "../../sdk";
import { importEvents } from "../../sdk/events/import";
import { type Driver, MODES, type Mode, type ProviderHost, startProviderHost } from "../provider/harness";
import { configureDirect, drivers, type Kind, stackConfig } from "./kinds";
import { pipelineModel, rawPipelineYaml } from "./program";

type Props = Record<string, unknown>;

let emu: Emulator;
let host: ProviderHost;
const modeDrivers = {} as Record<Mode, Record<Kind, Driver>>;

beforeAll(async () => {
  emu = await startEmulator({ port: 0 });
  const config = stackConfig(emu);
  configureDirect(config);
  host = await startProviderHost();
  await host.configure(config);
  modeDrivers.direct = await drivers("direct");
  modeDrivers["gRPC host"] = await drivers("gRPC host", host);
});
afterAll(async () => {
  await host?.stop();
  await emu?.stop();
});
beforeEach(() => {
  emu.resetRequests();
});

/** Requests that change something. */
const writes = () => emu.requests().filter((r) => r.method !== "GET" && r.method !== "HEAD");

// ---------------------------------------------------------------------------------------------
// Valid inputs, each row breaks one field

const flag = { workspace: "Default", name: "bad-input" };
const definition = {
  workspace: "Default",
  flag: "bad-input",
  environment: "Production",
  treatments: [{ name: "on" }, { name: "off" }],
  defaultTreatment: "off",
};
const rule = (over: Props = {}) => ({
  condition: { matchers: [{ type: "IN_LIST_STRING", attribute: "country", strings: ["NL"] }] },
  buckets: [{ treatment: "on", size: 100 }],
  ...over,
});
const group = { name: "bad-input-team" };
const user = { email: "ana@example.test" };
const project = { identifier: "bad_input", name: "Bad input" };
const registry = { url: "https://registry.example.test/v2", providerType: "DockerHub" };
const connector = { identifier: "registry", name: "Registry", dockerRegistry: registry };
const model = pipelineModel("deploy", "echo hi") as {
  stages: { execution: { steps: Props[] } & Props }[];
} & Props;
const pipeline = { project: "bad_input", pipeline: model };
const withStage = (stage: Props) => ({
  ...pipeline,
  pipeline: { ...model, stages: [{ ...model.stages[0], ...stage }] },
});
const withStep = (step: Props) =>
  withStage({ execution: { steps: [{ ...model.stages[0]?.execution.steps[0], ...step }] } });
const yaml = (text: string) => ({ project: "bad_input", yaml: text });
const goodYaml = rawPipelineYaml("deploy", "echo hi");

/** [resource, what is wrong, inputs, the property the failure must name]. */
type CheckRow = [kind: Kind, label: string, inputs: Props, property: string];
/** The same with the property third, so the case name shows it. */
const checkCases = (): [Kind, string, string, Props][] => checkRows.map(([k, l, i, p]) => [k, l, p, i]);

const checkRows: CheckRow[] = [
  // Flag
  ["Flag", "empty name", { ...flag, name: "" }, "name"],
  ["Flag", "name starting with a digit", { ...flag, name: "9lives" }, "name"],
  ["Flag", "name with a space", { ...flag, name: "bad input" }, "name"],
  ["Flag", "name of 101 characters", { ...flag, name: `a${"b".repeat(100)}` }, "name"],
  ["Flag", "missing name", { workspace: "Default" }, "name"],
  ["Flag", "empty workspace", { ...flag, workspace: "" }, "workspace"],
  ["Flag", "missing workspace", { name: "bad-input" }, "workspace"],
  ["Flag", "workspace not a string", { ...flag, workspace: 7 }, "workspace"],
  ["Flag", "description of 1025 characters", { ...flag, description: "d".repeat(1025) }, "description"],
  ["Flag", "description not a string", { ...flag, description: ["d"] }, "description"],
  ["Flag", "tags not a list", { ...flag, tags: "payments" }, "tags"],
  ["Flag", "empty tag", { ...flag, tags: ["ok", ""] }, "tags[1]"],
  ["Flag", "tag of 257 characters", { ...flag, tags: ["t".repeat(257)] }, "tags[0]"],
  ["Flag", "unknown rollout status", { ...flag, rolloutStatus: "Rampin" }, "rolloutStatus"],
  ["Flag", "empty traffic type", { ...flag, trafficType: "" }, "trafficType"],
  ["Flag", "adopt not a boolean", { ...flag, adopt: "yes" }, "adopt"],
  ["Flag", "unknown property", { ...flag, colour: "red" }, "colour"],
  // FlagDefinition
  ["FlagDefinition", "no treatments", { ...definition, treatments: [] }, "treatments"],
  ["FlagDefinition", "missing treatments", { ...definition, treatments: undefined }, "treatments"],
  [
    "FlagDefinition",
    "empty treatment name",
    { ...definition, treatments: [{ name: "" }, { name: "off" }] },
    "treatments[0].name",
  ],
  [
    "FlagDefinition",
    "reserved treatment name",
    { ...definition, treatments: [{ name: "control" }, { name: "off" }] },
    "treatments[0].name",
  ],
  [
    "FlagDefinition",
    "treatment name with a space",
    { ...definition, treatments: [{ name: "on" }, { name: "o ff" }] },
    "treatments[1].name",
  ],
  [
    "FlagDefinition",
    "treatment defined twice",
    { ...definition, treatments: [{ name: "off" }, { name: "off" }] },
    "treatments[1].name",
  ],
  [
    "FlagDefinition",
    "21 treatments",
    {
      ...definition,
      treatments: Array.from({ length: 21 }, (_, i) => ({ name: i === 0 ? "off" : `t${i}` })),
    },
    "treatments",
  ],
  [
    "FlagDefinition",
    "default treatment not a treatment",
    { ...definition, defaultTreatment: "maybe" },
    "defaultTreatment",
  ],
  ["FlagDefinition", "empty default treatment", { ...definition, defaultTreatment: "" }, "defaultTreatment"],
  [
    "FlagDefinition",
    "baseline not a treatment",
    { ...definition, baselineTreatment: "maybe" },
    "baselineTreatment",
  ],
  [
    "FlagDefinition",
    "traffic allocation 101",
    { ...definition, trafficAllocation: 101 },
    "trafficAllocation",
  ],
  ["FlagDefinition", "traffic allocation -1", { ...definition, trafficAllocation: -1 }, "trafficAllocation"],
  [
    "FlagDefinition",
    "traffic allocation 50.5",
    { ...definition, trafficAllocation: 50.5 },
    "trafficAllocation",
  ],
  [
    "FlagDefinition",
    "default rule summing to 90",
    {
      ...definition,
      defaultRule: [
        { treatment: "on", size: 40 },
        { treatment: "off", size: 50 },
      ],
    },
    "defaultRule",
  ],
  ["FlagDefinition", "empty default rule", { ...definition, defaultRule: [] }, "defaultRule"],
  [
    "FlagDefinition",
    "bucket of 101",
    { ...definition, defaultRule: [{ treatment: "on", size: 101 }] },
    "defaultRule[0].size",
  ],
  [
    "FlagDefinition",
    "bucket of an unknown treatment",
    { ...definition, defaultRule: [{ treatment: "maybe", size: 100 }] },
    "defaultRule[0].treatment",
  ],
  [
    "FlagDefinition",
    "rule buckets summing to 50",
    { ...definition, rules: [rule({ buckets: [{ treatment: "on", size: 50 }] })] },
    "rules[0].buckets",
  ],
  [
    "FlagDefinition",
    "rule without buckets",
    { ...definition, rules: [rule({ buckets: [] })] },
    "rules[0].buckets",
  ],
  [
    "FlagDefinition",
    "rule without matchers",
    { ...definition, rules: [rule({ condition: { matchers: [] } })] },
    "rules[0].condition.matchers",
  ],
  [
    "FlagDefinition",
    "matcher of an unknown type",
    { ...definition, rules: [rule({ condition: { matchers: [{ type: "LIKE" }] } })] },
    "rules[0].condition.matchers[0].type",
  ],
  [
    "FlagDefinition",
    "configurations that are not JSON",
    { ...definition, treatments: [{ name: "on", configurations: "{color:" }, { name: "off" }] },
    "treatments[0].configurations",
  ],
  [
    "FlagDefinition",
    "configurations a number",
    { ...definition, treatments: [{ name: "on", configurations: 7 }, { name: "off" }] },
    "treatments[0].configurations",
  ],
  [
    "FlagDefinition",
    "one key targeted by two treatments",
    {
      ...definition,
      treatments: [
        { name: "on", keys: ["k1"] },
        { name: "off", keys: ["k1"] },
      ],
    },
    "treatments[1].keys[0]",
  ],
  [
    "FlagDefinition",
    "empty target key",
    { ...definition, treatments: [{ name: "on", keys: [""] }, { name: "off" }] },
    "treatments[0].keys[0]",
  ],
  ["FlagDefinition", "killed not a boolean", { ...definition, killed: "yes" }, "killed"],
  ["FlagDefinition", "empty environment", { ...definition, environment: "" }, "environment"],
  ["FlagDefinition", "flag name starting with a digit", { ...definition, flag: "9lives" }, "flag"],
  ["FlagDefinition", "empty title", { ...definition, title: "" }, "title"],
  ["FlagDefinition", "comment of 4097 characters", { ...definition, comment: "c".repeat(4097) }, "comment"],
  ["FlagDefinition", "unknown property", { ...definition, segments: ["beta"] }, "segments"],
  // Group
  ["Group", "empty name", { name: "" }, "name"],
  ["Group", "missing name", {}, "name"],
  ["Group", "name of 257 characters", { name: "g".repeat(257) }, "name"],
  ["Group", "description not a string", { ...group, description: 3 }, "description"],
  ["Group", "description of 1025 characters", { ...group, description: "d".repeat(1025) }, "description"],
  ["Group", "adopt not a boolean", { ...group, adopt: 1 }, "adopt"],
  ["Group", "unknown property", { ...group, members: ["ana"] }, "members"],
  // UserInvite
  ["UserInvite", "missing email", {}, "email"],
  ["UserInvite", "email without @", { email: "ana.example.test" }, "email"],
  ["UserInvite", "empty email", { email: "" }, "email"],
  ["UserInvite", "groups not a list", { ...user, groups: "team" }, "groups"],
  ["UserInvite", "empty group", { ...user, groups: [""] }, "groups[0]"],
  ["UserInvite", "unknown onDelete", { ...user, onDelete: "remove" }, "onDelete"],
  ["UserInvite", "adopt not a boolean", { ...user, adopt: "no" }, "adopt"],
  ["UserInvite", "unknown property", { ...user, role: "admin" }, "role"],
  // Project
  ["Project", "missing identifier", { name: "Bad input" }, "identifier"],
  ["Project", "identifier starting with a digit", { ...project, identifier: "1proj" }, "identifier"],
  ["Project", "identifier with a hyphen", { ...project, identifier: "bad-input" }, "identifier"],
  ["Project", "reserved identifier", { ...project, identifier: "status" }, "identifier"],
  ["Project", "empty name", { ...project, name: " " }, "name"],
  ["Project", "name with '!'", { ...project, name: "Bad!" }, "name"],
  ["Project", "name of 65 characters", { ...project, name: "n".repeat(65) }, "name"],
  ["Project", "colour not #RRGGBB", { ...project, color: "blue" }, "color"],
  ["Project", "organization with a hyphen", { ...project, org: "my-org" }, "org"],
  ["Project", "description of 1025 characters", { ...project, description: "d".repeat(1025) }, "description"],
  ["Project", "tag value not a string", { ...project, tags: { team: 7 } }, "tags.team"],
  ["Project", "empty module", { ...project, modules: [""] }, "modules[0]"],
  ["Project", "unknown property", { ...project, owner: "me" }, "owner"],
  // Connector
  ["Connector", "missing identifier", { name: "Registry", dockerRegistry: registry }, "identifier"],
  ["Connector", "identifier starting with a digit", { ...connector, identifier: "1registry" }, "identifier"],
  ["Connector", "empty name", { ...connector, name: "" }, "name"],
  [
    "Connector",
    "neither dockerRegistry nor generic",
    { identifier: "registry", name: "Registry" },
    "dockerRegistry",
  ],
  [
    "Connector",
    "both dockerRegistry and generic",
    { ...connector, generic: { type: "Git", spec: {} } },
    "dockerRegistry",
  ],
  [
    "Connector",
    "url that is not a URL",
    { ...connector, dockerRegistry: { ...registry, url: "registry" } },
    "dockerRegistry.url",
  ],
  [
    "Connector",
    "ftp url",
    { ...connector, dockerRegistry: { ...registry, url: "ftp://registry.example.test" } },
    "dockerRegistry.url",
  ],
  [
    "Connector",
    "unknown provider type",
    { ...connector, dockerRegistry: { ...registry, providerType: "Gitlab" } },
    "dockerRegistry.providerType",
  ],
  [
    "Connector",
    "unknown auth type",
    { ...connector, dockerRegistry: { ...registry, auth: { type: "Token" } } },
    "dockerRegistry.auth.type",
  ],
  [
    "Connector",
    "password without a secret reference",
    { ...connector, dockerRegistry: { ...registry, auth: { type: "UsernamePassword", username: "bot" } } },
    "dockerRegistry.auth.passwordRef",
  ],
  [
    "Connector",
    "a password value instead of a secret reference",
    {
      ...connector,
      dockerRegistry: {
        ...registry,
        auth: { type: "UsernamePassword", username: "bot", passwordRef: "hunter2!" },
      },
    },
    "dockerRegistry.auth.passwordRef",
  ],
  [
    "Connector",
    "neither username nor usernameRef",
    {
      ...connector,
      dockerRegistry: { ...registry, auth: { type: "UsernamePassword", passwordRef: "account.pw" } },
    },
    "dockerRegistry.auth",
  ],
  ["Connector", "project without org", { ...connector, project: "bad_input" }, "org"],
  [
    "Connector",
    "generic spec not an object",
    { identifier: "git", name: "Git", generic: { type: "Git", spec: "url" } },
    "generic.spec",
  ],
  [
    "Connector",
    "generic type empty",
    { identifier: "git", name: "Git", generic: { type: "", spec: {} } },
    "generic.type",
  ],
  [
    "Connector",
    "empty delegate selector",
    { ...connector, dockerRegistry: { ...registry, delegateSelectors: [""] } },
    "dockerRegistry.delegateSelectors[0]",
  ],
  [
    "Connector",
    "executeOnDelegate not a boolean",
    { ...connector, dockerRegistry: { ...registry, executeOnDelegate: "yes" } },
    "dockerRegistry.executeOnDelegate",
  ],
  ["Connector", "tag value not a string", { ...connector, tags: { team: false } }, "tags.team"],
  // Pipeline
  ["Pipeline", "neither pipeline nor yaml", { project: "bad_input" }, "pipeline"],
  ["Pipeline", "both pipeline and yaml", { ...pipeline, yaml: goodYaml }, "pipeline"],
  ["Pipeline", "missing project", { pipeline: model }, "project"],
  ["Pipeline", "project with a hyphen", { ...pipeline, project: "bad-input" }, "project"],
  [
    "Pipeline",
    "model identifier with a hyphen",
    { ...pipeline, pipeline: { ...model, identifier: "de-ploy" } },
    "pipeline.identifier",
  ],
  [
    "Pipeline",
    "model with an empty name",
    { ...pipeline, pipeline: { ...model, name: "" } },
    "pipeline.name",
  ],
  [
    "Pipeline",
    "model without stages",
    { ...pipeline, pipeline: { ...model, stages: [] } },
    "pipeline.stages",
  ],
  ["Pipeline", "stage of an unknown type", withStage({ type: "FeatureFlag" }), "pipeline.stages[0].type"],
  [
    "Pipeline",
    "step timeout that is not a duration",
    withStep({ timeout: "5 minutes" }),
    "pipeline.stages[0].execution.steps[0].timeout",
  ],
  [
    "Pipeline",
    "step shell that is not Bash or PowerShell",
    withStep({ shell: "zsh" }),
    "pipeline.stages[0].execution.steps[0].shell",
  ],
  [
    "Pipeline",
    "stage identifier used twice",
    { ...pipeline, pipeline: { ...model, stages: [model.stages[0], model.stages[0]] } },
    "pipeline.stages[1].identifier",
  ],
  ["Pipeline", "YAML that does not parse", yaml("pipeline:\n  name: [unclosed\n"), "yaml"],
  ["Pipeline", "YAML without a pipeline mapping", yaml("stages: []\n"), "yaml.pipeline"],
  [
    "Pipeline",
    "YAML with a bad identifier",
    yaml(goodYaml.replace("identifier: deploy", "identifier: de-ploy")),
    "yaml.pipeline.identifier",
  ],
  [
    "Pipeline",
    "YAML with a duplicate key",
    yaml(goodYaml.replace("  name: Pipeline deploy\n", "  name: Pipeline deploy\n  name: Again\n")),
    "yaml",
  ],
  [
    "Pipeline",
    "YAML naming another project",
    yaml(goodYaml.replace("pipeline:\n", "pipeline:\n  projectIdentifier: elsewhere\n")),
    "yaml",
  ],
  ["Pipeline", "yaml not a string", { project: "bad_input", yaml: 42 }, "yaml"],
];

describe.each(MODES)("check refuses bad input field by field, with no request (%s)", (mode) => {
  it.each(checkCases())("%s: %s → %s", async (kind, _label, property, inputs) => {
    const d = modeDrivers[mode][kind];
    const { failures } = await d.check({}, JSON.parse(JSON.stringify(inputs)) as Props);
    const failure = failures.find((f) => f.property === property);
    expect(failure, `failures: ${JSON.stringify(failures)}`).toBeDefined();
    expect(failure?.reason.length).toBeGreaterThan(0);
    // How the engine prints a check failure: the property, then the reason.
    const leaf = property
      .replace(/\[\d+\]$/, "")
      .split(/[.[]/)
      .pop() as string;
    expect(`property ${failure?.property} has a problem: ${failure?.reason}`).toContain(leaf);
    expect(emu.requests()).toEqual([]);
  });
});

// ---------------------------------------------------------------------------------------------
// Inputs only the service can judge: refused by create after reads only

/** [resource, what is wrong, inputs, text the error must contain (it names the field)]. */
type CreateRow = [kind: Kind, label: string, inputs: Props, names: string];

const createRows: CreateRow[] = [
  ["Flag", "a workspace that does not exist", { ...flag, workspace: "Nope" }, 'workspace "Nope" not found'],
  [
    "Flag",
    "a traffic type that does not exist",
    { ...flag, trafficType: "robot" },
    'traffic type "robot" not found',
  ],
  [
    "FlagDefinition",
    "a workspace that does not exist",
    { ...definition, workspace: "Nope" },
    'workspace "Nope" not found',
  ],
  [
    "FlagDefinition",
    "an environment that does not exist",
    { ...definition, environment: "Prod" },
    'environment "Prod" not found',
  ],
  ["UserInvite", "a group that does not exist", { ...user, groups: ["ghosts"] }, 'group "ghosts" not found'],
];

describe.each(MODES)("create refuses names that do not exist, after reads only (%s)", (mode) => {
  it.each(createRows)("%s: %s", async (kind, _label, inputs, names) => {
    const d = modeDrivers[mode][kind];
    const checked = await d.check({}, inputs);
    expect(checked.failures).toEqual([]);
    await expect(d.create(checked.inputs)).rejects.toThrow(names);
    expect(emu.requests().length).toBeGreaterThan(0);
    expect(writes()).toEqual([]);
  });
});

// ---------------------------------------------------------------------------------------------
// Event records

const event = { eventTypeId: "checkout", trafficTypeName: "user", key: "u-1", timestamp: 1_700_000_000_000 };
const { eventTypeId: _e, ...noEventType } = event;
const { trafficTypeName: _t, ...noTrafficType } = event;
const { key: _k, ...noKey } = event;
const { timestamp: _s, ...noTimestamp } = event;

/** [what is wrong, the record, the field the message must name]. */
type EventRow = [label: string, record: unknown, field: string];

const eventRows: EventRow[] = [
  ["missing eventTypeId", noEventType, "eventTypeId"],
  ["eventTypeId with a space", { ...event, eventTypeId: "check out" }, "eventTypeId"],
  ["eventTypeId starting with '-'", { ...event, eventTypeId: "-checkout" }, "eventTypeId"],
  ["eventTypeId of 81 characters", { ...event, eventTypeId: `e${"x".repeat(80)}` }, "eventTypeId"],
  ["eventTypeId not a string", { ...event, eventTypeId: 7 }, "eventTypeId"],
  ["missing trafficTypeName", noTrafficType, "trafficTypeName"],
  ["empty trafficTypeName", { ...event, trafficTypeName: "" }, "trafficTypeName"],
  ["missing key", noKey, "key"],
  ["empty key", { ...event, key: "" }, "key"],
  ["key of 251 characters", { ...event, key: "k".repeat(251) }, "key"],
  ["key not a string", { ...event, key: 42 }, "key"],
  ["missing timestamp", noTimestamp, "timestamp"],
  ["timestamp as a word", { ...event, timestamp: "yesterday" }, "timestamp"],
  ["negative timestamp", { ...event, timestamp: -1 }, "timestamp"],
  ["fractional timestamp", { ...event, timestamp: 1.5 }, "timestamp"],
  ["timestamp as an ISO date", { ...event, timestamp: "2026-11-22T10:00:00Z" }, "timestamp"],
  ["value as a string", { ...event, value: "12" }, "value"],
  ["value as a boolean", { ...event, value: true }, "value"],
  ["properties as a list", { ...event, properties: ["plan"] }, "properties"],
  [
    "properties with 301 keys",
    { ...event, properties: Object.fromEntries(Array.from({ length: 301 }, (_, i) => [`p${i}`, i])) },
    "properties",
  ],
  ["environmentName not a string", { ...event, environmentName: 3 }, "environmentName"],
];

describe("event records are refused before sending, naming the field", () => {
  const events = () =>
    new EventsClient({ baseUrl: emu.url, sdkKey: emu.sdkKey, requestsPerSecond: Number.POSITIVE_INFINITY });

  it.each(eventRows)("EventsClient.bulk: %s", async (_label, record, field) => {
    const err = await events()
      .bulk([event, record as typeof event])
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(err).toBeInstanceOf(ValidationError);
    const v = err as ValidationError;
    expect(v.fieldErrors.map((f) => f.field)).toContain(`records[1].${field}`);
    expect(v.message).toContain(`records[1].${field}`);
    expect(emu.requests()).toEqual([]);
  });

  it.each([
    ["a record that is null", null],
    ["a record that is a list", [event]],
    ["a record over 32 KB", { ...event, properties: { blob: "x".repeat(33 * 1024) } }],
  ])("EventsClient.bulk: %s names the record", async (_label, record) => {
    await expect(events().bulk([record as typeof event])).rejects.toMatchObject({
      kind: "validation",
      message: expect.stringContaining("records[0]"),
    });
    expect(emu.requests()).toEqual([]);
  });

  it("the file importer rejects every bad line, naming its field, and sends nothing", async () => {
    const dir = mkdtempSync(join(tmpdir(), "flagstack-bad-events-"));
    try {
      const input = join(dir, "events.ndjson");
      writeFileSync(input, `${eventRows.map(([, record]) => JSON.stringify(record)).join("\n")}\n`);
      const rejects = join(dir, "rejects.ndjson");
      const summary = await importEvents({
        input,
        eventsUrl: emu.url,
        sdkKey: emu.sdkKey,
        rejects,
        journal: false,
        requestsPerSecond: Number.POSITIVE_INFINITY,
      });
      expect(summary).toMatchObject({
        read: eventRows.length,
        valid: 0,
        rejected: eventRows.length,
        sent: 0,
      });
      const lines = readFileSync(rejects, "utf8")
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l) as { line: number; reason: string });
      expect(lines.map((l) => l.line)).toEqual(eventRows.map((_, i) => i + 1));
      lines.forEach((l, i) => {
        expect(l.reason, `line ${l.line}`).toContain(eventRows[i]?.[2]);
      });
      expect(writes()).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

it("the corpus holds at least 100 malformed inputs", () => {
  expect(checkRows.length + createRows.length + eventRows.length + 3).toBeGreaterThanOrEqual(100);
});
