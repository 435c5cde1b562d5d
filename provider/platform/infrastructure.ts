/**
 * `Infrastructure`: an infrastructure definition of a {@link DeliveryEnvironment} (Go SDK
 * `harness/nextgen/api_infrastructures.go`; Terraform provider
 * `internal/service/cd_nextgen/infrastructure/resource_Infrastructure.go`): where a deployment to
 * that environment goes, typed for KubernetesDirect (a cluster reached through a Kubernetes
 * connector) and KubernetesGcp (a GKE cluster through a GCP connector), deployment type Kubernetes.
 *
 * | verb | API call |
 * |---|---|
 * | check | none: the zod schema below |
 * | diff | none: scope, identifier, environment, name, description, tags, and the YAML (type and spec) compared by meaning; scope, identifier and environment replace |
 * | create | `POST /ng/api/infrastructures` (or with `adopt` the `GET` below first, then one `PUT` when it differs); the service refuses an environment that does not exist; a create whose response was lost is found again by `GET` |
 * | read | `GET /ng/api/infrastructures/{identifier}?environmentIdentifier=`: the stored YAML; missing means deleted outside Pulumi |
 * | update | `PUT /ng/api/infrastructures`: a full replace (the API takes no `If-Match` for infrastructures; the guarded update's read closes the window before it) |
 * | delete | `DELETE /ng/api/infrastructures/{identifier}?environmentIdentifier=`; already gone is success |
 * @module
 */
import YAML from "yaml";
import { z } from "zod";
import { readYaml } from "../../sdk/core/yaml";
import type { PlatformClient } from "../../sdk/platform/client";
import type { InfrastructureScope } from "../../sdk/platform/infrastructure";
import { Identifier, type InfrastructureData, InfrastructureYaml } from "../../sdk/platform/schemas";
import { checkWith, containsUnknown, UNKNOWN } from "../core/check";
import { type DiffSpec, diffInputs } from "../core/diff";
import { guardedUpdate } from "../core/guard";
import { defineKind } from "../core/kind";
import { createOrAdopt, GONE, readOrGone } from "../core/lifecycle";
import { inputsFrom, lookupAndDelete, mergeForWrite, sameYaml } from "../core/ng-entity";
import { AdoptInput, platformApi } from "../core/platform-common";
import { projectNeedsOrg, SCOPE_REPLACE_ON_CHANGE, scopedEntityShape, scopeOf } from "../core/platform-scope";
import { configure, plain, type ResourceArgs, type ResourceHandlers, resourceClass } from "../core/resource";
import { INFRASTRUCTURE_TYPE } from "../types";

// ---------------------------------------------------------------------------------------------
// Inputs and outputs

const required = (field: string) =>
  z.string({ error: `${field} is required` }).min(1, `${field} cannot be empty`);

/** Where a Kubernetes deployment goes in its cluster. */
const KubernetesTarget = {
  /** The connector that reaches the cluster (a Kubernetes cluster connector; a GCP one for GKE). */
  connectorRef: required("connectorRef"),
  /** The namespace deployed to. */
  namespace: required("namespace"),
  /** The release name (may be an expression such as `release-<+INFRA_KEY_SHORT_ID>`). */
  releaseName: required("releaseName"),
};

/** A cluster reached directly through a Kubernetes cluster connector. */
export const KubernetesDirectInput = z.strictObject({
  type: z.literal("KubernetesDirect"),
  ...KubernetesTarget,
});
/** A GKE cluster reached through a GCP connector. */
export const KubernetesGcpInput = z.strictObject({
  type: z.literal("KubernetesGcp"),
  ...KubernetesTarget,
  /** The GKE cluster's name. */
  cluster: required("cluster"),
});

