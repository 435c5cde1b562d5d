/**
 * `Pipeline`: a platform pipeline, from the typed model of `./pipeline-model` or from raw YAML
 * (spec §2 "Pipeline", §4; ref platform-api-behaviour §6-§7, cited "ref §N").
 *
 * | verb | API call |
 * |---|---|
 * | check | none: the model's zod schema, or a strict YAML parse of the raw text |
 * | diff | none: both sides' YAML parsed and compared by meaning (`pipelinesEqual`); org, project and identifier replace |
 * | create | `POST /pipeline/api/pipelines/v2` (or with `adopt` the `GET` below first); a create whose response was lost is found again by `GET` |
 * | read | `GET /pipeline/api/pipelines/{identifier}`: the stored YAML verbatim (ref §6.2); missing (404 ENTITY_NOT_FOUND) means deleted outside Pulumi |
 * | update | `PUT /pipeline/api/pipelines/v2/{identifier}` with the whole YAML and `If-Match` of the version read: an edit between the read and the PUT is refused, not overwritten (`../core/if-match.ts`) |
 * | delete | `DELETE /pipeline/api/pipelines/{identifier}`; already gone is success |
 *
 * Organization and project in the YAML always equal the resource's `org` and `project`: a rendered
 * model takes them from the scope; raw YAML that names another organization or project fails
 * `check`, and raw YAML that names none gets the resource's filled in before it is sent (the
 * service requires both and refuses a mismatch, ref §6.2).
 * @module
 */
import type * as pulumi from "@pulumi/pulumi";
import { z } from "zod";
import { yamlDocument } from "../../sdk/core/yaml";
import type { PlatformClient } from "../../sdk/platform/client";
import { DEFAULT_ORG, Identifier, type PipelineGetData } from "../../sdk/platform/schemas";
import type { Versioned } from "../../sdk/platform/versioned";
import { checkInputs, containsUnknown, type InputProblem, issuesToFailures, UNKNOWN } from "../core/check";
import { type DiffSpec, diffInputs } from "../core/diff";
import { guardedUpdate } from "../core/guard";
import { writeIfMatch } from "../core/if-match";
import { defineKind, type ImportId } from "../core/kind";
import { createOrAdopt, deleteIdempotent, GONE, readOrGone } from "../core/lifecycle";
import { AdoptInput, OrgInput, platformApi, splitId } from "../core/platform-common";
import { configure, plain, type ResourceArgs, type ResourceHandlers, resourceClass } from "../core/resource";
import {
  isExpression,
  PipelineModel,
  type PipelineModelInput,
  PipelineName,
  parsePipelineYaml,
  pipelinesEqual,
  pipelineYamlProblems,
  readYaml,
  renderPipelineYaml,
} from "../pipeline-model";
import { PIPELINE_TYPE } from "../types";

// ---------------------------------------------------------------------------------------------
// Inputs and outputs

/** What raw pipeline YAML must have for the resource to manage it. */
const RawPipelineHeader = z.looseObject({
  pipeline: z.looseObject(
    {
      identifier: Identifier.refine((v) => !isExpression(v), {
        error: "pipeline identifier cannot be a runtime input (ref platform §6.2)",
      }),
      name: PipelineName,
      orgIdentifier: z.string().optional(),
      projectIdentifier: z.string().optional(),
    },
    { error: "the YAML needs a top-level pipeline mapping" },
  ),
});

/**
 * Raw pipeline YAML, checked as the service checks it (the pipeline package's
 * `pipelineYamlProblems`): at most 1 MiB, read before parsing; parsed strictly (duplicate keys
 * refused, ref §6.2); then the service's own rules, each problem naming its field.
 */
const RawYaml = z.string({ error: "yaml must be a string" }).superRefine((text, ctx) => {
  for (const p of pipelineYamlProblems(text))
    ctx.addIssue({ code: "custom", path: p.path, message: p.message });
});

