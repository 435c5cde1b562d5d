import * as policyProxy from "@pulumi/policy/proxy";
import { describe, expect, it } from "vitest";
import { definitionWellFormed, productionRampGuard } from "../../policy/definitions";
import {
  isUnknownValueError,
  readConnector,
  readDefinition,
  readFlag,
  readPipeline,
  readProject,
} from "../../policy/resources";
import { FLAG_DEFINITION_TYPE, FLAG_TYPE } from "../../provider/types";
import { runResourcePolicy, runStackPolicy } from "./util";

// How the engine hands props to policies during a preview: a proxy that throws on unknown values.
const { unknownCheckingProxy, unknownStringValue } = policyProxy as unknown as {
  unknownCheckingProxy: <T extends object>(o: T) => T;
  unknownStringValue: unknown;
};

describe("readDefinition", () => {
  it("reads the provider's inputs: flag and environment names, configurations objects, the default rule", () => {
    expect(
      readDefinition({
        workspace: "Default",
        flag: "new-checkout",
        environment: "Production",
        treatments: [{ name: "on", configurations: { color: "green" } }, { name: "off" }],
        defaultTreatment: "off",
        killed: true,
        comment: "INC-1",
        adopt: false,
      }),
    ).toEqual({
      flagName: "new-checkout",
      environment: "Production",
      environmentNames: ["Production"],
      workspace: "Default",
      trafficType: undefined,
      killed: true,
      comment: "INC-1",
      title: undefined,
      body: {
        treatments: [{ name: "on", configurations: '{"color":"green"}' }, { name: "off" }],
        defaultTreatment: "off",
        killed: true,
        defaultRule: [{ treatment: "off", size: 100 }],
      },
    });
  });

  it("matches the resolved environment name and id of the outputs too", () => {
    const view = readDefinition({
      flag: "f",
      environment: "env-123",
      environmentName: "Production",
      environmentId: "env-123",
      treatments: [],
      defaultTreatment: "x",
    });
    expect(view.environment).toBe("env-123");
    expect(view.environmentNames).toEqual(["env-123", "Production"]);
  });
});

describe("readFlag", () => {
  it("reads names, tags as strings or {name}, and rollout status objects", () => {
    expect(
      readFlag({
        name: "f",
        tags: ["a", { name: "b" }],
        rolloutStatus: { id: "rs1", name: "Ramping" },
        workspace: "Default",
        trafficType: "user",
      }),
    ).toEqual({
      name: "f",
      description: undefined,
      tags: ["a", "b"],
      rolloutStatus: "Ramping",
      workspace: "Default",
      trafficType: "user",
    });
  });
});

describe("readConnector and readProject", () => {
  it("reads the typed docker registry input, whose auth defaults to Anonymous", () => {
    expect(
      readConnector({
        org: "default",
        project: "p",
        identifier: "c",
        name: "C",
        dockerRegistry: { url: "https://r", providerType: "DockerHub" },
      }),
    ).toEqual({
      identifier: "c",
      name: "C",
      type: "DockerRegistry",
      org: "default",
      project: "p",
      authType: "Anonymous",
    });
  });

  it("reads the wire shape (type, spec.auth) and a generic connector", () => {
    expect(
      readConnector({ identifier: "c", type: "DockerRegistry", spec: { auth: { type: "UsernamePassword" } } })
        .authType,
    ).toBe("UsernamePassword");
    expect(
      readConnector({ identifier: "g", generic: { type: "Git", spec: { auth: { type: "Http" } } } }),
    ).toMatchObject({ type: "Git", authType: "Http" });
  });

  it("reads project tags as strings", () => {
    expect(readProject({ org: "default", identifier: "p", tags: { env: "production", tier: 1 } })).toEqual({
      identifier: "p",
      org: "default",
      tags: { env: "production", tier: "1" },
    });
  });
});

describe("readPipeline", () => {
  it("reads steps of parallel groups and step groups in YAML, with their paths", () => {
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
                  steps:
                    - step: {identifier: b, name: b, type: ShellScript, spec: {timeout: 2m}}
`;
    const view = readPipeline({ yaml });
    expect(view?.stages[0]?.steps.map((s) => [s.identifier, s.timeout, s.script, s.path])).toEqual([
      ["a", "1m", "echo a", "pipeline.stages[0].stage.spec.execution.steps[0].parallel[0].step"],
      ["b", "2m", undefined, "pipeline.stages[0].stage.spec.execution.steps[1].stepGroup.steps[0].step"],
    ]);
  });

  it("counts a serialized runtime input as a timeout, and refuses YAML without a pipeline key", () => {
    const view = readPipeline({
      pipeline: {
        identifier: "p",
        stages: [
          {
            identifier: "s",
            type: "Custom",
            execution: { steps: [{ type: "ShellScript", identifier: "x", timeout: { $input: {} } }] },
          },
        ],
      },
    });
    expect(view?.stages[0]?.steps[0]?.timeout).toBe("<+input>");
    expect(() => readPipeline({ yaml: "stages: []" })).toThrow(
      "the pipeline YAML has no top-level pipeline key",
    );
    expect(readPipeline({ org: "default" })).toBeUndefined();
  });
});

describe("values unknown during a preview", () => {
  const inputs = {
    workspace: "Default",
    flag: "new-checkout",
    environment: "Production",
    treatments: [{ name: "on" }, { name: "off" }],
    defaultTreatment: "off",
    defaultRule: [{ treatment: "on", size: 100 }],
  };

  it("reads known inputs next to unknown outputs (no spreading of the props)", async () => {
    const props = unknownCheckingProxy({
      ...inputs,
      flagId: unknownStringValue,
      environmentName: unknownStringValue,
      environmentId: unknownStringValue,
    });
    expect(readDefinition(props)).toMatchObject({
      flagName: "new-checkout",
      environmentNames: ["Production"],
    });
    expect(await runResourcePolicy(definitionWellFormed, FLAG_DEFINITION_TYPE, props)).toEqual([]);
    const flag = unknownCheckingProxy({
      workspace: "Default",
      name: "new-checkout",
      rolloutStatus: "Ramping",
      flagId: unknownStringValue,
    });
    expect(
      await runStackPolicy(productionRampGuard, [
        { type: FLAG_TYPE, props: flag },
        { type: FLAG_DEFINITION_TYPE, props },
      ]),
    ).toEqual([]);
  });

  it("uses the resolved output when the input is unknown", () => {
    const props = unknownCheckingProxy({
      ...inputs,
      environment: unknownStringValue,
      environmentName: "Production",
    });
    expect(readDefinition(props)).toMatchObject({
      environment: "Production",
      environmentNames: ["Production"],
    });
  });

  it("lets the engine report an input the policy needs and cannot know", () => {
    const props = unknownCheckingProxy({ ...inputs, flag: unknownStringValue });
    expect(() => readDefinition(props)).toThrow(
      expect.objectContaining({
        message: "string value at .flag can't be known during preview",
        props: ["flag"],
      }),
    );
    expect(
      isUnknownValueError(Object.assign(new Error("x"), { unknownTypeSentinel: unknownStringValue })),
    ).toBe(true);
    expect(isUnknownValueError(new Error("x"))).toBe(false);
  });
});
