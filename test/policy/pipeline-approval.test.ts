/**
 * pipeline-approval-before-production and trigger-production-input-set (issue 19): stack policies
 * over Pipeline, DeliveryEnvironment and Trigger resources, each declared as a program does and
 * checked by its provider.
 */
import { describe, expect, it } from "vitest";
import { pipelineApprovalBeforeProduction, triggerProductionInputSet } from "../../policy/pipelines";
import { DELIVERY_ENVIRONMENT_TYPE, PIPELINE_TYPE, TRIGGER_TYPE } from "../../provider/types";
import { runtimeInput } from "../../sdk/platform/pipeline";
import { checkedResource, runStackPolicy, stackUrn } from "./util";

const scope = { org: "default", project: "payments" };

const deploy = (
  environmentRef: unknown,
  steps: unknown[] = [{ type: "K8sRollingDeploy", name: "Roll", identifier: "roll" }],
) => ({
  type: "Deployment",
  name: "Deploy",
  identifier: "deploy",
  service: { serviceRef: "payments" },
  environment: { environmentRef },
  infrastructure: { connectorRef: "k8s", namespace: "payments" },
  execution: { steps },
});
const approval = {
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
        approvers: { userGroups: ["release"] },
      },
    ],
  },
};
const pipeline = (stages: unknown[]) =>
  checkedResource(
    PIPELINE_TYPE,
    { ...scope, pipeline: { name: "Ship", identifier: "ship", stages } },
    "ship",
  );
const environment = (identifier: string, type: string) =>
  checkedResource(DELIVERY_ENVIRONMENT_TYPE, { ...scope, identifier, name: identifier, type }, identifier);

describe("pipeline-approval-before-production", () => {
  it("reports a Deployment stage to an environment matching /prod/i with no approval before it", async () => {
    expect(
      await runStackPolicy(pipelineApprovalBeforeProduction, [await pipeline([deploy("prod")])]),
    ).toEqual([
      {
        message:
          'pipeline "ship" stage "deploy" deploys to production environment "prod" (its identifier matches /prod/i) with no approval before it: add an Approval stage before it, or a HarnessApproval step before its deployment steps',
        urn: stackUrn(PIPELINE_TYPE, "ship"),
      },
    ]);
  });

  it("decides by a DeliveryEnvironment's type when the stack declares it", async () => {
    const reports = await runStackPolicy(pipelineApprovalBeforeProduction, [
      await environment("live", "Production"),
      await environment("prod_mirror", "PreProduction"),
      await pipeline([deploy("live"), { ...deploy("prod_mirror"), identifier: "mirror" }]),
    ]);
    expect(reports.map((r) => r.message)).toEqual([
      'pipeline "ship" stage "deploy" deploys to production environment "live" (a DeliveryEnvironment of type Production) with no approval before it: add an Approval stage before it, or a HarnessApproval step before its deployment steps',
    ]);
  });

  it("passes with an Approval stage before, or an approval step before the deployment steps", async () => {
    const step = {
      type: "HarnessApproval",
      name: "Gate",
      identifier: "gate",
      approvalMessage: "Ship?",
      approvers: { userGroups: ["release"] },
    };
    expect(
      await runStackPolicy(pipelineApprovalBeforeProduction, [await pipeline([approval, deploy("prod")])]),
    ).toEqual([]);
    expect(
      await runStackPolicy(pipelineApprovalBeforeProduction, [
        await pipeline([
          deploy("prod", [step, { type: "K8sRollingDeploy", name: "Roll", identifier: "roll" }]),
        ]),
      ]),
    ).toEqual([]);
    expect(
      await runStackPolicy(pipelineApprovalBeforeProduction, [await pipeline([deploy("staging")])]),
    ).toEqual([]);
  });
});

/** A stage made from a template, of the type and environment its templateInputs name. */
const templated = (identifier: string, templateInputs: Record<string, unknown>) => ({
  type: "Template",
  name: identifier,
  identifier,
  template: { templateRef: `${identifier}_tpl`, templateInputs },
});

describe("pipeline-approval-before-production with stages made from templates", () => {
  it("counts a template stage whose templateInputs name type Approval as an Approval stage", async () => {
    const gate = templated("gate", { type: "Approval" });
    expect(
      await runStackPolicy(pipelineApprovalBeforeProduction, [await pipeline([gate, deploy("prod")])]),
    ).toEqual([]);
    const custom = templated("gate", { type: "Custom" });
    expect(
      (
        await runStackPolicy(pipelineApprovalBeforeProduction, [await pipeline([custom, deploy("prod")])])
      ).map((r) => r.message),
    ).toEqual([
      'pipeline "ship" stage "deploy" deploys to production environment "prod" (its identifier matches /prod/i) with no approval before it: add an Approval stage before it, or a HarnessApproval step before its deployment steps',
    ]);
  });

  it("does not judge a template stage that deploys: its approval steps are the template's", async () => {
    const release = templated("release", {
      type: "Deployment",
      spec: { environment: { environmentRef: "prod" } },
    });
    expect(await runStackPolicy(pipelineApprovalBeforeProduction, [await pipeline([release])])).toEqual([]);
  });
});

describe("trigger-production-input-set", () => {
  const trigger = (inputSetRefs?: string[]) =>
    checkedResource(
      TRIGGER_TYPE,
      {
        ...scope,
        pipelineIdentifier: "ship",
        identifier: "nightly",
        name: "Nightly",
        cron: { expression: "0 3 * * *" },
        ...(inputSetRefs ? { inputSetRefs } : {}),
      },
      "nightly",
    );
  const withInput = () => {
    const stage = deploy("prod");
    return pipeline([
      approval,
      { ...stage, infrastructure: { ...stage.infrastructure, namespace: runtimeInput() } },
    ]);
  };

  it("reports a trigger without an input set on a production pipeline with runtime inputs", async () => {
    expect(await runStackPolicy(triggerProductionInputSet, [await withInput(), await trigger()])).toEqual([
      {
        message:
          'trigger "nightly" starts pipeline "ship", which deploys to production environment "prod" and asks for runtime inputs, but names no input set: set inputSetRefs',
        urn: stackUrn(TRIGGER_TYPE, "nightly"),
      },
    ]);
  });

  it("reads a template stage's templateInputs: a Deployment to prod with a runtime input needs an input set", async () => {
    const release = (environmentRef: string) =>
      pipeline([
        templated("release", {
          type: "Deployment",
          spec: { environment: { environmentRef }, service: { serviceRef: "<+input>" } },
        }),
      ]);
    expect(await runStackPolicy(triggerProductionInputSet, [await release("prod"), await trigger()])).toEqual(
      [
        {
          message:
            'trigger "nightly" starts pipeline "ship", which deploys to production environment "prod" and asks for runtime inputs, but names no input set: set inputSetRefs',
          urn: stackUrn(TRIGGER_TYPE, "nightly"),
        },
      ],
    );
    expect(
      await runStackPolicy(triggerProductionInputSet, [await release("staging"), await trigger()]),
    ).toEqual([]);
  });

  it("passes with inputSetRefs, without runtime inputs, or off production", async () => {
    expect(
      await runStackPolicy(triggerProductionInputSet, [await withInput(), await trigger(["defaults"])]),
    ).toEqual([]);
    expect(
      await runStackPolicy(triggerProductionInputSet, [
        await pipeline([approval, deploy("prod")]),
        await trigger(),
      ]),
    ).toEqual([]);
    expect(
      await runStackPolicy(triggerProductionInputSet, [await withInput(), await trigger()], {
        productionEnvironmentPattern: "^live$",
      }),
    ).toEqual([]);
  });
});
