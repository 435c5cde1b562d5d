/**
 * `ServiceOverrides`: the values a service takes in an environment (v2 overrides: variables,
 * manifests, config files), for the whole environment, one service in it, an infrastructure or a
 * cluster of it, at account, organization or project scope (Go SDK
 * `harness/nextgen/api_service_overrides.go`; Terraform provider
 * `internal/service/cd_nextgen/service_overrides_v2/resource_service_overrides_v2.go`, whose
 * `env_id`, `service_id`, `infra_id`, `cluster_id`, `type` and `yaml` are this resource's
 * `environment`, `service`, `infrastructure`, `cluster`, `type` and typed `variables`, `manifests`,
 * `configFiles`). The service keeps the values as a YAML spec (`yamlInternal`); this resource
 * types them and reads them back from it.
 *
 * | verb | API call |
 * |---|---|
 * | check | none: the zod schema below (a project needs its organization; a service override names its service, an infrastructure override its infrastructure, a cluster override its cluster) |
 * | diff | none: scope, identifier, type, environment, service, infrastructure and cluster replace; variables, manifests and config files update in place |
 * | create | `POST /ng/api/serviceOverrides {orgIdentifier, projectIdentifier, environmentRef, serviceRef, infraIdentifier, clusterIdentifier, type, yamlInternal, identifier}` (or with `adopt` the `GET` below first, then one guarded `PUT` when it differs); a create whose response was lost is found again by `GET` |
 * | read | `GET /ng/api/serviceOverrides/{identifier}`: the references and the spec; missing means deleted outside Pulumi |
 * | update | the read, compared with the recorded state (`./core/guard.ts`), then `PUT /ng/api/serviceOverrides`, a full replace naming the override in the body (the changed fields desired, the rest live; the API takes no `If-Match`) |
 * | delete | `DELETE /ng/api/serviceOverrides/{identifier}`; already gone is success |
 * @module
 */
import YAML from "yaml";
import { z } from "zod";
import type { PlatformClient } from "../../sdk/platform/client";
import { Identifier } from "../../sdk/platform/schemas";
import {
  SERVICE_OVERRIDE_TYPES,
  type ServiceOverridesData,
  type ServiceOverridesRequest,
} from "../../sdk/platform/service-overrides";
import type { DiffSpec } from "../core/diff";
import { guardedUpdate } from "../core/guard";
import { defineKind, type ImportId, kindToken } from "../core/kind";
import { createOrAdopt, GONE, readOrGone } from "../core/lifecycle";
import {
  entityKeyOf,
  inputsFrom,
  lookupAndDelete,
  ManifestInput,
  SpecInput,
  VariableInput,
} from "../core/ng-entity";
import { AdoptInput, platformApi } from "../core/platform-common";
import { projectNeedsOrg, SCOPE_REPLACE_ON_CHANGE, scopedId, scopeOf } from "../core/platform-scope";
import { dataVerbs, plain, type ResourceArgs, type ResourceHandlers, resourceClass } from "../core/resource";

/** A reference to an environment or service: `<id>` in the same scope, `org.<id>` or `account.<id>`. */
const ScopedRef = z
  .string({ error: "must be a reference: <id>, org.<id> or account.<id>" })
  .regex(/^(?:(?:account|org)\.)?[a-zA-Z_][0-9a-zA-Z_$]{0,127}$/, "must be <id>, org.<id> or account.<id>");

/** One config file of an override: its identifier and its spec (`{store: {type: Harness, spec: {files}}}`). */
export const ConfigFileInput = z.strictObject({
  identifier: Identifier,
  spec: SpecInput,
});

