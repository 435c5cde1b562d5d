import { describe, expect, it } from "vitest";
import YAML from "yaml";
import {
  durationMs,
  literalSecret,
  pipelineDeploymentRollback,
  pipelineNoLiteralSecrets,
  pipelineStepTimeouts,
  rollsBack,
} from "../../policy/pipelines";
import { PIPELINE_TYPE } from "../../provider/types";
import { checkedProps, runResourcePolicy } from "./util";

/** Runs a policy on a pipeline declared with `inputs`, as the engine hands it over. */
const runOnPipeline = async (
  policy: typeof pipelineStepTimeouts,
  inputs: Record<string, unknown>,
  config: object = {},
) => runResourcePolicy(policy, PIPELINE_TYPE, await checkedProps(PIPELINE_TYPE, inputs), config);

/** A pipeline YAML with one Deployment stage; the parts under test are parameters. */
const yamlPipeline = (
  o: {
    failureStrategies?: string;
    rollbackSteps?: string;
    script?: string;
    timeout?: string;
    env?: string;
  } = {},
) => `
pipeline:
  name: deploy app
  identifier: deploy_app
  projectIdentifier: payments
  orgIdentifier: default
  tags: {}
  stages:
    - stage:
        name: prod
        identifier: prod
        type: Deployment
        spec:
          serviceConfig:
            serviceRef: checkout
            serviceDefinition:
              type: Kubernetes
              spec:
                variables: []
          infrastructure:
            environmentRef: production
            infrastructureDefinition:
              type: KubernetesDirect
              spec:
                connectorRef: k8s
                namespace: checkout
                releaseName: release
          execution:
            steps:
              - step:
                  name: smoke
                  identifier: smoke
                  type: ShellScript
${o.timeout === undefined ? "                  timeout: 10m" : o.timeout}
                  spec:
                    shell: Bash
                    onDelegate: true
                    source:
                      type: Inline
                      spec:
                        script: ${JSON.stringify(o.script ?? "curl -fsS https://checkout.internal/health")}
                    environmentVariables: ${o.env ?? "[]"}
                    outputVariables: []
            rollbackSteps: ${o.rollbackSteps ?? "\n              - step:\n                  name: rollback\n                  identifier: rollback\n                  type: K8sRollingRollback\n                  timeout: 10m\n                  spec: {}"}
        failureStrategies: ${o.failureStrategies ?? "\n          - onFailure:\n              errors: [AllErrors]\n              action:\n                type: StageRollback"}
`;

/** The same pipeline as a typed model (provider/pipeline-model.ts). */
const model = (
  o: { failureStrategies?: unknown[]; rollbackSteps?: unknown[]; timeout?: string; script?: string } = {},
) => ({
  org: "default",
  project: "payments",
  pipeline: {
    name: "deploy app",
    identifier: "deploy_app",
    stages: [
      {
        type: "Deployment",
        name: "prod",
        identifier: "prod",
        service: { serviceRef: "checkout" },
        environment: { environmentRef: "production" },
        infrastructure: { connectorRef: "k8s", namespace: "checkout" },
        execution: {
          steps: [
            { type: "K8sRollingDeploy", name: "deploy", identifier: "deploy" },
            {
              type: "Parallel",
              steps: [
                {
                  type: "ShellScript",
                  name: "smoke",
                  identifier: "smoke",
                  script: o.script ?? "echo ok",
                  ...(o.timeout ? { timeout: o.timeout } : {}),
                },
              ],
            },
          ],
          rollbackSteps: o.rollbackSteps ?? [
            { type: "K8sRollingRollback", name: "rollback", identifier: "rollback" },
          ],
        },
        failureStrategies: o.failureStrategies ?? [
          { onFailure: { errors: ["AllErrors"], action: { type: "StageRollback" } } },
        ],
      },
    ],
  },
});

const yamlProps = (o: Parameters<typeof yamlPipeline>[0] = {}) => ({
  org: "default",
  project: "payments",
  yaml: yamlPipeline(o),
});

