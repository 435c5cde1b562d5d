/**
 * The typed model of a platform pipeline (spec §2 "Pipeline"; real-world shape from ref §6-§7):
 * Deployment, Custom, CI and Approval stages, ShellScript / K8sRollingDeploy / K8sRollingRollback /
 * Run / BuildAndPushDockerRegistry / HarnessApproval steps (each legal in its stage kinds only,
 * {@link STAGE_STEP_TYPES}), parallel step groups, failure strategies, variables and tags, and the
 * pipeline's codebase for CI stages that clone it. {@link PipelineModel} (zod) is the
 * single source of the model's types; what a program writes is its input type.
 * @module
 */
import { z } from "zod";
import { dataRecord } from "../../core/data-record";
import { Identifier, Tags } from "../schemas";
import { PipelineModelError, pipelineIssues } from "./errors";
import { Duration, entityRef, Flag, inputable, named, ShellVariableName, text, VariableName } from "./fields";
import {
  CI_ARCH,
  CI_OS,
  CI_SHELLS,
  DEFAULT_APPROVAL_TIMEOUT,
  DEFAULT_STEP_TIMEOUT,
  isExpression,
  isRuntimeInputText,
  SCOPED_REFERENCE_PATTERN,
  SHELLS,
} from "./grammar";

// ---------------------------------------------------------------------------------------------
// Variables, failure strategies

/** Types of pipeline, stage and service variables. */
export const VARIABLE_TYPES = ["String", "Number", "Secret"] as const;

/** A pipeline, stage or service variable. `Secret` values name a secret (`account.x`). */
export const Variable = z.strictObject({
  name: VariableName,
  type: z.enum(VARIABLE_TYPES, { error: `type must be one of ${VARIABLE_TYPES.join(", ")}` }),
  description: z.string().optional(),
  required: z.boolean().optional(),
  value: inputable(z.union([z.string(), z.number()], { error: "value must be a string or a number" })),
});
export type Variable = z.output<typeof Variable>;

/** An environment variable of a ShellScript step. */
export const EnvironmentVariable = z.strictObject({
  name: ShellVariableName,
  type: z
    .enum(VARIABLE_TYPES, { error: `type must be one of ${VARIABLE_TYPES.join(", ")}` })
    .default("String"),
  value: inputable(z.union([z.string(), z.number()], { error: "value must be a string or a number" })),
});
export type EnvironmentVariable = z.output<typeof EnvironmentVariable>;

/** An output variable of a ShellScript step: `value` names the shell variable exported. */
export const OutputVariable = z.strictObject({
  name: ShellVariableName,
  type: z.enum(["String", "Secret"], { error: "type must be String or Secret" }).default("String"),
  value: ShellVariableName,
});
export type OutputVariable = z.output<typeof OutputVariable>;

/** Error kinds a failure strategy matches. */
export const FAILURE_ERRORS = [
  "AllErrors",
  "Unknown",
  "Authentication",
  "Authorization",
  "Connectivity",
  "Timeout",
  "Verification",
  "DelegateProvisioning",
  "DelegateRestart",
  "PolicyEvaluationFailure",
  "InputTimeoutError",
  "ApprovalRejection",
  "UserMarkedFailure",
] as const;

/** Failure actions without options. */
export const SIMPLE_FAILURE_ACTIONS = [
  "StageRollback",
  "PipelineRollback",
  "Abort",
  "MarkAsSuccess",
  "MarkAsFailure",
  "Ignore",
] as const;

const SimpleAction = z.strictObject({
  type: z.enum(SIMPLE_FAILURE_ACTIONS, {
    error: (iss) =>
      `unknown action type ${JSON.stringify(iss.input)}; expected one of ${SIMPLE_FAILURE_ACTIONS.join(", ")}`,
  }),
});
/** The shell of a ShellScript step. */
export const Shell = z.enum(SHELLS, { error: `shell must be one of ${SHELLS.join(", ")}` });

const ACTION_TYPES = [...SIMPLE_FAILURE_ACTIONS, "Retry", "ManualIntervention"] as const;

