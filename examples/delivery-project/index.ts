/**
 * A delivery project stood up from nothing on the platform API: an organization and its project,
 * the GitHub token as a secret, GitHub, registry and Kubernetes connectors, the `orders` service,
 * a Production environment with its Kubernetes infrastructure, and a pipeline that builds the
 * image (CI), waits for an approval, and deploys it, plus a saved input set and a nightly trigger.
 *
 * Every reference between them is a resource output: the connectors take the secret's `ref`, the
 * pipeline names the connectors, the service, the environment and the infrastructure by their
 * `identifier` outputs, so the engine creates them in order and destroys them in reverse. The
 * token itself reaches only the `Secret` (a Pulumi secret); connectors hold its reference.
 */
import * as pulumi from "@pulumi/pulumi";
import {
  Connector,
  DeliveryEnvironment,
  Infrastructure,
  InputSet,
  Organization,
  Pipeline,
  Project,
  Secret,
  Service,
  Trigger,
} from "flagstack/provider";

const config = new pulumi.Config();
const githubToken = config.requireSecret("githubToken");
const replicas = config.getNumber("replicas", { min: 1 }) ?? 3;
const minimumApprovals = config.getNumber("minimumApprovals", { min: 1 }) ?? 1;

const org = new Organization("acme", {
  identifier: "acme",
  name: "Acme",
  description: "Acme's delivery organization",
  tags: { owner: "platform" },
});

const project = new Project("orders", {
  org: org.identifier,
  identifier: "orders",
  name: "Orders",
  description: "The order service and how it ships",
  tags: { team: "orders" },
});
const scope = { org: org.identifier, project: project.identifier };

const token = new Secret("github-token", {
  ...scope,
  identifier: "github_token",
  name: "GitHub token",
  description: "Token of the ci-bot GitHub account",
  value: githubToken,
});

const github = new Connector("github", {
  ...scope,
  identifier: "acme_github",
  name: "Acme on GitHub",
  github: {
    url: "https://github.com/acme",
    connectionType: "Account",
    validationRepo: "acme/orders",
    auth: { username: "ci-bot", tokenRef: token.ref },
    apiAccess: { tokenRef: token.ref },
  },
});

const registry = new Connector("registry", {
  ...scope,
  identifier: "acme_ghcr",
  name: "GitHub container registry",
  dockerRegistry: {
    url: "https://ghcr.io/",
    providerType: "Other",
    auth: { type: "UsernamePassword", username: "ci-bot", passwordRef: token.ref },
  },
});

const cluster = new Connector("cluster", {
  ...scope,
  identifier: "prod_cluster",
  name: "Production cluster",
  kubernetes: { credential: { type: "InheritFromDelegate" }, delegateSelectors: ["orders-prod"] },
});

const service = new Service("orders-service", {
  ...scope,
  identifier: "orders",
  name: "Orders",
  description: "The order API",
  kubernetes: {
    manifests: [
      {
        manifest: {
          identifier: "k8s",
          type: "K8sManifest",
          spec: {
            store: {
              type: "Github",
              spec: {
                connectorRef: github.identifier,
                repoName: "orders",
                branch: "main",
                paths: ["deploy/k8s/"],
              },
            },
          },
        },
      },
    ],
    artifacts: {
      primaryArtifactRef: "image",
      sources: [
        {
          identifier: "image",
          type: "DockerRegistry",
          spec: { connectorRef: registry.identifier, imagePath: "acme/orders", tag: "<+input>" },
        },
      ],
    },
  },
});

const production = new DeliveryEnvironment("production", {
  ...scope,
  identifier: "production",
  name: "Production",
  type: "Production",
  variables: [{ name: "replicas", type: "Number", value: replicas }],
});

const infrastructure = new Infrastructure("production-cluster", {
  ...scope,
  environment: production.identifier,
  identifier: "prod_k8s",
  name: "Production cluster",
  definition: {
    type: "KubernetesDirect",
    connectorRef: cluster.identifier,
    namespace: "orders",
    releaseName: "orders",
  },
});

const pipeline = new Pipeline("ship-orders", {
  ...scope,
  pipeline: {
    name: "Ship orders",
    identifier: "ship_orders",
    tags: { team: "orders" },
    variables: [
      { name: "release", type: "String", description: "Image tag to build and ship", value: "<+input>" },
    ],
    codebase: {
      connectorRef: github.identifier,
      repoName: "orders",
      build: { type: "branch", branch: "main" },
    },
    stages: [
      {
        type: "CI",
        name: "Build",
        identifier: "build",
        infrastructure: { type: "KubernetesDirect", connectorRef: cluster.identifier, namespace: "ci" },
        execution: {
          steps: [
            {
              type: "Run",
              name: "Unit tests",
              identifier: "unit_tests",
              image: "node:24",
              command: "npm ci && npm test",
            },
            {
              type: "BuildAndPushDockerRegistry",
              name: "Build and push",
              identifier: "build_and_push",
              connectorRef: registry.identifier,
              repo: "acme/orders",
              tags: ["<+pipeline.variables.release>"],
            },
          ],
        },
      },
      {
        type: "Approval",
        name: "Approve production",
        identifier: "approve_production",
        execution: {
          steps: [
            {
              type: "HarnessApproval",
              name: "Release manager",
              identifier: "release_manager",
              approvalMessage: "Ship <+pipeline.variables.release> to Production?",
              approvers: { userGroups: ["_project_all_users"], minimumCount: minimumApprovals },
            },
          ],
        },
      },
      {
        type: "Deployment",
        name: "Deploy to production",
        identifier: "deploy_production",
        service: { serviceRef: service.identifier },
        environment: {
          environmentRef: production.identifier,
          infrastructureDefinitions: [infrastructure.identifier],
        },
        execution: {
          steps: [
            { type: "K8sRollingDeploy", name: "Rolling deploy", identifier: "rollout", timeout: "15m" },
          ],
          rollbackSteps: [{ type: "K8sRollingRollback", name: "Roll back", identifier: "rollback" }],
        },
        failureStrategies: [{ onFailure: { errors: ["AllErrors"], action: { type: "StageRollback" } } }],
      },
    ],
  },
});

const nightlyValues = new InputSet("nightly-values", {
  ...scope,
  pipelineIdentifier: pipeline.identifier,
  pipelineYaml: pipeline.yaml,
  identifier: "nightly",
  name: "Nightly",
  values: { variables: [{ name: "release", type: "String", value: "nightly" }] },
});

new Trigger("nightly", {
  ...scope,
  pipelineIdentifier: pipeline.identifier,
  identifier: "nightly",
  name: "Nightly",
  cron: { expression: "0 3 * * 1-5" },
  inputSetRefs: [nightlyValues.identifier],
});

export const organization = org.identifier;
export const tokenRef = token.ref;
export const pipelineYaml = pipeline.yaml;
