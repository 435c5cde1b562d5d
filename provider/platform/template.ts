/**
 * `Template`: one version of a pipeline or stage template of the delivery platform, at project,
 * organization or account scope (the v1 template API, `../../sdk/platform/template.ts`; Terraform
 * provider `internal/service/pipeline/template/resource_template.go`, whose `identifier`,
 * `version`, `is_stable`, `comments`, `org_id`, `project_id` and `template_yaml` are this
 * resource's `identifier`, `versionLabel`, `isStable`, `comments`, `org`, `project` and the YAML
 * rendered from the typed `stage` or `pipeline`, or from `spec`, the raw spec of the other types).
 *
 * | verb | API call |
 * |---|---|
 * | check | none: the zod schema below (a Stage template's `stage` is a stage of the pipeline model without name, identifier and description, a Pipeline template's `pipeline` the pipeline model's stages, variables and codebase, both checked by the model's rules; exactly one body, the one its `type` takes) |
 * | diff | none: scope, identifier, version label, type and the body's stage or step type replace (the same version deleted first: the service changes no type in place); name, description, tags, the rest of the body and `isStable` update in place |
 * | create | `POST {base}/templates {template_yaml, is_stable, comments}` (or with `adopt` the `GET` below first, then one guarded update when it differs); a create whose response was lost is found again by `GET` |
 * | read | `GET {base}/templates/{identifier}/versions/{versionLabel}`: the stored YAML parsed back into the typed inputs, and whether the version is the stable one; missing means deleted outside Pulumi |
 * | update | the read, compared with the recorded state (`../core/guard.ts`), then `PUT {base}/templates/{identifier}/versions/{versionLabel} {template_yaml, comments}` (the changed inputs desired, the rest live; the API takes no `If-Match`), and `PUT .../versions/{versionLabel}/stable` when `isStable` turns true |
 * | delete | `DELETE {base}/templates/{identifier}/versions/{versionLabel}`; already gone is success |
 *
 * `{base}` is `/v1/orgs/{org}/projects/{project}`, `/v1/orgs/{org}` or `/v1` by scope.
 * `isStable: true` makes this version the one a pipeline gets when it names the template without a
 * version; `false` leaves the stable one as it is (the first version of a template is stable
 * whatever it says). A version stops being stable only when another is made stable: a refresh then
 * reads `isStable: false` for a version that said true, and the next `up` makes it stable again.
 * Deleting the stable version while other versions exist is allowed: the service then serves the
 * last version made stable before it, else the oldest, as the stable one.
 * @module
 */
import { z } from "zod";
import type { PlatformClient } from "../../sdk/platform/client";
import {
  parsePipelineYaml,
  readYaml,
  renderTemplatePipeline,
  renderTemplateStage,
  stringifyPipelineDocument,
  TemplatePipeline,
  TemplateStage,
} from "../../sdk/platform/pipeline";
import { entityName, Identifier, Tags } from "../../sdk/platform/schemas";
import { TEMPLATE_TYPES, type TemplateData, type TemplateScope } from "../../sdk/platform/template";
import type { InputProblem } from "../core/check";
import { type DiffSpec, diffInputs } from "../core/diff";
import { guardedUpdate } from "../core/guard";
import { defineKind, type ImportId, kindToken } from "../core/kind";
import { createOrAdopt, deleteIdempotent, GONE, readOrGone } from "../core/lifecycle";
import { inputsFrom, SpecInput } from "../core/ng-entity";
import { AdoptInput, platformApi } from "../core/platform-common";
import { projectNeedsOrg, scopeOf } from "../core/platform-scope";
import { dataVerbs, plain, type ResourceArgs, type ResourceHandlers, resourceClass } from "../core/resource";

// ---------------------------------------------------------------------------------------------
// Inputs and outputs

