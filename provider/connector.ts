/**
 * `Connector`: a platform connector at account, organization or project scope (spec §2
 * "Connector"; ref platform-api-behaviour §5, cited "ref §5").
 *
 * | verb | API call |
 * |---|---|
 * | check | none: the zod schema below |
 * | diff | none: semantic fields; scope, identifier and connector type replace, the rest updates in place |
 * | create | `POST /ng/api/connectors` (scope in the body), or with `adopt` the `GET` below first; a create whose response was lost is found again by `GET` |
 * | read | `GET /ng/api/connectors/{identifier}` (scope in the query); missing is a 400 RESOURCE_NOT_FOUND_EXCEPTION (ref §5), a `NotFoundError` from the SDK |
 * | update | `PUT /ng/api/connectors`: a full replace, the body names the connector (ref §5) |
 * | delete | `DELETE /ng/api/connectors/{identifier}`; already gone is success |
 *
 * The spec is either typed (`dockerRegistry`: the container image registry connector the spec
 * shows) or generic (`generic: { type, spec }`, sent as given, for every other connector type).
 * @module
 */
import type * as pulumi from "@pulumi/pulumi";
import { z } from "zod";
import type { PlatformClient } from "../sdk/platform/client";
import { type ConnectorData, DOCKER_PROVIDER_TYPES } from "../sdk/platform/schemas";
import { checkWith, type InputProblem } from "./core/check";
import { type DiffSpec, diffInputs } from "./core/diff";
import { guardedUpdate, pickFields } from "./core/guard";
import { createOrAdopt, deleteIdempotent, GONE, readOrGone } from "./core/lifecycle";
import { scopedEntityShape } from "./core/platform-scope";
import { configure, plain, type ResourceArgs, type ResourceHandlers, resourceClass } from "./core/resource";
import { AdoptInput, platformApi } from "./platform-common";
import { CONNECTOR_TYPE } from "./types";

// ---------------------------------------------------------------------------------------------
// Inputs and outputs

/** The connector type of the container image registry connector (ref §5). */
export const DOCKER_REGISTRY = "DockerRegistry";

/**
 * A reference to a secret stored on the platform, never the secret itself: `name`, `org.name` or
 * `account.name` (ref §3: `-` is allowed in secret identifiers).
 */
export const SecretRef = z
  .string({ error: "must be a secret reference such as account.docker_password" })
  .regex(
    /^(?:(?:account|org)\.)?[a-zA-Z_][0-9a-zA-Z_$-]{0,127}$/,
    "must be a secret reference such as account.docker_password (the name of a stored secret, not its value)",
  );

/** How the registry connector authenticates. */
export const DockerAuthInput = z.discriminatedUnion(
  "type",
  [
    z.strictObject({ type: z.literal("Anonymous") }),
    z.strictObject({
      type: z.literal("UsernamePassword"),
      /** The user name in clear, or... */
      username: z.string().min(1, "username cannot be empty").optional(),
      /** ...a secret holding it. */
      usernameRef: SecretRef.optional(),
      /** The secret holding the password. */
      passwordRef: SecretRef,
    }),
  ],
  { error: 'auth.type must be "Anonymous" or "UsernamePassword"' },
);

/** The typed spec of a container image registry connector (ref §5, TFP `platform_connector_docker`). */
export const DockerRegistryInput = z.strictObject({
  /** Registry URL (`dockerRegistryUrl` on the wire). */
  url: z.url({ protocol: /^https?$/, error: "url must be an http(s) URL" }),
  /** Registry provider. */
  providerType: z.enum(DOCKER_PROVIDER_TYPES, {
    error: `providerType must be one of ${DOCKER_PROVIDER_TYPES.join(", ")}`,
  }),
  /** Anonymous (the default) or user name and password secret. */
  auth: DockerAuthInput.default({ type: "Anonymous" }),
  /** Delegates that may use the connector. */
  delegateSelectors: z.array(z.string().min(1)).default([]),
  /** Connect through a delegate (the peer provider's default: true). */
  executeOnDelegate: z.boolean().default(true),
});
export type DockerRegistryInput = z.output<typeof DockerRegistryInput>;

/** Any connector type, its spec given as JSON exactly as the API takes it. */
export const GenericConnectorInput = z.strictObject({
  type: z.string({ error: "type is required" }).min(1, "type cannot be empty"),
  spec: z.record(z.string(), z.unknown(), { error: "spec must be an object" }),
});
export type GenericConnectorInput = z.output<typeof GenericConnectorInput>;

