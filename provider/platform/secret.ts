/**
 * `Secret`: a platform secret at account, organization or project scope: a text secret
 * (`SecretText` with an inline `value`) or a file secret (`SecretFile` with the `file` content) (Go
 * SDK `harness/nextgen/api_secrets.go`; Terraform provider `internal/service/platform/secret/text.go`,
 * `file.go`). Connectors' `passwordRef` and pipelines' `<+secrets.getValue("...")>` name it by its
 * {@link SecretOutputs.ref}: `account.<id>` at account scope, `org.<id>` at organization scope,
 * `<id>` from its own project.
 *
 * | verb | API call |
 * |---|---|
 * | check | none: the zod schema below; exactly one of `value` and `file` |
 * | diff | none: semantic fields; scope and identifier replace, and so does a change between text and file (delete first: same identifier); the value is compared with the value recorded at the last write, the file by the SHA-256 of its bytes recorded as `fileSha256` (the service shows neither) |
 * | create | `POST /ng/api/v2/secrets`, for a file `POST /ng/api/v2/secrets/files` (multipart: `spec` and `file` parts) (or with `adopt` the `GET` below first, then one `PUT` of the program's value or file); a create whose response was lost is found again by `GET` |
 * | read | `GET /ng/api/v2/secrets/{identifier}`: everything but the value or content, which stays the recorded one (its hash, for a file); missing means deleted outside Pulumi |
 * | update | `PUT /ng/api/v2/secrets/{identifier}`: a full replace, the value re-sent (the API takes no `If-Match` for secrets); for a file `PUT /ng/api/v2/secrets/files/{identifier}` with the `file` part only when the content changed (without it the service keeps its content) |
 * | delete | `DELETE /ng/api/v2/secrets/{identifier}`; already gone is success |
 *
 * The value and the file content are Pulumi secrets whatever the program passes (the class wraps
 * them), so the state holds them encrypted; the content is not an output at all, only its hash
 * `fileSha256`, itself stored as a secret (a hash of a short secret can be guessed back). They go to
 * the service in the create and update bodies and nowhere else: no message of this resource shows
 * them (a conflict names only fields whose live value differs, and their live value is by
 * construction the recorded one), the SDK's errors quote responses, never requests (and the HTTP
 * core redacts a multipart call's file part from them), and the service never returns them.
 *
 * The `file` input is the file's content as a string: UTF-8 text by default (a PEM, a kubeconfig),
 * or with `fileEncoding: "base64"` the base64 of binary content (a keystore), decoded before it is
 * sent. Read it with `fs.readFileSync(path, "utf8")` (or `"base64"`); a path is not taken, so the
 * state depends on the content only, not on the machine that ran the program.
 * @module
 */

import { createHash } from "node:crypto";
import { z } from "zod";
import { secretField, secretFieldNames } from "../../sdk/core/secret-fields";
import type { PlatformClient } from "../../sdk/platform/client";
import type { SecretBody, SecretData } from "../../sdk/platform/schemas";
import type { SecretFileBody } from "../../sdk/platform/secret";
import { checkWith, containsUnknown } from "../core/check";
import { type DiffSpec, diffInputs } from "../core/diff";
import { guardedUpdate, pickFields } from "../core/guard";
import { defineKind } from "../core/kind";
import { createOrAdopt, GONE, readOrGone } from "../core/lifecycle";
import { lookupAndDelete } from "../core/ng-entity";
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
import { withSecretInputs } from "../core/secret-inputs";
import { SECRET_TYPE } from "../types";

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
  /**
   * The secret text of a text secret (give this or `file`). Always stored as a Pulumi secret;
   * never read back from the service.
   */
  value: secretField(
    z.string({ error: "value must be a string (the secret text)" }).min(1, "value cannot be empty"),
  ).optional(),
  /**
   * The content of a file secret (give this or `value`): UTF-8 text, or base64 with
   * `fileEncoding: "base64"`. Always stored as a Pulumi secret, and only as an input: the outputs
   * hold its SHA-256 (`fileSha256`); never read back from the service.
   */
  file: secretField(
    z.string({ error: "file must be a string (the file's content)" }).min(1, "file cannot be empty"),
  ).optional(),
  /** How `file` is written: `utf8` (the default: the text itself) or `base64` (binary content). */
  fileEncoding: z.enum(["utf8", "base64"], { error: 'fileEncoding must be "utf8" or "base64"' }).optional(),
  /** Take over an existing secret with this identifier in this scope (its value is then replaced). */
  adopt: AdoptInput,
});
/** Checked inputs of a {@link Secret}. */
export type SecretInputs = z.output<typeof SecretInputs>;
/** What a program passes to a {@link Secret}. */
export type SecretInputValues = z.input<typeof SecretInputs>;