/** The inputs of a {@link Template}. */
export const TemplateInputs = z.strictObject({
  /** Organization; absent at account level. Replaces when changed. */
  org: Identifier.optional(),
  /** Project (needs `org`); absent at account or organization level. Replaces when changed. */
  project: Identifier.optional(),
  /** The template's identifier, unique in its scope; pipelines name it as `templateRef`. Replaces when changed. */
  identifier: Identifier,
  /** This version's label (1-64 of `[0-9a-zA-Z_.-]`), which pipelines name as `versionLabel`. Replaces when changed. */
  versionLabel: z
    .string({ error: "versionLabel is required" })
    .regex(/^[0-9a-zA-Z_.-]{1,64}$/, "versionLabel must be 1-64 of [0-9a-zA-Z_.-]"),
  /** Display name. */
  name: entityName(128),
  /**
   * What the template is: `Stage`, `Pipeline`, `Step` or `StepGroup`. Replaces when changed, as does
   * a change of the stage's or step's own type (the service changes neither in place).
   */
  type: z.enum(TEMPLATE_TYPES, { error: `type must be one of ${TEMPLATE_TYPES.join(", ")}` }),
  /** This version's description. Default: none. */
  description: z.string().max(1024, "description must be at most 1024 characters").default(""),
  /** Key/value tags; a key-only tag has the value `""`. */
  tags: Tags.default({}),
  /**
   * A Stage template's stage, typed as the pipeline model's stages without name, identifier and
   * description (the pipeline's stage that uses the template gives those).
   */
  stage: TemplateStage.optional(),
  /** A Pipeline template's pipeline: the pipeline model's stages, variables and codebase. */
  pipeline: TemplatePipeline.optional(),
  /** The raw `spec` of the template's YAML, for the types the model does not type (Step, StepGroup). */
  spec: SpecInput.optional(),
  /**
   * Make this version the stable one (what a pipeline gets when it names no version); `false`
   * leaves the stable version as it is (the first version of a template is stable whatever it
   * says). A version stops being stable only when another is made stable: a refresh then reads
   * false where the program says true, and the next update makes it stable again. Deleting the
   * stable version while others exist is allowed; the last version made stable before it, else
   * the oldest, becomes the stable one. Default: true.
   */
  isStable: z.boolean({ error: "isStable must be true or false" }).default(true),
  /** The comment sent with each write of the version (the service keeps it in the template's history, not in the version). */
  comments: z.string().optional(),
  /** Take over an existing version with this identifier and label in this scope instead of failing. */
  adopt: AdoptInput,
});
/** Checked inputs of a {@link Template}. */
export type TemplateInputs = z.output<typeof TemplateInputs>;

/** The outputs of a {@link Template}. */
export const TemplateOutputs = TemplateInputs.extend({
  /** The template's YAML as the service stores it. */
  yaml: z.string(),
  /** Whether this version is the stable one now. */
  stable: z.boolean(),
  /** The service's version number of this template version (1 on create, +1 on each write). */
  version: z.number().int().optional(),
});
/** Outputs of a {@link Template}. */
export type TemplateOutputs = z.output<typeof TemplateOutputs>;
/** The arguments of `new Template(...)`. */
export type TemplateArgs = ResourceArgs<z.input<typeof TemplateInputs>>;

/** The body inputs, one of which the template's type takes. */
const BODIES = ["stage", "pipeline", "spec"] as const;

/** The body each type takes besides the raw `spec`. */
const TYPED_BODY: Partial<Record<TemplateInputs["type"], (typeof BODIES)[number]>> = {
  Stage: "stage",
  Pipeline: "pipeline",
};

function templateProblems(i: TemplateInputs): InputProblem[] {
  const problems = projectNeedsOrg(i, "template");
  const given = BODIES.filter((b) => i[b] !== undefined);
  const typed = TYPED_BODY[i.type];
  const takes = typed === undefined ? "spec" : `${typed} (or the raw spec)`;
  if (given.length !== 1) {
    problems.push({
      path: [typed ?? "spec"],
      message: `a ${i.type} template needs exactly one body: ${takes}${given.length > 1 ? `, not ${given.join(" and ")}` : ""}`,
    });
  } else if (given[0] !== "spec" && given[0] !== typed) {
    problems.push({ path: [given[0]!], message: `a ${i.type} template takes ${takes}, not ${given[0]}` });
  }
  return problems;
}

