import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import YAML from "yaml";
import { type Emulator, startEmulator } from "../../emulator";
import {
  isDuration,
  normalizePipeline,
  PipelineModelError,
  type PipelineModelInput,
  parsePipelineYaml,
  parseRuntimeInputText,
  pipelinesEqual,
  pipelineYamlScope,
  RuntimeInput,
  renderPipelineYaml,
  runtimeInput,
  runtimeInputText,
  validatePipelineModel,
} from "../../provider/pipeline-model";
import { PlatformClient } from "../../sdk";
import { deployCheckout, examplePipelines, hello } from "./fixtures/pipelines";

const scope = { org: "default", project: "payments" };
const examples = Object.entries(examplePipelines);

/** Deep copy with every mapping's keys in reverse order (a model written in another key order). */
function reverseKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reverseKeys);
  if (value instanceof RuntimeInput) return value;
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(
      Object.keys(value)
        .reverse()
        .map((k) => [k, reverseKeys((value as Record<string, unknown>)[k])]),
    );
  }
  return value;
}

/** The same document written differently: keys reversed, 4-space indent, every string quoted, a comment. */
function reformat(yaml: string): string {
  const doc = new YAML.Document(reverseKeys(YAML.parse(yaml)));
  doc.commentBefore = " reformatted by hand";
  return doc.toString({
    indent: 4,
    indentSeq: false,
    defaultStringType: "QUOTE_SINGLE",
    defaultKeyType: "PLAIN",
    lineWidth: 40,
  });
}

/** The same document in flow style on as few lines as possible. */
function flowStyle(yaml: string): string {
  const doc = new YAML.Document(YAML.parse(yaml));
  YAML.visit(doc, {
    Map(_, node) {
      node.flow = true;
    },
    Seq(_, node) {
      node.flow = true;
    },
  });
  return doc.toString({ defaultStringType: "QUOTE_DOUBLE", lineWidth: 0 });
}

describe("runtimeInput", () => {
  it.each([
    [runtimeInput(), "<+input>"],
    [runtimeInput().default("dev"), "<+input>.default(dev)"],
    [runtimeInput().default(10), "<+input>.default(10)"],
    [runtimeInput().allowedValues("dev", "prod"), "<+input>.allowedValues(dev,prod)"],
    [runtimeInput().allowedValues("a,b", "c"), "<+input>.allowedValues(\\'a,b\\',c)"],
    [runtimeInput().regex("^v[0-9]+$"), "<+input>.regex(^v[0-9]+$)"],
    [runtimeInput().executionInput(), "<+input>.executionInput()"],
    [runtimeInput().allowedValues("x", "y").default("x"), "<+input>.default(x).allowedValues(x,y)"],
    [
      runtimeInput().executionInput().default(3).allowedValues(1, 2, 3),
      "<+input>.default(3).allowedValues(1,2,3).executionInput()",
    ],
  ])("%s renders as %s", (input, text) => {
    expect(input.toString()).toBe(text);
    expect(runtimeInputText(input.$input)).toBe(text);
  });

  it("is immutable: every option returns a new value", () => {
    const base = runtimeInput();
    const withDefault = base.default("a");
    expect(base.toString()).toBe("<+input>");
    expect(withDefault.toString()).toBe("<+input>.default(a)");
    expect(Object.isFrozen(base)).toBe(true);
  });

  it("serializes as its options only (the form Pulumi sends to the provider)", () => {
    expect(JSON.parse(JSON.stringify(runtimeInput().default("a").allowedValues("a", "b")))).toEqual({
      $input: { default: "a", allowedValues: ["a", "b"] },
    });
    expect(RuntimeInput.isInstance({ $input: { default: "a" } })).toBe(true);
    expect(RuntimeInput.isInstance({ $input: { bogus: 1 } })).toBe(false);
    expect(RuntimeInput.isInstance({ $input: {}, other: 1 })).toBe(false);
  });

  it.each([
    ["<+input>", {}],
    ["<+input>.default(dev)", { default: "dev" }],
    ["<+input>.default()", { default: "" }],
    ["<+input>.allowedValues(a,b)", { allowedValues: ["a", "b"] }],
    ["<+input>.allowedValues(\\'a,b\\',c)", { allowedValues: ["a,b", "c"] }],
    ["<+input>.regex(^(a|b)$)", { regex: "^(a|b)$" }],
    [
      "<+input>.allowedValues(a).default(a).executionInput()",
      { default: "a", allowedValues: ["a"], executionInput: true },
    ],
  ])("parses %s", (text, options) => {
    expect(parseRuntimeInputText(text)).toEqual(options);
  });

  it.each([
    "<+inputs>",
    "<+pipeline.name>",
    "<+input>.selectOneFrom(a,b)",
    "<+input>.default(",
    "<+input>.default(a,b)",
    "<+input>.default(a).default(b)",
    "<+input>.executionInput(x)",
    "<+input>.allowedValues()",
    "<+input> trailing",
  ])("keeps %s as a verbatim expression (not a runtime input the model reads)", (text) => {
    expect(parseRuntimeInputText(text)).toBeUndefined();
    expect(RuntimeInput.parse(text)).toBeUndefined();
  });
});

