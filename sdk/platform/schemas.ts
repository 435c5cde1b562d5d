/**
 * Zod schemas for the platform API (`../shared/spec/platform-api.md`): projects, connectors and
 * YAML pipelines, the success envelope and both error shapes.
 *
 * Where the spec says "not shown", shapes and rules come from
 * `../shared/reference/platform-api-behaviour.md` (cited as "ref §N").
 * @module
 */
import { z } from "zod";
import { dataRecord } from "../core/data-record";
import { secretField } from "../core/secret-fields";
import { IDENTIFIER_PATTERN, IDENTIFIER_RULE, isReservedIdentifier } from "./pipeline/grammar";

// The identifier grammar is the pipeline package's (`./pipeline/grammar.ts`): one pattern and one
// list of reserved words for every platform identifier, pipelines' included (ref §3).
export { IDENTIFIER_PATTERN, RESERVED_IDENTIFIERS } from "./pipeline/grammar";

/** Entity identifiers (ref §3): `^[a-zA-Z_][0-9a-zA-Z_$]{0,127}$`, minus reserved words. */
export const Identifier = z
  .string({ error: "identifier is required" })
  .min(1, "identifier cannot be empty")
  .regex(IDENTIFIER_PATTERN, `identifier ${IDENTIFIER_RULE}`)
  .refine((id) => !isReservedIdentifier(id), {
    error: (iss) => `${String(iss.input)} is a keyword, so cannot be used`,
  });

/** Entity names (ref §3): non-blank, at most 64 characters (128 for pipelines), `[A-Za-z0-9 _./-]`. */
export const entityName = (max = 64) =>
  z
    .string({ error: "name is required" })
    .trim()
    .min(1, "name cannot be empty.")
    .max(max, `name cannot be more than ${max} characters long.`)
    .regex(
      /^[A-Za-z0-9 _./-]+$/,
      "name can only contain alphanumeric, space, hyphen, underscore, dot and slash characters.",
    );

export const HEX_COLOUR = /^#[0-9a-fA-F]{6}$/;
/** Default project colour when none is given (ref §4: HARNESS_BLUE). */
export const DEFAULT_PROJECT_COLOUR = "#0063F7";
export const DEFAULT_ORG = "default";

/**
 * Key/value tags. A key is user data: `__proto__`, `constructor` and `prototype` are keys like any
 * other, kept through parsing (`dataRecord`, `sdk/core/data-record.ts`).
 */
export const Tags = dataRecord(z.string());

// ---------------------------------------------------------------------------------------------
// Envelopes and errors (spec §2 "Success envelope", ref §1-2)

export const envelope = <T extends z.ZodType>(data: T) =>
  z.looseObject({
    status: z.literal("SUCCESS"),
    data,
    metaData: z.unknown().nullable().optional(),
    correlationId: z.string(),
  });

/** FailureDTO: bean-validation failures with one entry per field (ref §2). */
export const FailureBody = z.looseObject({
  status: z.literal("FAILURE"),
  code: z.string(),
  message: z.string(),
  correlationId: z.string(),
  errors: z.array(z.looseObject({ fieldId: z.string(), error: z.string() })).default([]),
});
/** ErrorDTO: service errors (ref §2). */
export const ErrorBody = z.looseObject({
  status: z.literal("ERROR"),
  code: z.string(),
  message: z.string(),
  correlationId: z.string(),
  detailedMessage: z.string().nullable().optional(),
  responseMessages: z
    .array(z.looseObject({ code: z.string(), level: z.string(), message: z.string() }))
    .default([]),
  metadata: z.unknown().optional(),
});
export const PlatformErrorBody = z.union([FailureBody, ErrorBody]);
export type PlatformErrorBody = z.infer<typeof PlatformErrorBody>;

// ---------------------------------------------------------------------------------------------
// Projects (spec §2, ref §4)

export const ProjectBody = z.object({
  orgIdentifier: Identifier.default(DEFAULT_ORG),
  identifier: Identifier,
  name: entityName(),
  color: z.string().regex(HEX_COLOUR, "color must be a hex colour #RRGGBB").default(DEFAULT_PROJECT_COLOUR),
  modules: z.array(z.string()).default([]),
  description: z.string().max(1024, "description must be at most 1024 characters").default(""),
  tags: Tags.default({}),
});
export type ProjectBody = z.input<typeof ProjectBody>;

export const Project = z.looseObject({
  orgIdentifier: z.string(),
  identifier: z.string(),
  name: z.string(),
  color: z.string(),
  modules: z.array(z.string()).default([]),
  description: z
    .string()
    .nullable()
    .transform((d) => d ?? ""),
  tags: Tags.nullable().transform((t) => t ?? {}),
});
export type Project = z.infer<typeof Project>;

export const ProjectData = z.looseObject({
  project: Project,
  createdAt: z.number().int(),
  lastModifiedAt: z.number().int(),
  isFavorite: z.boolean().optional(),
});
export type ProjectData = z.infer<typeof ProjectData>;

