/**
 * Everything the emulator holds, as one normalised snapshot, and the snapshot a {@link ProgramSpec}
 * must produce: comparing the two with `toEqual` shows any missing object, any duplicate, any
 * orphan (an object nobody declares) and any field that did not converge.
 *
 * Feature-flag objects are listed through the admin API (every page); platform objects come from
 * the emulator's state file, since the platform API has no pipeline list: a state file holds every
 * stored object, whatever its scope.
 */
import { readFileSync } from "node:fs";
import YAML from "yaml";
import type { Emulator } from "../../emulator";
import { AdminClient } from "../../sdk";
import type { ProgramSpec } from "./program";

/** The normalised content of the emulator (or of a program). */
export interface Snapshot {
  groups: { name: string; description: string }[];
  users: { email: string; status: string; groups: string[] }[];
  flags: { name: string; description: string; tags: string[]; rolloutStatus: string }[];
  definitions: {
    flag: string;
    environment: string;
    treatments: { name: string; keys: string[] }[];
    defaultTreatment: string;
    trafficAllocation: number;
    rules: { matchers: { type: string; attribute?: string; strings?: string[] }[]; buckets: unknown[] }[];
    defaultRule: { treatment: string; size: number }[];
    killed: boolean;
  }[];
  projects: {
    org: string;
    identifier: string;
    name: string;
    color: string;
    description: string;
    tags: Record<string, string>;
  }[];
  connectors: {
    scope: string;
    identifier: string;
    name: string;
    description: string;
    url: unknown;
    providerType: unknown;
  }[];
  pipelines: { scope: string; identifier: string; name: string; script: unknown }[];
}

const by =
  <T>(key: (t: T) => string) =>
  (a: T, b: T) =>
    key(a).localeCompare(key(b));

/** The snapshot a program must leave behind. */
export function expectedSnapshot(spec: ProgramSpec): Snapshot {
  return {
    groups: spec.groups.map((g) => ({ name: g.name, description: g.description })).sort(by((g) => g.name)),
    users: spec.users
      .map((u) => ({ email: u.email, status: "PENDING", groups: [...u.groups].sort() }))
      .sort(by((u) => u.email)),
    flags: spec.flags
      .map((f) => ({
        name: f.name,
        description: f.description,
        tags: [...f.tags].sort(),
        rolloutStatus: f.rolloutStatus ?? "Pre-Production",
      }))
      .sort(by((f) => f.name)),
    definitions: spec.definitions
      .map((d) => ({
        flag: d.flag,
        environment: d.environment,
        treatments: [
          { name: "on", keys: d.keys },
          { name: "off", keys: [] },
        ],
        defaultTreatment: "off",
        trafficAllocation: d.trafficAllocation,
        rules: d.rules.map((r) => ({
          matchers: [{ type: "IN_LIST_STRING", attribute: r.attribute, strings: r.strings }],
          buckets: [{ treatment: "on", size: 100 }],
        })),
        defaultRule: [
          { treatment: "on", size: d.onSize },
          { treatment: "off", size: 100 - d.onSize },
        ],
        killed: d.killed,
      }))
      .sort(by((d) => `${d.flag}/${d.environment}`)),
    projects: spec.projects
      .map((p) => ({
        org: "default",
        identifier: p.identifier,
        name: p.name,
        color: p.color.toLowerCase(),
        description: p.description,
        tags: p.tags,
      }))
      .sort(by((p) => p.identifier)),
    connectors: spec.connectors
      .map((c) => ({
        scope: [c.org ?? "", c.project ?? ""].join("/"),
        identifier: c.identifier,
        name: c.name,
        description: c.description,
        url: c.url,
        providerType: c.providerType,
      }))
      .sort(by((c) => `${c.scope}/${c.identifier}`)),
    pipelines: spec.pipelines
      .map((p) => ({
        scope: `default/${p.project}`,
        identifier: p.identifier,
        name: `Pipeline ${p.identifier}`,
        script: p.script,
      }))
      .sort(by((p) => `${p.scope}/${p.identifier}`)),
  };
}

async function all<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const i of items) out.push(i);
  return out;
}

