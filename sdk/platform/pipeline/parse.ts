/**
 * Parsing: YAML → model. Strict: duplicate keys are refused (as by the service, ref §6.2), and a
 * field the model cannot represent is refused, never dropped, naming its YAML path.
 * @module
 */
import { z } from "zod";
import { loadYaml } from "../../core/yaml";
import { PipelineModelError, pipelineIssues } from "./errors";
import {
  type PipelineModel,
  type PipelineModelInput,
  type Stage,
  type Step,
  type StepElement,
  type Variable,
  validatePipelineModel,
} from "./model";
import {
  PipelineDocument,
  type WireStage,
  type WireStageFromTemplate,
  type WireStep,
  type WireStepElement,
  type WireVariable,
} from "./wire";

/**
 * Reads YAML text as the service does: the SDK's one bounded reading (`sdk/core/yaml.ts`: one
 * document, duplicate keys refused (ref §6.2), at most 1 MiB and 100 alias expansions). The
 * provider, the emulator and the readers all read pipeline YAML through it.
 */
export { loadYaml, type YamlRead } from "../../core/yaml";

/** Reads YAML strictly ({@link loadYaml}); throws {@link PipelineModelError} with the reason it was not read. */
export function readYaml(text: string): unknown {
  const read = loadYaml(text);
  if (!read.ok)
    throw new PipelineModelError("invalid pipeline YAML", [{ path: "", message: read.error.message }]);
  return read.value;
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
    case "Run":
      return {
        type: "Run",
        ...base,
        ...(s.timeout === undefined ? {} : { timeout: s.timeout }),
        ...(s.spec.connectorRef === undefined ? {} : { connectorRef: s.spec.connectorRef }),
        ...(s.spec.image === undefined ? {} : { image: s.spec.image }),
        ...(s.spec.shell === undefined ? {} : { shell: s.spec.shell }),
        command: s.spec.command,
      };
    case "BuildAndPushDockerRegistry":
      return {
        type: "BuildAndPushDockerRegistry",
        ...base,
        ...(s.timeout === undefined ? {} : { timeout: s.timeout }),
        connectorRef: s.spec.connectorRef,
        repo: s.spec.repo,
        tags: s.spec.tags,
        ...(s.spec.dockerfile === undefined ? {} : { dockerfile: s.spec.dockerfile }),
        ...(s.spec.context === undefined ? {} : { context: s.spec.context }),
      };
    case "HarnessApproval":
      return {
        type: "HarnessApproval",
        ...base,
        ...(s.timeout === undefined ? {} : { timeout: s.timeout }),
        approvalMessage: s.spec.approvalMessage,
        ...(s.spec.includePipelineExecutionHistory === undefined
          ? {}
          : { includePipelineExecutionHistory: s.spec.includePipelineExecutionHistory }),
        approvers: s.spec.approvers,
        approverInputs: s.spec.approverInputs ?? [],
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

function parseStage(
  s: z.output<typeof WireStage> | WireStageFromTemplate,
  path: string,
): z.input<typeof Stage> {
  if ("template" in s) {
    return {
      type: "Template",
      name: s.name,
      identifier: s.identifier,
      ...(s.description === undefined ? {} : { description: s.description }),
      template: s.template,
    };
  }
  const execPath = `${path}.spec.execution`;
  const common = {
    name: s.name,
    identifier: s.identifier,
    ...(s.description === undefined ? {} : { description: s.description }),
    failureStrategies: s.failureStrategies ?? [],
    tags: s.tags ?? {},
    ...(s.variables === undefined ? {} : { variables: s.variables.map(parseVariable) }),
  };
  if (s.type === "CI") {
    const { infrastructure, platform } = s.spec;
    return {
      type: "CI",
      ...common,
      execution: { steps: parseSteps(s.spec.execution.steps, `${execPath}.steps`) },
      cloneCodebase: s.spec.cloneCodebase ?? true,
      infrastructure:
        infrastructure === undefined
          ? { type: "Cloud", ...(platform ?? {}) }
          : { type: "KubernetesDirect", ...infrastructure.spec },
    };
  }
  const base = {
    ...common,
    execution: {
      steps: parseSteps(s.spec.execution.steps, `${execPath}.steps`),
      rollbackSteps: parseSteps(s.spec.execution.rollbackSteps ?? [], `${execPath}.rollbackSteps`),
    },
  };
  if (s.type === "Custom") return { type: "Custom", ...base };
  if (s.type === "Approval") return { type: "Approval", ...base };
  if ("environment" in s.spec) {
    return {
      type: "Deployment",
      ...base,
      service: { serviceRef: s.spec.service.serviceRef, variables: [] },
      environment: {
        environmentRef: s.spec.environment.environmentRef,
        infrastructureDefinitions: s.spec.environment.infrastructureDefinitions.map((d) => d.identifier),
      },
    };
  }
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

/** `properties.ci.codebase` as the model's codebase: a build `{type, spec: {branch}}` becomes `{type, branch}`. */
function parseCodebase(c: NonNullable<PipelineDocument["pipeline"]["properties"]>["ci"]["codebase"]) {
  return {
    connectorRef: c.connectorRef,
    ...(c.repoName === undefined ? {} : { repoName: c.repoName }),
    build: typeof c.build === "string" ? c.build : { type: c.build.type, ...c.build.spec },
  } as NonNullable<PipelineModelInput["codebase"]>;
}

/** Validates parsed YAML against the document shape; throws {@link PipelineModelError} with YAML paths. */
export function validatePipelineDocument(value: unknown): PipelineDocument {
  const wire = PipelineDocument.safeParse(value);
  if (!wire.success) throw new PipelineModelError("invalid pipeline YAML", pipelineIssues(wire.error));
  return wire.data;
}

/** The scope named in a pipeline YAML document, as far as it names one. */
export const PipelineYamlScope = z.object({
  orgIdentifier: z.string().optional(),
  projectIdentifier: z.string().optional(),
});
/** See {@link PipelineYamlScope}. */
export type PipelineYamlScope = z.output<typeof PipelineYamlScope>;

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
    ...(wire.properties === undefined ? {} : { codebase: parseCodebase(wire.properties.ci.codebase) }),
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
