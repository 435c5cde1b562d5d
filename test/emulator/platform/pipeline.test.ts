/**
 * Conformance of the platform API's YAML pipelines (spec §2 "Pipeline", §4; ref §6.2, §7) over HTTP.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { renderPipelineYaml } from "../../../sdk/platform/pipeline";
import {
  type Call,
  errorBody,
  failureBody,
  type HttpPlatform,
  simplePipeline,
  startPlatform,
  successBody,
  validationBody,
} from "./harness";

let platform: HttpPlatform;
let call: Call;

const SCOPE = { orgIdentifier: "default", projectIdentifier: "delivery" };

beforeAll(async () => {
  platform = await startPlatform();
  call = platform.call;
  // The account-level Stage template the "a stage template instead of type and spec" case uses:
  // a reference to no template version is refused (`emulator/platform/template-refs.ts`).
  const template = `template:\n  name: tpl\n  identifier: tpl\n  versionLabel: "1"\n  type: Stage\n  spec:\n    type: Custom\n    spec: {}\n`;
  const made = await call("POST", "/v1/templates", {
    account: false,
    headers: { "Harness-Account": platform.emu.accountId },
    json: { template_yaml: template },
  });
  expect(made.status).toBe(201);
  for (const identifier of ["delivery", "other"]) {
    expect(
      (await call("POST", "/ng/api/projects", { json: { project: { identifier, name: identifier } } }))
        .status,
    ).toBe(200);
  }
});
afterAll(async () => {
  await platform.emu.stop();
});

const create = (yaml: string, query: Record<string, string | undefined> = SCOPE, contentType?: string) =>
  call("POST", "/pipeline/api/pipelines/v2", { yaml, query, ...(contentType ? { contentType } : {}) });
const get = (id: string, query: Record<string, string | undefined> = SCOPE) =>
  call("GET", `/pipeline/api/pipelines/${id}`, { query });

/** The spec's pipeline (spec §2): a Deployment stage with a ShellScript step, as written by hand. */
const SPEC_PIPELINE = `# deploys the web tier
pipeline:
  name: Deploy web
  identifier: deploy_web
  allowStageExecutions: false
  projectIdentifier: delivery
  orgIdentifier: default
  tags:
    team: web
    keyonly: ""
  stages:
    - stage:
        name: Deploy
        identifier: deploy
        description: ""
        type: Deployment
        spec:
          serviceConfig:
            serviceRef: web
            serviceDefinition:
              spec:
                variables: []
              type: Kubernetes
          infrastructure:
            environmentRef: prod
            infrastructureDefinition:
              type: KubernetesDirect
              spec:
                connectorRef: <+input>
                namespace: web
                releaseName: release-<+INFRA_KEY>
                allowSimultaneousDeployments: false
            allowSimultaneousDeployments: false
          execution:
            steps:
              - step:
                  name: Say hello
                  identifier: say_hello
                  type: ShellScript
                  spec:
                    shell: Bash
                    onDelegate: true
                    source:
                      type: Inline
                      spec:
                        script: echo <+pipeline.name>
                    environmentVariables: []
                    outputVariables: []
                    executionTarget: {}
                  timeout: 10m
            rollbackSteps: []
        tags: {}
        failureStrategies:
          - onFailure:
              errors:
                - AllErrors
              action:
                type: StageRollback
`;