/** The outputs of a {@link Secret}: the inputs but the file content, and its hash. */
export const SecretOutputs = SecretInputs.omit({ file: true }).extend({
  /** `SecretText` or `SecretFile`, as the service reads it back. */
  type: z.enum(["SecretText", "SecretFile"]).optional(),
  /** A file secret: the SHA-256 (hex) of the content last written; stored as a secret. */
  fileSha256: z.string().optional(),
  /** How connectors and pipelines name the secret: `account.<id>`, `org.<id>` or `<id>`. */
  ref: z.string(),
  /** Creation time, epoch milliseconds (absent when the service does not say). */
  createdAt: z.number().int().optional(),
  /** Last update time, epoch milliseconds (absent when the service does not say). */
  updatedAt: z.number().int().optional(),
});
/** Outputs of a {@link Secret}. */
export type SecretOutputs = z.output<typeof SecretOutputs>;

// ---------------------------------------------------------------------------------------------
// Diff

/** Inputs whose change replaces the secret. */
export const secretReplaceOnChange = SCOPE_REPLACE_ON_CHANGE satisfies readonly (keyof SecretInputs)[];

const secretDiff: DiffSpec<keyof SecretInputs> = {
  fields: ["org", "project", "identifier", "name", "description", "tags", "secretManager", "value", "file"],
  replaceOnChange: secretReplaceOnChange,
  // `value` and `file`: a refused update shows them as `[secret]`
  secret: secretFieldNames(SecretInputs) as (keyof SecretInputs)[],
};

/** The bytes a file secret's content stands for. */
function fileBytes(inputs: Pick<SecretInputs, "file" | "fileEncoding">): Uint8Array<ArrayBuffer> {
  return new Uint8Array(Buffer.from(inputs.file ?? "", inputs.fileEncoding === "base64" ? "base64" : "utf8"));
}

/**
 * The recorded form of a file secret's content: the SHA-256 of its bytes.
 * @internal
 */
export const fileSha256 = (inputs: Pick<SecretInputs, "file" | "fileEncoding">): string =>
  createHash("sha256").update(fileBytes(inputs)).digest("hex");

type SecretKind = "SecretText" | "SecretFile";

/** Whether inputs or outputs are a file secret's (outputs recorded before `type` existed are text). */
function kindOf(props: Partial<SecretInputs & SecretOutputs>): SecretKind {
  if (props.type !== undefined) return props.type;
  return props.file !== undefined || props.fileSha256 !== undefined ? "SecretFile" : "SecretText";
}

/**
 * Inputs or outputs as the diff compares them: `file` as `{sha256}` (from the content, or from
 * the recorded `fileSha256`), so the content is compared without ever being recorded.
 */
