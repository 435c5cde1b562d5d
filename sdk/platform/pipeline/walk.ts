/**
 * A tolerant walker for readers of pipelines (the policy pack, the emulator's module and reference
 * lookups): it reads a typed model (as written, or after Pulumi's serialization), YAML text or a
 * parsed YAML document into one small view, skipping what it does not understand instead of
 * refusing it. Validation is the provider's `check` and the service's business, not a reader's.
 * @module
 */
import { z } from "zod";
import { DEFAULT_APPROVAL_TIMEOUT, DEFAULT_STEP_TIMEOUT, isRuntimeInputText, RUNTIME_INPUT } from "./grammar";
import { loadYaml } from "./parse";
import { RuntimeInputOptions, runtimeInputText } from "./runtime-input";

/** A variable as read: name, type (`String` when absent) and value, unvalidated. */
export const VariableView = z.object({ name: z.string(), type: z.string(), value: z.unknown() });
/** See {@link VariableView}. */
export type VariableView = z.output<typeof VariableView>;

/** A step of a pipeline, whatever form the pipeline was given in. */
export const StepView = z.object({
  identifier: z.string(),
  name: z.string(),
  type: z.string(),
  timeout: z.string().optional(),
  /** A ShellScript step's script, or a Run step's command. */
  script: z.string().optional(),
  /** Environment variables of a ShellScript step. */
  environmentVariables: z.array(VariableView),
  /** Where it sits: `stages[0].execution.rollbackSteps[1]`. */
  path: z.string(),
  /** True for a step that runs on rollback. */
  rollback: z.boolean(),
});
/** See {@link StepView}. */
export type StepView = z.output<typeof StepView>;

/** A stage: its steps in order (parallel groups and step groups flattened) and its variables. */
export const StageView = z.object({
  identifier: z.string(),
  name: z.string(),
  type: z.string(),
  failureStrategies: z.array(z.unknown()),
  steps: z.array(StepView),
  rollbackSteps: z.array(StepView),
  /** The stage's variables and, for a Deployment stage, its service's. */
  variables: z.array(VariableView),
  /**
   * The environment a Deployment stage deploys to (`environmentRef`), when it names one as text;
   * for a stage made from a template, the one its `templateInputs` give, if any (one the template
   * fixes is not seen).
   */
  environmentRef: z.string().optional(),
  /**
   * The template a stage is made from (its `type` is then `Template`, or the one its
   * `templateInputs` name): its steps, failure strategies and variables are the template's, which
   * a reader of the pipeline alone does not see.
   */
  template: z
    .object({
      templateRef: z.string(),
      versionLabel: z.string().optional(),
      /** The stage type the `templateInputs` name (`type: Deployment`), when they name one. */
      type: z.string().optional(),
    })
    .optional(),
});
/** See {@link StageView}. */
export type StageView = z.output<typeof StageView>;

/** A pipeline as read; stages of parallel groups are listed in order. */
export const PipelineView = z.object({
  identifier: z.string(),
  name: z.string(),
  form: z.enum(["model", "yaml"]),
  stages: z.array(StageView),
  variables: z.array(VariableView),
  /** True when some field is a runtime input (`<+input>...`): a run asks for a value. */
  hasRuntimeInputs: z.boolean(),
});
/** See {@link PipelineView}. */
export type PipelineView = z.output<typeof PipelineView>;

type Props = Record<string, unknown>;
const isRecord = (v: unknown): v is Props => typeof v === "object" && v !== null && !Array.isArray(v);
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const record = (v: unknown): Props => (isRecord(v) ? v : {});
const variables = (v: unknown): VariableView[] =>
  list(v)
    .filter(isRecord)
    .map((x) => ({ name: String(x.name ?? ""), type: String(x.type ?? "String"), value: x.value }));
const label = (v: Props, key: "identifier" | "name") =>
  String((key === "name" ? (v.name ?? v.identifier) : v.identifier) ?? "");
// A runtime input in a model is `{ $input: {...} }` once serialized; it is set, so it counts.
const timeoutText = (v: unknown): string | undefined =>
  typeof v === "string" ? v : isRecord(v) && "$input" in v ? RUNTIME_INPUT : undefined;
const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);