/** What to do on a failure: a simple action, Retry (with intervals) or ManualIntervention. */
export const FailureAction = z.discriminatedUnion(
  "type",
  [
    SimpleAction,
    z.strictObject({
      type: z.literal("Retry"),
      spec: z.strictObject({
        retryCount: z.number().int().min(1, "retryCount must be at least 1").max(10000),
        retryIntervals: z.array(Duration).min(1, "retryIntervals needs at least one duration"),
        onRetryFailure: z.strictObject({ action: SimpleAction }),
      }),
    }),
    z.strictObject({
      type: z.literal("ManualIntervention"),
      spec: z.strictObject({
        timeout: Duration,
        onTimeout: z.strictObject({ action: SimpleAction }),
      }),
    }),
  ],
  {
    error: (iss) =>
      `unknown action type ${JSON.stringify((iss.input as { type?: unknown })?.type)}; expected one of ${ACTION_TYPES.join(", ")}`,
  },
);
export type FailureAction = z.output<typeof FailureAction>;

/** A failure strategy: `onFailure: { errors: [...], action: {...} }`. */
export const FailureStrategy = z.strictObject({
  onFailure: z.strictObject({
    errors: z
      .array(
        z.enum(FAILURE_ERRORS, {
          error: (iss) =>
            `unknown error type ${JSON.stringify(iss.input)}; expected one of ${FAILURE_ERRORS.join(", ")}`,
        }),
      )
      .min(1, "errors needs at least one error type"),
    action: FailureAction,
  }),
});
export type FailureStrategy = z.output<typeof FailureStrategy>;

// ---------------------------------------------------------------------------------------------
// Steps

const stepBase = {
  ...named,
  /** Step timeout ({@link DEFAULT_STEP_TIMEOUT} when absent). */
  timeout: Duration.default(DEFAULT_STEP_TIMEOUT),
  failureStrategies: z.array(FailureStrategy).optional(),
};

/** Where a ShellScript step runs when not on the delegate. */
export const ExecutionTarget = z.strictObject({
  host: text("host").optional(),
  connectorRef: entityRef("connectorRef").optional(),
  workingDirectory: text("workingDirectory").optional(),
});
export type ExecutionTarget = z.output<typeof ExecutionTarget>;

/**
 * What is wrong with a shell step's `executionTarget` for its `onDelegate`, or undefined: none on
 * the delegate, a complete one (host and connectorRef) off it, and when `onDelegate` is absent a
 * target, if any, complete.
 */
function executionTargetProblem(
  onDelegate: boolean | undefined,
  target: ExecutionTarget | undefined,
): string | undefined {
  const complete = target?.host !== undefined && target.connectorRef !== undefined;
  if (onDelegate === true) {
    return target === undefined ? undefined : "executionTarget cannot be set when onDelegate is true";
  }
  if (onDelegate === false) {
    return complete ? undefined : "executionTarget needs host and connectorRef when onDelegate is false";
  }
  return target === undefined || complete ? undefined : "executionTarget needs host and connectorRef";
}

/**
 * A ShellScript step running an inline script. It runs on the delegate unless `executionTarget`
 * names a host (then `onDelegate` is false).
 */
export const ShellScriptStep = z
  .strictObject({
    type: z.literal("ShellScript"),
    ...stepBase,
    shell: Shell.default("Bash"),
    script: text("script"),
    environmentVariables: z.array(EnvironmentVariable).default([]),
    outputVariables: z.array(OutputVariable).default([]),
    onDelegate: z.boolean().optional(),
    executionTarget: ExecutionTarget.optional(),
  })
  .superRefine((s, ctx) => {
    const message = executionTargetProblem(s.onDelegate, s.executionTarget);
    if (message !== undefined) ctx.addIssue({ code: "custom", path: ["executionTarget"], message });
  })
  .transform((s) => ({ ...s, onDelegate: s.onDelegate ?? s.executionTarget === undefined }));
