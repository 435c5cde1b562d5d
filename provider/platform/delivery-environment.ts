/**
 * `DeliveryEnvironment`: a delivery-platform environment (v2) at account, organization or project
 * scope: PreProduction or Production, with variables and manifest overrides (Go SDK
 * `harness/nextgen/api_environments.go`; Terraform provider
 * `internal/service/cd_nextgen/environment/resource_environment.go`). Not the feature-flag side's
 * `Environment` (an environment of a workspace, `../flags/environment.ts`): the two are different
 * objects of different APIs, named apart so that one program imports both without aliasing.
 * Pipelines and infrastructures name it by its `identifier`.
 *
 * | verb | API call |
 * |---|---|
 * | check | none: the zod schema below |
 * | diff | none: scope, identifier, name, description, tags, type, and the YAML (variables, overrides) compared by meaning; scope and identifier replace |
 * | create | `POST /ng/api/environmentsV2` (or with `adopt` the `GET` below first, then one guarded `PUT` when it differs); a create whose response was lost is found again by `GET` |
 * | read | `GET /ng/api/environmentsV2/{identifier}`: the stored YAML and the version (`ETag`); missing means deleted outside Pulumi |
 * | update | `PUT /ng/api/environmentsV2`: a full replace with `If-Match` of the version read, so an edit between the read and the PUT is refused, not overwritten (`../core/if-match.ts`) |
 * | delete | `DELETE /ng/api/environmentsV2/{identifier}` (the service deletes its infrastructures with it); already gone is success |
 * @module
 */
import YAML from "yaml";
import { z } from "zod";
import { readYaml } from "../../sdk/core/yaml";
import type { PlatformClient } from "../../sdk/platform/client";
import {
  PLATFORM_ENVIRONMENT_TYPES,
  type PlatformEnvironmentData,
  PlatformEnvironmentYaml,
} from "../../sdk/platform/schemas";
import type { Versioned } from "../../sdk/platform/versioned";
import { checkWith, containsUnknown, UNKNOWN } from "../core/check";
import { type DiffSpec, diffInputs } from "../core/diff";
import { guardedUpdate } from "../core/guard";
import { writeIfMatch } from "../core/if-match";
import { defineKind } from "../core/kind";
import { createOrAdopt, GONE, readOrGone } from "../core/lifecycle";
import {
  entityKeyOf,
  inputsFrom,
  lookupAndDelete,
  ManifestInput,
  mergeForWrite,
  sameYaml,
  VariableInput,
} from "../core/ng-entity";
import { AdoptInput, platformApi } from "../core/platform-common";
import {
  projectNeedsOrg,
  SCOPE_REPLACE_ON_CHANGE,
  scopedEntityShape,
  scopedId,
  scopedRef,
  scopeOf,
} from "../core/platform-scope";
import { configure, plain, type ResourceArgs, type ResourceHandlers, resourceClass } from "../core/resource";
import { DELIVERY_ENVIRONMENT_TYPE } from "../types";

// ---------------------------------------------------------------------------------------------
// Inputs and outputs

/** What an environment overrides in the services deployed to it. */
export const EnvironmentOverridesInput = z.strictObject({
  /** Manifests that replace the service's of the same identifier (`Values` files, ...). */
  manifests: z.array(z.strictObject({ manifest: ManifestInput })).default([]),
});

/** The inputs of a {@link DeliveryEnvironment}. */
export const DeliveryEnvironmentInputs = z.strictObject({
  ...scopedEntityShape,
  /** PreProduction or Production. */
  type: z.enum(PLATFORM_ENVIRONMENT_TYPES, { error: "type must be PreProduction or Production" }),
  /** Environment variables, which override the service's of the same name. */
  variables: z.array(VariableInput).default([]),
  /** Overrides of the services' manifests. */
  overrides: EnvironmentOverridesInput.optional(),
  /** Take over an existing environment with this identifier in this scope instead of failing. */
  adopt: AdoptInput,
});
/** Checked inputs of a {@link DeliveryEnvironment}. */
export type DeliveryEnvironmentInputs = z.output<typeof DeliveryEnvironmentInputs>;
/** What a program passes to a {@link DeliveryEnvironment}. */
export type DeliveryEnvironmentInputValues = z.input<typeof DeliveryEnvironmentInputs>;

/** The outputs of a {@link DeliveryEnvironment}. */
export const DeliveryEnvironmentOutputs = DeliveryEnvironmentInputs.extend({
  /** The YAML sent to (and, after a refresh, stored by) the service. */
  yaml: z.string(),
  /** How other entities name the environment: `account.<id>`, `org.<id>` or `<id>`. */
  ref: z.string(),
  /** The environment's version as last seen (the `ETag`); an update sends it as `If-Match`. */
  version: z.number().int().optional(),
});
/** Outputs of a {@link DeliveryEnvironment}. */
export type DeliveryEnvironmentOutputs = z.output<typeof DeliveryEnvironmentOutputs>;