// ---------------------------------------------------------------------------------------------
// Organizations (Go SDK `harness/nextgen/model_organization.go`, `model_organization_request.go`,
// `model_organization_response.go`)

/** The organization of a create or replace: `OrganizationRequest.organization`. */
export const OrganizationBody = z.object({
  identifier: Identifier,
  name: entityName(),
  description: z.string().max(1024, "description must be at most 1024 characters").default(""),
  tags: Tags.default({}),
});
export type OrganizationBody = z.input<typeof OrganizationBody>;

export const Organization = z.looseObject({
  identifier: z.string(),
  name: z.string(),
  description: z
    .string()
    .nullable()
    .optional()
    .transform((d) => d ?? ""),
  tags: Tags.nullable()
    .optional()
    .transform((t) => t ?? {}),
});
export type Organization = z.infer<typeof Organization>;

/** `data` of an organization answer (`OrganizationResponse`), and one item of the list. */
export const OrganizationData = z.looseObject({
  organization: Organization,
  createdAt: z.number().int(),
  lastModifiedAt: z.number().int(),
  harnessManaged: z.boolean().optional(),
});
export type OrganizationData = z.infer<typeof OrganizationData>;

// ---------------------------------------------------------------------------------------------
// Connectors (spec §2, ref §5)

/** Registry providers of the container image registry connector (ref §5). */
export const DOCKER_PROVIDER_TYPES = ["DockerHub", "Harbor", "Quay", "Other"] as const;

export const DockerAuth = z.discriminatedUnion("type", [
  z.object({ type: z.literal("Anonymous") }),
  z.object({
    type: z.literal("UsernamePassword"),
    spec: z
      .object({
        username: z.string().min(1).optional(),
        usernameRef: z.string().min(1).optional(),
        /** A secret reference such as `account.docker_pw`, never the password itself. */
        passwordRef: z.string().min(1, "passwordRef must name a secret"),
      })
      .refine((s) => (s.username === undefined) !== (s.usernameRef === undefined), {
        message: "exactly one of username and usernameRef is required",
      }),
  }),
]);

export const DockerRegistrySpec = z.object({
  connectorType: z.literal("DockerConnector").optional(),
  dockerRegistryUrl: z.url("dockerRegistryUrl must be a URL"),
  providerType: z.enum(DOCKER_PROVIDER_TYPES),
  auth: DockerAuth,
  delegateSelectors: z.array(z.string()).optional(),
  executeOnDelegate: z.boolean().optional(),
});
export type DockerRegistrySpec = z.infer<typeof DockerRegistrySpec>;

const requiredMember = z.string().min(1);
const anyObject = z.record(z.string(), z.unknown());

/**
 * The spec each typed connector kind cannot do without, by connector type: `DockerRegistry`'s
 * (above) and the Go SDK's non-`omitempty` members of `GithubConnector` (url, type, authentication
 * {type, spec}), `GitConfig` (url, connectionType, type, spec), `KubernetesClusterConfig`
 * (credential {type}; ManualConfig: spec {masterUrl, auth {type, spec}}), `AwsConnector`
 * (credential {type}; ManualConfig: spec {secretKeyRef}), `GcpConnector` (credential {type};
 * ManualConfig: spec {secretKeyRef}) and `HttpHelmConnector` (helmRepoUrl). Deliberately loose
 * beyond those: other members are echoed as sent. The emulator refuses a connector whose spec
 * misses them (400, every violation at once); the provider's `Connector` check applies them to a
 * `generic` spec of these types before any request.
 */
export const CONNECTOR_KIND_SPECS: Readonly<Record<string, z.ZodType>> = {
  DockerRegistry: DockerRegistrySpec,
  Github: z.looseObject({
    url: requiredMember,
    type: z.enum(["Account", "Repo"]),
    authentication: z.looseObject({ type: z.enum(["Http", "Ssh"]), spec: anyObject }),
  }),
  Git: z.looseObject({
    url: requiredMember,
    connectionType: z.enum(["Account", "Repo"]),
    type: z.enum(["Http", "Ssh"]),
    spec: anyObject,
  }),
  K8sCluster: z.looseObject({
    credential: z.discriminatedUnion("type", [
      z.looseObject({ type: z.literal("InheritFromDelegate") }),
      z.looseObject({
        type: z.literal("ManualConfig"),
        spec: z.looseObject({
          masterUrl: requiredMember,
          auth: z.looseObject({ type: requiredMember, spec: anyObject }),
        }),
      }),
    ]),
  }),
  Aws: z.looseObject({
    credential: z.discriminatedUnion("type", [
      z.looseObject({ type: z.enum(["InheritFromDelegate", "Irsa", "OidcAuthentication"]) }),
      z.looseObject({
        type: z.literal("ManualConfig"),
        spec: z.looseObject({ secretKeyRef: requiredMember }),
      }),
    ]),
  }),
  Gcp: z.looseObject({
    credential: z.discriminatedUnion("type", [
      z.looseObject({ type: z.enum(["InheritFromDelegate", "OidcAuthentication"]) }),
      z.looseObject({
        type: z.literal("ManualConfig"),
        spec: z.looseObject({ secretKeyRef: requiredMember }),
      }),
    ]),
  }),
  HttpHelmRepo: z.looseObject({ helmRepoUrl: requiredMember }),
};