describe("isDuration", () => {
  it.each(["10m", "1h30m", "30s", "1d", "1w", "500ms", "1h 30m", "2d3h", "1w 2d 3h 4m 5s 6ms", " 10m "])(
    "accepts %j",
    (text) => {
      expect(isDuration(text)).toBe(true);
    },
  );
  it.each(["", "10", "10 minutes", "m", "0m", "0h0m", "1m1h", "1.5h", "-1m", "10M", "1 h", "1h30"])(
    "refuses %j",
    (text) => {
      expect(isDuration(text)).toBe(false);
    },
  );
});

describe("renderPipelineYaml", () => {
  it("renders the spec's fields in the spec's order, org and project from the scope", () => {
    expect(renderPipelineYaml(hello, scope)).toBe(`pipeline:
  name: Hello
  identifier: hello
  allowStageExecutions: false
  projectIdentifier: payments
  orgIdentifier: default
  tags: {}
  stages:
    - stage:
        name: Say hello
        identifier: say_hello
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
                        script: echo hello <+pipeline.name>
                    environmentVariables: []
                    outputVariables: []
                    executionTarget: {}
                  timeout: 10m
            rollbackSteps: []
        tags: {}
        failureStrategies: []
`);
  });

  it.each(examples)(
    "%s: the same model always gives the same bytes, whatever its key order",
    (_name, model) => {
      const first = renderPipelineYaml(model, scope);
      expect(renderPipelineYaml(model, scope)).toBe(first);
      expect(renderPipelineYaml(reverseKeys(model) as PipelineModelInput, scope)).toBe(first);
      expect(renderPipelineYaml(validatePipelineModel(model), scope)).toBe(first);
    },
  );

  it.each(examples)(
    "%s: accepts the model after Pulumi's serialization (runtime inputs as plain data)",
    (_name, model) => {
      const serialized = JSON.parse(JSON.stringify(model)) as PipelineModelInput;
      expect(renderPipelineYaml(serialized, scope)).toBe(renderPipelineYaml(model, scope));
    },
  );

  it("keeps names verbatim, and reads back a runtime-input timeout with a default", () => {
    const model: PipelineModelInput = {
      ...hello,
      name: "Hello again ",
      stages: (
        hello.stages as Exclude<NonNullable<PipelineModelInput["stages"]>[number], { type: "Template" }>[]
      ).map((s) => ({
        ...s,
        name: "1st stage.v2",
        execution: {
          ...s.execution,
          steps: s.execution.steps.map((t) => ({ ...t, timeout: runtimeInput().default("10m") })),
        },
      })) as PipelineModelInput["stages"],
    };
    const yaml = renderPipelineYaml(model, scope);
    expect(yaml).toContain('  name: "Hello again "\n');
    expect(yaml).toContain("                  timeout: <+input>.default(10m)\n");
    expect(parsePipelineYaml(yaml)).toEqual(validatePipelineModel(model));
  });

  it("renders runtime inputs and keeps expressions verbatim", () => {
    const yaml = renderPipelineYaml(deployCheckout, scope);
    expect(yaml).toContain("environmentRef: <+input>.default(staging).allowedValues(staging,qa)\n");
    expect(yaml).toContain("namespace: <+input>\n");
    expect(yaml).toContain("releaseName: checkout-<+pipeline.sequenceId>\n");
    expect(yaml).toContain('echo "deployed <+pipeline.name>"\n');
  });

  it("quotes strings a YAML 1.1 reader would take for booleans or numbers", () => {
    const yaml = renderPipelineYaml(
      { ...hello, tags: { a: "yes", b: "on", c: "10", d: "0o10", e: "plain", f: "~" } },
      scope,
    );
    expect(yaml).toContain(
      '  tags:\n    a: "yes"\n    b: "on"\n    c: "10"\n    d: "0o10"\n    e: plain\n    f: "~"\n',
    );
  });

  it("writes the scope's organization and project, and refuses a bad scope", () => {
    const doc = YAML.parse(renderPipelineYaml(hello, { org: "acme", project: "web" }));
    expect(doc.pipeline).toMatchObject({ orgIdentifier: "acme", projectIdentifier: "web" });
    expect(() => renderPipelineYaml(hello, { org: "acme", project: "1web" })).toThrow(
      "invalid pipeline scope: project: identifier can be 128 characters long",
    );
  });
});