/** The inputs of a {@link Connector}. */
export const ConnectorInputs = z.strictObject({
  ...scopedEntityShape,
  /** The typed container image registry spec; exactly one of `dockerRegistry` and `generic`. */
  dockerRegistry: DockerRegistryInput.optional(),
  /** Any other connector type. */
  generic: GenericConnectorInput.optional(),
  /** Take over an existing connector with this identifier in this scope instead of failing. */
  adopt: AdoptInput,
});
/** Checked inputs of a {@link Connector}. */
export type ConnectorInputs = z.output<typeof ConnectorInputs>;
/** What a program passes to a {@link Connector}. */
export type ConnectorInputValues = z.input<typeof ConnectorInputs>;

/** The outputs of a {@link Connector}. */
export const ConnectorOutputs = ConnectorInputs.extend({
  /** The connector type on the wire (`DockerRegistry`, or `generic.type`). */
  type: z.string(),
  /** The spec as the service returned it. */
  spec: z.record(z.string(), z.unknown()),
  createdAt: z.number().int(),
  lastModifiedAt: z.number().int(),
});
/** Outputs of a {@link Connector}. */
export type ConnectorOutputs = z.output<typeof ConnectorOutputs>;

function connectorProblems(inputs: ConnectorInputs): InputProblem[] {
  const problems: InputProblem[] = [];
  if (inputs.project !== undefined && inputs.org === undefined) {
    problems.push({
      path: ["org"],
      message: "a project-level connector needs org as well as project (ref platform §5)",
    });
  }
  if ((inputs.dockerRegistry === undefined) === (inputs.generic === undefined)) {
    problems.push({
      path: ["dockerRegistry"],
      message: "exactly one of dockerRegistry and generic is required",
    });
  }
  const auth = inputs.dockerRegistry?.auth;
  if (
    auth?.type === "UsernamePassword" &&
    (auth.username === undefined) === (auth.usernameRef === undefined)
  ) {
    problems.push({
      path: ["dockerRegistry", "auth"],
      message: "exactly one of username and usernameRef is required",
    });
  }
  return problems;
}

// ---------------------------------------------------------------------------------------------
// Wire mapping

/** The connector type and spec sent for these inputs. */
export function wireSpec(inputs: Pick<ConnectorInputs, "dockerRegistry" | "generic">): {
  type: string;
  spec: Record<string, unknown>;
} {
  const d = inputs.dockerRegistry;
  if (d === undefined) return { type: inputs.generic!.type, spec: inputs.generic!.spec };
  const auth =
    d.auth.type === "Anonymous"
      ? { type: "Anonymous" }
      : {
          type: "UsernamePassword",
          spec: {
            ...(d.auth.username !== undefined
              ? { username: d.auth.username }
              : { usernameRef: d.auth.usernameRef }),
            passwordRef: d.auth.passwordRef,
          },
        };
  return {
    type: DOCKER_REGISTRY,
    spec: {
      dockerRegistryUrl: d.url,
      providerType: d.providerType,
      auth,
      delegateSelectors: [...d.delegateSelectors],
      executeOnDelegate: d.executeOnDelegate,
    },
  };
}

/** Reads a live DockerRegistry spec back into the typed input; `undefined` when it does not fit. */
export function dockerRegistryFromWire(
  type: string,
  spec: Record<string, unknown>,
): DockerRegistryInput | undefined {
  if (type !== DOCKER_REGISTRY) return undefined;
  const auth = spec.auth as { type?: unknown; spec?: Record<string, unknown> } | undefined;
  const parsed = DockerRegistryInput.safeParse({
    url: spec.dockerRegistryUrl,
    providerType: spec.providerType,
    auth:
      auth?.type === "UsernamePassword"
        ? {
            type: "UsernamePassword",
            ...(auth.spec?.username != null ? { username: auth.spec.username } : {}),
            ...(auth.spec?.usernameRef != null ? { usernameRef: auth.spec.usernameRef } : {}),
            passwordRef: auth.spec?.passwordRef,
          }
        : { type: auth?.type },
    delegateSelectors: spec.delegateSelectors ?? [],
    executeOnDelegate: spec.executeOnDelegate ?? true,
  });
  return parsed.success ? parsed.data : undefined;
}

// ---------------------------------------------------------------------------------------------
// Diff

/** Inputs whose change replaces the connector (the connector type does too: see `diff`). */
export const connectorReplaceOnChange = [
  "org",
  "project",
  "identifier",
] as const satisfies readonly (keyof ConnectorInputs)[];