// ---------------------------------------------------------------------------------------------
// The YAML sent and read

/** `tags` with sorted keys, so their order never matters. */
const sortedTags = (tags: Record<string, string>) =>
  Object.fromEntries(
    Object.keys(tags)
      .sort()
      .map((k) => [k, tags[k]]),
  );

/** `value` with every object's keys sorted, so the YAML is the same whichever order the engine gave them in. */
function sortedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedKeys);
  if (typeof value !== "object" || value === null) return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((k) => [k, sortedKeys((value as Record<string, unknown>)[k])]),
  );
}

/**
 * The template's `spec`: the typed body rendered as a pipeline renders it, or the raw spec with
 * its keys sorted (the engine does not keep a program's key order).
 */
function specOf(i: TemplateInputs): unknown {
  if (i.stage !== undefined) return renderTemplateStage(i.stage);
  if (i.pipeline !== undefined) return renderTemplatePipeline(i.pipeline);
  return sortedKeys(i.spec ?? {});
}

/**
 * The YAML the service gets (`template_yaml`): `template: {name, identifier, versionLabel, type,
 * projectIdentifier, orgIdentifier, description, tags, spec}`, the scope's identifiers only where
 * it has them, rendered as pipelines are (deterministic, YAML 1.1-safe quoting).
 */
export function templateYaml(i: TemplateInputs): string {
  const t: Record<string, unknown> = {
    name: i.name,
    identifier: i.identifier,
    versionLabel: i.versionLabel,
    type: i.type,
  };
  if (i.project !== undefined) t.projectIdentifier = i.project;
  if (i.org !== undefined) t.orgIdentifier = i.org;
  if (i.description !== "") t.description = i.description;
  t.tags = sortedTags(i.tags);
  t.spec = specOf(i);
  return stringifyPipelineDocument({ template: plain(t) });
}

/** The wrapper a body is parsed in: a one-pipeline document of the pipeline model. */
const WRAP = { name: "template", identifier: "template", orgIdentifier: "o", projectIdentifier: "p" };

/**
 * The typed body of a stored spec, as the program would give it, or the raw spec when the model
 * cannot read it (another tool's YAML): a refresh then shows the drift as `spec`.
 */
function bodyOf(type: string, spec: unknown): Pick<TemplateInputs, "stage" | "pipeline" | "spec"> {
  const raw = { spec: spec as Record<string, unknown> };
  if (spec === null || typeof spec !== "object" || Array.isArray(spec)) return { spec: {} };
  try {
    if (type === "Stage") {
      const stage = { name: "template", identifier: "template", ...spec };
      const model = parsePipelineYaml(
        stringifyPipelineDocument({ pipeline: { ...WRAP, stages: [{ stage }] } }),
      );
      const { name: _n, identifier: _i, description: _d, ...rest } = model.stages![0]!;
      return { stage: TemplateStage.parse(rest) };
    }
    if (type === "Pipeline") {
      const model = parsePipelineYaml(stringifyPipelineDocument({ pipeline: { ...WRAP, ...spec } }));
      const { name: _n, identifier: _i, description: _d, tags: _t, ...rest } = model;
      return { pipeline: TemplatePipeline.parse(rest) };
    }
  } catch {
    return raw;
  }
  return raw;
}

/** What a stored version says of the inputs, over what only the program holds (`key`). */
function toOutputs(key: TemplateInputs, data: TemplateData): TemplateOutputs {
  const t = (readYaml(data.yaml) as { template?: Record<string, unknown> } | null)?.template ?? {};
  const typed = { stage: undefined, pipeline: undefined, spec: undefined, ...bodyOf(String(t.type), t.spec) };
  const inputs = inputsFrom(TemplateInputs, {
    ...key,
    ...typed,
    name: data.name,
    type: t.type,
    description: data.description ?? "",
    tags: { ...data.tags },
  });
  // Each body the stored one is not is absent (inputsFrom drops undefined members).
  for (const b of BODIES) if (typed[b] === undefined) delete inputs[b];
  return plain({ ...inputs, yaml: data.yaml, stable: data.stable_template === true, version: data.version });
}

