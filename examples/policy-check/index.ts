/**
 * A stack to run the rollout-safety policy pack against (see README.md):
 *
 *   pulumi preview --policy-pack ../../policy --policy-pack-config policy-config.json
 *
 * At the default `rampPercent` (20) every policy passes. Ramp to 80 and the preview is blocked:
 * the flag is still Pre-Production (production-ramp-guard), and the targeting assertion "at most
 * 25% of users get on" fails, evaluated by the real feature-flag SDK.
 */
import * as pulumi from "@pulumi/pulumi";
import { Flag, FlagDefinition } from "flagstack/provider";

const config = new pulumi.Config();
const ramp = config.getNumber("rampPercent", { min: 0, max: 100 }) ?? 20;
const workspace = "Default";

const flag = new Flag("new-onboarding", {
  workspace,
  name: "new-onboarding",
  description: "The shorter sign-up flow",
  tags: ["owner:growth"],
  rolloutStatus: "Pre-Production",
});

new FlagDefinition("staging", {
  workspace,
  flag: flag.name,
  environment: "Staging",
  treatments: [{ name: "on" }, { name: "off" }],
  defaultTreatment: "off",
  defaultRule: [{ treatment: "on", size: 100 }],
});

new FlagDefinition("production", {
  workspace,
  flag: flag.name,
  environment: "Production",
  treatments: [{ name: "on", keys: ["qa-bot"] }, { name: "off" }],
  defaultTreatment: "off",
  baselineTreatment: "off",
  rules: [
    {
      // Not in the EU until the privacy review is done.
      condition: {
        matchers: [{ type: "IN_LIST_STRING", attribute: "country", strings: ["DE", "FR", "NL"] }],
      },
      buckets: [{ treatment: "off", size: 100 }],
    },
  ],
  defaultRule: [
    { treatment: "on", size: ramp },
    { treatment: "off", size: 100 - ramp },
  ],
});

export const flagName = flag.name;
export const productionRamp = ramp;
