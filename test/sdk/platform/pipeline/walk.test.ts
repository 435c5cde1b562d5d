/**
 * The tolerant walker (sdk/platform/pipeline/walk.ts): one view of a model, of YAML text or of a
 * parsed document, skipping what it does not understand.
 */
import { describe, expect, it } from "vitest";
import {
  connectorRefsOf,
  DEFAULT_STEP_TIMEOUT,
  pipelineViewOfModel,
  pipelineViewOfYaml,
  renderPipelineYaml,
  runtimeInput,
} from "../../../../sdk/platform/pipeline";
import { deployCheckout } from "../../../provider/fixtures/pipelines";

const scope = { org: "default", project: "payments" };

describe("pipelineViewOfModel", () => {
  it("reads a model as written and after Pulumi's serialization alike", () => {
    const model = {
      identifier: "p",
      stages: [
        {
          identifier: "s",
          type: "Deployment",
          service: { serviceRef: "x", variables: [{ name: "r", type: "Number", value: 3 }] },
          execution: {
            steps: [
              { type: "Parallel", steps: [{ type: "ShellScript", identifier: "a", script: "echo a" }] },
              { type: "K8sRollingDeploy", identifier: "b", timeout: runtimeInput().default("5m") },
            ],
            rollbackSteps: [{ type: "K8sRollingRollback", identifier: "c", timeout: "1m" }],
          },
        },
      ],
    };
    const expected = {
      identifier: "p",
      name: "p",
      form: "model",
      variables: [],
      stages: [
        {
          identifier: "s",
          name: "s",
          type: "Deployment",
          failureStrategies: [],
          steps: [
            {
              identifier: "a",
              name: "a",
              type: "ShellScript",
              timeout: DEFAULT_STEP_TIMEOUT,
              script: "echo a",
              environmentVariables: [],
              path: "stages[0].execution.steps[0].steps[0]",
              rollback: false,
            },
            {
              identifier: "b",
              name: "b",
              type: "K8sRollingDeploy",
              timeout: "<+input>",
              script: undefined,
              environmentVariables: [],
              path: "stages[0].execution.steps[1]",
              rollback: false,
            },
          ],
          rollbackSteps: [
            {
              identifier: "c",
              name: "c",
              type: "K8sRollingRollback",
              timeout: "1m",
              script: undefined,
              environmentVariables: [],
              path: "stages[0].execution.rollbackSteps[0]",
              rollback: true,
            },
          ],
          variables: [{ name: "r", type: "Number", value: 3 }],
        },
      ],
      hasRuntimeInputs: true,
    };
    expect(pipelineViewOfModel(model)).toEqual(expected);
    expect(pipelineViewOfModel(JSON.parse(JSON.stringify(model)))).toEqual(expected);
  });

  it("skips what it does not understand", () => {
    expect(pipelineViewOfModel({ stages: [7, { execution: "x" }] })).toEqual({
      identifier: "",
      name: "",
      form: "model",
      variables: [],
      stages: [
        {
          identifier: "",
          name: "",
          type: "",
          failureStrategies: [],
          steps: [],
          rollbackSteps: [],
          variables: [],
        },
      ],
      hasRuntimeInputs: false,
    });
  });
});

describe("pipelineViewOfYaml", () => {
  it("reads the rendered model the same as the model, but with YAML paths", () => {
    const fromYaml = pipelineViewOfYaml(renderPipelineYaml(deployCheckout, scope));
    const fromModel = pipelineViewOfModel(deployCheckout as unknown as Record<string, unknown>);
    const withoutPaths = (v: typeof fromYaml) =>
      v.stages.map((s) => ({
        ...s,
        steps: s.steps.map(({ path: _, ...step }) => step),
        rollbackSteps: s.rollbackSteps.map(({ path: _, ...step }) => step),
      }));
    expect(withoutPaths(fromYaml)).toEqual(withoutPaths(fromModel));
    expect(fromYaml.stages[0]!.steps.map((s) => s.path)).toEqual([
      "pipeline.stages[0].stage.spec.execution.steps[0].step",
      "pipeline.stages[0].stage.spec.execution.steps[1].step",
    ]);
  });

  it("reads the stages of a parallel group in order", () => {
    const view = pipelineViewOfYaml(`pipeline:
  identifier: p
  stages:
    - stage: {identifier: a, type: Custom}
    - parallel:
        - stage: {identifier: b, type: Deployment}
        - stage: {identifier: c, type: Custom, spec: {execution: {steps: [{step: {identifier: x, type: ShellScript}}]}}}
`);
    expect(view.stages.map((s) => [s.identifier, s.type, s.steps.map((x) => x.path)])).toEqual([
      ["a", "Custom", []],
      ["b", "Deployment", []],
      ["c", "Custom", ["pipeline.stages[1].parallel[1].stage.spec.execution.steps[0].step"]],
    ]);
  });

  it.each([
    ["pipeline: [", /^the pipeline YAML does not parse: /],
    ["stages: []\n", /^the pipeline YAML has no top-level pipeline key$/],
  ])("throws on %j", (text, message) => {
    expect(() => pipelineViewOfYaml(text)).toThrow(message);
  });
});

describe("connectorRefsOf", () => {
  it("finds every connectorRef string, in document order", () => {
    expect(
      connectorRefsOf({
        a: { connectorRef: "k8s" },
        b: [{ spec: { connectorRef: "org.git" } }, { connectorRef: 7 }],
        connectorRef: "<+input>",
      }),
    ).toEqual(["k8s", "org.git", "<+input>"]);
  });
});