export type ShellScriptStep = z.output<typeof ShellScriptStep>;

/** A Kubernetes rolling deployment of the stage's service. */
export const K8sRollingDeployStep = z.strictObject({
  type: z.literal("K8sRollingDeploy"),
  ...stepBase,
  skipDryRun: Flag.default(false),
  pruningEnabled: Flag.default(false),
});
export type K8sRollingDeployStep = z.output<typeof K8sRollingDeployStep>;

/** Rolls back the stage's last Kubernetes rolling deployment. */
export const K8sRollingRollbackStep = z.strictObject({
  type: z.literal("K8sRollingRollback"),
  ...stepBase,
  pruningEnabled: Flag.default(false),
});
export type K8sRollingRollbackStep = z.output<typeof K8sRollingRollbackStep>;

/** A CI `Run` step: a command run in a container (or on the build host of a Cloud runtime). */
export const RunStep = z.strictObject({
  type: z.literal("Run"),
  ...stepBase,
  /** The connector the image is pulled through (a Docker registry connector). */
  connectorRef: entityRef("connectorRef").optional(),
  image: text("image").optional(),
  shell: z.enum(CI_SHELLS, { error: `shell must be one of ${CI_SHELLS.join(", ")}` }).default("Sh"),
  command: text("command"),
});
export type RunStep = z.output<typeof RunStep>;

/** Builds an image from the cloned codebase and pushes it to a Docker registry. */
export const BuildAndPushDockerRegistryStep = z.strictObject({
  type: z.literal("BuildAndPushDockerRegistry"),
  ...stepBase,
  /** The Docker registry connector pushed to. */
  connectorRef: entityRef("connectorRef"),
  /** The repository (`org/app`). */
  repo: text("repo"),
  tags: z.array(text("tags"), { error: "tags must be a list of tags" }).min(1, "tags needs at least one tag"),
  dockerfile: text("dockerfile").optional(),
  context: text("context").optional(),
});
export type BuildAndPushDockerRegistryStep = z.output<typeof BuildAndPushDockerRegistryStep>;

const MINIMUM_COUNT = "minimumCount must be a whole number of at least 1, or a <+...> expression";

/** Who approves a HarnessApproval step: user groups (`account.x`/`org.x` scoped as any reference). */
export const Approvers = z.strictObject({
  userGroups: z
    .array(entityRef("userGroups"), { error: "userGroups must be a list of user group references" })
    .min(1, "userGroups needs at least one user group"),
  minimumCount: inputable(
    z.union(
      [z.number().int(MINIMUM_COUNT).min(1, MINIMUM_COUNT), z.string().refine(isExpression, MINIMUM_COUNT)],
      { error: MINIMUM_COUNT },
    ),
  ).default(1),
  disallowPipelineExecutor: Flag.default(false),
});
export type Approvers = z.output<typeof Approvers>;

/** A value the approver may give (`approverInputs`), read later as `<+...output.approverInputs.x>`. */
export const ApproverInput = z.strictObject({
  name: VariableName,
  defaultValue: z.string({ error: "defaultValue must be a string" }).default(""),
});

/** A manual approval by user groups; the run waits for it (one day by default). */
export const HarnessApprovalStep = z.strictObject({
  type: z.literal("HarnessApproval"),
  ...stepBase,
  timeout: Duration.default(DEFAULT_APPROVAL_TIMEOUT),
  approvalMessage: text("approvalMessage"),
  includePipelineExecutionHistory: Flag.default(true),
  approvers: Approvers,
  approverInputs: z.array(ApproverInput).default([]),
});
export type HarnessApprovalStep = z.output<typeof HarnessApprovalStep>;

/** Step types of the model (the `type` of a step). */
export const STEP_TYPES = [
  "ShellScript",
  "K8sRollingDeploy",
  "K8sRollingRollback",
  "Run",
  "BuildAndPushDockerRegistry",
  "HarnessApproval",
] as const;