// ---------------------------------------------------------------------------------------------
// The YAML sent

/** The YAML the service gets: `environment: {name, identifier, ..., type, variables, overrides}`. */
export function deliveryEnvironmentYaml(i: DeliveryEnvironmentInputs): string {
  const environment = {
    name: i.name,
    identifier: i.identifier,
    orgIdentifier: i.org,
    projectIdentifier: i.project,
    description: i.description,
    tags: i.tags,
    type: i.type,
    variables: i.variables,
    overrides: i.overrides,
  };
  return YAML.stringify({ environment: plain(environment) }, { lineWidth: 0 });
}

/** Variables and overrides of a live YAML; `{}` when it does not parse as an environment. */
function definitionFromYaml(text: string | undefined): Record<string, unknown> {
  try {
    const parsed = PlatformEnvironmentYaml.safeParse(readYaml(text ?? ""));
    if (!parsed.success) return {};
    const { variables, overrides } = parsed.data.environment;
    return { variables, overrides };
  } catch {
    return {};
  }
}

// ---------------------------------------------------------------------------------------------
// Diff

/** Inputs whose change replaces the environment. */
export const deliveryEnvironmentReplaceOnChange =
  SCOPE_REPLACE_ON_CHANGE satisfies readonly (keyof DeliveryEnvironmentInputs)[];

type DiffField = "org" | "project" | "identifier" | "name" | "description" | "tags" | "type" | "content";
type DiffView = Partial<Record<DiffField, unknown>>;

const environmentDiff: DiffSpec<DiffField> = {
  fields: ["org", "project", "identifier", "name", "description", "tags", "type", "content"],
  replaceOnChange: deliveryEnvironmentReplaceOnChange,
  rules: { content: { equals: (a, b) => sameYaml(a, b) } },
};

const oldView = (o: DeliveryEnvironmentOutputs): DiffView => ({ ...o, content: o.yaml });
const newView = (n: DeliveryEnvironmentInputs): DiffView => ({
  ...n,
  content: containsUnknown(n) ? UNKNOWN : deliveryEnvironmentYaml(n),
});

// ---------------------------------------------------------------------------------------------
// Lifecycle

const describe = (i: Pick<DeliveryEnvironmentInputs, "org" | "project" | "identifier">) =>
  `delivery environment "${i.identifier}" (${scopedRef(i)})`;

const inputsOf = (props: Record<string, unknown>) => inputsFrom(DeliveryEnvironmentInputs, props);

function request(inputs: DeliveryEnvironmentInputs) {
  return {
    identifier: inputs.identifier,
    orgIdentifier: inputs.org,
    projectIdentifier: inputs.project,
    name: inputs.name,
    description: inputs.description,
    tags: inputs.tags,
    type: inputs.type,
    yaml: deliveryEnvironmentYaml(inputs),
  };
}

function toOutputs(
  inputs: DeliveryEnvironmentInputs,
  data: Versioned<PlatformEnvironmentData>,
): DeliveryEnvironmentOutputs {
  const e = data.environment;
  return {
    ...inputs,
    name: e.name,
    description: e.description,
    tags: { ...e.tags },
    type: e.type,
    yaml: e.yaml ?? deliveryEnvironmentYaml(inputs),
    ref: scopedRef(inputs),
    version: data.version ?? e.version,
  };
}

/** Replaces the environment, guarded by `ifMatch` (the version read, or recorded). */
async function put(api: PlatformClient, inputs: DeliveryEnvironmentInputs, ifMatch: number | undefined) {
  const data = await writeIfMatch(describe(inputs), ifMatch, (version) =>
    api.environments.update(request(inputs), { ifMatch: version }),
  );
  return toOutputs(inputs, data);
}

/**
 * The provider: every lifecycle method. Each resource's `__provider` text
 * ({@link deliveryEnvironmentProviderText}) loads this object in the provider process; the tests call it directly.
 */
