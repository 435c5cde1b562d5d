import { describe, expect, it } from "vitest";
import { definitionWellFormed, productionRampGuard } from "../../policy/definitions";
import { flagNaming } from "../../policy/flags";
import { pipelineStepTimeouts } from "../../policy/pipelines";
import {
  isUnknownValueError,
  plainProps,
  readConnector,
  readDefinition,
  readFlag,
  readPipeline,
  readProject,
  UnknownInputError,
} from "../../policy/resources";
import { UNKNOWN } from "../../provider/core/check";
import { FlagDefinitionOutputs } from "../../provider/flags/flag-definition";
import {
  CONNECTOR_TYPE,
  FLAG_DEFINITION_TYPE,
  FLAG_TYPE,
  PIPELINE_TYPE,
  PROJECT_TYPE,
} from "../../provider/types";
import {
  checkedProps,
  runResourcePolicy,
  runStackPolicy,
  UnknownValueError,
  unknownCheckingProxy,
  unknownStringValue,
} from "./util";

/** A definition as a program declares it: configurations as an object, no default rule. */
const definition = {
  workspace: "Default",
  flag: "new-checkout",
  environment: "Production",
  treatments: [{ name: "on", configurations: { color: "green" } }, { name: "off" }],
  defaultTreatment: "off",
};

describe("readDefinition", () => {
  it("reads the provider's checked inputs: configurations as JSON text, its default rule, its defaults", async () => {
    const props = await checkedProps(FLAG_DEFINITION_TYPE, { ...definition, killed: true, comment: "INC-1" });
    expect(await readDefinition(props)).toEqual({
      flagName: "new-checkout",
      environment: "Production",
      environmentNames: ["Production"],
      workspace: "Default",
      trafficType: undefined,
      killed: true,
      comment: "INC-1",
      document: {
        treatments: [{ name: "on", configurations: '{"color":"green"}' }, { name: "off" }],
        defaultTreatment: "off",
        trafficAllocation: 100,
        rules: [],
        defaultRule: [{ treatment: "off", size: 100 }],
        killed: true,
      },
      problems: [],
    });
  });

  it("reads a program's inputs and the provider's checked inputs alike (its check is idempotent)", async () => {
    const given = { ...definition, treatments: [{ name: "on", keys: ["a", "b", "a"] }, { name: "off" }] };
    const checked = await checkedProps(FLAG_DEFINITION_TYPE, given);
    expect(await readDefinition(given)).toEqual(await readDefinition(checked));
    expect((await readDefinition(checked)).document?.treatments).toEqual([
      { name: "on", keys: ["a", "b"] },
      { name: "off" },
    ]);
  });

  it("matches the resolved environment name and id of the outputs too (a stack policy after an update)", async () => {
    const checked = await checkedProps(FLAG_DEFINITION_TYPE, { ...definition, environment: "env-123" });
    const outputs = {
      ...FlagDefinitionOutputs.parse({
        ...plainProps(checked),
        flagId: "f-1",
        flagName: "new-checkout",
        workspaceId: "ws-1",
        workspaceName: "Default",
        environmentId: "env-123",
        environmentName: "Production",
        trafficType: "account",
        creationTime: 1,
        lastUpdateTime: 2,
      }),
      __provider: checked.__provider,
    };
    expect(await readDefinition(outputs)).toMatchObject({
      environment: "env-123",
      environmentNames: ["env-123", "Production"],
      trafficType: "account",
      problems: [],
    });
  });

  it("reads the flag and environment the provider refuses as given, and has no document then", async () => {
    const props = await checkedProps(FLAG_DEFINITION_TYPE, {
      ...definition,
      flag: "2fa",
      trafficAllocation: 101,
    });
    expect(await readDefinition(props)).toMatchObject({
      flagName: "2fa",
      environment: "Production",
      document: undefined,
      problems: [
        "flag: name must start with a letter and use only letters, digits, '-' and '_' (got \"2fa\")",
        "trafficAllocation: trafficAllocation must be 0..100 (got 101)",
      ],
    });
  });
});

describe("readFlag", () => {
  it("reads the checked flag: the provider's traffic type, tags as a sorted set", async () => {
    const props = await checkedProps(FLAG_TYPE, {
      workspace: "Default",
      name: "f",
      tags: ["b", "a", "b"],
      rolloutStatus: "Ramping",
    });
    expect(await readFlag(props)).toEqual({
      name: "f",
      workspace: "Default",
      trafficType: "user",
      tags: ["a", "b"],
      rolloutStatus: "Ramping",
    });
  });
});

