/**
 * Policies on who can change what in the feature-flag account: production environments need
 * approved change requests, and admin API keys are limited to named environments.
 * @module
 */
import { propsOf, resourcePolicy } from "./common";
import { readApiKey, readEnvironment, TYPES } from "./resources";

/**
 * production-requires-approvals: an Environment with `production: true` declares
 * `changePermissions` with `areApprovalsRequired: true`. Leaving `changePermissions` out leaves
 * the service's permissions unmanaged (the provider neither sets nor compares them), so the
 * program does not say that approvals are required, and that is reported too.
 */
export const productionRequiresApprovals = resourcePolicy(
  {
    name: "production-requires-approvals",
    description:
      "A production Environment declares changePermissions with areApprovalsRequired: true, so every change to it goes through an approved change request.",
    enforcementLevel: "mandatory",
    severity: "high",
    select: propsOf(TYPES.environment),
  },
  async (props, _config, report) => {
    const env = await readEnvironment(props);
    if (env.production !== true || env.changePermissions?.areApprovalsRequired === true) return;
    const why =
      env.changePermissions === undefined
        ? "has no changePermissions (the service's are left as they are, so approvals are not known to be required)"
        : "has changePermissions with areApprovalsRequired false";
    report(
      `production environment "${env.name ?? "?"}" of workspace "${env.workspace ?? "?"}" ${why}: set changePermissions: { areApprovalsRequired: true, approvers: [...] }`,
    );
  },
);
/**
 * api-keys-scoped: an admin ApiKey names the environments it may act in. Every key is scoped to
 * a workspace (the provider requires `workspace`), and an SDK key (server_side, client_side) to
 * exactly one environment (the provider's check refuses any other number); an admin key with no
 * `environments` acts on every environment of its workspace, production included, present and
 * future. So the scope a program can still narrow, and this policy requires, is an admin key's
 * environments.
 */
export const apiKeysScoped = resourcePolicy(
  {
    name: "api-keys-scoped",
    description:
      "An admin API key lists the environments it may act in: without environments it reaches every environment of its workspace (SDK keys already belong to exactly one environment, and every key to one workspace).",
    enforcementLevel: "mandatory",
    severity: "high",
    select: propsOf(TYPES.apiKey),
  },
  async (props, _config, report) => {
    const key = await readApiKey(props);
    if (key.apiKeyType !== "admin" || key.environments === undefined || key.environments.length > 0) return;
    report(
      `admin API key "${key.name ?? "?"}" names no environments, so it reaches every environment of workspace "${key.workspace ?? "?"}": list the environments it needs in environments`,
    );
  },
);