const connectorDiff: DiffSpec<keyof ConnectorInputs> = {
  fields: ["org", "project", "identifier", "name", "description", "tags", "dockerRegistry", "generic"],
  replaceOnChange: connectorReplaceOnChange,
};

// ---------------------------------------------------------------------------------------------
// Lifecycle

/**
 * The resource id, in the peer providers' import-id shapes (ref §11): `<identifier>`,
 * `<org>/<identifier>` or `<org>/<project>/<identifier>`.
 */
export const connectorId = (inputs: Pick<ConnectorInputs, "org" | "project" | "identifier">): string =>
  [inputs.org, inputs.project, inputs.identifier].filter((p) => p !== undefined).join("/");

/** Reads a connector id back into its scope and identifier. */
export function parseConnectorId(id: string): { org?: string; project?: string; identifier: string } {
  const parts = id.split("/");
  if (parts.length < 1 || parts.length > 3 || parts.some((p) => p === "")) {
    throw new Error(
      `invalid connector id ${JSON.stringify(id)}: expected <identifier>, <org>/<identifier> or <org>/<project>/<identifier>`,
    );
  }
  if (parts.length === 1) return { identifier: parts[0]! };
  if (parts.length === 2) return { org: parts[0]!, identifier: parts[1]! };
  return { org: parts[0]!, project: parts[1]!, identifier: parts[2]! };
}

const scopeOf = (i: Pick<ConnectorInputs, "org" | "project">) => ({
  ...(i.org !== undefined ? { org: i.org } : {}),
  ...(i.project !== undefined ? { project: i.project } : {}),
});

function body(inputs: ConnectorInputs) {
  const { type, spec } = wireSpec(inputs);
  // The client adds accountIdentifier (its own account) to the body.
  return {
    name: inputs.name,
    identifier: inputs.identifier,
    description: inputs.description,
    ...(inputs.org !== undefined ? { orgIdentifier: inputs.org } : {}),
    ...(inputs.project !== undefined ? { projectIdentifier: inputs.project } : {}),
    tags: inputs.tags,
    type,
    spec,
  };
}

/** Outputs from the service's answer; the typed or generic input is rebuilt from the live spec. */
function toOutputs(inputs: ConnectorInputs, data: ConnectorData): ConnectorOutputs {
  const c = data.connector;
  const { connectorType: _t, ...spec } = c.spec as Record<string, unknown>;
  const outs: ConnectorOutputs = {
    ...inputs,
    name: c.name,
    description: c.description,
    tags: { ...c.tags },
    type: c.type,
    spec,
    createdAt: data.createdAt,
    lastModifiedAt: data.lastModifiedAt,
  };
  delete outs.dockerRegistry;
  delete outs.generic;
  const docker = inputs.generic === undefined ? dockerRegistryFromWire(c.type, spec) : undefined;
  if (docker !== undefined) outs.dockerRegistry = docker;
  else outs.generic = { type: c.type, spec };
  return outs;
}

const inputsOf = (props: Record<string, unknown>): ConnectorInputs =>
  ConnectorInputs.parse(
    Object.fromEntries(Object.entries(props).filter(([k]) => k in ConnectorInputs.shape)),
  );

function connectorDiffResult(olds: ConnectorOutputs, news: ConnectorInputs): pulumi.dynamic.DiffResult {
  const result = diffInputs(connectorDiff, olds, news);
  const replaces = [...(result.replaces ?? [])];
  // A connector cannot change type in place: replace when the wire type changes.
  const newType = news.dockerRegistry !== undefined ? DOCKER_REGISTRY : news.generic?.type;
  if (newType !== undefined && olds.type !== undefined && newType !== olds.type && !replaces.includes("type"))
    replaces.push("type");
  // Names are unique in a scope (ref §5): a replacement in the same scope deletes first.
  const sameScope = olds.org === news.org && olds.project === news.project;
  return {
    ...result,
    changes: result.changes || replaces.length > 0,
    replaces,
    deleteBeforeReplace: replaces.length > 0 && sameScope,
  };
}

/**
 * The provider: every lifecycle method. Each resource's `__provider` text
 * ({@link connectorProviderText}) loads this object in the provider process; the tests call it directly.
 */