export const ConnectorBody = z.object({
  name: entityName(128),
  identifier: Identifier,
  description: z.string().max(1024).default(""),
  accountIdentifier: z.string().optional(),
  orgIdentifier: Identifier.optional(),
  projectIdentifier: Identifier.optional(),
  tags: Tags.default({}),
  type: z.string().min(1, "type is required"),
  spec: z.record(z.string(), z.unknown()),
});
export type ConnectorBody = z.input<typeof ConnectorBody>;

export const Connector = z.looseObject({
  name: z.string(),
  identifier: z.string(),
  description: z
    .string()
    .nullable()
    .optional()
    .transform((d) => d ?? ""),
  accountIdentifier: z.string().optional(),
  orgIdentifier: z.string().nullable().optional(),
  projectIdentifier: z.string().nullable().optional(),
  tags: Tags.nullable()
    .optional()
    .transform((t) => t ?? {}),
  type: z.string(),
  spec: z.record(z.string(), z.unknown()),
});
export type Connector = z.infer<typeof Connector>;

export const ConnectorData = z.looseObject({
  connector: Connector,
  createdAt: z.number().int(),
  lastModifiedAt: z.number().int(),
  status: z.record(z.string(), z.unknown()).nullable().optional(),
  activityDetails: z.record(z.string(), z.unknown()).nullable().optional(),
  harnessManaged: z.boolean().optional(),
  gitDetails: z.record(z.string(), z.unknown()).nullable().optional(),
  entityValidityDetails: z.record(z.string(), z.unknown()).nullable().optional(),
  governanceMetadata: z.record(z.string(), z.unknown()).nullable().optional(),
  isFavorite: z.boolean().optional(),
});
export type ConnectorData = z.infer<typeof ConnectorData>;

// ---------------------------------------------------------------------------------------------
// Pipelines (spec §2, ref §6-7)

export const PipelineSaveData = z.looseObject({
  identifier: z.string(),
  governanceMetadata: z.record(z.string(), z.unknown()).nullable().optional(),
});
export type PipelineSaveData = z.infer<typeof PipelineSaveData>;

/** GET pipeline data (ref §6.2): the stored YAML verbatim plus validity details. */
export const PipelineGetData = z.looseObject({
  yamlPipeline: z.string(),
  entityValidityDetails: z
    .looseObject({ valid: z.boolean(), invalidYaml: z.string().nullable().optional() })
    .optional(),
  modules: z.array(z.string()).optional(),
  storeType: z.string().optional(),
});
export type PipelineGetData = z.infer<typeof PipelineGetData>;

export const BooleanData = z.boolean();

/**
 * The filter body of the pipeline list, `POST /pipeline/api/pipelines/list` (ref §8): the Go SDK's
 * `PipelineFilterProperties` (harness-go-sdk v0.8.24 `nextgen/model_pipeline_filter_properties.go`),
 * whose `filterType` names the filter kind (`PipelineSetup` for pipelines). `name` and
 * `description` match as case-insensitive substrings, `pipelineIdentifiers` exactly,
 * `pipelineTags` each `{key, value}` as a tag of the pipeline (an empty value: the key alone).
 */
export const PipelineListFilter = z.looseObject({
  filterType: z.literal("PipelineSetup", { error: "filterType must be PipelineSetup" }),
  pipelineIdentifiers: z.array(z.string()).nullable().optional(),
  name: z.string().nullable().optional(),
  pipelineName: z.string().nullable().optional(),
  description: z.string().nullable().optional(),
  pipelineTags: z
    .array(z.object({ key: z.string(), value: z.string().nullable().optional() }))
    .nullable()
    .optional(),
  tags: Tags.nullable().optional(),
  moduleProperties: z.record(z.string(), z.unknown()).nullable().optional(),
  repoName: z.string().nullable().optional(),
});
export type PipelineListFilter = z.infer<typeof PipelineListFilter>;

/**
 * One pipeline of the list (`PMSPipelineSummaryResponseDTO`, the Go SDK's
 * `model_pms_pipeline_summary_response.go`): what the YAML says, the version and times, the
 * modules and stage names; never the YAML itself.
 */
export const PipelineSummary = z.looseObject({
  identifier: z.string(),
  name: z.string(),
  description: z.string().nullable().optional(),
  tags: Tags.nullable().optional(),
  version: z.number().int(),
  numOfStages: z.number().int(),
  createdAt: z.number().int(),
  lastUpdatedAt: z.number().int(),
  modules: z.array(z.string()),
  stageNames: z.array(z.string()),
  storeType: z.string().optional(),
  entityValidityDetails: z.looseObject({ valid: z.boolean() }).optional(),
});
export type PipelineSummary = z.infer<typeof PipelineSummary>;

