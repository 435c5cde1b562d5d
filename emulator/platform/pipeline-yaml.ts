/**
 * Pipeline YAML as the service answers it: parsing (duplicate keys refused, ref §6.2) and the
 * service's structural checks (spec §2 "Pipeline", ref §6.2 and §7), reported as the service does:
 * 400 SCHEMA_VALIDATION_FAILED with `metadata.schemaErrors` (ref §2), each error naming its field
 * by a JSON path such as `$.pipeline.stages[0].stage.identifier`.
 *
 * The rules themselves are the SDK's pipeline package (`sdk/platform/pipeline/service.ts`, with
 * the grammar of `grammar.ts`), the same rules the provider's `check` applies; this module only
 * words them. The texts follow the networknt validator the service uses (`is missing but it is
 * required`, `must be a constant value X`, `string found, object expected`); the exact texts are
 * not documented (ref §12), so they are inferred.
 * @module
 */

import { dotPath } from "../../sdk/core/issues";
import {
  anArticle,
  checkServicePipeline,
  IDENTIFIER_PATTERN,
  identifierIsRuntimeInput,
  loadYaml,
  NAME_PATTERN,
  type PipelineView,
  pipelineViewOfDocument,
  pipelineViewOfYaml,
  type ServiceMessages,
  servicePipelineSchema,
} from "../../sdk/platform/pipeline/index";
import type { EmulatorError } from "../errors";
import { invalidRequest, invalidYaml, type SchemaError, schemaValidationFailed } from "./errors";

/** Module of each stage type, for `data.modules` of a pipeline GET (inferred mapping). */
// Approval and Custom stages belong to the pipeline service itself (`pms`, listed for every pipeline).
const STAGE_MODULES: Record<string, string> = {
  Deployment: "cd",
  CI: "ci",
  FeatureFlag: "cf",
  IACM: "iacm",
  Approval: "pms",
  Custom: "pms",
};

/** The service's wording of each refusal (networknt style, inferred: ref §12). */
export const SERVER_MESSAGES: ServiceMessages = {
  missing: () => "is missing but it is required",
  type: (found, expected) => `${found} found, ${expected} expected`,
  identifier: () => `does not match the regex pattern ${IDENTIFIER_PATTERN.source}`,
  keyword: (value) => `${value} is a keyword, so cannot be used`,
  name: () => `does not match the regex pattern ${NAME_PATTERN.source}`,
  duration: (value) => `${JSON.stringify(value)} is not a duration such as 10m, 1h30m or 30s`,
  enumeration: (values) => `does not have a value in the enumeration [${values.join(", ")}]`,
  minItems: (min) => `there must be a minimum of ${min} items in the array`,
  exactlyOne: (keys) => `must have exactly one of ${keys.join(", ")}`,
  constant: (value) => `must be a constant value ${value}`,
  duplicate: (what, id) =>
    `duplicate ${what} identifier [${id}]; ${what} identifiers must be unique within the ${what === "stage" ? "pipeline" : "stage"}`,
  // Inferred wording: the schema of each stage kind lists its step types, so another type fails
  // the `type` enumeration of the step (ref §12: schema messages undocumented).
  stepInStage: (stepType, stageType) =>
    `step type ${stepType} is not supported in ${anArticle(stageType)} stage`,
};

/** The pipeline YAML schema for a pipeline saved under `org`/`project` (ref §6.2: both injected as `const`). */
export function pipelineYamlSchema(scope: { org: string; project: string }) {
  return servicePipelineSchema(scope, SERVER_MESSAGES);
}

/**
 * Parses YAML text (a JSON body is YAML too, ref §6.2 quirk) with the SDK's bounded reading
 * (`sdk/core/yaml.ts`). Syntax errors, duplicate keys and several documents are 400
 * INVALID_YAML_ERROR (ref §6.2); so are a text over 1 MiB and an alias bomb (the service's parser
 * refuses both, its texts unpublished: the emulator says which bound the text broke).
 */
export function parsePipelineYaml(text: string): unknown {
  if (text.trim() === "") throw invalidYaml("Invalid yaml: the request body is empty");
  const read = loadYaml(text);
  if (read.ok) return read.value;
  const e = read.error;
  if (e.reason !== "syntax") throw invalidYaml(`Invalid yaml: ${e.message}`);
  const where = e.line !== undefined ? ` at line ${e.line}, column ${e.col}` : "";
  if (e.code === "DUPLICATE_KEY") {
    const line = text.split(/\r?\n/)[(e.line ?? 1) - 1] ?? "";
    const key = line.trim().replace(/^-\s*/, "").split(":")[0]?.trim() ?? "";
    throw invalidYaml(`Invalid yaml: duplicate key [${key}]${where}`);
  }
  throw invalidYaml(`Invalid yaml: ${e.message.replace(/ at line \d+, column \d+:?$/, "")}${where}`);
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
  issues: readonly { path: readonly PropertyKey[]; message: string }[],
): EmulatorError {
  const schemaErrors: SchemaError[] = issues.map((issue) => {
    // A JSON path from the document root: `$.pipeline.stages[0].stage.identifier`.
    const fqn = dotPath(issue.path, "$");
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
  return schemaValidationFailed(message, schemaErrors);
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
  if (identifierIsRuntimeInput(doc)) throw invalidRequest("Pipeline identifier cannot be runtime input");
  const { issues, pipeline: p } = checkServicePipeline(doc, scope, SERVER_MESSAGES);
  if (p === undefined) throw schemaFailure(doc, issues);
  // `fromEntries` makes each key a member, `__proto__` too (an assignment would drop it).
  const tagMap = Object.fromEntries(
    Object.entries(p.tags ?? {}).map(([k, v]) => [k, v === null ? "" : String(v)]),
  );
  return {
    identifier: p.identifier,
    name: p.name,
    description: p.description ?? "",
    tags: tagMap,
    modules: modulesOf(pipelineViewOfDocument((doc as { pipeline: Record<string, unknown> }).pipeline)),
  };
}

function modulesOf(view: PipelineView): string[] {
  const modules = new Set<string>(["pms"]);
  for (const { type } of view.stages) if (STAGE_MODULES[type] !== undefined) modules.add(STAGE_MODULES[type]);
  return [...modules].sort();
}

/** The modules of a stored pipeline YAML (`data.modules` of a GET). */
export function pipelineModules(text: string): string[] {
  try {
    return modulesOf(pipelineViewOfYaml(text));
  } catch {
    return ["pms"];
  }
}
