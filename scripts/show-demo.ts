/**
 * Prints what the demo stack made, read back from the emulator (scripts/demo.sh runs it after
 * `pulumi up`): the flags and their definitions in each environment, the team, the project,
 * connector and pipeline, and the treatments that the real feature-flag SDK
 * (`@splitsoftware/splitio`, pointed at the emulator, streaming off) gives a few sample keys.
 *
 * Usage: node --import tsx scripts/show-demo.ts --url URL --admin-key K --platform-key K
 *          --account ID --sdk-keys "Production: K, Staging: K" --outputs outputs.json
 * (`outputs.json` is `pulumi stack output --json` of the demo stack.)
 */
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { SplitFactory } from "@splitsoftware/splitio";
import { parse as parseYaml } from "yaml";
import { AdminClient, closeSharedPools, type Definition, PlatformClient } from "../sdk";

/** The demo stack's outputs (demo/index.ts). */
interface DemoOutputs {
  workspaceName: string;
  flags: string[];
  environments: string[];
  group: string;
  user: string;
  projectIdentifier: string;
  connector: { identifier: string; project: string };
  pipelineIdentifier: string;
}

/** Sample keys and their attributes: individual targets, the Dutch rule, and the percentage split. */
const SAMPLE_KEYS: { key: string; attributes: Record<string, string> }[] = [
  { key: "qa-bot", attributes: {} },
  { key: "alice", attributes: { country: "US" } },
  { key: "bob", attributes: { country: "NL" } },
  { key: "carol", attributes: { country: "US" } },
  { key: "dave", attributes: { country: "DE" } },
  { key: "search-team", attributes: {} },
];

const { values: args } = parseArgs({
  options: {
    url: { type: "string" },
    "admin-key": { type: "string" },
    "platform-key": { type: "string" },
    account: { type: "string" },
    "sdk-keys": { type: "string" },
    outputs: { type: "string" },
  },
  strict: true,
});

function required(name: keyof typeof args): string {
  const value = args[name];
  if (typeof value !== "string" || value === "") throw new Error(`show-demo: --${name} is required`);
  return value;
}

/** Parses the emulator banner's `Production: key, Staging: key`. */
function parseSdkKeys(text: string): Record<string, string> {
  const keys: Record<string, string> = {};
  for (const part of text.split(",")) {
    const at = part.indexOf(":");
    if (at > 0) keys[part.slice(0, at).trim()] = part.slice(at + 1).trim();
  }
  return keys;
}

const buckets = (bs: { treatment: string; size: number }[]) =>
  bs.map((b) => `${b.treatment} ${b.size}%`).join(" / ");

function describeDefinition(def: Definition): string[] {
  const lines: string[] = [];
  const treatments = def.treatments.map((t) =>
    t.keys?.length ? `${t.name} (targets: ${t.keys.join(", ")})` : t.name,
  );
  lines.push(`treatments      ${treatments.join(", ")}`);
  for (const [i, rule] of def.rules.entries()) {
    const cond = rule.condition.matchers
      .map((m) => `${m.attribute ?? "key"} ${m.type}${m.strings ? ` [${m.strings.join(", ")}]` : ""}`)
      .join(" AND ");
    lines.push(`rule ${i + 1}          if ${cond} then ${buckets(rule.buckets)}`);
  }
  lines.push(`default rule    ${buckets(def.defaultRule)}  (traffic allocation ${def.trafficAllocation}%)`);
  lines.push(
    `default         ${def.defaultTreatment}${def.killed ? "   ** KILLED: everyone gets the default treatment **" : ""}`,
  );
  return lines;
}

interface StoredStep {
  step?: { name: string; type: string; timeout?: string; spec?: { source?: { spec?: { script?: string } } } };
  parallel?: StoredStep[];
}
interface StoredPipeline {
  pipeline: {
    name: string;
    stages: {
      stage: {
        name: string;
        type: string;
        spec: { execution: { steps: StoredStep[]; rollbackSteps?: StoredStep[] } };
      };
    }[];
  };
}

/** Stages and steps of a stored pipeline, with the scripts of its shell steps. */
function pipelineSummary(yaml: string): string[] {
  const doc = parseYaml(yaml) as StoredPipeline;
  const lines: string[] = [];
  const steps = (list: StoredStep[] | undefined, label: string) => {
    for (const entry of (list ?? []).flatMap((e) => (e.parallel ? e.parallel : [e]))) {
      if (!entry.step) continue;
      lines.push(
        `    ${label} ${entry.step.name} (${entry.step.type}, timeout ${entry.step.timeout ?? "none"})`,
      );
      const script = entry.step.spec?.source?.spec?.script;
      if (script) for (const line of script.split("\n")) lines.push(`        $ ${line}`);
    }
  };
  for (const { stage } of doc.pipeline.stages) {
    lines.push(`stage ${stage.name} (${stage.type})`);
    steps(stage.spec.execution.steps, "step    ");
    steps(stage.spec.execution.rollbackSteps, "rollback");
  }
  return lines;
}