// ---------------------------------------------------------------------------------------------
// Lists (ref §8): the NG page shape `{content, pageIndex, pageSize, totalPages, totalItems, ...}`

/** NG list page (ref §8, `PageResponse`). */
export const pageOf = <T extends z.ZodType>(item: T) =>
  z.looseObject({
    content: z.array(item),
    pageIndex: z.number().int(),
    pageSize: z.number().int(),
    totalPages: z.number().int(),
    totalItems: z.number().int(),
    pageItemCount: z.number().int().optional(),
    empty: z.boolean().optional(),
  });

/**
 * The Spring `Page` the pipeline list answers (ref §8; the Go SDK's
 * `model_page_pms_pipeline_summary_response.go`): `number` counts from 0, `size` is the page size
 * asked for, `totalElements` the matches of every page.
 */
export const springPageOf = <T extends z.ZodType>(item: T) =>
  z.looseObject({
    content: z.array(item),
    number: z.number().int(),
    size: z.number().int(),
    totalPages: z.number().int(),
    totalElements: z.number().int(),
    numberOfElements: z.number().int().optional(),
    first: z.boolean().optional(),
    last: z.boolean().optional(),
    empty: z.boolean().optional(),
  });

/** Page-size default of the pipeline list (`size`, the Go SDK's PipelinesApi docs: "default to 25"). */
export const PIPELINE_PAGE_DEFAULT = 25;

/** Page-size limit of the NG lists: connectors default to 100 (ref §8); the SDK caps both at it. */
export const PLATFORM_PAGE_MAX = 100;

// ---------------------------------------------------------------------------------------------
// v2 entities: services, environments, infrastructure definitions, secrets, input
// sets and triggers. The spec shows none of them; paths, bodies and field names are those of the
// public Go SDK (`harness/harness-go-sdk` `harness/nextgen/model_*.go`, `api_*.go`) and the
// Terraform provider (`harness/terraform-provider-harness` `internal/service/...`), cited per schema.

/** A scope identifier that may be left out (account or organization level); blank reads as absent. */
const OptionalScopeId = Identifier.optional();
/** A description as the NG DTOs bound it (ref §3 `ProjectDTO`: `@Size(max=1024)`). */
const Description = z.string().max(1024, "description must be at most 1024 characters").default("");
/** A YAML field's text; the entity's own schema checks what it says. */
const YamlText = z.string().min(1, "yaml cannot be empty");

/** A YAML object whose fields the service reads; unknown fields are kept (the service stores YAML verbatim). */
const yamlEntity = <T extends z.ZodRawShape>(shape: T) =>
  z.looseObject({
    name: entityName(128),
    identifier: Identifier,
    orgIdentifier: z.string().optional(),
    projectIdentifier: z.string().optional(),
    description: z.string().nullable().optional(),
    tags: z
      .record(z.string(), z.union([z.string(), z.null()]))
      .nullable()
      .optional(),
    ...shape,
  });

/** What every v2 response item shares: the entity's scope, name, description and tags. */
const entityDetails = <T extends z.ZodRawShape>(shape: T) =>
  z.looseObject({
    accountId: z.string().optional(),
    identifier: z.string(),
    orgIdentifier: z.string().nullable().optional(),
    projectIdentifier: z.string().nullable().optional(),
    name: z.string(),
    description: z
      .string()
      .nullable()
      .optional()
      .transform((d) => d ?? ""),
    tags: Tags.nullable()
      .optional()
      .transform((t) => t ?? {}),
    ...shape,
  });

/** `data` of an NG CD entity response: the entity under its key, and its timestamps. */
const entityData = <K extends string, T extends z.ZodType>(key: K, entity: T) =>
  z.looseObject({
    [key]: entity,
    createdAt: z.number().int().optional(),
    lastModifiedAt: z.number().int().optional(),
  } as { [P in K]: T } & {
    createdAt: z.ZodOptional<z.ZodNumber>;
    lastModifiedAt: z.ZodOptional<z.ZodNumber>;
  });

/**
 * The JSON body of an NG CD entity's create and update (SDK `ServiceRequest`,
 * `EnvironmentRequest`, `InfrastructureRequest`): its identifier, scope, name, description, tags
 * and YAML as a string field, plus the kind's own members.
 */
const ngRequest = <T extends z.ZodRawShape>(shape: T) =>
  z
    .object({
      identifier: Identifier,
      orgIdentifier: OptionalScopeId,
      projectIdentifier: OptionalScopeId,
      name: entityName(128).optional(),
      description: Description,
      tags: Tags.default({}),
      yaml: YamlText.optional(),
    })
    .extend(shape);

// ---- Service (SDK `model_service_request.go`, `model_service_response_details.go`; TFP `resource_service.go`)

