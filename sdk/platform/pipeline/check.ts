/**
 * The client-side check of raw pipeline YAML (the `Pipeline` resource's `check`): the size bound,
 * the strict parse and the service's own rules ({@link checkServicePipeline}), so that YAML which
 * passes here is accepted by the service, and every problem names its field.
 * @module
 */
import { durationMessage, nameMessage } from "./fields";
import { IDENTIFIER_RULE } from "./grammar";
import { anArticle, STAGE_STEP_TYPES } from "./model";
import { loadYaml } from "./parse";
import {
  checkServicePipeline,
  identifierIsRuntimeInput,
  type ServiceMessages,
  type YamlPath,
} from "./service";

/** A problem of raw pipeline YAML: the path of the field in the document (`[]` for the text itself). */
export interface YamlProblem {
  path: (string | number)[];
  message: string;
}

/** `errors[0]` for `["onFailure", "errors", 0]`: the field a path ends in, as a program names it. */
function fieldOf(path: YamlPath): string {
  let end = path.length;
  let index = "";
  while (end > 0 && typeof path[end - 1] === "number") index = `[${String(path[--end])}]${index}`;
  return end > 0 ? `${String(path[end - 1])}${index}` : "value";
}

const article = (word: string) => (/^[aeiou]/.test(word) ? `an ${word}` : `a ${word}`);

/** The service's rules worded for a program's author: each message names the field. */
export const CHECK_MESSAGES: ServiceMessages = {
  missing: (path) => `${fieldOf(path)} is required`,
  type: (found, expected, path) => `${fieldOf(path)} must be ${article(expected)}, not ${article(found)}`,
  identifier: () => `identifier ${IDENTIFIER_RULE}`,
  keyword: (value) => `${value} is a keyword, so cannot be used`,
  name: (value) => nameMessage(value) ?? "name is not valid",
  duration: (value) => durationMessage(value),
  enumeration: (values, path) => `${fieldOf(path)} must be one of ${values.join(", ")}`,
  minItems: (min, path) => `${fieldOf(path)} needs at least ${min} ${min === 1 ? "entry" : "entries"}`,
  exactlyOne: (keys) => `each entry needs exactly one of ${keys.join(", ")}`,
  constant: (expected, path) => `${fieldOf(path)} must be ${expected}`,
  duplicate: (what, id) =>
    `${what} identifier ${id} is used more than once in the ${what === "stage" ? "pipeline" : "stage"}`,
  stepInStage: (stepType, stageType) =>
    `a ${stepType} step cannot run in ${anArticle(stageType)} stage; ${anArticle(stageType)} stage takes ${STAGE_STEP_TYPES[stageType as keyof typeof STAGE_STEP_TYPES]?.join(", ") ?? "other steps"}`,
};

const isMap = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === "object" && !Array.isArray(v);

/**
 * The problems of raw pipeline YAML, none when the service would accept it (for the scope it
 * names, or any scope when it names none). Cost is bounded ({@link loadYaml}): text over 1 MiB is
 * refused before it is parsed, and an alias bomb before it is expanded, each naming `yaml`.
 */
export function pipelineYamlProblems(text: string): YamlProblem[] {
  const read = loadYaml(text);
  if (!read.ok) {
    const e = read.error;
    return [{ path: [], message: e.reason === "syntax" ? `invalid YAML: ${e.message}` : e.about("yaml") }];
  }
  const doc = read.value;
  if (!isMap(doc) || !isMap(doc.pipeline)) {
    return [{ path: ["pipeline"], message: "the YAML needs a top-level pipeline mapping" }];
  }
  const problems: YamlProblem[] = [];
  if (identifierIsRuntimeInput(doc)) {
    problems.push({
      path: ["pipeline", "identifier"],
      message: "the pipeline identifier cannot be a runtime input (ref §6.2)",
    });
  }
  for (const issue of checkServicePipeline(doc, undefined, CHECK_MESSAGES).issues) {
    problems.push({
      path: issue.path.map((p) => (typeof p === "number" ? p : String(p))),
      message: issue.message,
    });
  }
  return problems;
}
