// A flag, its Production targeting and a group through the native flagstack provider, with the
// TypeScript SDK generated from its schema (`pulumi package gen-sdk ../../provider-plugin
// --language nodejs --out sdk`): resources of type flagstack:index:<Type>, served by the plugin.
import * as flagstack from "./sdk/nodejs";

const checkout = new flagstack.Flag("checkout", {
  workspace: "Default",
  name: "ts-checkout",
  description: "The one-page checkout, through the generated SDK",
  tags: ["payments"],
});

const production = flagstack.getEnvironmentOutput({ workspace: "Default", name: "Production" });

const definition = new flagstack.FlagDefinition("checkoutProduction", {
  workspace: "Default",
  flag: checkout.name,
  environment: production.name,
  treatments: [{ name: "on", keys: ["qa-bot", "alice@example.com"] }, { name: "off" }],
  defaultTreatment: "off",
  rules: [
    {
      condition: {
        matchers: [
          {
            type: flagstack.FlagDefinitionRuleConditionMatcherType.InListString,
            attribute: "plan",
            strings: ["enterprise"],
          },
        ],
      },
      buckets: [{ treatment: "on", size: 100 }],
    },
  ],
  defaultRule: [
    { treatment: "on", size: 10 },
    { treatment: "off", size: 90 },
  ],
});

const reviewers = new flagstack.Group("reviewers", {
  name: "ts-reviewers",
  description: "Reviews flag changes",
});

export const flagId = checkout.flagId;
export const environmentId = definition.environmentId;
export const productionIsProduction = production.production;
export const groupId = reviewers.groupId;