/** The inputs part of outputs. */
function inputsOf(o: TemplateOutputs): TemplateInputs {
  const { yaml: _y, stable: _s, version: _v, ...inputs } = o;
  return inputs;
}

// ---------------------------------------------------------------------------------------------
// Diff

/**
 * Inputs whose change replaces the version: its scope, identifier and label, and its type, which
 * the service never changes in place (harness-core `NGTemplateServiceImpl`: "cannot update the
 * template type").
 */
export const templateReplaceOnChange = [
  "org",
  "project",
  "identifier",
  "versionLabel",
  "type",
] as const satisfies readonly (keyof TemplateInputs)[];

type DiffField = Exclude<keyof TemplateInputs, "adopt" | "comments">;

const templateDiff: DiffSpec<DiffField> = {
  fields: [...templateReplaceOnChange, "name", "description", "tags", ...BODIES, "isStable"],
  replaceOnChange: templateReplaceOnChange,
};

/** The child type the service keeps per template (the stage or step type the body names), if any. */
function childType(i: Partial<TemplateInputs>): string | undefined {
  const body: unknown = i.stage ?? i.spec;
  const type = typeof body === "object" && body !== null ? (body as { type?: unknown }).type : undefined;
  return typeof type === "string" ? type : undefined;
}

/**
 * The diff: the fields', plus a replacement when the body's stage or step type changes (the
 * service keeps one child type per template: "cannot update the internal template type"). A
 * replacement of the same version (same scope, identifier and label) deletes it first, since the
 * new one takes its key.
 */
function templateDiffResult(olds: TemplateOutputs, news: TemplateInputs) {
  const result = diffInputs(templateDiff, olds, news);
  const replaces = [...(result.replaces ?? [])];
  const oldChild = childType(olds);
  if (!replaces.includes("type") && oldChild !== undefined && oldChild !== childType(news))
    replaces.push(news.stage !== undefined ? "stage" : "spec");
  const sameKey = (["org", "project", "identifier", "versionLabel"] as const).every(
    (k) => olds[k] === news[k],
  );
  return {
    ...result,
    changes: result.changes || replaces.length > 0,
    replaces,
    deleteBeforeReplace: replaces.length > 0 && sameKey,
  };
}

// ---------------------------------------------------------------------------------------------
// Lifecycle

/**
 * The natural key as an import id: the Terraform provider's (`helpers.MultiLevelTemplateImporter`),
 * the scope and identifier, then `versions/<label>`; without it the stable version is imported.
 */
const IMPORT_ID: ImportId = {
  form: "[<org>/[<project>/]]<identifier>[/versions/<versionLabel>]",
  example: "default/payments/deploy_stage/versions/v1",
};

/** Where a version lives. */
interface TemplateKey {
  org?: string | undefined;
  project?: string | undefined;
  identifier: string;
  versionLabel?: string | undefined;
}

/**
 * The resource id: `[<org>/[<project>/]]<identifier>/versions/<versionLabel>`.
 * @internal
 */
export const templateId = (k: TemplateKey & { versionLabel: string }): string =>
  [k.org, k.project, k.identifier, "versions", k.versionLabel].filter((p) => p !== undefined).join("/");

/** Reads an import id (or resource id) back into scope, identifier and (when given) label. */
export function parseTemplateId(id: string): TemplateKey {
  let parts = id.split("/");
  let versionLabel: string | undefined;
  if (parts.length >= 3 && parts[parts.length - 2] === "versions") {
    versionLabel = parts[parts.length - 1];
    parts = parts.slice(0, -2);
  }
  if (parts.length < 1 || parts.length > 3 || parts.some((p) => p === "") || versionLabel === "") {
    throw new Error(
      `invalid template id ${JSON.stringify(id)}: expected ${IMPORT_ID.form}, such as ${IMPORT_ID.example}`,
    );
  }
  const [a, b, c] = parts as [string, string?, string?];
  if (parts.length === 1) return { identifier: a, versionLabel };
  if (parts.length === 2) return { org: a, identifier: b!, versionLabel };
  return { org: a, project: b!, identifier: c!, versionLabel };
}