describe("pipeline-deployment-rollback", () => {
  it("passes a Deployment stage that rolls back, in YAML and in the model", async () => {
    expect(await runOnPipeline(pipelineDeploymentRollback, yamlProps())).toEqual([]);
    expect(await runOnPipeline(pipelineDeploymentRollback, model())).toEqual([]);
  });

  it("reports a Deployment stage whose failure strategy aborts, and one without rollback steps (YAML)", async () => {
    const props = yamlProps({
      failureStrategies:
        "\n          - onFailure:\n              errors: [AllErrors]\n              action:\n                type: Abort",
      rollbackSteps: "[]",
    });
    expect(await runOnPipeline(pipelineDeploymentRollback, props)).toEqual([
      'pipeline "deploy_app" stage "prod" (Deployment) has no failure strategy that rolls back: add failureStrategies with onFailure action StageRollback or PipelineRollback',
      'pipeline "deploy_app" stage "prod" (Deployment) has no rollback steps, so a rollback would do nothing',
    ]);
  });

  it("checks the Deployment stages of a parallel group in YAML", async () => {
    const doc = YAML.parse(yamlProps({ rollbackSteps: "[]" }).yaml);
    doc.pipeline.stages = [{ parallel: doc.pipeline.stages }];
    const props = { org: "default", project: "payments", yaml: YAML.stringify(doc) };
    expect(await runOnPipeline(pipelineDeploymentRollback, props)).toEqual([
      'pipeline "deploy_app" stage "prod" (Deployment) has no rollback steps, so a rollback would do nothing',
    ]);
  });

  it("reports a model stage without failure strategies", async () => {
    expect(await runOnPipeline(pipelineDeploymentRollback, model({ failureStrategies: [] }))).toEqual([
      'pipeline "deploy_app" stage "prod" (Deployment) has no failure strategy that rolls back: add failureStrategies with onFailure action StageRollback or PipelineRollback',
    ]);
  });

  it("can leave rollback steps optional, and skips YAML that does not parse", async () => {
    expect(
      await runOnPipeline(pipelineDeploymentRollback, model({ rollbackSteps: [] }), {
        requireRollbackSteps: false,
      }),
    ).toEqual([]);
    expect(await runOnPipeline(pipelineDeploymentRollback, { yaml: "pipeline: [" })).toEqual([]);
  });

  it.each<[string, unknown, boolean]>([
    ["StageRollback", { onFailure: { errors: ["AllErrors"], action: { type: "StageRollback" } } }, true],
    ["PipelineRollback", { onFailure: { errors: ["Timeout"], action: { type: "PipelineRollback" } } }, true],
    [
      "Retry then StageRollback",
      {
        onFailure: {
          errors: ["AllErrors"],
          action: {
            type: "Retry",
            spec: {
              retryCount: 2,
              retryIntervals: ["10s"],
              onRetryFailure: { action: { type: "StageRollback" } },
            },
          },
        },
      },
      true,
    ],
    [
      "Retry then Abort",
      {
        onFailure: {
          errors: ["AllErrors"],
          action: {
            type: "Retry",
            spec: { retryCount: 2, retryIntervals: ["10s"], onRetryFailure: { action: { type: "Abort" } } },
          },
        },
      },
      false,
    ],
    [
      "ManualIntervention timing out to a rollback",
      {
        onFailure: {
          errors: ["AllErrors"],
          action: {
            type: "ManualIntervention",
            spec: { timeout: "1h", onTimeout: { action: { type: "PipelineRollback" } } },
          },
        },
      },
      true,
    ],
    ["MarkAsSuccess", { onFailure: { errors: ["AllErrors"], action: { type: "MarkAsSuccess" } } }, false],
    ["garbage", "StageRollback", false],
  ])("rollsBack: %s", (_, strategy, expected) => {
    expect(rollsBack(strategy)).toBe(expected);
  });
});

