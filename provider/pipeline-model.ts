/**
 * A typed model of platform pipelines, rendered to the pipeline YAML of the platform API
 * (`../shared/spec/platform-api.md` §2 "Pipeline"; real-world shape from
 * `../shared/reference/platform-api-behaviour.md` §6-§7, cited as "ref §N").
 *
 * - {@link PipelineModel} (zod) is the single source of the model's types: a pipeline with
 *   Deployment and Custom stages, ShellScript / K8sRollingDeploy / K8sRollingRollback steps,
 *   parallel step groups, failure strategies, variables and tags.
 * - {@link runtimeInput} builds a typed runtime input that renders as `<+input>` (optionally with
 *   `.default(x)`, `.allowedValues(a,b)`, `.regex(r)`, `.executionInput()`); any other `<+...>`
 *   expression is a plain string and is kept verbatim.
 * - {@link renderPipelineYaml} renders a model deterministically (same model, same bytes; keys in the
 *   spec's field order), with `orgIdentifier`/`projectIdentifier` always taken from the scope.
 * - {@link parsePipelineYaml} reads such YAML back into the model (render then parse gives the same
 *   model), refusing fields the model cannot represent rather than dropping them.
 * - {@link pipelinesEqual} compares two pipelines by meaning: key order, formatting, quoting and
 *   comments never make a difference.
 *
 * This file is required by the Pipeline resource at call time, so it holds no state.
 * @module
 */
import YAML from "yaml";
import { z } from "zod";
import { entityName, Identifier, Tags } from "../sdk/platform/schemas.js";

// ---------------------------------------------------------------------------------------------
// Runtime inputs and expressions (ref §7.2)

const RUNTIME_INPUT = "<+input>";
/** The chained methods of a runtime input that the model understands (ref §7.2). */
const INPUT_METHODS = ["default", "allowedValues", "regex", "executionInput"] as const;
const NOT_RUNTIME_INPUT = "__flagstack_not_a_runtime_input__";

/**
 * The plain data of a runtime input. It is also the form a {@link RuntimeInput} takes after Pulumi
 * serializes resource inputs (own enumerable properties only), so both are accepted everywhere.
 */
export const RuntimeInputOptions = z.strictObject({
  /** Value offered when the pipeline runs: `.default(x)`. */
  default: z.union([z.string(), z.number().transform(String)]).optional(),
  /** The only values accepted at run time: `.allowedValues(a,b)`. */
  allowedValues: z
    .array(z.union([z.string(), z.number().transform(String)]))
    .min(1)
    .optional(),
  /** A regular expression the value must match: `.regex(r)`. */
  regex: z.string().min(1).optional(),
  /** Asked for while the pipeline runs instead of when it starts: `.executionInput()`. */
  executionInput: z.boolean().optional(),
});
/** Options of a runtime input, see {@link RuntimeInputOptions}. */
export type RuntimeInputOptions = z.output<typeof RuntimeInputOptions>;

// Commas inside one allowed value are escaped as \'v1,v2\' (ref §7.2).
const quoteInputArg = (v: string): string => (v.includes(",") ? `\\'${v}\\'` : v);

/**
 * A runtime input: a field whose value is asked for when the pipeline runs. Build one with
 * {@link runtimeInput}; it renders as `<+input>` followed by its options.
 *
 * Immutable: each option method returns a new value.
 */
export class RuntimeInput {
  /** The options; the only enumerable property, so the value survives Pulumi's serialization. */
  readonly $input: Readonly<RuntimeInputOptions>;

  constructor(options: z.input<typeof RuntimeInputOptions> = {}) {
    this.$input = Object.freeze(RuntimeInputOptions.parse(options));
    Object.freeze(this);
  }

  /** `.default(value)`: the value offered when the pipeline runs. */
  default(value: string | number): RuntimeInput {
    return new RuntimeInput({ ...this.$input, default: String(value) });
  }

  /** `.allowedValues(a, b, ...)`: the only values accepted. */
  allowedValues(...values: (string | number)[]): RuntimeInput {
    return new RuntimeInput({ ...this.$input, allowedValues: values.map(String) });
  }

  /** `.regex(pattern)`: the value must match the pattern. */
  regex(pattern: string): RuntimeInput {
    return new RuntimeInput({ ...this.$input, regex: pattern });
  }

  /** `.executionInput()`: asked for while the pipeline runs, not when it starts. */
  executionInput(): RuntimeInput {
    return new RuntimeInput({ ...this.$input, executionInput: true });
  }

  /** The YAML text, e.g. `<+input>.default(dev).allowedValues(dev,prod)`. */
  toString(): string {
    return runtimeInputText(this.$input);
  }

  /** True for a {@link RuntimeInput} or its serialized form `{ $input: {...} }`. */
  static isInstance(value: unknown): value is RuntimeInput {
    if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
    const keys = Object.keys(value);
    return (
      keys.length === 1 &&
      keys[0] === "$input" &&
      RuntimeInputOptions.safeParse((value as RuntimeInput).$input).success
    );
  }

  /**
   * Reads `<+input>...` text back; `undefined` when the text is not a runtime input this model
   * understands (such text is then kept verbatim as an expression).
   */
  static parse(text: string): RuntimeInput | undefined {
    const options = parseRuntimeInputText(text);
    return options === undefined ? undefined : new RuntimeInput(options);
  }
}