const STEP_SCHEMAS = [
  ShellScriptStep,
  K8sRollingDeployStep,
  K8sRollingRollbackStep,
  RunStep,
  BuildAndPushDockerRegistryStep,
  HarnessApprovalStep,
] as const;

/** The message for a step of a type the model does not have. */
export const unknownStepType = (iss: { input?: unknown }, extra: readonly string[] = []) =>
  `unknown step type ${JSON.stringify((iss.input as { type?: unknown } | undefined)?.type)}; expected one of ${[...STEP_TYPES, ...extra].join(", ")}`;

/** One step. */
export const Step = z.discriminatedUnion("type", [...STEP_SCHEMAS], {
  error: (iss) => unknownStepType(iss),
});
export type Step = z.output<typeof Step>;

/** Steps that run at the same time (`- parallel: [...]` in YAML). */
export const ParallelSteps = z.strictObject({
  type: z.literal("Parallel"),
  steps: z.array(Step).min(1, "a parallel group needs at least one step"),
});
export type ParallelSteps = z.output<typeof ParallelSteps>;

/** An entry of `steps`/`rollbackSteps`: a step or a parallel group. */
export const StepElement = z.discriminatedUnion("type", [...STEP_SCHEMAS, ParallelSteps], {
  error: (iss) => unknownStepType(iss, ["Parallel"]),
});
export type StepElement = z.output<typeof StepElement>;

/** Steps of a stage and the steps run to roll it back. */
export const Execution = z.strictObject({
  steps: z
    .array(StepElement, { error: "steps must be a list of steps" })
    .min(1, "a stage needs at least one step"),
  rollbackSteps: z.array(StepElement).default([]),
});
export type Execution = z.output<typeof Execution>;

/** Steps of a CI stage: CI stages have no rollback steps. */
export const CIExecution = z.strictObject({ steps: Execution.shape.steps });
export type CIExecution = z.output<typeof CIExecution>;

// ---------------------------------------------------------------------------------------------
// Stages

const stageBase = {
  ...named,
  execution: Execution,
  failureStrategies: z.array(FailureStrategy).default([]),
  tags: Tags.default({}),
  variables: z.array(Variable).optional(),
};

/** The service a Deployment stage deploys (`serviceConfig` in YAML; a Kubernetes service). */
export const StageService = z.strictObject({
  serviceRef: entityRef("serviceRef"),
  variables: z.array(Variable).default([]),
});

/** Kubernetes infrastructure reached directly through a cluster connector. */
export const KubernetesDirectInfrastructure = z.strictObject({
  type: z.literal("KubernetesDirect").default("KubernetesDirect"),
  connectorRef: entityRef("connectorRef"),
  namespace: text("namespace"),
  releaseName: text("releaseName").default("release-<+INFRA_KEY>"),
  allowSimultaneousDeployments: z.boolean().default(false),
});

/**
 * Where a Deployment stage deploys: the environment, and, to deploy to infrastructure definitions
 * kept as their own entities (`Infrastructure` resources), their identifiers (the v2 form,
 * `spec.environment.infrastructureDefinitions` in YAML).
 */
export const StageEnvironment = z.strictObject({
  environmentRef: entityRef("environmentRef"),
  infrastructureDefinitions: z
    .array(entityRef("infrastructureDefinitions"), {
      error: "infrastructureDefinitions must be a list of infrastructure identifiers",
    })
    .min(1, "infrastructureDefinitions needs at least one infrastructure")
    .optional(),
});

/**
 * A Deployment stage: a service deployed to an environment's Kubernetes infrastructure, given
 * inline (`infrastructure`, with the service's `variables`: the v1 form, `serviceConfig` and
 * `infrastructure` in YAML) or as infrastructure definitions of the environment
 * (`environment.infrastructureDefinitions`: the v2 form, `service` and `environment` in YAML, the
 * service's variables living on the `Service`).
 */
export const DeploymentStage = z
  .strictObject({
    type: z.literal("Deployment"),
    ...stageBase,
    service: StageService,
    environment: StageEnvironment,
    infrastructure: KubernetesDirectInfrastructure.optional(),
  })
  .superRefine((s, ctx) => deploymentStageRules(s, ctx));
