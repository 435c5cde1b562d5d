/**
 * CI and Approval stages in the typed model (issue 19): exact rendered YAML, parse back, the
 * refusals naming their field paths, the emulator's acceptance of what the model renders, and a
 * seeded round-trip property render(parse(render(m))) == render(m).
 */
import { describe, expect, it } from "vitest";
import { mulberry32 } from "../../../../emulator/middleware/faults";
import {
  parsePipelineYaml as emulatorParse,
  validatePipeline,
} from "../../../../emulator/platform/pipeline-yaml";
import {
  type PipelineModelError,
  type PipelineModelInput,
  parsePipelineYaml,
  pipelineYamlProblems,
  renderPipelineYaml,
  validatePipelineModel,
} from "../../../../sdk/platform/pipeline";

const scope = { org: "default", project: "payments" };

const ship = (): PipelineModelInput => ({
  name: "Ship",
  identifier: "ship",
  codebase: { connectorRef: "github", repoName: "payments", build: { type: "branch", branch: "main" } },
  stages: [
    {
      type: "CI",
      name: "Build",
      identifier: "build",
      infrastructure: { type: "Cloud" },
      execution: {
        steps: [
          {
            type: "Run",
            name: "Test",
            identifier: "test",
            image: "node:24",
            connectorRef: "account.dockerhub",
            command: "npm test",
          },
          {
            type: "BuildAndPushDockerRegistry",
            name: "Push",
            identifier: "push",
            connectorRef: "dockerhub",
            repo: "acme/payments",
            tags: ["<+pipeline.sequenceId>"],
          },
        ],
      },
    },
    {
      type: "Approval",
      name: "Approve",
      identifier: "approve",
      execution: {
        steps: [
          {
            type: "HarnessApproval",
            name: "Approve",
            identifier: "approve",
            approvalMessage: "Ship it?",
            approvers: { userGroups: ["account._account_all_users"] },
          },
        ],
      },
    },
    {
      type: "Deployment",
      name: "Prod",
      identifier: "prod",
      service: { serviceRef: "payments" },
      environment: { environmentRef: "prod" },
      infrastructure: { connectorRef: "k8s", namespace: "payments" },
      execution: {
        steps: [{ type: "K8sRollingDeploy", name: "Roll", identifier: "roll" }],
        rollbackSteps: [{ type: "K8sRollingRollback", name: "Back", identifier: "back" }],
      },
    },
  ],
});

const issuesOf = (model: unknown) => {
  try {
    validatePipelineModel(model as PipelineModelInput);
    return [];
  } catch (e) {
    return (e as PipelineModelError).issues;
  }
};

