/**
 * Zod schemas for the platform API (`../shared/spec/platform-api.md`): projects, connectors and
 * YAML pipelines, the success envelope and both error shapes.
 *
 * Where the spec says "not shown", shapes and rules come from
 * `../shared/reference/platform-api-behaviour.md` (cited as "ref §N").
 * @module
 */
import { z } from "zod";
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

export const Tags = z.record(z.string(), z.string());

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

/** Page-size limit of the NG lists: connectors default to 100 (ref §8); the SDK caps both at it. */
export const PLATFORM_PAGE_MAX = 100;
