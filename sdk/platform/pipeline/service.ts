/**
 * What the service accepts as pipeline YAML: the structural checks its JSON schema makes (spec §2
 * "Pipeline", ref §6.2 and §7) and the uniqueness of stage and step identifiers (ref §7.1), for
 * any pipeline, not only the ones the typed model can write (templates, step groups, other stage
 * and step types pass).
 *
 * The emulator answers with these rules, and the provider's `check` refuses raw YAML with them,
 * so `check` refuses exactly what the emulator refuses. Only the wording differs: each caller
 * passes its {@link ServiceMessages}.
 * @module
 */
import { z } from "zod";
import { dataRecord } from "../../core/data-record";
import {
  CI_SHELLS,
  IDENTIFIER_PATTERN,
  isDurationValue,
  isName,
  isReservedIdentifier,
  isRuntimeInputText,
  SCRIPT_SOURCE_TYPES,
  SHELLS,
} from "./grammar";
import { STAGE_STEP_TYPES, STAGE_TYPES, STEP_TYPES } from "./model";

/** A path into the YAML document: keys and indexes from the root (`["pipeline", "stages", 0]`). */
export type YamlPath = readonly PropertyKey[];

/**
 * How a refusal is worded. Each function gets the value at fault (where there is one) and the
 * path of the field, relative to the nearest value checked on its own (its last key is the field).
 */
export interface ServiceMessages {
  /** A required field is absent. */
  missing(path: YamlPath): string;
  /** A value of the wrong JSON type: `found` and `expected` are `string`, `integer`, `object`, .... */
  type(found: string, expected: string, path: YamlPath): string;
  /** An identifier that does not match the identifier pattern. */
  identifier(value: string, path: YamlPath): string;
  /** An identifier that is a reserved word. */
  keyword(value: string, path: YamlPath): string;
  /** A pipeline, stage, step or step group name that does not match the name pattern. */
  name(value: string, path: YamlPath): string;
  /** A timeout that is neither a duration nor an expression. */
  duration(value: string, path: YamlPath): string;
  /** A value outside an enumeration. */
  enumeration(values: readonly string[], path: YamlPath): string;
  /** A list with fewer entries than required. */
  minItems(min: number, path: YamlPath): string;
  /** A list entry without exactly one of the keys. */
  exactlyOne(keys: readonly string[], path: YamlPath): string;
  /** `orgIdentifier`/`projectIdentifier` other than the scope's (ref §6.2: injected as `const`). */
  constant(expected: string, path: YamlPath): string;
  /** A stage identifier used twice in the pipeline, or a step identifier twice in its stage. */
  duplicate(what: "stage" | "step", id: string, path: YamlPath): string;
  /** A step of a type the stage's kind does not run (a Run step in a Deployment stage). */
  stepInStage(stepType: string, stageType: string, path: YamlPath): string;
}

/** An entry of a steps list as the schema reads it (the annotation its recursive schema needs). */
export type ServiceStepElement = {
  step?: unknown;
  parallel?: ServiceStepElement[];
  stepGroup?: { steps: ServiceStepElement[] };
};

/** One refusal: the path of the field in the YAML document and the message. */
export interface ServiceIssue {
  path: YamlPath;
  message: string;
}

function typeName(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  if (typeof v === "number") return Number.isInteger(v) ? "integer" : "number";
  return typeof v;
}

const isMap = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === "object" && !Array.isArray(v);
/** Run a refinement whenever the value is a map, even when its fields failed: every problem is reported at once. */
const onMaps = { when: (payload: { value: unknown }) => isMap(payload.value) };

/** Stage types whose spec must carry an `execution` with at least one step. */
const EXECUTION_STAGE_TYPES = new Set(["Deployment", "CI", "Custom", "Approval", "FeatureFlag"]);