/** The inputs of a {@link Pipeline}. */
export const PipelineInputs = z.strictObject({
  /** Organization; `default` when absent. Replaces the pipeline when changed. */
  org: OrgInput,
  /** Project. Replaces the pipeline when changed. */
  project: Identifier,
  /** The pipeline as a typed model; exactly one of `pipeline` and `yaml`. */
  pipeline: PipelineModel.optional(),
  /** The pipeline as raw YAML (a top-level `pipeline:` mapping). */
  yaml: RawYaml.optional(),
  /** Take over an existing pipeline with this identifier instead of failing on the duplicate. */
  adopt: AdoptInput,
});
/** Checked inputs of a {@link Pipeline}. */
export type PipelineInputs = z.output<typeof PipelineInputs>;
/** What a program passes to a {@link Pipeline}. */
export type PipelineInputValues = z.input<typeof PipelineInputs>;

/** The outputs of a {@link Pipeline}. */
export const PipelineOutputs = PipelineInputs.extend({
  /** The YAML sent to (and, after a refresh, stored by) the service. */
  yaml: z.string(),
  /** The pipeline identifier (from the model or the YAML). */
  identifier: z.string(),
  /** The pipeline name (from the model or the YAML). */
  name: z.string(),
  /**
   * The pipeline's version as last seen (the service's `ETag`, ref §1); an update sends the
   * version it reads as `If-Match`, so an edit made meanwhile is refused, not overwritten.
   */
  version: z.number().int().optional(),
});
/** Outputs of a {@link Pipeline}. */
export type PipelineOutputs = z.output<typeof PipelineOutputs>;

function pipelineProblems(inputs: PipelineInputs): InputProblem[] {
  if ((inputs.pipeline === undefined) === (inputs.yaml === undefined)) {
    return [
      { path: ["pipeline"], message: "exactly one of pipeline (the typed model) and yaml is required" },
    ];
  }
  if (inputs.yaml === undefined) return [];
  const { orgIdentifier, projectIdentifier } = header(inputs.yaml);
  const problems: InputProblem[] = [];
  if (orgIdentifier !== undefined && orgIdentifier !== inputs.org) {
    problems.push({
      path: ["yaml"],
      message: `pipeline.orgIdentifier is ${JSON.stringify(orgIdentifier)} but the resource's org is ${JSON.stringify(inputs.org)}; they must match (or leave it out of the YAML)`,
    });
  }
  if (projectIdentifier !== undefined && projectIdentifier !== inputs.project) {
    problems.push({
      path: ["yaml"],
      message: `pipeline.projectIdentifier is ${JSON.stringify(projectIdentifier)} but the resource's project is ${JSON.stringify(inputs.project)}; they must match (or leave it out of the YAML)`,
    });
  }
  return problems;
}

/** The model's check failures that do not concern a value still unknown in a preview. */
function knownModelFailures(model: unknown): pulumi.dynamic.CheckFailure[] {
  const parsed = PipelineModel.safeParse(model);
  if (parsed.success) return [];
  const isUnknownAt = (path: readonly PropertyKey[]): boolean => {
    let value: unknown = model;
    for (const key of path) {
      if (value === UNKNOWN) return true;
      if (value === null || typeof value !== "object") return false;
      value = (value as Record<PropertyKey, unknown>)[key];
    }
    return containsUnknown(value);
  };
  const issues = parsed.error.issues.filter((i) => !isUnknownAt(i.path));
  return issuesToFailures(issues, ["pipeline"]);
}

// ---------------------------------------------------------------------------------------------
// The YAML sent

const header = (yaml: string) => RawPipelineHeader.parse(readYaml(yaml)).pipeline;

/**
 * The YAML the service gets: the model rendered into the scope, or the raw YAML, verbatim when it
 * names the scope and with the scope filled in when it does not.
 * @internal
 */
