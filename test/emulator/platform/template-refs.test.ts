/**
 * Template references in pipelines (`emulator/platform/template-refs.ts`): a save naming no
 * template version is refused as the service refuses it (400 TEMPLATE_EXCEPTION, harness-core
 * `TemplateMergeServiceHelper`), on the v0 and the v1 API, create and update; a read that asks for
 * it gets the pipeline with each reference replaced by its template's spec, the `<+input>` fields
 * given by `templateInputs` (v0 `resolvedTemplatesPipelineYaml`, v1 `template_applied_pipeline_yaml`).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Call, type CallInit, errorBody, type HttpPlatform, startPlatform } from "./harness";

let platform: HttpPlatform;
let call: Call;

const SCOPE = { orgIdentifier: "default", projectIdentifier: "tpl" };
const V1 = "/v1/orgs/default/projects/tpl";

/** One v1 request as the Terraform provider's Go client sends it. */
const tf: Call = (method, path, init: CallInit = {}) =>
  platform.call(method, path, {
    account: false,
    ...init,
    headers: { "Harness-Account": platform.emu.accountId, accept: "application/json", ...init.headers },
  });

/** A Stage template: a Custom stage with one shell step whose script is `script`. */
const stageTemplate = (identifier: string, version: string, scope: string, script: string) => `template:
  name: ${identifier}
  identifier: ${identifier}
  versionLabel: "${version}"
  type: Stage
${scope}  spec:
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
                    script: ${script}
              timeout: <+input>
    failureStrategies: []
`;

const PIPELINE = `pipeline:
  name: Release
  identifier: release
  orgIdentifier: default
  projectIdentifier: tpl
  stages:
    - stage:
        name: Deploy
        identifier: deploy
        description: to prod
        template:
          templateRef: deploy_tpl
          versionLabel: v2
          templateInputs:
            type: Custom
            spec:
              execution:
                steps:
                  - step:
                      identifier: echo
                      type: ShellScript
                      spec:
                        shell: PowerShell
                        source:
                          spec:
                            script: echo v2
                      timeout: 5m
    - parallel:
        - stage:
            name: Org
            identifier: org_stage
            template:
              templateRef: org.shared
        - stage:
            name: Account
            identifier: account_stage
            template:
              templateRef: account.shared
              versionLabel: "1"
`;

/** The resolved stage's members after name, identifier (and description). */
const resolvedMembers = (indent: string, script: string, timeout: string) =>
  `type: Custom
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
                script: ${script}
          timeout: ${timeout}
failureStrategies: []
`
    .split("\n")
    .map((line) => (line === "" ? line : `${indent}${line}`))
    .join("\n");

const RESOLVED = `pipeline:
  name: Release
  identifier: release
  orgIdentifier: default
  projectIdentifier: tpl
  stages:
    - stage:
        name: Deploy
        identifier: deploy
        description: to prod
${resolvedMembers("        ", "echo v2", "5m")}    - parallel:
        - stage:
            name: Org
            identifier: org_stage
${resolvedMembers("            ", "echo org", "<+input>")}        - stage:
            name: Account
            identifier: account_stage
${resolvedMembers("            ", "echo account", "<+input>")}`;

/** An account-level Pipeline template: one Custom stage whose script is a runtime input. */
const GOLDEN = `template:
  name: Golden
  identifier: golden
  versionLabel: "1"
  type: Pipeline
  spec:
    allowStageExecutions: true
    stages:
      - stage:
          name: Ship
          identifier: ship
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
                          script: <+input>
                    timeout: 10m
`;

const v1Body = (yaml: string) => ({
  pipeline_yaml: yaml,
  identifier: "release_v1",
  name: "Release",
  git_details: { store_type: "INLINE" },
});

beforeAll(async () => {
  platform = await startPlatform();
  call = platform.call;
  const project = { project: { identifier: "tpl", name: "Templates" } };
  expect((await call("POST", "/ng/api/projects", { json: project })).status).toBe(200);
  const templates: [string, string][] = [
    [
      `${V1}/templates`,
      stageTemplate("deploy_tpl", "v1", "  orgIdentifier: default\n  projectIdentifier: tpl\n", "echo v1"),
    ],
    [
      `${V1}/templates`,
      stageTemplate("deploy_tpl", "v2", "  orgIdentifier: default\n  projectIdentifier: tpl\n", "<+input>"),
    ],
    ["/v1/orgs/default/templates", stageTemplate("shared", "1", "  orgIdentifier: default\n", "echo org")],
    ["/v1/orgs/default/templates", stageTemplate("shared", "2", "  orgIdentifier: default\n", "echo org v2")],
    ["/v1/templates", stageTemplate("shared", "1", "", "echo account")],
    ["/v1/templates", GOLDEN],
  ];
  for (const [path, template_yaml] of templates)
    expect((await tf("POST", path, { json: { template_yaml } })).status).toBe(201);
});
afterAll(async () => {
  await platform.emu.stop();
});

