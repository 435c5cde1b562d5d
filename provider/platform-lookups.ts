/**
 * Lookups of existing platform objects by identifier, for use in a Pulumi program: an
 * organization, a project, a connector, a pipeline. Each comes as a promise (`getProject`) and as an output taking
 * `pulumi.Input` arguments (`getProjectOutput`), the usual Pulumi pair.
 *
 * Lookups run in the program's process, where the dynamic provider's `configure` never runs, so
 * credentials are read from the stack config directly (`flagstack:platformApiUrl`,
 * `flagstack:platformApiKey`, `flagstack:accountId`, with `new pulumi.Config("flagstack")`), else
 * from `FLAGSTACK_PLATFORM_API_URL`, `FLAGSTACK_PLATFORM_API_KEY`, `FLAGSTACK_ACCOUNT_ID`;
 * `options` overrides both. Nothing of them is serialized.
 * @module
 */
import type * as pulumi from "@pulumi/pulumi";
import { z } from "zod";
import type { PlatformClient } from "../sdk/platform/client";
import { DEFAULT_ORG, Identifier } from "../sdk/platform/schemas";
import { lookupArgs, lookupSettings } from "./core/lookup";
import { platformApi } from "./core/platform-common";
import { workspaceOf } from "./core/project-workspace";
import { pulumiOutput } from "./core/pulumi-runtime";
import { type PipelineModel, parsePipelineYaml, readYaml } from "./pipeline-model";
import { ConnectorOutputs, typedFromWire } from "./platform/connector";
import { OrganizationOutputs } from "./platform/organization";
import { type PipelineOutputs, pipelineId } from "./platform/pipeline";
import { ProjectOutputs } from "./platform/project";

/** Where a platform lookup reads from; every member is optional (see the module notes for the defaults). */
export interface PlatformLookupOptions {
  /** Base URL of the platform API. */
  platformApiUrl?: string;
  /** Platform API key. */
  platformApiKey?: string;
  /** Platform account identifier. */
  accountId?: string;
  /** A client to use instead (tests, or a program that already has one). */
  client?: PlatformClient;
}

function api(options: PlatformLookupOptions = {}): PlatformClient {
  return (
    options.client ?? platformApi(lookupSettings(options, ["platformApiUrl", "platformApiKey", "accountId"]))
  );
}

// ---------------------------------------------------------------------------------------------
// Organizations

/** Arguments of {@link getOrganization}. */
export const GetOrganizationArgs = z.strictObject({
  /** The organization's identifier. */
  identifier: Identifier,
});
/** An organization found by {@link getOrganization}: the outputs an `Organization` would have, minus `adopt`. */
export type OrganizationInfo = Omit<OrganizationOutputs, "adopt">;

/** Finds an organization by identifier; fails when there is none. */
export async function getOrganization(
  args: z.input<typeof GetOrganizationArgs>,
  options?: PlatformLookupOptions,
): Promise<OrganizationInfo> {
  const { identifier } = lookupArgs(GetOrganizationArgs, args, "getOrganization");
  const data = await api(options).organizations.get(identifier, {});
  const o = data.organization;
  return OrganizationOutputs.omit({ adopt: true }).parse({
    identifier: o.identifier,
    name: o.name,
    description: o.description,
    tags: o.tags,
    createdAt: data.createdAt,
    lastModifiedAt: data.lastModifiedAt,
    version: data.version,
  });
}

/** {@link getOrganization} taking `pulumi.Input`s and giving an `Output`. */
export function getOrganizationOutput(
  args: { identifier: pulumi.Input<string> },
  options?: PlatformLookupOptions,
): pulumi.Output<OrganizationInfo> {
  return pulumiOutput()
    .output(args)
    .apply((a) => getOrganization(a, options));
}

// ---------------------------------------------------------------------------------------------
// Projects

/** Arguments of {@link getProject}. */
export const GetProjectArgs = z.strictObject({
  /** The project's identifier. */
  identifier: Identifier,
  /** Organization; `default` when absent. */
  org: Identifier.default(DEFAULT_ORG),
});
/** A project found by {@link getProject}: the outputs a `Project` would have, minus `adopt`. */
export type ProjectInfo = Omit<ProjectOutputs, "adopt">;

/** Finds a project by identifier; fails when there is none. */
export async function getProject(
  args: z.input<typeof GetProjectArgs>,
  options?: PlatformLookupOptions,
): Promise<ProjectInfo> {
  const { identifier, org } = lookupArgs(GetProjectArgs, args, "getProject");
  const data = await api(options).projects.get(identifier, { org });
  const p = data.project;
  // The project's FME workspace, as a Project's outputs have it (best-effort: see `workspaceOf`).
  const workspaceId = await workspaceOf(p.orgIdentifier || org, p.identifier);
  return ProjectOutputs.omit({ adopt: true }).parse({
    org: p.orgIdentifier || org,
    identifier: p.identifier,
    name: p.name,
    color: p.color,
    modules: p.modules,
    description: p.description,
    tags: p.tags,
    createdAt: data.createdAt,
    lastModifiedAt: data.lastModifiedAt,
    ...(workspaceId !== undefined ? { workspaceId } : {}),
  });
}

