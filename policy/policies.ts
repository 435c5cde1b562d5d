/**
 * The flagstack rollout-safety policies, one typed const each, grouped by area:
 * `definitions.ts`, `flags.ts`, `pipelines.ts`, `connectors.ts`, `targeting.ts`, `segments.ts`, `access.ts`, `secrets.ts`. `index.ts`
 * builds the pack from this list; tests call the validators directly (never through a
 * `PolicyPack`, which starts a gRPC server). Each policy carries its door-independent core
 * (`common.ts`), which the Terraform plan checker runs (`plan-check.ts`): {@link policyCores}.
 * @module
 */
import type { Policies } from "@pulumi/policy";
import { apiKeysScoped, productionRequiresApprovals } from "./access";
import type { FlagstackPolicy, PolicyCore } from "./common";
import { connectorNoAnonymousProduction } from "./connectors";
import { definitionWellFormed, killSwitchDocumented, productionRampGuard } from "./definitions";
import { flagNaming, flagRequiredTags } from "./flags";
import {
  pipelineApprovalBeforeProduction,
  pipelineDeploymentRollback,
  pipelineNoLiteralSecrets,
  pipelineStepTimeouts,
  triggerProductionInputSet,
} from "./pipelines";
import { secretsNotInline } from "./secrets";
import { segmentSizeLimit } from "./segments";
import { targetingAssertions } from "./targeting";
import { maxTrafficShift } from "./traffic";

export { apiKeysScoped, productionRequiresApprovals } from "./access";
export { connectorNoAnonymousProduction } from "./connectors";
export { definitionWellFormed, killSwitchDocumented, productionRampGuard } from "./definitions";
export { flagNaming, flagRequiredTags } from "./flags";
export {
  pipelineApprovalBeforeProduction,
  pipelineDeploymentRollback,
  pipelineNoLiteralSecrets,
  pipelineStepTimeouts,
  triggerProductionInputSet,
} from "./pipelines";
export { secretsNotInline } from "./secrets";
export { segmentSizeLimit } from "./segments";
export { targetingAssertions } from "./targeting";
export { maxTrafficShift } from "./traffic";

/** Name of the pack, as `pulumi preview --policy-pack` prints it. */
export const POLICY_PACK_NAME = "flagstack-rollout-safety";

/** Every policy of the pack, each with its core. */
export const flagstackPolicies: readonly FlagstackPolicy[] = [
  definitionWellFormed,
  productionRampGuard,
  killSwitchDocumented,
  flagNaming,
  flagRequiredTags,
  pipelineDeploymentRollback,
  pipelineNoLiteralSecrets,
  pipelineStepTimeouts,
  connectorNoAnonymousProduction,
  targetingAssertions,
  segmentSizeLimit,
  productionRequiresApprovals,
  apiKeysScoped,
  secretsNotInline,
  pipelineApprovalBeforeProduction,
  triggerProductionInputSet,
  maxTrafficShift,
];

/** Every policy of the pack, as `new PolicyPack(name, { policies })` takes them. */
export const policies: Policies = [...flagstackPolicies];

/** The door-independent core of every policy of the pack, in the pack's order. */
export const policyCores: readonly PolicyCore[] = flagstackPolicies.map((p) => p.core);