/** Treatments of every sample key for every flag, from the real SDK on one environment's key. */
async function treatments(url: string, sdkKey: string, flags: string[]): Promise<Map<string, string[]>> {
  const factory = SplitFactory({
    core: { authorizationKey: sdkKey },
    urls: {
      sdk: `${url}/api`,
      events: `${url}/api`,
      auth: `${url}/api`,
      telemetry: `${url}/api`,
      streaming: url,
    },
    streamingEnabled: false,
    startup: { readyTimeout: 10 },
    debug: false,
  });
  const client = factory.client();
  try {
    await client.whenReady();
    const rows = new Map<string, string[]>();
    for (const { key, attributes } of SAMPLE_KEYS) {
      rows.set(
        key,
        flags.map((flag) => {
          const { treatment, config } = client.getTreatmentWithConfig(key, flag, attributes);
          return config ? `${treatment} ${config}` : treatment;
        }),
      );
    }
    return rows;
  } finally {
    await client.destroy();
  }
}

async function main(): Promise<void> {
  const url = required("url");
  const outputs = JSON.parse(readFileSync(required("outputs"), "utf8")) as DemoOutputs;
  const sdkKeys = parseSdkKeys(required("sdk-keys"));
  const admin = new AdminClient({ baseUrl: url, apiKey: required("admin-key") });
  const platform = new PlatformClient({
    baseUrl: url,
    apiKey: required("platform-key"),
    accountId: required("account"),
  });
  const out: string[] = [];
  const say = (line = "") => out.push(line);

  const ws = await admin.workspaces.getByName(outputs.workspaceName);
  if (!ws) throw new Error(`show-demo: no workspace ${outputs.workspaceName}`);
  say(`Feature flags (workspace ${ws.name})`);
  for (const name of outputs.flags) {
    const flag = await admin.flags.get(ws.id, name);
    const tags = (flag.tags ?? []).map((t) => t.name).join(", ");
    say(
      `  ${flag.name}: ${flag.description}  [rollout status ${flag.rolloutStatus.name}; tags ${tags || "none"}]`,
    );
    for (const env of outputs.environments) {
      say(`    ${env}`);
      const def = await admin.definitions.get(ws.id, flag.name, env);
      for (const line of describeDefinition(def)) say(`      ${line}`);
    }
  }

  say();
  say("Team");
  const group = await admin.groups.getByName(outputs.group);
  const members: string[] = [];
  for await (const u of admin.users.list({ groupId: group?.id ?? "" }))
    members.push(`${u.email} (${u.status})`);
  say(`  group ${outputs.group}: ${group?.description ?? ""}`);
  say(`    members: ${members.join(", ") || "none"}`);

  say();
  say("Delivery");
  const project = (await platform.projects.get(outputs.projectIdentifier)).project;
  say(
    `  project ${project.identifier} "${project.name}" ${project.color ?? ""}: ${project.description ?? ""}`,
  );
  const connector = (
    await platform.connectors.get(outputs.connector.identifier, {
      org: "default",
      project: outputs.connector.project,
    })
  ).connector;
  say(
    `  connector ${connector.identifier} "${connector.name}" (${connector.type}) ${JSON.stringify(connector.spec)}`,
  );
  const pipeline = await platform.pipelines.get(outputs.pipelineIdentifier, {
    org: "default",
    project: project.identifier,
  });
  say(`  pipeline ${outputs.pipelineIdentifier} (YAML rendered from the typed model, as stored):`);
  for (const line of pipelineSummary(pipeline.yamlPipeline)) say(`    ${line}`);

  say();
  say("Treatments from the real feature-flag SDK (@splitsoftware/splitio, streaming off)");
  const width = Math.max(...SAMPLE_KEYS.map((k) => `${k.key} ${JSON.stringify(k.attributes)}`.length));
  for (const env of outputs.environments) {
    const key = sdkKeys[env];
    if (!key) continue;
    say(`  ${env}`);
    const rows = await treatments(url, key, outputs.flags);
    const columns = outputs.flags.map((flag, i) =>
      Math.max(flag.length, ...[...rows.values()].map((cells) => (cells[i] ?? "").length)),
    );
    const row = (first: string, cells: string[]) =>
      `    ${first.padEnd(width)}  ${cells.map((c, i) => c.padEnd(columns[i] ?? 0)).join("  ")}`.trimEnd();
    say(row("key (attributes)", outputs.flags));
    for (const { key: k, attributes } of SAMPLE_KEYS)
      say(row(`${k} ${JSON.stringify(attributes)}`, rows.get(k) ?? []));
  }
  console.log(out.join("\n"));
  await closeSharedPools();
}

main().catch((e) => {
  console.error(e instanceof Error ? e.message : e);
  process.exit(1);
});
