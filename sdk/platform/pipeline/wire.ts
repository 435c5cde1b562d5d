/**
 * The wire form of a pipeline: the YAML document the model renders to and parses from, as the API
 * stores it (spec §2 "Pipeline", ref §7.1). Every object is strict so that parsing never drops a
 * field the model cannot represent. Fields the spec and real pipelines place differently are read
 * in both places (ref §7.1); the renderer writes the real-world place.
 * @module
 */
import { z } from "zod";
import { Tags } from "../schemas";
import { Duration, entityRef, Flag, named, ShellVariableName, text, VariableName } from "./fields";
import {
  ApproverInput,
  Approvers,
  BuildAndPushDockerRegistryStep,
  CIInfrastructure,
  ExecutionTarget,
  FailureStrategy,
  RunStep,
  Shell,
  STAGE_TYPES,
  TemplateLink,
  unknownStepType,
  Variable,
} from "./model";

/** A variable as written in YAML: the value is plain (a runtime input is its `<+input>` text). */
export const WireVariable = z.strictObject({
  name: VariableName,
  type: Variable.shape.type,
  description: z.string().optional(),
  required: z.boolean().optional(),
  value: z.union([z.string(), z.number()], { error: "value must be a string or a number" }),
});
const WireEnvVariable = z.strictObject({
  name: ShellVariableName,
  type: Variable.shape.type,
  value: z.union([z.string(), z.number()], { error: "value must be a string or a number" }),
});
const WireOutputVariable = z.strictObject({
  name: ShellVariableName,
  type: z.enum(["String", "Secret"], { error: "type must be String or Secret" }),
  value: ShellVariableName,
});
const wireStepBase = {
  ...named,
  timeout: Duration.optional(),
  failureStrategies: z.array(FailureStrategy).optional(),
};
const WireShellScript = z.strictObject({
  type: z.literal("ShellScript"),
  ...wireStepBase,
  spec: z.strictObject({
    shell: Shell,
    onDelegate: z.boolean().optional(),
    source: z.strictObject({
      type: z.literal("Inline", { error: "only Inline scripts are supported" }),
      spec: z.strictObject({ script: z.string().min(1, "script cannot be empty") }),
    }),
    environmentVariables: z.array(WireEnvVariable).optional(),
    outputVariables: z.array(WireOutputVariable).optional(),
    executionTarget: ExecutionTarget.optional(),
    // The spec lists `timeout` among the step spec's fields; real pipelines put it next to `spec`
    // (ref §7.1). Both are read; the renderer writes the real-world place.
    timeout: Duration.optional(),
  }),
});
const WireK8sRollingDeploy = z.strictObject({
  type: z.literal("K8sRollingDeploy"),
  ...wireStepBase,
  spec: z.strictObject({ skipDryRun: Flag.optional(), pruningEnabled: Flag.optional() }),
});
const WireK8sRollingRollback = z.strictObject({
  type: z.literal("K8sRollingRollback"),
  ...wireStepBase,
  spec: z.strictObject({ pruningEnabled: Flag.optional() }).optional(),
});
const WireRun = z.strictObject({
  type: z.literal("Run"),
  ...wireStepBase,
  spec: z.strictObject({
    connectorRef: RunStep.shape.connectorRef,
    image: RunStep.shape.image,
    shell: RunStep.shape.shell.unwrap().optional(),
    command: RunStep.shape.command,
  }),
});
const WireBuildAndPush = z.strictObject({
  type: z.literal("BuildAndPushDockerRegistry"),
  ...wireStepBase,
  spec: z.strictObject({
    connectorRef: BuildAndPushDockerRegistryStep.shape.connectorRef,
    repo: BuildAndPushDockerRegistryStep.shape.repo,
    tags: BuildAndPushDockerRegistryStep.shape.tags,
    dockerfile: BuildAndPushDockerRegistryStep.shape.dockerfile,
    context: BuildAndPushDockerRegistryStep.shape.context,
  }),
});
const WireHarnessApproval = z.strictObject({
  type: z.literal("HarnessApproval"),
  ...wireStepBase,
  spec: z.strictObject({
    approvalMessage: text("approvalMessage"),
    includePipelineExecutionHistory: Flag.optional(),
    approvers: Approvers,
    approverInputs: z.array(ApproverInput).optional(),
  }),
});
/** A step as written in YAML (`- step: {...}`), of a type the model has. */
export const WireStep = z.discriminatedUnion(
  "type",
  [
    WireShellScript,
    WireK8sRollingDeploy,
    WireK8sRollingRollback,
    WireRun,
    WireBuildAndPush,
    WireHarnessApproval,
  ],
  {
    error: (iss) => unknownStepType(iss),
  },
);
/** See {@link WireStep}. */
export type WireStep = z.output<typeof WireStep>;
/** An entry of `steps`/`rollbackSteps`: exactly one of `step` and `parallel`. */
export const WireStepElement = z
  .strictObject({
    step: WireStep.optional(),
    parallel: z
      .array(z.strictObject({ step: WireStep }))
      .min(1, "a parallel group needs at least one step")
      .optional(),
  })
  .refine((e) => (e.step === undefined) !== (e.parallel === undefined), {
    error: "each entry needs exactly one of step or parallel",
  });