function fileView(props: Partial<SecretInputs & SecretOutputs>): Record<string, unknown> {
  const { fileSha256: recorded, ...rest } = props;
  if (props.file !== undefined) {
    return { ...rest, file: containsUnknown(props.file) ? props.file : { sha256: fileSha256(props) } };
  }
  return { ...rest, file: recorded === undefined ? undefined : { sha256: recorded } };
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** The refusals beyond the schema: exactly one of value and file, an encoding only for a file. */
function secretProblems(inputs: SecretInputs) {
  const problems = projectNeedsOrg(inputs, "secret");
  if (inputs.value !== undefined && inputs.file !== undefined) {
    problems.push({
      path: ["file"],
      message: "give value (a text secret) or file (a file secret), not both",
    });
  } else if (inputs.value === undefined && inputs.file === undefined) {
    problems.push({
      path: ["value"],
      message: "value must be a string (the secret text), or give file (a file secret's content)",
    });
  }
  if (inputs.fileEncoding !== undefined && inputs.file === undefined) {
    problems.push({ path: ["fileEncoding"], message: "fileEncoding applies to file only" });
  }
  if (
    inputs.fileEncoding === "base64" &&
    typeof inputs.file === "string" &&
    !containsUnknown(inputs.file) &&
    !BASE64.test(inputs.file.replace(/\s+/g, ""))
  ) {
    // the message never quotes the content
    problems.push({ path: ["file"], message: 'file is not base64 (fileEncoding is "base64")' });
  }
  return problems;
}

// ---------------------------------------------------------------------------------------------
// Lifecycle

/** The reference by which other entities name a secret of this scope (ref platform §3 `allowScoped`). */
export const secretRef: (inputs: Pick<SecretInputs, "org" | "project" | "identifier">) => string = scopedRef;

const describe = (i: Pick<SecretInputs, "org" | "project" | "identifier">) =>
  `secret "${i.identifier}" (${secretRef(i)})`;

/** The metadata every secret's body carries. */
function meta(inputs: SecretInputs) {
  return {
    identifier: inputs.identifier,
    name: inputs.name,
    orgIdentifier: inputs.org,
    projectIdentifier: inputs.project,
    description: inputs.description,
    tags: inputs.tags,
  };
}

function body(inputs: SecretInputs): SecretBody {
  return {
    type: "SecretText",
    ...meta(inputs),
    spec: { secretManagerIdentifier: inputs.secretManager, valueType: "Inline", value: inputs.value },
  };
}

function fileBody(inputs: SecretInputs): SecretFileBody {
  return { type: "SecretFile", ...meta(inputs), spec: { secretManagerIdentifier: inputs.secretManager } };
}

/**
 * Outputs from the service's answer; the value is the one given, which the answer never shows, and
 * a file is its hash: of the content sent, else `keptHash` (the content the service kept).
 */
function toOutputs(inputs: SecretInputs, data: SecretData, keptHash?: string): SecretOutputs {
  const s = data.secret;
  const { file, ...rest } = inputs;
  const hash = file !== undefined ? fileSha256(inputs) : keptHash;
  return {
    ...rest,
    name: s.name,
    description: s.description,
    tags: { ...s.tags },
    secretManager: s.spec.secretManagerIdentifier,
    type: s.type,
    ...(hash === undefined ? {} : { fileSha256: hash }),
    ref: secretRef(inputs),
    createdAt: data.createdAt,
    updatedAt: data.updatedAt,
  };
}

/** Creates the secret: its JSON body, or a file's multipart form. */
function create(api: PlatformClient, inputs: SecretInputs): Promise<SecretData> {
  return inputs.file !== undefined
    ? api.secrets.createFile(fileBody(inputs), fileBytes(inputs))
    : api.secrets.create(body(inputs));
}

/**
 * Replaces the secret (one `PUT`): a text secret with its value; a file secret's metadata, with
 * its content when `inputs` carry one, else keeping `keptHash`'s.
 */
async function put(
  api: PlatformClient,
  inputs: SecretInputs,
  kind: SecretKind,
  keptHash?: string,
): Promise<SecretOutputs> {
  if (kind === "SecretText") return toOutputs(inputs, await api.secrets.update(body(inputs)));
  const content = inputs.file !== undefined ? fileBytes(inputs) : undefined;
  return toOutputs(inputs, await api.secrets.updateFile(fileBody(inputs), content), keptHash);
}

/**
 * The provider: every lifecycle method. Each resource's `__provider` text
 * ({@link secretProviderText}) loads this object in the provider process; the tests call it directly.
 */
export const impl: ResourceHandlers<SecretInputs, SecretOutputs> = {
  configure,

  check: checkWith({ schema: SecretInputs, validate: secretProblems }),

  async diff(_id, olds, news) {
    const result = diffInputs(secretDiff, fileView(olds), fileView(news));
    // Text and file are two kinds of entity under one identifier: one goes before the other comes.
    if (kindOf(olds) !== kindOf(news)) {
      const field = news.file !== undefined ? "file" : "value";
      return {
        ...result,
        changes: true,
        replaces: [...(result.replaces ?? []), field],
        deleteBeforeReplace: true,
      };
    }
    return result;
  },

  async create(inputs) {
    const api = platformApi();
    const { value, how } = await createOrAdopt<SecretData>({
      describe: describe(inputs),
      adopt: inputs.adopt,
      lookup: () => readOrGone(() => api.secrets.get(inputs.identifier, scopeOf(inputs))),
      create: () => create(api, inputs),
    });
    // An adopted secret's value is unknown (the service never shows it): the program's is written.
    const outs = how === "adopted" ? await put(api, inputs, kindOf(inputs)) : toOutputs(inputs, value);
    return { id: scopedId(inputs), outs: plain(outs) };
  },

  async read(id, props) {
    // Without old state (a read by id only, an import) the id names the secret, and no value is known.
    const prev = props as Partial<SecretOutputs> | undefined;
    const key = prev?.identifier
      ? { org: prev.org, project: prev.project, identifier: prev.identifier }
      : parseScopedId(id);
    const data = await readOrGone(() => platformApi().secrets.get(key.identifier, scopeOf(key)));
    if (data === undefined) return GONE;
    const known = { ...(prev ?? {}), ...key, name: data.secret.name };
    const inputs = SecretInputs.parse(
      Object.fromEntries(Object.entries(known).filter(([k]) => k in SecretInputs.shape && k !== "file")),
    );
    const outs = toOutputs(inputs, data, prev?.fileSha256);
    const { ref: _r, createdAt: _c, updatedAt: _u, type: _t, fileSha256: _h, ...asInputs } = outs;
    return { id, props: plain(outs), inputs: plain(asInputs) as SecretInputs as SecretOutputs };
  },

  async update(id, olds, news) {
    return guardedUpdate({
      describe: describe(olds),
      spec: secretDiff,
      recorded: olds,
      view: fileView,
      desired: fileView(news),
      read: () => impl.read(id, olds),
      write: async (fields, live) => {
        if (fields.length === 0) return plain({ ...live, adopt: news.adopt });
        const { ref: _r, createdAt: _c, updatedAt: _u, type: _t, fileSha256: kept, ...liveInputs } = live;
        // The content goes out only when it changed; its encoding goes with it.
        const changed = pickFields(news, fields.includes("file") ? [...fields, "fileEncoding"] : fields);
        const next = { ...liveInputs, ...changed, adopt: news.adopt };
        return plain(await put(platformApi(), next, kindOf(live), kept));
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

/**
 * The arguments of a {@link Secret}: each input may be a `pulumi.Input`; `value` and `file` become
 * secrets.
 */
export type SecretArgs = ResourceArgs<SecretInputValues>;

/**
 * A platform text or file secret. Its `ref` is what a {@link Connector}'s `passwordRef` or a
 * pipeline's `<+secrets.getValue(...)>` takes.
 * @example
 * ```ts
 * const pw = new Secret("docker-pw", { org: "default", identifier: "docker_pw", name: "Docker password", value: config.requireSecret("dockerPassword") });
 * new Connector("dockerhub", { ..., dockerRegistry: { ..., auth: { type: "UsernamePassword", username: "ci", passwordRef: pw.ref } } });
 * new Secret("kubeconfig", { org: "default", identifier: "kubeconfig", name: "kubeconfig", file: fs.readFileSync("kubeconfig.yaml", "utf8") });
 * ```
 */
export const Secret = withSecretInputs(
  resourceClass("secret", SECRET_TYPE, SecretInputs, SecretOutputs),
  ["value", "file"],
  ["value", "fileSha256"],
);
/** A {@link Secret} object: one `Output` per member of {@link SecretOutputs}. */
export type Secret = InstanceType<typeof Secret>;
/** What the engine stores as each object's `__provider`: a require of {@link impl}, no code, no secret. */
export const secretProviderText = Secret.providerText;

/** The kind's one definition: what every registry, door, doc and kind-wide test reads (`../core/kind.ts`). */
export const kind = defineKind({
  resource: Secret,
  impl,
  area: "platform",
  replaceOnChange: secretReplaceOnChange,
  importId: { form: "[<org>/[<project>/]]<identifier>", example: "default/payments/db_password" },
  doc: {
    what: "a platform text or file secret (its value or file content always a Pulumi secret; a file recorded as its SHA-256); `ref` names it for connectors and pipelines",
    replaces: "identifier, scope, text ↔ file",
    updates: "name, description, tags, secret manager, value (PUT, the value re-sent), file (multipart PUT)",
  },
  example: {
    inputs: {
      org: "default",
      project: "payments",
      identifier: "registry_token",
      name: "Registry token",
      value: "sentinel-value-3f9a",
    },
    refs: { project: { kind: "Project", output: "identifier", shared: true } },
    unique: ["identifier", "name", "value"],
  },
});
