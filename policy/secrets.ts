/**
 * Policies on secrets in platform definitions: pipelines and services reference secrets instead of
 * holding their values.
 * @module
 */
import { containsExpression, EXPRESSION_TOKENS, SCOPED_REFERENCE_PATTERN } from "../sdk/platform/pipeline";
import { type PolicyTarget, resourcePolicy } from "./common";
import {
  type DefinitionDocument,
  isType,
  readPipelineDocument,
  readServiceDocument,
  TYPES,
} from "./resources";

/**
 * Names of fields and variables that hold a secret: they end in password, passwd, secret, token,
 * api key, access key or private key (`password`, `DB_PASSWORD`, `clientSecret`, `api_key`), so
 * `passwordRef`, `tokenUrl` or `secretManager` are not among them.
 */
export const SECRET_NAME = /(?:password|passwd|secret|token|api[_-]?key|access[_-]?key|private[_-]?key)$/i;

/**
 * A value written out in the definition: a number, or a string with text outside its `<+...>`
 * expressions. `<+secrets.getValue("x")>` and `<+input>` are not literals; neither is an empty
 * string nor a runtime input of the typed model (an object).
 */
export const isLiteral = (value: unknown): boolean =>
  typeof value === "number" ||
  (typeof value === "string" && value.replace(EXPRESSION_TOKENS, "").trim() !== "");

/**
 * What a `Secret` variable's value must be: the secret's reference (`db_pw`, `org.db_pw`,
 * `account.db_pw`: how the platform names a secret, the `ref` of a `Secret` resource) or an
 * expression giving one (`<+secrets.getValue("db_pw")>`, `<+input>`).
 */
export const isSecretReference = (value: unknown): boolean =>
  typeof value === "string" && (SCOPED_REFERENCE_PATTERN.test(value) || containsExpression(value));

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** An inline secret found: where (the input and the path in it) and what. */
export interface InlineSecret {
  path: string;
  what: string;
}

/**
 * Every inline secret of a definition (a typed model or a parsed YAML document), in document order:
 *
 * - a variable (an object with `name` and `value`) of type `Secret` whose value is a literal
 *   ({@link isLiteral}) and not a secret reference ({@link isSecretReference});
 * - a variable of another type whose name looks like a secret's ({@link SECRET_NAME}) with a
 *   literal value ({@link isLiteral});
 * - any other field whose name looks like a secret's with a literal value.
 *
 * Output variables are left out (their value names the shell variable exported, not a value), and
 * so are tags (labels shown in lists, never a place for a value).
 */
export function inlineSecrets(document: unknown, at: string): InlineSecret[] {
  const found: InlineSecret[] = [];
  const walk = (node: unknown, path: string, key: string) => {
    if (key === "outputVariables" || key === "tags") return;
    if (Array.isArray(node)) {
      for (const [i, v] of node.entries()) walk(v, `${path}[${i}]`, "");
      return;
    }
    if (!isRecord(node)) return;
    if (typeof node.name === "string" && "value" in node) {
      const { name, type, value } = node;
      if (type === "Secret" && isLiteral(value) && !isSecretReference(value))
        found.push({ path, what: `Secret variable ${name} holds a value, not a secret reference` });
      else if (type !== "Secret" && SECRET_NAME.test(name) && isLiteral(value))
        found.push({ path, what: `variable ${name} is named like a secret and holds a literal value` });
      return;
    }
    for (const [k, v] of Object.entries(node)) {
      const inner = path ? `${path}.${k}` : k;
      if (SECRET_NAME.test(k) && isLiteral(v))
        found.push({ path: inner, what: `field ${k} holds a literal value` });
      else walk(v, inner, k);
    }
  };
  walk(document, at, "");
  return found;
}

/** The definition of a Pipeline or a Service, labelled for messages; undefined for other resources. */
async function definitionOf(
  resource: PolicyTarget,
): Promise<{ label: string; def: DefinitionDocument } | undefined> {
  const read = isType(resource.type, TYPES.pipeline)
    ? { noun: "pipeline", reader: readPipelineDocument }
    : isType(resource.type, TYPES.service)
      ? { noun: "service", reader: readServiceDocument }
      : undefined;
  if (!read) return undefined;
  const def = await read.reader(resource.props);
  return def && { label: `${read.noun} "${def.identifier ?? "?"}"`, def };
}

/**
 * secrets-not-inline: a Pipeline's or a Service's definition (typed or YAML) holds no secret value:
 * Secret variables hold secret references, and variables and fields named like secrets hold no
 * literal. Structural where `pipeline-no-literal-secrets` matches patterns in text: it judges names
 * and types, whatever the value looks like. The message never repeats the value.
 */
export const secretsNotInline = resourcePolicy(
  {
    name: "secrets-not-inline",
    description:
      'Pipelines and services hold no secret values: Secret variables hold a secret reference (account.x, org.x, x or <+secrets.getValue("x")>), and variables and fields named like a password, secret, token or key hold no literal.',
    enforcementLevel: "mandatory",
    severity: "critical",
    // A value unknown during a preview throws the engine's error, which the engine reports.
    select: definitionOf,
  },
  ({ label, def }, _config, report) => {
    for (const s of inlineSecrets(def.document, def.input))
      report(
        `${label}: ${s.path}: ${s.what}; store it in a Secret and reference it with <+secrets.getValue("name")> (or its reference, for a Secret variable)`,
      );
  },
);
