/**
 * The flagstack rollout-safety policy pack's entry point. It compiles to `dist/policy/index.js`,
 * which `policy/package.json` names as `main`, so the same directory runs from this repository
 * (`pulumi preview --policy-pack policy/`, after `npm run build`) and from an installed package
 * (`pulumi preview --policy-pack node_modules/flagstack/policy`, with `@pulumi/policy` installed
 * beside flagstack). A team's own pack builds on {@link policies} instead of this file:
 * `flagstack policy init <dir>`.
 * @module
 */
import { PolicyPack } from "@pulumi/policy";
import { POLICY_PACK_NAME, policies } from "./policies";

new PolicyPack(POLICY_PACK_NAME, {
  description:
    "Rollout safety for flagstack stacks: well-formed flag definitions, guarded production ramps, documented kill switches, flag naming and tags, segments within their size, production environments behind approvals, admin API keys scoped to environments, safe pipelines and connectors, no inline secrets in pipelines and services, and targeting assertions checked with the real feature-flag SDK.",
  policies,
});