/** The service's schema of a pipeline YAML document, worded by `m`. */
function schemaOf(scope: { org: string; project: string } | undefined, m: ServiceMessages) {
  const typed = (what: string) => (iss: { input?: unknown; path?: YamlPath }) =>
    iss.input === undefined ? m.missing(iss.path ?? []) : m.type(typeName(iss.input), what, iss.path ?? []);
  const str = () => z.string({ error: typed("string") });
  const obj = <S extends z.ZodRawShape>(shape: S) => z.looseObject(shape, { error: typed("object") });
  const arr = <T extends z.ZodType>(item: T) => z.array(item, { error: typed("array") });
  const bool = () => z.boolean({ error: typed("boolean") });
  const atLeastOne = <T extends z.ZodType>(item: T) =>
    arr(item).min(1, { error: (iss) => m.minItems(1, iss.path ?? []) });
  const missingAt = (ctx: z.RefinementCtx, path: PropertyKey[]) =>
    ctx.addIssue({ code: "custom", path, message: m.missing(path) });
  /**
   * The field `key`, which may also be given at run time with `<+input>` (spec §2); otherwise it
   * must match `schema`. The value is checked under its key, so messages can name the field.
   */
  const orInput = (key: string, schema: z.ZodType) => {
    const keyed = z.object({ [key]: schema });
    return z.unknown().superRefine((v, ctx) => {
      if (isRuntimeInputText(v)) return;
      const r = keyed.safeParse({ [key]: v });
      if (!r.success)
        for (const issue of r.error.issues)
          ctx.addIssue({ code: "custom", path: issue.path.slice(1), message: issue.message });
    });
  };
  const enumOf = (values: readonly [string, ...string[]]) =>
    z.enum(values, {
      error: (iss) =>
        iss.input === undefined ? m.missing(iss.path ?? []) : m.enumeration(values, iss.path ?? []),
    });
  const identifier = () =>
    str()
      .regex(IDENTIFIER_PATTERN, { error: (iss) => m.identifier(String(iss.input), iss.path ?? []) })
      .refine((id) => !isReservedIdentifier(id), {
        error: (iss) => m.keyword(String(iss.input), iss.path ?? []),
      });
  const name = () => str().refine(isName, { error: (iss) => m.name(String(iss.input), iss.path ?? []) });
  const duration = () =>
    str().refine(isDurationValue, { error: (iss) => m.duration(String(iss.input), iss.path ?? []) });
  const description = () =>
    z
      .string({ error: typed("string") })
      .nullable()
      .optional();
  // Tag keys are user data: `dataRecord` keeps a `__proto__` key (`sdk/core/data-record.ts`).
  const tags = () =>
    dataRecord(z.union([z.string(), z.number(), z.boolean(), z.null()]), {
      error: typed("object"),
    }).optional();
  const exactlyOne = (keys: string[]) => (v: Record<string, unknown>, ctx: z.RefinementCtx) => {
    if (keys.filter((k) => v[k] !== undefined).length !== 1)
      ctx.addIssue({ code: "custom", message: m.exactlyOne(keys, []) });
  };

  const failureStrategy = obj({
    onFailure: obj({ errors: arr(str()), action: obj({ type: str() }) }),
  });

  /** ShellScript step spec (spec §2 "Step fields", ref §7.1). */
  const shellScriptSpec = obj({
    shell: orInput("shell", enumOf(SHELLS)),
    onDelegate: orInput("onDelegate", bool()).optional(),
    source: obj({
      type: enumOf(SCRIPT_SOURCE_TYPES),
      spec: obj({ script: str().optional(), file: str().optional() }),
    }).superRefine((s, ctx) => {
      if (!isMap(s.spec)) return;
      if (s.type === "Inline" && s.spec.script === undefined) missingAt(ctx, ["spec", "script"]);
      if (s.type === "Harness" && s.spec.file === undefined) missingAt(ctx, ["spec", "file"]);
    }, onMaps),
    environmentVariables: orInput("environmentVariables", arr(obj({ name: str(), type: str() }))).optional(),
    outputVariables: orInput("outputVariables", arr(obj({ name: str() }))).optional(),
    executionTarget: orInput("executionTarget", obj({})).optional(),
    delegateSelectors: orInput("delegateSelectors", arr(str())).optional(),
  });

  /** CI `Run` step spec (Harness docs' CI samples: `shell`, `command`, `image`, `connectorRef`). */
  const runSpec = obj({
    connectorRef: str().optional(),
    image: str().optional(),
    shell: orInput("shell", enumOf(CI_SHELLS)).optional(),
    command: str(),
  });
  /** `BuildAndPushDockerRegistry` step spec: the connector, the repository and the tags are required. */
  const buildAndPushSpec = obj({
    connectorRef: str(),
    repo: str(),
    tags: orInput("tags", atLeastOne(str())),
  });
  /**
   * `HarnessApproval` step spec: the message and the approvers (the service's `Approvers` bean:
   * `userGroups` and `minimumCount` are `@NotNull`).
   */
  const harnessApprovalSpec = obj({
    approvalMessage: str(),
    includePipelineExecutionHistory: orInput("includePipelineExecutionHistory", bool()).optional(),
    approvers: obj({
      userGroups: orInput("userGroups", atLeastOne(str())),
      minimumCount: orInput(
        "minimumCount",
        z.union([z.number().int().min(1), z.string()], { error: typed("integer") }),
      ),
      disallowPipelineExecutor: orInput("disallowPipelineExecutor", bool()).optional(),
    }),
    approverInputs: orInput("approverInputs", arr(obj({ name: str() }))).optional(),
  });
  const stepSpecs: Record<string, z.ZodType> = {
    ShellScript: shellScriptSpec,
    Run: runSpec,
    BuildAndPushDockerRegistry: buildAndPushSpec,
    HarnessApproval: harnessApprovalSpec,
  };

  const step = obj({
    identifier: identifier(),
    name: name(),
    type: str(),
    timeout: duration().optional(),
    spec: obj({}).optional(),
    template: obj({ templateRef: str() }).optional(),
    failureStrategies: arr(failureStrategy).optional(),
  }).superRefine((s, ctx) => {
    if (s.template !== undefined) return;
    if (s.spec === undefined) return missingAt(ctx, ["spec"]);
    const specSchema = typeof s.type === "string" ? stepSpecs[s.type] : undefined;
    if (specSchema !== undefined && isMap(s.spec)) {
      const r = specSchema.safeParse(s.spec);
      if (!r.success) {
        for (const issue of r.error.issues)
          ctx.addIssue({ code: "custom", path: ["spec", ...issue.path], message: issue.message });
      }
    }
  }, onMaps);

  const stepElement: z.ZodType<ServiceStepElement> = z.lazy(() =>
    obj({
      step: step.optional(),
      parallel: atLeastOne(stepElement).optional(),
      stepGroup: obj({
        identifier: identifier(),
        name: name(),
        steps: atLeastOne(stepElement),
        rollbackSteps: arr(stepElement).optional(),
      }).optional(),
    }).superRefine(exactlyOne(["step", "parallel", "stepGroup"]), onMaps),
  ) as z.ZodType<ServiceStepElement>;

  const execution = obj({ steps: atLeastOne(stepElement), rollbackSteps: arr(stepElement).optional() });

  /** Deployment stage parts shown in spec §2; validated when present (newer stages use `service`/`environment`). */
  const serviceConfig = obj({
    serviceRef: str(),
    serviceDefinition: obj({
      type: str(),
      spec: obj({ variables: orInput("variables", arr(obj({}))).optional() }),
    }).optional(),
  });
  const infrastructure = obj({
    environmentRef: str(),
    infrastructureDefinition: obj({
      type: str(),
      spec: obj({
        connectorRef: str().optional(),
        namespace: str().optional(),
        releaseName: str().optional(),
        allowSimultaneousDeployments: orInput("allowSimultaneousDeployments", bool()).optional(),
      }),
    }).optional(),
    allowSimultaneousDeployments: orInput("allowSimultaneousDeployments", bool()).optional(),
  });

  const stage = obj({
    identifier: identifier(),
    name: name(),
    description: description(),
    type: str().optional(),
    spec: obj({
      execution: execution.optional(),
      serviceConfig: serviceConfig.optional(),
      // A Deployment stage's infrastructure (checked below); a CI stage's build infrastructure
      // (`{type: KubernetesDirect, spec: {connectorRef, namespace}}`) has another shape.
      infrastructure: z.unknown().optional(),
    }).optional(),
    template: obj({ templateRef: str() }).optional(),
    tags: tags(),
    failureStrategies: arr(failureStrategy).optional(),
  }).superRefine((s, ctx) => {
    if (s.template !== undefined) return;
    if (s.type === undefined) missingAt(ctx, ["type"]);
    if (s.type !== "CI" && isMap(s.spec) && s.spec.infrastructure !== undefined) {
      const r = infrastructure.safeParse(s.spec.infrastructure);
      if (!r.success)
        for (const issue of r.error.issues)
          ctx.addIssue({
            code: "custom",
            path: ["spec", "infrastructure", ...issue.path],
            message: issue.message,
          });
    }
    if (s.spec === undefined) missingAt(ctx, ["spec"]);
    else if (
      typeof s.type === "string" &&
      EXECUTION_STAGE_TYPES.has(s.type) &&
      isMap(s.spec) &&
      s.spec.execution === undefined
    )
      missingAt(ctx, ["spec", "execution"]);
  }, onMaps);

  const stageElement = obj({
    stage: stage.optional(),
    parallel: atLeastOne(obj({ stage })).optional(),
  }).superRefine(exactlyOne(["stage", "parallel"]), onMaps);

  // ref §6.2: the service injects the query's org and project as `const` and makes both required;
  // without a scope (the provider fills in a missing one) only their type is checked.
  const scoped = (value: string | undefined) =>
    value === undefined
      ? str().optional()
      : str().refine((v) => v === value, { error: (iss) => m.constant(value, iss.path ?? []) });

  return obj({
    pipeline: obj({
      name: name(),
      identifier: identifier(),
      orgIdentifier: scoped(scope?.org),
      projectIdentifier: scoped(scope?.project),
      description: description(),
      tags: tags(),
      allowStageExecutions: orInput("allowStageExecutions", bool()).optional(),
      timeout: duration().optional(),
      // A pipeline made from a Pipeline template has its `template` instead of `stages`, which
      // the template gives (the service checks the YAML with its templates applied).
      stages: atLeastOne(stageElement).optional(),
      template: obj({ templateRef: str() }).optional(),
    }).superRefine((p, ctx) => {
      if (p.stages === undefined && p.template === undefined) missingAt(ctx, ["stages"]);
    }, onMaps),
  });
}