describe("parsePipelineYaml", () => {
  it.each(examples)("%s: render then parse gives the same model", (_name, model) => {
    expect(parsePipelineYaml(renderPipelineYaml(model, scope))).toEqual(validatePipelineModel(model));
  });

  it.each(examples)("%s: a reformatted copy parses to the same model and compares equal", (_name, model) => {
    const yaml = renderPipelineYaml(model, scope);
    for (const other of [reformat(yaml), flowStyle(yaml)]) {
      expect(other).not.toBe(yaml);
      expect(parsePipelineYaml(other)).toEqual(validatePipelineModel(model));
      expect(pipelinesEqual(yaml, other)).toBe(true);
      expect(pipelinesEqual(model, other, scope)).toBe(true);
    }
  });

  it("reads the spec's placement of timeout (in the step spec) and of allowSimultaneousDeployments", () => {
    const yaml = renderPipelineYaml(deployCheckout, scope)
      .replace(
        "                    executionTarget: {}\n                  timeout: 5m\n",
        "                    executionTarget: {}\n                    timeout: 5m\n",
      )
      .replace(
        "                releaseName: checkout-<+pipeline.sequenceId>\n            allowSimultaneousDeployments: false\n",
        "                releaseName: checkout-<+pipeline.sequenceId>\n                allowSimultaneousDeployments: false\n",
      );
    expect(yaml).toContain("                    timeout: 5m\n");
    expect(parsePipelineYaml(yaml)).toEqual(validatePipelineModel(deployCheckout));
  });

  it("reads YAML without the optional lists and maps", () => {
    const model = parsePipelineYaml(`pipeline:
  name: Minimal
  identifier: minimal
  stages:
    - stage:
        name: One
        identifier: one
        type: Custom
        spec:
          execution:
            steps:
              - step: {type: ShellScript, name: Run, identifier: run, spec: {shell: PowerShell, source: {type: Inline, spec: {script: "true"}}}}
`);
    expect(model).toEqual({
      name: "Minimal",
      identifier: "minimal",
      tags: {},
      allowStageExecutions: false,
      stages: [
        {
          type: "Custom",
          name: "One",
          identifier: "one",
          execution: {
            steps: [
              {
                type: "ShellScript",
                name: "Run",
                identifier: "run",
                timeout: "10m",
                shell: "PowerShell",
                script: "true",
                environmentVariables: [],
                outputVariables: [],
                onDelegate: true,
              },
            ],
            rollbackSteps: [],
          },
          failureStrategies: [],
          tags: {},
        },
      ],
    });
  });

  const hello_yaml = renderPipelineYaml(hello, scope);
  it.each([
    ["not YAML", "pipeline: [", ""],
    [
      "duplicate keys (refused by the server too)",
      hello_yaml.replace("  identifier: hello\n", "  identifier: hello\n  identifier: other\n"),
      "Map keys must be unique",
    ],
    [
      "no pipeline key",
      "name: x\n",
      'pipeline: Invalid input: expected object, received undefined; name: unknown field "name"',
    ],
    [
      "a field the model cannot represent",
      hello_yaml.replace("          execution:\n", "          when: {}\n          execution:\n"),
      'pipeline.stages[0].stage.spec.when: unknown field "when"',
    ],
    [
      "an unknown step type",
      hello_yaml.replace("type: ShellScript", "type: Http"),
      'pipeline.stages[0].stage.spec.execution.steps[0].step.type: unknown step type "Http"',
    ],
    [
      "an unknown stage type",
      hello_yaml.replace("type: Custom", "type: FeatureFlag"),
      'pipeline.stages[0].stage.type: unknown stage type "FeatureFlag"',
    ],
    [
      "a stage without steps",
      hello_yaml.replace(/steps:\n[\s\S]*?rollbackSteps/, "steps: []\n            rollbackSteps"),
      "pipeline.stages[0].stage.spec.execution.steps: a stage needs at least one step",
    ],
    [
      "a non-duration timeout",
      hello_yaml.replace("timeout: 10m", "timeout: ten minutes"),
      'pipeline.stages[0].stage.spec.execution.steps[0].step.timeout: "ten minutes" must be a duration',
    ],
    [
      "a step entry with step and parallel",
      hello_yaml.replace("              - step:\n", "              - parallel: []\n                step:\n"),
      "each entry needs exactly one of step or parallel",
    ],
    [
      "a non-Inline script",
      hello_yaml.replace("type: Inline", "type: Harness"),
      "only Inline scripts are supported",
    ],
  ])("refuses %s, naming the YAML path", (_what, yaml, message) => {
    expect(() => parsePipelineYaml(yaml)).toThrow(PipelineModelError);
    expect(() => parsePipelineYaml(yaml)).toThrow(message);
  });

  it("refuses conflicting duplicates of a field the spec places in two spots", () => {
    const yaml = renderPipelineYaml(deployCheckout, scope).replace(
      "                    executionTarget: {}\n                  timeout: 5m\n",
      "                    executionTarget: {}\n                    timeout: 6m\n                  timeout: 5m\n",
    );
    expect(() => parsePipelineYaml(yaml)).toThrow(
      "invalid pipeline YAML: pipeline.stages[0].stage.spec.execution.steps[1].step.spec.timeout: conflicts with pipeline.stages[0].stage.spec.execution.steps[1].step.timeout (5m)",
    );
  });

  it("reads the scope named in the YAML", () => {
    expect(pipelineYamlScope(hello_yaml)).toEqual({
      orgIdentifier: "default",
      projectIdentifier: "payments",
    });
    expect(pipelineYamlScope("pipeline: {name: x}")).toEqual({
      orgIdentifier: undefined,
      projectIdentifier: undefined,
    });
  });
});