/** The infrastructure's type and its spec. */
export const InfrastructureDefinitionInput = z.discriminatedUnion(
  "type",
  [KubernetesDirectInput, KubernetesGcpInput],
  { error: "definition.type must be KubernetesDirect or KubernetesGcp" },
);
export type InfrastructureDefinitionInput = z.output<typeof InfrastructureDefinitionInput>;

/** The inputs of an {@link Infrastructure}. */
export const InfrastructureInputs = z.strictObject({
  ...scopedEntityShape,
  /** The environment's identifier (a `DeliveryEnvironment`'s `identifier` output). Replaces when changed. */
  environment: Identifier,
  /** KubernetesDirect or KubernetesGcp, with its spec. */
  definition: InfrastructureDefinitionInput,
  /** The deployment type the infrastructure serves. */
  deploymentType: z
    .literal("Kubernetes", { error: "deploymentType must be Kubernetes" })
    .default("Kubernetes"),
  /** Take over an existing infrastructure with this identifier in this environment instead of failing. */
  adopt: AdoptInput,
});
/** Checked inputs of an {@link Infrastructure}. */
export type InfrastructureInputs = z.output<typeof InfrastructureInputs>;
/** What a program passes to an {@link Infrastructure}. */
export type InfrastructureInputValues = z.input<typeof InfrastructureInputs>;

/** The outputs of an {@link Infrastructure}. */
export const InfrastructureOutputs = InfrastructureInputs.extend({
  /** The YAML sent to (and, after a refresh, stored by) the service. */
  yaml: z.string(),
});
/** Outputs of an {@link Infrastructure}. */
export type InfrastructureOutputs = z.output<typeof InfrastructureOutputs>;

// ---------------------------------------------------------------------------------------------
// The YAML sent

/** The YAML the service gets: `infrastructureDefinition: {..., environmentRef, deploymentType, type, spec}`. */
export function infrastructureYaml(i: InfrastructureInputs): string {
  const d = i.definition;
  // One key order whatever order the program (or the engine's sorted struct) gave them in.
  const { type, connectorRef, namespace, releaseName } = d;
  const spec = {
    connectorRef,
    ...(d.type === "KubernetesGcp" ? { cluster: d.cluster } : {}),
    namespace,
    releaseName,
  };
  const infrastructureDefinition = {
    name: i.name,
    identifier: i.identifier,
    orgIdentifier: i.org,
    projectIdentifier: i.project,
    environmentRef: i.environment,
    description: i.description,
    tags: i.tags,
    deploymentType: i.deploymentType,
    type,
    spec,
  };
  return YAML.stringify({ infrastructureDefinition: plain(infrastructureDefinition) }, { lineWidth: 0 });
}