describe("POST /pipeline/api/pipelines/v2", () => {
  it("creates the spec's pipeline and answers {identifier, governanceMetadata}", async () => {
    const res = await create(SPEC_PIPELINE);
    expect(res.status).toBe(200);
    expect(res.headers.get("etag")).toBe("W/0");
    expect(res.body).toEqual(successBody({ identifier: "deploy_web", governanceMetadata: { deny: false } }));
  });

  it("accepts a raw YAML body sent as application/json (the Go SDK's quirk)", async () => {
    const res = await create(simplePipeline("json_typed", "delivery"), SCOPE, "application/json");
    expect(res.status).toBe(200);
    expect(res.body.data.identifier).toBe("json_typed");
    expect((await get("json_typed")).body.data.yamlPipeline).toBe(simplePipeline("json_typed", "delivery"));
  });

  it("answers 415 for another media type", async () => {
    const res = await create(simplePipeline("texty", "delivery"), SCOPE, "text/plain");
    expect(res.status).toBe(415);
    expect(res.body).toEqual(failureBody("MEDIA_NOT_SUPPORTED", "HTTP 415 Unsupported Media Type"));
  });

  it.each<[string, Record<string, string | undefined>, [string, string][]]>([
    ["orgIdentifier", { projectIdentifier: "delivery" }, [["orgIdentifier", "must not be null"]]],
    ["projectIdentifier", { orgIdentifier: "default" }, [["projectIdentifier", "must not be null"]]],
    [
      "both scope parameters",
      {},
      [
        ["orgIdentifier", "must not be null"],
        ["projectIdentifier", "must not be null"],
      ],
    ],
  ])("requires %s in the query", async (_label, query, violations) => {
    const res = await create(simplePipeline("q", "delivery"), query);
    expect(res.status).toBe(400);
    expect(res.body).toEqual(validationBody(violations));
  });

  it("answers 404 when the project does not exist", async () => {
    const res = await create(simplePipeline("p", "ghost"), {
      orgIdentifier: "default",
      projectIdentifier: "ghost",
    });
    expect(res.status).toBe(404);
    expect(res.body).toEqual(
      errorBody("ENTITY_NOT_FOUND", "Project with orgIdentifier [default] and identifier [ghost] not found"),
    );
  });

  it("refuses a duplicate with DUPLICATE_FIELD", async () => {
    expect((await create(simplePipeline("twice", "delivery"))).status).toBe(200);
    const res = await create(simplePipeline("twice", "delivery"));
    expect(res.status).toBe(400);
    expect(res.body).toEqual(
      errorBody(
        "DUPLICATE_FIELD",
        "Pipeline [twice] under Project[delivery], Organization [default] already exists or has been deleted.",
      ),
    );
  });

  it("allows the same identifier in another project", async () => {
    expect((await create(simplePipeline("everywhere", "delivery"))).status).toBe(200);
    const res = await create(simplePipeline("everywhere", "other"), {
      orgIdentifier: "default",
      projectIdentifier: "other",
    });
    expect(res.status).toBe(200);
  });

  it.each<[string, string, string]>([
    ["an empty body", "", "Invalid yaml: the request body is empty"],
    [
      "duplicate keys",
      "pipeline:\n  name: a\n  name: b\n",
      "Invalid yaml: duplicate key [name] at line 3, column 3",
    ],
    [
      "an unclosed flow sequence",
      "pipeline:\n  stages: [a\n",
      "Invalid yaml: Flow sequence in block collection must be sufficiently indented and end with a ] at line 3, column 1",
    ],
    [
      "several documents",
      "pipeline: {}\n---\npipeline: {}\n",
      "Invalid yaml: Source contains multiple documents; please use YAML.parseAllDocuments() at line 2, column 1",
    ],
  ])("answers 400 INVALID_YAML_ERROR for %s", async (_label, yaml, message) => {
    const res = await create(yaml);
    expect(res.status).toBe(400);
    expect(res.body).toEqual(errorBody("INVALID_YAML_ERROR", message));
  });

  it("refuses a runtime-input pipeline identifier with INVALID_REQUEST", async () => {
    const res = await create(simplePipeline("<+input>", "delivery"));
    expect(res.status).toBe(400);
    expect(res.body).toEqual(errorBody("INVALID_REQUEST", "Pipeline identifier cannot be runtime input"));
  });

  it("reports schema errors in the ErrorDTO shape with metadata.schemaErrors", async () => {
    const yaml = simplePipeline("bad_scope", "other").replace("timeout: 10m", "timeout: 10");
    const res = await create(yaml);
    expect(res.status).toBe(400);
    const stageInfo = { identifier: "build", name: "build", type: "Custom" };
    const stepInfo = { identifier: "hello", name: "hello", type: "ShellScript" };
    const schemaErrors = [
      {
        message: "$.pipeline.projectIdentifier: must be a constant value delivery",
        stageInfo: null,
        stepInfo: null,
        fqn: "$.pipeline.projectIdentifier",
        hintMessage: null,
      },
      {
        // YAML reads a bare 10 as an integer.
        message:
          "$.pipeline.stages[0].stage.spec.execution.steps[0].step.timeout: integer found, string expected",
        stageInfo,
        stepInfo,
        fqn: "$.pipeline.stages[0].stage.spec.execution.steps[0].step.timeout",
        hintMessage: null,
      },
    ];
    expect(res.body).toEqual(
      errorBody(
        "SCHEMA_VALIDATION_FAILED",
        `Invalid yaml: ${schemaErrors.map((e) => e.message).join("; ")}`,
        { schemaErrors },
      ),
    );
  });

  /** The spec pipeline as an object, for mutation. */
  // biome-ignore lint/suspicious/noExplicitAny: free-form YAML tree.
  const base = (): any => ({
    pipeline: {
      name: "Mutated",
      identifier: "mutated",
      orgIdentifier: "default",
      projectIdentifier: "delivery",
      stages: [
        {
          stage: {
            name: "One",
            identifier: "one",
            type: "Custom",
            spec: {
              execution: {
                steps: [
                  {
                    step: {
                      name: "Run",
                      identifier: "run",
                      type: "ShellScript",
                      timeout: "1h30m",
                      spec: { shell: "Bash", source: { type: "Inline", spec: { script: "true" } } },
                    },
                  },
                ],
              },
            },
          },
        },
      ],
    },
  });
  const S0 = "$.pipeline.stages[0].stage";
  const STEP0 = `${S0}.spec.execution.steps[0].step`;
  // biome-ignore lint/suspicious/noExplicitAny: free-form YAML tree.
  it.each<[string, (p: any) => void, string[]]>([
    ["a missing pipeline key", (p) => delete p.pipeline, ["$.pipeline: is missing but it is required"]],
    [
      "a pipeline that is not a map",
      (p) => (p.pipeline = "x"),
      ["$.pipeline: string found, object expected"],
    ],
    [
      "a missing identifier",
      (p) => delete p.pipeline.identifier,
      ["$.pipeline.identifier: is missing but it is required"],
    ],
    ["a missing name", (p) => delete p.pipeline.name, ["$.pipeline.name: is missing but it is required"]],
    [
      "a numeric identifier",
      (p) => (p.pipeline.identifier = 42),
      ["$.pipeline.identifier: integer found, string expected"],
    ],
    [
      "an identifier with a hyphen",
      (p) => (p.pipeline.identifier = "my-pipe"),
      ["$.pipeline.identifier: does not match the regex pattern ^[a-zA-Z_][0-9a-zA-Z_$]{0,127}$"],
    ],
    [
      "a reserved identifier",
      (p) => (p.pipeline.identifier = "stepGroup"),
      ["$.pipeline.identifier: stepGroup is a keyword, so cannot be used"],
    ],
    [
      "a name of 129 characters",
      (p) => (p.pipeline.name = "n".repeat(129)),
      ["$.pipeline.name: does not match the regex pattern ^[a-zA-Z_0-9-.][-0-9a-zA-Z_\\s.]{0,127}$"],
    ],
    [
      "a missing orgIdentifier",
      (p) => delete p.pipeline.orgIdentifier,
      ["$.pipeline.orgIdentifier: is missing but it is required"],
    ],
    [
      "another orgIdentifier",
      (p) => (p.pipeline.orgIdentifier = "acme"),
      ["$.pipeline.orgIdentifier: must be a constant value default"],
    ],
    [
      "a missing projectIdentifier",
      (p) => delete p.pipeline.projectIdentifier,
      ["$.pipeline.projectIdentifier: is missing but it is required"],
    ],
    ["missing stages", (p) => delete p.pipeline.stages, ["$.pipeline.stages: is missing but it is required"]],
    [
      "empty stages",
      (p) => (p.pipeline.stages = []),
      ["$.pipeline.stages: there must be a minimum of 1 items in the array"],
    ],
    [
      "a stage without identifier, name, type and spec",
      (p) => (p.pipeline.stages[0].stage = {}),
      [
        `${S0}.identifier: is missing but it is required`,
        `${S0}.name: is missing but it is required`,
        `${S0}.type: is missing but it is required`,
        `${S0}.spec: is missing but it is required`,
      ],
    ],
    [
      "a stage element with neither stage nor parallel",
      (p) => (p.pipeline.stages[0] = { step: {} }),
      ["$.pipeline.stages[0]: must have exactly one of stage, parallel"],
    ],
    [
      "a Custom stage without execution",
      (p) => (p.pipeline.stages[0].stage.spec = {}),
      [`${S0}.spec.execution: is missing but it is required`],
    ],
    [
      "an execution without steps",
      (p) => (p.pipeline.stages[0].stage.spec.execution.steps = []),
      [`${S0}.spec.execution.steps: there must be a minimum of 1 items in the array`],
    ],
    [
      "two stages with one identifier",
      (p) => p.pipeline.stages.push({ parallel: [structuredClone(p.pipeline.stages[0])] }),
      [
        "$.pipeline.stages[1].parallel[0].stage.identifier: duplicate stage identifier [one]; stage identifiers must be unique within the pipeline",
      ],
    ],
    [
      "two steps with one identifier in a stage, across a step group",
      (p) =>
        p.pipeline.stages[0].stage.spec.execution.steps.push({
          stepGroup: {
            name: "G",
            identifier: "g",
            steps: [structuredClone(p.pipeline.stages[0].stage.spec.execution.steps[0])],
          },
        }),
      [
        `${S0}.spec.execution.steps[1].stepGroup.steps[0].step.identifier: duplicate step identifier [run]; step identifiers must be unique within the stage`,
      ],
    ],
    [
      "a step without spec",
      (p) => delete p.pipeline.stages[0].stage.spec.execution.steps[0].step.spec,
      [`${STEP0}.spec: is missing but it is required`],
    ],
    [
      "a ShellScript step without shell and source",
      (p) => (p.pipeline.stages[0].stage.spec.execution.steps[0].step.spec = {}),
      [
        `${STEP0}.spec.shell: is missing but it is required`,
        `${STEP0}.spec.source: is missing but it is required`,
      ],
    ],
    [
      "an unknown shell",
      (p) => (p.pipeline.stages[0].stage.spec.execution.steps[0].step.spec.shell = "Zsh"),
      [`${STEP0}.spec.shell: does not have a value in the enumeration [Bash, PowerShell]`],
    ],
    [
      "an Inline source without script",
      (p) => (p.pipeline.stages[0].stage.spec.execution.steps[0].step.spec.source.spec = {}),
      [`${STEP0}.spec.source.spec.script: is missing but it is required`],
    ],
    [
      "an onDelegate that is not a boolean",
      (p) => (p.pipeline.stages[0].stage.spec.execution.steps[0].step.spec.onDelegate = "yes"),
      [`${STEP0}.spec.onDelegate: string found, boolean expected`],
    ],
    [
      "a timeout without a unit",
      (p) => (p.pipeline.stages[0].stage.spec.execution.steps[0].step.timeout = "90"),
      [`${STEP0}.timeout: "90" is not a duration such as 10m, 1h30m or 30s`],
    ],
    [
      "a zero timeout",
      (p) => (p.pipeline.stages[0].stage.spec.execution.steps[0].step.timeout = "0m"),
      [`${STEP0}.timeout: "0m" is not a duration such as 10m, 1h30m or 30s`],
    ],
    [
      "a timeout naming a unit twice",
      (p) => (p.pipeline.stages[0].stage.spec.execution.steps[0].step.timeout = "10m10m"),
      [`${STEP0}.timeout: "10m10m" is not a duration such as 10m, 1h30m or 30s`],
    ],
    [
      "a stage named build/test",
      (p) => (p.pipeline.stages[0].stage.name = "build/test"),
      [`${S0}.name: does not match the regex pattern ^[a-zA-Z_0-9-.][-0-9a-zA-Z_\\s.]{0,127}$`],
    ],
    [
      "a step identifier with a slash",
      (p) => (p.pipeline.stages[0].stage.spec.execution.steps[0].step.identifier = "build/test"),
      [`${STEP0}.identifier: does not match the regex pattern ^[a-zA-Z_][0-9a-zA-Z_$]{0,127}$`],
    ],
  ])("refuses %s with SCHEMA_VALIDATION_FAILED naming the field", async (_label, mutate, messages) => {
    const doc = base();
    mutate(doc);
    const res = await create(stringify(doc));
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("SCHEMA_VALIDATION_FAILED");
    expect(res.body.metadata.schemaErrors.map((e: { message: string }) => e.message)).toEqual(messages);
    expect(res.body.message).toBe(`Invalid yaml: ${messages.join("; ")}`);
  });

  // biome-ignore lint/suspicious/noExplicitAny: free-form YAML tree.
  it.each<[string, (p: any) => void]>([
    ["timeout 30s", (p) => (p.pipeline.stages[0].stage.spec.execution.steps[0].step.timeout = "30s")],
    ["timeout 1h 30m", (p) => (p.pipeline.stages[0].stage.spec.execution.steps[0].step.timeout = "1h 30m")],
    [
      "a runtime-input timeout",
      (p) => (p.pipeline.stages[0].stage.spec.execution.steps[0].step.timeout = "<+input>"),
    ],
    [
      "a runtime-input timeout with a default",
      (p) => (p.pipeline.stages[0].stage.spec.execution.steps[0].step.timeout = "<+input>.default(10m)"),
    ],
    [
      "a stage name with digits first, dots and a trailing space",
      (p) => (p.pipeline.stages[0].stage.name = "1st stage.v2 "),
    ],
    [
      "an expression timeout",
      (p) => (p.pipeline.stages[0].stage.spec.execution.steps[0].step.timeout = "<+pipeline.variables.t>"),
    ],
    [
      "a runtime-input shell with a default",
      (p) => (p.pipeline.stages[0].stage.spec.execution.steps[0].step.spec.shell = "<+input>.default(Bash)"),
    ],
    [
      "a runtime-input onDelegate",
      (p) => (p.pipeline.stages[0].stage.spec.execution.steps[0].step.spec.onDelegate = "<+input>"),
    ],
    ["a runtime-input allowStageExecutions", (p) => (p.pipeline.allowStageExecutions = "<+input>")],
    [
      "a runtime-input script",
      (p) => (p.pipeline.stages[0].stage.spec.execution.steps[0].step.spec.source.spec.script = "<+input>"),
    ],
    [
      "a stage template instead of type and spec",
      (p) =>
        (p.pipeline.stages[0].stage = {
          name: "T",
          identifier: "t",
          template: { templateRef: "account.tpl", versionLabel: "1" },
        }),
    ],
    [
      "a stage type the emulator does not know",
      (p) =>
        (p.pipeline.stages[0].stage = {
          name: "C",
          identifier: "c",
          type: "Pipeline",
          spec: { org: "default" },
        }),
    ],
    ["parallel stages", (p) => (p.pipeline.stages = [{ parallel: [p.pipeline.stages[0]] }])],
    [
      "a step type other than ShellScript",
      (p) =>
        (p.pipeline.stages[0].stage.spec.execution.steps[0].step = {
          name: "Wait",
          identifier: "wait",
          type: "Wait",
          spec: { duration: "1m" },
        }),
    ],
  ])("accepts %s", async (label, mutate) => {
    const doc = base();
    mutate(doc);
    doc.pipeline.identifier = `ok_${label.replace(/[^a-z0-9]/gi, "_")}`;
    const res = await create(stringify(doc));
    expect(res.body).toEqual(
      successBody({ identifier: doc.pipeline.identifier, governanceMetadata: { deny: false } }),
    );
  });
});

