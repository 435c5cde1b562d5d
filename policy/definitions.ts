/**
 * Policies on flag definitions: well-formed documents, a ramp guard for production, and
 * documented kill switches.
 * @module
 */
import { z } from "zod";
import { type DefinitionDoc, ROLLOUT_STATUSES } from "../sdk/admin/schemas";
import {
  definitionHolder,
  definitionLabel,
  eachDefinition,
  includesName,
  inEnvironments,
  ProductionEnvironments,
  percent,
  readAll,
  resourcePolicy,
  stackPolicy,
} from "./common";
import { type DefinitionView, type FlagView, readDefinitions, readFlag, TYPES } from "./resources";

/**
 * definition-well-formed: the rules the service enforces, checked before any request: bucket
 * sizes sum to 100 in each rule and in the default rule, every named treatment exists, treatment
 * names are unique and not reserved, at most 20 treatments, traffic allocation 0..100, and every
 * matcher carries the field its type needs. The problems are the provider's `check` failures
 * (`readDefinition`), the rules the emulator enforces too (`validateDefinition` in
 * `sdk/admin/schemas.ts`).
 */
export const definitionWellFormed = resourcePolicy(
  {
    name: "definition-well-formed",
    description:
      "Flag definitions are well formed: bucket sizes sum to 100 in every rule and in the default rule, every treatment referenced exists, treatment names are unique and not reserved, at most 20 treatments, traffic allocation 0..100.",
    enforcementLevel: "mandatory",
    severity: "high",
    select: definitionHolder,
  },
  async (target, _config, report) => {
    for (const view of await readDefinitions(target))
      for (const problem of view.problems) report(`${definitionLabel(view)}: ${problem}`);
  },
);

// ---------------------------------------------------------------------------------------------

export const RampGuardConfig = z.object({
  maxNonBaselinePercent: z
    .number()
    .min(0)
    .max(100)
    .default(50)
    .describe(
      "Largest share (percent) of untargeted traffic a production definition may send to treatments other than the baseline.",
    ),
  allowedRolloutStatuses: z
    .array(z.string().min(1))
    // Every seeded status but Pre-Production and Killed (ROLLOUT_STATUS_NAMES): a flag still in
    // pre-production, or marked killed, has no business sending most production traffic anywhere new.
    .default(["Ramping", "Experimenting", "Ramped", "Ready to Remove", "Removed"])
    .describe(
      "Rollout statuses (names, compared without regard to case) under which a flag may exceed the limit.",
    ),
  productionEnvironments: ProductionEnvironments,
});
export type RampGuardConfig = z.output<typeof RampGuardConfig>;

/**
 * Share (percent, 0..100) of untargeted traffic that a definition sends to treatments other than
 * the baseline (the baseline treatment, else the default treatment):
 *
 *   share = A/100 × Σ(default-rule buckets ≠ baseline) + (100 − A)/100 × (defaultTreatment ≠ baseline ? 100 : 0)
 *
 * where A is the traffic allocation: keys inside the allocation that match no rule get the
 * default rule, keys outside it get the default treatment (ref wire §3). A killed definition
 * serves the default treatment to everyone. Individual targets and targeting rules are left out:
 * they address chosen keys on purpose.
 */
export function nonBaselineShare(def: DefinitionDoc): number {
  const baseline = def.baselineTreatment ?? def.defaultTreatment;
  const outside = def.defaultTreatment === baseline ? 0 : 100;
  if (def.killed) return outside;
  const inside = def.defaultRule.filter((b) => b.treatment !== baseline).reduce((s, b) => s + b.size, 0);
  const a = def.trafficAllocation;
  return (a / 100) * inside + ((100 - a) / 100) * outside;
}

/**
 * The status of a flag whose program leaves it unset: the service's value is kept, and a new flag
 * starts in the first status of the lifecycle (spec §3, `ROLLOUT_STATUSES` in lifecycle order).
 */
const INITIAL_STATUS = ROLLOUT_STATUSES[0].name;

/** The Flag resource a definition belongs to: same flag name and, when both say, same workspace. */
export function flagFor(def: DefinitionView, flags: readonly FlagView[]): FlagView | undefined {
  return flags.find(
    (f) =>
      f.name === def.flagName &&
      (f.workspace === undefined || def.workspace === undefined || f.workspace === def.workspace),
  );
}

/**
 * production-ramp-guard: in a production environment, the share of untargeted traffic sent to
 * treatments other than the baseline ({@link nonBaselineShare}) may not exceed the configured
 * percentage unless the flag's rollout status (from the Flag resource in the stack) is one of the
 * configured statuses.
 */
export const productionRampGuard = stackPolicy(
  {
    name: "production-ramp-guard",
    description:
      "In production, a definition may send more than the configured share of untargeted traffic to treatments other than the baseline only when the flag's rollout status says it is ramping or experimenting.",
    enforcementLevel: "mandatory",
    severity: "high",
    config: RampGuardConfig,
  },
  async (resources, config, report) => {
    const flags = await readAll(resources, TYPES.flag, readFlag);
    for await (const { address, view } of eachDefinition(resources)) {
      if (!inEnvironments(view, config.productionEnvironments)) continue;
      const def = view.document;
      if (!def) continue; // definition-well-formed reports it
      const share = nonBaselineShare(def);
      if (share <= config.maxNonBaselinePercent) continue;
      const flag = flagFor(view, flags);
      if (includesName(config.allowedRolloutStatuses, flag?.rolloutStatus)) continue;
      const baseline = def.baselineTreatment ?? def.defaultTreatment;
      const allowed = config.allowedRolloutStatuses.join(", ");
      const status = !flag
        ? `its rollout status is unknown: no Flag resource named "${view.flagName}" in this stack (allowed: ${allowed})`
        : `its rollout status "${flag.rolloutStatus ?? INITIAL_STATUS}" is not one of: ${allowed}`;
      report(
        `${definitionLabel(view)} sends ${percent(share)} of untargeted traffic to treatments other than the baseline "${baseline}" (limit ${percent(config.maxNonBaselinePercent)}), and ${status}`,
        address,
      );
    }
  },
);

// ---------------------------------------------------------------------------------------------

export const KillSwitchConfig = z.object({ productionEnvironments: ProductionEnvironments });

/** kill-switch-documented: a definition killed in production carries a comment saying why. */
export const killSwitchDocumented = resourcePolicy(
  {
    name: "kill-switch-documented",
    description: "A definition that is killed in a production environment carries a comment explaining why.",
    enforcementLevel: "advisory",
    severity: "medium",
    config: KillSwitchConfig,
    select: definitionHolder,
  },
  async (target, config, report) => {
    for (const view of await readDefinitions(target)) {
      if (!view.killed || !inEnvironments(view, config.productionEnvironments)) continue;
      if ((view.comment ?? "").trim() !== "") continue;
      report(
        `${definitionLabel(view)} is killed without a comment: set comment to say why it was killed and what brings it back`,
      );
    }
  },
);
