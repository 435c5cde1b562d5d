/**
 * Policies on pipelines: Deployment stages roll back on failure, scripts hold no literal secret,
 * steps have timeouts. Each reads the pipeline through `readPipeline`, so the typed model and the
 * YAML text are checked alike.
 *
 * A stage made from a template (`type: "Template"`, `template: {templateRef, ...}`) is opaque to
 * the rules that read steps, failure strategies and variables: those are the template's, which
 * the pipeline does not hold. What its `templateInputs` give is read where it is safe: the stage
 * type they name (the service refuses inputs whose `type` differs from the template's) and the
 * environment they set (`spec.environment.environmentRef`).
 * @module
 */
import { z } from "zod";
import {
  containsExpression,
  EXPRESSION_TOKENS,
  durationMs as grammarDurationMs,
  isDuration,
} from "../sdk/platform/pipeline";
import { eachOf, type PolicyTarget, readAll, resourcePolicy, stackPolicy } from "./common";
import {
  type DeliveryEnvironmentView,
  isType,
  isUnknownValueError,
  type PipelineView,
  readDeliveryEnvironment,
  readPipeline,
  readTrigger,
  type StageView,
  type StepView,
  TYPES,
} from "./resources";

/** The pipeline of a Pipeline resource, or undefined for other resources and unreadable YAML. */
async function pipelineOf(resource: PolicyTarget): Promise<PipelineView | undefined> {
  if (!isType(resource.type, TYPES.pipeline)) return undefined;
  try {
    return await readPipeline(resource.props);
  } catch (e) {
    // A value unknown during a preview is the engine's to report.
    if (isUnknownValueError(e)) throw e;
    return undefined; // YAML that does not parse fails the provider's check with its position
  }
}

/**
 * The type a stage runs as: its own, or for a stage made from a template the one its
 * `templateInputs` name (`type: Deployment`; harness-core `TemplateMergeServiceHelper` refuses
 * inputs whose `type` is not the template's), else `Template`.
 */
export const runsAs = (s: StageView): string =>
  s.type === "Template" ? (s.template?.type ?? "Template") : s.type;

const stageLabel = (p: PipelineView, s: StageView) => `pipeline "${p.identifier}" stage "${s.identifier}"`;
const stepLabel = (p: PipelineView, s: StageView, step: StepView) =>
  `${stageLabel(p, s)} ${step.rollback ? "rollback step" : "step"} "${step.identifier}"`;

// ---------------------------------------------------------------------------------------------

/** Failure actions that roll the stage or the pipeline back. */
export const ROLLBACK_ACTIONS = ["StageRollback", "PipelineRollback"] as const;

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * True when a failure strategy ends in a rollback: directly, after its retries
 * (`Retry.onRetryFailure`), or when a manual intervention times out (`onTimeout`).
 */
export function rollsBack(strategy: unknown): boolean {
  const action = isRecord(strategy) && isRecord(strategy.onFailure) ? strategy.onFailure.action : undefined;
  if (!isRecord(action)) return false;
  const isRollback = (a: unknown) => isRecord(a) && (ROLLBACK_ACTIONS as readonly unknown[]).includes(a.type);
  if (isRollback(action)) return true;
  const spec = isRecord(action.spec) ? action.spec : {};
  if (action.type === "Retry") return isRecord(spec.onRetryFailure) && isRollback(spec.onRetryFailure.action);
  if (action.type === "ManualIntervention")
    return isRecord(spec.onTimeout) && isRollback(spec.onTimeout.action);
  return false;
}

export const RollbackConfig = z.object({
  stageTypes: z
    .array(z.string().min(1))
    .default(["Deployment"])
    .describe("Stage types that must roll back on failure."),
  requireRollbackSteps: z
    .boolean()
    .default(true)
    .describe("Also require rollback steps, without which a rollback does nothing."),
});

/**
 * pipeline-deployment-rollback: every Deployment stage has a failure strategy that rolls back
 * (StageRollback or PipelineRollback, possibly after retries or a manual intervention) and
 * rollback steps for it to run.
 */
