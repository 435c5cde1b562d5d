/**
 * `Secret`: a platform text secret (`SecretText` with an inline value) at account, organization
 * or project scope (Go SDK `harness/nextgen/api_secrets.go`; Terraform provider
 * `internal/service/platform/secret/text.go`). Connectors' `passwordRef` and pipelines'
 * `<+secrets.getValue("...")>` name it by its {@link SecretOutputs.ref}: `account.<id>` at account
 * scope, `org.<id>` at organization scope, `<id>` from its own project.
 *
 * | verb | API call |
 * |---|---|
 * | check | none: the zod schema below |
 * | diff | none: semantic fields; scope and identifier replace; the value is compared with the value recorded at the last write (the service never shows it) |
 * | create | `POST /ng/api/v2/secrets` (or with `adopt` the `GET` below first, then one `PUT` of the program's value); a create whose response was lost is found again by `GET` |
 * | read | `GET /ng/api/v2/secrets/{identifier}`: everything but the value, which stays the recorded one; missing means deleted outside Pulumi |
 * | update | `PUT /ng/api/v2/secrets/{identifier}`: a full replace, the value re-sent (the API takes no `If-Match` for secrets) |
 * | delete | `DELETE /ng/api/v2/secrets/{identifier}`; already gone is success |
 *
 * The value is a Pulumi secret whatever the program passes (the class wraps it), so the state holds
 * it encrypted, in inputs and outputs. It goes to the service in the create and update bodies and
 * nowhere else: no message of this resource shows it (a conflict names only fields whose live value
 * differs, and the value's live value is by construction the recorded one), the SDK's errors quote
 * responses, never requests, and the service never returns it.
 *
 * A `SecretFile` (its content sent as multipart) is not managed yet: the HTTP core sends JSON and
 * YAML bodies only.
 * @module
 */

import { z } from "zod";
import type { PlatformClient } from "../sdk/platform/client";
import type { SecretBody, SecretData } from "../sdk/platform/schemas";
import { connectorId, parseConnectorId } from "./connector";
import { checkWith } from "./core/check";
import { type DiffSpec, diffInputs } from "./core/diff";
import { guardedUpdate, pickFields } from "./core/guard";
import { createOrAdopt, GONE, readOrGone } from "./core/lifecycle";
import { lookupAndDelete } from "./core/ng-entity";
import {
  projectNeedsOrg,
  SCOPE_REPLACE_ON_CHANGE,
  scopedEntityShape,
  scopedRef,
  scopeOf,
} from "./core/platform-scope";
import { configure, plain, type ResourceArgs, type ResourceHandlers, resourceClass } from "./core/resource";
import { withSecretInputs } from "./core/secret-inputs";
import { AdoptInput, platformApi } from "./platform-common";
import { SECRET_TYPE } from "./types";

// ---------------------------------------------------------------------------------------------
// Inputs and outputs

/** The platform's built-in secret manager (Terraform provider default). */
export const HARNESS_SECRET_MANAGER = "harnessSecretManager";

/** The inputs of a {@link Secret}. */
export const SecretInputs = z.strictObject({
  ...scopedEntityShape,
  /** The secret manager that stores the value; the platform's own by default. */
  secretManager: z
    .string({ error: "secretManager must be a secret manager identifier" })
    .min(1, "secretManager cannot be empty")
    .default(HARNESS_SECRET_MANAGER),
  /** The secret text. Always stored as a Pulumi secret; never read back from the service. */
  value: z.string({ error: "value must be a string (the secret text)" }).min(1, "value cannot be empty"),
  /** Take over an existing secret with this identifier in this scope (its value is then replaced). */
  adopt: AdoptInput,
});
/** Checked inputs of a {@link Secret}. */
export type SecretInputs = z.output<typeof SecretInputs>;
/** What a program passes to a {@link Secret}. */
export type SecretInputValues = z.input<typeof SecretInputs>;

/** The outputs of a {@link Secret}. */
export const SecretOutputs = SecretInputs.extend({
  /** How connectors and pipelines name the secret: `account.<id>`, `org.<id>` or `<id>`. */
  ref: z.string(),
  createdAt: z.number().int().optional(),
  updatedAt: z.number().int().optional(),
});
/** Outputs of a {@link Secret}. */
export type SecretOutputs = z.output<typeof SecretOutputs>;

// ---------------------------------------------------------------------------------------------
// Diff

/** Inputs whose change replaces the secret. */
export const secretReplaceOnChange = SCOPE_REPLACE_ON_CHANGE satisfies readonly (keyof SecretInputs)[];

const secretDiff: DiffSpec<keyof SecretInputs> = {
  fields: ["org", "project", "identifier", "name", "description", "tags", "secretManager", "value"],
  replaceOnChange: secretReplaceOnChange,
};

// ---------------------------------------------------------------------------------------------
// Lifecycle

/** The reference by which other entities name a secret of this scope (ref platform §3 `allowScoped`). */
export const secretRef: (inputs: Pick<SecretInputs, "org" | "project" | "identifier">) => string = scopedRef;