/**
 * A runtime input: renders as `<+input>`. Chain `.default(x)`, `.allowedValues(a, b)`,
 * `.regex(r)` or `.executionInput()` for the variants.
 * @example
 * ```ts
 * namespace: runtimeInput().default("dev").allowedValues("dev", "prod")
 * // renders: namespace: <+input>.default(dev).allowedValues(dev,prod)
 * ```
 */
export function runtimeInput(): RuntimeInput {
  return new RuntimeInput();
}

/** Renders runtime-input options in the canonical method order. */
export function runtimeInputText(options: RuntimeInputOptions): string {
  let out = RUNTIME_INPUT;
  if (options.default !== undefined) out += `.default(${quoteInputArg(options.default)})`;
  if (options.allowedValues !== undefined)
    out += `.allowedValues(${options.allowedValues.map(quoteInputArg).join(",")})`;
  if (options.regex !== undefined) out += `.regex(${options.regex})`;
  if (options.executionInput) out += ".executionInput()";
  return out;
}

const METHOD_START = /^\.(default|allowedValues|regex|executionInput)\(/;

function splitInputArgs(args: string): string[] {
  const out: string[] = [];
  let i = 0;
  while (i <= args.length) {
    if (args.startsWith("\\'", i)) {
      const end = args.indexOf("\\'", i + 2);
      if (end < 0) return [...out, args.slice(i)];
      out.push(args.slice(i + 2, end));
      i = end + 2;
      if (args[i] === ",") i++;
      else break;
      continue;
    }
    const comma = args.indexOf(",", i);
    if (comma < 0) {
      out.push(args.slice(i));
      break;
    }
    out.push(args.slice(i, comma));
    i = comma + 1;
  }
  return out;
}

/** Parses `<+input>` followed by known methods; `undefined` for anything else. */
export function parseRuntimeInputText(text: string): RuntimeInputOptions | undefined {
  if (!text.startsWith(RUNTIME_INPUT)) return undefined;
  const options: RuntimeInputOptions = {};
  let rest = text.slice(RUNTIME_INPUT.length);
  while (rest.length > 0) {
    const m = METHOD_START.exec(rest);
    if (!m) return undefined;
    const method = m[1] as (typeof INPUT_METHODS)[number];
    rest = rest.slice(m[0].length);
    // An argument ends at the first ")" followed by the end or by another known method.
    let close = -1;
    for (let i = rest.indexOf(")"); i >= 0; i = rest.indexOf(")", i + 1)) {
      const after = rest.slice(i + 1);
      if (after === "" || METHOD_START.test(after)) {
        close = i;
        break;
      }
    }
    if (close < 0) return undefined;
    const arg = rest.slice(0, close);
    rest = rest.slice(close + 1);
    if (options[method] !== undefined) return undefined;
    switch (method) {
      case "default": {
        const [value, ...more] = splitInputArgs(arg);
        if (value === undefined || more.length > 0) return undefined;
        options.default = value;
        break;
      }
      case "allowedValues":
        if (arg === "") return undefined;
        options.allowedValues = splitInputArgs(arg);
        break;
      case "regex":
        if (arg === "") return undefined;
        options.regex = arg;
        break;
      case "executionInput":
        if (arg !== "") return undefined;
        options.executionInput = true;
        break;
    }
  }
  return options;
}

/**
 * Canonical text of a runtime input (`<+input>.allowedValues(a).default(x)` becomes
 * `<+input>.default(x).allowedValues(a)`); any other string is returned unchanged.
 */
export function canonicalRuntimeInput(text: string): string {
  const options = parseRuntimeInputText(text);
  return options === undefined ? text : runtimeInputText(options);
}

/** A {@link RuntimeInput} (or its serialized form) in a model, normalised to its YAML text. */
const RuntimeInputValue = z
  .custom<RuntimeInput>((v) => v instanceof RuntimeInput || RuntimeInput.isInstance(v), {
    error: NOT_RUNTIME_INPUT,
  })
  .transform((v) => runtimeInputText(v.$input));

/** Whole-value expression `<+...>`, allowed in place of typed (boolean, duration) values. */
const EXPRESSION = /^<\+[\s\S]*>$/;
/** True for a `<+...>` expression or runtime input text. */
export const isExpression = (v: string): boolean => EXPRESSION.test(v);

/**
 * A field that also accepts a {@link RuntimeInput}. The runtime input is normalised to its text, so
 * the model's output type stays `string` for it and a parsed YAML compares equal to the model.
 */
function inputable<T extends z.ZodType>(base: T) {
  return z.union([base, RuntimeInputValue], {
    error: (iss) => {
      const branches = (iss as unknown as { errors?: z.core.$ZodIssue[][] }).errors ?? [];
      const branch = branches.find((b) => !b.some((i) => i.message === NOT_RUNTIME_INPUT));
      return branch?.[0]?.message ?? "invalid value";
    },
  });
}

// ---------------------------------------------------------------------------------------------
// Leaf values

/** Step timeouts and retry intervals: `10m`, `1h30m`, `30s`, `1d`, `1w 2d` (units w d h m s ms). */
const DURATION = /^(\d+w)?(\d+d)?(\d+h)?(\d+m)?(\d+s)?(\d+ms)?$/;
/** True for a non-zero duration such as `10m`, `1h30m`, `30s`, `1d` or `1h 30m`. */
export function isDuration(text: string): boolean {
  const compact = text.trim().replace(/(?<=[a-z])\s+(?=\d)/g, "");
  if (compact === "" || /\s/.test(compact) || !DURATION.test(compact)) return false;
  return /[1-9]/.test(compact);
}
const DURATION_MESSAGE = "must be a duration such as 10m, 1h30m, 30s or 1d, or a <+...> expression";

/** A duration string, an expression or a runtime input. */
export const Duration = inputable(
  z.string({ error: `timeout ${DURATION_MESSAGE}` }).refine((v) => isDuration(v) || isExpression(v), {
    error: (iss) => `${JSON.stringify(iss.input)} ${DURATION_MESSAGE}`,
  }),
);

const FLAG_MESSAGE = "must be true, false or a <+...> expression";
/** A boolean, or an expression / runtime input giving one at run time. */
const Flag = inputable(
  z.union([z.boolean(), z.string().regex(EXPRESSION, FLAG_MESSAGE)], { error: FLAG_MESSAGE }),
);

/** References to other entities may be scoped: `account.x`, `org.x`, or an expression (ref §3 allowScoped). */
const SCOPED_REF = /^(?:(?:account|org)\.)?[a-zA-Z_][0-9a-zA-Z_$]{0,127}$/;
const entityRef = (what: string) =>
  inputable(
    z
      .string({ error: `${what} is required` })
      .min(1, `${what} cannot be empty`)
      .refine((v) => SCOPED_REF.test(v) || v.includes("<+"), {
        error: `${what} must be an identifier, optionally prefixed with account. or org., or a <+...> expression`,
      }),
  );

/** A non-empty string, an expression or a runtime input. */
const text = (what: string) =>
  inputable(z.string({ error: `${what} is required` }).min(1, `${what} cannot be empty`));

/** Variable names: letters, digits, `_` and `$`, not starting with a digit. */
const VariableName = z
  .string({ error: "name is required" })
  .regex(
    /^[a-zA-Z_][0-9a-zA-Z_$]{0,127}$/,
    "variable name must start with a letter or _ and contain only letters, digits, _ and $",
  );

const ShellVariableName = z
  .string({ error: "name is required" })
  .regex(
    /^[a-zA-Z_][0-9a-zA-Z_]{0,127}$/,
    "variable name must be a shell variable name (letters, digits and _)",
  );

const StepName = entityName(128);

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

// ref §7.1: `shell: Bash` or `PowerShell` (the service validates the YAML against this enumeration).
const SHELLS_LIST = ["Bash", "PowerShell"] as const;

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
const Shell = z.enum(SHELLS_LIST, { error: `shell must be one of ${SHELLS_LIST.join(", ")}` });

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
  name: StepName,
  identifier: Identifier,
  description: z.string().optional(),
  /** Step timeout (default `10m`). */
  timeout: Duration.default("10m"),
  failureStrategies: z.array(FailureStrategy).optional(),
};