describe("pipeline-no-literal-secrets", () => {
  it.each([
    ["a secret expression", 'export DB_PASSWORD=<+secrets.getValue("db_password")>'],
    [
      "a quoted secret expression",
      'TOKEN="<+secrets.getValue(\\"gh\\")>"; curl -H "Authorization: Bearer $TOKEN" https://x',
    ],
    ["a shell variable", "docker login --password $REGISTRY_PASSWORD"],
    ["a secret name (not a value)", "SECRET_NAME=prod-db"],
    ["a path", "TOKEN_FILE=/var/run/secrets/token"],
    ["a URL without credentials", "curl https://checkout.internal/health"],
  ])("passes a script with %s", async (_, script) => {
    expect(await runOnPipeline(pipelineNoLiteralSecrets, yamlProps({ script }))).toEqual([]);
  });

  const step = 'pipeline "deploy_app" stage "prod" step "smoke"';
  const use = 'reference a secret with <+secrets.getValue("name")> instead';
  it.each([
    [
      "a password assignment",
      "echo start\nexport DB_PASSWORD=hunter2hunter2",
      2,
      "a password or token assignment",
    ],
    ["an AWS key", "aws configure set aws_access_key_id AKIAIOSFODNN7EXAMPLE", 1, "an AWS access key id"],
    [
      "a GitHub token",
      `git clone https://x:ghp_${"a".repeat(36)}@github.example/org/repo`,
      1,
      "a GitHub token",
    ],
    ["credentials in a URL", "psql postgres://admin:s3cretpw@db.internal/app", 1, "credentials in a URL"],
    [
      "a bearer token",
      'curl -H "Authorization: Bearer abcdef0123456789" https://api',
      1,
      "an Authorization header",
    ],
    [
      "a password option",
      "docker login -u ci --password hunter2hunter2 registry",
      1,
      "a password on the command line",
    ],
    ["a private key", "cat > key <<EOF\n-----BEGIN RSA PRIVATE KEY-----\nMII\nEOF", 2, "a private key"],
  ])("reports %s, naming the line but not the value", async (_, script, line, what) => {
    expect(await runOnPipeline(pipelineNoLiteralSecrets, yamlProps({ script }))).toEqual([
      `${step}: script line ${line} holds what looks like ${what}; ${use}`,
    ]);
  });

  it("reports a String environment variable holding a token, not a Secret one", async () => {
    const env =
      '\n                      - {name: API_TOKEN, type: String, value: "abcd1234efgh"}\n                      - {name: DB_PASSWORD, type: Secret, value: account.db_pw}';
    expect(await runOnPipeline(pipelineNoLiteralSecrets, yamlProps({ env }))).toEqual([
      `${step}: environment variable API_TOKEN holds what looks like a password or token assignment; ${use}`,
    ]);
  });

  it("checks model scripts inside parallel groups, and applies configured patterns", async () => {
    expect(
      await runOnPipeline(
        pipelineNoLiteralSecrets,
        model({ script: "echo ok\nexport SERVICE_TOKEN=0123456789abcdef" }),
      ),
    ).toEqual([`${step}: script line 2 holds what looks like a password or token assignment; ${use}`]);
    expect(
      await runOnPipeline(pipelineNoLiteralSecrets, model({ script: "use internal-key-42" }), {
        additionalPatterns: ["internal-key-\\d+"],
      }),
    ).toEqual([`${step}: script line 1 holds what looks like text matching internal-key-\\d+; ${use}`]);
  });

  it("reports a pipeline variable of type String that holds a password", async () => {
    const props = model();
    (props.pipeline as Record<string, unknown>).variables = [
      { name: "db_password", type: "String", value: "hunter2hunter2" },
    ];
    expect(await runOnPipeline(pipelineNoLiteralSecrets, props)).toEqual([
      `pipeline "deploy_app" variable db_password holds what looks like a password or token assignment; make it a Secret variable or ${use}`,
    ]);
  });

  it("finds nothing in expression-only text", () => {
    expect(literalSecret('PASSWORD=<+secrets.getValue("x")>')).toBeUndefined();
  });
});