/** Deployment types of a service definition (SDK `enum_service_deployment_types.go`; the emulator types Kubernetes in full). */
export const SERVICE_DEFINITION_TYPES = [
  "Kubernetes",
  "NativeHelm",
  "Ssh",
  "WinRm",
  "ServerlessAwsLambda",
  "AzureWebApp",
  "CustomDeployment",
  "ECS",
  "Elastigroup",
  "TAS",
  "Asg",
  "GoogleCloudFunctions",
  "AwsLambda",
  "AWS_SAM",
  "GoogleManagedInstanceGroup",
] as const;

/** One manifest of a Kubernetes service: `{manifest: {identifier, type, spec: {store: {type, spec}}}}`. */
export const ServiceManifest = z.looseObject({
  manifest: z.looseObject({
    identifier: Identifier,
    type: z.string().min(1, "manifest type is required"),
    spec: z.record(z.string(), z.unknown()),
  }),
});

/** A Kubernetes service's artifacts: `{primary: {primaryArtifactRef?, sources: [{identifier, type, spec}]}, sidecars?}`. */
export const ServiceArtifacts = z.looseObject({
  primary: z
    .looseObject({
      primaryArtifactRef: z.string().optional(),
      sources: z.array(
        z.looseObject({
          identifier: Identifier,
          type: z.string().min(1),
          spec: z.record(z.string(), z.unknown()),
        }),
      ),
    })
    .optional(),
  sidecars: z.array(z.unknown()).optional(),
});

/** The service YAML: `service: {name, identifier, ..., serviceDefinition: {type, spec: {manifests, artifacts, variables}}}`. */
export const ServiceYaml = z.looseObject({
  service: yamlEntity({
    serviceDefinition: z
      .looseObject({
        type: z.enum(SERVICE_DEFINITION_TYPES),
        spec: z.looseObject({
          manifests: z.array(ServiceManifest).optional(),
          artifacts: ServiceArtifacts.optional(),
          variables: z.array(z.unknown()).optional(),
        }),
      })
      .optional(),
    gitOpsEnabled: z.boolean().optional(),
  }),
});
export type ServiceYaml = z.infer<typeof ServiceYaml>;

/** Body of `POST|PUT /ng/api/servicesV2` (SDK `ServiceRequest`): scope in the body, YAML as a string field. */
export const ServiceRequest = ngRequest({});
export type ServiceRequest = z.input<typeof ServiceRequest>;

/** `data.service` of a service response (SDK `ServiceResponseDetails`). */
export const Service = entityDetails({ deleted: z.boolean().optional(), yaml: z.string().optional() });
export type Service = z.infer<typeof Service>;

// ---- Environment (SDK `model_environment_request.go`, `model_environment_response_details.go`, `enum_environment_types.go`)

/** Environment types (SDK `EnvironmentTypeValues`). */
export const PLATFORM_ENVIRONMENT_TYPES = ["PreProduction", "Production"] as const;

/** One variable of an environment (or service): `{name, type, value, description?}`. */
export const NgVariable = z.looseObject({
  name: z.string().min(1, "variable name is required"),
  type: z.enum(["String", "Secret", "Number"]),
  value: z.union([z.string(), z.number()]),
  description: z.string().optional(),
});

/** The environment YAML (TFP `resource_environment_test.go`: type, variables, overrides of manifests and config files). */
export const PlatformEnvironmentYaml = z.looseObject({
  environment: yamlEntity({
    type: z.enum(PLATFORM_ENVIRONMENT_TYPES),
    variables: z.array(NgVariable).optional(),
    overrides: z
      .looseObject({
        manifests: z.array(ServiceManifest).optional(),
        configFiles: z.array(z.unknown()).optional(),
      })
      .optional(),
  }),
});
export type PlatformEnvironmentYaml = z.infer<typeof PlatformEnvironmentYaml>;

/** Body of `POST|PUT /ng/api/environmentsV2` (SDK `EnvironmentRequest`). */
export const PlatformEnvironmentRequest = ngRequest({
  color: z.string().regex(HEX_COLOUR, "color must be a hex colour #RRGGBB").optional(),
  type: z.enum(PLATFORM_ENVIRONMENT_TYPES),
});
export type PlatformEnvironmentRequest = z.input<typeof PlatformEnvironmentRequest>;

/** `data.environment` of an environment response (SDK `EnvironmentResponseDetails`, which carries `version`). */
export const PlatformEnvironment = entityDetails({
  color: z.string().optional(),
  type: z.enum(PLATFORM_ENVIRONMENT_TYPES),
  deleted: z.boolean().optional(),
  version: z.number().int().optional(),
  yaml: z.string().optional(),
});
export type PlatformEnvironment = z.infer<typeof PlatformEnvironment>;

// ---- Infrastructure definition (SDK `model_infrastructure_request.go`, `enum_infrastructure_types.go`; TFP `resource_Infrastructure.go`)

