/**
 * The 100-resource program of the fault test, in two versions (`v1`: what is created, `v2`: the
 * update), as plain data: from it come both the resources the mini engine applies and the exact
 * state the emulator must end up holding.
 *
 * 8 groups, 10 user invites, 22 flags, 28 flag definitions, 6 projects, 10 connectors, 16
 * pipelines. `v2` changes fields in place on most of them and replaces a few: two flags renamed
 * (delete first), a connector and a pipeline with a new identifier (delete first, create first).
 */
import type { Declared } from "./engine";

/** Which version of the program. */
export type Version = "v1" | "v2";

/** One flag definition as declared. */
export interface DefinitionSpec {
  flag: string;
  environment: "Production" | "Staging";
  keys: string[];
  trafficAllocation: number;
  rules: { attribute: string; strings: string[] }[];
  onSize: number;
  killed: boolean;
}

/** Everything the program declares, by kind; what the emulator must hold afterwards. */
export interface ProgramSpec {
  groups: { urn: string; name: string; description: string }[];
  users: { urn: string; email: string; groups: string[] }[];
  flags: { urn: string; name: string; description: string; tags: string[]; rolloutStatus?: string }[];
  definitions: (DefinitionSpec & { urn: string })[];
  projects: {
    urn: string;
    identifier: string;
    name: string;
    color: string;
    description: string;
    tags: Record<string, string>;
  }[];
  connectors: {
    urn: string;
    project?: string;
    org?: string;
    identifier: string;
    name: string;
    description: string;
    url: string;
    providerType: "DockerHub" | "Harbor";
  }[];
  pipelines: { urn: string; project: string; identifier: string; script: string; raw: boolean }[];
}

const range = (n: number) => Array.from({ length: n }, (_, i) => i);

/** The program in version `v`. */
export function programSpec(v: Version): ProgramSpec {
  const two = v === "v2";
  const groupName = (i: number) => (two && i === 7 ? "grp-7-renamed" : `grp-${i}`);
  const groups = range(8).map((i) => ({
    urn: `group-${i}`,
    name: groupName(i),
    description: two && i % 2 === 0 ? `group ${i}, second version` : `group ${i}`,
  }));
  const users = range(10).map((i) => {
    const wanted = two && i % 2 === 0 ? [(i + 2) % 8] : i < 5 ? [i % 8, (i + 1) % 8] : [i % 8];
    return { urn: `user-${i}`, email: `user${i}@example.test`, groups: wanted.map(groupName) };
  });
  const flagName = (i: number) => (two && i >= 20 ? `flag-${i}-renamed` : `flag-${i}`);
  const flags = range(22).map((i) => ({
    urn: `flag-${i}`,
    name: flagName(i),
    description: two && i % 2 === 0 ? `flag ${i}, second version` : `flag ${i}`,
    tags: two && i % 3 === 0 ? [`team-${i % 3}`, "v2"] : [`team-${i % 3}`],
    ...(i % 4 === 0 ? { rolloutStatus: two ? "Experimenting" : "Ramping" } : {}),
  }));
  const definitions: ProgramSpec["definitions"] = [];
  for (const i of range(20)) {
    const envs = i < 8 ? (["Production", "Staging"] as const) : (["Production"] as const);
    for (const environment of envs) {
      const prod = environment === "Production";
      const changed = two && prod;
      definitions.push({
        urn: `def-${i}-${environment}`,
        flag: flagName(i),
        environment,
        keys: changed && i % 2 === 0 ? [`key-${i}`, `key-${i}-b`] : [`key-${i}`],
        trafficAllocation: two && !prod && i % 2 === 0 ? 50 : 100,
        rules:
          changed && i % 3 === 0
            ? [{ attribute: "country", strings: ["NL", "BE"] }]
            : i % 4 === 1
              ? [{ attribute: "plan", strings: ["pro"] }]
              : [],
        onSize: changed && i % 2 === 0 ? 20 : 10,
        killed: prod && (two ? i % 5 === 1 : i % 5 === 0),
      });
    }
  }
  const projects = range(6).map((i) => ({
    urn: `project-${i}`,
    identifier: `proj_${i}`,
    name: two && i % 2 === 0 ? `Project ${i} v2` : `Project ${i}`,
    color: two && i % 2 === 1 ? "#aa3300" : "#0063f7",
    description: `project ${i}`,
    tags: (two && i % 3 === 0 ? { team: `t${i}`, tier: "gold" } : { team: `t${i}` }) as Record<
      string,
      string
    >,
  }));
  const connectors = range(10).map((i) => ({
    urn: `connector-${i}`,
    ...(i < 6 ? { org: "default", project: `proj_${i}` } : i < 8 ? { org: "default" } : {}),
    identifier: two && i === 5 ? "registry_5_b" : `registry_${i}`,
    name: two && i % 2 === 0 ? `Registry ${i} v2` : `Registry ${i}`,
    description: `registry ${i}`,
    url: two && i % 2 === 1 ? `https://mirror-${i}.example.test/v2` : `https://registry-${i}.example.test/v2`,
    providerType: i % 3 === 0 ? ("Harbor" as const) : ("DockerHub" as const),
  }));
  const pipelines = range(16).map((i) => ({
    urn: `pipeline-${i}`,
    project: `proj_${i % 6}`,
    identifier: two && i === 15 ? "pipe_15_b" : `pipe_${i}`,
    script: two && i % 2 === 0 ? `echo second ${i}` : `echo first ${i}`,
    raw: i % 4 === 3,
  }));
  return { groups, users, flags, definitions, projects, connectors, pipelines };
}