export const pipelineDeploymentRollback = resourcePolicy(
  {
    name: "pipeline-deployment-rollback",
    description:
      "Every Deployment stage has a failure strategy that rolls back (StageRollback or PipelineRollback) and rollback steps to run.",
    enforcementLevel: "mandatory",
    severity: "high",
    config: RollbackConfig,
    select: pipelineOf,
  },
  (pipeline, config, report) => {
    for (const stage of pipeline.stages) {
      if (!config.stageTypes.includes(stage.type)) continue;
      if (!stage.failureStrategies.some(rollsBack)) {
        report(
          `${stageLabel(pipeline, stage)} (${stage.type}) has no failure strategy that rolls back: add failureStrategies with onFailure action StageRollback or PipelineRollback`,
        );
      }
      if (config.requireRollbackSteps && stage.rollbackSteps.length === 0) {
        report(
          `${stageLabel(pipeline, stage)} (${stage.type}) has no rollback steps, so a rollback would do nothing`,
        );
      }
    }
  },
);

// ---------------------------------------------------------------------------------------------

/**
 * What a literal secret looks like. Values that start with `$` (a shell variable) or `<+` (an
 * expression such as `<+secrets.getValue("name")>`) are never literals; expressions are removed
 * before matching.
 */
export const SECRET_PATTERNS: readonly { what: string; pattern: RegExp }[] = [
  { what: "a private key", pattern: /-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY-----/ },
  { what: "an AWS access key id", pattern: /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/ },
  { what: "a GitHub token", pattern: /\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})/ },
  { what: "a Slack token", pattern: /\bxox[abprs]-[A-Za-z0-9-]{10,}/ },
  { what: "a JSON web token", pattern: /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/ },
  { what: "credentials in a URL", pattern: /\b[a-z][a-z0-9+.-]*:\/\/[^\s:@/]+:(?![$<])[^\s@/]{3,}@/i },
  {
    what: "an Authorization header",
    pattern: /\bAuthorization:\s*(?:Bearer|Basic|token)\s+(?![$<])[A-Za-z0-9._~+/=-]{8,}/i,
  },
  {
    what: "a password or token assignment",
    pattern:
      // The name ends in the secret word (DB_PASSWORD, GITHUB_TOKEN, client_secret), so
      // SECRET_NAME=... or TOKEN_URL=... are not flagged; paths and URLs are not values either.
      /\b[A-Za-z0-9_]*(?:password|passwd|secret|token|api[_-]?key|access[_-]?key|private[_-]?key)\d*\s*[:=]\s*["']?(?![$<"'\s/.~]|https?:\/\/)[^\s"';]{6,}/i,
  },
  // Long options only: `-p` is also mkdir's and ssh's.
  {
    what: "a password on the command line",
    pattern: /(?:^|\s)--(?:password|token|api-key|secret)[=\s]+["']?(?![$<"'\s/.~-])[^\s"';]{6,}/,
  },
];

/** The kind of secret a text seems to hold (first pattern that matches), or undefined. */
export function literalSecret(text: string, extra: readonly RegExp[] = []): string | undefined {
  const clean = text.replace(EXPRESSION_TOKENS, "<+>");
  for (const { what, pattern } of SECRET_PATTERNS) if (pattern.test(clean)) return what;
  for (const pattern of extra) if (pattern.test(clean)) return `text matching ${pattern.source}`;
  return undefined;
}

export const SecretsConfig = z.object({
  additionalPatterns: z
    .array(z.string().min(1))
    .default([])
    .describe("More regular expressions that a literal secret matches (case-sensitive)."),
});

const USE_SECRET = 'reference a secret with <+secrets.getValue("name")> instead';

/**
 * pipeline-no-literal-secrets: scripts, environment variables and String variables hold nothing
 * that looks like a secret (private keys, cloud and chat tokens, JWTs, credentials in URLs,
 * `PASSWORD=...` assignments, `--password x`). The message never repeats the value.
 */