describe("pipelinesEqual", () => {
  const yaml = renderPipelineYaml(deployCheckout, scope);

  it("ignores key order, quoting, comments, null members and scalar typing", () => {
    const other = `# edited by hand
pipeline:
  stages: ${JSON.stringify(YAML.parse(yaml).pipeline.stages)}
  tags: {flag: "new-checkout", team: 'payments'}
  orgIdentifier: "default"
  projectIdentifier: payments
  allowStageExecutions: "false"
  description: Rolls out the checkout service behind the new-checkout flag
  identifier: deploy_checkout
  name: "Deploy checkout"
  variables: null
`;
    expect(pipelinesEqual(yaml, other)).toBe(true);
    expect(pipelinesEqual(YAML.parse(yaml), YAML.parse(other))).toBe(true);
  });

  it("compares runtime inputs by meaning", () => {
    const reordered = yaml.replace(
      "<+input>.default(staging).allowedValues(staging,qa)",
      "<+input>.allowedValues(staging,qa).default(staging)",
    );
    expect(reordered).not.toBe(yaml);
    expect(pipelinesEqual(yaml, reordered)).toBe(true);
  });

  it.each([
    [
      "a changed script",
      (y: string) => y.replace('curl -fsS "$BASE_URL/health"', 'curl -fsS "$BASE_URL/ready"'),
    ],
    ["another project", (y: string) => y.replace("projectIdentifier: payments", "projectIdentifier: web")],
    ["a changed tag", (y: string) => y.replace("team: payments", "team: web")],
    [
      "reordered steps",
      (y: string) => {
        const doc = YAML.parse(y);
        doc.pipeline.stages[0].stage.spec.execution.steps.reverse();
        return YAML.stringify(doc);
      },
    ],
    [
      "a removed field",
      (y: string) =>
        y.replace("  description: Rolls out the checkout service behind the new-checkout flag\n", ""),
    ],
  ])("sees %s", (_what, edit) => {
    const other = edit(yaml);
    expect(other).not.toBe(yaml);
    expect(pipelinesEqual(yaml, other)).toBe(false);
  });

  it("renders models into the scope, or leaves org and project out without one", () => {
    expect(pipelinesEqual(deployCheckout, yaml, scope)).toBe(true);
    expect(pipelinesEqual(deployCheckout, yaml, { org: "default", project: "web" })).toBe(false);
    expect(pipelinesEqual(deployCheckout, yaml)).toBe(true);
    expect(pipelinesEqual(deployCheckout, hello)).toBe(false);
  });

  it("normalizes to sorted keys and text scalars", () => {
    expect(
      normalizePipeline({ b: [2, true, null], a: { d: null, c: "<+input>.regex(x).default(y)" } }),
    ).toEqual({
      a: { c: "<+input>.default(y).regex(x)" },
      b: ["2", "true", null],
    });
  });
});

