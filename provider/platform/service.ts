/**
 * `Service`: a platform service (v2) at account, organization or project scope, its definition a
 * typed Kubernetes service (manifests, artifacts, variables) or raw service YAML, the escape hatch
 * for every other deployment type (Go SDK `harness/nextgen/api_services.go`; Terraform provider
 * `internal/service/cd_nextgen/service/resource_service.go`). Pipelines name it by its `ref`.
 *
 * | verb | API call |
 * |---|---|
 * | check | none: the zod schema below, and for raw YAML a strict parse (duplicate keys refused) |
 * | diff | none: scope, identifier, name, description, tags, and the YAML compared by meaning (key order, quoting and formatting ignored); scope and identifier replace |
 * | create | `POST /ng/api/servicesV2` (or with `adopt` the `GET` below first, then one guarded `PUT` when it differs); a create whose response was lost is found again by `GET` |
 * | read | `GET /ng/api/servicesV2/{identifier}`: the stored YAML and the version (`ETag`); missing means deleted outside Pulumi |
 * | update | `PUT /ng/api/servicesV2`: a full replace with `If-Match` of the version read, so an edit between the read and the PUT is refused, not overwritten (`../core/if-match.ts`) |
 * | delete | `DELETE /ng/api/servicesV2/{identifier}`; already gone is success |
 *
 * Identifier, name, organization and project in the YAML are always the resource's: a typed
 * definition is rendered with them; raw YAML that names others fails `check`, and raw YAML that
 * leaves them out gets them filled in.
 * @module
 */
import YAML from "yaml";
import { z } from "zod";
import { loadYaml, yamlDocument } from "../../sdk/core/yaml";
import type { PlatformClient } from "../../sdk/platform/client";
import { Identifier, type ServiceData } from "../../sdk/platform/schemas";
import type { Versioned } from "../../sdk/platform/versioned";
import { checkWith, containsUnknown, type InputProblem, UNKNOWN } from "../core/check";
import { type DiffSpec, diffInputs } from "../core/diff";
import { guardedUpdate, pickFields } from "../core/guard";
import { writeIfMatch } from "../core/if-match";
import { defineKind } from "../core/kind";
import { createOrAdopt, GONE, readOrGone } from "../core/lifecycle";
import {
  inputsFrom,
  lookupAndDelete,
  ManifestInput,
  SpecInput,
  sameYaml,
  VariableInput,
} from "../core/ng-entity";
import { AdoptInput, platformApi } from "../core/platform-common";
import {
  parseScopedId,
  projectNeedsOrg,
  SCOPE_REPLACE_ON_CHANGE,
  scopedEntityShape,
  scopedId,
  scopedRef,
  scopeOf,
} from "../core/platform-scope";
import { configure, plain, type ResourceArgs, type ResourceHandlers, resourceClass } from "../core/resource";
import { SERVICE_TYPE } from "../types";

// ---------------------------------------------------------------------------------------------
// Inputs and outputs

// A manifest and a variable are inputs `DeliveryEnvironment` takes too: they live in `../core/ng-entity.ts`.
export { ManifestInput, VariableInput };

/** One artifact source of a Kubernetes service (`DockerRegistry`, `Gcr`, `Ecr`, ...). */
export const ArtifactSourceInput = z.strictObject({
  identifier: Identifier,
  /** Source type (`DockerRegistry`, `Gcr`, `Ecr`, ...). */
  type: z.string({ error: "artifact type is required" }).min(1, "artifact type cannot be empty"),
  /** The type's spec (`{connectorRef, imagePath, tag}`). */
  spec: SpecInput,
});

/** A typed Kubernetes service definition. */
export const KubernetesServiceInput = z.strictObject({
  /** Manifests, in order. */
  manifests: z.array(z.strictObject({ manifest: ManifestInput })).default([]),
  /** The primary artifact's sources, and which one is used (`primaryArtifactRef`, may be `<+input>`). */
  artifacts: z
    .strictObject({
      primaryArtifactRef: z.string().min(1).optional(),
      sources: z.array(ArtifactSourceInput).default([]),
    })
    .optional(),
  variables: z.array(VariableInput).default([]),
});
export type KubernetesServiceInput = z.output<typeof KubernetesServiceInput>;