/** Infrastructure types (SDK `InfrastructureTypeValues`); the emulator types KubernetesDirect and KubernetesGcp in full. */
export const INFRASTRUCTURE_TYPES = [
  ...["KubernetesDirect", "KubernetesGcp", "KubernetesAzure", "KubernetesAws", "KubernetesRancher"],
  ...["ServerlessAwsLambda", "AWS_SAM", "ECS", "AzureWebApp", "TAS", "GoogleManagedInstanceGroup"],
  ...["Pdc", "SshWinRmAzure", "SshWinRmAws", "GitOps", "CustomDeployment"],
] as const;

const KubernetesTarget = {
  connectorRef: z.string().min(1, "connectorRef is required"),
  namespace: z.string().min(1, "namespace is required"),
  releaseName: z.string().min(1, "releaseName is required"),
};
/** `spec` of a KubernetesDirect infrastructure (TFP `resource_Infrastructure_test.go`). */
export const KubernetesDirectSpec = z.looseObject(KubernetesTarget);
/** `spec` of a KubernetesGcp (GKE) infrastructure: the direct one plus `cluster` (developer-hub "Kubernetes infrastructure" page). */
export const KubernetesGcpSpec = z.looseObject({
  ...KubernetesTarget,
  cluster: z.string().min(1, "cluster is required"),
});

/** The infrastructure YAML: `infrastructureDefinition: {..., environmentRef, deploymentType, type, spec}`. */
export const InfrastructureYaml = z.looseObject({
  infrastructureDefinition: yamlEntity({
    environmentRef: z.string().min(1, "environmentRef is required"),
    deploymentType: z.string().min(1, "deploymentType is required"),
    type: z.enum(INFRASTRUCTURE_TYPES),
    spec: z.record(z.string(), z.unknown()),
    allowSimultaneousDeployments: z.boolean().optional(),
  }),
});
export type InfrastructureYaml = z.infer<typeof InfrastructureYaml>;

/** The typed spec of each fully typed infrastructure kind. */
export const INFRASTRUCTURE_SPECS: Partial<Record<(typeof INFRASTRUCTURE_TYPES)[number], z.ZodType>> = {
  KubernetesDirect: KubernetesDirectSpec,
  KubernetesGcp: KubernetesGcpSpec,
};

/** Body of `POST|PUT /ng/api/infrastructures` (SDK `InfrastructureRequest`). */
export const InfrastructureRequest = ngRequest({
  environmentRef: z.string().min(1, "environmentRef is required"),
  type: z.enum(INFRASTRUCTURE_TYPES).optional(),
  yaml: YamlText,
});
export type InfrastructureRequest = z.input<typeof InfrastructureRequest>;

/** `data.infrastructure` (SDK `InfrastructureResponseDto`). */
export const Infrastructure = entityDetails({
  environmentRef: z.string(),
  type: z.string().optional(),
  deploymentType: z.string().optional(),
  yaml: z.string().optional(),
});
export type Infrastructure = z.infer<typeof Infrastructure>;

/** `data` of the NG CD entities' responses (SDK `ServiceResponse`, `EnvironmentResponse`, `InfrastructureResponse`). */
export const ServiceData = entityData("service", Service);
export const PlatformEnvironmentData = entityData("environment", PlatformEnvironment);
export const InfrastructureData = entityData("infrastructure", Infrastructure);
export type ServiceData = z.infer<typeof ServiceData>;
export type PlatformEnvironmentData = z.infer<typeof PlatformEnvironmentData>;
export type InfrastructureData = z.infer<typeof InfrastructureData>;

// ---- Environment group (SDK `model_environment_group_request.go`, `model_environment_group_response.go`,
// `model_environment_group_delete.go`, `api_environment_group.go`; TFP `resource_environment_group.go`)

/** The YAML of an environment group: `environmentGroup: {name, identifier, ..., envIdentifiers}` (TFP tests). */
export const EnvironmentGroupYaml = z.looseObject({
  environmentGroup: yamlEntity({ envIdentifiers: z.array(Identifier).default([]) }),
});
export type EnvironmentGroupYaml = z.infer<typeof EnvironmentGroupYaml>;

/** Body of `POST /ng/api/environmentGroup` and `PUT /ng/api/environmentGroup/{id}` (SDK `EnvironmentGroupRequest`: the name, description, tags and environments are in the YAML). */
export const EnvironmentGroupRequest = z.object({
  identifier: Identifier,
  orgIdentifier: OptionalScopeId,
  projectIdentifier: OptionalScopeId,
  color: z.string().regex(HEX_COLOUR, "color must be a hex colour #RRGGBB").optional(),
  yaml: YamlText,
});
export type EnvironmentGroupRequest = z.input<typeof EnvironmentGroupRequest>;

/** `data.envGroup` of an environment group response (SDK `EnvironmentGroupResponse`). */
export const EnvironmentGroup = entityDetails({
  color: z.string().optional(),
  deleted: z.boolean().optional(),
  envIdentifiers: z.array(z.string()).default([]),
  yaml: z.string().optional(),
});
export type EnvironmentGroup = z.infer<typeof EnvironmentGroup>;