/** A reference as text: a string, or a model's runtime input (`{ $input }`) as its `<+input>` text. */
const refText = (v: unknown): string | undefined =>
  isRecord(v) && isRecord(v.$input) ? runtimeInputText(RuntimeInputOptions.parse(v.$input)) : str(v);

/** True when any value in a model or a document is a runtime input (text, or a model's `{ $input }`). */
function anyRuntimeInput(node: unknown): boolean {
  if (isRuntimeInputText(node)) return true;
  if (Array.isArray(node)) return node.some(anyRuntimeInput);
  if (!isRecord(node)) return false;
  return "$input" in node || Object.values(node).some(anyRuntimeInput);
}

/** The environment reference at `spec.environment` or `spec.infrastructure` of a stage's spec. */
const specEnvironmentRef = (spec: Props): string | undefined =>
  str(record(spec.infrastructure).environmentRef) ?? str(record(spec.environment).environmentRef);

/** What a stage made from a template shows: the template and what its `templateInputs` give. */
function templateOf(
  stage: Props,
): Pick<StageView, "template" | "environmentRef"> & { template: NonNullable<StageView["template"]> } {
  const t = record(stage.template);
  const inputs = record(t.templateInputs);
  const versionLabel = str(t.versionLabel);
  const type = str(inputs.type);
  return {
    template: {
      templateRef: String(t.templateRef ?? ""),
      ...(versionLabel === undefined ? {} : { versionLabel }),
      ...(type === undefined ? {} : { type }),
    },
    environmentRef: specEnvironmentRef(record(inputs.spec)),
  };
}

/**
 * Reads a typed pipeline model. A step without a timeout gets {@link DEFAULT_STEP_TIMEOUT}, the
 * timeout the model deploys it with.
 */
export function pipelineViewOfModel(model: Props): PipelineView {
  const step = (s: Props, path: string, rollback: boolean): StepView => ({
    identifier: label(s, "identifier"),
    name: label(s, "name"),
    type: String(s.type ?? ""),
    timeout:
      timeoutText(s.timeout) ??
      (s.type === "HarnessApproval" ? DEFAULT_APPROVAL_TIMEOUT : DEFAULT_STEP_TIMEOUT),
    script: str(s.script) ?? str(s.command),
    environmentVariables: variables(s.environmentVariables),
    path,
    rollback,
  });
  const steps = (elements: unknown, at: string, rollback: boolean): StepView[] =>
    list(elements).flatMap((e, i) => {
      if (!isRecord(e)) return [];
      if (e.type === "Parallel")
        return list(e.steps).flatMap((s, j) =>
          isRecord(s) ? [step(s, `${at}[${i}].steps[${j}]`, rollback)] : [],
        );
      return [step(e, `${at}[${i}]`, rollback)];
    });
  return {
    identifier: label(model, "identifier"),
    name: label(model, "name"),
    form: "model",
    variables: variables(model.variables),
    stages: list(model.stages)
      .filter(isRecord)
      .map((s, i): StageView => {
        if (s.type === "Template" || (s.type === undefined && isRecord(s.template))) {
          return {
            identifier: label(s, "identifier"),
            name: label(s, "name"),
            type: "Template",
            failureStrategies: [],
            steps: [],
            rollbackSteps: [],
            variables: [],
            ...templateOf(s),
          };
        }
        const execution = record(s.execution);
        return {
          identifier: label(s, "identifier"),
          name: label(s, "name"),
          type: String(s.type ?? ""),
          failureStrategies: list(s.failureStrategies),
          steps: steps(execution.steps, `stages[${i}].execution.steps`, false),
          rollbackSteps: steps(execution.rollbackSteps, `stages[${i}].execution.rollbackSteps`, true),
          variables: [...variables(s.variables), ...variables(record(s.service).variables)],
          environmentRef: refText(record(s.environment).environmentRef),
        };
      }),
    hasRuntimeInputs: anyRuntimeInput(model),
  };
}

function yamlStep(s: Props, path: string, rollback: boolean): StepView {
  const spec = record(s.spec);
  return {
    identifier: label(s, "identifier"),
    name: label(s, "name"),
    type: String(s.type ?? ""),
    // The spec shows the timeout under the step's spec; real pipelines put it on the step (ref §7.1).
    timeout: timeoutText(s.timeout) ?? timeoutText(spec.timeout),
    script: str(record(record(spec.source).spec).script) ?? str(spec.command),
    environmentVariables: variables(spec.environmentVariables),
    path,
    rollback,
  };
}