describe("readConnector and readProject", () => {
  it("reads a typed registry's type and auth from the spec the provider sends (auth Anonymous by default)", async () => {
    const props = await checkedProps(CONNECTOR_TYPE, {
      org: "default",
      project: "p",
      identifier: "c",
      name: "C",
      dockerRegistry: { url: "https://r.example", providerType: "DockerHub" },
    });
    expect(await readConnector(props)).toEqual({
      identifier: "c",
      org: "default",
      project: "p",
      type: "DockerRegistry",
      authType: "Anonymous",
    });
  });

  it("reads a generic connector's type and the auth of its spec", async () => {
    const props = await checkedProps(CONNECTOR_TYPE, {
      identifier: "g",
      name: "G",
      generic: { type: "Git", spec: { auth: { type: "Http" } } },
    });
    expect(await readConnector(props)).toEqual({
      identifier: "g",
      org: undefined,
      project: undefined,
      type: "Git",
      authType: "Http",
    });
  });

  it("reads a project with the provider's default organization", async () => {
    const props = await checkedProps(PROJECT_TYPE, {
      identifier: "p",
      name: "P",
      tags: { env: "production" },
    });
    expect(await readProject(props)).toEqual({
      identifier: "p",
      org: "default",
      tags: { env: "production" },
    });
  });
});

describe("readPipeline", () => {
  it("reads steps of parallel groups and step groups in YAML, with their paths", async () => {
    const yaml = `
pipeline:
  identifier: p
  name: p
  stages:
    - stage:
        identifier: s
        name: s
        type: Custom
        spec:
          execution:
            steps:
              - parallel:
                  - step: {identifier: a, name: a, type: ShellScript, timeout: 1m, spec: {source: {type: Inline, spec: {script: echo a}}}}
              - stepGroup:
                  identifier: g
                  name: g
                  steps:
                    - step: {identifier: b, name: b, type: ShellScript, timeout: 2m, spec: {}}
`;
    const view = await readPipeline(
      await checkedProps(PIPELINE_TYPE, { org: "default", project: "p", yaml }),
    );
    expect(view?.stages[0]?.steps.map((s) => [s.identifier, s.timeout, s.script, s.path])).toEqual([
      ["a", "1m", "echo a", "pipeline.stages[0].stage.spec.execution.steps[0].parallel[0].step"],
      ["b", "2m", undefined, "pipeline.stages[0].stage.spec.execution.steps[1].stepGroup.steps[0].step"],
    ]);
  });

  it("reads the checked model: a runtime input as its text, a missing timeout as the model's", async () => {
    const props = await checkedProps(PIPELINE_TYPE, {
      project: "p",
      pipeline: {
        identifier: "p",
        name: "p",
        stages: [
          {
            identifier: "s",
            name: "s",
            type: "Custom",
            execution: {
              steps: [
                { type: "ShellScript", identifier: "x", name: "x", script: "echo", timeout: { $input: {} } },
                { type: "ShellScript", identifier: "y", name: "y", script: "echo" },
              ],
            },
          },
        ],
      },
    });
    const view = await readPipeline(props);
    expect(view?.stages[0]?.steps.map((s) => [s.identifier, s.timeout])).toEqual([
      ["x", "<+input>"],
      ["y", "10m"],
    ]);
  });

  it("reads YAML the provider refuses as given, refuses YAML without a pipeline key, and reads nothing else", async () => {
    const refused = await checkedProps(PIPELINE_TYPE, { org: "default", project: "p", yaml: "stages: []" });
    await expect(readPipeline(refused)).rejects.toThrow("the pipeline YAML has no top-level pipeline key");
    expect(await readPipeline(await checkedProps(PIPELINE_TYPE, { org: "default" }))).toBeUndefined();
  });
});

