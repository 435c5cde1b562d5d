/**
 * Stages made from a Stage template in the typed model (`type: "Template"`): the exact YAML they
 * render to, parsing back to the typed model, comparison by meaning, the refusals naming their
 * field paths, the walker's view and the emulator's acceptance of what the model renders.
 */
import { describe, expect, it } from "vitest";
import {
  parsePipelineYaml as emulatorParse,
  validatePipeline,
} from "../../../../emulator/platform/pipeline-yaml";
import {
  type PipelineModelError,
  type PipelineModelInput,
  parsePipelineYaml,
  pipelinesEqual,
  pipelineViewOfModel,
  pipelineViewOfYaml,
  pipelineYamlProblems,
  renderPipelineYaml,
  TemplatePipeline,
  validatePipelineModel,
} from "../../../../sdk/platform/pipeline";

const scope = { org: "default", project: "payments" };

const release = (): PipelineModelInput => ({
  name: "Release",
  identifier: "release",
  stages: [
    {
      type: "Custom",
      name: "Build",
      identifier: "build",
      execution: { steps: [{ type: "ShellScript", name: "Echo", identifier: "echo", script: "echo hi" }] },
    },
    {
      type: "Template",
      name: "Deploy",
      identifier: "deploy",
      description: "to production",
      template: {
        templateRef: "org.deploy_tpl",
        versionLabel: "1",
        templateInputs: {
          type: "Deployment",
          spec: { environment: { environmentRef: "prod" } },
          timeout: 10,
        },
      },
    },
    { type: "Template", name: "Smoke", identifier: "smoke", template: { templateRef: "smoke_tpl" } },
  ],
});

const RELEASE_YAML = `pipeline:
  name: Release
  identifier: release
  allowStageExecutions: false
  projectIdentifier: payments
  orgIdentifier: default
  tags: {}
  stages:
    - stage:
        name: Build
        identifier: build
        type: Custom
        spec:
          execution:
            steps:
              - step:
                  name: Echo
                  identifier: echo
                  type: ShellScript
                  spec:
                    shell: Bash
                    onDelegate: true
                    source:
                      type: Inline
                      spec:
                        script: echo hi
                    environmentVariables: []
                    outputVariables: []
                    executionTarget: {}
                  timeout: 10m
            rollbackSteps: []
        tags: {}
        failureStrategies: []
    - stage:
        name: Deploy
        identifier: deploy
        description: to production
        template:
          templateRef: org.deploy_tpl
          versionLabel: "1"
          templateInputs:
            spec:
              environment:
                environmentRef: prod
            timeout: 10
            type: Deployment
    - stage:
        name: Smoke
        identifier: smoke
        template:
          templateRef: smoke_tpl
`;

/** The issues a model's validation reports, as `path: message`. */
function issuesOf(model: unknown): string[] {
  try {
    validatePipelineModel(model as PipelineModelInput);
  } catch (e) {
    return (e as PipelineModelError).issues.map((i) => `${i.path}: ${i.message}`);
  }
  return [];
}

const withTemplateStage = (stage: Record<string, unknown>): unknown => {
  const m = release();
  return { ...m, stages: [m.stages![0], { ...m.stages![1], ...stage }] };
};