describe("pipeline-step-timeouts", () => {
  it("passes steps with timeouts; a model step without one deploys with the default 10m", async () => {
    expect(await runOnPipeline(pipelineStepTimeouts, yamlProps())).toEqual([]);
    expect(await runOnPipeline(pipelineStepTimeouts, model())).toEqual([]);
    expect(
      await runOnPipeline(
        pipelineStepTimeouts,
        yamlProps({ timeout: "                  timeout: <+input>" }),
      ),
    ).toEqual([]);
  });

  it("reports a YAML step without a timeout", async () => {
    expect(await runOnPipeline(pipelineStepTimeouts, yamlProps({ timeout: "" }))).toEqual([
      'pipeline "deploy_app" stage "prod" step "smoke" has no timeout: set timeout (for example 10m)',
    ]);
  });

  it("reports a timeout that is not a duration", async () => {
    expect(
      await runOnPipeline(pipelineStepTimeouts, yamlProps({ timeout: "                  timeout: soon" })),
    ).toEqual([
      'pipeline "deploy_app" stage "prod" step "smoke" has timeout "soon", which is not a duration such as 10m or 1h30m',
    ]);
  });

  it("reports a zero timeout, which the provider's check refuses too", async () => {
    expect(
      await runOnPipeline(pipelineStepTimeouts, yamlProps({ timeout: "                  timeout: 0m" })),
    ).toEqual([
      'pipeline "deploy_app" stage "prod" step "smoke" has timeout "0m", which is not a duration such as 10m or 1h30m',
    ]);
  });

  it("reads a model step without a timeout with the timeout the provider's check gives it", async () => {
    expect(await runOnPipeline(pipelineStepTimeouts, model(), { maxTimeout: "5m" })).toEqual([
      'pipeline "deploy_app" stage "prod" step "deploy" has timeout 10m, longer than the maximum 5m',
      'pipeline "deploy_app" stage "prod" step "smoke" has timeout 10m, longer than the maximum 5m',
      'pipeline "deploy_app" stage "prod" rollback step "rollback" has timeout 10m, longer than the maximum 5m',
    ]);
  });

  it("reports timeouts above the configured maximum, rollback steps included", async () => {
    const props = model({
      timeout: "2h",
      rollbackSteps: [
        { type: "K8sRollingRollback", name: "rollback", identifier: "rollback", timeout: "1d" },
      ],
    });
    expect(await runOnPipeline(pipelineStepTimeouts, props, { maxTimeout: "1h" })).toEqual([
      'pipeline "deploy_app" stage "prod" step "smoke" has timeout 2h, longer than the maximum 1h',
      'pipeline "deploy_app" stage "prod" rollback step "rollback" has timeout 1d, longer than the maximum 1h',
    ]);
  });

  it.each<[string, number | undefined]>([
    ["10m", 600_000],
    ["1h30m", 5_400_000],
    ["1h 30m", 5_400_000],
    ["1w2d", 7 * 86_400_000 + 2 * 86_400_000],
    ["500ms", 500],
    ["10", undefined],
    ["m", undefined],
  ])("durationMs(%s) = %s", (text, ms) => {
    expect(durationMs(text)).toBe(ms);
  });
});

describe("a stage made from a template", () => {
  const templated = {
    project: "payments",
    pipeline: {
      name: "Release",
      identifier: "release",
      stages: [
        {
          type: "Template",
          name: "Deploy",
          identifier: "deploy",
          template: {
            templateRef: "deploy_tpl",
            templateInputs: { type: "Deployment", spec: { environment: { environmentRef: "prod" } } },
          },
        },
      ],
    },
  };
  const yaml = `pipeline:
  name: Release
  identifier: release
  stages:
    - stage:
        name: Deploy
        identifier: deploy
        template:
          templateRef: org.deploy_tpl
          versionLabel: "1"
`;

  it("is passed over by the rules that read steps, failure strategies and variables, model and YAML alike", async () => {
    for (const inputs of [templated, { project: "payments", yaml }]) {
      for (const policy of [pipelineDeploymentRollback, pipelineNoLiteralSecrets, pipelineStepTimeouts]) {
        expect(await runOnPipeline(policy, inputs)).toEqual([]);
      }
    }
  });
});
