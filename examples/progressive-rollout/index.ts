/**
 * A progressive rollout of one feature flag: fully on in Staging, ramped by a percentage in
 * Production, with individual targets (QA and beta customers always get the new flow) and a kill
 * switch. Ramping and killing are config changes:
 *
 *   pulumi config set productionPercent 50 && pulumi up   # one PATCH of the Production definition
 *   pulumi config set killed true && pulumi up            # the kill operation, nothing else
 */
import * as pulumi from "@pulumi/pulumi";
import { Flag, FlagDefinition } from "flagstack/provider";

const config = new pulumi.Config();
const percent = config.getNumber("productionPercent", { min: 0, max: 100 }) ?? 10;
const killed = config.getBoolean("killed") ?? false;
if (!Number.isInteger(percent)) throw new Error(`productionPercent must be a whole number, got ${percent}`);

const workspace = "Default";
const qaKeys = ["qa-bot", "qa-android", "qa-ios"];
const betaCustomers = ["acme-corp", "globex"];

const flag = new Flag("one-click-pay", {
  workspace,
  name: "one-click-pay",
  description: "Pay with one click from the cart",
  tags: ["owner:payments", "area:checkout"],
  // The rollout status follows the ramp, so dashboards (and the policy pack) see where it stands.
  rolloutStatus: percent === 0 ? "Pre-Production" : percent === 100 ? "Ramped" : "Ramping",
});

const treatments = (targets: string[]) => [
  { name: "on", description: "One-click payment", keys: targets },
  { name: "off", description: "The usual checkout" },
];

const staging = new FlagDefinition("staging", {
  workspace,
  flag: flag.name,
  environment: "Staging",
  treatments: treatments(qaKeys),
  defaultTreatment: "off",
  baselineTreatment: "off",
  defaultRule: [{ treatment: "on", size: 100 }],
});

const production = new FlagDefinition("production", {
  workspace,
  flag: flag.name,
  environment: "Production",
  treatments: treatments([...qaKeys, ...betaCustomers]),
  defaultTreatment: "off",
  baselineTreatment: "off",
  defaultRule: [
    { treatment: "on", size: percent },
    { treatment: "off", size: 100 - percent },
  ],
  killed,
  comment: killed ? "Killed from the progressive-rollout stack" : `Ramped to ${percent}%`,
});

export const flagName = flag.name;
export const stagingKilled = staging.killed;
export const productionRollout = pulumi.interpolate`${percent}% on${killed ? " (killed)" : ""}`;
export const productionKilled = production.killed;