export const pipelineNoLiteralSecrets = resourcePolicy(
  {
    name: "pipeline-no-literal-secrets",
    description:
      'Pipeline scripts and variables hold no literal that looks like a secret; secrets are referenced with <+secrets.getValue("name")>.',
    enforcementLevel: "mandatory",
    severity: "critical",
    config: SecretsConfig,
    select: pipelineOf,
  },
  (pipeline, { additionalPatterns }, report) => {
    const extra = additionalPatterns.map((p) => new RegExp(p));
    const variable = (where: string, v: { name: string; type: string; value: unknown }) => {
      if (v.type === "Secret" || (typeof v.value !== "string" && typeof v.value !== "number")) return;
      const what = literalSecret(`${v.name}=${v.value}`, extra);
      if (what)
        report(
          `${where} variable ${v.name} holds what looks like ${what}; make it a Secret variable or ${USE_SECRET}`,
        );
    };
    for (const v of pipeline.variables) variable(`pipeline "${pipeline.identifier}"`, v);
    for (const stage of pipeline.stages) {
      for (const v of stage.variables) variable(stageLabel(pipeline, stage), v);
      for (const step of [...stage.steps, ...stage.rollbackSteps]) {
        (step.script ?? "").split("\n").forEach((line, i) => {
          const what = literalSecret(line, extra);
          if (what)
            report(
              `${stepLabel(pipeline, stage, step)}: script line ${i + 1} holds what looks like ${what}; ${USE_SECRET}`,
            );
        });
        for (const v of step.environmentVariables) {
          if (v.type === "Secret" || (typeof v.value !== "string" && typeof v.value !== "number")) continue;
          const what = literalSecret(`${v.name}=${v.value}`, extra);
          if (what)
            report(
              `${stepLabel(pipeline, stage, step)}: environment variable ${v.name} holds what looks like ${what}; ${USE_SECRET}`,
            );
        }
      }
    }
  },
);

// ---------------------------------------------------------------------------------------------

/**
 * Milliseconds of a duration such as `10m`, `1h30m`, `1h 30m` or `500ms`; undefined if it is not
 * one. The pipeline grammar's own (`sdk/platform/pipeline/grammar.ts`), so a timeout the provider
 * accepts is one this policy can measure.
 */
export const durationMs = grammarDurationMs;

export const TimeoutConfig = z.object({
  maxTimeout: z
    .string()
    .refine((t) => durationMs(t) !== undefined, {
      message: "maxTimeout must be a duration such as 1h or 30m",
    })
    .optional()
    .describe("Longest step timeout allowed (a duration such as 1h); no limit when unset."),
});

/**
 * pipeline-step-timeouts: every step, rollback steps included, has a timeout, and none exceeds
 * `maxTimeout` when set. A model-form step without one deploys with the model's default, which the
 * provider's check fills in; expressions and runtime inputs count as set.
 */
export const pipelineStepTimeouts = resourcePolicy(
  {
    name: "pipeline-step-timeouts",
    description: "Every pipeline step has a timeout, and none is longer than the configured maximum.",
    enforcementLevel: "advisory",
    severity: "medium",
    config: TimeoutConfig,
    select: pipelineOf,
  },
  (pipeline, { maxTimeout }, report) => {
    const max = maxTimeout === undefined ? undefined : durationMs(maxTimeout);
    for (const stage of pipeline.stages) {
      for (const step of [...stage.steps, ...stage.rollbackSteps]) {
        const label = stepLabel(pipeline, stage, step);
        if (step.timeout === undefined || step.timeout.trim() === "") {
          report(`${label} has no timeout: set timeout (for example 10m)`);
          continue;
        }
        if (containsExpression(step.timeout)) continue;
        const ms = durationMs(step.timeout);
        if (ms === undefined || !isDuration(step.timeout))
          report(`${label} has timeout "${step.timeout}", which is not a duration such as 10m or 1h30m`);
        else if (max !== undefined && ms > max)
          report(`${label} has timeout ${step.timeout}, longer than the maximum ${maxTimeout}`);
      }
    }
  },
);

// ---------------------------------------------------------------------------------------------
// Production deployments: an approval before them, and input sets for the triggers that start them

export const ProductionConfig = z.object({
  productionEnvironmentPattern: z
    .string()
    .min(1)
    .default("prod")
    .describe(
      "A regular expression (case-insensitive) that the environmentRef of a production environment matches, when the stack has no DeliveryEnvironment of that identifier (whose type then decides).",
    ),
});
export type ProductionConfig = z.output<typeof ProductionConfig>;

/**
 * Why a Deployment stage's environment is production, or undefined: a DeliveryEnvironment of the
 * stack with its identifier (an `org.`/`account.` prefix set aside) decides by its type; without
 * one, the reference matching the configured pattern does. An expression decides nothing.
 */
export function productionEnvironmentReason(
  environmentRef: string | undefined,
  environments: readonly DeliveryEnvironmentView[],
  config: ProductionConfig,
): string | undefined {
  if (environmentRef === undefined || containsExpression(environmentRef)) return undefined;
  const identifier = environmentRef.replace(/^(?:account|org)\./, "");
  const env = environments.find((e) => e.identifier === identifier);
  if (env !== undefined)
    return env.type === "Production" ? "a DeliveryEnvironment of type Production" : undefined;
  const pattern = new RegExp(config.productionEnvironmentPattern, "i");
  return pattern.test(environmentRef)
    ? `its identifier matches /${config.productionEnvironmentPattern}/i`
    : undefined;
}