const WireExecution = z.strictObject({
  steps: z
    .array(WireStepElement, { error: "steps must be a list of steps" })
    .min(1, "a stage needs at least one step"),
  rollbackSteps: z.array(WireStepElement).optional(),
});
const wireStageBase = {
  ...named,
  tags: Tags.optional(),
  failureStrategies: z.array(FailureStrategy).optional(),
  variables: z.array(WireVariable).optional(),
};
/**
 * The v2 form of a Deployment stage's spec (services and environments as entities): `service`
 * and `environment` with its `infrastructureDefinitions` (Harness docs' v2 CD pipeline samples;
 * harness/terraform-provider-harness examples of `harness_platform_pipeline`).
 */
const WireDeploymentSpecV2 = z.strictObject({
  deploymentType: z.literal("Kubernetes", { error: "only Kubernetes services are supported" }),
  service: z.strictObject({ serviceRef: entityRef("serviceRef") }),
  environment: z.strictObject({
    environmentRef: entityRef("environmentRef"),
    deployToAll: z.literal(false, { error: "deployToAll is not supported" }).optional(),
    infrastructureDefinitions: z
      .array(z.strictObject({ identifier: entityRef("identifier") }))
      .min(1, "infrastructureDefinitions needs at least one infrastructure"),
  }),
  execution: WireExecution,
});
const WireDeploymentStage = z.strictObject({
  type: z.literal("Deployment"),
  ...wireStageBase,
  spec: z
    .strictObject({
      serviceConfig: z.strictObject({
        serviceRef: entityRef("serviceRef"),
        serviceDefinition: z.strictObject({
          type: z.literal("Kubernetes", { error: "only Kubernetes services are supported" }),
          spec: z.strictObject({ variables: z.array(WireVariable).optional() }).optional(),
        }),
      }),
      infrastructure: z.strictObject({
        environmentRef: entityRef("environmentRef"),
        infrastructureDefinition: z.strictObject({
          type: z.literal("KubernetesDirect", { error: "only KubernetesDirect infrastructure is supported" }),
          spec: z.strictObject({
            connectorRef: entityRef("connectorRef"),
            namespace: text("namespace"),
            releaseName: text("releaseName"),
            // Listed in the infrastructure definition's spec by the spec, next to it in real
            // pipelines (ref §7.1); both are read.
            allowSimultaneousDeployments: z.boolean().optional(),
          }),
        }),
        allowSimultaneousDeployments: z.boolean().optional(),
      }),
      execution: WireExecution,
    })
    .or(WireDeploymentSpecV2),
});
const WireCustomStage = z.strictObject({
  type: z.literal("Custom"),
  ...wireStageBase,
  spec: z.strictObject({ execution: WireExecution }),
});
const WireApprovalStage = z.strictObject({
  type: z.literal("Approval"),
  ...wireStageBase,
  spec: z.strictObject({ execution: WireExecution }),
});
const CloudInfrastructure = CIInfrastructure.options[1];
const WireCIStage = z.strictObject({
  type: z.literal("CI"),
  ...wireStageBase,
  spec: z
    .strictObject({
      cloneCodebase: z.boolean({ error: "cloneCodebase must be true or false" }).optional(),
      // Kubernetes build infrastructure, or a Cloud runtime with its platform (Harness docs' CI samples).
      infrastructure: z
        .strictObject({
          type: z.literal("KubernetesDirect", {
            error: "only KubernetesDirect build infrastructure is supported",
          }),
          spec: z.strictObject({
            connectorRef: entityRef("connectorRef"),
            namespace: text("namespace"),
          }),
        })
        .optional(),
      platform: z
        .strictObject({ os: CloudInfrastructure.shape.os, arch: CloudInfrastructure.shape.arch })
        .optional(),
      runtime: z
        .strictObject({
          type: z.literal("Cloud", { error: "only the Cloud runtime is supported" }),
          spec: z.strictObject({}).optional(),
        })
        .optional(),
      execution: z.strictObject({ steps: WireExecution.shape.steps }),
    })
    .superRefine((spec, ctx) => {
      if ((spec.infrastructure === undefined) === (spec.runtime === undefined))
        ctx.addIssue({
          code: "custom",
          message: "a CI stage needs exactly one of infrastructure and runtime",
        });
      else if (spec.platform !== undefined && spec.runtime === undefined)
        ctx.addIssue({
          code: "custom",
          path: ["platform"],
          message: "platform is only read with runtime Cloud",
        });
    }),
});
/** A stage as written in YAML (`- stage: {...}`) of a kind the model has. */
export const WireStage = z.discriminatedUnion(
  "type",
  [WireDeploymentStage, WireCustomStage, WireCIStage, WireApprovalStage],
  {
    error: (iss) =>
      `unknown stage type ${JSON.stringify((iss.input as { type?: unknown } | undefined)?.type)}; expected one of ${STAGE_TYPES.join(", ")}`,
  },
);
/** A stage made from a template as written in YAML: no `type`, a `template` (model's {@link TemplateLink}). */
export const WireStageFromTemplate = z.strictObject({ ...named, template: TemplateLink });
/** See {@link WireStageFromTemplate}. */
export type WireStageFromTemplate = z.output<typeof WireStageFromTemplate>;

