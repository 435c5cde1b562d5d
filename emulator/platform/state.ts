/**
 * Persisted state of the emulated platform API: organizations, projects, connectors and pipelines.
 *
 * Plain JSON (records keyed by scope paths) so that the core store can write it atomically and read
 * it back unchanged; {@link PlatformState} is checked with the schema on load.
 * @module
 */
import { z } from "zod";
import { DEFAULT_ORG, Tags } from "../../sdk/platform/schemas";

/**
 * An organization as the API returns it under `data.organization`, plus bookkeeping. The fields
 * after `createdAt` came with the organization routes; their defaults keep older state files
 * loadable.
 */
export const StoredOrganization = z.object({
  identifier: z.string(),
  name: z.string(),
  createdAt: z.number().int(),
  description: z.string().default(""),
  tags: Tags.default({}),
  lastModifiedAt: z.number().int().optional(),
  version: z.number().int().nonnegative().default(0),
});
export type StoredOrganization = z.infer<typeof StoredOrganization>;

/** The project as the API returns it under `data.project` (ref §4 `ProjectMapper.writeDTO`). */
export const StoredProjectDto = z.object({
  orgIdentifier: z.string(),
  identifier: z.string(),
  name: z.string(),
  color: z.string(),
  modules: z.array(z.string()),
  description: z.string(),
  tags: Tags,
});

export const StoredProject = z.object({
  project: StoredProjectDto,
  createdAt: z.number().int(),
  lastModifiedAt: z.number().int(),
  /** Entity version, sent as `ETag: W/<version>` and compared with `If-Match` (ref §1). */
  version: z.number().int().nonnegative(),
});
export type StoredProject = z.infer<typeof StoredProject>;

/** The connector as the API returns it under `data.connector` (ref §5). */
export const StoredConnectorDto = z.object({
  name: z.string(),
  identifier: z.string(),
  description: z.string(),
  accountIdentifier: z.string(),
  orgIdentifier: z.string().nullable(),
  projectIdentifier: z.string().nullable(),
  tags: Tags,
  type: z.string(),
  spec: z.record(z.string(), z.unknown()),
});

export const StoredConnector = z.object({
  connector: StoredConnectorDto,
  createdAt: z.number().int(),
  lastModifiedAt: z.number().int(),
  version: z.number().int().nonnegative(),
  /** Connector delete is a soft delete (ref §5); a deleted connector is invisible to every route. */
  deleted: z.boolean(),
});
export type StoredConnector = z.infer<typeof StoredConnector>;

export const StoredPipeline = z.object({
  orgIdentifier: z.string(),
  projectIdentifier: z.string(),
  identifier: z.string(),
  name: z.string(),
  description: z.string(),
  tags: Tags,
  /** The YAML exactly as received; GET returns it verbatim (ref §6.2). */
  yaml: z.string(),
  createdAt: z.number().int(),
  lastModifiedAt: z.number().int(),
  version: z.number().int().nonnegative(),
});
export type StoredPipeline = z.infer<typeof StoredPipeline>;

/**
 * Everything the platform API stores. Keys: organizations by identifier; projects by
 * {@link projectKey}; connectors by {@link connectorKey}; pipelines by {@link pipelineKey}.
 */
export const PlatformState = z.object({
  accountId: z.string(),
  organizations: z.record(z.string(), StoredOrganization),
  projects: z.record(z.string(), StoredProject),
  connectors: z.record(z.string(), StoredConnector),
  pipelines: z.record(z.string(), StoredPipeline),
});
/** Plain JSON-serializable platform state, persisted by the emulator's core store. */
export type PlatformState = z.infer<typeof PlatformState>;

/** A fresh account with the seeded organization `default` (spec §4 rule 1). */
export function emptyPlatformState(accountId: string, now: number = Date.now()): PlatformState {
  return {
    accountId,
    organizations: {
      [DEFAULT_ORG]: {
        identifier: DEFAULT_ORG,
        name: DEFAULT_ORG,
        createdAt: now,
        description: "Default Organization",
        tags: {},
        lastModifiedAt: now,
        version: 0,
      },
    },
    projects: {},
    connectors: {},
    pipelines: {},
  };
}

/** Project identifiers are looked up case-insensitively (ref §3: `findBy…IdentifierIgnoreCase`). */
export function projectKey(org: string, identifier: string): string {
  return `${org}/${identifier.toLowerCase()}`;
}

/** Connectors live at account, org or project scope; an absent scope level is written `-`. */
export function connectorKey(org: string | null, project: string | null, identifier: string): string {
  return `${org ?? "-"}/${project ?? "-"}/${identifier}`;
}

export function pipelineKey(org: string, project: string, identifier: string): string {
  return `${org}/${project}/${identifier}`;
}