export const impl: ResourceHandlers<DeliveryEnvironmentInputs, DeliveryEnvironmentOutputs> = {
  configure,

  check: checkWith({
    schema: DeliveryEnvironmentInputs,
    validate: (inputs) => projectNeedsOrg(inputs, "delivery environment"),
  }),

  async diff(_id, olds, news) {
    return diffInputs(environmentDiff, oldView(olds), newView(news));
  },

  async create(inputs) {
    const api = platformApi();
    const { value, how } = await createOrAdopt<Versioned<PlatformEnvironmentData>>({
      describe: describe(inputs),
      adopt: inputs.adopt,
      lookup: () => readOrGone(() => api.environments.get(inputs.identifier, scopeOf(inputs))),
      create: () => api.environments.create(request(inputs)),
    });
    let outs = toOutputs(inputs, value);
    // An adopted (or recovered) environment that differs from the program is converged with one guarded PUT.
    if (how !== "created" && diffInputs(environmentDiff, oldView(outs), newView(inputs)).changes) {
      outs = await put(api, inputs, outs.version);
    }
    return { id: scopedId(inputs), outs: plain(outs) };
  },

  async read(id, props) {
    const prev = props as Partial<DeliveryEnvironmentOutputs> | undefined;
    const key = entityKeyOf(id, prev);
    const data = await readOrGone(() => platformApi().environments.get(key.identifier, scopeOf(key)));
    if (data === undefined) return GONE;
    const e = data.environment;
    const { variables: _v, overrides: _o, ...rest } = prev ?? {};
    const inputs = inputsOf({ ...rest, ...key, name: e.name, type: e.type, ...definitionFromYaml(e.yaml) });
    const outs = toOutputs(inputs, data);
    return { id, props: plain(outs), inputs: plain(inputs) as DeliveryEnvironmentOutputs };
  },

  async update(id, olds, news) {
    return guardedUpdate({
      describe: describe(olds),
      spec: environmentDiff,
      recorded: olds,
      desired: newView(news),
      view: oldView,
      derive: (inputs) => newView(inputs as DeliveryEnvironmentInputs),
      read: () => impl.read(id, olds),
      write: async (fields, live, kept) => {
        if (fields.length === 0) return plain({ ...live, adopt: news.adopt });
        const from = kept ? inputsOf(kept) : news;
        const merged = inputsOf(mergeForWrite(fields, live, from, ["variables", "overrides"]));
        return plain(await put(platformApi(), merged, live.version ?? olds.version));
      },
    });
  },

  ...lookupAndDelete(
    () => platformApi().environments,
    (k: DeliveryEnvironmentInputs) => scopeOf(k),
  ),
};

// ---------------------------------------------------------------------------------------------
// Provider and resource

/** The arguments of a {@link DeliveryEnvironment}: each input may be a `pulumi.Input`, at any depth. */
export type DeliveryEnvironmentArgs = ResourceArgs<DeliveryEnvironmentInputValues>;

/**
 * A delivery-platform environment (v2). Not the feature-flag `Environment` of a workspace.
 * @example
 * ```ts
 * const prod = new DeliveryEnvironment("prod", {
 *   org: "default", project: "payments", identifier: "prod", name: "Production", type: "Production",
 *   variables: [{ name: "replicas", type: "Number", value: 3 }],
 * });
 * new Infrastructure("gke", { ..., environment: prod.identifier, definition: { type: "KubernetesGcp", ... } });
 * ```
 */
export const DeliveryEnvironment = resourceClass(
  "delivery-environment",
  DELIVERY_ENVIRONMENT_TYPE,
  DeliveryEnvironmentInputs,
  DeliveryEnvironmentOutputs,
);
/** A {@link DeliveryEnvironment} object: one `Output` per member of {@link DeliveryEnvironmentOutputs}. */
export type DeliveryEnvironment = InstanceType<typeof DeliveryEnvironment>;
/** What the engine stores as each object's `__provider`: a require of {@link impl}, no code, no secret. */
export const deliveryEnvironmentProviderText = DeliveryEnvironment.providerText;

/** The kind's one definition: what every registry, door, doc and kind-wide test reads (`../core/kind.ts`). */
export const kind = defineKind({
  resource: DeliveryEnvironment,
  impl,
  area: "platform",
  replaceOnChange: deliveryEnvironmentReplaceOnChange,
  importId: { form: "[<org>/[<project>/]]<identifier>", example: "default/payments/staging" },
  policy: ["identifier", "org", "project", "type"],
  doc: {
    what: "a platform environment (PreProduction or Production, variables, manifest overrides); not the feature-flag `Environment`",
    replaces: "identifier, scope",
    updates: "name, description, tags, type, variables, overrides (PUT with `If-Match`)",
  },
  example: {
    inputs: {
      org: "default",
      project: "payments",
      identifier: "production",
      name: "Production",
      type: "Production",
      variables: [{ name: "replicas", type: "Number", value: 3 }],
    },
    refs: { project: { kind: "Project", output: "identifier", shared: true } },
    unique: ["identifier"],
  },
});