/** Raw service YAML: a top-level `service:` mapping, parsed strictly (duplicate keys refused). */
const RawServiceYaml = z.string({ error: "yaml must be a string" }).superRefine((text, ctx) => {
  const problem = rawProblem(text);
  if (problem !== undefined) ctx.addIssue({ code: "custom", message: problem });
});

/** The inputs of a {@link Service}. */
export const ServiceInputs = z.strictObject({
  ...scopedEntityShape,
  /** A typed Kubernetes service definition; at most one of `kubernetes` and `yaml`. */
  kubernetes: KubernetesServiceInput.optional(),
  /** The service as raw YAML (`service: {..., serviceDefinition: {...}}`), for any deployment type. */
  yaml: RawServiceYaml.optional(),
  /** Take over an existing service with this identifier in this scope instead of failing. */
  adopt: AdoptInput,
});
/** Checked inputs of a {@link Service}. */
export type ServiceInputs = z.output<typeof ServiceInputs>;
/** What a program passes to a {@link Service}. */
export type ServiceInputValues = z.input<typeof ServiceInputs>;

/** The outputs of a {@link Service}. */
export const ServiceOutputs = ServiceInputs.extend({
  /** The YAML sent to (and, after a refresh, stored by) the service. */
  yaml: z.string(),
  /** How pipelines and other entities name the service: `account.<id>`, `org.<id>` or `<id>`. */
  ref: z.string(),
  /** The service's version as last seen (the `ETag`); an update sends it as `If-Match`. */
  version: z.number().int().optional(),
});
/** Outputs of a {@link Service}. */
export type ServiceOutputs = z.output<typeof ServiceOutputs>;

const KEYS = ["identifier", "name", "orgIdentifier", "projectIdentifier"] as const;

/** The `service:` mapping of raw YAML, read within the SDK's bounds (`sdk/core/yaml.ts`), or why there is none. */
function rawService(text: string): Record<string, unknown> | string {
  const read = loadYaml(text);
  if (!read.ok) return read.error.reason === "syntax" ? read.error.message : read.error.about("yaml");
  const value = read.value as { service?: unknown } | null;
  const service = value?.service;
  if (typeof service !== "object" || service === null || Array.isArray(service)) {
    return "the YAML needs a top-level service mapping";
  }
  return service as Record<string, unknown>;
}

function rawProblem(text: string): string | undefined {
  const s = rawService(text);
  return typeof s === "string" ? s : undefined;
}

/** What the resource's own fields say the YAML's `identifier`, `name`, org and project are. */
const wanted = (i: ServiceInputs): Record<(typeof KEYS)[number], string | undefined> => ({
  identifier: i.identifier,
  name: i.name,
  orgIdentifier: i.org,
  projectIdentifier: i.project,
});

function serviceProblems(inputs: ServiceInputs): InputProblem[] {
  const problems = projectNeedsOrg(inputs, "service");
  if (inputs.kubernetes !== undefined && inputs.yaml !== undefined) {
    problems.push({ path: ["yaml"], message: "at most one of kubernetes and yaml" });
  }
  if (inputs.yaml === undefined) return problems;
  const s = rawService(inputs.yaml) as Record<string, unknown>;
  for (const [key, value] of Object.entries(wanted(inputs))) {
    if (s[key] !== undefined && s[key] !== value) {
      problems.push({
        path: ["yaml"],
        message: `service.${key} is ${JSON.stringify(s[key])} but the resource says ${JSON.stringify(value ?? null)}; they must match (or leave it out of the YAML)`,
      });
    }
  }
  return problems;
}

// ---------------------------------------------------------------------------------------------
// The YAML sent

/** The YAML the service gets: the typed definition rendered, or the raw YAML with the resource's fields filled in. */
export function serviceYaml(inputs: ServiceInputs): string {
  const head = { ...wanted(inputs), description: inputs.description, tags: inputs.tags };
  if (inputs.yaml !== undefined) {
    const doc = yamlDocument(inputs.yaml);
    for (const [key, value] of Object.entries(head)) {
      if (value !== undefined && !doc.hasIn(["service", key])) doc.setIn(["service", key], value);
    }
    return doc.toString({ lineWidth: 0 });
  }
  const k = inputs.kubernetes;
  const serviceDefinition = k && {
    type: "Kubernetes",
    spec: {
      manifests: k.manifests,
      ...(k.artifacts ? { artifacts: { primary: k.artifacts } } : {}),
      variables: k.variables,
    },
  };
  return YAML.stringify({ service: plain({ ...head, serviceDefinition }) }, { lineWidth: 0 });
}