describe("GET /pipeline/api/pipelines/{identifier}", () => {
  it("returns the stored YAML verbatim with validity, modules and store type", async () => {
    const res = await get("deploy_web");
    expect(res.status).toBe(200);
    expect(res.headers.get("etag")).toBe("W/0");
    expect(res.body).toEqual(
      successBody({
        yamlPipeline: SPEC_PIPELINE,
        entityValidityDetails: { valid: true },
        modules: ["cd", "pms"],
        storeType: "INLINE",
      }),
    );
  });

  it("answers 304 to a matching If-None-Match", async () => {
    const res = await call("GET", "/pipeline/api/pipelines/deploy_web", {
      query: SCOPE,
      headers: { "if-none-match": "W/0" },
    });
    expect(res.status).toBe(304);
  });

  it("answers 404 ENTITY_NOT_FOUND for a missing pipeline, also in another project", async () => {
    const res = await get("nope");
    expect(res.status).toBe(404);
    expect(res.body).toEqual(
      errorBody(
        "ENTITY_NOT_FOUND",
        "Pipeline [nope] under Project[delivery], Organization [default] doesn't exist or has been deleted.",
      ),
    );
    const elsewhere = await get("deploy_web", { orgIdentifier: "default", projectIdentifier: "other" });
    expect(elsewhere.status).toBe(404);
  });
});