const describe = (i: Pick<SecretInputs, "org" | "project" | "identifier">) =>
  `secret "${i.identifier}" (${secretRef(i)})`;

function body(inputs: SecretInputs): SecretBody {
  return {
    type: "SecretText",
    identifier: inputs.identifier,
    name: inputs.name,
    orgIdentifier: inputs.org,
    projectIdentifier: inputs.project,
    description: inputs.description,
    tags: inputs.tags,
    spec: { secretManagerIdentifier: inputs.secretManager, valueType: "Inline", value: inputs.value },
  };
}

/** Outputs from the service's answer; the value is the one given, which the answer never shows. */
function toOutputs(inputs: SecretInputs, data: SecretData): SecretOutputs {
  const s = data.secret;
  return {
    ...inputs,
    name: s.name,
    description: s.description,
    tags: { ...s.tags },
    secretManager: s.spec.secretManagerIdentifier,
    ref: secretRef(inputs),
    createdAt: data.createdAt,
    updatedAt: data.updatedAt,
  };
}

async function put(api: PlatformClient, inputs: SecretInputs): Promise<SecretOutputs> {
  return toOutputs(inputs, await api.secrets.update(body(inputs)));
}

/**
 * The provider: every lifecycle method. Each resource's `__provider` text
 * ({@link secretProviderText}) loads this object in the provider process; the tests call it directly.
 */
export const impl: ResourceHandlers<SecretInputs, SecretOutputs> = {
  configure,

  check: checkWith({ schema: SecretInputs, validate: (inputs) => projectNeedsOrg(inputs, "secret") }),

  async diff(_id, olds, news) {
    return diffInputs(secretDiff, olds, news);
  },

  async create(inputs) {
    const api = platformApi();
    const { value, how } = await createOrAdopt<SecretData>({
      describe: describe(inputs),
      adopt: inputs.adopt,
      lookup: () => readOrGone(() => api.secrets.get(inputs.identifier, scopeOf(inputs))),
      create: () => api.secrets.create(body(inputs)),
    });
    // An adopted secret's value is unknown (the service never shows it): the program's is written.
    const outs = how === "adopted" ? await put(api, inputs) : toOutputs(inputs, value);
    return { id: connectorId(inputs), outs: plain(outs) };
  },

  async read(id, props) {
    // Without old state (a read by id only, an import) the id names the secret, and no value is known.
    const prev = props as Partial<SecretOutputs> | undefined;
    const key = prev?.identifier
      ? { org: prev.org, project: prev.project, identifier: prev.identifier }
      : parseConnectorId(id);
    const data = await readOrGone(() => platformApi().secrets.get(key.identifier, scopeOf(key)));
    if (data === undefined) return GONE;
    const known = { ...(prev ?? {}), ...key, name: data.secret.name, value: prev?.value ?? "(unknown)" };
    const inputs = SecretInputs.parse(
      Object.fromEntries(Object.entries(known).filter(([k]) => k in SecretInputs.shape)),
    );
    const outs = toOutputs(inputs, data);
    if (prev?.value === undefined) delete (outs as Partial<SecretOutputs>).value;
    const { ref: _r, createdAt: _c, updatedAt: _u, ...asInputs } = outs;
    return { id, props: plain(outs), inputs: plain(asInputs) as SecretInputs as SecretOutputs };
  },

  async update(id, olds, news) {
    return guardedUpdate({
      describe: describe(olds),
      spec: secretDiff,
      recorded: olds,
      desired: news,
      read: () => impl.read(id, olds),
      write: async (fields, live) => {
        if (fields.length === 0) return plain({ ...live, adopt: news.adopt });
        const { ref: _r, createdAt: _c, updatedAt: _u, ...liveInputs } = live;
        return plain(
          await put(platformApi(), { ...liveInputs, ...pickFields(news, fields), adopt: news.adopt }),
        );
      },
    });
  },

  ...lookupAndDelete(
    () => platformApi().secrets,
    (k: SecretInputs) => scopeOf(k),
  ),
};

// ---------------------------------------------------------------------------------------------
// Provider and resource

/** The arguments of a {@link Secret}: each input may be a `pulumi.Input`; `value` becomes a secret. */
export type SecretArgs = ResourceArgs<SecretInputValues>;

/**
 * A platform text secret. Its `ref` is what a {@link Connector}'s `passwordRef` or a pipeline's
 * `<+secrets.getValue(...)>` takes.
 * @example
 * ```ts
 * const pw = new Secret("docker-pw", { org: "default", identifier: "docker_pw", name: "Docker password", value: config.requireSecret("dockerPassword") });
 * new Connector("dockerhub", { ..., dockerRegistry: { ..., auth: { type: "UsernamePassword", username: "ci", passwordRef: pw.ref } } });
 * ```
 */
export const Secret = withSecretInputs(resourceClass("secret", SECRET_TYPE, SecretInputs, SecretOutputs), [
  "value",
]);
/** A {@link Secret} object: one `Output` per member of {@link SecretOutputs}. */
export type Secret = InstanceType<typeof Secret>;
/** What the engine stores as each object's `__provider`: a require of {@link impl}, no code, no secret. */
export const secretProviderText = Secret.providerText;
