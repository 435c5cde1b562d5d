/**
 * A delivery project on the platform API: the project, a container image registry connector in
 * it, and a deployment pipeline written as a typed model rather than YAML. The provider renders the
 * model to YAML deterministically and compares pipelines by meaning, so reformatting or reordering
 * keys never shows as a change, and a typo fails `pulumi preview` naming the field.
 */
import { Connector, Pipeline, type PipelineModelInput, Project, runtimeInput } from "flagstack/provider";

type Stage = PipelineModelInput["stages"][number];

/** One Kubernetes deployment stage: roll out, smoke-test, roll back on failure. */
function deploymentStage(env: string, replicas: number): Stage {
  return {
    type: "Deployment",
    name: `Deploy to ${env}`,
    identifier: env,
    service: { serviceRef: "orders", variables: [{ name: "replicas", type: "Number", value: replicas }] },
    environment: { environmentRef: env },
    infrastructure: {
      type: "KubernetesDirect",
      connectorRef: `account.k8s_${env}`,
      namespace: "orders",
      releaseName: "orders-<+pipeline.sequenceId>",
    },
    execution: {
      steps: [
        { type: "K8sRollingDeploy", name: "Rolling deploy", identifier: "rollout", timeout: "15m" },
        {
          type: "ShellScript",
          name: "Smoke test",
          identifier: "smoke_test",
          script:
            'curl -fsS "https://orders.$ENV.example.com/health" | grep -q "<+pipeline.variables.version>"',
          environmentVariables: [{ name: "ENV", type: "String", value: env }],
          timeout: "5m",
        },
      ],
      rollbackSteps: [
        { type: "K8sRollingRollback", name: "Roll back", identifier: "rollback", timeout: "10m" },
      ],
    },
    failureStrategies: [
      {
        onFailure: {
          errors: ["Connectivity", "Timeout"],
          action: {
            type: "Retry",
            spec: {
              retryCount: 2,
              retryIntervals: ["10s", "30s"],
              onRetryFailure: { action: { type: "StageRollback" } },
            },
          },
        },
      },
      { onFailure: { errors: ["AllErrors"], action: { type: "StageRollback" } } },
    ],
  };
}

const project = new Project("orders", {
  identifier: "orders",
  name: "Orders",
  color: "#1f8a70",
  description: "The order service and its deployments",
  tags: { team: "orders", tier: "backend" },
});

const registry = new Connector("registry", {
  org: "default",
  project: project.identifier,
  identifier: "orders_registry",
  name: "Orders registry",
  description: "Private registry of the order service's images",
  dockerRegistry: {
    url: "https://harbor.example.com/v2/",
    providerType: "Harbor",
    // The password is a reference to a stored secret, never its value.
    auth: {
      type: "UsernamePassword",
      usernameRef: "account.harbor_user",
      passwordRef: "account.harbor_password",
    },
  },
});

const pipeline = new Pipeline("deploy-orders", {
  project: project.identifier,
  pipeline: {
    name: "Deploy orders",
    identifier: "deploy_orders",
    description: "Staging, then Production; each stage rolls back on failure",
    tags: { team: "orders" },
    variables: [
      // `<+input>` at run time: the release to deploy must match v1.2.3.
      {
        name: "version",
        type: "String",
        description: "Release to deploy",
        required: true,
        value: runtimeInput().regex("^v[0-9]+\\.[0-9]+\\.[0-9]+$"),
      },
      { name: "registry_token", type: "Secret", value: "account.harbor_password" },
    ],
    stages: [deploymentStage("staging", 2), deploymentStage("production", 6)],
  },
});

export const projectIdentifier = project.identifier;
export const connectorType = registry.type;
/** The YAML the service stores, rendered from the model above. */
export const pipelineYaml = pipeline.yaml;