export function effectiveYaml(inputs: Pick<PipelineInputs, "org" | "project" | "pipeline" | "yaml">): string {
  const scope = { org: inputs.org, project: inputs.project };
  if (inputs.pipeline !== undefined) return renderPipelineYaml(inputs.pipeline, scope);
  const text = inputs.yaml!;
  const h = header(text);
  if (h.orgIdentifier !== undefined && h.projectIdentifier !== undefined) return text;
  const doc = yamlDocument(text);
  if (h.projectIdentifier === undefined) doc.setIn(["pipeline", "projectIdentifier"], inputs.project);
  if (h.orgIdentifier === undefined) doc.setIn(["pipeline", "orgIdentifier"], inputs.org);
  return doc.toString({ lineWidth: 0 });
}

/** Identifier and name of the pipeline the inputs describe (`undefined` while not known in a preview). */
function identity(inputs: Pick<PipelineInputs, "pipeline" | "yaml">): { identifier?: string; name?: string } {
  if (inputs.pipeline !== undefined) {
    const { identifier, name } = inputs.pipeline as { identifier?: unknown; name?: unknown };
    return {
      ...(typeof identifier === "string" && identifier !== UNKNOWN ? { identifier } : {}),
      ...(typeof name === "string" && name !== UNKNOWN ? { name } : {}),
    };
  }
  if (typeof inputs.yaml !== "string" || inputs.yaml === UNKNOWN) return {};
  const h = header(inputs.yaml);
  return { identifier: h.identifier, name: h.name };
}

// ---------------------------------------------------------------------------------------------
// Diff

/** The natural key: the import id's parts, written once for the import, the docs and the schema. */
const IMPORT_ID: ImportId = { form: "<org>/<project>/<identifier>", example: "default/payments/deploy" };

/** Inputs whose change replaces the pipeline (a changed pipeline identifier does too). */
export const pipelineReplaceOnChange = [
  "org",
  "project",
] as const satisfies readonly (keyof PipelineInputs)[];

type DiffView = { org: unknown; project: unknown; identifier: unknown; content: unknown };

/** The inputs each field of the diff is read from: `identifier` and `content` from the YAML text or the model. */
const pipelineDiffFields = {
  org: ["org"],
  project: ["project"],
  identifier: ["yaml", "pipeline"],
  content: ["yaml", "pipeline"],
} as const satisfies Record<keyof DiffView, readonly (keyof PipelineInputs)[]>;

const pipelineDiff: DiffSpec<keyof DiffView> = {
  fields: ["org", "project", "identifier", "content"],
  replaceOnChange: [...pipelineReplaceOnChange, "identifier"],
  rules: { content: { equals: (oldYaml, newYaml) => sameMeaning(oldYaml, newYaml) } },
};

/** Whether two YAML texts mean the same pipeline; text that does not parse never equals anything. */
function sameMeaning(a: unknown, b: unknown): boolean {
  if (typeof a !== "string" || typeof b !== "string") return false;
  try {
    return pipelinesEqual(a, b);
  } catch {
    return false;
  }
}

function oldView(olds: PipelineOutputs): DiffView {
  return { org: olds.org, project: olds.project, identifier: olds.identifier, content: olds.yaml };
}

function newView(news: PipelineInputs): DiffView {
  const unknown =
    containsUnknown(news.pipeline) ||
    containsUnknown(news.yaml) ||
    containsUnknown(news.org) ||
    containsUnknown(news.project);
  return {
    org: news.org,
    project: news.project,
    identifier: identity(news).identifier ?? UNKNOWN,
    content: unknown ? UNKNOWN : effectiveYaml(news),
  };
}

// ---------------------------------------------------------------------------------------------
// Lifecycle

/**
 * The resource id: `<org>/<project>/<identifier>` (the peer providers' import id, ref §11).
 * @internal
 */
export const pipelineId = (org: string, project: string, identifier: string): string =>
  `${org}/${project}/${identifier}`;

const inputsOf = (props: Record<string, unknown>): PipelineInputs =>
  PipelineInputs.parse(
    Object.fromEntries(
      Object.entries(props).filter(([k]) => k in PipelineInputs.shape && props[k] !== undefined),
    ),
  );

