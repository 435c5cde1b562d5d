/**
 * Policies on who can change what in the feature-flag account: production environments need
 * approved change requests, and admin API keys are limited to named environments.
 * @module
 */
import type { ResourceValidationPolicy } from "@pulumi/policy";
import { isType, readEnvironment, TYPES } from "./resources";

/**
 * production-requires-approvals: an Environment with `production: true` declares
 * `changePermissions` with `areApprovalsRequired: true`. Leaving `changePermissions` out leaves
 * the service's permissions unmanaged (the provider neither sets nor compares them), so the
 * program does not say that approvals are required, and that is reported too.
 */
export const productionRequiresApprovals: ResourceValidationPolicy = {
  name: "production-requires-approvals",
  description:
    "A production Environment declares changePermissions with areApprovalsRequired: true, so every change to it goes through an approved change request.",
  enforcementLevel: "mandatory",
  severity: "high",
  validateResource: async (args, report) => {
    if (!isType(args.type, TYPES.environment)) return;
    const env = await readEnvironment(args.props);
    if (env.production !== true || env.changePermissions?.areApprovalsRequired === true) return;
    const why =
      env.changePermissions === undefined
        ? "has no changePermissions (the service's are left as they are, so approvals are not known to be required)"
        : "has changePermissions with areApprovalsRequired false";
    report(
      `production environment "${env.name ?? "?"}" of workspace "${env.workspace ?? "?"}" ${why}: set changePermissions: { areApprovalsRequired: true, approvers: [...] }`,
    );
  },
};
