/**
 * Pipeline YAML: parsing (duplicate keys refused, ref §6.2) and the structural checks the real
 * service's JSON schema makes (spec §2 "Pipeline", ref §6.2 and §7), reported as the service does:
 * 400 SCHEMA_VALIDATION_FAILED with `metadata.schemaErrors` (ref §2), each error naming its field
 * by a JSON path such as `$.pipeline.stages[0].stage.identifier`.
 *
 * The message texts follow the networknt validator the service uses (`is missing but it is
 * required`, `must be a constant value X`, `string found, object expected`); the exact texts are
 * not documented (ref §12), so they are inferred.
 * @module
 */
import { parse, parseDocument } from "yaml";
import { z } from "zod";
import { IDENTIFIER_PATTERN, RESERVED_IDENTIFIERS } from "../../sdk/platform/schemas.js";
import { invalidRequest, invalidYaml, PlatformError, type SchemaError } from "./errors.js";

/** `<+input>` with its optional modifiers: `.default(x)`, `.allowedValues(a,b)`, `.executionInput()`, `.regex(...)` (ref §7.2). */
export const RUNTIME_INPUT = /^<\+input>(\.[A-Za-z]+\(.*\))*$/;
/** An expression `<+...>` anywhere in a value (ref §7.2). */
export const EXPRESSION = /<\+.+>/;
/** Durations: one or more `<number><unit>` with units w, d, h, m, s or ms (`10m`, `1h30m`, `1h 30m`, `30s`). */
export const DURATION = /^(\d+(ms|[wdhms])\s?)+$/;
/** Names of pipelines, stages and steps in the service's schema (inferred from its YAML schema). */
export const YAML_NAME_PATTERN = /^[a-zA-Z_0-9-.][-0-9a-zA-Z_\s.]{0,127}$/;

/** Stage types whose spec must carry an `execution` with at least one step. */
const EXECUTION_STAGE_TYPES = new Set(["Deployment", "CI", "Custom", "Approval", "FeatureFlag"]);

/** Module of each stage type, for `data.modules` of a pipeline GET (inferred mapping). */
const STAGE_MODULES: Record<string, string> = { Deployment: "cd", CI: "ci", FeatureFlag: "cf", IACM: "iacm" };

function typeName(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  if (typeof v === "number") return Number.isInteger(v) ? "integer" : "number";
  return typeof v;
}

/** A networknt-style type message: missing, or `<found> found, <expected> expected`. */
const expect = (what: string) => (iss: { input?: unknown }) =>
  iss.input === undefined
    ? "is missing but it is required"
    : `${typeName(iss.input)} found, ${what} expected`;

const str = () => z.string({ error: expect("string") });
const obj = <S extends z.ZodRawShape>(shape: S) => z.looseObject(shape, { error: expect("object") });
const arr = <T extends z.ZodType>(item: T) => z.array(item, { error: expect("array") });
const isRuntimeInput = (v: unknown) => typeof v === "string" && RUNTIME_INPUT.test(v.trim());
/** A value that may also be given at run time with `<+input>` (spec §2); otherwise it must match `schema`. */
const orInput = (schema: z.ZodType) =>
  z.unknown().superRefine((v, ctx) => {
    if (isRuntimeInput(v)) return;
    const r = schema.safeParse(v);
    if (!r.success)
      for (const issue of r.error.issues)
        ctx.addIssue({ code: "custom", path: issue.path, message: issue.message });
  });
const enumOf = (values: [string, ...string[]]) =>
  z.enum(values, {
    error: (iss) =>
      iss.input === undefined
        ? "is missing but it is required"
        : `does not have a value in the enumeration [${values.join(", ")}]`,
  });
const bool = () => z.boolean({ error: expect("boolean") });