/** Shells a ShellScript step can run. */
export const SHELLS = SHELLS_LIST;

/** Where a ShellScript step runs when not on the delegate. */
export const ExecutionTarget = z.strictObject({
  host: text("host").optional(),
  connectorRef: entityRef("connectorRef").optional(),
  workingDirectory: text("workingDirectory").optional(),
});
export type ExecutionTarget = z.output<typeof ExecutionTarget>;

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
    if (s.onDelegate === true && s.executionTarget !== undefined) {
      ctx.addIssue({
        code: "custom",
        path: ["executionTarget"],
        message: "executionTarget cannot be set when onDelegate is true",
      });
    }
    if (
      s.onDelegate === false &&
      (s.executionTarget?.host === undefined || s.executionTarget.connectorRef === undefined)
    ) {
      ctx.addIssue({
        code: "custom",
        path: ["executionTarget"],
        message: "executionTarget needs host and connectorRef when onDelegate is false",
      });
    }
    if (
      s.onDelegate === undefined &&
      s.executionTarget !== undefined &&
      (s.executionTarget.host === undefined || s.executionTarget.connectorRef === undefined)
    ) {
      ctx.addIssue({
        code: "custom",
        path: ["executionTarget"],
        message: "executionTarget needs host and connectorRef",
      });
    }
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

/** Step types of the model (the `type` of a step). */
export const STEP_TYPES = ["ShellScript", "K8sRollingDeploy", "K8sRollingRollback"] as const;

const unknownStepType = (iss: { input?: unknown }, extra: readonly string[] = []) =>
  `unknown step type ${JSON.stringify((iss.input as { type?: unknown } | undefined)?.type)}; expected one of ${[...STEP_TYPES, ...extra].join(", ")}`;

/** One step. */
export const Step = z.discriminatedUnion(
  "type",
  [ShellScriptStep, K8sRollingDeployStep, K8sRollingRollbackStep],
  {
    error: (iss) => unknownStepType(iss),
  },
);
export type Step = z.output<typeof Step>;