/** The pipeline's YAML as the program gives it in raw form (no scope: the resource fills it in). */
export function rawPipelineYaml(identifier: string, script: string): string {
  return [
    "pipeline:",
    `  name: Pipeline ${identifier}`,
    `  identifier: ${identifier}`,
    "  stages:",
    "    - stage:",
    "        name: Run",
    "        identifier: run",
    "        type: Custom",
    "        spec:",
    "          execution:",
    "            steps:",
    "              - step:",
    "                  type: ShellScript",
    "                  name: Script",
    "                  identifier: script",
    "                  spec:",
    "                    shell: Bash",
    "                    source:",
    "                      type: Inline",
    "                      spec:",
    `                        script: ${JSON.stringify(script)}`,
    "                    onDelegate: true",
    "                  timeout: 5m",
    "",
  ].join("\n");
}

/** The same pipeline as a typed model. */
export function pipelineModel(identifier: string, script: string): Record<string, unknown> {
  return {
    name: `Pipeline ${identifier}`,
    identifier,
    stages: [
      {
        type: "Custom",
        name: "Run",
        identifier: "run",
        execution: {
          steps: [{ type: "ShellScript", name: "Script", identifier: "script", script, timeout: "5m" }],
        },
      },
    ],
  };
}

/** The resources the engine applies for a {@link ProgramSpec}. */
export function declare(spec: ProgramSpec): Declared[] {
  const groupUrn = new Map(spec.groups.map((g) => [g.name, g.urn]));
  const flagUrn = new Map(spec.flags.map((f) => [f.name, f.urn]));
  const projectUrn = new Map(spec.projects.map((p) => [p.identifier, p.urn]));
  const out: Declared[] = [];
  for (const g of spec.groups)
    out.push({ urn: g.urn, kind: "Group", inputs: { name: g.name, description: g.description }, deps: [] });
  for (const u of spec.users)
    out.push({
      urn: u.urn,
      kind: "UserInvite",
      inputs: { email: u.email, groups: u.groups },
      deps: u.groups.map((g) => groupUrn.get(g) as string),
    });
  for (const f of spec.flags)
    out.push({
      urn: f.urn,
      kind: "Flag",
      inputs: {
        workspace: "Default",
        name: f.name,
        description: f.description,
        tags: f.tags,
        ...(f.rolloutStatus ? { rolloutStatus: f.rolloutStatus } : {}),
      },
      deps: [],
    });
  for (const d of spec.definitions)
    out.push({
      urn: d.urn,
      kind: "FlagDefinition",
      inputs: {
        workspace: "Default",
        flag: d.flag,
        environment: d.environment,
        treatments: [{ name: "on", keys: d.keys }, { name: "off" }],
        defaultTreatment: "off",
        trafficAllocation: d.trafficAllocation,
        rules: d.rules.map((r) => ({
          condition: { matchers: [{ type: "IN_LIST_STRING", attribute: r.attribute, strings: r.strings }] },
          buckets: [{ treatment: "on", size: 100 }],
        })),
        defaultRule: [
          { treatment: "on", size: d.onSize },
          { treatment: "off", size: 100 - d.onSize },
        ],
        killed: d.killed,
      },
      deps: [flagUrn.get(d.flag) as string],
    });
  for (const p of spec.projects)
    out.push({
      urn: p.urn,
      kind: "Project",
      inputs: {
        identifier: p.identifier,
        name: p.name,
        color: p.color,
        description: p.description,
        tags: p.tags,
      },
      deps: [],
    });
  for (const c of spec.connectors)
    out.push({
      urn: c.urn,
      kind: "Connector",
      inputs: {
        ...(c.org ? { org: c.org } : {}),
        ...(c.project ? { project: c.project } : {}),
        identifier: c.identifier,
        name: c.name,
        description: c.description,
        dockerRegistry: { url: c.url, providerType: c.providerType },
      },
      deps: c.project ? [projectUrn.get(c.project) as string] : [],
    });
  for (const p of spec.pipelines)
    out.push({
      urn: p.urn,
      kind: "Pipeline",
      inputs: {
        project: p.project,
        ...(p.raw
          ? { yaml: rawPipelineYaml(p.identifier, p.script) }
          : { pipeline: pipelineModel(p.identifier, p.script) }),
      },
      deps: [projectUrn.get(p.project) as string],
    });
  return out;
}