/** The inputs of a {@link ServiceOverrides}. */
export const ServiceOverridesInputs = z.strictObject({
  /** Organization; absent at account level. Replaces when changed. */
  org: Identifier.optional(),
  /** Project (needs `org`); absent at account or organization level. Replaces when changed. */
  project: Identifier.optional(),
  /** The override's identifier, unique in its scope (the service's own is `<environment>_<service>`). Replaces when changed. */
  identifier: Identifier,
  /**
   * What the values override: `ENV_GLOBAL_OVERRIDE` (every service in the environment),
   * `ENV_SERVICE_OVERRIDE` (one service), `INFRA_GLOBAL_OVERRIDE`, `INFRA_SERVICE_OVERRIDE`,
   * `CLUSTER_GLOBAL_OVERRIDE`, `CLUSTER_SERVICE_OVERRIDE`. Replaces when changed.
   */
  type: z.enum(SERVICE_OVERRIDE_TYPES, { error: `type must be one of ${SERVICE_OVERRIDE_TYPES.join(", ")}` }),
  /** The environment (`DeliveryEnvironment.ref`: `<id>`, `org.<id>`, `account.<id>`). Replaces when changed. */
  environment: ScopedRef,
  /** The service, for the `*_SERVICE_OVERRIDE` types (`Service.ref`). Replaces when changed. */
  service: ScopedRef.optional(),
  /** The infrastructure of the environment, for the `INFRA_*` types. Replaces when changed. */
  infrastructure: Identifier.optional(),
  /** The GitOps cluster, for the `CLUSTER_*` types. Replaces when changed. */
  cluster: z.string().min(1, "cluster cannot be empty").optional(),
  /** Variables that override the service's of the same name. Default: none. */
  variables: z.array(VariableInput).default([]),
  /** Manifests that override the service's (`Values`, `K8sManifest`, ...). Default: none. */
  manifests: z.array(ManifestInput).default([]),
  /** Config files that override the service's. Default: none. */
  configFiles: z.array(ConfigFileInput).default([]),
  /** Take over an existing override with this identifier in this scope instead of failing. */
  adopt: AdoptInput,
});
/** Checked inputs of a {@link ServiceOverrides}. */
export type ServiceOverridesInputs = z.output<typeof ServiceOverridesInputs>;

/** The outputs of a {@link ServiceOverrides}. */
export const ServiceOverridesOutputs = ServiceOverridesInputs.extend({
  /** The spec YAML the service stores (`yamlInternal`). */
  yaml: z.string(),
});
/** Outputs of a {@link ServiceOverrides}. */
export type ServiceOverridesOutputs = z.output<typeof ServiceOverridesOutputs>;
/** The arguments of `new ServiceOverrides(...)`. */
export type ServiceOverridesArgs = ResourceArgs<z.input<typeof ServiceOverridesInputs>>;

/** Inputs whose change replaces the override: its scope, identifier, type and what it overrides. */
export const serviceOverridesReplaceOnChange = [
  ...SCOPE_REPLACE_ON_CHANGE,
  "type",
  "environment",
  "service",
  "infrastructure",
  "cluster",
] as const satisfies readonly (keyof ServiceOverridesInputs)[];

const overridesDiff: DiffSpec<Exclude<keyof ServiceOverridesInputs, "adopt">> = {
  fields: [...serviceOverridesReplaceOnChange, "variables", "manifests", "configFiles"],
  replaceOnChange: serviceOverridesReplaceOnChange,
};

