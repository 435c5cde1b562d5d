/**
 * Specs for the e2e program (`test/e2e/programs/stack`) and helpers that read the emulator back
 * through the SDK clients. A spec is plain JSON: the arguments each resource gets, by logical name.
 */

import type { Emulator } from "../../emulator";
import { AdminClient, PlatformClient } from "../../sdk";

/** The shape of the program's spec.json (mirrors test/e2e/programs/stack/index.ts). */
export interface StackSpec {
  flags?: Record<string, Record<string, unknown>>;
  definitions?: Record<string, Record<string, unknown> & { flag: string }>;
  groups?: Record<string, Record<string, unknown>>;
  users?: Record<string, Record<string, unknown> & { groups?: string[] }>;
  projects?: Record<string, Record<string, unknown>>;
  connectors?: Record<string, Record<string, unknown> & { project?: string }>;
  pipelines?: Record<string, Record<string, unknown> & { project: string }>;
  secrets?: Record<string, Record<string, unknown>>;
  environments?: Record<string, Record<string, unknown>>;
}

/** How many resources a spec declares (the stack resource itself not counted). */
export function resourceCount(spec: StackSpec): number {
  return Object.values(spec).reduce((n, group) => n + Object.keys(group ?? {}).length, 0);
}

/** A deep copy, so a scenario can edit a spec without touching the shared one. */
export const clone = <T>(v: T): T => structuredClone(v);

/** A small pipeline built from the typed model: one Custom stage, one script reading a variable. */
export function helloPipeline(
  identifier: string,
  script = "echo hello <+pipeline.name>",
): Record<string, unknown> {
  return {
    name: `Pipeline ${identifier}`,
    identifier,
    stages: [
      {
        type: "Custom",
        name: "Say hello",
        identifier: "say_hello",
        execution: {
          steps: [{ type: "ShellScript", name: "Echo", identifier: "echo", script, timeout: "5m" }],
        },
      },
    ],
  };
}

/**
 * Every resource type of the package, with names prefixed by `prefix` so several stacks can share
 * one emulator: two flags with definitions in Staging and Production (individual targets, a rule,
 * a kill switch), a group with an invited user, and a project with a registry connector and a
 * pipeline.
 */
export function fullSpec(prefix = "e2e"): StackSpec {
  const id = prefix.replace(/-/g, "_");
  return {
    flags: {
      checkout: {
        workspace: "Default",
        name: `${prefix}-checkout`,
        description: "The new checkout flow",
        tags: ["owner:payments"],
        rolloutStatus: "Ramping",
      },
      search: {
        workspace: "Default",
        name: `${prefix}-search`,
        description: "Search v2",
        tags: ["owner:search"],
      },
    },
    definitions: {
      "checkout-staging": {
        workspace: "Default",
        flag: "checkout",
        environment: "Staging",
        treatments: [{ name: "on", keys: ["qa-bot"] }, { name: "off" }],
        defaultTreatment: "off",
        defaultRule: [
          { treatment: "on", size: 50 },
          { treatment: "off", size: 50 },
        ],
      },
      "checkout-production": {
        workspace: "Default",
        flag: "checkout",
        environment: "Production",
        treatments: [{ name: "on", description: "new flow", keys: ["qa-bot", "alice"] }, { name: "off" }],
        defaultTreatment: "off",
        rules: [
          {
            condition: { matchers: [{ type: "IN_LIST_STRING", attribute: "country", strings: ["NL"] }] },
            buckets: [{ treatment: "on", size: 100 }],
          },
        ],
        defaultRule: [{ treatment: "off", size: 100 }],
      },
      "search-production": {
        workspace: "Default",
        flag: "search",
        environment: "Production",
        treatments: [{ name: "v2" }, { name: "v1" }],
        defaultTreatment: "v1",
        defaultRule: [{ treatment: "v1", size: 100 }],
        killed: true,
        comment: "Search v2 is off until the index is rebuilt",
      },
    },
    groups: { team: { name: `${prefix}-payments`, description: "Payments team" } },
    users: { ann: { email: `ann.${prefix}@example.test`, groups: ["team"] } },
    projects: {
      payments: {
        identifier: `${id}_payments`,
        name: `Payments ${prefix}`,
        color: "#00aa55",
        tags: { team: "payments" },
      },
    },
    connectors: {
      registry: {
        org: "default",
        project: "payments",
        identifier: "registry",
        name: "Registry",
        dockerRegistry: { url: "https://registry.example.test/v2", providerType: "DockerHub" },
      },
    },
    pipelines: { deploy: { project: "payments", pipeline: helloPipeline("deploy") } },
  };
}

/** SDK clients on an emulator. */
export function clients(emu: Emulator): { admin: AdminClient; platform: PlatformClient } {
  return {
    admin: new AdminClient({ baseUrl: emu.url, apiKey: emu.adminKey }),
    platform: new PlatformClient({ baseUrl: emu.url, apiKey: emu.platformKey, accountId: emu.accountId }),
  };
}

/** The id of the `Default` workspace. */
export async function defaultWorkspaceId(admin: AdminClient): Promise<string> {
  const ws = await admin.workspaces.getByName("Default");
  if (!ws) throw new Error("no Default workspace");
  return ws.id;
}

/** Every flag name in the Default workspace, sorted (duplicates kept). */
export async function flagNames(admin: AdminClient): Promise<string[]> {
  const ws = await defaultWorkspaceId(admin);
  const names: string[] = [];
  for await (const f of admin.flags.list(ws)) names.push(f.name);
  return names.sort();
}

/** Every group name, sorted (duplicates kept). */
export async function groupNames(admin: AdminClient): Promise<string[]> {
  const names: string[] = [];
  for await (const g of admin.groups.list()) names.push(g.name);
  return names.sort();
}

/** Every user's e-mail and status, sorted by e-mail (duplicates kept). */
export async function users(admin: AdminClient): Promise<{ email: string; status: string }[]> {
  const out: { email: string; status: string }[] = [];
  for await (const u of admin.users.list()) out.push({ email: u.email, status: u.status });
  return out.sort((a, b) => a.email.localeCompare(b.email));
}

/** Every project identifier of the `default` organization, sorted (duplicates kept). */
export async function projectIds(platform: PlatformClient): Promise<string[]> {
  const ids: string[] = [];
  for await (const p of platform.projects.list({ org: "default" })) ids.push(p.project.identifier);
  return ids.sort();
}

/**
 * The targeting the native provider's examples declare (examples/native-yaml, python,
 * native-typescript), as the service returns it: one rule for the enterprise plan, 10% on.
 */
export const NATIVE_EXAMPLE_TARGETING = {
  rules: [
    {
      buckets: [{ treatment: "on", size: 100 }],
      condition: {
        combiner: "AND",
        matchers: [{ type: "IN_LIST_STRING", attribute: "plan", strings: ["enterprise"] }],
      },
    },
  ],
  defaultRule: [
    { treatment: "on", size: 10 },
    { treatment: "off", size: 90 },
  ],
};
