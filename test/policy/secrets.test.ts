import { describe, expect, it } from "vitest";
import { inlineSecrets, isLiteral, isSecretReference, secretsNotInline } from "../../policy/secrets";
import { nativeToken } from "../../provider/native/kinds";
import { PIPELINE_TYPE, SERVICE_TYPE } from "../../provider/types";
import { PipelineModel, renderPipelineYaml, runtimeInput } from "../../sdk/platform/pipeline";
import { checkedProps, runResourcePolicy } from "./util";

const run = async (type: string, inputs: Record<string, unknown>, as = type) =>
  runResourcePolicy(secretsNotInline, as, await checkedProps(type, inputs));

const FIX =
  'store it in a Secret and reference it with <+secrets.getValue("name")> (or its reference, for a Secret variable)';

/** A typed pipeline (provider/pipeline-model.ts): one Custom stage, one ShellScript step. */
const modelPipeline = (o: { variables?: unknown[]; env?: unknown[]; output?: unknown[] }) => ({
  org: "default",
  project: "payments",
  pipeline: {
    name: "deploy app",
    identifier: "deploy_app",
    variables: o.variables ?? [],
    stages: [
      {
        type: "Custom",
        name: "prod",
        identifier: "prod",
        execution: {
          steps: [
            {
              type: "ShellScript",
              name: "smoke",
              identifier: "smoke",
              script: "echo ok",
              environmentVariables: o.env ?? [],
              outputVariables: o.output ?? [],
            },
          ],
        },
      },
    ],
  },
});

describe("secrets-not-inline: what counts", () => {
  it("takes references and expressions as references, and anything written out as a literal", () => {
    expect(
      ["db_pw", "org.db_pw", "account.db_pw", '<+secrets.getValue("db_pw")>', "<+input>"].map(
        isSecretReference,
      ),
    ).toEqual([true, true, true, true, true]);
    expect(["hunter2!", "p@ss word", "", 1234].map(isSecretReference)).toEqual([false, false, false, false]);
    expect(['<+secrets.getValue("x")>', "", " ", { $input: {} }, "s3cr3t", 1234].map(isLiteral)).toEqual([
      false,
      false,
      false,
      false,
      true,
      true,
    ]);
  });

  it("finds fields named like a secret anywhere, but not refs, output variables or tags", () => {
    const doc = {
      service: {
        tags: { token: "team-a" },
        spec: {
          auth: {
            username: "ci",
            password: "hunter2",
            passwordRef: "account.pw",
            apiKey: '<+secrets.getValue("k")>',
          },
          outputVariables: [{ name: "TOKEN", type: "String", value: "TOKEN" }],
          clientSecret: 12345,
        },
      },
    };
    expect(inlineSecrets(doc, "yaml")).toEqual([
      { path: "yaml.service.spec.auth.password", what: "field password holds a literal value" },
      { path: "yaml.service.spec.clientSecret", what: "field clientSecret holds a literal value" },
    ]);
  });
});