describe("validatePipelineModel", () => {
  const step = { type: "ShellScript", name: "Run", identifier: "run", script: "true" };
  const stage = { type: "Custom", name: "One", identifier: "one", execution: { steps: [step] } };
  const pipeline = { name: "P", identifier: "p", stages: [stage] };
  const withStep = (s: Record<string, unknown>) => ({
    ...pipeline,
    stages: [{ ...stage, execution: { steps: [{ ...step, ...s }] } }],
  });
  const deployment = deployCheckout.stages![0] as Extract<
    NonNullable<PipelineModelInput["stages"]>[number],
    { type: "Deployment" }
  >;

  it.each([
    [
      "a bad identifier",
      { ...pipeline, identifier: "9lives" },
      "identifier",
      "identifier can be 128 characters long and can only contain alphanumeric, underscore and $ characters, and not start with a number or $",
    ],
    [
      "a reserved identifier",
      { ...pipeline, identifier: "pipeline_ok", stages: [{ ...stage, identifier: "step" }] },
      "stages[0].identifier",
      "step is a keyword, so cannot be used",
    ],
    ["an empty name", { ...pipeline, name: "  " }, "name", "name cannot be empty."],
    [
      "a stage named build/test (the service's name pattern has no slash)",
      { ...pipeline, stages: [{ ...stage, name: "build/test" }] },
      "stages[0].name",
      'name can only contain alphanumeric, space, hyphen, underscore and dot characters; "/" is not allowed.',
    ],
    [
      "a step name starting with a space (names are not trimmed)",
      withStep({ name: " Run" }),
      "stages[0].execution.steps[0].name",
      "name cannot start with a space.",
    ],
    [
      "a pipeline name of 129 characters",
      { ...pipeline, name: "n".repeat(129) },
      "name",
      "name cannot be more than 128 characters long.",
    ],
    [
      "a zero timeout",
      withStep({ timeout: "0m" }),
      "stages[0].execution.steps[0].timeout",
      '"0m" must be a duration such as 10m, 1h30m, 30s or 1d, or a <+...> expression',
    ],
    ["no stages", { ...pipeline, stages: [] }, "stages", "a pipeline needs at least one stage"],
    [
      "a stage without steps",
      { ...pipeline, stages: [{ ...stage, execution: { steps: [] } }] },
      "stages[0].execution.steps",
      "a stage needs at least one step",
    ],
    [
      "a stage without execution",
      { ...pipeline, stages: [{ ...stage, execution: undefined }] },
      "stages[0].execution",
      "Invalid input: expected object, received undefined",
    ],
    [
      "an unknown stage type",
      { ...pipeline, stages: [{ ...stage, type: "FeatureFlag" }] },
      "stages[0].type",
      'unknown stage type "FeatureFlag"; expected one of Deployment, Custom, CI, Approval, Template',
    ],
    [
      "an unknown step type",
      withStep({ type: "Http" }),
      "stages[0].execution.steps[0].type",
      'unknown step type "Http"; expected one of ShellScript, K8sRollingDeploy, K8sRollingRollback, Run, BuildAndPushDockerRegistry, HarnessApproval, Parallel',
    ],
    [
      "a timeout that is not a duration",
      withStep({ timeout: "ten minutes" }),
      "stages[0].execution.steps[0].timeout",
      '"ten minutes" must be a duration such as 10m, 1h30m, 30s or 1d, or a <+...> expression',
    ],
    [
      "a numeric timeout",
      withStep({ timeout: 10 }),
      "stages[0].execution.steps[0].timeout",
      "timeout must be a duration such as 10m, 1h30m, 30s or 1d, or a <+...> expression",
    ],
    [
      "an unknown shell",
      withStep({ shell: "Zsh" }),
      "stages[0].execution.steps[0].shell",
      "shell must be one of Bash, PowerShell",
    ],
    [
      "an empty script",
      withStep({ script: "" }),
      "stages[0].execution.steps[0].script",
      "script cannot be empty",
    ],
    [
      "a misspelt field",
      withStep({ scirpt: "x" }),
      "stages[0].execution.steps[0].scirpt",
      'unknown field "scirpt"',
    ],
    [
      "a bad env var name",
      withStep({ environmentVariables: [{ name: "1X", value: "a" }] }),
      "stages[0].execution.steps[0].environmentVariables[0].name",
      "variable name must be a shell variable name (letters, digits and _)",
    ],
    [
      "onDelegate false without target",
      withStep({ onDelegate: false }),
      "stages[0].execution.steps[0].executionTarget",
      "executionTarget needs host and connectorRef when onDelegate is false",
    ],
    [
      "a target on the delegate",
      withStep({ onDelegate: true, executionTarget: { host: "h", connectorRef: "c" } }),
      "stages[0].execution.steps[0].executionTarget",
      "executionTarget cannot be set when onDelegate is true",
    ],
    [
      "a duplicate stage identifier",
      { ...pipeline, stages: [stage, { ...stage, name: "Two" }] },
      "stages[1].identifier",
      "stage identifier one is already used by stages[0]",
    ],
    [
      "a duplicate step identifier",
      {
        ...pipeline,
        stages: [
          { ...stage, execution: { steps: [step], rollbackSteps: [{ type: "Parallel", steps: [step] }] } },
        ],
      },
      "stages[0].execution.rollbackSteps[0].steps[0].identifier",
      "step identifier run is used more than once in stage one",
    ],
    [
      "an empty parallel group",
      withStep({ type: "Parallel", steps: [] }),
      "stages[0].execution.steps[0].steps",
      "a parallel group needs at least one step",
    ],
    [
      "an unknown failure error",
      {
        ...pipeline,
        stages: [
          { ...stage, failureStrategies: [{ onFailure: { errors: ["Oops"], action: { type: "Abort" } } }] },
        ],
      },
      "stages[0].failureStrategies[0].onFailure.errors[0]",
      'unknown error type "Oops"; expected one of AllErrors',
    ],
    [
      "an unknown failure action",
      {
        ...pipeline,
        stages: [
          {
            ...stage,
            failureStrategies: [{ onFailure: { errors: ["AllErrors"], action: { type: "Pray" } } }],
          },
        ],
      },
      "stages[0].failureStrategies[0].onFailure.action.type",
      'unknown action type "Pray"; expected one of StageRollback',
    ],
    [
      "a retry without intervals",
      {
        ...pipeline,
        stages: [
          {
            ...stage,
            failureStrategies: [
              {
                onFailure: {
                  errors: ["AllErrors"],
                  action: {
                    type: "Retry",
                    spec: {
                      retryCount: 1,
                      retryIntervals: [],
                      onRetryFailure: { action: { type: "Abort" } },
                    },
                  },
                },
              },
            ],
          },
        ],
      },
      "stages[0].failureStrategies[0].onFailure.action.spec.retryIntervals",
      "retryIntervals needs at least one duration",
    ],
    [
      "a bad retry interval",
      {
        ...pipeline,
        stages: [
          {
            ...stage,
            failureStrategies: [
              {
                onFailure: {
                  errors: ["AllErrors"],
                  action: {
                    type: "Retry",
                    spec: {
                      retryCount: 1,
                      retryIntervals: ["soon"],
                      onRetryFailure: { action: { type: "Abort" } },
                    },
                  },
                },
              },
            ],
          },
        ],
      },
      "stages[0].failureStrategies[0].onFailure.action.spec.retryIntervals[0]",
      '"soon" must be a duration',
    ],
    [
      "a bad variable type",
      { ...pipeline, variables: [{ name: "v", type: "Bool", value: "x" }] },
      "variables[0].type",
      "type must be one of String, Number, Secret",
    ],
    [
      "a bad connector reference",
      {
        ...pipeline,
        stages: [
          { ...deployment, infrastructure: { ...deployment.infrastructure, connectorRef: "team.k8s" } },
        ],
      },
      "stages[0].infrastructure.connectorRef",
      "connectorRef must be an identifier, optionally prefixed with account. or org., or a <+...> expression",
    ],
    [
      "a non-boolean flag",
      {
        ...pipeline,
        stages: [
          {
            ...deployment,
            execution: {
              steps: [{ type: "K8sRollingDeploy", name: "D", identifier: "d", skipDryRun: "maybe" }],
            },
          },
        ],
      },
      "stages[0].execution.steps[0].skipDryRun",
      "must be true, false or a <+...> expression",
    ],
    [
      "an org in the model (it comes from the scope)",
      { ...pipeline, orgIdentifier: "default" },
      "orgIdentifier",
      'unknown field "orgIdentifier"',
    ],
  ])("refuses %s, naming %s", (_what, model, path, message) => {
    let error: unknown;
    expect(() => {
      try {
        validatePipelineModel(model as unknown as PipelineModelInput);
      } catch (e) {
        error = e;
        throw e;
      }
    }).toThrow(PipelineModelError);
    const issue = (error as PipelineModelError).issues.find((i) => i.path === path);
    expect(issue?.message).toContain(message);
  });
});

