/**
 * `InputSet`: the values of a pipeline's runtime inputs (`<+input>`), saved for that pipeline (Go
 * SDK `harness/nextgen/api_input_sets.go`; Terraform provider `resource_input_set.go`), typed
 * against the pipeline when its YAML is given (`pipelineYaml`, a `Pipeline`'s `yaml` output).
 *
 * | verb | API call |
 * |---|---|
 * | check | none: the zod schema below; raw YAML parsed strictly; with `pipelineYaml` known, every value must land on a field the pipeline marks `<+input>` (a value for any other field is refused, naming it) |
 * | diff | none: scope, pipeline and identifier (these replace), and the YAML compared by meaning (key order, quoting and formatting ignored) |
 * | create | `POST /pipeline/api/inputSets` (or with `adopt` the `GET` below first, then one guarded `PUT` when it differs); a create whose response was lost is found again by `GET` |
 * | read | `GET /pipeline/api/inputSets/{identifier}`: the stored YAML and the version (`ETag`); missing means deleted outside Pulumi |
 * | update | `PUT /pipeline/api/inputSets/{identifier}`: the whole YAML with `If-Match` of the version read, so an edit between the read and the PUT is refused, not overwritten (`../core/if-match.ts`) |
 * | delete | `DELETE /pipeline/api/inputSets/{identifier}`; already gone is success |
 *
 * Identifier, name, organization, project and pipeline in the YAML are always the resource's:
 * typed values are rendered with them; raw YAML that names others fails `check`, and raw YAML
 * that leaves them out gets them filled in.
 * @module
 */

import { z } from "zod";
import type { InputSetData } from "../../sdk/platform/schemas";
import type { Versioned } from "../../sdk/platform/versioned";
import { checkWith, containsUnknown, type InputProblem, UNKNOWN } from "../core/check";
import { type DiffSpec, diffInputs } from "../core/diff";
import { defineKind } from "../core/kind";
import { GONE } from "../core/lifecycle";
import { inputsFrom, sameYaml } from "../core/ng-entity";
import {
  childHead,
  childLifecycle,
  contentUpdate,
  describeChild,
  fillYaml,
  mismatchProblems,
  PIPELINE_CHILD_REPLACE_ON_CHANGE,
  type PipelineChildKey,
  pipelineChildKey,
  pipelineChildShape,
  runtimeInputProblems,
  yamlMapping,
} from "../core/pipeline-child";
import { platformApi } from "../core/platform-common";
import { configure, plain, type ResourceArgs, type ResourceHandlers, resourceClass } from "../core/resource";
import { INPUT_SET_TYPE } from "../types";

// ---------------------------------------------------------------------------------------------
// Inputs and outputs

/** Raw input set YAML: a top-level `inputSet:` mapping, parsed strictly (duplicate keys refused). */
const RawInputSetYaml = z.string({ error: "yaml must be a string" }).superRefine((text, ctx) => {
  const m = yamlMapping(text, "inputSet");
  if (typeof m === "string") ctx.addIssue({ code: "custom", message: m });
});

/** A pipeline's YAML, to type the values against (a top-level `pipeline:` mapping). */
const PipelineYamlInput = z.string({ error: "pipelineYaml must be a string" }).superRefine((text, ctx) => {
  const m = yamlMapping(text, "pipeline", "pipelineYaml");
  if (typeof m === "string") ctx.addIssue({ code: "custom", message: m });
});

/** The inputs of an {@link InputSet}. */
export const InputSetInputs = z.strictObject({
  ...pipelineChildShape,
  /**
   * The values of the pipeline's runtime inputs, in the pipeline's own shape without its
   * identifier (`{variables: [{name, type, value}], stages: [{stage: {identifier, type, spec: {...}}}]}`);
   * at most one of `values` and `yaml`.
   */
  values: z.record(z.string(), z.unknown(), { error: "values must be an object" }).optional(),
  /** The input set as raw YAML (`inputSet: {..., pipeline: {identifier, ...}}`), the escape hatch. */
  yaml: RawInputSetYaml.optional(),
  /**
   * The pipeline's YAML (a `Pipeline`'s `yaml` output): when known at check, a value for a field
   * the pipeline does not mark `<+input>` is refused. Never sent.
   */
  pipelineYaml: PipelineYamlInput.optional(),
});
/** Checked inputs of an {@link InputSet}. */
export type InputSetInputs = z.output<typeof InputSetInputs>;
/** What a program passes to an {@link InputSet}. */
export type InputSetInputValues = z.input<typeof InputSetInputs>;