function yamlSteps(elements: unknown, at: string, rollback: boolean): StepView[] {
  return list(elements).flatMap((e, i): StepView[] => {
    if (!isRecord(e)) return [];
    if (isRecord(e.step)) return [yamlStep(e.step, `${at}[${i}].step`, rollback)];
    if (Array.isArray(e.parallel)) return yamlSteps(e.parallel, `${at}[${i}].parallel`, rollback);
    if (isRecord(e.stepGroup)) {
      return [
        ...yamlSteps(e.stepGroup.steps, `${at}[${i}].stepGroup.steps`, rollback),
        ...yamlSteps(e.stepGroup.rollbackSteps, `${at}[${i}].stepGroup.rollbackSteps`, true),
      ];
    }
    return [];
  });
}

function yamlStage(s: Props, at: string): StageView {
  if (s.type === undefined && isRecord(s.template)) {
    return {
      identifier: label(s, "identifier"),
      name: label(s, "name"),
      type: "Template",
      failureStrategies: list(s.failureStrategies),
      steps: [],
      rollbackSteps: [],
      variables: variables(s.variables),
      ...templateOf(s),
    };
  }
  const spec = record(s.spec);
  const execution = record(spec.execution);
  const serviceSpec = record(record(record(spec.serviceConfig).serviceDefinition).spec);
  return {
    identifier: label(s, "identifier"),
    name: label(s, "name"),
    type: String(s.type ?? ""),
    failureStrategies: list(s.failureStrategies),
    steps: yamlSteps(execution.steps, `${at}.spec.execution.steps`, false),
    rollbackSteps: yamlSteps(execution.rollbackSteps, `${at}.spec.execution.rollbackSteps`, true),
    variables: [...variables(s.variables), ...variables(serviceSpec.variables)],
    // `infrastructure.environmentRef` (spec §2), or `environment.environmentRef` of newer stages.
    environmentRef: specEnvironmentRef(spec),
  };
}

/** Reads a parsed YAML document's `pipeline` mapping; stages of a `parallel` group are read in order. */
export function pipelineViewOfDocument(pipeline: Props): PipelineView {
  const stages = list(pipeline.stages).flatMap((el, i): StageView[] => {
    if (!isRecord(el)) return [];
    if (Array.isArray(el.parallel)) {
      return el.parallel.flatMap((p, j) =>
        isRecord(p) && isRecord(p.stage)
          ? [yamlStage(p.stage, `pipeline.stages[${i}].parallel[${j}].stage`)]
          : [],
      );
    }
    return [yamlStage(record(el.stage), `pipeline.stages[${i}].stage`)];
  });
  return {
    identifier: label(pipeline, "identifier"),
    name: label(pipeline, "name"),
    form: "yaml",
    variables: variables(pipeline.variables),
    stages,
    hasRuntimeInputs: anyRuntimeInput(pipeline),
  };
}

/**
 * Reads pipeline YAML text.
 * @throws Error when the text does not parse or has no top-level `pipeline` mapping.
 */
export function pipelineViewOfYaml(text: string): PipelineView {
  const read = loadYaml(text);
  if (!read.ok) throw new Error(`the pipeline YAML does not parse: ${read.error.message}`);
  const doc = read.value;
  if (!isRecord(doc) || !isRecord(doc.pipeline))
    throw new Error("the pipeline YAML has no top-level pipeline key");
  return pipelineViewOfDocument(doc.pipeline);
}

/** Every `connectorRef` string anywhere in a parsed pipeline document, in document order. */
export function connectorRefsOf(doc: unknown): string[] {
  const out: string[] = [];
  const walk = (node: unknown) => {
    if (Array.isArray(node)) node.forEach(walk);
    else if (isRecord(node)) {
      for (const [k, v] of Object.entries(node)) {
        if (k === "connectorRef" && typeof v === "string") out.push(v);
        else walk(v);
      }
    }
  };
  walk(doc);
  return out;
}