const identifier = () =>
  str()
    .regex(IDENTIFIER_PATTERN, `does not match the regex pattern ${IDENTIFIER_PATTERN.source}`)
    .refine((id) => !(RESERVED_IDENTIFIERS as readonly string[]).includes(id), {
      error: (iss) => `${String(iss.input)} is a keyword, so cannot be used`,
    });
const name = () =>
  str().regex(YAML_NAME_PATTERN, `does not match the regex pattern ${YAML_NAME_PATTERN.source}`);
const duration = () =>
  str().refine((v) => DURATION.test(v.trim()) || EXPRESSION.test(v), {
    error: (iss) => `${JSON.stringify(iss.input)} is not a duration such as 10m, 1h30m or 30s`,
  });
const tags = () =>
  z
    .record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()]), { error: expect("object") })
    .optional();
const isMap = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === "object" && !Array.isArray(v);
/** Run a refinement whenever the value is a map, even when its fields failed: every problem is reported at once. */
const onMaps = { when: (payload: { value: unknown }) => isMap(payload.value) };
const exactlyOne = (keys: string[]) => (v: Record<string, unknown>, ctx: z.RefinementCtx) => {
  const present = keys.filter((k) => v[k] !== undefined);
  if (present.length !== 1) {
    ctx.addIssue({ code: "custom", message: `must have exactly one of ${keys.join(", ")}` });
  }
};

const failureStrategy = obj({
  onFailure: obj({ errors: arr(str()), action: obj({ type: str() }) }),
});

/** ShellScript step spec (spec §2 "Step fields", ref §7.1). */
const shellScriptSpec = obj({
  shell: orInput(enumOf(["Bash", "PowerShell"])),
  onDelegate: orInput(bool()).optional(),
  source: obj({
    type: enumOf(["Inline", "Harness"]),
    spec: obj({ script: str().optional(), file: str().optional() }),
  }).superRefine((s, ctx) => {
    if (!isMap(s.spec)) return;
    if (s.type === "Inline" && s.spec.script === undefined) {
      ctx.addIssue({ code: "custom", path: ["spec", "script"], message: "is missing but it is required" });
    }
    if (s.type === "Harness" && s.spec.file === undefined) {
      ctx.addIssue({ code: "custom", path: ["spec", "file"], message: "is missing but it is required" });
    }
  }, onMaps),
  environmentVariables: orInput(arr(obj({ name: str(), type: str() }))).optional(),
  outputVariables: orInput(arr(obj({ name: str() }))).optional(),
  executionTarget: orInput(obj({})).optional(),
  delegateSelectors: orInput(arr(str())).optional(),
});

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
  if (s.spec === undefined) {
    ctx.addIssue({ code: "custom", path: ["spec"], message: "is missing but it is required" });
    return;
  }
  if (s.type === "ShellScript" && isMap(s.spec)) {
    const r = shellScriptSpec.safeParse(s.spec);
    if (!r.success) {
      for (const issue of r.error.issues)
        ctx.addIssue({ code: "custom", path: ["spec", ...issue.path], message: issue.message });
    }
  }
}, onMaps);

type StepElement = { step?: unknown; parallel?: StepElement[]; stepGroup?: { steps: StepElement[] } };
const stepElement: z.ZodType<StepElement> = z.lazy(() =>
  obj({
    step: step.optional(),
    parallel: arr(stepElement).min(1, "there must be a minimum of 1 items in the array").optional(),
    stepGroup: obj({
      identifier: identifier(),
      name: name(),
      steps: arr(stepElement).min(1, "there must be a minimum of 1 items in the array"),
      rollbackSteps: arr(stepElement).optional(),
    }).optional(),
  }).superRefine(exactlyOne(["step", "parallel", "stepGroup"]), onMaps),
) as z.ZodType<StepElement>;

const execution = obj({
  steps: arr(stepElement).min(1, "there must be a minimum of 1 items in the array"),
  rollbackSteps: arr(stepElement).optional(),
});