interface StoredPlatform {
  projects: Record<
    string,
    {
      project: {
        orgIdentifier: string;
        identifier: string;
        name: string;
        color: string;
        description: string;
        tags: Record<string, string>;
      };
    }
  >;
  connectors: Record<
    string,
    {
      deleted: boolean;
      connector: {
        orgIdentifier: string | null;
        projectIdentifier: string | null;
        identifier: string;
        name: string;
        description: string;
        spec: Record<string, unknown>;
      };
    }
  >;
  pipelines: Record<
    string,
    { orgIdentifier: string; projectIdentifier: string; identifier: string; name: string; yaml: string }
  >;
}

/** The first step's script of a one-stage, one-step Custom pipeline. */
function scriptOf(yaml: string): unknown {
  const doc = YAML.parse(yaml) as {
    pipeline: {
      stages: {
        stage: {
          spec: { execution: { steps: { step: { spec: { source: { spec: { script: unknown } } } } }[] } };
        };
      }[];
    };
  };
  return doc.pipeline.stages[0]?.stage.spec.execution.steps[0]?.step.spec.source.spec.script;
}

/**
 * What the emulator holds now. Faults must be off: the reads go straight to it.
 * @param statePath The emulator's state file (it must have been started with one).
 */
export async function liveSnapshot(emu: Emulator, statePath: string): Promise<Snapshot> {
  const admin = new AdminClient({
    baseUrl: emu.url,
    apiKey: emu.adminKey,
    requestsPerSecond: Number.POSITIVE_INFINITY,
  });
  const ws = await admin.workspaces.getByName("Default");
  if (!ws) throw new Error("no Default workspace");
  const groups = await all(admin.groups.list());
  const groupName = new Map(groups.map((g) => [g.id, g.name]));
  const users = await all(admin.users.list());
  const flags = await all(admin.flags.list(ws.id));
  const definitions: Snapshot["definitions"] = [];
  for (const env of ["Production", "Staging"]) {
    for (const d of await all(admin.definitions.list(ws.id, env))) {
      definitions.push({
        flag: d.name,
        environment: env,
        treatments: d.treatments.map((t) => ({ name: t.name, keys: t.keys ?? [] })),
        defaultTreatment: d.defaultTreatment,
        trafficAllocation: d.trafficAllocation,
        rules: d.rules.map((r) => ({
          matchers: r.condition.matchers.map((m) => ({
            type: m.type,
            attribute: m.attribute,
            strings: m.strings,
          })),
          buckets: r.buckets,
        })),
        defaultRule: d.defaultRule,
        killed: d.killed,
      });
    }
  }
  const platform = (JSON.parse(readFileSync(statePath, "utf8")) as { platform: StoredPlatform }).platform;
  return {
    groups: groups.map((g) => ({ name: g.name, description: g.description ?? "" })).sort(by((g) => g.name)),
    users: users
      .map((u) => ({
        email: u.email,
        status: u.status,
        groups: (u.groups ?? []).map((g) => groupName.get(g.id) ?? `?${g.id}`).sort(),
      }))
      .sort(by((u) => u.email)),
    flags: flags
      .map((f) => ({
        name: f.name,
        description: f.description,
        tags: (f.tags ?? []).map((t) => t.name).sort(),
        rolloutStatus: f.rolloutStatus.name,
      }))
      .sort(by((f) => f.name)),
    definitions: definitions.sort(by((d) => `${d.flag}/${d.environment}`)),
    projects: Object.values(platform.projects)
      .map(({ project: p }) => ({
        org: p.orgIdentifier,
        identifier: p.identifier,
        name: p.name,
        color: p.color.toLowerCase(),
        description: p.description,
        tags: p.tags,
      }))
      .sort(by((p) => p.identifier)),
    connectors: Object.values(platform.connectors)
      .filter((c) => !c.deleted)
      .map(({ connector: c }) => ({
        scope: [c.orgIdentifier ?? "", c.projectIdentifier ?? ""].join("/"),
        identifier: c.identifier,
        name: c.name,
        description: c.description,
        url: c.spec.dockerRegistryUrl,
        providerType: c.spec.providerType,
      }))
      .sort(by((c) => `${c.scope}/${c.identifier}`)),
    pipelines: Object.values(platform.pipelines)
      .map((p) => ({
        scope: `${p.orgIdentifier}/${p.projectIdentifier}`,
        identifier: p.identifier,
        name: p.name,
        script: scriptOf(p.yaml),
      }))
      .sort(by((p) => `${p.scope}/${p.identifier}`)),
  };
}