// Acceptance by the emulator: every example renders to YAML that the emulated platform API takes,
// stores verbatim, and that parses back to the same model.
describe("the emulator accepts every rendered example", () => {
  let emu: Emulator;
  let platform: PlatformClient;
  beforeAll(async () => {
    emu = await startEmulator({ port: 0 });
    platform = new PlatformClient({
      baseUrl: emu.url,
      apiKey: emu.platformKey,
      accountId: emu.accountId,
      requestsPerSecond: Number.POSITIVE_INFINITY,
    });
    await platform.projects.create({ identifier: scope.project, name: "Payments" }, { org: scope.org });
  });
  afterAll(async () => {
    await emu?.stop();
  });

  it.each(examples)("%s", async (_name, model) => {
    const yaml = renderPipelineYaml(model, scope);
    const { identifier } = validatePipelineModel(model);
    expect((await platform.pipelines.create(yaml, scope)).identifier).toBe(identifier);
    const stored = (await platform.pipelines.get(identifier, scope)).yamlPipeline;
    expect(stored).toBe(yaml);
    expect(parsePipelineYaml(stored)).toEqual(validatePipelineModel(model));
  });

  it("refuses rendered YAML sent to another project (org and project come from the scope)", async () => {
    await platform.projects.create({ identifier: "web", name: "Web" }, { org: scope.org });
    await expect(
      platform.pipelines.create(renderPipelineYaml(hello, scope), { org: scope.org, project: "web" }),
    ).rejects.toMatchObject({ status: 400 });
  });
});