const describe = (k: TemplateKey) =>
  `template "${k.identifier}" version "${k.versionLabel ?? "stable"}" (${k.project !== undefined ? `project ${k.org}/${k.project}` : k.org !== undefined ? `organization ${k.org}` : "account"})`;

const at = (k: TemplateKey): TemplateScope => scopeOf(k);

/** Writes the version's YAML, then makes it stable when the inputs ask and it is not; returns the stored version. */
async function put(api: PlatformClient, i: TemplateInputs, wasStable: boolean): Promise<TemplateOutputs> {
  let data = await api.templates.update(
    i.identifier,
    i.versionLabel,
    { template_yaml: templateYaml(i), ...(i.comments === undefined ? {} : { comments: i.comments }) },
    at(i),
  );
  if (i.isStable && !(data.stable_template ?? wasStable)) {
    await api.templates.makeStable(i.identifier, i.versionLabel, at(i));
    data = { ...data, stable_template: true };
  }
  return toOutputs(i, data);
}

/**
 * The provider: every lifecycle method. Each resource's `__provider` text
 * ({@link templateProviderText}) loads this object in the provider process; the tests call it directly.
 */
export const impl: ResourceHandlers<TemplateInputs, TemplateOutputs> = {
  ...dataVerbs({ schema: TemplateInputs, validate: templateProblems }, templateDiff),

  async diff(_id, olds, news) {
    return templateDiffResult(olds, news);
  },

  async create(inputs) {
    const api = platformApi();
    const { value, how } = await createOrAdopt<TemplateData>({
      describe: describe(inputs),
      adopt: inputs.adopt,
      lookup: async () =>
        (await readOrGone(() => api.templates.get(inputs.identifier, inputs.versionLabel, at(inputs))))
          ?.template,
      create: () =>
        api.templates.create(
          {
            template_yaml: templateYaml(inputs),
            is_stable: inputs.isStable,
            ...(inputs.comments === undefined ? {} : { comments: inputs.comments }),
          },
          at(inputs),
        ),
    });
    let outs = toOutputs(inputs, value);
    // An adopted (or recovered) version that differs from the program is converged with one update,
    // unless its type differs: the service changes no type in place, and adopting must not delete.
    const drift = how === "created" ? undefined : templateDiffResult(outs, inputs);
    if (drift !== undefined && drift.replaces.length > 0) {
      const typeChanged = drift.replaces.includes("type");
      const field = typeChanged ? "type" : `${drift.replaces[0]}.type`;
      const live = typeChanged ? `${outs.type} template` : `${outs.type} template of type ${childType(outs)}`;
      const wanted = typeChanged ? inputs.type : childType(inputs);
      throw new Error(
        `${describe(inputs)} exists as a ${live}, the program's ${field} is ${wanted}: the service changes no template's type in place, and adopt does not delete. Use another identifier or versionLabel, or delete that version first`,
      );
    }
    if (drift?.changes) outs = await put(api, inputs, outs.stable);
    return { id: templateId(inputs), outs };
  },

  async read(id, props) {
    const prev = props as Partial<TemplateOutputs> | undefined;
    const key: TemplateKey = prev?.identifier
      ? { org: prev.org, project: prev.project, identifier: prev.identifier, versionLabel: prev.versionLabel }
      : parseTemplateId(id);
    const found = await readOrGone(() =>
      platformApi().templates.get(key.identifier, key.versionLabel, at(key)),
    );
    if (found === undefined) return GONE;
    const data = found.template;
    const label = data.version_label;
    const stable = data.stable_template === true;
    // `isStable: false` means "leave the stable version as it is": a refresh keeps it; true is what
    // the service says, so a version made unstable by another's promotion shows as drift.
    const isStable = prev?.isStable === false ? false : stable;
    const base = {
      ...key,
      versionLabel: label,
      isStable,
      comments: prev?.comments,
      adopt: prev?.adopt ?? false,
    } as TemplateInputs;
    const outs = toOutputs(base, data);
    return {
      id: templateId({ ...key, versionLabel: label }),
      props: outs,
      inputs: plain(inputsOf(outs)) as TemplateOutputs,
    };
  },

  async update(id, olds, news) {
    return guardedUpdate({
      describe: describe(olds),
      spec: templateDiff,
      recorded: olds,
      desired: news,
      read: () => impl.read(id, olds),
      write: async (fields, live) => {
        const keep = { ...live, adopt: news.adopt, comments: news.comments };
        if (fields.length === 0) return keep;
        const merged = { ...inputsOf(live), adopt: news.adopt, comments: news.comments } as Record<
          string,
          unknown
        >;
        for (const f of fields) merged[f] = news[f as keyof TemplateInputs];
        // A body written replaces the live one, whichever input held it.
        if (BODIES.some((b) => fields.includes(b))) for (const b of BODIES) merged[b] = news[b];
        const api = platformApi();
        const onlyStable = fields.every((f) => f === "isStable");
        if (!onlyStable) return put(api, merged as TemplateInputs, live.stable);
        if (news.isStable && !live.stable)
          await api.templates.makeStable(olds.identifier, olds.versionLabel, at(olds));
        return { ...keep, isStable: news.isStable, stable: live.stable || news.isStable };
      },
    });
  },

  async lookup(inputs) {
    const found = await readOrGone(() =>
      platformApi().templates.get(inputs.identifier, inputs.versionLabel, at(inputs)),
    );
    return found && {};
  },

  async delete(_id, props) {
    const api = platformApi();
    await deleteIdempotent(
      () => api.templates.delete(props.identifier, props.versionLabel, at(props)),
      () => api.templates.get(props.identifier, props.versionLabel, at(props)),
    );
  },
};