describe("template references on save", () => {
  it("accept a reference to a version in the pipeline's project, its organization and the account", async () => {
    const made = await call("POST", "/pipeline/api/pipelines/v2", { yaml: PIPELINE, query: SCOPE });
    expect(made.status).toBe(200);
    const v1 = await tf("POST", `${V1}/pipelines`, {
      json: v1Body(PIPELINE.replace("identifier: release\n", "identifier: release_v1\n")),
    });
    expect(v1.status).toBe(201);
  });

  it.each([
    [
      "an unknown template",
      "templateRef: deploy_tpl\n          versionLabel: v2",
      "templateRef: nope",
      "nope",
      "",
    ],
    ["an unknown version", "versionLabel: v2", "versionLabel: v3", "deploy_tpl", "v3"],
    [
      "a project template named at org level",
      "templateRef: deploy_tpl",
      "templateRef: org.deploy_tpl",
      "deploy_tpl",
      "v2",
    ],
    [
      "an org version the account lacks",
      'templateRef: account.shared\n              versionLabel: "1"',
      'templateRef: account.shared\n              versionLabel: "2"',
      "shared",
      "2",
    ],
  ])(
    "refuse %s with 400 TEMPLATE_EXCEPTION, on v0 and v1, create and update",
    async (_what, from, to, id, version) => {
      const yaml = PIPELINE.replace(from, to);
      expect(yaml).not.toBe(PIPELINE);
      const refusal = errorBody(
        "TEMPLATE_EXCEPTION",
        `Template with template ID ${id} and version ${version} not found.`,
      );
      const create = await call("POST", "/pipeline/api/pipelines/v2", {
        yaml: yaml.replace("identifier: release\n", "identifier: other\n"),
        query: SCOPE,
      });
      expect([create.status, create.body]).toEqual([400, refusal]);
      const update = await call("PUT", "/pipeline/api/pipelines/v2/release", { yaml, query: SCOPE });
      expect([update.status, update.body]).toEqual([400, refusal]);
      const v1Yaml = yaml.replace("identifier: release\n", "identifier: release_v1\n");
      const v1Create = await tf("POST", `${V1}/pipelines`, {
        json: {
          ...v1Body(v1Yaml.replace("identifier: release_v1\n", "identifier: other_v1\n")),
          identifier: "other_v1",
        },
      });
      expect([v1Create.status, v1Create.body.code, v1Create.body.message]).toEqual([
        400,
        refusal.code,
        refusal.message,
      ]);
      const v1Update = await tf("PUT", `${V1}/pipelines/release_v1`, { json: v1Body(v1Yaml) });
      expect([v1Update.status, v1Update.body.code, v1Update.body.message]).toEqual([
        400,
        refusal.code,
        refusal.message,
      ]);
      const kept = await call("GET", "/pipeline/api/pipelines/release", { query: SCOPE });
      expect(kept.body.data.yamlPipeline).toBe(PIPELINE);
    },
  );
});

describe("templates applied on read", () => {
  it("v0: resolvedTemplatesPipelineYaml with getTemplatesResolvedPipeline=true, none without", async () => {
    const resolved = await call("GET", "/pipeline/api/pipelines/release", {
      query: { ...SCOPE, getTemplatesResolvedPipeline: "true" },
    });
    expect(resolved.body.data.yamlPipeline).toBe(PIPELINE);
    expect(resolved.body.data.resolvedTemplatesPipelineYaml).toBe(RESOLVED);
    const plain = await call("GET", "/pipeline/api/pipelines/release", { query: SCOPE });
    expect(Object.keys(plain.body.data)).toEqual([
      "yamlPipeline",
      "entityValidityDetails",
      "modules",
      "storeType",
    ]);
  });

  it("v1: template_applied_pipeline_yaml with template_applied=true", async () => {
    const read = await tf("GET", `${V1}/pipelines/release_v1`, { query: { template_applied: "true" } });
    expect(read.body.template_applied_pipeline_yaml).toBe(
      RESOLVED.replace("identifier: release\n", "identifier: release_v1\n"),
    );
  });

  it("the stable version when no versionLabel is given: the one made stable last", async () => {
    const stable = await tf("PUT", "/v1/orgs/default/templates/shared/versions/2/stable", { json: {} });
    expect(stable.status).toBe(200);
    const read = await call("GET", "/pipeline/api/pipelines/release", {
      query: { ...SCOPE, getTemplatesResolvedPipeline: "true" },
    });
    expect(read.body.data.resolvedTemplatesPipelineYaml).toBe(
      RESOLVED.replace("echo org\n", "echo org v2\n"),
    );
  });
});

describe("a pipeline made from a Pipeline template", () => {
  const FROM_GOLDEN = `pipeline:
  name: From golden
  identifier: from_golden
  orgIdentifier: default
  projectIdentifier: tpl
  allowStageExecutions: false
  template:
    templateRef: account.golden
    versionLabel: "1"
    templateInputs:
      stages:
        - stage:
            identifier: ship
            type: Custom
            spec:
              execution:
                steps:
                  - step:
                      identifier: echo
                      type: ShellScript
                      spec:
                        source:
                          spec:
                            script: echo golden
  tags: {}
`;

  it("is saved, and read with the template's members in place of template", async () => {
    const made = await call("POST", "/pipeline/api/pipelines/v2", { yaml: FROM_GOLDEN, query: SCOPE });
    expect(made.status).toBe(200);
    const read = await call("GET", "/pipeline/api/pipelines/from_golden", {
      query: { ...SCOPE, getTemplatesResolvedPipeline: "true" },
    });
    expect(read.body.data.resolvedTemplatesPipelineYaml).toBe(`pipeline:
  name: From golden
  identifier: from_golden
  orgIdentifier: default
  projectIdentifier: tpl
  allowStageExecutions: true
  stages:
    - stage:
        name: Ship
        identifier: ship
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
                        script: echo golden
                  timeout: 10m
  tags: {}
`);
  });

  it("is refused when the template version does not exist", async () => {
    const res = await call("POST", "/pipeline/api/pipelines/v2", {
      yaml: FROM_GOLDEN.replace('versionLabel: "1"', 'versionLabel: "2"'),
      query: SCOPE,
    });
    expect([res.status, res.body]).toEqual([
      400,
      errorBody("TEMPLATE_EXCEPTION", "Template with template ID golden and version 2 not found."),
    ]);
  });
});
