/**
 * Rendering: model → YAML, deterministically (same model, same bytes; keys in the spec's field
 * order), with `orgIdentifier`/`projectIdentifier` always taken from the scope (spec §4
 * `POST /pipeline/api/pipelines/v2`; ref §6.2: the service requires both to match the query).
 * @module
 */
import YAML from "yaml";
import { setOwn } from "../../core/data-record";
import { PipelineModelError, pipelineIssues } from "./errors";
import {
  type CIExecution,
  type Codebase,
  type Execution,
  type ExecutionTarget,
  type FailureAction,
  type FailureStrategy,
  type PipelineModel,
  type PipelineModelInput,
  PipelineScope,
  type Stage,
  type StageFromTemplate,
  type Step,
  type StepElement,
  type TemplateLink,
  type TemplatePipeline,
  type TemplateStage,
  type Variable,
  validatePipelineModel,
} from "./model";

// Objects are built key by key in the spec's field order, and optional fields the model does not
// have are left out, so the same model always gives the same bytes.

/** A YAML mapping as plain data, keys in render order. */
export type Plain = Record<string, unknown>;

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
    case "Run": {
      const spec: Plain = {};
      put(spec, "connectorRef", s.connectorRef);
      put(spec, "image", s.image);
      spec.shell = s.shell;
      spec.command = s.command;
      out.spec = spec;
      break;
    }
    case "BuildAndPushDockerRegistry": {
      const spec: Plain = { connectorRef: s.connectorRef, repo: s.repo, tags: [...s.tags] };
      put(spec, "dockerfile", s.dockerfile);
      put(spec, "context", s.context);
      out.spec = spec;
      break;
    }
    case "HarnessApproval":
      out.spec = {
        approvalMessage: s.approvalMessage,
        includePipelineExecutionHistory: s.includePipelineExecutionHistory,
        approvers: {
          userGroups: [...s.approvers.userGroups],
          minimumCount: s.approvers.minimumCount,
          disallowPipelineExecutor: s.approvers.disallowPipelineExecutor,
        },
        approverInputs: s.approverInputs.map((i) => ({ name: i.name, defaultValue: i.defaultValue })),
      };
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

function renderExecution(e: Execution | CIExecution): Plain {
  if (!("rollbackSteps" in e)) return { steps: renderSteps(e.steps) };
  return { steps: renderSteps(e.steps), rollbackSteps: renderSteps(e.rollbackSteps) };
}

/** `properties.ci.codebase`: the build as `{type, spec}` or its runtime-input text. */
function renderCodebase(c: Codebase): Plain {
  const out: Plain = { connectorRef: c.connectorRef };
  put(out, "repoName", c.repoName);
  const b = c.build;
  if (typeof b === "string") out.build = b;
  else if (b.type === "branch") out.build = { type: b.type, spec: { branch: b.branch } };
  else if (b.type === "tag") out.build = { type: b.type, spec: { tag: b.tag } };
  else out.build = { type: b.type, spec: { number: b.number } };
  return out;
}

/**
 * A stage made from a template: name, identifier, description and `template` (no `type`: the
 * template's spec gives it); `templateInputs` as given.
 */
function renderStageFromTemplate(s: StageFromTemplate): Plain {
  const out: Plain = { name: s.name, identifier: s.identifier };
  put(out, "description", s.description);
  out.template = renderTemplateLink(s.template);
  return out;
}

/**
 * A map with its keys sorted at every depth (lists keep their order): `templateInputs` are kept as
 * given but for their key order, which a program's object (or Pulumi's serialization of it, which
 * sorts them) does not fix.
 */
function sortedDeep(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedDeep);
  if (value === null || typeof value !== "object") return value;
  const out: Plain = {};
  for (const key of Object.keys(value).sort()) setOwn(out, key, sortedDeep((value as Plain)[key]));
  return out;
}