/** Steps that run at the same time (`- parallel: [...]` in YAML). */
export const ParallelSteps = z.strictObject({
  type: z.literal("Parallel"),
  steps: z.array(Step).min(1, "a parallel group needs at least one step"),
});
export type ParallelSteps = z.output<typeof ParallelSteps>;

/** An entry of `steps`/`rollbackSteps`: a step or a parallel group. */
export const StepElement = z.discriminatedUnion(
  "type",
  [ShellScriptStep, K8sRollingDeployStep, K8sRollingRollbackStep, ParallelSteps],
  {
    error: (iss) => unknownStepType(iss, ["Parallel"]),
  },
);
export type StepElement = z.output<typeof StepElement>;

/** Steps of a stage and the steps run to roll it back. */
export const Execution = z.strictObject({
  steps: z
    .array(StepElement, { error: "steps must be a list of steps" })
    .min(1, "a stage needs at least one step"),
  rollbackSteps: z.array(StepElement).default([]),
});
export type Execution = z.output<typeof Execution>;

// ---------------------------------------------------------------------------------------------
// Stages

const stageBase = {
  name: entityName(128),
  identifier: Identifier,
  description: z.string().optional(),
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

/** A Deployment stage: a service deployed to an environment's Kubernetes infrastructure. */
export const DeploymentStage = z.strictObject({
  type: z.literal("Deployment"),
  ...stageBase,
  service: StageService,
  environment: z.strictObject({ environmentRef: entityRef("environmentRef") }),
  infrastructure: KubernetesDirectInfrastructure,
});
export type DeploymentStage = z.output<typeof DeploymentStage>;

/** A Custom stage: steps only, no service or infrastructure. */
export const CustomStage = z.strictObject({
  type: z.literal("Custom"),
  ...stageBase,
});
export type CustomStage = z.output<typeof CustomStage>;

/** Stage types of the model. */
export const STAGE_TYPES = ["Deployment", "Custom"] as const;

/** One stage. */
export const Stage = z.discriminatedUnion("type", [DeploymentStage, CustomStage], {
  error: (iss) =>
    `unknown stage type ${JSON.stringify((iss.input as { type?: unknown } | undefined)?.type)}; expected one of ${STAGE_TYPES.join(", ")}`,
});
export type Stage = z.output<typeof Stage>;

// ---------------------------------------------------------------------------------------------
// Pipeline

function stepIdentifiers(elements: StepElement[]): { id: string; path: (string | number)[] }[] {
  return elements.flatMap((e, i) =>
    e.type === "Parallel"
      ? e.steps.map((s, j) => ({ id: s.identifier, path: [i, "steps", j, "identifier"] }))
      : [{ id: e.identifier, path: [i, "identifier"] }],
  );
}

/**
 * A pipeline (spec §2 "Pipeline"). Its organization and project are not part of the model: they
 * come from the resource's scope when it is rendered.
 */
export const PipelineModel = z
  .strictObject({
    name: entityName(128),
    identifier: Identifier,
    description: z.string().optional(),
    tags: Tags.default({}),
    allowStageExecutions: z.boolean().default(false),
    variables: z.array(Variable).optional(),
    stages: z
      .array(Stage, { error: "stages must be a list of stages" })
      .min(1, "a pipeline needs at least one stage"),
  })
  .superRefine((p, ctx) => {
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
      const steps = new Set<string>();
      for (const list of ["steps", "rollbackSteps"] as const) {
        for (const { id, path } of stepIdentifiers(stage.execution[list])) {
          if (steps.has(id)) {
            ctx.addIssue({
              code: "custom",
              path: ["stages", i, "execution", list, ...path],
              message: `step identifier ${id} is used more than once in stage ${stage.identifier}`,
            });
          } else steps.add(id);
        }
      }
    });
  });
/** A validated pipeline model (defaults applied, runtime inputs as their `<+input>` text). */
export type PipelineModel = z.output<typeof PipelineModel>;
/** What a user writes: {@link PipelineModel} before defaults, with {@link RuntimeInput} values. */
export type PipelineModelInput = z.input<typeof PipelineModel>;

/** Organization and project a pipeline is rendered into. */
export interface PipelineScope {
  /** Organization identifier (`orgIdentifier`). */
  org: string;
  /** Project identifier (`projectIdentifier`). */
  project: string;
}

// ---------------------------------------------------------------------------------------------
// Errors

/** One problem found in a pipeline model or YAML, with the dotted path of the field. */
export interface PipelineIssue {
  /** `stages[0].execution.steps[1].timeout` (model) or `pipeline.stages[0].stage.type` (YAML). */
  path: string;
  message: string;
}

/** Formats a zod path as `a.b[0].c`. */
export function formatPath(path: readonly PropertyKey[], prefix = ""): string {
  let out = prefix;
  for (const part of path) {
    if (typeof part === "number") out += `[${part}]`;
    else out += out === "" ? String(part) : `.${String(part)}`;
  }
  return out;
}

/** Turns zod issues into {@link PipelineIssue}s; unrecognized keys are named individually. */
export function pipelineIssues(error: z.ZodError, prefix = ""): PipelineIssue[] {
  return error.issues.flatMap((issue): PipelineIssue[] => {
    if (issue.code === "unrecognized_keys") {
      return issue.keys.map((key) => ({
        path: formatPath([...issue.path, key], prefix),
        message: `unknown field ${JSON.stringify(key)}`,
      }));
    }
    return [{ path: formatPath(issue.path, prefix), message: issue.message }];
  });
}