/** Reads a live service YAML back into the typed definition; `undefined` when it does not fit. */
function kubernetesFromYaml(text: string): KubernetesServiceInput | undefined {
  const s = rawService(text);
  const def =
    typeof s === "string" ? undefined : (s.serviceDefinition as Record<string, unknown> | undefined);
  if (def?.type !== "Kubernetes") return undefined;
  const spec = (def.spec ?? {}) as { artifacts?: { primary?: unknown } } & Record<string, unknown>;
  const parsed = KubernetesServiceInput.safeParse({ ...spec, artifacts: spec.artifacts?.primary });
  return parsed.success ? parsed.data : undefined;
}

// ---------------------------------------------------------------------------------------------
// Diff

/** Inputs whose change replaces the service. */
export const serviceReplaceOnChange = SCOPE_REPLACE_ON_CHANGE satisfies readonly (keyof ServiceInputs)[];

type DiffField = "org" | "project" | "identifier" | "name" | "description" | "tags" | "content";
type DiffView = Partial<Record<DiffField, unknown>>;

const serviceDiff: DiffSpec<DiffField> = {
  fields: ["org", "project", "identifier", "name", "description", "tags", "content"],
  replaceOnChange: serviceReplaceOnChange,
  rules: { content: { equals: sameYaml } },
};

const oldView = (o: ServiceOutputs): DiffView => ({ ...o, content: o.yaml });
const newView = (n: ServiceInputs): DiffView => ({
  ...n,
  content: containsUnknown(n) ? UNKNOWN : serviceYaml(n),
});

// ---------------------------------------------------------------------------------------------
// Lifecycle

const describe = (i: Pick<ServiceInputs, "org" | "project" | "identifier">) =>
  `service "${i.identifier}" (${scopedRef(i)})`;

function request(inputs: ServiceInputs, yaml: string) {
  return {
    identifier: inputs.identifier,
    orgIdentifier: inputs.org,
    projectIdentifier: inputs.project,
    name: inputs.name,
    description: inputs.description,
    tags: inputs.tags,
    yaml,
  };
}

function toOutputs(inputs: ServiceInputs, data: Versioned<ServiceData>): ServiceOutputs {
  const s = data.service;
  return {
    ...inputs,
    name: s.name,
    description: s.description,
    tags: { ...s.tags },
    yaml: s.yaml ?? serviceYaml(inputs),
    ref: scopedRef(inputs),
    version: data.version,
  };
}

/** Replaces the service, guarded by `ifMatch` (the version read, or recorded). */
async function put(api: PlatformClient, inputs: ServiceInputs, ifMatch: number | undefined) {
  const data = await writeIfMatch(describe(inputs), ifMatch, (version) =>
    api.services.update(request(inputs, serviceYaml(inputs)), { ifMatch: version }),
  );
  return toOutputs(inputs, data);
}

const inputsOf = (props: Record<string, unknown>): ServiceInputs => inputsFrom(ServiceInputs, props);

/**
 * The provider: every lifecycle method. Each resource's `__provider` text
 * ({@link serviceProviderText}) loads this object in the provider process; the tests call it directly.
 */