type ServiceSchema = ReturnType<typeof schemaOf>;
// Building the schema costs milliseconds, checking a pipeline with it a fraction of one: schemas
// are kept per wording and scope (a few scopes in practice; the cache is emptied past 100).
const schemas = new WeakMap<ServiceMessages, Map<string, ServiceSchema>>();

/**
 * The service's schema of a pipeline YAML document for a pipeline saved under `scope`, worded by
 * `messages` (see {@link checkServicePipeline}).
 */
export function servicePipelineSchema(
  scope: { org: string; project: string } | undefined,
  messages: ServiceMessages,
): ServiceSchema {
  const byScope = schemas.get(messages) ?? new Map<string, ServiceSchema>();
  schemas.set(messages, byScope);
  const key = scope === undefined ? "" : JSON.stringify([scope.org, scope.project]);
  const cached = byScope.get(key);
  if (cached !== undefined) return cached;
  if (byScope.size >= 100) byScope.clear();
  const schema = schemaOf(scope, messages);
  byScope.set(key, schema);
  return schema;
}

/** What the service reads out of an accepted pipeline YAML document. */
export type ServicePipeline = z.output<ServiceSchema>["pipeline"];

/**
 * True when the pipeline's identifier is a runtime input: the service refuses it before schema
 * validation, with INVALID_REQUEST "Pipeline identifier cannot be runtime input" (ref §6.2).
 */