/** `data` of an environment group create, get and update (SDK `EnvironmentGroup`: `envGroup` and timestamps). */
export const EnvironmentGroupData = entityData("envGroup", EnvironmentGroup);
export type EnvironmentGroupData = z.infer<typeof EnvironmentGroupData>;

/** `data` of an environment group's delete (SDK `EnvironmentGroupDelete`). */
export const EnvironmentGroupDeleted = z.looseObject({
  deleted: z.boolean(),
  accountId: z.string().optional(),
  orgIdentifier: z.string().nullable().optional(),
  projectIdentifier: z.string().nullable().optional(),
  identifier: z.string(),
});

// ---- Secret (SDK `model_secret.go`, `model_secret_text_spec.go`, `model_secret_file_spe.go`; TFP `secret/text.go`, `secret/file.go`)

/** How a text secret's value is given (SDK `SecretTextValueTypeValues`). */
export const SECRET_VALUE_TYPES = ["Inline", "Reference"] as const;

/**
 * `spec` of a SecretText. `value` is accepted on create and update; the service never returns an
 * inline value (TFP `readSecretText` reads `value` back only for `Reference`). It is a secret
 * field (`sdk/core/secret-fields.ts`): the secrets' routes declare it, so no error of a call that
 * sends it shows it.
 */
export const SecretTextSpec = z.looseObject({
  secretManagerIdentifier: z.string().min(1, "secretManagerIdentifier is required"),
  valueType: z.enum(SECRET_VALUE_TYPES),
  value: secretField(z.string()).optional(),
});
/** `spec` of a SecretFile; the content travels as the multipart `file` part. */
export const SecretFileSpec = z.looseObject({
  secretManagerIdentifier: z.string().min(1, "secretManagerIdentifier is required"),
});

const secretBase = {
  name: entityName(128),
  identifier: Identifier,
  orgIdentifier: OptionalScopeId,
  projectIdentifier: OptionalScopeId,
  description: Description,
  tags: Tags.default({}),
};
/** `secret` of `{secret: {...}}` (SDK `SecretRequestWrapper`), by type. */
export const SecretBody = z.discriminatedUnion("type", [
  z.object({ type: z.literal("SecretText"), ...secretBase, spec: SecretTextSpec }),
  z.object({ type: z.literal("SecretFile"), ...secretBase, spec: SecretFileSpec }),
]);
export type SecretBody = z.input<typeof SecretBody>;

/** A secret as read back: never an inline value. */
export const Secret = entityDetails({
  type: z.enum(["SecretText", "SecretFile"]),
  spec: z.looseObject({
    secretManagerIdentifier: z.string(),
    valueType: z.enum(SECRET_VALUE_TYPES).optional(),
    value: secretField(z.string()).nullable().optional(),
  }),
});
export type Secret = z.infer<typeof Secret>;

/** `data` of a secret response (SDK `SecretResponse`: `updatedAt`, not `lastModifiedAt`). */
export const SecretData = z.looseObject({
  secret: Secret,
  createdAt: z.number().int().optional(),
  updatedAt: z.number().int().optional(),
  draft: z.boolean().optional(),
});
export type SecretData = z.infer<typeof SecretData>;

// ---- Input set (SDK `api_input_sets.go`, `model_input_set_response.go`; TFP `input_set_resource_test.go`)

/** The input set YAML: `inputSet: {name, identifier, orgIdentifier, projectIdentifier, pipeline: {identifier, ...}}`. */
export const InputSetYaml = z.looseObject({
  inputSet: yamlEntity({
    pipeline: z.looseObject({ identifier: z.string().min(1, "pipeline identifier is required") }),
  }),
});
export type InputSetYaml = z.infer<typeof InputSetYaml>;

/** `data` of an input set response (SDK `InputSetResponse`, which carries `version`). */
export const InputSetData = z.looseObject({
  accountId: z.string().optional(),
  orgIdentifier: z.string(),
  projectIdentifier: z.string(),
  pipelineIdentifier: z.string(),
  identifier: z.string(),
  inputSetYaml: z.string(),
  name: z.string(),
  description: z.string().optional(),
  tags: Tags.optional(),
  version: z.number().int().optional(),
  isOutdated: z.boolean().optional(),
});
export type InputSetData = z.infer<typeof InputSetData>;

/** One item of the input set list (SDK `InputSetSummaryResponse`). */
export const InputSetSummary = z.looseObject({
  identifier: z.string(),
  name: z.string(),
  pipelineIdentifier: z.string(),
  description: z.string().optional(),
  inputSetType: z.string().optional(),
  tags: Tags.optional(),
  version: z.number().int().optional(),
  createdAt: z.number().int().optional(),
  lastUpdatedAt: z.number().int().optional(),
});
export type InputSetSummary = z.infer<typeof InputSetSummary>;