/** Deployment stage parts shown in spec §2; validated when present (newer stages use `service`/`environment`). */
const serviceConfig = obj({
  serviceRef: str(),
  serviceDefinition: obj({
    type: str(),
    spec: obj({ variables: orInput(arr(obj({}))).optional() }),
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
      allowSimultaneousDeployments: orInput(bool()).optional(),
    }),
  }).optional(),
  allowSimultaneousDeployments: orInput(bool()).optional(),
});

const stage = obj({
  identifier: identifier(),
  name: name(),
  description: z
    .string({ error: expect("string") })
    .nullable()
    .optional(),
  type: str().optional(),
  spec: obj({
    execution: execution.optional(),
    serviceConfig: serviceConfig.optional(),
    infrastructure: infrastructure.optional(),
  }).optional(),
  template: obj({ templateRef: str() }).optional(),
  tags: tags(),
  failureStrategies: arr(failureStrategy).optional(),
}).superRefine((s, ctx) => {
  if (s.template !== undefined) return;
  if (s.type === undefined)
    ctx.addIssue({ code: "custom", path: ["type"], message: "is missing but it is required" });
  if (s.spec === undefined) {
    ctx.addIssue({ code: "custom", path: ["spec"], message: "is missing but it is required" });
  } else if (
    typeof s.type === "string" &&
    EXECUTION_STAGE_TYPES.has(s.type) &&
    isMap(s.spec) &&
    s.spec.execution === undefined
  ) {
    ctx.addIssue({ code: "custom", path: ["spec", "execution"], message: "is missing but it is required" });
  }
}, onMaps);

const stageElement = obj({
  stage: stage.optional(),
  parallel: arr(obj({ stage })).min(1, "there must be a minimum of 1 items in the array").optional(),
}).superRefine(exactlyOne(["stage", "parallel"]), onMaps);

/** The pipeline YAML schema for a pipeline saved under `org`/`project` (ref §6.2: both injected as `const`). */
export function pipelineYamlSchema(scope: { org: string; project: string }) {
  const constant = (value: string) =>
    str().refine((v) => v === value, { error: `must be a constant value ${value}` });
  return obj({
    pipeline: obj({
      name: name(),
      identifier: identifier(),
      orgIdentifier: constant(scope.org),
      projectIdentifier: constant(scope.project),
      description: z
        .string({ error: expect("string") })
        .nullable()
        .optional(),
      tags: tags(),
      allowStageExecutions: orInput(bool()).optional(),
      timeout: duration().optional(),
      stages: arr(stageElement).min(1, "there must be a minimum of 1 items in the array"),
    }),
  });
}

// ---------------------------------------------------------------------------------------------

/**
 * Parses YAML text (a JSON body is YAML too, ref §6.2 quirk). Syntax errors, duplicate keys and
 * several documents are 400 INVALID_YAML_ERROR (ref §6.2).
 */
export function parsePipelineYaml(text: string): unknown {
  if (text.trim() === "") throw invalidYaml("Invalid yaml: the request body is empty");
  const doc = parseDocument(text, { uniqueKeys: true, prettyErrors: true });
  const first = doc.errors[0];
  if (first !== undefined) {
    const where = first.linePos?.[0]
      ? ` at line ${first.linePos[0].line}, column ${first.linePos[0].col}`
      : "";
    if (first.code === "DUPLICATE_KEY") {
      const line = text.split(/\r?\n/)[(first.linePos?.[0]?.line ?? 1) - 1] ?? "";
      const key = line.trim().replace(/^-\s*/, "").split(":")[0]?.trim() ?? "";
      throw invalidYaml(`Invalid yaml: duplicate key [${key}]${where}`);
    }
    throw invalidYaml(
      `Invalid yaml: ${first.message.split("\n")[0]!.replace(/ at line \d+, column \d+:?$/, "")}${where}`,
    );
  }
  return doc.toJS({ maxAliasCount: 100 });
}

