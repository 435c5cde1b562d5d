/**
 * Template references in a pipeline YAML (a stage's or the pipeline's `template: {templateRef,
 * versionLabel, templateInputs}`), resolved as the service resolves them on save and on a read
 * that asks for it (v0 `GET ...?getTemplatesResolvedPipeline=true` → `resolvedTemplatesPipelineYaml`,
 * v1 `GET ...?template_applied=true` → `template_applied_pipeline_yaml`, ref §6.1, §6.2).
 *
 * From harness-core's template service (`template-service/.../helpers/TemplateMergeServiceHelper.java`):
 * - every map key `template` whose value has a `templateRef` is replaced, in place, by the members
 *   of the template's `spec` (`mergeTemplateInputsInObject` puts them where `template` was), so a
 *   stage keeps its name, identifier and description and gains the template's `type`, `spec`, ...;
 *   templates inside templates are resolved too, at most 10 deep ("Exponentially growing template
 *   nesting. Aborting", `InvalidRequestException`);
 * - the spec's runtime inputs (`<+input>`) take the `templateInputs` value at the same path; a
 *   fixed value of the template is kept (`mergeRuntimeInputValuesAndCheckForRuntimeInOriginalYaml`);
 *   list entries are matched by their identifier (or a variable's name), as the service's FQNs
 *   name them, else by position;
 * - `templateRef` names a template of the pipeline's project, `org.x` of its organization,
 *   `account.x` of the account (`TemplateUtils.getIdentifierRef`); no `versionLabel` means the stable
 *   version (`STABLE_VERSION`);
 * - one that names no template version is refused: `NGTemplateException` "Template with template ID
 *   %s and version %s not found." (`getBatchTemplatesAndProcessTemplates`; the version is the label
 *   given, empty when none), which the pipeline service rethrows as an `NGTemplateException`
 *   (400 TEMPLATE_EXCEPTION, `PMSPipelineTemplateHelper.resolveTemplateRefsInPipeline`).
 * A template of another type than the place it is used in (a Pipeline template in a stage) is not
 * refused here: no public source shows the service's message for it.
 * @module
 */
import { setOwn } from "../../sdk/core/data-record";
import { loadYaml } from "../../sdk/core/yaml";
import { isRuntimeInputText } from "../../sdk/platform/pipeline/grammar";
import { stringifyPipelineDocument } from "../../sdk/platform/pipeline/render";
import type { Store } from "../store";
import { invalidRequest, templateException } from "./errors";
import { templateVersion } from "./template";

/** How deep templates may nest (harness-core `TemplateMergeServiceHelper.MAX_DEPTH`). */
const MAX_DEPTH = 10;

type Scope = { org: string; project: string };
type Map = Record<string, unknown>;

const isMap = (v: unknown): v is Map => typeof v === "object" && v !== null && !Array.isArray(v);

/** The scope and identifier a `templateRef` names, from the pipeline's scope. */
export function templateRefScope(
  ref: string,
  scope: Scope,
): { at: { org: string | null; project: string | null }; identifier: string } {
  if (ref.startsWith("account.")) return { at: { org: null, project: null }, identifier: ref.slice(8) };
  if (ref.startsWith("org.")) return { at: { org: scope.org, project: null }, identifier: ref.slice(4) };
  return { at: { org: scope.org, project: scope.project }, identifier: ref };
}

/** What identifies a list entry for the merge: its identifier (or its wrapped member's), or a variable's name. */
function entryKey(entry: unknown): string | undefined {
  if (!isMap(entry)) return undefined;
  if (typeof entry.identifier === "string") return `identifier:${entry.identifier}`;
  if (typeof entry.name === "string") return `name:${entry.name}`;
  const keys = Object.keys(entry);
  const inner = keys.length === 1 ? entry[keys[0]!] : undefined;
  return isMap(inner) && typeof inner.identifier === "string" ? `${keys[0]}:${inner.identifier}` : undefined;
}

/** The template's value with its runtime inputs replaced by the inputs' values at the same paths. */
export function mergeTemplateInputs(original: unknown, inputs: unknown): unknown {
  if (inputs === undefined || inputs === null) return original;
  if (isRuntimeInputText(original)) return inputs;
  if (isMap(original) && isMap(inputs)) {
    const out: Map = {};
    for (const [key, value] of Object.entries(original))
      setOwn(out, key, Object.hasOwn(inputs, key) ? mergeTemplateInputs(value, inputs[key]) : value);
    return out;
  }
  if (Array.isArray(original) && Array.isArray(inputs)) {
    return original.map((entry, i) => {
      const key = entryKey(entry);
      const match = key === undefined ? inputs[i] : inputs.find((x) => entryKey(x) === key);
      return mergeTemplateInputs(entry, match);
    });
  }
  return original;
}

/** The `spec` of a stored template version's YAML (an empty map when it has none). */
function specOf(yaml: string): Map {
  const read = loadYaml(yaml);
  const template = read.ok && isMap(read.value) ? read.value.template : undefined;
  return isMap(template) && isMap(template.spec) ? template.spec : {};
}

/** True when a document holds a template reference anywhere (`template: {templateRef}`). */
export function hasTemplateRef(node: unknown): boolean {
  if (Array.isArray(node)) return node.some(hasTemplateRef);
  if (!isMap(node)) return false;
  return Object.entries(node).some(
    ([key, value]) =>
      (key === "template" && isMap(value) && value.templateRef !== undefined) || hasTemplateRef(value),
  );
}

/**
 * The pipeline document with every template reference replaced by its template's spec (see the
 * module's notes); throws the service's refusal for a reference to no template version.
 */
export function resolveTemplateRefs(store: Store, doc: unknown, scope: Scope): unknown {
  const resolve = (node: unknown, depth: number): unknown => {
    if (Array.isArray(node)) return node.map((x) => resolve(x, depth));
    if (!isMap(node)) return node;
    const out: Map = {};
    for (const [key, value] of Object.entries(node)) {
      if (key === "template" && isMap(value) && value.templateRef !== undefined) {
        if (depth + 1 >= MAX_DEPTH) throw invalidRequest("Exponentially growing template nesting. Aborting");
        const ref = String(value.templateRef);
        const label = typeof value.versionLabel === "string" ? value.versionLabel : undefined;
        const { at, identifier } = templateRefScope(ref, scope);
        const version = templateVersion(store, at, identifier, label);
        if (version === undefined) {
          throw templateException(
            `Template with template ID ${identifier} and version ${label ?? ""} not found.`,
          );
        }
        const merged = mergeTemplateInputs(specOf(String(version.fields.yaml ?? "")), value.templateInputs);
        const members = resolve(merged, depth + 1);
        if (isMap(members)) for (const [k, v] of Object.entries(members)) setOwn(out, k, v);
      } else setOwn(out, key, resolve(value, depth));
    }
    return out;
  };
  return resolve(doc, 0);
}

/**
 * The stored pipeline YAML with its templates applied: the text itself when it names no template
 * (the service returns the YAML as it is then, `PMSPipelineTemplateHelper`), else the resolved
 * document written out; undefined when a template it names is gone (the read still answers,
 * without the resolved YAML: inferred).
 */
export function templateAppliedYaml(store: Store, yaml: string, scope: Scope): string | undefined {
  const read = loadYaml(yaml);
  if (!read.ok || !hasTemplateRef(read.value)) return yaml;
  try {
    return stringifyPipelineDocument(resolveTemplateRefs(store, read.value, scope));
  } catch {
    return undefined;
  }
}