/** The typed definition of a live YAML; `undefined` when it is not one of the typed kinds. */
function definitionFromYaml(text: string | undefined): InfrastructureDefinitionInput | undefined {
  try {
    const doc = InfrastructureYaml.safeParse(readYaml(text ?? ""));
    if (!doc.success) return undefined;
    const { type, spec } = doc.data.infrastructureDefinition;
    const parsed = InfrastructureDefinitionInput.safeParse({ ...spec, type });
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

// ---------------------------------------------------------------------------------------------
// Diff

/** Inputs whose change replaces the infrastructure. */
export const infrastructureReplaceOnChange = [
  ...SCOPE_REPLACE_ON_CHANGE,
  "environment",
] as const satisfies readonly (keyof InfrastructureInputs)[];

type DiffField = (typeof infrastructureReplaceOnChange)[number] | "name" | "description" | "tags" | "content";

const infrastructureDiff: DiffSpec<DiffField> = {
  fields: ["org", "project", "identifier", "environment", "name", "description", "tags", "content"],
  replaceOnChange: infrastructureReplaceOnChange,
  rules: { content: { equals: (a, b) => sameYaml(a, b) } },
};

const oldView = (o: InfrastructureOutputs) => ({ ...o, content: o.yaml });
const newView = (n: InfrastructureInputs) => ({
  ...n,
  content: containsUnknown(n) ? UNKNOWN : infrastructureYaml(n),
});

// ---------------------------------------------------------------------------------------------
// Lifecycle

type Key = Pick<InfrastructureInputs, "org" | "project" | "environment" | "identifier">;

/**
 * The resource id: `<org>/<project>/<environment>/<identifier>` (org and project left out where absent).
 * @internal
 */
export const infrastructureId = (k: Key): string =>
  [k.org, k.project, k.environment, k.identifier].filter((p) => p !== undefined).join("/");

/**
 * Reads an id back: the last two parts are environment and identifier, those before them org and project.
 * @internal
 */
export function parseInfrastructureId(id: string): Key {
  const parts = id.split("/");
  if (parts.length < 2 || parts.length > 4 || parts.some((p) => p === "")) {
    throw new Error(
      `invalid infrastructure id ${JSON.stringify(id)}: expected <org>/<project>/<environment>/<identifier> (org and project left out at a wider scope)`,
    );
  }
  const [org, project] = parts.slice(0, -2);
  return { org, project, environment: parts.at(-2)!, identifier: parts.at(-1)! };
}

const scope = (k: Omit<Key, "identifier">): InfrastructureScope => ({
  ...scopeOf(k),
  environment: k.environment,
});

const describe = (k: Key) => `infrastructure "${k.identifier}" (${infrastructureId(k)})`;

const inputsOf = (props: Record<string, unknown>) => inputsFrom(InfrastructureInputs, props);

function request(inputs: InfrastructureInputs) {
  return {
    identifier: inputs.identifier,
    orgIdentifier: inputs.org,
    projectIdentifier: inputs.project,
    name: inputs.name,
    description: inputs.description,
    tags: inputs.tags,
    environmentRef: inputs.environment,
    type: inputs.definition.type,
    yaml: infrastructureYaml(inputs),
  };
}

function toOutputs(inputs: InfrastructureInputs, data: InfrastructureData): InfrastructureOutputs {
  const i = data.infrastructure;
  return {
    ...inputs,
    name: i.name,
    description: i.description,
    tags: { ...i.tags },
    yaml: i.yaml ?? infrastructureYaml(inputs),
  };
}

async function put(api: PlatformClient, inputs: InfrastructureInputs): Promise<InfrastructureOutputs> {
  return toOutputs(inputs, await api.infrastructures.update(request(inputs)));
}

/**
 * The provider: every lifecycle method. Each resource's `__provider` text
 * ({@link infrastructureProviderText}) loads this object in the provider process; the tests call it directly.
 */
export const impl: ResourceHandlers<InfrastructureInputs, InfrastructureOutputs> = {
  configure,

  check: checkWith({
    schema: InfrastructureInputs,
    validate: (inputs) => projectNeedsOrg(inputs, "infrastructure"),
  }),

  async diff(_id, olds, news) {
    return diffInputs(infrastructureDiff, oldView(olds), newView(news));
  },

  async create(inputs) {
    const api = platformApi();
    const { value, how } = await createOrAdopt<InfrastructureData>({
      describe: describe(inputs),
      adopt: inputs.adopt,
      lookup: () => readOrGone(() => api.infrastructures.get(inputs.identifier, scope(inputs))),
      create: () => api.infrastructures.create(request(inputs)),
    });
    let outs = toOutputs(inputs, value);
    // An adopted (or recovered) infrastructure that differs from the program is converged with one PUT.
    if (how !== "created" && diffInputs(infrastructureDiff, oldView(outs), newView(inputs)).changes) {
      outs = await put(api, inputs);
    }
    return { id: infrastructureId(inputs), outs: plain(outs) };
  },

  async read(id, props) {
    const prev = props as Partial<InfrastructureOutputs> | undefined;
    const key: Key = prev?.identifier
      ? { org: prev.org, project: prev.project, environment: prev.environment!, identifier: prev.identifier }
      : parseInfrastructureId(id);
    const data = await readOrGone(() => platformApi().infrastructures.get(key.identifier, scope(key)));
    if (data === undefined) return GONE;
    const i = data.infrastructure;
    // The live definition when it is of a typed kind; otherwise the recorded one (the YAML shows the drift).
    const definition = definitionFromYaml(i.yaml) ?? prev?.definition;
    const inputs = inputsOf({ ...(prev ?? {}), ...key, name: i.name, definition });
    const outs = toOutputs(inputs, data);
    return { id, props: plain(outs), inputs: plain(inputs) as InfrastructureOutputs };
  },

  async update(id, olds, news) {
    return guardedUpdate({
      describe: describe(olds),
      spec: infrastructureDiff,
      recorded: olds,
      desired: newView(news),
      view: oldView,
      derive: (inputs) => newView(inputs as InfrastructureInputs),
      read: () => impl.read(id, olds),
      write: async (fields, live, kept) => {
        if (fields.length === 0) return plain({ ...live, adopt: news.adopt });
        const from = kept ? inputsOf(kept) : news;
        const merged = inputsOf(mergeForWrite(fields, live, from, ["definition", "deploymentType"]));
        return plain(await put(platformApi(), merged));
      },
    });
  },

  ...lookupAndDelete(
    () => platformApi().infrastructures,
    (k: InfrastructureInputs) => scope(k),
  ),
};

// ---------------------------------------------------------------------------------------------
// Provider and resource

/** The arguments of an {@link Infrastructure}: each input may be a `pulumi.Input`, at any depth. */
export type InfrastructureArgs = ResourceArgs<InfrastructureInputValues>;

/**
 * An infrastructure definition of a delivery environment.
 * @example
 * ```ts
 * const prod = new DeliveryEnvironment("prod", { org: "default", project: "payments", identifier: "prod", name: "Production", type: "Production" });
 * new Infrastructure("gke", {
 *   org: "default", project: "payments", environment: prod.identifier, identifier: "gke", name: "GKE",
 *   definition: { type: "KubernetesGcp", connectorRef: "gcp", cluster: "prod-1", namespace: "checkout", releaseName: "checkout" },
 * });
 * ```
 */
export const Infrastructure = resourceClass(
  "infrastructure",
  INFRASTRUCTURE_TYPE,
  InfrastructureInputs,
  InfrastructureOutputs,
);
/** An {@link Infrastructure} object: one `Output` per member of {@link InfrastructureOutputs}. */
export type Infrastructure = InstanceType<typeof Infrastructure>;
/** What the engine stores as each object's `__provider`: a require of {@link impl}, no code, no secret. */
export const infrastructureProviderText = Infrastructure.providerText;

/** The kind's one definition: what every registry, door, doc and kind-wide test reads (`../core/kind.ts`). */
export const kind = defineKind({
  resource: Infrastructure,
  impl,
  area: "platform",
  replaceOnChange: infrastructureReplaceOnChange,
  importId: {
    form: "[<org>/[<project>/]]<environment>/<identifier>",
    example: "default/payments/staging/k8s",
  },
  doc: {
    what: "an infrastructure definition in a `DeliveryEnvironment`: KubernetesDirect or KubernetesGcp, typed",
    replaces: "identifier, scope, environment",
    updates: "name, description, tags, the typed definition (PUT)",
  },
  example: {
    inputs: {
      org: "default",
      project: "payments",
      identifier: "gke_production",
      name: "GKE",
      environment: "production",
      definition: {
        type: "KubernetesGcp",
        connectorRef: "gcp",
        cluster: "prod-1",
        namespace: "checkout",
        releaseName: "checkout",
      },
    },
    refs: {
      project: { kind: "Project", output: "identifier", shared: true },
      environment: { kind: "DeliveryEnvironment", output: "identifier" },
    },
    unique: ["identifier"],
  },
});