function fqnOf(path: readonly PropertyKey[]): string {
  return `$${path.map((p) => (typeof p === "number" ? `[${p}]` : `.${String(p)}`)).join("")}`;
}

function infoAt(doc: unknown, path: readonly PropertyKey[], key: "stage" | "step"): SchemaError["stageInfo"] {
  let node: unknown = doc;
  let found: unknown;
  for (const p of path) {
    if (node === null || typeof node !== "object") break;
    node = (node as Record<PropertyKey, unknown>)[p as string];
    if (p === key) found = node;
  }
  if (found === null || typeof found !== "object") return null;
  const f = found as Record<string, unknown>;
  const s = (v: unknown) => (typeof v === "string" ? v : null);
  return { identifier: s(f.identifier), name: s(f.name), type: s(f.type) };
}

function schemaFailure(
  doc: unknown,
  issues: { path: readonly PropertyKey[]; message: string }[],
): PlatformError {
  const schemaErrors: SchemaError[] = issues.map((issue) => {
    const fqn = fqnOf(issue.path);
    return {
      message: `${fqn}: ${issue.message}`,
      stageInfo: infoAt(doc, issue.path, "stage"),
      stepInfo: infoAt(doc, issue.path, "step"),
      fqn,
      hintMessage: null,
    };
  });
  // The UI's example reads "Invalid yaml: Invalid Yaml"; the emulator names the fields instead.
  const message = `Invalid yaml: ${schemaErrors.map((e) => e.message).join("; ")}`;
  return new PlatformError("ERROR", "SCHEMA_VALIDATION_FAILED", message, { metadata: { schemaErrors } });
}

/** Stage and step identifiers must be unique: stages in the pipeline, steps within their stage (ref §7.1). */
function uniquenessIssues(pipeline: Record<string, unknown>): { path: PropertyKey[]; message: string }[] {
  const issues: { path: PropertyKey[]; message: string }[] = [];
  const stageIds = new Map<string, true>();
  const asList = (v: unknown): Record<string, unknown>[] =>
    Array.isArray(v) ? (v as Record<string, unknown>[]) : [];

  const visitSteps = (elements: unknown, path: PropertyKey[], seen: Map<string, true>) => {
    asList(elements).forEach((el, i) => {
      const here = [...path, i];
      const s = el.step as Record<string, unknown> | undefined;
      if (s !== undefined) check(s.identifier, [...here, "step", "identifier"], seen, "step", "stage");
      visitSteps(el.parallel, [...here, "parallel"], seen);
      const g = el.stepGroup as Record<string, unknown> | undefined;
      if (g !== undefined) {
        check(g.identifier, [...here, "stepGroup", "identifier"], seen, "step", "stage");
        visitSteps(g.steps, [...here, "stepGroup", "steps"], seen);
        visitSteps(g.rollbackSteps, [...here, "stepGroup", "rollbackSteps"], seen);
      }
    });
  };
  const check = (id: unknown, path: PropertyKey[], seen: Map<string, true>, what: string, where: string) => {
    if (typeof id !== "string") return;
    if (seen.has(id))
      issues.push({
        path,
        message: `duplicate ${what} identifier [${id}]; ${what} identifiers must be unique within the ${where}`,
      });
    seen.set(id, true);
  };
  const visitStage = (st: Record<string, unknown>, path: PropertyKey[]) => {
    check(st.identifier, [...path, "identifier"], stageIds, "stage", "pipeline");
    const exec = (st.spec as Record<string, unknown> | undefined)?.execution as
      | Record<string, unknown>
      | undefined;
    const seen = new Map<string, true>();
    visitSteps(exec?.steps, [...path, "spec", "execution", "steps"], seen);
    visitSteps(exec?.rollbackSteps, [...path, "spec", "execution", "rollbackSteps"], seen);
  };
  asList(pipeline.stages).forEach((el, i) => {
    if (el.stage !== undefined)
      visitStage(el.stage as Record<string, unknown>, ["pipeline", "stages", i, "stage"]);
    asList(el.parallel).forEach((p, j) => {
      if (p.stage !== undefined)
        visitStage(p.stage as Record<string, unknown>, ["pipeline", "stages", i, "parallel", j, "stage"]);
    });
  });
  return issues;
}