/** A pipeline model or pipeline YAML that is invalid; `issues` names every bad field. */
export class PipelineModelError extends Error {
  readonly issues: PipelineIssue[];
  constructor(what: string, issues: PipelineIssue[]) {
    super(`${what}: ${issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join("; ")}`);
    this.name = "PipelineModelError";
    this.issues = issues;
  }
}

/** Validates a model; throws {@link PipelineModelError} naming each bad field. */
export function validatePipelineModel(model: PipelineModelInput | PipelineModel): PipelineModel {
  const parsed = PipelineModel.safeParse(model);
  if (!parsed.success) throw new PipelineModelError("invalid pipeline", pipelineIssues(parsed.error));
  return parsed.data;
}

// ---------------------------------------------------------------------------------------------
// YAML shape (what the API stores). Every object is strict so that parsing never drops a field
// the model cannot represent.

const WireVariable = z.strictObject({
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
  name: StepName,
  identifier: Identifier,
  description: z.string().optional(),
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
const WireStep = z.discriminatedUnion(
  "type",
  [WireShellScript, WireK8sRollingDeploy, WireK8sRollingRollback],
  {
    error: (iss) => unknownStepType(iss),
  },
);
type WireStep = z.output<typeof WireStep>;
const WireStepElement = z
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
  name: entityName(128),
  identifier: Identifier,
  description: z.string().optional(),
  tags: Tags.optional(),
  failureStrategies: z.array(FailureStrategy).optional(),
  variables: z.array(WireVariable).optional(),
};
const WireDeploymentStage = z.strictObject({
  type: z.literal("Deployment"),
  ...wireStageBase,
  spec: z.strictObject({
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
  }),
});
const WireCustomStage = z.strictObject({
  type: z.literal("Custom"),
  ...wireStageBase,
  spec: z.strictObject({ execution: WireExecution }),
});
const WireStage = z.discriminatedUnion("type", [WireDeploymentStage, WireCustomStage], {
  error: (iss) =>
    `unknown stage type ${JSON.stringify((iss.input as { type?: unknown } | undefined)?.type)}; expected one of ${STAGE_TYPES.join(", ")}`,
});
const WirePipeline = z.strictObject({
  name: entityName(128),
  identifier: Identifier,
  description: z.string().optional(),
  allowStageExecutions: z.boolean().optional(),
  projectIdentifier: z.string().optional(),
  orgIdentifier: z.string().optional(),
  tags: Tags.optional(),
  variables: z.array(WireVariable).optional(),
  stages: z
    .array(z.strictObject({ stage: WireStage }), { error: "stages must be a list of stages" })
    .min(1, "a pipeline needs at least one stage"),
});
/** The pipeline YAML document the model renders to and parses from. */
export const PipelineDocument = z.strictObject({ pipeline: WirePipeline });
/** A parsed pipeline YAML document (see {@link PipelineDocument}). */
export type PipelineDocument = z.output<typeof PipelineDocument>;

// ---------------------------------------------------------------------------------------------
// Rendering: model -> YAML. Objects are built key by key in the spec's field order, and optional
// fields the model does not have are left out, so the same model always gives the same bytes.

type Plain = Record<string, unknown>;

/** Tags are a map: written with sorted keys so that their insertion order never matters. */
const sortedTags = (tags: Record<string, string>): Plain =>
  Object.fromEntries(
    Object.keys(tags)
      .sort()
      .map((k) => [k, tags[k]]),
  );

/** Adds `key: value` only when value is defined. */
function put(obj: Plain, key: string, value: unknown): Plain {
  if (value !== undefined) obj[key] = value;
  return obj;
}

function renderVariable(v: Variable): Plain {
  const out: Plain = { name: v.name, type: v.type };
  put(out, "description", v.description);
  put(out, "required", v.required);
  out.value = v.value;
  return out;
}

function renderFailureAction(a: FailureAction): Plain {
  if (a.type === "Retry") {
    return {
      type: a.type,
      spec: {
        retryCount: a.spec.retryCount,
        retryIntervals: [...a.spec.retryIntervals],
        onRetryFailure: { action: { type: a.spec.onRetryFailure.action.type } },
      },
    };
  }
  if (a.type === "ManualIntervention") {
    return {
      type: a.type,
      spec: { timeout: a.spec.timeout, onTimeout: { action: { type: a.spec.onTimeout.action.type } } },
    };
  }
  return { type: a.type };
}

function renderFailureStrategies(list: FailureStrategy[]): Plain[] {
  return list.map((f) => ({
    onFailure: { errors: [...f.onFailure.errors], action: renderFailureAction(f.onFailure.action) },
  }));
}

function renderStep(s: Step): Plain {
  const out: Plain = { name: s.name, identifier: s.identifier, type: s.type };
  put(out, "description", s.description);
  switch (s.type) {
    case "ShellScript":
      out.spec = {
        shell: s.shell,
        onDelegate: s.onDelegate,
        source: { type: "Inline", spec: { script: s.script } },
        environmentVariables: s.environmentVariables.map((v) => ({
          name: v.name,
          type: v.type,
          value: v.value,
        })),
        outputVariables: s.outputVariables.map((v) => ({ name: v.name, type: v.type, value: v.value })),
        executionTarget: s.executionTarget === undefined ? {} : renderExecutionTarget(s.executionTarget),
      };
      break;
    case "K8sRollingDeploy":
      out.spec = { skipDryRun: s.skipDryRun, pruningEnabled: s.pruningEnabled };
      break;
    case "K8sRollingRollback":
      out.spec = { pruningEnabled: s.pruningEnabled };
      break;
  }
  out.timeout = s.timeout;
  if (s.failureStrategies !== undefined) out.failureStrategies = renderFailureStrategies(s.failureStrategies);
  return out;
}

function renderExecutionTarget(t: ExecutionTarget): Plain {
  const out: Plain = {};
  put(out, "host", t.host);
  put(out, "connectorRef", t.connectorRef);
  put(out, "workingDirectory", t.workingDirectory);
  return out;
}

function renderSteps(list: StepElement[]): Plain[] {
  return list.map((e) =>
    e.type === "Parallel"
      ? { parallel: e.steps.map((s) => ({ step: renderStep(s) })) }
      : { step: renderStep(e) },
  );
}

function renderExecution(e: Execution): Plain {
  return { steps: renderSteps(e.steps), rollbackSteps: renderSteps(e.rollbackSteps) };
}

function renderStage(s: Stage): Plain {
  const out: Plain = { name: s.name, identifier: s.identifier };
  put(out, "description", s.description);
  out.type = s.type;
  if (s.type === "Deployment") {
    out.spec = {
      serviceConfig: {
        serviceRef: s.service.serviceRef,
        serviceDefinition: {
          spec: { variables: s.service.variables.map(renderVariable) },
          type: "Kubernetes",
        },
      },
      infrastructure: {
        environmentRef: s.environment.environmentRef,
        infrastructureDefinition: {
          type: s.infrastructure.type,
          spec: {
            connectorRef: s.infrastructure.connectorRef,
            namespace: s.infrastructure.namespace,
            releaseName: s.infrastructure.releaseName,
          },
        },
        allowSimultaneousDeployments: s.infrastructure.allowSimultaneousDeployments,
      },
      execution: renderExecution(s.execution),
    };
  } else {
    out.spec = { execution: renderExecution(s.execution) };
  }
  out.tags = sortedTags(s.tags);
  out.failureStrategies = renderFailureStrategies(s.failureStrategies);
  if (s.variables !== undefined) out.variables = s.variables.map(renderVariable);
  return out;
}

/**
 * The pipeline document as plain data, keys in render order; `orgIdentifier` and
 * `projectIdentifier` always come from `scope`.
 */
export function renderPipelineDocument(
  model: PipelineModelInput | PipelineModel,
  scope: PipelineScope,
): { pipeline: Plain } {
  const m = validatePipelineModel(model);
  const scopeCheck = z.strictObject({ org: Identifier, project: Identifier }).safeParse(scope);
  if (!scopeCheck.success)
    throw new PipelineModelError("invalid pipeline scope", pipelineIssues(scopeCheck.error));
  const pipeline: Plain = { name: m.name, identifier: m.identifier };
  put(pipeline, "description", m.description);
  pipeline.allowStageExecutions = m.allowStageExecutions;
  pipeline.projectIdentifier = scope.project;
  pipeline.orgIdentifier = scope.org;
  pipeline.tags = sortedTags(m.tags);
  if (m.variables !== undefined) pipeline.variables = m.variables.map(renderVariable);
  pipeline.stages = m.stages.map((s) => ({ stage: renderStage(s) }));
  return { pipeline };
}

// Strings that a YAML 1.1 reader (the server side is YAML 1.1) would read as something else, such as
// `yes`, `on` or `0o10`, are double-quoted even though YAML 1.2 would keep them strings.
function ambiguousIn11(value: string): boolean {
  if (value.includes("\n") || value === "") return false;
  try {
    const asPlain = YAML.parse(value, { version: "1.1" });
    return typeof asPlain !== "string" || asPlain !== value;
  } catch {
    return false;
  }
}

/** Stringifies plain data with the fixed options used for every rendered pipeline. */
export function stringifyPipelineDocument(doc: unknown): string {
  const d = new YAML.Document(doc, { version: "1.2", aliasDuplicateObjects: false });
  YAML.visit(d, {
    Scalar(_key, node) {
      if (typeof node.value === "string" && ambiguousIn11(node.value)) node.type = "QUOTE_DOUBLE";
    },
  });
  return d.toString({ indent: 2, indentSeq: true, lineWidth: 0, minContentWidth: 0, blockQuote: "literal" });
}

/**
 * Renders a pipeline model as the YAML the platform API takes (spec §4 `POST /pipeline/api/pipelines/v2`).
 * Deterministic: the same model gives the same bytes whatever the key order of the input objects.
 * Throws {@link PipelineModelError} when the model is invalid.
 * @example
 * ```ts
 * const yaml = renderPipelineYaml(model, { org: "default", project: "payments" });
 * ```
 */
export function renderPipelineYaml(model: PipelineModelInput | PipelineModel, scope: PipelineScope): string {
  return stringifyPipelineDocument(renderPipelineDocument(model, scope));
}

// ---------------------------------------------------------------------------------------------
// Parsing: YAML -> model

/** Reads YAML strictly (duplicate keys are refused, as by the server: ref §6.2). */
export function readYaml(text: string): unknown {
  const doc = YAML.parseDocument(text, { uniqueKeys: true, prettyErrors: true });
  if (doc.errors.length > 0) {
    throw new PipelineModelError(
      "invalid pipeline YAML",
      doc.errors.map((e) => ({ path: "", message: e.message.split("\n")[0] ?? e.message })),
    );
  }
  return doc.toJS({ maxAliasCount: 100 });
}

function parseVariable(v: z.output<typeof WireVariable>): z.input<typeof Variable> {
  const out: z.input<typeof Variable> = { name: v.name, type: v.type, value: v.value };
  if (v.description !== undefined) out.description = v.description;
  if (v.required !== undefined) out.required = v.required;
  return out;
}

function parseStep(s: WireStep, path: string): z.input<typeof Step> {
  const base = {
    name: s.name,
    identifier: s.identifier,
    ...(s.description === undefined ? {} : { description: s.description }),
    ...(s.failureStrategies === undefined ? {} : { failureStrategies: s.failureStrategies }),
  };
  switch (s.type) {
    case "ShellScript": {
      const timeout = s.timeout ?? s.spec.timeout;
      if (s.timeout !== undefined && s.spec.timeout !== undefined && s.timeout !== s.spec.timeout) {
        throw new PipelineModelError("invalid pipeline YAML", [
          { path: `${path}.spec.timeout`, message: `conflicts with ${path}.timeout (${s.timeout})` },
        ]);
      }
      const target = s.spec.executionTarget;
      const hasTarget = target !== undefined && Object.keys(target).length > 0;
      return {
        type: "ShellScript",
        ...base,
        ...(timeout === undefined ? {} : { timeout }),
        shell: s.spec.shell,
        script: s.spec.source.spec.script,
        environmentVariables: s.spec.environmentVariables ?? [],
        outputVariables: s.spec.outputVariables ?? [],
        ...(s.spec.onDelegate === undefined ? {} : { onDelegate: s.spec.onDelegate }),
        ...(hasTarget ? { executionTarget: target } : {}),
      };
    }
    case "K8sRollingDeploy":
      return {
        type: "K8sRollingDeploy",
        ...base,
        ...(s.timeout === undefined ? {} : { timeout: s.timeout }),
        skipDryRun: s.spec.skipDryRun ?? false,
        pruningEnabled: s.spec.pruningEnabled ?? false,
      };
    case "K8sRollingRollback":
      return {
        type: "K8sRollingRollback",
        ...base,
        ...(s.timeout === undefined ? {} : { timeout: s.timeout }),
        pruningEnabled: s.spec?.pruningEnabled ?? false,
      };
  }
}

function parseSteps(list: z.output<typeof WireStepElement>[], path: string): z.input<typeof StepElement>[] {
  return list.map((e, i) => {
    if (e.parallel !== undefined) {
      return {
        type: "Parallel" as const,
        steps: e.parallel.map((p, j) => parseStep(p.step, `${path}[${i}].parallel[${j}].step`)) as z.input<
          typeof Step
        >[],
      };
    }
    return parseStep(e.step!, `${path}[${i}].step`);
  });
}

function parseStage(s: z.output<typeof WireStage>, path: string): z.input<typeof Stage> {
  const execPath = `${path}.spec.execution`;
  const base = {
    name: s.name,
    identifier: s.identifier,
    ...(s.description === undefined ? {} : { description: s.description }),
    execution: {
      steps: parseSteps(s.spec.execution.steps, `${execPath}.steps`),
      rollbackSteps: parseSteps(s.spec.execution.rollbackSteps ?? [], `${execPath}.rollbackSteps`),
    },
    failureStrategies: s.failureStrategies ?? [],
    tags: s.tags ?? {},
    ...(s.variables === undefined ? {} : { variables: s.variables.map(parseVariable) }),
  };
  if (s.type === "Custom") return { type: "Custom", ...base };
  const infra = s.spec.infrastructure;
  const inner = infra.infrastructureDefinition.spec.allowSimultaneousDeployments;
  if (
    inner !== undefined &&
    infra.allowSimultaneousDeployments !== undefined &&
    inner !== infra.allowSimultaneousDeployments
  ) {
    throw new PipelineModelError("invalid pipeline YAML", [
      {
        path: `${path}.spec.infrastructure.infrastructureDefinition.spec.allowSimultaneousDeployments`,
        message: `conflicts with ${path}.spec.infrastructure.allowSimultaneousDeployments`,
      },
    ]);
  }
  return {
    type: "Deployment",
    ...base,
    service: {
      serviceRef: s.spec.serviceConfig.serviceRef,
      variables: (s.spec.serviceConfig.serviceDefinition.spec?.variables ?? []).map(parseVariable),
    },
    environment: { environmentRef: infra.environmentRef },
    infrastructure: {
      type: "KubernetesDirect",
      connectorRef: infra.infrastructureDefinition.spec.connectorRef,
      namespace: infra.infrastructureDefinition.spec.namespace,
      releaseName: infra.infrastructureDefinition.spec.releaseName,
      allowSimultaneousDeployments: infra.allowSimultaneousDeployments ?? inner ?? false,
    },
  };
}

/** Validates parsed YAML against the document shape; throws {@link PipelineModelError} with YAML paths. */
export function validatePipelineDocument(value: unknown): PipelineDocument {
  const wire = PipelineDocument.safeParse(value);
  if (!wire.success) throw new PipelineModelError("invalid pipeline YAML", pipelineIssues(wire.error));
  return wire.data;
}

/** The scope named in a pipeline YAML document, as far as it names one. */
export interface PipelineYamlScope {
  orgIdentifier: string | undefined;
  projectIdentifier: string | undefined;
}

/**
 * Parses pipeline YAML into the model: `parsePipelineYaml(renderPipelineYaml(m, scope))` equals the
 * validated `m`. Fields the model cannot represent are refused (never dropped), naming their YAML
 * path. `orgIdentifier`/`projectIdentifier` are not part of the model: see {@link pipelineYamlScope}.
 */
export function parsePipelineYaml(yaml: string): PipelineModel {
  const wire = validatePipelineDocument(readYaml(yaml)).pipeline;
  const model: PipelineModelInput = {
    name: wire.name,
    identifier: wire.identifier,
    ...(wire.description === undefined ? {} : { description: wire.description }),
    tags: wire.tags ?? {},
    allowStageExecutions: wire.allowStageExecutions ?? false,
    ...(wire.variables === undefined ? {} : { variables: wire.variables.map(parseVariable) }),
    stages: wire.stages.map((s, i) => parseStage(s.stage, `pipeline.stages[${i}].stage`)),
  };
  return validatePipelineModel(model);
}

/** `orgIdentifier` and `projectIdentifier` of a pipeline YAML document (`undefined` when absent). */
export function pipelineYamlScope(yaml: string): PipelineYamlScope {
  const doc = readYaml(yaml) as {
    pipeline?: { orgIdentifier?: unknown; projectIdentifier?: unknown };
  } | null;
  const p = doc?.pipeline;
  return {
    orgIdentifier: typeof p?.orgIdentifier === "string" ? p.orgIdentifier : undefined,
    projectIdentifier: typeof p?.projectIdentifier === "string" ? p.projectIdentifier : undefined,
  };
}

// ---------------------------------------------------------------------------------------------
// Semantic comparison

/**
 * The comparable form of a pipeline document: mapping keys sorted, numbers and booleans as their
 * text (a YAML writer may quote `10` or not; the server reads both into the same typed field),
 * entries with a null value dropped (null and absent mean the same to the server), runtime inputs
 * in their canonical method order. Sequences keep their order: it is meaningful.
 */
export function normalizePipeline(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(normalizePipeline);
  if (value instanceof Date) return value.toISOString();
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) {
      const v = (value as Record<string, unknown>)[key];
      if (v === null || v === undefined) continue;
      out[key] = normalizePipeline(v);
    }
    return out;
  }
  if (typeof value === "number" || typeof value === "boolean" || typeof value === "bigint")
    return String(value);
  if (typeof value === "string") return canonicalRuntimeInput(value);
  return value;
}

