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
 * The spec is typed (exactly one of `dockerRegistry`, `github`, `git`, `kubernetes`, `aws`, `gcp`
 * and `httpHelm`: the connector kinds teams use most) or generic (`generic: { type, spec }`, sent
 * as given, for every other connector type; one of a typed kind's type is checked first by that
 * kind's rules, see `genericSpecProblems`). The typed kinds' wire shapes are the public Go SDK's
 * (`harness/harness-go-sdk` `harness/nextgen/model_github_connector.go`, `model_git_config.go`,
 * `model_kubernetes_cluster_config.go`, `model_aws_connector.go`, `model_gcp_connector.go`,
 * `model_http_helm_connector.go`), as TFP builds them (`harness/terraform-provider-harness`
 * `internal/service/cd_nextgen/connector/{codeRepositories/github.go, codeRepositories/git.go,
 * cloudProviders/k8s_cluster.go, cloudProviders/aws.go, cloudProviders/gcp.go,
 * artifactRepositories/http_helm.go}`). Every credential is a secret reference (`tokenRef`,
 * `passwordRef`, `sshKeyRef`, `serviceAccountTokenRef`, `secretKeyRef`, ...), never a value: one
 * that looks like a literal token (`ghp_...`, `AKIA...`) is refused at check, naming the field.
 * @module
 */
import type * as pulumi from "@pulumi/pulumi";
import { z } from "zod";
import type { PlatformClient } from "../../sdk/platform/client";
import { CONNECTOR_KIND_SPECS, type ConnectorData, DOCKER_PROVIDER_TYPES } from "../../sdk/platform/schemas";
import { checkWith, type InputProblem } from "../core/check";
import { type DiffSpec, diffInputs } from "../core/diff";
import { guardedUpdate, pickFields } from "../core/guard";
import { defineKind } from "../core/kind";
import { createOrAdopt, deleteIdempotent, GONE, readOrGone } from "../core/lifecycle";
import { AdoptInput, platformApi } from "../core/platform-common";
import { parseScopedId, scopedEntityShape, scopedId } from "../core/platform-scope";
import { configure, plain, type ResourceArgs, type ResourceHandlers, resourceClass } from "../core/resource";
import { CONNECTOR_TYPE } from "../types";

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

/**
 * Credentials that are values, not secret names: GitHub tokens (`ghp_`, `gho_`, `ghu_`, `ghs_`,
 * `ghr_`, `github_pat_`, and the 40-hex classic ones), GitLab (`glpat-`), AWS access key ids
 * (`AKIA`/`ASIA` + 16), Slack (`xox?-`), OpenAI-style `sk-`. Each also matches the reference
 * pattern (they are valid identifiers), so the pattern alone would let them through.
 */
const LITERAL_TOKEN =
  /^(?:gh[pousr]_[A-Za-z0-9]{16,}|github_pat_\w{16,}|[0-9a-f]{40}|glpat-[\w-]{16,}|(?:AKIA|ASIA)[0-9A-Z]{16}|xox[abposr]-[\w-]{8,}|sk-[\w-]{16,})$/;

/**
 * A {@link SecretRef} input named `field` that also refuses a literal credential: the message names
 * the field, so `pulumi preview` says which input holds a token in clear.
 */
export const secretRefInput = (field: string, example: string) =>
  z
    .string({ error: `${field} must be a secret reference such as ${example}` })
    .refine((v) => !LITERAL_TOKEN.test(v), {
      message: `${field} looks like a literal token, not a secret reference: store it in a Secret and give its reference (account.<id>, org.<id> or <id>)`,
      abort: true,
    })
    .pipe(SecretRef);

/** Delegates that may use a connector (the API's `delegateSelectors`). */
const DelegateSelectors = z.array(z.string().min(1)).default([]);
/** Connect through a delegate (the peer provider's default: true). */
const ExecuteOnDelegate = z.boolean().default(true);

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
      usernameRef: secretRefInput("usernameRef", "account.docker_user").optional(),
      /** The secret holding the password. */
      passwordRef: secretRefInput("passwordRef", "account.docker_password"),
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

const httpUrl = (field: string) => z.url({ protocol: /^https?$/, error: `${field} must be an http(s) URL` });
/** Account (the URL names an account or organization) or Repo (the URL names one repository). */
const ConnectionType = z.enum(["Account", "Repo"], { error: 'connectionType must be "Account" or "Repo"' });

/**
 * The typed spec of a GitHub connector (`Github`; Go SDK `GithubConnector`, TFP
 * `platform_connector_github`): HTTP authentication with a user name and a personal access token
 * secret, and optionally the token used for API access (pull requests, statuses).
 */
export const GithubInput = z.strictObject({
  /** The account or repository URL. */
  url: httpUrl("url"),
  /** `Account` or `Repo` (the wire's `type`). */
  connectionType: ConnectionType,
  /** A repository to test the connection with (for an `Account` connector). */
  validationRepo: z.string().min(1, "validationRepo cannot be empty").optional(),
  /** HTTP authentication: `UsernameToken`. */
  auth: z.strictObject({
    username: z.string().min(1, "username cannot be empty").optional(),
    usernameRef: secretRefInput("usernameRef", "account.github_user").optional(),
    /** The secret holding the personal access token. */
    tokenRef: secretRefInput("tokenRef", "account.github_token"),
  }),
  /** API access with a token secret (`apiAccess: {type: Token}`); none when absent. */
  apiAccess: z.strictObject({ tokenRef: secretRefInput("tokenRef", "account.github_token") }).optional(),
  delegateSelectors: DelegateSelectors,
  executeOnDelegate: ExecuteOnDelegate,
});
export type GithubInput = z.output<typeof GithubInput>;

/** The typed spec of a generic Git connector (`Git`; Go SDK `GitConfig`, TFP `platform_connector_git`). */
export const GitInput = z.strictObject({
  /** The account or repository URL (`https://...`, or `git@host:org/repo.git` over SSH). */
  url: z.string({ error: "url is required" }).min(1, "url cannot be empty"),
  connectionType: ConnectionType,
  /** The branch to test the connection with (`branchName` on the wire). */
  branch: z.string().min(1, "branch cannot be empty").optional(),
  validationRepo: z.string().min(1, "validationRepo cannot be empty").optional(),
  /** `Http` with a user name and a password secret, or `Ssh` with an SSH key secret. */
  auth: z.discriminatedUnion(
    "type",
    [
      z.strictObject({
        type: z.literal("Http"),
        username: z.string().min(1, "username cannot be empty").optional(),
        usernameRef: secretRefInput("usernameRef", "account.git_user").optional(),
        passwordRef: secretRefInput("passwordRef", "account.git_password"),
      }),
      z.strictObject({
        type: z.literal("Ssh"),
        sshKeyRef: secretRefInput("sshKeyRef", "account.git_ssh_key"),
      }),
    ],
    { error: 'auth.type must be "Http" or "Ssh"' },
  ),
  delegateSelectors: DelegateSelectors,
  executeOnDelegate: ExecuteOnDelegate,
});
export type GitInput = z.output<typeof GitInput>;

/**
 * The typed spec of a Kubernetes cluster connector (`K8sCluster`; Go SDK
 * `KubernetesClusterConfig`, TFP `platform_connector_kubernetes`): the delegate's own credentials,
 * or a master URL with a service account token secret.
 */
export const KubernetesInput = z.strictObject({
  credential: z.discriminatedUnion(
    "type",
    [
      z.strictObject({ type: z.literal("InheritFromDelegate") }),
      z.strictObject({
        type: z.literal("ManualConfig"),
        /** The API server URL. */
        masterUrl: httpUrl("masterUrl"),
        /** The secret holding the service account token. */
        serviceAccountTokenRef: secretRefInput("serviceAccountTokenRef", "account.k8s_sa_token"),
        /** The secret holding the cluster's CA certificate. */
        caCertRef: secretRefInput("caCertRef", "account.k8s_ca_cert").optional(),
      }),
    ],
    { error: 'credential.type must be "InheritFromDelegate" or "ManualConfig"' },
  ),
  delegateSelectors: DelegateSelectors,
});
export type KubernetesInput = z.output<typeof KubernetesInput>;

/** The typed spec of an AWS connector (`Aws`; Go SDK `AwsConnector`, TFP `platform_connector_aws`). */
export const AwsInput = z.strictObject({
  credential: z.discriminatedUnion(
    "type",
    [
      z.strictObject({ type: z.literal("InheritFromDelegate") }),
      z.strictObject({ type: z.literal("Irsa") }),
      z.strictObject({
        type: z.literal("ManualConfig"),
        /** The access key id in clear (it is not a secret), or... */
        accessKey: z.string().min(1, "accessKey cannot be empty").optional(),
        /** ...a secret holding it. */
        accessKeyRef: secretRefInput("accessKeyRef", "account.aws_access_key").optional(),
        /** The secret holding the secret access key. */
        secretKeyRef: secretRefInput("secretKeyRef", "account.aws_secret_key"),
      }),
    ],
    { error: 'credential.type must be "InheritFromDelegate", "Irsa" or "ManualConfig"' },
  ),
  /** The region the connection test uses. */
  region: z.string().min(1, "region cannot be empty").optional(),
  delegateSelectors: DelegateSelectors,
  executeOnDelegate: ExecuteOnDelegate,
});
export type AwsInput = z.output<typeof AwsInput>;

/** The typed spec of a GCP connector (`Gcp`; Go SDK `GcpConnector`, TFP `platform_connector_gcp`). */
export const GcpInput = z.strictObject({
  credential: z.discriminatedUnion(
    "type",
    [
      z.strictObject({ type: z.literal("InheritFromDelegate") }),
      z.strictObject({
        type: z.literal("ManualConfig"),
        /** The secret holding the service account's JSON key. */
        secretKeyRef: secretRefInput("secretKeyRef", "account.gcp_sa_key"),
      }),
    ],
    { error: 'credential.type must be "InheritFromDelegate" or "ManualConfig"' },
  ),
  delegateSelectors: DelegateSelectors,
  executeOnDelegate: ExecuteOnDelegate,
});
export type GcpInput = z.output<typeof GcpInput>;

/** The typed spec of a Helm HTTP repository connector (`HttpHelmRepo`; Go SDK `HttpHelmConnector`, TFP `platform_connector_helm`). */
export const HttpHelmInput = z.strictObject({
  /** The repository URL (`helmRepoUrl` on the wire). */
  url: httpUrl("url"),
  /** Anonymous (the default) or user name and password secret. */
  auth: z
    .discriminatedUnion(
      "type",
      [
        z.strictObject({ type: z.literal("Anonymous") }),
        z.strictObject({
          type: z.literal("UsernamePassword"),
          username: z.string().min(1, "username cannot be empty").optional(),
          usernameRef: secretRefInput("usernameRef", "account.helm_user").optional(),
          passwordRef: secretRefInput("passwordRef", "account.helm_password"),
        }),
      ],
      { error: 'auth.type must be "Anonymous" or "UsernamePassword"' },
    )
    .default({ type: "Anonymous" }),
  delegateSelectors: DelegateSelectors,
});
export type HttpHelmInput = z.output<typeof HttpHelmInput>;

/** Any connector type, its spec given as JSON exactly as the API takes it. */
export const GenericConnectorInput = z.strictObject({
  type: z.string({ error: "type is required" }).min(1, "type cannot be empty"),
  spec: z.record(z.string(), z.unknown(), { error: "spec must be an object" }),
});
export type GenericConnectorInput = z.output<typeof GenericConnectorInput>;

/** The inputs of a {@link Connector}. */
export const ConnectorInputs = z.strictObject({
  ...scopedEntityShape,
  /** The typed container image registry spec (`DockerRegistry`); exactly one spec input is given. */
  dockerRegistry: DockerRegistryInput.optional(),
  /** A GitHub connector (`Github`). */
  github: GithubInput.optional(),
  /** A generic Git connector (`Git`). */
  git: GitInput.optional(),
  /** A Kubernetes cluster connector (`K8sCluster`). */
  kubernetes: KubernetesInput.optional(),
  /** An AWS connector (`Aws`). */
  aws: AwsInput.optional(),
  /** A GCP connector (`Gcp`). */
  gcp: GcpInput.optional(),
  /** A Helm HTTP repository connector (`HttpHelmRepo`). */
  httpHelm: HttpHelmInput.optional(),
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
  /** The connector type on the wire (`DockerRegistry`, `Github`, ..., or `generic.type`). */
  type: z.string(),
  /** The spec as the service returned it. */
  spec: z.record(z.string(), z.unknown()),
  /** Creation time, epoch milliseconds. */
  createdAt: z.number().int(),
  /** Last modification time, epoch milliseconds. */
  lastModifiedAt: z.number().int(),
});
/** Outputs of a {@link Connector}. */
export type ConnectorOutputs = z.output<typeof ConnectorOutputs>;

/** The message of a `secretRefInput` given a literal credential. */
const literalTokenMessage = (field: string) =>
  `${field} looks like a literal token, not a secret reference: store it in a Secret and give its reference (account.<id>, org.<id> or <id>)`;

/** Each `...Ref` member at any depth of a wire spec whose value looks like a literal credential. */
function literalTokenRefs(value: unknown, at: (string | number)[]): InputProblem[] {
  if (Array.isArray(value)) return value.flatMap((v, i) => literalTokenRefs(v, [...at, i]));
  if (value === null || typeof value !== "object") return [];
  return Object.entries(value).flatMap(([k, v]) =>
    k.endsWith("Ref") && typeof v === "string" && LITERAL_TOKEN.test(v)
      ? [{ path: [...at, k], message: literalTokenMessage(k) }]
      : literalTokenRefs(v, [...at, k]),
  );
}

/**
 * A `generic` spec whose `type` has a typed kind (matched without regard to case, as the service
 * reads connector types) is checked by that kind's rules before any request: the members the
 * service cannot do without ({@link CONNECTOR_KIND_SPECS}, the rules the emulator answers 400 by)
 * and the typed kinds' refusal of a literal credential in a `...Ref` member, each named at
 * `generic.spec.<member>`. Otherwise such a spec passed check and preview and failed at `up`.
 */
function genericSpecProblems(generic: GenericConnectorInput): InputProblem[] {
  const type = Object.keys(CONNECTOR_KIND_SPECS).find((t) => t.toLowerCase() === generic.type.toLowerCase());
  const schema = type === undefined ? undefined : CONNECTOR_KIND_SPECS[type];
  if (type === undefined || schema === undefined) return [];
  const at = ["generic", "spec"];
  const parsed = schema.safeParse(generic.spec);
  const problems: InputProblem[] = (parsed.success ? [] : parsed.error.issues).map((issue) => {
    const path = issue.path.map((p) => (typeof p === "symbol" ? String(p) : p));
    const field = String(path.at(-1) ?? "spec");
    const value = path.reduce<unknown>(
      (v, k) => (v !== null && typeof v === "object" ? (v as Wire)[k] : undefined),
      generic.spec,
    );
    const what =
      value === undefined || value === null
        ? `${field} is required`
        : issue.code === "invalid_value"
          ? `${field} must be one of ${issue.values.map((v) => JSON.stringify(v)).join(", ")}`
          : issue.code === "invalid_union"
            ? `${field} ${JSON.stringify(value)} is not one of the options`
            : issue.message.startsWith(`${field} `)
              ? issue.message
              : `${field}: ${issue.message}`;
    return { path: [...at, ...path], message: `${what} (connector type ${type})` };
  });
  return [...problems, ...literalTokenRefs(generic.spec, at)];
}

function connectorProblems(inputs: ConnectorInputs): InputProblem[] {
  const problems: InputProblem[] = [];
  if (inputs.generic !== undefined) problems.push(...genericSpecProblems(inputs.generic));
  if (inputs.project !== undefined && inputs.org === undefined) {
    problems.push({
      path: ["org"],
      message: "a project-level connector needs org as well as project (ref platform §5)",
    });
  }
  const given = SPEC_FIELDS.filter((f) => inputs[f] !== undefined);
  if (given.length !== 1) {
    problems.push({
      // Named at the first spec input, as before the typed kinds (what programs and tests expect).
      path: ["dockerRegistry"],
      message: `exactly one of ${SPEC_FIELDS.slice(0, -1).join(", ")} and generic is required`,
    });
  }
  const oneOf = (path: string[], pair: [string, string], a: unknown, b: unknown) => {
    if ((a === undefined) === (b === undefined))
      problems.push({ path, message: `exactly one of ${pair[0]} and ${pair[1]} is required` });
  };
  const userPair: [string, string] = ["username", "usernameRef"];
  const docker = inputs.dockerRegistry?.auth;
  if (docker?.type === "UsernamePassword")
    oneOf(["dockerRegistry", "auth"], userPair, docker.username, docker.usernameRef);
  const gh = inputs.github?.auth;
  if (gh !== undefined) oneOf(["github", "auth"], userPair, gh.username, gh.usernameRef);
  const git = inputs.git?.auth;
  if (git?.type === "Http") oneOf(["git", "auth"], userPair, git.username, git.usernameRef);
  const helm = inputs.httpHelm?.auth;
  if (helm?.type === "UsernamePassword")
    oneOf(["httpHelm", "auth"], userPair, helm.username, helm.usernameRef);
  const aws = inputs.aws?.credential;
  if (aws?.type === "ManualConfig")
    oneOf(["aws", "credential"], ["accessKey", "accessKeyRef"], aws.accessKey, aws.accessKeyRef);
  // A credential inherited from the delegate needs the delegate named: TFP's k8s_cluster.go and
  // aws.go make `delegate_selectors` required in `inherit_from_delegate` (and aws `irsa`), gcp.go too.
  for (const f of ["kubernetes", "aws", "gcp"] as const) {
    const spec = inputs[f];
    if (
      spec !== undefined &&
      spec.credential.type !== "ManualConfig" &&
      spec.delegateSelectors.length === 0
    ) {
      problems.push({
        path: [f, "delegateSelectors"],
        message: `a ${spec.credential.type} credential needs at least one delegate selector`,
      });
    }
  }
  return problems;
}

// ---------------------------------------------------------------------------------------------
// Wire mapping

/**
 * The typed spec inputs, in the order messages name them; `generic` last.
 * @internal
 */
export const SPEC_FIELDS = [
  "dockerRegistry",
  "github",
  "git",
  "kubernetes",
  "aws",
  "gcp",
  "httpHelm",
  "generic",
] as const satisfies readonly (keyof ConnectorInputs)[];
/** The typed spec inputs (every spec input but `generic`). */
export type TypedSpecField = Exclude<(typeof SPEC_FIELDS)[number], "generic">;
type SpecInputs = Pick<ConnectorInputs, (typeof SPEC_FIELDS)[number]>;

type Wire = Record<string, unknown>;
const obj = (v: unknown): Wire => (v !== null && typeof v === "object" ? (v as Wire) : {});
/** `{k: v}` when `v` is given, else `{}`: optional members are left out of the wire. */
const opt = (k: string, v: unknown): Wire => (v === undefined || v === null ? {} : { [k]: v });
/** `{username}` or `{usernameRef}`, whichever is given. */
const userOf = (a: { username?: string | undefined; usernameRef?: string | undefined }): Wire =>
  a.username !== undefined ? { username: a.username } : { usernameRef: a.usernameRef };
/** The user name members of a wire spec, as inputs. */
const userFrom = (spec: Wire): Wire => ({
  ...opt("username", spec.username),
  ...opt("usernameRef", spec.usernameRef),
});

/**
 * Each typed kind: its wire type, its input schema, the wire spec of its inputs, and the inputs
 * of a wire spec (before parsing: a live spec that does not parse is shown as generic).
 */
const TYPED: {
  [F in TypedSpecField]: {
    type: string;
    schema: z.ZodType<NonNullable<ConnectorInputs[F]>>;
    toWire: (i: NonNullable<ConnectorInputs[F]>) => Wire;
    fromWire: (spec: Wire) => unknown;
  };
} = {
  dockerRegistry: {
    type: DOCKER_REGISTRY,
    schema: DockerRegistryInput,
    toWire: (d) => ({
      dockerRegistryUrl: d.url,
      providerType: d.providerType,
      auth:
        d.auth.type === "Anonymous"
          ? { type: "Anonymous" }
          : { type: "UsernamePassword", spec: { ...userOf(d.auth), passwordRef: d.auth.passwordRef } },
      delegateSelectors: [...d.delegateSelectors],
      executeOnDelegate: d.executeOnDelegate,
    }),
    fromWire: (spec) => {
      const auth = obj(spec.auth);
      return {
        url: spec.dockerRegistryUrl,
        providerType: spec.providerType,
        auth:
          auth.type === "UsernamePassword"
            ? {
                type: "UsernamePassword",
                ...userFrom(obj(auth.spec)),
                passwordRef: obj(auth.spec).passwordRef,
              }
            : { type: auth.type },
        delegateSelectors: spec.delegateSelectors ?? [],
        executeOnDelegate: spec.executeOnDelegate ?? true,
      };
    },
  },
  // Go SDK GithubConnector: the connection type is the spec's `type`; authentication
  // {type: Http, spec: {type: UsernameToken, spec: {username | usernameRef, tokenRef}}};
  // apiAccess {type: Token, spec: {tokenRef}}.
  github: {
    type: "Github",
    schema: GithubInput,
    toWire: (g) => ({
      url: g.url,
      type: g.connectionType,
      ...opt("validationRepo", g.validationRepo),
      authentication: {
        type: "Http",
        spec: { type: "UsernameToken", spec: { ...userOf(g.auth), tokenRef: g.auth.tokenRef } },
      },
      ...(g.apiAccess !== undefined
        ? { apiAccess: { type: "Token", spec: { tokenRef: g.apiAccess.tokenRef } } }
        : {}),
      delegateSelectors: [...g.delegateSelectors],
      executeOnDelegate: g.executeOnDelegate,
    }),
    fromWire: (spec) => {
      const authn = obj(spec.authentication);
      const http = obj(authn.spec);
      const token = obj(http.spec);
      const api = obj(spec.apiAccess);
      return {
        url: spec.url,
        connectionType: spec.type,
        ...opt("validationRepo", spec.validationRepo),
        auth:
          authn.type === "Http" && http.type === "UsernameToken"
            ? { ...userFrom(token), tokenRef: token.tokenRef }
            : undefined,
        ...(spec.apiAccess != null
          ? { apiAccess: api.type === "Token" ? { tokenRef: obj(api.spec).tokenRef } : undefined }
          : {}),
        delegateSelectors: spec.delegateSelectors ?? [],
        executeOnDelegate: spec.executeOnDelegate ?? true,
      };
    },
  },
  // Go SDK GitConfig: url, connectionType, branchName, validationRepo, type Http | Ssh with spec
  // {username | usernameRef, passwordRef} or {sshKeyRef}.
  git: {
    type: "Git",
    schema: GitInput,
    toWire: (g) => ({
      url: g.url,
      connectionType: g.connectionType,
      ...opt("branchName", g.branch),
      ...opt("validationRepo", g.validationRepo),
      type: g.auth.type,
      spec:
        g.auth.type === "Http"
          ? { ...userOf(g.auth), passwordRef: g.auth.passwordRef }
          : { sshKeyRef: g.auth.sshKeyRef },
      delegateSelectors: [...g.delegateSelectors],
      executeOnDelegate: g.executeOnDelegate,
    }),
    fromWire: (spec) => {
      const auth = obj(spec.spec);
      return {
        url: spec.url,
        connectionType: spec.connectionType,
        ...opt("branch", spec.branchName),
        ...opt("validationRepo", spec.validationRepo),
        auth:
          spec.type === "Ssh"
            ? { type: "Ssh", sshKeyRef: auth.sshKeyRef }
            : { type: spec.type, ...userFrom(auth), passwordRef: auth.passwordRef },
        delegateSelectors: spec.delegateSelectors ?? [],
        executeOnDelegate: spec.executeOnDelegate ?? true,
      };
    },
  },
  // Go SDK KubernetesClusterConfig: credential {type: InheritFromDelegate} (no spec) or
  // {type: ManualConfig, spec: {masterUrl, auth: {type: ServiceAccount, spec: {serviceAccountTokenRef, caCertRef?}}}}.
  kubernetes: {
    type: "K8sCluster",
    schema: KubernetesInput,
    toWire: (k) => ({
      credential:
        k.credential.type === "InheritFromDelegate"
          ? { type: "InheritFromDelegate" }
          : {
              type: "ManualConfig",
              spec: {
                masterUrl: k.credential.masterUrl,
                auth: {
                  type: "ServiceAccount",
                  spec: {
                    serviceAccountTokenRef: k.credential.serviceAccountTokenRef,
                    ...opt("caCertRef", k.credential.caCertRef),
                  },
                },
              },
            },
      delegateSelectors: [...k.delegateSelectors],
    }),
    fromWire: (spec) => {
      const cred = obj(spec.credential);
      const manual = obj(cred.spec);
      const auth = obj(manual.auth);
      const sa = obj(auth.spec);
      return {
        credential:
          cred.type === "ManualConfig"
            ? auth.type === "ServiceAccount"
              ? {
                  type: "ManualConfig",
                  masterUrl: manual.masterUrl,
                  serviceAccountTokenRef: sa.serviceAccountTokenRef,
                  ...opt("caCertRef", sa.caCertRef),
                }
              : undefined
            : { type: cred.type },
        delegateSelectors: spec.delegateSelectors ?? [],
      };
    },
  },
  // Go SDK AwsConnector: credential {type, spec?: {accessKey | accessKeyRef, secretKeyRef}, region?}.
  aws: {
    type: "Aws",
    schema: AwsInput,
    toWire: (a) => ({
      credential: {
        type: a.credential.type,
        ...(a.credential.type === "ManualConfig"
          ? {
              spec: {
                ...(a.credential.accessKey !== undefined
                  ? { accessKey: a.credential.accessKey }
                  : { accessKeyRef: a.credential.accessKeyRef }),
                secretKeyRef: a.credential.secretKeyRef,
              },
            }
          : {}),
        ...opt("region", a.region),
      },
      delegateSelectors: [...a.delegateSelectors],
      executeOnDelegate: a.executeOnDelegate,
    }),
    fromWire: (spec) => {
      const cred = obj(spec.credential);
      const manual = obj(cred.spec);
      return {
        credential:
          cred.type === "ManualConfig"
            ? {
                type: "ManualConfig",
                ...opt("accessKey", manual.accessKey),
                ...opt("accessKeyRef", manual.accessKeyRef),
                secretKeyRef: manual.secretKeyRef,
              }
            : { type: cred.type },
        ...opt("region", cred.region),
        delegateSelectors: spec.delegateSelectors ?? [],
        executeOnDelegate: spec.executeOnDelegate ?? true,
      };
    },
  },
  // Go SDK GcpConnector: credential {type: InheritFromDelegate} or {type: ManualConfig, spec: {secretKeyRef}}.
  gcp: {
    type: "Gcp",
    schema: GcpInput,
    toWire: (g) => ({
      credential:
        g.credential.type === "ManualConfig"
          ? { type: "ManualConfig", spec: { secretKeyRef: g.credential.secretKeyRef } }
          : { type: g.credential.type },
      delegateSelectors: [...g.delegateSelectors],
      executeOnDelegate: g.executeOnDelegate,
    }),
    fromWire: (spec) => {
      const cred = obj(spec.credential);
      return {
        credential:
          cred.type === "ManualConfig"
            ? { type: "ManualConfig", secretKeyRef: obj(cred.spec).secretKeyRef }
            : { type: cred.type },
        delegateSelectors: spec.delegateSelectors ?? [],
        executeOnDelegate: spec.executeOnDelegate ?? true,
      };
    },
  },
  // Go SDK HttpHelmConnector: helmRepoUrl, auth {type: Anonymous} or {type: UsernamePassword,
  // spec: {username | usernameRef, passwordRef}}, delegateSelectors (no executeOnDelegate).
  httpHelm: {
    type: "HttpHelmRepo",
    schema: HttpHelmInput,
    toWire: (h) => ({
      helmRepoUrl: h.url,
      auth:
        h.auth.type === "Anonymous"
          ? { type: "Anonymous" }
          : { type: "UsernamePassword", spec: { ...userOf(h.auth), passwordRef: h.auth.passwordRef } },
      delegateSelectors: [...h.delegateSelectors],
    }),
    fromWire: (spec) => {
      const auth = obj(spec.auth);
      return {
        url: spec.helmRepoUrl,
        auth:
          auth.type === "UsernamePassword"
            ? {
                type: "UsernamePassword",
                ...userFrom(obj(auth.spec)),
                passwordRef: obj(auth.spec).passwordRef,
              }
            : { type: auth.type ?? "Anonymous" },
        delegateSelectors: spec.delegateSelectors ?? [],
      };
    },
  },
};

/**
 * The wire connector type of each typed spec input.
 * @internal
 */
export const TYPED_CONNECTOR_TYPES: Readonly<Record<TypedSpecField, string>> = Object.fromEntries(
  Object.entries(TYPED).map(([f, k]) => [f, k.type]),
) as Record<TypedSpecField, string>;

const typedFields = Object.keys(TYPED) as TypedSpecField[];

/**
 * The connector type these inputs send: the typed kind's, or `generic.type`.
 * @internal
 */
export function wireType(inputs: Partial<SpecInputs>): string | undefined {
  const f = typedFields.find((k) => inputs[k] !== undefined);
  return f !== undefined ? TYPED[f].type : inputs.generic?.type;
}

/**
 * The connector type and spec sent for these inputs.
 * @internal
 */
export function wireSpec(inputs: Partial<SpecInputs>): { type: string; spec: Record<string, unknown> } {
  for (const f of typedFields) {
    const value = inputs[f];
    if (value !== undefined) {
      const kind = TYPED[f] as { type: string; toWire: (i: unknown) => Wire };
      return { type: kind.type, spec: kind.toWire(value) };
    }
  }
  return { type: inputs.generic!.type, spec: inputs.generic!.spec };
}

/**
 * Reads a live spec back into the typed input of its kind, with the defaults applied (so a diff
 * compares meaning); `undefined` when the type has no typed input or the spec does not fit it.
 * @internal
 */
export function typedFromWire(
  type: string,
  spec: Record<string, unknown>,
): { field: TypedSpecField; value: NonNullable<ConnectorInputs[TypedSpecField]> } | undefined {
  const field = typedFields.find((f) => TYPED[f].type === type);
  if (field === undefined) return undefined;
  const parsed = TYPED[field].schema.safeParse(TYPED[field].fromWire(spec));
  return parsed.success ? { field, value: parsed.data } : undefined;
}

/**
 * Reads a live DockerRegistry spec back into the typed input; `undefined` when it does not fit.
 * @internal
 */
export function dockerRegistryFromWire(
  type: string,
  spec: Record<string, unknown>,
): DockerRegistryInput | undefined {
  const typed = type === DOCKER_REGISTRY ? typedFromWire(type, spec) : undefined;
  return typed?.value as DockerRegistryInput | undefined;
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
  fields: ["org", "project", "identifier", "name", "description", "tags", ...SPEC_FIELDS],
  replaceOnChange: connectorReplaceOnChange,
};

// ---------------------------------------------------------------------------------------------
// Lifecycle

/**
 * The resource id, in the peer providers' import-id shapes (ref §11): `<identifier>`,
 * `<org>/<identifier>` or `<org>/<project>/<identifier>` (`../core/platform-scope.ts`, shared with
 * every scoped entity).
 * @internal
 */
export const connectorId: (inputs: Pick<ConnectorInputs, "org" | "project" | "identifier">) => string =
  scopedId;

/**
 * Reads a connector id back into its scope and identifier.
 * @internal
 */
export const parseConnectorId = parseScopedId;

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
  for (const f of SPEC_FIELDS) delete outs[f];
  const typed = inputs.generic === undefined ? typedFromWire(c.type, spec) : undefined;
  if (typed !== undefined) (outs as Record<string, unknown>)[typed.field] = typed.value;
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
  const newType = wireType(news);
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

  // The `type` replacement of `diff` is decided by the spec input the program gives.
  replaceReasons: { type: SPEC_FIELDS },

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
    const hasSpec = SPEC_FIELDS.some((f) => prev?.[f] !== undefined);
    const old = inputsOf({
      ...(prev ?? {}),
      ...scopeOf(key),
      identifier: key.identifier,
      name: c.name,
      ...(hasSpec ? {} : { generic: { type: c.type, spec: c.spec } }),
    });
    if (!hasSpec && typedFromWire(c.type, c.spec) !== undefined) delete old.generic;
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
        // The spec inputs are spellings of one field: the one written wins.
        if (SPEC_FIELDS.some((f) => fields.includes(f))) {
          for (const f of SPEC_FIELDS) if (news[f] === undefined) delete merged[f];
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

/** The kind's one definition: what every registry, door, doc and kind-wide test reads (`../core/kind.ts`). */
export const kind = defineKind({
  resource: Connector,
  impl,
  area: "platform",
  replaceOnChange: connectorReplaceOnChange,
  importId: { form: "[<org>/[<project>/]]<identifier>", example: "default/payments/registry" },
  doc: {
    what: "a platform connector: typed Docker registry, GitHub, Git, Kubernetes cluster, AWS, GCP or Helm HTTP repository spec (credentials only as secret references), or generic JSON spec",
    replaces: "identifier, scope, connector type",
    updates: "the rest (PUT)",
  },
  example: {
    inputs: {
      org: "default",
      project: "payments",
      identifier: "dockerhub",
      name: "Docker Hub",
      dockerRegistry: {
        url: "https://index.docker.io/v2/",
        providerType: "DockerHub",
        auth: { type: "Anonymous" },
      },
    },
    refs: { project: { kind: "Project", output: "identifier", shared: true } },
    unique: ["identifier", "name"],
  },
});
