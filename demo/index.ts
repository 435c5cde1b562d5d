/**
 * The demo stack (`npm run demo`, scripts/demo.sh): what a team declares in one Pulumi program.
 *
 * - Two feature flags with a definition in Staging and in Production each: individual targets
 *   (QA keys that always see the new flow), a targeting rule (everyone in the Netherlands), a
 *   percentage rollout, and a kill switch with the reason for it.
 * - The team: a group and an invited user in it.
 * - Delivery: a project, a container registry connector and a deployment pipeline built from the
 *   typed model. Its smoke-test script reads the flag's name from the `Flag` resource's output, so
 *   renaming the flag updates the pipeline in the same `pulumi up`.
 *
 * Credentials come from the stack config (`flagstack:adminApiUrl`, `flagstack:adminApiKey`, ...),
 * which scripts/demo.sh sets for the local emulator.
 */
import * as pulumi from "@pulumi/pulumi";
import { Connector, Flag, FlagDefinition, Group, Pipeline, Project, UserInvite } from "flagstack/provider";

const workspace = "Default";

// --- Feature flags -----------------------------------------------------------------------------

const checkout = new Flag("new-checkout", {
  workspace,
  name: "new-checkout",
  description: "The redesigned checkout flow",
  tags: ["owner:payments", "area:checkout"],
  rolloutStatus: "Ramping",
});

new FlagDefinition("new-checkout-staging", {
  workspace,
  flag: checkout.name,
  environment: "Staging",
  treatments: [
    { name: "on", description: "New checkout", keys: ["qa-bot"] },
    { name: "off", description: "Current checkout" },
  ],
  defaultTreatment: "off",
  baselineTreatment: "off",
  defaultRule: [
    { treatment: "on", size: 50 },
    { treatment: "off", size: 50 },
  ],
});

new FlagDefinition("new-checkout-production", {
  workspace,
  flag: checkout.name,
  environment: "Production",
  treatments: [
    {
      name: "on",
      description: "New checkout",
      keys: ["qa-bot", "alice"],
      configurations: { theme: "light", steps: 2 },
    },
    { name: "off", description: "Current checkout" },
  ],
  defaultTreatment: "off",
  baselineTreatment: "off",
  rules: [
    {
      condition: { matchers: [{ type: "IN_LIST_STRING", attribute: "country", strings: ["NL"] }] },
      buckets: [{ treatment: "on", size: 100 }],
    },
  ],
  defaultRule: [
    { treatment: "on", size: 10 },
    { treatment: "off", size: 90 },
  ],
  comment: "Ramp to 10% after the Dutch pilot",
});

const search = new Flag("search-v2", {
  workspace,
  name: "search-v2",
  description: "Search backed by the new index",
  tags: ["owner:search"],
});

new FlagDefinition("search-v2-staging", {
  workspace,
  flag: search.name,
  environment: "Staging",
  treatments: [{ name: "v2" }, { name: "v1" }],
  defaultTreatment: "v1",
  defaultRule: [{ treatment: "v2", size: 100 }],
});

new FlagDefinition("search-v2-production", {
  workspace,
  flag: search.name,
  environment: "Production",
  treatments: [{ name: "v2", keys: ["search-team"] }, { name: "v1" }],
  defaultTreatment: "v1",
  defaultRule: [{ treatment: "v1", size: 100 }],
  killed: true,
  comment: "Killed: the v2 index is being rebuilt after incident 4711",
});

// --- The team ----------------------------------------------------------------------------------

const team = new Group("payments-team", {
  name: "payments-team",
  description: "Owns checkout and its flags",
});
const ann = new UserInvite("ann", { email: "ann@example.com", groups: [team.name] });

// --- Delivery ----------------------------------------------------------------------------------

const project = new Project("payments", {
  identifier: "payments",
  name: "Payments",
  color: "#0063f7",
  description: "Checkout and payment services",
  tags: { team: "payments" },
});

const registry = new Connector("registry", {
  org: "default",
  project: project.identifier,
  identifier: "docker_hub",
  name: "Docker Hub",
  description: "Images of the payments services",
  dockerRegistry: {
    url: "https://registry.hub.docker.com/v2/",
    providerType: "DockerHub",
    auth: { type: "UsernamePassword", username: "payments-ci", passwordRef: "account.dockerhub_token" },
  },
});

const pipeline = new Pipeline("deploy-checkout", {
  project: project.identifier,
  pipeline: {
    name: "Deploy checkout",
    identifier: "deploy_checkout",
    description: "Rolls out the checkout service behind its feature flag",
    tags: { team: "payments" },
    stages: [
      {
        type: "Deployment",
        name: "Deploy to production",
        identifier: "production",
        service: { serviceRef: "checkout" },
        environment: { environmentRef: "production" },
        infrastructure: {
          type: "KubernetesDirect",
          connectorRef: "account.k8s_production",
          namespace: "payments",
        },
        execution: {
          steps: [
            { type: "K8sRollingDeploy", name: "Rolling deploy", identifier: "rollout", timeout: "10m" },
            {
              type: "ShellScript",
              name: "Smoke test behind the flag",
              identifier: "smoke_test",
              // The flag's name comes from the Flag resource, not a copy of the string.
              script: pulumi.interpolate`echo "smoke-testing checkout with flag ${checkout.name} forced on"
curl -fsS -H "x-flag-override: ${checkout.name}=on" "$BASE_URL/checkout/health"`,
              environmentVariables: [
                { name: "BASE_URL", type: "String", value: "https://checkout.example.com" },
                { name: "FLAG_NAME", type: "String", value: checkout.name },
              ],
              timeout: "5m",
            },
          ],
          rollbackSteps: [
            { type: "K8sRollingRollback", name: "Roll back", identifier: "rollback", timeout: "10m" },
          ],
        },
        failureStrategies: [{ onFailure: { errors: ["AllErrors"], action: { type: "StageRollback" } } }],
      },
    ],
  },
});

// --- What scripts/show-demo.ts prints ----------------------------------------------------------

export const workspaceName = workspace;
export const flags = [checkout.name, search.name];
export const environments = ["Staging", "Production"];
export const group = team.name;
export const user = ann.email;
export const projectIdentifier = project.identifier;
export const connector = { identifier: registry.identifier, project: project.identifier };
export const pipelineIdentifier = pipeline.identifier;
