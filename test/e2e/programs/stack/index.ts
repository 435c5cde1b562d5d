/**
 * The end-to-end tests' program. `spec.json` beside it lists the resources by logical name with
 * their arguments exactly as a program would pass them; references between resources are by
 * logical name:
 * - a definition names its flag by the flag's logical name and takes the `Flag` itself, so it
 *   depends on the flag (and follows a rename) and is deleted with it (one DELETE for both);
 * - a user invite names its groups by logical name and takes their `name` outputs;
 * - a connector or pipeline names its project by logical name and takes its `identifier` output.
 * Secrets and environments take their arguments as they are.
 * Stack outputs: every resource's id by logical name, under `ids`.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type * as pulumi from "@pulumi/pulumi";
import {
  Connector,
  type ConnectorArgs,
  Environment,
  type EnvironmentArgs,
  Flag,
  type FlagArgs,
  FlagDefinition,
  type FlagDefinitionArgs,
  Group,
  type GroupArgs,
  Pipeline,
  type PipelineArgs,
  Project,
  type ProjectArgs,
  Secret,
  type SecretArgs,
  UserInvite,
  type UserInviteArgs,
} from "flagstack/provider";

interface Spec {
  flags?: Record<string, FlagArgs>;
  /** Keyed by logical name; `flag` is the logical name of a flag in `flags`. */
  definitions?: Record<string, Omit<FlagDefinitionArgs, "flag"> & { flag: string }>;
  groups?: Record<string, GroupArgs>;
  users?: Record<string, Omit<UserInviteArgs, "groups"> & { groups?: string[] }>;
  projects?: Record<string, ProjectArgs>;
  connectors?: Record<string, Omit<ConnectorArgs, "project"> & { project?: string }>;
  pipelines?: Record<string, Omit<PipelineArgs, "project"> & { project: string }>;
  secrets?: Record<string, SecretArgs>;
  environments?: Record<string, EnvironmentArgs>;
}

// The spec is a file beside the program (written by the harness): a spec of hundreds of
// resources is too large for a `pulumi config set` argument.
const spec = JSON.parse(readFileSync(join(__dirname, "spec.json"), "utf8")) as Spec;
const ids: Record<string, pulumi.Output<string>> = {};

const flags: Record<string, Flag> = {};
for (const [key, args] of Object.entries(spec.flags ?? {})) {
  flags[key] = new Flag(key, args);
  ids[key] = flags[key].id;
}
for (const [key, { flag, ...args }] of Object.entries(spec.definitions ?? {})) {
  const parent = flags[flag];
  if (!parent) throw new Error(`definition ${key}: no flag ${flag} in the spec`);
  ids[key] = new FlagDefinition(key, { ...args, flag: parent }).id;
}
const groups: Record<string, Group> = {};
for (const [key, args] of Object.entries(spec.groups ?? {})) {
  groups[key] = new Group(key, args);
  ids[key] = groups[key].id;
}
for (const [key, { groups: names, ...args }] of Object.entries(spec.users ?? {})) {
  const members = (names ?? []).map((g) => {
    const group = groups[g];
    if (!group) throw new Error(`user ${key}: no group ${g} in the spec`);
    return group.name;
  });
  ids[key] = new UserInvite(key, { ...args, groups: members }).id;
}
const projects: Record<string, Project> = {};
for (const [key, args] of Object.entries(spec.projects ?? {})) {
  projects[key] = new Project(key, args);
  ids[key] = projects[key].id;
}
const projectRef = (owner: string, key: string): pulumi.Output<string> => {
  const project = projects[key];
  if (!project) throw new Error(`${owner}: no project ${key} in the spec`);
  return project.identifier;
};
for (const [key, { project, ...args }] of Object.entries(spec.connectors ?? {})) {
  ids[key] = new Connector(key, {
    ...args,
    ...(project ? { project: projectRef(`connector ${key}`, project) } : {}),
  }).id;
}
for (const [key, { project, ...args }] of Object.entries(spec.pipelines ?? {})) {
  ids[key] = new Pipeline(key, { ...args, project: projectRef(`pipeline ${key}`, project) }).id;
}
for (const [key, args] of Object.entries(spec.secrets ?? {})) ids[key] = new Secret(key, args).id;
for (const [key, args] of Object.entries(spec.environments ?? {})) ids[key] = new Environment(key, args).id;

export const resourceIds = ids;