/** A pipeline as YAML text, a parsed document (`{ pipeline: ... }`) or a model (rendered with `scope`). */
export type PipelineLike = string | { pipeline: unknown } | PipelineModelInput | PipelineModel;

function toDocument(p: PipelineLike, scope: PipelineScope | undefined): unknown {
  if (typeof p === "string") return readYaml(p);
  if (p !== null && typeof p === "object" && "pipeline" in p) return p;
  if (scope === undefined) {
    // Without a scope a model has no org/project: compare the rest of the document.
    const { pipeline } = renderPipelineDocument(p as PipelineModelInput, { org: "_", project: "_" });
    delete pipeline.orgIdentifier;
    delete pipeline.projectIdentifier;
    return { pipeline };
  }
  return renderPipelineDocument(p as PipelineModelInput, scope);
}

/**
 * True when two pipelines mean the same: both sides are parsed (YAML text) or rendered (models)
 * and compared after {@link normalizePipeline}, so key order, indentation, quoting, comments and
 * flow/block style never make a difference. A model is rendered into `scope` when given (otherwise
 * org and project are left out of the comparison on both sides).
 */
export function pipelinesEqual(a: PipelineLike, b: PipelineLike, scope?: PipelineScope): boolean {
  let da = toDocument(a, scope);
  let db = toDocument(b, scope);
  if (scope === undefined && (isModel(a) || isModel(b))) {
    da = withoutScope(da);
    db = withoutScope(db);
  }
  return JSON.stringify(normalizePipeline(da)) === JSON.stringify(normalizePipeline(db));
}

const isModel = (p: PipelineLike): boolean => typeof p === "object" && p !== null && !("pipeline" in p);

function withoutScope(doc: unknown): unknown {
  if (doc === null || typeof doc !== "object" || !("pipeline" in doc)) return doc;
  const pipeline = (doc as { pipeline: unknown }).pipeline;
  if (pipeline === null || typeof pipeline !== "object") return doc;
  const { orgIdentifier: _o, projectIdentifier: _p, ...rest } = pipeline as Record<string, unknown>;
  return { ...(doc as object), pipeline: rest };
}