describe("PUT /pipeline/api/pipelines/v2/{identifier}", () => {
  it("replaces the YAML and moves the version", async () => {
    expect((await create(simplePipeline("evolving", "delivery"))).status).toBe(200);
    const next = simplePipeline("evolving", "delivery").replace("echo hello", "echo bye");
    const res = await call("PUT", "/pipeline/api/pipelines/v2/evolving", { yaml: next, query: SCOPE });
    expect(res.status).toBe(200);
    expect(res.headers.get("etag")).toBe("W/1");
    expect(res.body).toEqual(successBody({ identifier: "evolving", governanceMetadata: { deny: false } }));
    const read = await get("evolving");
    expect(read.body.data.yamlPipeline).toBe(next);
    expect(read.headers.get("etag")).toBe("W/1");
  });

  it("refuses a YAML identifier other than the path's", async () => {
    const res = await call("PUT", "/pipeline/api/pipelines/v2/evolving", {
      yaml: simplePipeline("renamed", "delivery"),
      query: SCOPE,
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(
      errorBody(
        "INVALID_REQUEST",
        "Expected Pipeline identifier in YAML to be [evolving], but was [renamed]",
      ),
    );
  });

  it("validates the YAML like create", async () => {
    const res = await call("PUT", "/pipeline/api/pipelines/v2/evolving", {
      yaml: simplePipeline("evolving", "other"),
      query: SCOPE,
    });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("SCHEMA_VALIDATION_FAILED");
  });

  it("answers 404 for a missing pipeline", async () => {
    const res = await call("PUT", "/pipeline/api/pipelines/v2/absent", {
      yaml: simplePipeline("absent", "delivery"),
      query: SCOPE,
    });
    expect(res.status).toBe(404);
    expect(res.body).toEqual(
      errorBody(
        "ENTITY_NOT_FOUND",
        "Pipeline [absent] under Project[delivery], Organization [default] doesn't exist or has been deleted.",
      ),
    );
  });

  it("honours If-Match", async () => {
    const yaml = simplePipeline("evolving", "delivery");
    const stale = await call("PUT", "/pipeline/api/pipelines/v2/evolving", {
      yaml,
      query: SCOPE,
      headers: { "if-match": "0" },
    });
    expect(stale.status).toBe(400);
    expect(stale.body).toEqual(
      failureBody(
        "OPTIMISTIC_LOCKING_EXCEPTION",
        "Request failed as you have an older version of entity, please reload the page and try again.",
      ),
    );
    const fresh = await call("PUT", "/pipeline/api/pipelines/v2/evolving", {
      yaml,
      query: SCOPE,
      headers: { "if-match": "1" },
    });
    expect(fresh.status).toBe(200);
  });
});

describe("DELETE /pipeline/api/pipelines/{identifier}", () => {
  it("deletes, answers data: true, and frees the identifier", async () => {
    expect((await create(simplePipeline("short_lived", "delivery"))).status).toBe(200);
    const res = await call("DELETE", "/pipeline/api/pipelines/short_lived", { query: SCOPE });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(successBody(true));
    expect((await get("short_lived")).status).toBe(404);
    const again = await call("DELETE", "/pipeline/api/pipelines/short_lived", { query: SCOPE });
    expect(again.status).toBe(404);
    expect(again.body).toEqual(
      errorBody(
        "ENTITY_NOT_FOUND",
        "Pipeline [short_lived] under Project[delivery], Organization [default] doesn't exist or has been deleted.",
      ),
    );
    expect((await create(simplePipeline("short_lived", "delivery"))).status).toBe(200);
  });
});

/**
 * The two calls of the public Harness Go SDK (harness-go-sdk v0.8.24 `nextgen/api_pipelines.go`)
 * that the emulator first missed: `PostPipeline` (the earlier create, raw YAML sent as
 * application/json, answered `ResponseDtoString`) and `GetPipelineList` (`POST .../list` with a
 * `PipelineFilterProperties` body, answered a Spring page, ref §8).
 */
describe("POST /pipeline/api/pipelines (the earlier create) and POST /pipeline/api/pipelines/list", () => {
  const LIST = { orgIdentifier: "default", projectIdentifier: "listing" };
  const list = (json: unknown, query: Record<string, string | undefined> = {}) =>
    call("POST", "/pipeline/api/pipelines/list", {
      query: { ...LIST, ...query },
      ...(json === undefined ? { raw: "", contentType: "application/json" } : { json }),
    });
  const ids = (res: { body: { data: { content: { identifier: string }[] } } }) =>
    res.body.data.content.map((p) => p.identifier);
  const setup = { filterType: "PipelineSetup" };

  beforeAll(async () => {
    const project = { project: { identifier: "listing", name: "listing" } };
    expect((await call("POST", "/ng/api/projects", { json: project })).status).toBe(200);
  });

  it("creates from raw YAML sent as application/json, answering data: the identifier and an ETag", async () => {
    const yaml = simplePipeline("older_api", "listing", "default", "  tags:\n    team: web\n");
    const res = await call("POST", "/pipeline/api/pipelines", {
      query: LIST,
      raw: yaml,
      contentType: "application/json",
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("etag")).toBe("W/0");
    expect(res.body).toEqual(successBody("older_api"));
    expect((await get("older_api", LIST)).body.data.yamlPipeline).toBe(yaml);
    const again = await call("POST", "/pipeline/api/pipelines", { query: LIST, yaml });
    expect(again.status).toBe(400);
    expect(again.body).toEqual(
      errorBody(
        "DUPLICATE_FIELD",
        "Pipeline [older_api] under Project[listing], Organization [default] already exists or has been deleted.",
      ),
    );
    const elsewhere = await call("POST", "/pipeline/api/pipelines", {
      query: { ...LIST, projectIdentifier: "nowhere" },
      yaml: simplePipeline("older_api", "nowhere"),
    });
    expect(elsewhere.status).toBe(404);
  });

  it("lists a project's pipelines as a Spring page of summaries, the filter body as the Go SDK sends it", async () => {
    for (const id of ["alpha", "beta", "gamma"]) {
      const extra = id === "gamma" ? "  description: the third one\n  tags:\n    team: api\n" : "";
      expect((await create(simplePipeline(id, "listing", "default", extra), LIST)).status).toBe(200);
    }
    const res = await list(setup, { sort: "name,ASC" });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(
      successBody({
        content: ["alpha", "beta", "gamma", "older_api"].map((id) => ({
          identifier: id,
          name: `${id} pipeline`,
          description: id === "gamma" ? "the third one" : "",
          tags: id === "gamma" ? { team: "api" } : id === "older_api" ? { team: "web" } : {},
          version: 0,
          numOfStages: 1,
          createdAt: expect.any(Number),
          lastUpdatedAt: expect.any(Number),
          modules: ["pms"],
          stageNames: ["build"],
          filters: {},
          storeType: "INLINE",
          entityValidityDetails: { valid: true },
        })),
        pageable: {
          sort: { sorted: true, unsorted: false, empty: false },
          offset: 0,
          pageNumber: 0,
          pageSize: 25,
          paged: true,
          unpaged: false,
        },
        totalPages: 1,
        totalElements: 4,
        last: true,
        size: 25,
        number: 0,
        sort: { sorted: true, unsorted: false, empty: false },
        numberOfElements: 4,
        first: true,
        empty: false,
      }),
    );
    // No body at all (the Go SDK without its Body option) lists every pipeline too.
    expect(ids(await list(undefined, { sort: "identifier,DESC" }))).toEqual([
      "older_api",
      "gamma",
      "beta",
      "alpha",
    ]);
  });

  it("pages with page and size, and filters by the body, searchTerm and module", async () => {
    const p1 = await list(setup, { sort: "name,ASC", page: "1", size: "3" });
    expect(ids(p1)).toEqual(["older_api"]);
    expect(p1.body.data).toMatchObject({
      totalPages: 2,
      totalElements: 4,
      number: 1,
      size: 3,
      numberOfElements: 1,
      first: false,
      last: true,
    });
    const beyond = await list(setup, { page: "5", size: "3" });
    expect(beyond.body.data).toMatchObject({ content: [], empty: true, totalElements: 4, last: true });
    expect(
      ids(await list({ ...setup, pipelineIdentifiers: ["beta", "gamma", "nope"] }, { sort: "name,ASC" })),
    ).toEqual(["beta", "gamma"]);
    expect(ids(await list({ ...setup, name: "ALPHA" }))).toEqual(["alpha"]);
    expect(ids(await list({ ...setup, description: "third" }))).toEqual(["gamma"]);
    expect(ids(await list({ ...setup, pipelineTags: [{ key: "team", value: "web" }] }))).toEqual([
      "older_api",
    ]);
    expect(ids(await list({ ...setup, pipelineTags: [{ key: "team" }] }, { sort: "name,ASC" }))).toEqual([
      "gamma",
      "older_api",
    ]);
    expect(ids(await list(setup, { searchTerm: "api", sort: "name,ASC" }))).toEqual(["gamma", "older_api"]);
    expect(ids(await list(setup, { module: "cd" }))).toEqual([]);
    expect(ids(await list(setup, { module: "pms", sort: "name,ASC" }))).toEqual([
      "alpha",
      "beta",
      "gamma",
      "older_api",
    ]);
    // Another project's pipelines are not listed; a project that does not exist lists nothing.
    expect(ids(await list(setup, { projectIdentifier: "delivery" })).includes("alpha")).toBe(false);
    expect((await list(setup, { projectIdentifier: "nowhere" })).body.data.totalElements).toBe(0);
  });

  it("refuses another filter type, a bad sort and a missing scope", async () => {
    const other = await list({ filterType: "Connector" });
    expect(other.status).toBe(400);
    expect(other.body).toEqual(validationBody([["body.filterType", "filterType must be PipelineSetup"]]));
    const sort = await list(setup, { sort: "colour,ASC" });
    expect(sort.status).toBe(400);
    expect(sort.body).toEqual(
      validationBody([["sort", "cannot sort by colour; one of name, identifier, createdAt, lastUpdatedAt"]]),
    );
    const noProject = await list(setup, { projectIdentifier: undefined });
    expect(noProject.status).toBe(400);
    expect(noProject.body).toEqual(validationBody([["projectIdentifier", "must not be null"]]));
  });
});

describe("CI and Approval stages rendered by the SDK (issue 19)", () => {
  const model = {
    name: "Ship",
    identifier: "ship_ci",
    codebase: { connectorRef: "github", repoName: "payments" },
    stages: [
      {
        type: "CI",
        name: "Build",
        identifier: "build",
        infrastructure: { type: "KubernetesDirect", connectorRef: "cluster", namespace: "builds" },
        execution: { steps: [{ type: "Run", name: "Test", identifier: "test", command: "npm test" }] },
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
              identifier: "ok",
              approvalMessage: "Ship?",
              approvers: { userGroups: ["account._account_all_users"] },
            },
          ],
        },
      },
    ],
  } as const;

  it("accepts the rendered YAML and lists the ci and pms modules", async () => {
    const yaml = renderPipelineYaml(model as never, { org: "default", project: "delivery" });
    const res = await create(yaml);
    expect(res.body).toEqual(successBody({ identifier: "ship_ci", governanceMetadata: { deny: false } }));
    const read = await get("ship_ci");
    expect((read.body as { data: { modules: string[]; yamlPipeline: string } }).data.modules).toEqual([
      "ci",
      "pms",
    ]);
    expect((read.body as { data: { yamlPipeline: string } }).data.yamlPipeline).toBe(yaml);
  });

  it("refuses a Run step in an Approval stage, naming the step's type", async () => {
    const doc = {
      pipeline: {
        name: "Bad",
        identifier: "bad_ci",
        ...SCOPE,
        stages: [
          {
            stage: {
              name: "Approve",
              identifier: "approve",
              type: "Approval",
              spec: {
                execution: {
                  steps: [{ step: { name: "R", identifier: "r", type: "Run", spec: { command: "ls" } } }],
                },
              },
            },
          },
        ],
      },
    };
    const res = await create(stringify(doc));
    expect(res.status).toBe(400);
    expect((res.body as { message: string }).message).toBe(
      "Invalid yaml: $.pipeline.stages[0].stage.spec.execution.steps[0].step.type: step type Run is not supported in an Approval stage",
    );
  });
});