describe("values unknown during a preview", () => {
  it("copies the props without `__provider`, an unknown value as the provider's sentinel", async () => {
    const props = unknownCheckingProxy({
      ...(await checkedProps(FLAG_TYPE, { workspace: "Default", name: "f" })),
      flagId: unknownStringValue,
      tags: ["a", unknownStringValue],
    });
    expect(plainProps(props)).toEqual({
      workspace: "Default",
      trafficType: "user",
      name: "f",
      description: "",
      tags: ["a", UNKNOWN],
      adopt: false,
      flagId: UNKNOWN,
    });
  });

  it("reads known inputs next to unknown outputs", async () => {
    const props = unknownCheckingProxy({
      ...(await checkedProps(FLAG_DEFINITION_TYPE, definition)),
      flagId: unknownStringValue,
      environmentName: unknownStringValue,
      environmentId: unknownStringValue,
    });
    expect(await readDefinition(props)).toMatchObject({
      flagName: "new-checkout",
      environmentNames: ["Production"],
      problems: [],
    });
    expect(await runResourcePolicy(definitionWellFormed, FLAG_DEFINITION_TYPE, props)).toEqual([]);
    const flag = unknownCheckingProxy({
      ...(await checkedProps(FLAG_TYPE, {
        workspace: "Default",
        name: "new-checkout",
        rolloutStatus: "Ramping",
      })),
      flagId: unknownStringValue,
    });
    expect(
      await runStackPolicy(productionRampGuard, [
        { type: FLAG_TYPE, props: flag },
        { type: FLAG_DEFINITION_TYPE, props },
      ]),
    ).toEqual([]);
  });

  it("throws the engine's own error for an unknown input a policy needs, so the engine reports it", async () => {
    // The provider's check passes the unknown value through; the engine hands it over in its proxy.
    const props = unknownCheckingProxy(
      await checkedProps(FLAG_DEFINITION_TYPE, { ...definition, flag: unknownStringValue }),
    );
    await expect(readDefinition(props)).rejects.toThrow(
      expect.objectContaining({
        message: "string value at .flag can't be known during preview",
        props: ["flag"],
      }),
    );
    await expect(runResourcePolicy(definitionWellFormed, FLAG_DEFINITION_TYPE, props)).rejects.toBeInstanceOf(
      UnknownValueError,
    );
  });

  it.each<[string, Record<string, unknown>, string[]]>([
    [
      "a treatment name (the document cannot be judged)",
      { treatments: [{ name: "on" }, { name: unknownStringValue }] },
      ["treatments", "1", "name"],
    ],
    [
      "a comment (the provider's check skips the whole-document rules then)",
      { comment: unknownStringValue, defaultRule: [{ treatment: "on", size: 10 }] },
      ["comment"],
    ],
  ])("does not judge a definition with an unknown %s", async (_, over, path) => {
    const props = unknownCheckingProxy(await checkedProps(FLAG_DEFINITION_TYPE, { ...definition, ...over }));
    await expect(runResourcePolicy(definitionWellFormed, FLAG_DEFINITION_TYPE, props)).rejects.toThrow(
      expect.objectContaining({ props: path }),
    );
  });

  it("does not misreport an unknown step timeout as a bad duration", async () => {
    const pipeline = {
      identifier: "p",
      name: "p",
      stages: [
        {
          identifier: "s",
          name: "s",
          type: "Custom",
          execution: {
            steps: [{ type: "ShellScript", identifier: "x", name: "x", timeout: unknownStringValue }],
          },
        },
      ],
    };
    const props = unknownCheckingProxy(await checkedProps(PIPELINE_TYPE, { project: "p", pipeline }));
    await expect(runResourcePolicy(pipelineStepTimeouts, PIPELINE_TYPE, props)).rejects.toThrow(
      expect.objectContaining({
        message: "string value at .pipeline.stages.0.execution.steps.0.timeout can't be known during preview",
      }),
    );
  });

  it("judges a flag whose unknown values are outputs only", async () => {
    const props = unknownCheckingProxy({
      ...(await checkedProps(FLAG_TYPE, { workspace: "Default", name: "New_Checkout" })),
      flagId: unknownStringValue,
    });
    expect(await runResourcePolicy(flagNaming, FLAG_TYPE, props)).toEqual([
      'flag name "New_Checkout" does not match the pattern ^[a-z][a-z0-9]*(-[a-z0-9]+)*$',
    ]);
  });

  it("throws an error of the engine's shape for the sentinel in plain props (no engine proxy)", async () => {
    const props = await checkedProps(FLAG_TYPE, { workspace: "Default", name: UNKNOWN });
    const error = await readFlag(props).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(UnknownInputError);
    expect(error).toMatchObject({ message: "value at .name can't be known during preview", props: ["name"] });
    expect(isUnknownValueError(error)).toBe(true);
    expect(isUnknownValueError(new UnknownValueError(unknownStringValue, ["x"]))).toBe(true);
    expect(isUnknownValueError(new Error("x"))).toBe(false);
  });
});