export type DeploymentStage = z.output<typeof DeploymentStage>;

/** The rules across a Deployment stage's members (its infrastructure given one way, not both). */
function deploymentStageRules(
  s: Pick<DeploymentStage, "environment" | "infrastructure" | "service">,
  ctx: z.RefinementCtx,
): void {
  const refs = s.environment.infrastructureDefinitions !== undefined;
  if (refs === (s.infrastructure !== undefined)) {
    ctx.addIssue({
      code: "custom",
      path: refs ? ["infrastructure"] : ["environment", "infrastructureDefinitions"],
      message: refs
        ? "give infrastructure or environment.infrastructureDefinitions, not both"
        : "a Deployment stage needs infrastructure or environment.infrastructureDefinitions",
    });
  }
  if (refs && s.service.variables.length > 0) {
    ctx.addIssue({
      code: "custom",
      path: ["service", "variables"],
      message:
        "service variables go on the Service when the stage names infrastructureDefinitions (the v2 form has no serviceDefinition)",
    });
  }
}

/** A Custom stage: steps only, no service or infrastructure. */
export const CustomStage = z.strictObject({
  type: z.literal("Custom"),
  ...stageBase,
});
export type CustomStage = z.output<typeof CustomStage>;

/** An Approval stage: a HarnessApproval step (and scripts) between the stages it guards. */
export const ApprovalStage = z.strictObject({
  type: z.literal("Approval"),
  ...stageBase,
});
export type ApprovalStage = z.output<typeof ApprovalStage>;

/** Where a CI stage builds: a Kubernetes cluster reached through a connector, or Harness Cloud. */
export const CIInfrastructure = z.discriminatedUnion(
  "type",
  [
    z.strictObject({
      type: z.literal("KubernetesDirect"),
      connectorRef: entityRef("connectorRef"),
      namespace: text("namespace"),
    }),
    z.strictObject({
      type: z.literal("Cloud"),
      os: z.enum(CI_OS, { error: `os must be one of ${CI_OS.join(", ")}` }).default("Linux"),
      arch: z.enum(CI_ARCH, { error: `arch must be one of ${CI_ARCH.join(", ")}` }).default("Amd64"),
    }),
  ],
  {
    error: (iss) =>
      `unknown infrastructure type ${JSON.stringify((iss.input as { type?: unknown } | undefined)?.type)}; expected one of KubernetesDirect, Cloud`,
  },
);
export type CIInfrastructure = z.output<typeof CIInfrastructure>;

/** A CI stage: Run and BuildAndPushDockerRegistry steps on a build infrastructure. */
export const CIStage = z.strictObject({
  type: z.literal("CI"),
  ...stageBase,
  execution: CIExecution,
  /** Clone the pipeline's {@link Codebase} first (true by default, as in the service's editor). */
  cloneCodebase: z.boolean({ error: "cloneCodebase must be true or false" }).default(true),
  infrastructure: CIInfrastructure,
});
export type CIStage = z.output<typeof CIStage>;

/** Stage types of the model that hold their own steps (a {@link StageFromTemplate} holds none). */
export const STAGE_TYPES = ["Deployment", "Custom", "CI", "Approval"] as const;

/** A template version label (as the Template kind's YAML: 1-64 of `[0-9a-zA-Z_.-]`). */
export const VERSION_LABEL_PATTERN = /^[0-9a-zA-Z_.-]{1,64}$/;

/**
 * The template a stage (or a pipeline) is made from (`template:` in YAML, harness-core
 * `TemplateLinkConfig`; terraform-provider-harness `resource_pipeline.go`'s examples):
 * `templateRef` names it in the pipeline's project, `org.x` in its organization, `account.x` at
 * account level; `versionLabel` names a version (absent: the template's stable version, harness-core
 * `TemplateMergeServiceHelper`, `STABLE_VERSION` when no label is given); `templateInputs` gives
 * values for the template's `<+input>` fields at the same paths, kept as given.
 */