const isApprovalStep = (type: string) => type.endsWith("Approval");

/** The pipelines of the stack with their addresses; YAML that does not parse is skipped (check reports it). */
async function* pipelinesOf(resources: readonly PolicyTarget[]) {
  const read = async (props: Record<string, unknown>) => {
    try {
      return await readPipeline(props);
    } catch (e) {
      if (isUnknownValueError(e)) throw e;
      return undefined;
    }
  };
  for await (const { address, view } of eachOf(resources, TYPES.pipeline, read))
    if (view) yield { address, view };
}

/**
 * pipeline-approval-before-production: a Deployment stage deploying to a production environment
 * is preceded by an Approval stage, or has an approval step before its first Kubernetes step. A
 * stack policy, since the environment's type is a DeliveryEnvironment resource's; the name
 * pattern decides for environments the stack does not declare. A stage made from a template whose
 * `templateInputs` name `type: Approval` counts as an Approval stage; one that deploys is not
 * judged, as its approval steps are the template's, which this rule cannot see.
 */
export const pipelineApprovalBeforeProduction = stackPolicy(
  {
    name: "pipeline-approval-before-production",
    description:
      "A Deployment stage to a production environment (a DeliveryEnvironment of type Production, or an environmentRef matching the configured pattern) comes after an Approval stage or an approval step.",
    enforcementLevel: "mandatory",
    severity: "high",
    config: ProductionConfig,
  },
  async (resources, config, report) => {
    const environments = await readAll(resources, TYPES.deliveryEnvironment, readDeliveryEnvironment);
    for await (const { address, view: pipeline } of pipelinesOf(resources)) {
      pipeline.stages.forEach((stage, i) => {
        if (stage.type !== "Deployment") return;
        const reason = productionEnvironmentReason(stage.environmentRef, environments, config);
        if (reason === undefined) return;
        if (pipeline.stages.slice(0, i).some((s) => runsAs(s) === "Approval")) return;
        const firstDeploy = stage.steps.findIndex((s) => s.type.startsWith("K8s"));
        const before = firstDeploy < 0 ? stage.steps : stage.steps.slice(0, firstDeploy);
        if (before.some((s) => isApprovalStep(s.type))) return;
        report(
          `${stageLabel(pipeline, stage)} deploys to production environment "${stage.environmentRef}" (${reason}) with no approval before it: add an Approval stage before it, or a HarnessApproval step before its deployment steps`,
          address,
        );
      });
    }
  },
);

/**
 * trigger-production-input-set: a Trigger starting a pipeline of the stack that deploys to
 * production and asks for runtime inputs names an input set (`inputSetRefs`), so an unattended run
 * never deploys with values nobody reviewed. A stage made from a template deploys to production
 * when its `templateInputs` name `type: Deployment` and a production `environmentRef`.
 */
export const triggerProductionInputSet = stackPolicy(
  {
    name: "trigger-production-input-set",
    description:
      "A Trigger on a pipeline that deploys to production and has runtime inputs references an input set (inputSetRefs).",
    enforcementLevel: "mandatory",
    severity: "medium",
    config: ProductionConfig,
  },
  async (resources, config, report) => {
    const environments = await readAll(resources, TYPES.deliveryEnvironment, readDeliveryEnvironment);
    const pipelines: PipelineView[] = [];
    for await (const { view } of pipelinesOf(resources)) pipelines.push(view);
    for await (const { address, view: trigger } of eachOf(resources, TYPES.trigger, readTrigger)) {
      if ((trigger.inputSetRefs ?? []).length > 0) continue;
      const pipeline = pipelines.find((p) => p.identifier === trigger.pipelineIdentifier);
      if (pipeline === undefined || !pipeline.hasRuntimeInputs) continue;
      // A stage made from a Deployment template counts, with the environment its templateInputs set.
      const production = pipeline.stages.find(
        (s) =>
          runsAs(s) === "Deployment" && productionEnvironmentReason(s.environmentRef, environments, config),
      );
      if (production === undefined) continue;
      report(
        `trigger "${trigger.identifier ?? "?"}" starts pipeline "${pipeline.identifier}", which deploys to production environment "${production.environmentRef}" and asks for runtime inputs, but names no input set: set inputSetRefs`,
        address,
      );
    }
  },
);