// docs/platform-resources.md shows the deployCheckout fixture and exactly what the renderer makes
// of it. `UPDATE_DOCS=1 npx vitest run test/provider/pipeline-model.test.ts` rewrites both blocks
// (and then checks the file it wrote).
describe("docs/platform-resources.md", () => {
  const docsPath = join(__dirname, "../../docs/platform-resources.md");
  const fixture = readFileSync(join(__dirname, "fixtures/pipelines.ts"), "utf8");
  const model =
    /export const deployCheckout: PipelineModelInput = \{[\s\S]*?\n\};\n/.exec(fixture)?.[0] ?? "";
  const expected = {
    model: `\`\`\`ts\nimport { type PipelineModelInput, runtimeInput } from "flagstack/provider/pipeline-model";\n\n${model.replace("export const", "const")}\`\`\`\n`,
    yaml: `\`\`\`yaml\n${renderPipelineYaml(deployCheckout, scope)}\`\`\`\n`,
  };
  const marked = (name: string) =>
    new RegExp(`<!-- BEGIN GENERATED: ${name} -->\\n([\\s\\S]*?)<!-- END GENERATED: ${name} -->`, "g");
  /** Each generated block of the text, by name: its body, once per occurrence. */
  const blocks = (text: string) => ({
    model: [...text.matchAll(marked("model"))].map((m) => m[1]),
    yaml: [...text.matchAll(marked("yaml"))].map((m) => m[1]),
  });

  it("shows the example model next to the YAML the renderer produces from it", () => {
    let text = readFileSync(docsPath, "utf8");
    if (process.env.UPDATE_DOCS === "1") {
      for (const name of ["model", "yaml"] as const) {
        text = text.replace(
          marked(name),
          () => `<!-- BEGIN GENERATED: ${name} -->\n${expected[name]}<!-- END GENERATED: ${name} -->`,
        );
      }
      writeFileSync(docsPath, text);
      text = readFileSync(docsPath, "utf8");
    }
    expect(blocks(text)).toEqual({ model: [expected.model], yaml: [expected.yaml] });
  });

  it("the model the docs show, run, renders the YAML the docs show", () => {
    const { model: [shown = ""] = [], yaml: [yaml = ""] = [] } = blocks(readFileSync(docsPath, "utf8"));
    // The TypeScript of the block, its import taken from this module's scope.
    const code = shown.replace(/^```ts\n.*\n/, "").replace(/```\n$/, "");
    const js = ts.transpileModule(`${code}\nmodule.exports = deployCheckout;\n`, {
      compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022 },
    }).outputText;
    const module = { exports: undefined as unknown };
    new Function("module", "runtimeInput", js)(module, runtimeInput);
    expect(`\`\`\`yaml\n${renderPipelineYaml(module.exports as PipelineModelInput, scope)}\`\`\`\n`).toBe(
      yaml,
    );
  });
});