export const TemplateLink = z.strictObject({
  /** The template: its identifier in the pipeline's project, `org.<id>` in its organization, `account.<id>` at account level. */
  templateRef: z
    .string({ error: "templateRef is required" })
    .regex(
      SCOPED_REFERENCE_PATTERN,
      "templateRef must be a template identifier, optionally prefixed with account. or org.",
    ),
  /** The template version used; absent: the template's stable version. */
  versionLabel: z
    .string({ error: "versionLabel must be a string" })
    .regex(VERSION_LABEL_PATTERN, "versionLabel must be 1-64 of the characters 0-9 a-z A-Z _ . -")
    .optional(),
  /** Values for the template's `<+input>` fields, at the same paths as in the template's spec; kept as given. */
  templateInputs: dataRecord(z.unknown(), { error: "templateInputs must be a map" }).optional(),
});
export type TemplateLink = z.output<typeof TemplateLink>;

/**
 * A stage made from a Stage template: its name, identifier and description, and the template
 * (`- stage: {name, identifier, template: {templateRef, versionLabel, templateInputs}}` in YAML,
 * which has no `type`: the template's spec gives it). Its steps are the template's, so the
 * pipeline's step rules do not look into it.
 */
export const StageFromTemplate = z.strictObject({
  type: z.literal("Template"),
  ...named,
  /** The Stage template the stage is made from, its version and the values of its runtime inputs. */
  template: TemplateLink,
});
export type StageFromTemplate = z.output<typeof StageFromTemplate>;

/** The `type` values of a pipeline's stage: {@link STAGE_TYPES} and `Template`. */
export const PIPELINE_STAGE_TYPES = [...STAGE_TYPES, "Template"] as const;

/**
 * The step types each stage kind takes. HarnessApproval steps go in Approval stages and, as the
 * Harness docs describe ("Using manual Harness approval steps in CD stages"), in Deployment and
 * Custom stages; CI stages take CI steps only; Kubernetes steps need a Deployment stage's service
 * and infrastructure.
 */
export const STAGE_STEP_TYPES: Record<(typeof STAGE_TYPES)[number], readonly (typeof STEP_TYPES)[number][]> =
  {
    Deployment: ["ShellScript", "K8sRollingDeploy", "K8sRollingRollback", "HarnessApproval"],
    Custom: ["ShellScript", "HarnessApproval"],
    CI: ["Run", "BuildAndPushDockerRegistry"],
    Approval: ["ShellScript", "HarnessApproval"],
  };

/** One stage: its own steps, or a {@link StageFromTemplate}. */
export const Stage = z.discriminatedUnion(
  "type",
  [DeploymentStage, CustomStage, CIStage, ApprovalStage, StageFromTemplate],
  {
    error: (iss) =>
      `unknown stage type ${JSON.stringify((iss.input as { type?: unknown } | undefined)?.type)}; expected one of ${PIPELINE_STAGE_TYPES.join(", ")}`,
  },
);
export type Stage = z.output<typeof Stage>;
/** A stage that holds its own steps (every stage but a {@link StageFromTemplate}). */
export type StepStage = Exclude<Stage, StageFromTemplate>;

/** A stage's members but its name, identifier and description. */
const UNNAMED = { name: true, identifier: true, description: true } as const;

/**
 * What a Stage template holds (its YAML's `spec`): a {@link Stage} without name, identifier and
 * description, which the pipeline's stage that uses the template gives (harness-core
 * `StageTemplateEntityConfig`; terraform-provider-harness `resource_template.go`'s examples).
 */
export const TemplateStage = z
  .discriminatedUnion(
    "type",
    [
      z
        .strictObject(DeploymentStage.shape)
        .omit(UNNAMED)
        .superRefine((s, ctx) => deploymentStageRules(s, ctx)),
      CustomStage.omit(UNNAMED),
      CIStage.omit(UNNAMED),
      ApprovalStage.omit(UNNAMED),
    ],
    {
      error: (iss) =>
        `unknown stage type ${JSON.stringify((iss.input as { type?: unknown } | undefined)?.type)}; expected one of ${STAGE_TYPES.join(", ")}`,
    },
  )
  .superRefine((s, ctx) => stageRules(s, ctx, []));