describe("secrets-not-inline on pipelines", () => {
  it("passes Secret variables holding references and secret-named variables holding expressions", async () => {
    const inputs = modelPipeline({
      variables: [
        { name: "db_password", type: "Secret", value: "account.db_pw" },
        { name: "deploy_key", type: "Secret", value: runtimeInput() },
        { name: "empty_secret", type: "Secret", value: "" },
        { name: "api_token", type: "String", value: '<+secrets.getValue("api_token")>' },
        { name: "region", type: "String", value: "eu-west-1" },
      ],
      env: [{ name: "GITHUB_TOKEN", type: "Secret", value: '<+secrets.getValue("gh")>' }],
      output: [{ name: "TOKEN", type: "String", value: "TOKEN" }],
    });
    expect(await run(PIPELINE_TYPE, inputs)).toEqual([]);
  });

  it("reports a Secret variable with a value, and secret-named variables with literals, in the typed model", async () => {
    const inputs = modelPipeline({
      variables: [
        { name: "db_password", type: "Secret", value: "hunter2!" },
        { name: "api_token", type: "String", value: "abc123" },
      ],
      env: [{ name: "DB_PASSWORD", value: "hunter2hunter2" }],
    });
    expect(await run(PIPELINE_TYPE, inputs)).toEqual([
      `pipeline "deploy_app": pipeline.variables[0]: Secret variable db_password holds a value, not a secret reference; ${FIX}`,
      `pipeline "deploy_app": pipeline.variables[1]: variable api_token is named like a secret and holds a literal value; ${FIX}`,
      `pipeline "deploy_app": pipeline.stages[0].execution.steps[0].environmentVariables[0]: variable DB_PASSWORD is named like a secret and holds a literal value; ${FIX}`,
    ]);
  });

  it("reports the same in pipeline YAML (the model rendered), on the native token too", async () => {
    const { org, project, pipeline } = modelPipeline({
      variables: [
        { name: "db_password", type: "Secret", value: "hunter 2" },
        { name: "db_user", type: "String", value: "admin" },
      ],
      env: [{ name: "API_KEY", type: "String", value: '<+secrets.getValue("api_key")>' }],
    });
    const inputs = {
      org,
      project,
      yaml: renderPipelineYaml(PipelineModel.parse(pipeline), { org, project }),
    };
    const expected = [
      `pipeline "deploy_app": yaml.pipeline.variables[0]: Secret variable db_password holds a value, not a secret reference; ${FIX}`,
    ];
    expect(await run(PIPELINE_TYPE, inputs)).toEqual(expected);
    expect(nativeToken(PIPELINE_TYPE)).toBe("flagstack:index:Pipeline");
    expect(await run(PIPELINE_TYPE, inputs, nativeToken(PIPELINE_TYPE))).toEqual(expected);
  });
});

describe("secrets-not-inline on services", () => {
  const service = (definition: Record<string, unknown>) => ({
    org: "default",
    project: "payments",
    identifier: "checkout",
    name: "Checkout",
    ...definition,
  });

  it("passes a typed service whose Secret variables hold references", async () => {
    const inputs = service({
      kubernetes: {
        variables: [
          { name: "db_password", type: "Secret", value: "org.db_pw" },
          { name: "replicas", type: "Number", value: 3 },
        ],
      },
    });
    expect(await run(SERVICE_TYPE, inputs)).toEqual([]);
  });

  it("reports inline values in a typed service's variables and artifact specs", async () => {
    const inputs = service({
      kubernetes: {
        artifacts: {
          primaryArtifactRef: "image",
          sources: [
            {
              identifier: "image",
              type: "DockerRegistry",
              spec: {
                connectorRef: "dockerhub",
                imagePath: "acme/checkout",
                tag: "latest",
                token: "dckr_pat_abc",
              },
            },
          ],
        },
        variables: [{ name: "db_password", type: "Secret", value: 123456 }],
      },
    });
    expect(await run(SERVICE_TYPE, inputs)).toEqual([
      `service "checkout": kubernetes.artifacts.sources[0].spec.token: field token holds a literal value; ${FIX}`,
      `service "checkout": kubernetes.variables[0]: Secret variable db_password holds a value, not a secret reference; ${FIX}`,
    ]);
  });

  it("reports a literal in service YAML, on the native token too", async () => {
    const yaml = `
service:
  serviceDefinition:
    type: NativeHelm
    spec:
      variables:
        - name: REDIS_PASSWORD
          type: String
          value: redis-pw-1
`;
    const expected = [
      `service "checkout": yaml.service.serviceDefinition.spec.variables[0]: variable REDIS_PASSWORD is named like a secret and holds a literal value; ${FIX}`,
    ];
    expect(await run(SERVICE_TYPE, service({ yaml }))).toEqual(expected);
    expect(await run(SERVICE_TYPE, service({ yaml }), nativeToken(SERVICE_TYPE))).toEqual(expected);
  });
});