/** {@link getProject} taking `pulumi.Input`s and giving an `Output`. */
export function getProjectOutput(
  args: { identifier: pulumi.Input<string>; org?: pulumi.Input<string> },
  options?: PlatformLookupOptions,
): pulumi.Output<ProjectInfo> {
  return pulumiOutput()
    .output(args)
    .apply((a) => getProject(a, options));
}

// ---------------------------------------------------------------------------------------------
// Connectors

/** Arguments of {@link getConnector}: account scope without `org`, organization scope with it, project scope with both. */
export const GetConnectorArgs = z
  .strictObject({
    /** The connector's identifier. */
    identifier: Identifier,
    /** Organization; absent for an account-level connector. */
    org: Identifier.optional(),
    /** Project (needs `org`); absent for an account- or organization-level connector. */
    project: Identifier.optional(),
  })
  .refine((a) => a.project === undefined || a.org !== undefined, {
    error: "a project-level connector needs org as well as project",
    path: ["org"],
  });
/** A connector found by {@link getConnector}. */
export type ConnectorInfo = Omit<ConnectorOutputs, "adopt">;

/** Finds a connector by identifier in its scope; fails when there is none. */
export async function getConnector(
  args: z.input<typeof GetConnectorArgs>,
  options?: PlatformLookupOptions,
): Promise<ConnectorInfo> {
  const { identifier, org, project } = lookupArgs(GetConnectorArgs, args, "getConnector");
  const data = await api(options).connectors.get(identifier, {
    ...(org ? { org } : {}),
    ...(project ? { project } : {}),
  });
  const c = data.connector;
  const { connectorType: _t, ...spec } = c.spec as Record<string, unknown>;
  const typed = typedFromWire(c.type, spec);
  return ConnectorOutputs.omit({ adopt: true }).parse({
    ...(c.orgIdentifier ? { org: c.orgIdentifier } : {}),
    ...(c.projectIdentifier ? { project: c.projectIdentifier } : {}),
    identifier: c.identifier,
    name: c.name,
    description: c.description,
    tags: c.tags,
    ...(typed !== undefined ? { [typed.field]: typed.value } : { generic: { type: c.type, spec } }),
    type: c.type,
    spec,
    createdAt: data.createdAt,
    lastModifiedAt: data.lastModifiedAt,
  });
}

/** {@link getConnector} taking `pulumi.Input`s and giving an `Output`. */
export function getConnectorOutput(
  args: { identifier: pulumi.Input<string>; org?: pulumi.Input<string>; project?: pulumi.Input<string> },
  options?: PlatformLookupOptions,
): pulumi.Output<ConnectorInfo> {
  return pulumiOutput()
    .output(args)
    .apply((a) => getConnector(a, options));
}

// ---------------------------------------------------------------------------------------------
// Pipelines

/** Arguments of {@link getPipeline}. */
export const GetPipelineArgs = z.strictObject({
  /** The pipeline's identifier. */
  identifier: Identifier,
  /** Organization; `default` when absent. */
  org: Identifier.default(DEFAULT_ORG),
  /** Project. */
  project: Identifier,
});
/** A pipeline found by {@link getPipeline}. */
export type PipelineInfo = Pick<PipelineOutputs, "org" | "project" | "identifier" | "name" | "yaml"> & {
  /** The resource id a `Pipeline` managing it would have. */
  id: string;
  /** The stored YAML read into the typed model; `undefined` when it uses what the model lacks. */
  model: PipelineModel | undefined;
};

/** Finds a pipeline by identifier; fails when there is none. */
export async function getPipeline(
  args: z.input<typeof GetPipelineArgs>,
  options?: PlatformLookupOptions,
): Promise<PipelineInfo> {
  const { identifier, org, project } = lookupArgs(GetPipelineArgs, args, "getPipeline");
  const data = await api(options).pipelines.get(identifier, { org, project });
  const yaml = data.yamlPipeline;
  const doc = readYaml(yaml) as { pipeline?: { name?: unknown } } | null;
  let model: PipelineModel | undefined;
  try {
    model = parsePipelineYaml(yaml);
  } catch {
    model = undefined;
  }
  return {
    id: pipelineId(org, project, identifier),
    org,
    project,
    identifier,
    name: typeof doc?.pipeline?.name === "string" ? doc.pipeline.name : identifier,
    yaml,
    model,
  };
}

/** {@link getPipeline} taking `pulumi.Input`s and giving an `Output`. */
export function getPipelineOutput(
  args: { identifier: pulumi.Input<string>; org?: pulumi.Input<string>; project: pulumi.Input<string> },
  options?: PlatformLookupOptions,
): pulumi.Output<PipelineInfo> {
  return pulumiOutput()
    .output(args)
    .apply((a) => getPipeline(a, options));
}