export const impl: ResourceHandlers<ServiceInputs, ServiceOutputs> = {
  configure,

  check: checkWith({ schema: ServiceInputs, validate: serviceProblems }),

  async diff(_id, olds, news) {
    return diffInputs(serviceDiff, oldView(olds), newView(news));
  },

  async create(inputs) {
    const api = platformApi();
    const yaml = serviceYaml(inputs);
    const { value, how } = await createOrAdopt<Versioned<ServiceData>>({
      describe: describe(inputs),
      adopt: inputs.adopt,
      lookup: () => readOrGone(() => api.services.get(inputs.identifier, scopeOf(inputs))),
      create: () => api.services.create(request(inputs, yaml)),
    });
    let outs = toOutputs(inputs, value);
    // An adopted (or recovered) service that differs from the program is converged with one guarded PUT.
    if (how !== "created" && diffInputs(serviceDiff, oldView(outs), newView(inputs)).changes) {
      outs = await put(api, inputs, value.version);
    }
    return { id: scopedId(inputs), outs: plain(outs) };
  },

  async read(id, props) {
    const prev = props as Partial<ServiceOutputs> | undefined;
    const key = prev?.identifier
      ? { org: prev.org, project: prev.project, identifier: prev.identifier }
      : parseScopedId(id);
    const data = await readOrGone(() => platformApi().services.get(key.identifier, scopeOf(key)));
    if (data === undefined) return GONE;
    const live = data.service.yaml ?? "";
    // Refresh shows drift in the typed definition's terms when the live YAML fits it; otherwise
    // (or without old state) the live YAML is the input.
    const typed = prev?.kubernetes !== undefined ? kubernetesFromYaml(live) : undefined;
    const definition = typed !== undefined ? { kubernetes: typed } : live ? { yaml: live } : {};
    const { kubernetes: _k, yaml: _y, ...rest } = prev ?? {};
    const inputs = inputsOf({ ...rest, ...key, name: data.service.name, ...definition });
    const outs = toOutputs(inputs, data);
    return { id, props: plain(outs), inputs: plain(inputs) as ServiceOutputs };
  },

  async update(id, olds, news) {
    return guardedUpdate({
      describe: describe(olds),
      spec: serviceDiff,
      recorded: olds,
      desired: newView(news),
      view: oldView,
      derive: (inputs) => newView(inputs as ServiceInputs),
      read: () => impl.read(id, olds),
      write: async (fields, live, kept) => {
        if (fields.length === 0) return plain({ ...live, adopt: news.adopt });
        const { yaml: _y, ref: _r, version, kubernetes: _k, ...liveFields } = live;
        const from = kept ? inputsOf(kept) : news;
        const merged = fields.includes("content")
          ? { ...liveFields, ...pickFields(from, fields), kubernetes: from.kubernetes, yaml: from.yaml }
          : { ...liveFields, ...pickFields(from, fields), yaml: live.yaml };
        return plain(
          await put(platformApi(), inputsOf({ ...merged, adopt: news.adopt }), version ?? olds.version),
        );
      },
    });
  },

  ...lookupAndDelete(
    () => platformApi().services,
    (k: ServiceInputs) => scopeOf(k),
  ),
};

// ---------------------------------------------------------------------------------------------
// Provider and resource

/** The arguments of a {@link Service}: each input may be a `pulumi.Input`, at any depth. */
export type ServiceArgs = ResourceArgs<ServiceInputValues>;

/**
 * A platform service (v2).
 * @example
 * ```ts
 * new Service("checkout", {
 *   org: "default", project: "payments", identifier: "checkout", name: "Checkout",
 *   kubernetes: {
 *     manifests: [{ manifest: { identifier: "k8s", type: "K8sManifest", spec: { store: { type: "Github", spec: { connectorRef: "github", repoName: "checkout", branch: "main", paths: ["k8s/"] } } } } }],
 *     artifacts: { primaryArtifactRef: "image", sources: [{ identifier: "image", type: "DockerRegistry", spec: { connectorRef: "dockerhub", imagePath: "acme/checkout", tag: "<+input>" } }] },
 *   },
 * });
 * ```
 */
export const Service = resourceClass("service", SERVICE_TYPE, ServiceInputs, ServiceOutputs);
/** A {@link Service} object: one `Output` per member of {@link ServiceOutputs}. */
export type Service = InstanceType<typeof Service>;
/** What the engine stores as each object's `__provider`: a require of {@link impl}, no code, no secret. */
export const serviceProviderText = Service.providerText;

/** The kind's one definition: what every registry, door, doc and kind-wide test reads (`../core/kind.ts`). */
export const kind = defineKind({
  resource: Service,
  impl,
  area: "platform",
  replaceOnChange: serviceReplaceOnChange,
  importId: { form: "[<org>/[<project>/]]<identifier>", example: "default/payments/checkout" },
  doc: {
    what: "a platform service (v2): a typed Kubernetes definition or raw service YAML",
    replaces: "identifier, scope",
    updates: "name, description, tags, the YAML compared by meaning (PUT with `If-Match`)",
  },
  example: {
    inputs: { org: "default", project: "payments", identifier: "checkout", name: "Checkout" },
    refs: { project: { kind: "Project", output: "identifier", shared: true } },
    unique: ["identifier"],
  },
});