/** The stored YAML and its version, as a read or a write sees them. */
interface Stored {
  yaml: string;
  version?: number | undefined;
}

function outputs(inputs: PipelineInputs, { yaml, version }: Stored): PipelineOutputs {
  const h = header(yaml);
  return { ...inputs, yaml, identifier: h.identifier, name: h.name, version };
}

/**
 * The provider: every lifecycle method. Each resource's `__provider` text
 * ({@link pipelineProviderText}) loads this object in the provider process; the tests call it directly.
 */
export const impl: ResourceHandlers<PipelineInputs, PipelineOutputs> = {
  configure,

  async check(_olds, news) {
    const result = checkInputs({ schema: PipelineInputs, validate: pipelineProblems }, news);
    // During a preview a model may hold values not known yet (another resource's outputs); the
    // shared check then passes it through unvalidated. Validate it anyway and keep the failures
    // that are not about an unknown value, so a preview still reports every other bad field.
    const model = (news as Record<string, unknown> | undefined)?.pipeline;
    if (!containsUnknown(model)) return result;
    const failures = [...(result.failures ?? []), ...knownModelFailures(model)];
    return failures.length === 0 ? { inputs: result.inputs } : { inputs: result.inputs, failures };
  },

  async diff(_id, olds, news) {
    return diffInputs(pipelineDiff, oldView(olds), newView(news));
  },

  diffFields: pipelineDiffFields,

  async create(inputs) {
    const api = platformApi();
    const scope = { org: inputs.org, project: inputs.project };
    const yaml = effectiveYaml(inputs);
    const { identifier } = header(yaml);
    const describe = `pipeline "${identifier}" in project ${inputs.org}/${inputs.project}`;
    const { value, how } = await createOrAdopt<Stored>({
      describe,
      adopt: inputs.adopt,
      lookup: async () => {
        const found = await readOrGone(() => api.pipelines.get(identifier, scope));
        return found && { yaml: found.yamlPipeline, version: found.version };
      },
      create: async () => ({ yaml, version: (await api.pipelines.create(yaml, scope)).version }),
    });
    // An adopted (or recovered) pipeline that differs from the program is converged with one PUT.
    const live =
      how !== "created" && !sameMeaning(value.yaml, yaml)
        ? await put(api, describe, inputs, identifier, yaml, value.version)
        : value;
    return { id: pipelineId(inputs.org, inputs.project, identifier), outs: plain(outputs(inputs, live)) };
  },

  async read(id, props) {
    // Without old state (a read by id only) the id names the pipeline.
    const prev = props as Partial<PipelineOutputs> | undefined;
    const [org, project, identifier] =
      prev?.identifier && prev.project
        ? [prev.org ?? DEFAULT_ORG, prev.project, prev.identifier]
        : splitId(id, IMPORT_ID.form.split("/").length, IMPORT_ID.form);
    const api = platformApi();
    const data: Versioned<PipelineGetData> | undefined = await readOrGone(() =>
      api.pipelines.get(identifier!, { org: org!, project: project! }),
    );
    if (data === undefined) return GONE;
    const live = data.yamlPipeline;
    const stored = { yaml: live, version: data.version };
    const base: Record<string, unknown> = { org, project, adopt: prev?.adopt ?? false };
    if (prev?.pipeline !== undefined) {
      // Refresh shows drift in the model's terms when the live YAML fits the model; otherwise the
      // old model stays the input and the YAML output carries the drift for the next diff.
      let model: PipelineModelInput = prev.pipeline;
      try {
        model = parsePipelineYaml(live);
      } catch {
        // keep the old model
      }
      base.pipeline = model;
    } else {
      base.yaml = live;
    }
    const inputs = inputsOf(base);
    return { id, props: plain(outputs(inputs, stored)), inputs: plain(inputs) as PipelineOutputs };
  },

  async update(id, olds, news) {
    const describe = `pipeline "${olds.identifier}" in project ${olds.org}/${olds.project}`;
    return guardedUpdate({
      describe,
      spec: pipelineDiff,
      recorded: olds,
      // The inputs beside the compared YAML: a refusal names the input that differs (`pipeline`).
      desired: { ...news, ...newView(news) },
      view: oldView,
      read: () => impl.read(id, olds),
      // The YAML is one field: written whole when it changed (guarded by the version read, or
      // recorded when the read had none), else the live pipeline stays.
      write: async (fields, live) =>
        plain(
          fields.includes("content")
            ? outputs(
                news,
                await put(
                  platformApi(),
                  describe,
                  news,
                  olds.identifier,
                  effectiveYaml(news),
                  live.version ?? olds.version,
                ),
              )
            : { ...live, adopt: news.adopt },
        ),
    });
  },

  async lookup(inputs) {
    const scope = { org: inputs.org, project: inputs.project };
    const { identifier } = header(effectiveYaml(inputs));
    // The GET answer has no creation time (ref §6.2).
    return (await readOrGone(() => platformApi().pipelines.get(identifier, scope))) && {};
  },

  async delete(_id, props) {
    const api = platformApi();
    const scope = { org: props.org, project: props.project };
    await deleteIdempotent(
      () => api.pipelines.delete(props.identifier, scope),
      () => api.pipelines.get(props.identifier, scope),
    );
  },
};