describe("CI, Approval and Deployment stages", () => {
  it("render the CI stage, the codebase and the approval as the service's YAML", () => {
    const yaml = renderPipelineYaml(ship(), scope);
    expect(yaml).toContain(`  properties:
    ci:
      codebase:
        connectorRef: github
        repoName: payments
        build:
          type: branch
          spec:
            branch: main
`);
    expect(yaml).toContain(`        type: CI
        spec:
          cloneCodebase: true
          platform:
            os: Linux
            arch: Amd64
          runtime:
            type: Cloud
            spec: {}
          execution:
            steps:
              - step:
                  name: Test
                  identifier: test
                  type: Run
                  spec:
                    connectorRef: account.dockerhub
                    image: node:24
                    shell: Sh
                    command: npm test
                  timeout: 10m
              - step:
                  name: Push
                  identifier: push
                  type: BuildAndPushDockerRegistry
                  spec:
                    connectorRef: dockerhub
                    repo: acme/payments
                    tags:
                      - <+pipeline.sequenceId>
                  timeout: 10m
        tags: {}
`);
    expect(yaml).toContain(`        type: Approval
        spec:
          execution:
            steps:
              - step:
                  name: Approve
                  identifier: approve
                  type: HarnessApproval
                  spec:
                    approvalMessage: Ship it?
                    includePipelineExecutionHistory: true
                    approvers:
                      userGroups:
                        - account._account_all_users
                      minimumCount: 1
                      disallowPipelineExecutor: false
                    approverInputs: []
                  timeout: 1d
            rollbackSteps: []
`);
  });

  it("parse back into the model, and the emulator and check accept them", () => {
    const yaml = renderPipelineYaml(ship(), scope);
    expect(parsePipelineYaml(yaml)).toEqual(validatePipelineModel(ship()));
    expect(pipelineYamlProblems(yaml)).toEqual([]);
    expect(validatePipeline(emulatorParse(yaml), scope).modules).toEqual(["cd", "ci", "pms"]);
  });

  it("render Kubernetes build infrastructure", () => {
    const m = ship();
    const ci = m.stages![0] as { infrastructure: unknown; cloneCodebase?: boolean };
    ci.infrastructure = { type: "KubernetesDirect", connectorRef: "org.k8s", namespace: "builds" };
    ci.cloneCodebase = false;
    const yaml = renderPipelineYaml({ ...m, codebase: undefined }, scope);
    expect(yaml).toContain(`          cloneCodebase: false
          infrastructure:
            type: KubernetesDirect
            spec:
              connectorRef: org.k8s
              namespace: builds
`);
    expect(parsePipelineYaml(yaml)).toEqual(validatePipelineModel({ ...m, codebase: undefined }));
  });

  it("refuse steps outside their stage kinds and a cloning CI stage without a codebase, naming the paths", () => {
    const m = ship();
    const [ci, approval, deploy] = m.stages! as unknown as { execution: { steps: unknown[] } }[];
    ci!.execution.steps.push({
      type: "HarnessApproval",
      name: "A",
      identifier: "a",
      approvalMessage: "x",
      approvers: { userGroups: ["g"] },
    });
    approval!.execution.steps.push({ type: "K8sRollingDeploy", name: "K", identifier: "k" });
    deploy!.execution.steps.push({ type: "Run", name: "R", identifier: "r", command: "ls" });
    expect(issuesOf({ ...m, codebase: undefined })).toEqual([
      {
        path: "codebase",
        message:
          "codebase is required: CI stage build (stages[0]) clones it; set codebase { connectorRef, repoName, build } or the stage's cloneCodebase: false",
      },
      {
        path: "stages[0].execution.steps[2].type",
        message:
          "a HarnessApproval step cannot run in a CI stage; a CI stage takes Run, BuildAndPushDockerRegistry",
      },
      {
        path: "stages[1].execution.steps[1].type",
        message:
          "a K8sRollingDeploy step cannot run in an Approval stage; an Approval stage takes ShellScript, HarnessApproval",
      },
      {
        path: "stages[2].execution.steps[1].type",
        message:
          "a Run step cannot run in a Deployment stage; a Deployment stage takes ShellScript, K8sRollingDeploy, K8sRollingRollback, HarnessApproval",
      },
    ]);
  });

  it("refuse bad approvers and references, naming the fields", () => {
    const m = ship();
    const step = (m.stages![1] as unknown as { execution: { steps: Record<string, unknown>[] } }).execution
      .steps[0]!;
    step.approvers = { userGroups: [], minimumCount: 0 };
    (m.codebase as Record<string, unknown>).connectorRef = "a/b";
    expect(issuesOf(m).map((i) => [i.path, i.message])).toEqual([
      [
        "codebase.connectorRef",
        "connectorRef must be an identifier, optionally prefixed with account. or org., or a <+...> expression",
      ],
      ["stages[1].execution.steps[0].approvers.userGroups", "userGroups needs at least one user group"],
      [
        "stages[1].execution.steps[0].approvers.minimumCount",
        "minimumCount must be a whole number of at least 1, or a <+...> expression",
      ],
    ]);
  });

  it("round-trip: render(parse(render(m))) == render(m) for generated pipelines (seeded)", () => {
    const rng = mulberry32(0x19);
    const pick = <T>(list: readonly T[]): T => list[Math.floor(rng() * list.length)]!;
    for (let n = 0; n < 200; n++) {
      const m = ship();
      const ci = m.stages![0] as Record<string, unknown>;
      ci.infrastructure = pick([
        { type: "Cloud", os: pick(["Linux", "MacOS", "Windows"]), arch: pick(["Amd64", "Arm64"]) },
        { type: "KubernetesDirect", connectorRef: pick(["k8s", "org.k8s", "account.k8s"]), namespace: "ns" },
      ]);
      (m.codebase as Record<string, unknown>).build = pick([
        "<+input>",
        { type: "tag", tag: "v1" },
        { type: "PR", number: "<+trigger.prNumber>" },
        { type: "branch", branch: "main" },
      ]);
      const approval = (m.stages![1] as unknown as { execution: { steps: Record<string, unknown>[] } })
        .execution.steps[0]!;
      approval.approvers = {
        userGroups: ["g", "org.h"].slice(0, 1 + Math.floor(rng() * 2)),
        minimumCount: pick([1, 2, "<+input>"]),
      };
      approval.approverInputs =
        rng() < 0.5 ? [] : [{ name: "reason", defaultValue: pick(["", "yes", "10"]) }];
      const order = rng() < 0.5 ? m.stages! : [m.stages![1]!, m.stages![0]!, m.stages![2]!];
      const model = { ...m, stages: order };
      const once = renderPipelineYaml(model, scope);
      expect(renderPipelineYaml(parsePipelineYaml(once), scope)).toBe(once);
      expect(validatePipeline(emulatorParse(once), scope).identifier).toBe("ship");
    }
  });
});