// ---- Trigger (SDK `api_triggers.go`, `model_ng_trigger_response.go`; TFP `resource_triggers.go` and its test)

/** A webhook trigger's source spec: `{type: Github|..., spec: {type: Push|..., spec: {connectorRef, ...}}}`. */
export const WebhookTriggerSpec = z.looseObject({
  type: z.string().min(1, "webhook type is required"),
  spec: z.looseObject({
    type: z.string().min(1, "event type is required"),
    spec: z.record(z.string(), z.unknown()),
  }),
});
/** A cron trigger's source spec: `{type: Cron, spec: {expression}}` (Harness docs' scheduled trigger YAML; inferred). */
export const CronTriggerSpec = z.looseObject({
  type: z.literal("Cron"),
  spec: z.looseObject({ expression: z.string().min(1, "expression is required") }),
});

/** The trigger YAML: `trigger: {..., pipelineIdentifier, source: {type: Webhook|Scheduled, spec}, inputYaml?}`. */
export const TriggerYaml = z.looseObject({
  trigger: yamlEntity({
    enabled: z.boolean().optional(),
    pipelineIdentifier: z.string().min(1, "pipelineIdentifier is required"),
    source: z.discriminatedUnion("type", [
      z.looseObject({
        type: z.literal("Webhook"),
        pollInterval: z.unknown().optional(),
        spec: WebhookTriggerSpec,
      }),
      z.looseObject({ type: z.literal("Scheduled"), spec: CronTriggerSpec }),
    ]),
    inputYaml: z.string().optional(),
    inputSetRefs: z.array(z.string()).optional(),
  }),
});
export type TriggerYaml = z.infer<typeof TriggerYaml>;

/** `data` of a trigger response (SDK `NgTriggerResponse`, which carries `version`). */
export const TriggerData = z.looseObject({
  name: z.string(),
  identifier: z.string(),
  description: z.string().optional(),
  type: z.string(),
  accountIdentifier: z.string().optional(),
  orgIdentifier: z.string(),
  projectIdentifier: z.string(),
  targetIdentifier: z.string(),
  yaml: z.string(),
  version: z.number().int().optional(),
  enabled: z.boolean().optional(),
  webhookUrl: z.string().optional(),
});
export type TriggerData = z.infer<typeof TriggerData>;

/** One item of a pipeline's trigger list (the emulator's `GetListForTarget` item: no scope, no version). */
export const TriggerSummary = z.looseObject({
  name: z.string(),
  identifier: z.string(),
  description: z.string().optional(),
  type: z.string(),
  tags: Tags.optional(),
  yaml: z.string().optional(),
  enabled: z.boolean().optional(),
});
export type TriggerSummary = z.infer<typeof TriggerSummary>;

// ---------------------------------------------------------------------------------------------
// The v1 API (ref §6.1) that today's Harness Terraform provider calls for pipelines and input
// sets, through harness-openapi-go-client (`nextgen/model_pipeline_create_request_body.go`,
// `model_pipeline_update_request_body.go`, `model_input_set_create_request_body.go`,
// `model_input_set_update_request_body.go`, `model_git_create_details.go`): snake_case JSON, the
// YAML as a string field, `git_details` with `store_type` (`INLINE` or `REMOTE`).

/** `git_details` of a v1 save (`GitCreateDetails`, `GitUpdateDetails`, `InputSetGitUpdateDetails`). */
export const V1GitDetails = z.looseObject({
  store_type: z.string().nullable().optional(),
  branch_name: z.string().nullable().optional(),
  file_path: z.string().nullable().optional(),
  commit_message: z.string().nullable().optional(),
  base_branch: z.string().nullable().optional(),
  connector_ref: z.string().nullable().optional(),
  repo_name: z.string().nullable().optional(),
});
export type V1GitDetails = z.infer<typeof V1GitDetails>;

/** A required text field of a v1 body, refused as bean validation words it. */
const v1Required = () => z.string({ error: "must not be null" }).min(1, "must not be empty");

/** What the v1 save bodies share besides their YAML field. */
const V1_SAVE_FIELDS = {
  identifier: v1Required(),
  name: v1Required(),
  description: z.string().nullable().optional(),
  tags: Tags.nullable().optional(),
  git_details: V1GitDetails.nullable().optional(),
};

/** Body of `POST|PUT /v1/orgs/{org}/projects/{project}/pipelines[/{pipeline}]`. */
export const V1PipelineBody = z.looseObject({ pipeline_yaml: v1Required(), ...V1_SAVE_FIELDS });
export type V1PipelineBody = z.infer<typeof V1PipelineBody>;

/** Body of `POST|PUT /v1/orgs/{org}/projects/{project}/input-sets[/{input-set}]?pipeline=`. */
export const V1InputSetBody = z.looseObject({ input_set_yaml: v1Required(), ...V1_SAVE_FIELDS });
export type V1InputSetBody = z.infer<typeof V1InputSetBody>;