/** Replaces the pipeline's YAML, guarded by `ifMatch`; returns what is stored now. */
async function put(
  api: PlatformClient,
  describe: string,
  inputs: PipelineInputs,
  identifier: string,
  yaml: string,
  ifMatch: number | undefined,
): Promise<Stored> {
  const scope = { org: inputs.org, project: inputs.project };
  const saved = await writeIfMatch(describe, ifMatch, (version) =>
    api.pipelines.update(identifier, yaml, scope, { ifMatch: version }),
  );
  return { yaml, version: saved.version };
}

// ---------------------------------------------------------------------------------------------
// Provider and resource

/**
 * The arguments of a {@link Pipeline}: each input may be a `pulumi.Input`, at any depth, so a model
 * can take a connector's identifier straight from a {@link Connector} output.
 */
export type PipelineArgs = ResourceArgs<PipelineInputValues>;

/**
 * A platform pipeline.
 * @example
 * ```ts
 * new Pipeline("deploy", { project: "payments", pipeline: { name: "Deploy", identifier: "deploy", stages: [...] } });
 * ```
 */
export const Pipeline = resourceClass("pipeline", PIPELINE_TYPE, PipelineInputs, PipelineOutputs);
/** A {@link Pipeline} object: one `Output` per member of {@link PipelineOutputs}. */
export type Pipeline = InstanceType<typeof Pipeline>;
/** What the engine stores as each object's `__provider`: a require of {@link impl}, no code, no secret. */
export const pipelineProviderText = Pipeline.providerText;

/** The kind's one definition: what every registry, door, doc and kind-wide test reads (`../core/kind.ts`). */
export const kind = defineKind({
  resource: Pipeline,
  impl,
  area: "platform",
  replaceOnChange: pipelineReplaceOnChange,
  importId: IMPORT_ID,
  doc: {
    what: "a YAML pipeline built from a typed model (or raw YAML)",
    replaces: "identifier, scope",
    updates: "the YAML, compared by meaning, not text",
  },
  example: {
    inputs: {
      org: "default",
      project: "payments",
      pipeline: {
        name: "Hello",
        identifier: "hello",
        stages: [
          {
            type: "Custom",
            name: "Say hello",
            identifier: "say_hello",
            execution: {
              steps: [
                {
                  type: "ShellScript",
                  name: "Echo",
                  identifier: "echo",
                  script: "echo hello",
                  timeout: "10m",
                },
              ],
            },
          },
        ],
      },
    },
    refs: { project: { kind: "Project", output: "identifier", shared: true } },
    unique: ["pipeline.identifier", "pipeline.name"],
  },
});