export type TemplateStage = z.output<typeof TemplateStage>;
export type TemplateStageInput = z.input<typeof TemplateStage>;

// ---------------------------------------------------------------------------------------------
// Pipeline

/** `a CI`, `an Approval`: the word with its article, for messages. */
export const anArticle = (word: string): string => `${/^[AEIOUaeiou]/.test(word) ? "an" : "a"} ${word}`;

/** Each step of a list with its path in the list (`[i]` or `[i, "steps", j]`). */
function stepsOf(elements: StepElement[]): { step: Step; path: (string | number)[] }[] {
  return elements.flatMap((e, i) =>
    e.type === "Parallel"
      ? e.steps.map((s, j) => ({ step: s, path: [i, "steps", j] }))
      : [{ step: e, path: [i] }],
  );
}

/** The step lists of a stage: CI stages have no rollback steps. */
const stepLists = (stage: Pick<StepStage, "execution">) =>
  [
    ["steps", stage.execution.steps],
    ["rollbackSteps", "rollbackSteps" in stage.execution ? stage.execution.rollbackSteps : []],
  ] as const;

/** How a CI stage's build is chosen: a branch, a tag or a pull request (`<+input>` by default). */
export const CodebaseBuild = z.discriminatedUnion(
  "type",
  [
    z.strictObject({ type: z.literal("branch"), branch: text("branch") }),
    z.strictObject({ type: z.literal("tag"), tag: text("tag") }),
    z.strictObject({ type: z.literal("PR"), number: text("number") }),
  ],
  {
    error: (iss) =>
      `unknown build type ${JSON.stringify((iss.input as { type?: unknown } | undefined)?.type)}; expected one of branch, tag, PR`,
  },
);
export type CodebaseBuild = z.output<typeof CodebaseBuild>;

const BUILD_MESSAGE = "build must be { type: branch | tag | PR, ... } or a runtime input";

/**
 * The repository CI stages clone (`properties.ci.codebase` in YAML): a Git connector (GitHub,
 * Git, ...), the repository for an account-level connector, and the build to clone.
 */
export const Codebase = z.strictObject({
  connectorRef: entityRef("connectorRef"),
  repoName: text("repoName").optional(),
  build: inputable(
    z.union([CodebaseBuild, z.string().refine(isRuntimeInputText)], {
      error: (iss) => {
        const branches = (iss as unknown as { errors?: z.core.$ZodIssue[][] }).errors ?? [];
        const typed = typeof iss.input === "object" && iss.input !== null;
        return typed ? (branches[0]?.[0]?.message ?? BUILD_MESSAGE) : BUILD_MESSAGE;
      },
    }),
  ).default("<+input>"),
});
export type Codebase = z.output<typeof Codebase>;

/**
 * A pipeline (spec §2 "Pipeline"). Its organization and project are not part of the model: they
 * come from the resource's scope when it is rendered. A pipeline made whole from a Pipeline
 * template (`pipeline: {name, identifier, template}`, no stages) is not a model: the Pipeline
 * resource takes it as raw YAML.
 */
export const PipelineModel = z
  .strictObject({
    ...named,
    tags: Tags.default({}),
    allowStageExecutions: z.boolean().default(false),
    variables: z.array(Variable).optional(),
    /** The repository CI stages clone; required when one does (`cloneCodebase`). */
    codebase: Codebase.optional(),
    stages: z
      .array(Stage, { error: "stages must be a list of stages" })
      .min(1, "a pipeline needs at least one stage"),
  })
  .superRefine((p, ctx) => pipelineRules(p, ctx));
/** A validated pipeline model (defaults applied, runtime inputs as their `<+input>` text). */
export type PipelineModel = z.output<typeof PipelineModel>;

