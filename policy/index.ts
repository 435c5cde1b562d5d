/**
 * The flagstack rollout-safety policy pack: `pulumi preview --policy-pack policy/`.
 * @module
 */
import { PolicyPack } from "@pulumi/policy";
import { POLICY_PACK_NAME, policies } from "./policies";

new PolicyPack(POLICY_PACK_NAME, {
  description:
    "Rollout safety for flagstack stacks: well-formed flag definitions, guarded production ramps, documented kill switches, flag naming and tags, safe pipelines and connectors, and targeting assertions checked with the real feature-flag SDK.",
  policies,
});