export function identifierIsRuntimeInput(doc: unknown): boolean {
  const pipeline = isMap(doc) ? doc.pipeline : undefined;
  return isMap(pipeline) && isRuntimeInputText(pipeline.identifier);
}

/** Stage and step identifiers must be unique: stages in the pipeline, steps within their stage (ref §7.1). */
function uniquenessIssues(pipeline: Record<string, unknown>, m: ServiceMessages): ServiceIssue[] {
  const issues: ServiceIssue[] = [];
  const stageIds = new Set<string>();
  const asList = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
  const check = (id: unknown, path: PropertyKey[], seen: Set<string>, what: "stage" | "step") => {
    if (typeof id !== "string") return;
    if (seen.has(id)) issues.push({ path, message: m.duplicate(what, id, path) });
    seen.add(id);
  };
  const visitSteps = (elements: unknown, path: PropertyKey[], seen: Set<string>) => {
    asList(elements).forEach((el, i) => {
      if (!isMap(el)) return;
      const here = [...path, i];
      if (isMap(el.step)) check(el.step.identifier, [...here, "step", "identifier"], seen, "step");
      visitSteps(el.parallel, [...here, "parallel"], seen);
      const g = el.stepGroup;
      if (isMap(g)) {
        check(g.identifier, [...here, "stepGroup", "identifier"], seen, "step");
        visitSteps(g.steps, [...here, "stepGroup", "steps"], seen);
        visitSteps(g.rollbackSteps, [...here, "stepGroup", "rollbackSteps"], seen);
      }
    });
  };
  const visitStage = (st: unknown, path: PropertyKey[]) => {
    if (!isMap(st)) return;
    check(st.identifier, [...path, "identifier"], stageIds, "stage");
    const exec = isMap(st.spec) && isMap(st.spec.execution) ? st.spec.execution : {};
    const seen = new Set<string>();
    visitSteps(exec.steps, [...path, "spec", "execution", "steps"], seen);
    visitSteps(exec.rollbackSteps, [...path, "spec", "execution", "rollbackSteps"], seen);
  };
  asList(pipeline.stages).forEach((el, i) => {
    if (!isMap(el)) return;
    visitStage(el.stage, ["pipeline", "stages", i, "stage"]);
    asList(el.parallel).forEach((p, j) => {
      if (isMap(p)) visitStage(p.stage, ["pipeline", "stages", i, "parallel", j, "stage"]);
    });
  });
  return issues;
}