export const impl: ResourceHandlers<ConnectorInputs, ConnectorOutputs> = {
  configure,

  check: checkWith({ schema: ConnectorInputs, validate: connectorProblems }),

  async diff(_id, olds, news) {
    return connectorDiffResult(olds, news);
  },

  async create(inputs) {
    const api = platformApi();
    const where = inputs.project
      ? `project ${inputs.org}/${inputs.project}`
      : inputs.org
        ? `organization ${inputs.org}`
        : "the account";
    const { value, how } = await createOrAdopt<ConnectorData>({
      describe: `connector "${inputs.identifier}" in ${where}`,
      adopt: inputs.adopt,
      lookup: () => readOrGone(() => api.connectors.get(inputs.identifier, scopeOf(inputs))),
      create: () => api.connectors.create(body(inputs)),
    });
    let outs = toOutputs(inputs, value);
    if (how !== "created" && connectorDiffResult(outs, inputs).changes) outs = await put(api, inputs);
    return { id: connectorId(inputs), outs: plain(outs) };
  },

  async read(id, props) {
    // Without old state (a read by id only) the id names the connector.
    const prev = props as Partial<ConnectorOutputs> | undefined;
    const key = prev?.identifier
      ? { org: prev.org, project: prev.project, identifier: prev.identifier }
      : parseConnectorId(id);
    const api = platformApi();
    const data = await readOrGone(() => api.connectors.get(key.identifier, scopeOf(key)));
    if (data === undefined) return GONE;
    const c = data.connector;
    // Without old state the live spec is taken as typed when it fits, else as generic.
    const hasSpec = prev?.dockerRegistry !== undefined || prev?.generic !== undefined;
    const old = inputsOf({
      ...(prev ?? {}),
      ...scopeOf(key),
      identifier: key.identifier,
      name: c.name,
      ...(hasSpec ? {} : { generic: { type: c.type, spec: c.spec } }),
    });
    if (!hasSpec && dockerRegistryFromWire(c.type, c.spec) !== undefined) delete old.generic;
    const outs = toOutputs(old, data);
    const { type: _t, spec: _s, createdAt: _c, lastModifiedAt: _l, ...inputs } = outs;
    return { id, props: plain(outs), inputs: plain(inputs) as ConnectorInputs as ConnectorOutputs };
  },

  async update(id, olds, news) {
    return guardedUpdate({
      describe: `connector "${olds.identifier}" (${connectorId(olds)})`,
      spec: connectorDiff,
      recorded: olds,
      desired: news,
      read: () => impl.read(id, olds),
      write: async (fields, live) => {
        if (fields.length === 0) return plain({ ...live, adopt: news.adopt });
        const merged = { ...inputsOf(live), ...pickFields(news, fields), adopt: news.adopt };
        // The typed and the generic spec are two spellings of one field: the one written wins.
        if (fields.includes("dockerRegistry") || fields.includes("generic")) {
          if (news.dockerRegistry === undefined) delete merged.dockerRegistry;
          if (news.generic === undefined) delete merged.generic;
        }
        return plain(await put(platformApi(), merged));
      },
    });
  },

  async lookup(inputs) {
    const data = await readOrGone(() => platformApi().connectors.get(inputs.identifier, scopeOf(inputs)));
    return data && { createdAt: data.createdAt };
  },

  async delete(_id, props) {
    const api = platformApi();
    await deleteIdempotent(
      () => api.connectors.delete(props.identifier, scopeOf(props)),
      () => api.connectors.get(props.identifier, scopeOf(props)),
    );
  },
};

async function put(api: PlatformClient, inputs: ConnectorInputs): Promise<ConnectorOutputs> {
  return toOutputs(inputs, await api.connectors.update(body(inputs)));
}

// ---------------------------------------------------------------------------------------------
// Provider and resource

/** The arguments of a {@link Connector}: each input may be a `pulumi.Input`, at any depth. */
export type ConnectorArgs = ResourceArgs<ConnectorInputValues>;

/**
 * A platform connector.
 * @example
 * ```ts
 * new Connector("dockerhub", {
 *   org: "default", project: "payments", identifier: "dockerhub", name: "Docker Hub",
 *   dockerRegistry: { url: "https://index.docker.io/v2/", providerType: "DockerHub",
 *     auth: { type: "UsernamePassword", username: "ci", passwordRef: "account.dockerhub_pat" } },
 * });
 * ```
 */
export const Connector = resourceClass("connector", CONNECTOR_TYPE, ConnectorInputs, ConnectorOutputs);
/** A {@link Connector} object: one `Output` per member of {@link ConnectorOutputs}. */
export type Connector = InstanceType<typeof Connector>;
/** What the engine stores as each object's `__provider`: a require of {@link impl}, no code, no secret. */
export const connectorProviderText = Connector.providerText;