/** `template: {templateRef, versionLabel, templateInputs}`, the optional members only when given. */
function renderTemplateLink(t: TemplateLink): Plain {
  const out: Plain = { templateRef: t.templateRef };
  put(out, "versionLabel", t.versionLabel);
  put(out, "templateInputs", t.templateInputs === undefined ? undefined : sortedDeep(t.templateInputs));
  return out;
}

function renderStage(s: Stage): Plain {
  if (s.type === "Template") return renderStageFromTemplate(s);
  const out: Plain = { name: s.name, identifier: s.identifier };
  put(out, "description", s.description);
  out.type = s.type;
  if (s.type === "Deployment" && s.infrastructure === undefined) {
    out.spec = {
      deploymentType: "Kubernetes",
      service: { serviceRef: s.service.serviceRef },
      environment: {
        environmentRef: s.environment.environmentRef,
        deployToAll: false,
        infrastructureDefinitions: (s.environment.infrastructureDefinitions ?? []).map((identifier) => ({
          identifier,
        })),
      },
      execution: renderExecution(s.execution),
    };
  } else if (s.type === "Deployment") {
    const infrastructure = s.infrastructure!;
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
          type: infrastructure.type,
          spec: {
            connectorRef: infrastructure.connectorRef,
            namespace: infrastructure.namespace,
            releaseName: infrastructure.releaseName,
          },
        },
        allowSimultaneousDeployments: infrastructure.allowSimultaneousDeployments,
      },
      execution: renderExecution(s.execution),
    };
  } else if (s.type === "CI") {
    const spec: Plain = { cloneCodebase: s.cloneCodebase };
    const infra = s.infrastructure;
    if (infra.type === "Cloud") {
      spec.platform = { os: infra.os, arch: infra.arch };
      spec.runtime = { type: "Cloud", spec: {} };
    } else {
      spec.infrastructure = {
        type: infra.type,
        spec: { connectorRef: infra.connectorRef, namespace: infra.namespace },
      };
    }
    spec.execution = renderExecution(s.execution);
    out.spec = spec;
  } else {
    out.spec = { execution: renderExecution(s.execution) };
  }
  out.tags = sortedTags(s.tags);
  out.failureStrategies = renderFailureStrategies(s.failureStrategies);
  if (s.variables !== undefined) out.variables = s.variables.map(renderVariable);
  return out;
}

/**
 * A Stage template's spec as plain data, keys in render order: the stage as a pipeline renders it
 * without its name and identifier (the pipeline's stage that uses the template gives them).
 */
export function renderTemplateStage(s: TemplateStage): Plain {
  const { name: _n, identifier: _i, ...spec } = renderStage({ ...s, name: "", identifier: "" } as Stage);
  return spec;
}

/**
 * A Pipeline template's spec as plain data, keys in render order: the pipeline's members as
 * {@link renderPipelineDocument} writes them, without name, identifier, scope and tags (the
 * template's own).
 */
export function renderTemplatePipeline(p: TemplatePipeline): Plain {
  const spec: Plain = { allowStageExecutions: p.allowStageExecutions };
  if (p.codebase !== undefined) spec.properties = { ci: { codebase: renderCodebase(p.codebase) } };
  if (p.variables !== undefined) spec.variables = p.variables.map(renderVariable);
  spec.stages = p.stages.map((s) => ({ stage: renderStage(s) }));
  return spec;
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
  const scopeCheck = PipelineScope.safeParse(scope);
  if (!scopeCheck.success)
    throw new PipelineModelError("invalid pipeline scope", pipelineIssues(scopeCheck.error));
  const pipeline: Plain = { name: m.name, identifier: m.identifier };
  put(pipeline, "description", m.description);
  pipeline.allowStageExecutions = m.allowStageExecutions;
  pipeline.projectIdentifier = scope.project;
  pipeline.orgIdentifier = scope.org;
  pipeline.tags = sortedTags(m.tags);
  if (m.codebase !== undefined) pipeline.properties = { ci: { codebase: renderCodebase(m.codebase) } };
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