/** The rules across a pipeline's stages (and a Pipeline template's). */
function pipelineRules(p: { stages: Stage[]; codebase?: Codebase | undefined }, ctx: z.RefinementCtx): void {
  // A CI stage that clones needs the pipeline's codebase (`properties.ci.codebase`).
  const cloning = p.stages.findIndex((s) => s.type === "CI" && s.cloneCodebase);
  if (cloning >= 0 && p.codebase === undefined) {
    ctx.addIssue({
      code: "custom",
      path: ["codebase"],
      message: `codebase is required: CI stage ${p.stages[cloning]!.identifier} (stages[${cloning}]) clones it; set codebase { connectorRef, repoName, build } or the stage's cloneCodebase: false`,
    });
  }
  // ref §7.1: stage identifiers are unique in the pipeline, step identifiers in their stage.
  const stages = new Map<string, number>();
  p.stages.forEach((stage, i) => {
    const first = stages.get(stage.identifier);
    if (first !== undefined) {
      ctx.addIssue({
        code: "custom",
        path: ["stages", i, "identifier"],
        message: `stage identifier ${stage.identifier} is already used by stages[${first}]`,
      });
    } else stages.set(stage.identifier, i);
    // A template stage's steps are the template's: the step rules cannot see them.
    if (stage.type !== "Template") stageRules(stage, ctx, ["stages", i]);
  });
}

/**
 * The rules inside one stage, its issues at `at`: each step type goes in the stage kinds that run
 * it (STAGE_STEP_TYPES), and step identifiers are unique in their stage (ref §7.1).
 */
function stageRules(
  stage: Pick<StepStage, "type" | "execution"> & { identifier?: string },
  ctx: z.RefinementCtx,
  at: (string | number)[],
): void {
  const allowed = STAGE_STEP_TYPES[stage.type];
  const steps = new Set<string>();
  for (const [list, elements] of stepLists(stage)) {
    for (const { step, path } of stepsOf(elements)) {
      if (!allowed.includes(step.type)) {
        ctx.addIssue({
          code: "custom",
          path: [...at, "execution", list, ...path, "type"],
          message: `a ${step.type} step cannot run in ${anArticle(stage.type)} stage; ${anArticle(stage.type)} stage takes ${allowed.join(", ")}`,
        });
      }
      const id = step.identifier;
      if (steps.has(id)) {
        ctx.addIssue({
          code: "custom",
          path: [...at, "execution", list, ...path, "identifier"],
          message: `step identifier ${id} is used more than once in ${stage.identifier === undefined ? "the stage" : `stage ${stage.identifier}`}`,
        });
      } else steps.add(id);
    }
  }
}

/**
 * What a Pipeline template holds (its YAML's `spec`): a {@link PipelineModel} without name,
 * identifier, description and tags, which are the template's (harness-core
 * `PipelineTemplateEntityConfig`), checked by the same rules.
 */
export const TemplatePipeline = z
  .strictObject(PipelineModel.shape)
  .omit({ ...UNNAMED, tags: true })
  .superRefine((p, ctx) => pipelineRules(p, ctx));
export type TemplatePipeline = z.output<typeof TemplatePipeline>;
/** What a user writes: {@link PipelineModel} before defaults, with {@link RuntimeInput} values. */
export type PipelineModelInput = z.input<typeof PipelineModel>;

/** Organization and project a pipeline is rendered into (they are not part of the model). */
export const PipelineScope = z.strictObject({
  /** Organization identifier (`orgIdentifier`). */
  org: Identifier,
  /** Project identifier (`projectIdentifier`). */
  project: Identifier,
});
/** See {@link PipelineScope}. */
export type PipelineScope = z.input<typeof PipelineScope>;

/** Validates a model; throws {@link PipelineModelError} naming each bad field. */
export function validatePipelineModel(model: PipelineModelInput | PipelineModel): PipelineModel {
  const parsed = PipelineModel.safeParse(model);
  if (!parsed.success) throw new PipelineModelError("invalid pipeline", pipelineIssues(parsed.error));
  return parsed.data;
}