/** What a type needs besides the environment, each a problem naming the missing input. */
function typeNeeds(i: Pick<ServiceOverridesInputs, "type" | "service" | "infrastructure" | "cluster">) {
  const problems: { path: string[]; message: string }[] = [];
  if (i.type.endsWith("_SERVICE_OVERRIDE") && i.service === undefined)
    problems.push({ path: ["service"], message: `a ${i.type} needs service` });
  if (i.type.startsWith("INFRA_") && i.infrastructure === undefined)
    problems.push({ path: ["infrastructure"], message: `an ${i.type} needs infrastructure` });
  if (i.type.startsWith("CLUSTER_") && i.cluster === undefined)
    problems.push({ path: ["cluster"], message: `a ${i.type} needs cluster` });
  return problems;
}

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
 * The spec YAML the service gets (`yamlInternal`): `variables`, `manifests` (each `{manifest}`) and
 * `configFiles` (each `{configFile}`), the lists given (TFP docs' example), each item's members in
 * a fixed order and its `spec`'s keys sorted.
 */
export function serviceOverridesYaml(
  i: Pick<ServiceOverridesInputs, "variables" | "manifests" | "configFiles">,
): string {
  const spec: Record<string, unknown> = {};
  if (i.variables.length > 0) {
    spec.variables = i.variables.map((v) => ({
      name: v.name,
      type: v.type,
      value: v.value,
      description: v.description,
    }));
  }
  if (i.manifests.length > 0) {
    spec.manifests = i.manifests.map((m) => ({
      manifest: { identifier: m.identifier, type: m.type, spec: sortedKeys(m.spec) },
    }));
  }
  if (i.configFiles.length > 0) {
    spec.configFiles = i.configFiles.map((c) => ({
      configFile: { identifier: c.identifier, spec: sortedKeys(c.spec) },
    }));
  }
  return YAML.stringify(plain(spec), { lineWidth: 0 });
}

/** The override's natural key as an import id: its scope and identifier (TFP `import.sh`). */
const IMPORT_ID: ImportId = {
  form: "[<org>/[<project>/]]<identifier>",
  example: "default/payments/prod_checkout",
};

const describe = (i: Pick<ServiceOverridesInputs, "org" | "project" | "identifier">) =>
  `service override "${i.identifier}" (${scopedId(i)})`;

const request = (i: ServiceOverridesInputs): ServiceOverridesRequest => ({
  identifier: i.identifier,
  orgIdentifier: i.org,
  projectIdentifier: i.project,
  environmentRef: i.environment,
  serviceRef: i.service,
  infraIdentifier: i.infrastructure,
  clusterIdentifier: i.cluster,
  type: i.type,
  yamlInternal: serviceOverridesYaml(i),
});

/** The members of a list of `{<key>: item}` wrappers (`manifests: [{manifest}]`), or none. */
const unwrap = (list: unknown, key: string): unknown[] =>
  Array.isArray(list)
    ? list.map((w) => (w as Record<string, unknown> | null)?.[key]).filter((x) => x !== undefined)
    : [];

/** The outputs of an override as the service answers it, with what only the program holds (`adopt`). */
function toOutputs(key: ServiceOverridesInputs, o: ServiceOverridesData): ServiceOverridesOutputs {
  const spec = (o.spec ?? {}) as Record<string, unknown>;
  const inputs = inputsFrom(ServiceOverridesInputs, {
    org: key.org,
    project: key.project,
    identifier: key.identifier,
    type: o.type,
    environment: o.environmentRef,
    service: o.serviceRef ?? undefined,
    infrastructure: o.infraIdentifier ?? undefined,
    cluster: o.clusterIdentifier ?? undefined,
    variables: spec.variables ?? [],
    manifests: unwrap(spec.manifests, "manifest"),
    configFiles: unwrap(spec.configFiles, "configFile"),
    adopt: key.adopt,
  });
  return plain({ ...inputs, yaml: o.yamlInternal ?? serviceOverridesYaml(inputs) });
}

/** Replaces the override (a full replace naming it in the body). */
async function put(api: PlatformClient, inputs: ServiceOverridesInputs) {
  return toOutputs(inputs, await api.serviceOverrides.update(request(inputs)));
}

/** The inputs part of outputs. */
const inputsOf = (o: ServiceOverridesOutputs): ServiceOverridesInputs => {
  const { yaml: _y, ...inputs } = o;
  return inputs;
};

/**
 * The provider: every lifecycle method. Each resource's `__provider` text
 * ({@link serviceOverridesProviderText}) loads this object in the provider process; the tests call it directly.
 */
export const impl: ResourceHandlers<ServiceOverridesInputs, ServiceOverridesOutputs> = {
  ...dataVerbs(
    {
      schema: ServiceOverridesInputs,
      validate: (inputs) => [...projectNeedsOrg(inputs, "service override"), ...typeNeeds(inputs)],
    },
    overridesDiff,
  ),

  async create(inputs) {
    const api = platformApi();
    const { value, how } = await createOrAdopt<ServiceOverridesData>({
      describe: describe(inputs),
      adopt: inputs.adopt,
      lookup: () => readOrGone(() => api.serviceOverrides.get(inputs.identifier, scopeOf(inputs))),
      create: () => api.serviceOverrides.create(request(inputs)),
    });
    let outs = toOutputs(inputs, value);
    // An adopted (or recovered) override that differs from the program is converged with one guarded PUT.
    if (how !== "created" && (await impl.diff(scopedId(inputs), outs, inputs)).changes) {
      outs = await put(api, inputs);
    }
    return { id: scopedId(inputs), outs };
  },

  async read(id, props) {
    const prev = props as Partial<ServiceOverridesOutputs> | undefined;
    const key = entityKeyOf(id, prev);
    const data = await readOrGone(() => platformApi().serviceOverrides.get(key.identifier, scopeOf(key)));
    if (data === undefined) return GONE;
    const outs = toOutputs({ ...key, adopt: prev?.adopt ?? false } as ServiceOverridesInputs, data);
    return { id, props: outs, inputs: plain(inputsOf(outs)) as ServiceOverridesOutputs };
  },

  async update(id, olds, news) {
    return guardedUpdate({
      describe: describe(olds),
      spec: overridesDiff,
      recorded: olds,
      desired: news,
      read: () => impl.read(id, olds),
      write: async (fields, live) => {
        if (fields.length === 0) return { ...live, adopt: news.adopt };
        const merged = { ...inputsOf(live), adopt: news.adopt } as Record<string, unknown>;
        for (const f of fields) merged[f] = news[f];
        return put(platformApi(), merged as ServiceOverridesInputs);
      },
    });
  },

  ...lookupAndDelete(
    () => platformApi().serviceOverrides,
    (k: ServiceOverridesInputs) => scopeOf(k),
  ),
};

/**
 * The values a service takes in an environment.
 * @example
 * ```ts
 * const checkoutInProd = new ServiceOverrides("checkout-prod", {
 *   org: "default", project: "payments", identifier: "prod_checkout",
 *   type: "ENV_SERVICE_OVERRIDE", environment: prod.identifier, service: checkout.identifier,
 *   variables: [{ name: "replicas", type: "String", value: "4" }],
 * });
 * ```
 */
export const ServiceOverrides = resourceClass(
  "service-overrides",
  kindToken("ServiceOverrides"),
  ServiceOverridesInputs,
  ServiceOverridesOutputs,
);
/** A {@link ServiceOverrides} object: one `Output` per member of {@link ServiceOverridesOutputs}. */
export type ServiceOverrides = InstanceType<typeof ServiceOverrides>;
/** What the engine stores as each object's `__provider`: a require of {@link impl}, no code, no secret. */
export const serviceOverridesProviderText = ServiceOverrides.providerText;

/** The kind's one definition: what every registry, door, doc and kind-wide test reads (`./core/kind.ts`). */
export const kind = defineKind({
  resource: ServiceOverrides,
  impl,
  area: "platform",
  replaceOnChange: serviceOverridesReplaceOnChange,
  importId: IMPORT_ID,
  policy: ["identifier", "org", "project", "type", "environment", "service"],
  doc: {
    what: "the variables, manifests and config files a service takes in an environment (v2 overrides)",
    replaces: "identifier, scope, type, environment, service, infrastructure, cluster",
    updates: "variables, manifests, configFiles (PUT)",
  },
  example: {
    inputs: {
      org: "default",
      project: "payments",
      identifier: "production_overrides",
      type: "ENV_GLOBAL_OVERRIDE",
      environment: "production",
      variables: [{ name: "replicas", type: "String", value: "2" }],
    },
    refs: {
      project: { kind: "Project", output: "identifier", shared: true },
      environment: { kind: "DeliveryEnvironment", output: "identifier" },
    },
    unique: ["identifier"],
  },
});