/** What the service reads out of a valid pipeline YAML (ref §6.2: identifier, name, description and tags come from it). */
export interface PipelineFacts {
  identifier: string;
  name: string;
  description: string;
  tags: Record<string, string>;
  modules: string[];
}

/**
 * Checks a parsed pipeline YAML for a pipeline under `org`/`project` and returns its facts.
 * A runtime-input identifier is INVALID_REQUEST (ref §6.2, `PMSPipelineDtoMapper`), checked first
 * as the mapper runs before schema validation; every structural problem is reported together.
 */
export function validatePipeline(doc: unknown, scope: { org: string; project: string }): PipelineFacts {
  const rawPipeline = (doc as { pipeline?: { identifier?: unknown } } | null)?.pipeline;
  if (rawPipeline !== null && typeof rawPipeline === "object" && isRuntimeInput(rawPipeline.identifier)) {
    throw invalidRequest("Pipeline identifier cannot be runtime input");
  }
  const parsed = pipelineYamlSchema(scope).safeParse(doc);
  const issues: { path: readonly PropertyKey[]; message: string }[] = parsed.success
    ? []
    : parsed.error.issues.map((i) => ({ path: i.path, message: i.message }));
  if (doc !== null && typeof doc === "object" && rawPipeline !== null && typeof rawPipeline === "object") {
    issues.push(...uniquenessIssues(rawPipeline as Record<string, unknown>));
  }
  if (issues.length > 0 || !parsed.success) throw schemaFailure(doc, issues);
  const p = parsed.data.pipeline;
  const tagMap: Record<string, string> = {};
  for (const [k, v] of Object.entries(p.tags ?? {})) tagMap[k] = v === null ? "" : String(v);
  return {
    identifier: p.identifier,
    name: p.name,
    description: p.description ?? "",
    tags: tagMap,
    modules: modulesOf(rawPipeline as Record<string, unknown>),
  };
}

function modulesOf(pipeline: Record<string, unknown>): string[] {
  const modules = new Set<string>(["pms"]);
  const stages = Array.isArray(pipeline.stages) ? (pipeline.stages as Record<string, unknown>[]) : [];
  const add = (st: unknown) => {
    const type = (st as { type?: unknown } | undefined)?.type;
    if (typeof type === "string" && STAGE_MODULES[type] !== undefined) modules.add(STAGE_MODULES[type]);
  };
  for (const el of stages) {
    add(el.stage);
    if (Array.isArray(el.parallel)) for (const p of el.parallel as { stage?: unknown }[]) add(p.stage);
  }
  return [...modules].sort();
}

/** The modules of a stored pipeline YAML (`data.modules` of a GET). */
export function pipelineModules(text: string): string[] {
  try {
    const doc = parse(text) as { pipeline?: Record<string, unknown> } | null;
    return doc?.pipeline ? modulesOf(doc.pipeline) : ["pms"];
  } catch {
    return ["pms"];
  }
}

/** Every `connectorRef` string value in a pipeline YAML (for the connector delete reference check, ref §5). */
export function connectorRefs(text: string): string[] {
  let doc: unknown;
  try {
    doc = parse(text);
  } catch {
    return [];
  }
  const out: string[] = [];
  const walk = (node: unknown) => {
    if (Array.isArray(node)) node.forEach(walk);
    else if (node !== null && typeof node === "object") {
      for (const [k, v] of Object.entries(node)) {
        if (k === "connectorRef" && typeof v === "string") out.push(v);
        else walk(v);
      }
    }
  };
  walk(doc);
  return out;
}