// ---------------------------------------------------------------------------------------------
// Provider and resource

/**
 * One version of a pipeline or stage template.
 * @example
 * ```ts
 * new Template("deploy-stage-v1", {
 *   org: "default", project: "payments", identifier: "deploy_stage", versionLabel: "v1",
 *   name: "Deploy stage", type: "Stage",
 *   stage: { type: "Custom", execution: { steps: [{ type: "ShellScript", name: "Echo", identifier: "echo", script: "echo hi", timeout: "10m" }] } },
 * });
 * ```
 */
export const Template = resourceClass("template", kindToken("Template"), TemplateInputs, TemplateOutputs);
/** A {@link Template} object: one `Output` per member of {@link TemplateOutputs}. */
export type Template = InstanceType<typeof Template>;
/** What the engine stores as each object's `__provider`: a require of {@link impl}, no code, no secret. */
export const templateProviderText = Template.providerText;

/** The kind's one definition: what every registry, door, doc and kind-wide test reads (`../core/kind.ts`). */
export const kind = defineKind({
  resource: Template,
  impl,
  area: "platform",
  replaceOnChange: templateReplaceOnChange,
  importId: IMPORT_ID,
  policy: ["org", "project", "identifier", "versionLabel", "type", "isStable"],
  doc: {
    what: "one version of a pipeline or stage template, its body typed by the pipeline model",
    replaces: "identifier, version label, scope",
    updates: "name, description, tags, the body (PUT of the version's YAML), isStable (PUT .../stable)",
  },
  example: {
    inputs: {
      org: "default",
      project: "payments",
      identifier: "say_hello",
      versionLabel: "v1",
      name: "Say hello",
      type: "Stage",
      stage: {
        type: "Custom",
        execution: {
          steps: [
            { type: "ShellScript", name: "Echo", identifier: "echo", script: "echo hello", timeout: "10m" },
          ],
        },
      },
    },
    refs: { project: { kind: "Project", output: "identifier", shared: true } },
    unique: ["identifier"],
  },
});