const KNOWN_STAGES = new Set<string>(STAGE_TYPES);
const KNOWN_STEPS = new Set<string>(STEP_TYPES);

/**
 * Steps of the typed model's types in a stage of the typed model's kinds that the kind does not run
 * ({@link STAGE_STEP_TYPES}): the service's schema lists the step types of each stage kind. Other
 * step and stage types (templates, Http, Wait, ...) are left to the service.
 */
function stageStepIssues(pipeline: Record<string, unknown>, m: ServiceMessages): ServiceIssue[] {
  const issues: ServiceIssue[] = [];
  const asList = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
  const visitSteps = (elements: unknown, path: PropertyKey[], stageType: keyof typeof STAGE_STEP_TYPES) => {
    asList(elements).forEach((el, i) => {
      if (!isMap(el)) return;
      const here = [...path, i];
      const st = el.step;
      if (isMap(st) && typeof st.type === "string" && KNOWN_STEPS.has(st.type)) {
        if (!(STAGE_STEP_TYPES[stageType] as readonly string[]).includes(st.type)) {
          const at = [...here, "step", "type"];
          issues.push({ path: at, message: m.stepInStage(st.type, stageType, at) });
        }
      }
      visitSteps(el.parallel, [...here, "parallel"], stageType);
      if (isMap(el.stepGroup)) {
        visitSteps(el.stepGroup.steps, [...here, "stepGroup", "steps"], stageType);
        visitSteps(el.stepGroup.rollbackSteps, [...here, "stepGroup", "rollbackSteps"], stageType);
      }
    });
  };
  const visitStage = (st: unknown, path: PropertyKey[]) => {
    if (!isMap(st) || typeof st.type !== "string" || !KNOWN_STAGES.has(st.type)) return;
    const type = st.type as keyof typeof STAGE_STEP_TYPES;
    const exec = isMap(st.spec) && isMap(st.spec.execution) ? st.spec.execution : {};
    visitSteps(exec.steps, [...path, "spec", "execution", "steps"], type);
    visitSteps(exec.rollbackSteps, [...path, "spec", "execution", "rollbackSteps"], type);
  };
  asList(pipeline.stages).forEach((el, i) => {
    if (!isMap(el)) return;
    visitStage(el.stage, ["pipeline", "stages", i, "stage"]);
    asList(el.parallel).forEach((p, j) => {
      if (isMap(p)) visitStage(p.stage, ["pipeline", "stages", i, "parallel", j, "stage"]);
    });
  });
  return issues;
}

/**
 * Checks a parsed pipeline YAML document as the service does, for a pipeline saved under `scope`
 * (without a scope, `orgIdentifier` and `projectIdentifier` may be absent). Returns every problem,
 * worded by `messages`, and the pipeline when there is none. The runtime-input identifier is
 * separate ({@link identifierIsRuntimeInput}): the service refuses it with another error.
 */
export function checkServicePipeline(
  doc: unknown,
  scope: { org: string; project: string } | undefined,
  messages: ServiceMessages,
): { issues: ServiceIssue[]; pipeline?: ServicePipeline } {
  const parsed = servicePipelineSchema(scope, messages).safeParse(doc);
  const issues: ServiceIssue[] = parsed.success
    ? []
    : parsed.error.issues.map((i) => ({ path: i.path, message: i.message }));
  const pipeline = isMap(doc) ? doc.pipeline : undefined;
  if (isMap(pipeline))
    issues.push(...uniquenessIssues(pipeline, messages), ...stageStepIssues(pipeline, messages));
  return parsed.success && issues.length === 0 ? { issues, pipeline: parsed.data.pipeline } : { issues };
}