describe("a stage made from a template", () => {
  it("renders as the service's YAML: name, identifier, description and template, no type", () => {
    expect(renderPipelineYaml(release(), scope)).toBe(RELEASE_YAML);
  });

  it("renders templateInputs with their keys sorted, whatever the order a program gave them in", () => {
    const m = release();
    const stage = m.stages![1] as { template: { templateInputs?: Record<string, unknown> } };
    stage.template.templateInputs = {
      type: "Deployment",
      timeout: 10,
      spec: { environment: { environmentRef: "prod" } },
    };
    expect(renderPipelineYaml(m, scope)).toBe(RELEASE_YAML);
  });

  it("parses back into the typed model, not raw YAML, and the round trip is exact", () => {
    const parsed = parsePipelineYaml(RELEASE_YAML);
    expect(parsed).toEqual(validatePipelineModel(release()));
    expect(parsed.stages![1]).toEqual({
      type: "Template",
      name: "Deploy",
      identifier: "deploy",
      description: "to production",
      template: {
        templateRef: "org.deploy_tpl",
        versionLabel: "1",
        templateInputs: {
          type: "Deployment",
          spec: { environment: { environmentRef: "prod" } },
          timeout: 10,
        },
      },
    });
    expect(parsed.stages![2]).toEqual({
      type: "Template",
      name: "Smoke",
      identifier: "smoke",
      template: { templateRef: "smoke_tpl" },
    });
    expect(renderPipelineYaml(parsed, scope)).toBe(RELEASE_YAML);
  });

  it("compares by meaning: the service's reformatted copy is equal, another version label is not", () => {
    const reformatted = RELEASE_YAML.replace(
      `        template:
          templateRef: org.deploy_tpl
          versionLabel: "1"
          templateInputs:
            spec:
              environment:
                environmentRef: prod
            timeout: 10
            type: Deployment
`,
      `        template:
          templateInputs: {timeout: "10", spec: {environment: {environmentRef: prod}}, type: Deployment}
          versionLabel: '1'
          templateRef: org.deploy_tpl
`,
    );
    expect(reformatted).not.toBe(RELEASE_YAML);
    expect(pipelinesEqual(reformatted, release(), scope)).toBe(true);
    expect(pipelinesEqual(parsePipelineYaml(reformatted), release(), scope)).toBe(true);
    const v2 = release();
    (v2.stages![1] as { template: { versionLabel?: string } }).template.versionLabel = "2";
    expect(pipelinesEqual(RELEASE_YAML, v2, scope)).toBe(false);
  });

  it("refuses a bad templateRef, versionLabel and templateInputs, naming each field", () => {
    expect(
      issuesOf(
        withTemplateStage({
          template: { templateRef: "project.deploy", versionLabel: "v 1", templateInputs: [] },
        }),
      ),
    ).toEqual([
      "stages[1].template.templateRef: templateRef must be a template identifier, optionally prefixed with account. or org.",
      "stages[1].template.versionLabel: versionLabel must be 1-64 of the characters 0-9 a-z A-Z _ . -",
      "stages[1].template.templateInputs: templateInputs must be a map",
    ]);
    expect(issuesOf(withTemplateStage({ template: { versionLabel: "1" } }))).toEqual([
      "stages[1].template.templateRef: templateRef is required",
    ]);
    expect(issuesOf(withTemplateStage({ template: { templateRef: "x", ref: "y" } }))).toEqual([
      'stages[1].template.ref: unknown field "ref"',
    ]);
    expect(issuesOf(withTemplateStage({ execution: { steps: [] } }))).toEqual([
      'stages[1].execution: unknown field "execution"',
    ]);
    expect(issuesOf(withTemplateStage({ template: undefined }))).toEqual([
      "stages[1].template: Invalid input: expected object, received undefined",
    ]);
    expect(issuesOf(withTemplateStage({ type: "Pipeline" }))).toEqual([
      'stages[1].type: unknown stage type "Pipeline"; expected one of Deployment, Custom, CI, Approval, Template',
    ]);
  });

  it("keeps stage identifiers unique across template and other stages", () => {
    expect(issuesOf(withTemplateStage({ identifier: "build" }))).toEqual([
      "stages[1].identifier: stage identifier build is already used by stages[0]",
    ]);
  });

  it("is opaque to the step rules: a pipeline of template stages alone is valid", () => {
    const model = { name: "Only", identifier: "only", stages: [release().stages![2]] };
    expect(issuesOf(model)).toEqual([]);
  });

  it("refuses YAML the model cannot represent, naming the YAML path", () => {
    const withType = RELEASE_YAML.replace(
      "        identifier: smoke\n",
      "        identifier: smoke\n        type: Custom\n",
    );
    expect(() => parsePipelineYaml(withType)).toThrow(
      'invalid pipeline YAML: pipeline.stages[2].stage.type: unknown field "type"',
    );
    const badRef = RELEASE_YAML.replace("templateRef: smoke_tpl", "templateRef: project.smoke_tpl");
    expect(() => parsePipelineYaml(badRef)).toThrow(
      "invalid pipeline YAML: pipeline.stages[2].stage.template.templateRef: templateRef must be a template identifier, optionally prefixed with account. or org.",
    );
  });

  it("is read by the walker as a Template stage with the environment its templateInputs give", () => {
    const expected = {
      identifier: "deploy",
      name: "Deploy",
      type: "Template",
      failureStrategies: [],
      steps: [],
      rollbackSteps: [],
      variables: [],
      template: { templateRef: "org.deploy_tpl", versionLabel: "1", type: "Deployment" },
      environmentRef: "prod",
    };
    expect(pipelineViewOfYaml(RELEASE_YAML).stages[1]).toEqual(expected);
    expect(pipelineViewOfModel(release() as unknown as Record<string, unknown>).stages[1]).toEqual(expected);
    expect(pipelineViewOfYaml(RELEASE_YAML).stages[2]).toEqual({
      identifier: "smoke",
      name: "Smoke",
      type: "Template",
      failureStrategies: [],
      steps: [],
      rollbackSteps: [],
      variables: [],
      template: { templateRef: "smoke_tpl" },
      environmentRef: undefined,
    });
  });

  it("renders YAML that check and the emulator's rules accept", () => {
    expect(pipelineYamlProblems(RELEASE_YAML)).toEqual([]);
    expect(validatePipeline(emulatorParse(RELEASE_YAML), scope).identifier).toBe("release");
  });
});

describe("a pipeline made whole from a Pipeline template", () => {
  const YAML_TEXT = `pipeline:
  name: Golden
  identifier: golden_release
  projectIdentifier: payments
  orgIdentifier: default
  tags: {}
  template:
    templateRef: account.golden
    versionLabel: "3"
    templateInputs:
      stages:
        - stage:
            identifier: deploy
            type: Deployment
`;

  it("is raw YAML: the service's rules take it, the typed model (whose stages stay required) does not", () => {
    expect(pipelineYamlProblems(YAML_TEXT)).toEqual([]);
    expect(
      issuesOf({ name: "Golden", identifier: "golden_release", template: { templateRef: "account.golden" } }),
    ).toEqual(["stages: stages must be a list of stages", 'template: unknown field "template"']);
  });

  it("leaves a Pipeline template's own spec requiring its stages", () => {
    const parsed = TemplatePipeline.safeParse({ allowStageExecutions: false });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues.map((i) => [i.path.join("."), i.message])).toEqual([
      ["stages", "stages must be a list of stages"],
    ]);
  });
});
