/**
 * A feature-flag workspace stood up from nothing: its Staging and Production environments
 * (Production changes need an approved change request), an `account` traffic type with two
 * attributes, a beta segment with its members in both environments, a flag set, a flag whose rules
 * target the segment in each environment, and a server-side SDK key per environment.
 *
 * Production requires approvals, so its definition goes out as a change request: `pulumi up`
 * succeeds and `productionChange` names the pending request until an approver (any admin key but
 * the one that submitted it) approves it. Ramping Production is a config change that goes the same
 * way; with `waitForApprovalSeconds` set, `up` waits for the approval instead:
 *
 *   pulumi config set productionPercent 10 && pulumi up   # one change request, UPDATE
 */
import * as pulumi from "@pulumi/pulumi";
import {
  ApiKey,
  Environment,
  Flag,
  FlagDefinition,
  FlagSet,
  Group,
  Segment,
  SegmentKeys,
  TrafficType,
  TrafficTypeAttribute,
  Workspace,
} from "flagstack/provider";

const config = new pulumi.Config();
const productionPercent = config.getNumber("productionPercent", { min: 0, max: 100 }) ?? 0;
const waitSeconds = config.getNumber("waitForApprovalSeconds", { min: 0 }) ?? 0;

const workspace = new Workspace("storefront", { name: "Storefront", requiresTitleAndComments: true });

// Who approves Production changes.
const approvers = new Group("storefront-approvers", {
  name: "storefront-approvers",
  description: "Approve changes to Storefront's Production",
});

const environments = {
  Staging: new Environment("storefront-staging", {
    workspace: workspace.name,
    name: "Staging",
    production: false,
  }),
  Production: new Environment("storefront-production", {
    workspace: workspace.name,
    name: "Production",
    production: true,
    changePermissions: { areApprovalsRequired: true, approvers: [{ type: "group", id: approvers.groupId }] },
  }),
};

const account = new TrafficType("storefront-account", { workspace: workspace.name, name: "account" });
new TrafficTypeAttribute("account-plan", {
  workspace: workspace.name,
  trafficType: account.name,
  attributeId: "plan",
  displayName: "Plan",
  description: "The account's billing plan",
  dataType: "STRING",
  suggestedValues: ["free", "pro", "enterprise"],
  isSearchable: true,
});
new TrafficTypeAttribute("account-country", {
  workspace: workspace.name,
  trafficType: account.name,
  attributeId: "country",
  displayName: "Country",
  description: "ISO 3166 country code of the account",
  dataType: "STRING",
});

const beta = new Segment("beta-accounts", {
  workspace: workspace.name,
  trafficType: account.name,
  name: "beta_accounts",
  description: "Accounts that try search features first",
  tags: ["owner:storefront"],
});
const betaMembers: Record<keyof typeof environments, string[]> = {
  Staging: ["acct-qa-1", "acct-qa-2", "acct-acme"],
  Production: ["acct-acme", "acct-globex"],
};

const web = new FlagSet("storefront-web", {
  workspace: workspace.name,
  name: "storefront_web",
  description: "Flags the storefront web app downloads",
});

const search = new Flag("new-search", {
  workspace: workspace.name,
  trafficType: account.name,
  name: "new-search",
  description: "The search page on the new index",
  tags: ["owner:storefront", "area:search"],
  owners: [{ type: "group", id: approvers.groupId }],
});

const sdkKeys: Record<string, pulumi.Output<string>> = {};
const definitions: Record<string, FlagDefinition> = {};
for (const [name, environment] of Object.entries(environments) as [
  keyof typeof environments,
  Environment,
][]) {
  const production = name === "Production";
  const members = new SegmentKeys(`beta-accounts-${name.toLowerCase()}`, {
    workspace: workspace.name,
    environment: environment.name,
    segment: beta, // deleted with the segment
    keys: betaMembers[name],
    title: "Beta accounts",
    comment: "Accounts under the beta agreement",
    changeRequest: { approvers: [approvers.name] },
  });
  // Beta accounts always get the new search; the rest by percentage (all of Staging).
  const percent = production ? productionPercent : 100;
  definitions[name] = new FlagDefinition(
    `new-search-${name.toLowerCase()}`,
    {
      workspace: workspace.name,
      flag: search, // deleted with the flag: destroying both is one DELETE
      environment: environment.name,
      treatments: [{ name: "on" }, { name: "off" }],
      defaultTreatment: "off",
      baselineTreatment: "off",
      flagSets: [web.flagSetId],
      rules: [
        {
          condition: { matchers: [{ type: "IN_SEGMENT", string: beta.name }] },
          buckets: [{ treatment: "on", size: 100 }],
        },
      ],
      defaultRule: [
        { treatment: "on", size: percent },
        { treatment: "off", size: 100 - percent },
      ],
      title: `New search at ${percent}% in ${name}`,
      comment: "Search rollout plan, step by step",
      ...(production
        ? {
            changeRequest: { approvers: [approvers.name] },
            ...(waitSeconds > 0 ? { waitForApproval: { timeoutSeconds: waitSeconds, pollSeconds: 1 } } : {}),
          }
        : {}),
    },
    // The rule names the segment, which must be active in the environment first.
    { dependsOn: [members] },
  );
  sdkKeys[name] = new ApiKey(`storefront-${name.toLowerCase()}-server`, {
    name: `storefront-${name.toLowerCase()}-server`,
    apiKeyType: "server_side",
    workspace: workspace.name,
    environments: [environment.name],
  }).key;
}

export const workspaceId = workspace.workspaceId;
export const flagSetId = web.flagSetId;
/** The SDK key of each environment (secrets). */
export const serverSideSdkKeys = pulumi.secret(sdkKeys);
/** The Production change request waiting for approval, if any: `{id, status, reference}`. */
export const productionChange = definitions.Production!.pendingChangeRequest;
