/**
 * Policies on connectors: no anonymous registry access from production projects.
 * @module
 */
import { z } from "zod";
import { eachOf, readAll, stackPolicy } from "./common";
import { type ConnectorView, type ProjectView, readConnector, readProject, TYPES } from "./resources";

export const ConnectorConfig = z.object({
  productionProjects: z
    .array(z.string().min(1))
    .default([])
    .describe(
      'Production projects by identifier ("payments") or organization and identifier ("default/payments").',
    ),
  productionProjectTags: z
    .record(z.string(), z.string())
    .default({ env: "production" })
    .describe(
      "A Project resource of the stack carrying all these tags (values compared without regard to case) is production.",
    ),
});
export type ConnectorConfig = z.output<typeof ConnectorConfig>;

/**
 * Why a connector's project is production, or undefined when it is not (or has no project).
 * Exported for the tests and for users composing their own policies.
 */
export function productionReason(
  connector: ConnectorView,
  projects: readonly ProjectView[],
  config: ConnectorConfig,
): string | undefined {
  // A project-level connector names its organization (the provider's check requires it), and a
  // project's organization is its checked input (the platform's default when not given).
  const { org, project: identifier } = connector;
  if (identifier === undefined) return undefined;
  const names = org === undefined ? [identifier] : [identifier, `${org}/${identifier}`];
  if (config.productionProjects.some((p) => names.includes(p))) {
    return "listed in productionProjects";
  }
  const wanted = Object.entries(config.productionProjectTags);
  if (wanted.length === 0) return undefined;
  const project = projects.find((p) => p.identifier === identifier && p.org === org);
  if (!project) return undefined;
  const tagged = wanted.every(([k, v]) => project.tags?.[k]?.toLowerCase() === v.toLowerCase());
  return tagged ? `tagged ${wanted.map(([k, v]) => `${k}: ${v}`).join(", ")}` : undefined;
}

/**
 * connector-no-anonymous-production: a connector scoped to a production project (listed in the
 * config, or a Project resource of the stack with the configured tags) does not use anonymous
 * registry auth.
 */
export const connectorNoAnonymousProduction = stackPolicy(
  {
    name: "connector-no-anonymous-production",
    description:
      "Connectors in production projects (listed in the config, or tagged env: production) do not use anonymous registry auth.",
    enforcementLevel: "mandatory",
    severity: "high",
    config: ConnectorConfig,
  },
  async (resources, config, report) => {
    const projects = await readAll(resources, TYPES.project, readProject);
    for await (const { address, view: connector } of eachOf(resources, TYPES.connector, readConnector)) {
      if (connector.authType?.toLowerCase() !== "anonymous") continue;
      const reason = productionReason(connector, projects, config);
      if (!reason) continue;
      report(
        `connector "${connector.identifier ?? "?"}" in project "${connector.project}" uses anonymous registry auth, and the project is production (${reason}): use UsernamePassword auth with a passwordRef`,
        address,
      );
    }
  },
);