/** The outputs of an {@link InputSet}. */
export const InputSetOutputs = InputSetInputs.extend({
  /** The YAML sent to (and, after a refresh, stored by) the service. */
  yaml: z.string(),
  /** The input set's version as last seen (the `ETag`); an update sends it as `If-Match`. */
  version: z.number().int().optional(),
});
/** Outputs of an {@link InputSet}. */
export type InputSetOutputs = z.output<typeof InputSetOutputs>;

/** What the YAML's `inputSet:` mapping says about the resource's own fields. */
const wanted = (i: InputSetInputs) => ({
  ...childHead(i),
  description: i.description,
  tags: i.tags,
});

function inputSetProblems(inputs: InputSetInputs): InputProblem[] {
  if (inputs.values !== undefined && inputs.yaml !== undefined) {
    return [{ path: ["yaml"], message: "at most one of values and yaml" }];
  }
  const problems: InputProblem[] = [];
  let values: Record<string, unknown> = inputs.values ?? {};
  let at: (string | number)[] = ["values"];
  if (inputs.yaml !== undefined) {
    const m = yamlMapping(inputs.yaml, "inputSet") as Record<string, unknown>;
    problems.push(...mismatchProblems(m, childHead(inputs), "inputSet", "yaml"));
    const p = (m.pipeline ?? {}) as Record<string, unknown>;
    if (p.identifier !== undefined && p.identifier !== inputs.pipelineIdentifier) {
      problems.push({
        path: ["yaml"],
        message: `inputSet.pipeline.identifier is ${JSON.stringify(p.identifier)} but the resource's pipelineIdentifier is ${JSON.stringify(inputs.pipelineIdentifier)}; they must match (or leave it out of the YAML)`,
      });
    }
    const { identifier: _i, ...rest } = p;
    values = rest;
    at = ["yaml", "inputSet", "pipeline"];
  }
  if (inputs.pipelineYaml === undefined) return problems;
  const pipeline = yamlMapping(inputs.pipelineYaml, "pipeline") as Record<string, unknown>;
  if (pipeline.identifier !== inputs.pipelineIdentifier) {
    problems.push({
      path: ["pipelineYaml"],
      message: `pipelineYaml is pipeline ${JSON.stringify(pipeline.identifier)} but pipelineIdentifier is ${JSON.stringify(inputs.pipelineIdentifier)}`,
    });
    return problems;
  }
  // Raw YAML is one input: its problems name the field inside it in the message.
  for (const p of runtimeInputProblems(values, pipeline, inputs.pipelineIdentifier, at)) {
    problems.push(at[0] === "yaml" ? { path: ["yaml"], message: `${p.path.join(".")}: ${p.message}` } : p);
  }
  return problems;
}

// ---------------------------------------------------------------------------------------------
// The YAML sent

/** The YAML the service gets: the values rendered, or the raw YAML with the resource's fields filled in. */
export function inputSetYaml(inputs: InputSetInputs): string {
  if (inputs.yaml !== undefined) {
    const filled = fillYaml(inputs.yaml, "inputSet", wanted(inputs));
    return fillYaml(filled, "inputSet", { pipeline: { identifier: inputs.pipelineIdentifier } });
  }
  const pipeline = { identifier: inputs.pipelineIdentifier, ...inputs.values };
  return fillYaml("inputSet: {}\n", "inputSet", { ...wanted(inputs), pipeline: plain(pipeline) });
}

// ---------------------------------------------------------------------------------------------
// Diff

/** Inputs whose change replaces the input set. */
export const inputSetReplaceOnChange =
  PIPELINE_CHILD_REPLACE_ON_CHANGE satisfies readonly (keyof InputSetInputs)[];

type DiffField = (typeof PIPELINE_CHILD_REPLACE_ON_CHANGE)[number] | "content";
type DiffView = Partial<Record<DiffField, unknown>>;

const inputSetDiff: DiffSpec<DiffField> = {
  fields: [...PIPELINE_CHILD_REPLACE_ON_CHANGE, "content"],
  replaceOnChange: inputSetReplaceOnChange,
  rules: { content: { equals: sameYaml } },
};

const oldView = (o: InputSetOutputs): DiffView => ({ ...o, content: o.yaml });
const newView = (n: InputSetInputs): DiffView => {
  const { pipelineYaml: _p, ...sent } = n;
  return { ...n, content: containsUnknown(sent) ? UNKNOWN : inputSetYaml(n) };
};

// ---------------------------------------------------------------------------------------------
// Lifecycle

const describe = (k: PipelineChildKey) => describeChild("input set", k);

function toOutputs(inputs: InputSetInputs, data: Versioned<InputSetData>): InputSetOutputs {
  return { ...inputs, yaml: data.inputSetYaml, version: data.version };
}