const isMap = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * The `stage` of a stages entry: a {@link WireStageFromTemplate} when it has a `template`, else a
 * {@link WireStage}; the chosen schema's issues are kept at their paths (an unknown key named by
 * its own path), so a message names the field as without the choice.
 */
const WireAnyStage = z
  .unknown()
  .transform((value, ctx): z.output<typeof WireStage> | WireStageFromTemplate => {
    const template = isMap(value) && value.template !== undefined;
    const parsed = template ? WireStageFromTemplate.safeParse(value) : WireStage.safeParse(value);
    if (parsed.success) return parsed.data;
    for (const issue of parsed.error.issues) {
      if (issue.code === "unrecognized_keys") {
        for (const key of issue.keys)
          ctx.addIssue({
            code: "custom",
            path: [...issue.path, key],
            message: `unknown field ${JSON.stringify(key)}`,
          });
      } else ctx.addIssue({ code: "custom", path: [...issue.path], message: issue.message });
    }
    return z.NEVER;
  });

const WirePipeline = z.strictObject({
  ...named,
  allowStageExecutions: z.boolean().optional(),
  projectIdentifier: z.string().optional(),
  orgIdentifier: z.string().optional(),
  tags: Tags.optional(),
  variables: z.array(WireVariable).optional(),
  properties: z
    .strictObject({
      ci: z.strictObject({
        codebase: z.strictObject({
          connectorRef: entityRef("connectorRef"),
          repoName: text("repoName").optional(),
          build: z.union([
            z.strictObject({
              type: z.enum(["branch", "tag", "PR"], { error: "build type must be branch, tag or PR" }),
              spec: z.record(z.string(), z.string()),
            }),
            z.string(),
          ]),
        }),
      }),
    })
    .optional(),
  stages: z
    .array(z.strictObject({ stage: WireAnyStage }), { error: "stages must be a list of stages" })
    .min(1, "a pipeline needs at least one stage"),
});
/** The pipeline YAML document the model renders to and parses from. */
export const PipelineDocument = z.strictObject({ pipeline: WirePipeline });
/** A parsed pipeline YAML document (see {@link PipelineDocument}). */
export type PipelineDocument = z.output<typeof PipelineDocument>;