const life = childLifecycle({
  noun: "input set",
  api: () => platformApi().inputSets,
  yaml: inputSetYaml,
  outputs: toOutputs,
});

/**
 * The provider: every lifecycle method. Each resource's `__provider` text
 * ({@link inputSetProviderText}) loads this object in the provider process; the tests call it directly.
 */
export const impl: ResourceHandlers<InputSetInputs, InputSetOutputs> = {
  configure,

  check: checkWith({ schema: InputSetInputs, validate: inputSetProblems }),

  async diff(_id, olds, news) {
    return diffInputs(inputSetDiff, oldView(olds), newView(news));
  },

  create: (inputs) => life.create(inputs),

  async read(id, props) {
    const prev = props as Partial<InputSetOutputs> | undefined;
    const key = pipelineChildKey(id, prev);
    const data = await life.get(key);
    if (data === undefined) return GONE;
    const live = data.inputSetYaml;
    // Refresh shows drift in the values' terms when the old state had values; otherwise (or
    // without old state) the live YAML is the input.
    const mapping = yamlMapping(live, "inputSet");
    const { identifier: _i, ...values } = (
      typeof mapping === "string" ? {} : (mapping.pipeline ?? {})
    ) as Record<string, unknown>;
    const definition = prev?.yaml !== undefined && prev.values === undefined ? { yaml: live } : { values };
    const { values: _v, yaml: _y, version: _n, ...rest } = prev ?? {};
    const inputs = inputsFrom(InputSetInputs, {
      ...rest,
      ...key,
      name: data.name,
      description: data.description ?? "",
      tags: { ...data.tags },
      ...(prev === undefined || prev.identifier === undefined ? { yaml: live } : definition),
    });
    return { id, props: plain(toOutputs(inputs, data)), inputs: plain(inputs) as InputSetOutputs };
  },

  async update(id, olds, news) {
    // The YAML is one field: written whole when it changed, guarded by the version read.
    return contentUpdate({
      describe: describe(olds),
      spec: inputSetDiff,
      recorded: olds,
      desired: newView(news),
      view: oldView,
      derive: (inputs) => newView(inputs as InputSetInputs),
      read: () => impl.read(id, olds),
      put: (ifMatch, merged) => life.put(merged ? inputsFrom(InputSetInputs, merged) : news, ifMatch),
      keep: (live) => ({ ...live, adopt: news.adopt, pipelineYaml: news.pipelineYaml }),
    });
  },

  lookup: (inputs) => life.lookup(inputs),

  delete: (_id, props) => life.delete(props),
};

// ---------------------------------------------------------------------------------------------
// Provider and resource

/** The arguments of an {@link InputSet}: each input may be a `pulumi.Input`, at any depth. */
export type InputSetArgs = ResourceArgs<InputSetInputValues>;

/**
 * An input set of a pipeline, typed against it.
 * @example
 * ```ts
 * new InputSet("prod", {
 *   project: "payments", pipelineIdentifier: deploy.identifier, pipelineYaml: deploy.yaml,
 *   identifier: "prod", name: "Prod",
 *   values: { variables: [{ name: "env", type: "String", value: "prod" }] },
 * });
 * ```
 */
export const InputSet = resourceClass("input-set", INPUT_SET_TYPE, InputSetInputs, InputSetOutputs);
/** An {@link InputSet} object: one `Output` per member of {@link InputSetOutputs}. */
export type InputSet = InstanceType<typeof InputSet>;
/** What the engine stores as each object's `__provider`: a require of {@link impl}, no code, no secret. */
export const inputSetProviderText = InputSet.providerText;

/** The kind's one definition: what every registry, door, doc and kind-wide test reads (`../core/kind.ts`). */
export const kind = defineKind({
  resource: InputSet,
  impl,
  area: "platform",
  replaceOnChange: inputSetReplaceOnChange,
  importId: { form: "<org>/<project>/<pipeline>/<identifier>", example: "default/payments/deploy/prod" },
  doc: {
    what: "values for a pipeline's runtime inputs (`<+input>`), checked against the pipeline's YAML when it is given",
    replaces: "identifier, scope, pipeline",
    updates: "name, description, tags, values (PUT with `If-Match`)",
  },
  example: {
    inputs: {
      org: "default",
      project: "payments",
      pipelineIdentifier: "hello",
      identifier: "prod",
      name: "Prod",
      values: { variables: [{ name: "env", type: "String", value: "prod" }] },
    },
    refs: {
      project: { kind: "Project", output: "identifier", shared: true },
      pipelineIdentifier: {
        kind: "Pipeline",
        output: "identifier",
        change: { "pipeline.variables": [{ name: "env", type: "String", value: "<+input>" }] },
      },
    },
    unique: ["identifier"],
  },
});
