/**
 * What the emulator stores, as zod schemas (the only source of the record types): the API keys,
 * the admin API's objects, the platform API's objects, and the state file that holds them all.
 * A state file is checked with {@link StateFile} when it is read.
 * @module
 */
import { z } from "zod";
import { DefinitionBody, Tag, UserStatus } from "../../sdk/admin/schemas";
import { dataRecord } from "../../sdk/core/data-record";
import { DEFAULT_ORG, Tags } from "../../sdk/platform/schemas";
import { AccessControlState } from "./access-control";
import { ChangeRequestRecord, EnvironmentPolicyRecord } from "./change-requests";
import { FlagSetRecord } from "./flag-set";
import { IdentityRecord } from "./identities";
import { PlatformEntitiesState } from "./platform-entity-records";
import { InWorkspaceRecord, TrafficTypedRecord } from "./record-shapes";
import { RestrictionRecord } from "./restriction";
import { KindActivationRecord, KindSegmentRecord } from "./segment-kinds";
import { AttributeRecord } from "./traffic-type-attribute";

// ---------------------------------------------------------------------------------------------
// API keys

/**
 * An API key as given to `startEmulator({keys})` and `emu.addKey()`: its type, and the
 * restrictions of each API (workspaces and environments, ids or names; organizations and
 * projects, a project entry being `"<org>/<project>"` or a bare `"<project>"` matching that
 * project in any organization). An SDK key names its one environment in `environments[0]` (an
 * id, or a name looked up in `workspaces[0]`, default `Default`).
 */
export const ApiKeySpec = z.object({
  key: z.string().min(8, "key must be at least 8 characters").regex(/^\S+$/, "key must not contain spaces"),
  type: z.enum(["admin", "sdk", "platform"]),
  workspaces: z.array(z.string()).optional(),
  environments: z.array(z.string()).optional(),
  organizations: z.array(z.string()).optional(),
  projects: z.array(z.string()).optional(),
  /** For SDK keys: server_side (default) or client_side; client-side keys may not read segments. */
  apiKeyType: z.enum(["server_side", "client_side"]).optional(),
  name: z.string().optional(),
  id: z.string().optional(),
});
/** An API key (input form). */
export type ApiKeyInput = z.input<typeof ApiKeySpec>;
/** An API key as the emulator holds it. */
export type ApiKey = z.output<typeof ApiKeySpec>;

/** A stored key: the spec with its id and name made up when absent. */
export const KeyRecord = ApiKeySpec.extend({
  id: z.string(),
  name: z.string(),
  /** The key the options name (`adminKey`, `platformKey`, `sdkKey` of Production). */
  primary: z.boolean().default(false),
});
/** A stored key. */
export type KeyRecord = z.output<typeof KeyRecord>;

// ---------------------------------------------------------------------------------------------
// The admin API

/** A workspace (project) of the admin API (spec admin §2). */
export const WorkspaceRecord = z.object({
  id: z.string(),
  name: z.string(),
  requiresTitleAndComments: z.boolean(),
  /**
   * The Harness project the workspace is (its organization and identifier): under Harness a project
   * is an FME workspace ([HSDK] `harness/split/workspaces.go` `Workspace`). Absent on a workspace
   * made through the admin API that no project has taken (and in a state file of an earlier
   * version).
   */
  organizationIdentifier: z.string().optional(),
  projectIdentifier: z.string().optional(),
});
/** A workspace (project). */
export type WorkspaceRecord = z.output<typeof WorkspaceRecord>;

/** An environment of a workspace (spec admin §2). */
export const EnvironmentRecord = InWorkspaceRecord.extend({ production: z.boolean() });
/** An environment of a workspace. */
export type EnvironmentRecord = z.output<typeof EnvironmentRecord>;

/** A traffic type of a workspace (spec admin §2; ref admin §1.1). */
export const TrafficTypeRecord = InWorkspaceRecord.extend({ displayAttributeId: z.string().nullable() });
/** A traffic type of a workspace. */
export type TrafficTypeRecord = z.output<typeof TrafficTypeRecord>;

/** A rollout status (spec admin §2). */
export const RolloutStatusRecord = z.object({ id: z.string(), name: z.string(), description: z.string() });
/** A rollout status (account-wide: every workspace lists the same ones). */
export type RolloutStatusRecord = z.output<typeof RolloutStatusRecord>;

/** A flag at project level (spec admin §2 "Feature flag"). */
export const FlagRecord = TrafficTypedRecord.extend({
  rolloutStatusId: z.string(),
  rolloutStatusTimestamp: z.number().int(),
  tags: z.array(Tag).nullable(),
  /** Users and groups owning the flag (ref admin §1.1 flag GET `owners:[{id,type}]`). */
  owners: z.array(z.object({ id: z.string(), type: z.enum(["user", "group"]) })).default([]),
});
/** A flag at project level. */
export type FlagRecord = z.output<typeof FlagRecord>;

/** The stored writable document of a definition: the POST body minus title, comment and killed. */
export const DefinitionDocument = DefinitionBody.omit({ title: true, comment: true, killed: true });
/** A definition's writable document. */
export type DefinitionDocument = z.output<typeof DefinitionDocument>;

const int32 = z
  .number()
  .int()
  .min(-(2 ** 31))
  .max(2 ** 31 - 1);

/** A flag's definition in one environment, with its SDK bookkeeping (spec admin §2). */
export const DefinitionRecord = z.object({
  flagId: z.string(),
  environmentId: z.string(),
  doc: DefinitionDocument,
  killed: z.boolean(),
  creationTime: z.number().int(),
  lastUpdateTime: z.number().int(),
  /** SDK change number: strictly increasing across the account (sdk-wire-format §2.5). */
  changeNumber: z.number().int(),
  /** Chosen once per definition and kept across updates so keys never re-bucket (wire §2.5). */
  seed: int32,
  trafficAllocationSeed: int32,
});
/** A flag's definition in one environment. */
export type DefinitionRecord = z.output<typeof DefinitionRecord>;

/** What a tombstone keeps of the definition (the ARCHIVED split carries its seeds) and of its flag. */
export const TombstoneRecord = DefinitionRecord.pick({
  environmentId: true,
  changeNumber: true,
  seed: true,
  trafficAllocationSeed: true,
}).extend({ name: z.string(), trafficTypeName: z.string() });
/** A removed definition, served once more as ARCHIVED by `/api/splitChanges` (wire §1). */
export type TombstoneRecord = z.output<typeof TombstoneRecord>;

/**
 * A segment of a workspace (ref admin §1.1), with its tags as a flag has them (`null` when none).
 * The tags came with the segment tag route; their default keeps older state files loadable.
 */
export const SegmentRecord = TrafficTypedRecord.extend({ tags: z.array(Tag).nullable().default(null) });
/** A segment of a workspace. */
export type SegmentRecord = z.output<typeof SegmentRecord>;

/** A segment activated in an environment, with its keys, as the state file holds it. */
export const SegmentActivationFile = z.object({
  segmentId: z.string(),
  environmentId: z.string(),
  creationTime: z.number().int(),
  changeNumber: z.number().int(),
  /** `[key, changeNumber when added]`. */
  members: z.array(z.tuple([z.string(), z.number().int()])),
  /** `[key, changeNumber when removed]`, so `segmentChanges?since=N` can answer with deltas. */
  removed: z.array(z.tuple([z.string(), z.number().int()])),
});
/** An activation as the state file holds it. */
export type SegmentActivationFile = z.output<typeof SegmentActivationFile>;

/** A segment activated in an environment, in memory: the same pairs in maps, for O(1) key lookups. */
export const SegmentActivation = SegmentActivationFile.extend({
  members: z.map(z.string(), z.number().int()),
  removed: z.map(z.string(), z.number().int()),
});
/** A segment activated in an environment. */
export type SegmentActivation = z.output<typeof SegmentActivation>;

/** A user of the account (spec admin §2 "User"). */
export const UserRecord = z.object({
  id: z.string(),
  name: z.string(),
  email: z.string(),
  status: UserStatus,
  twoFactor: z.boolean(),
  /** Group ids, in order. */
  groups: z.array(z.string()),
  /**
   * Workspace ids of the key that invited the user (empty: an unrestricted key). A restricted key
   * sees the users whose scope overlaps its own workspaces (spec admin §5 item 4).
   */
  scope: z.array(z.string()),
  creationTime: z.number().int(),
});
/** A user. */
export type UserRecord = z.output<typeof UserRecord>;

/** A group of the account (spec admin §2 "Group"). */
export const GroupRecord = z.object({ id: z.string(), name: z.string(), description: z.string() });
/** A group. */
export type GroupRecord = z.output<typeof GroupRecord>;

// ---------------------------------------------------------------------------------------------
// The platform API

/** Where a platform object lives: account (both null), organization, or project. */
export const PlatformScope = z.object({ org: z.string().nullable(), project: z.string().nullable() });
/** Where a platform object lives. */
export type PlatformScope = z.infer<typeof PlatformScope>;

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
/** A stored organization. */
export type StoredOrganization = z.infer<typeof StoredOrganization>;

/** The project as the API returns it under `data.project` (ref platform §4 `ProjectMapper.writeDTO`). */
export const StoredProjectDto = z.object({
  orgIdentifier: z.string(),
  identifier: z.string(),
  name: z.string(),
  color: z.string(),
  modules: z.array(z.string()),
  description: z.string(),
  tags: Tags,
});

/** The bookkeeping of a stored project, connector and pipeline: when made and changed, its version. */
const bookkeeping = {
  createdAt: z.number().int(),
  lastModifiedAt: z.number().int(),
  /** Entity version, sent as `ETag: W/<version>` and compared with `If-Match` (ref platform §1). */
  version: z.number().int().nonnegative(),
};

/** A project with its bookkeeping (ref platform §4). */
export const StoredProject = z.object({ project: StoredProjectDto, ...bookkeeping });
/** A stored project. */
export type StoredProject = z.infer<typeof StoredProject>;

/** The connector as the API returns it under `data.connector` (ref platform §5). */
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

/** A connector with its bookkeeping (ref platform §5). */
export const StoredConnector = z.object({
  connector: StoredConnectorDto,
  ...bookkeeping,
  /** Connector delete is a soft delete (ref platform §5); a deleted connector is invisible to every route. */
  deleted: z.boolean(),
});
/** A stored connector. */
export type StoredConnector = z.infer<typeof StoredConnector>;

/** A pipeline as stored: its scope, what its YAML says, the YAML itself (ref platform §6.2). */
export const StoredPipeline = z.object({
  orgIdentifier: z.string(),
  projectIdentifier: z.string(),
  identifier: z.string(),
  name: z.string(),
  description: z.string(),
  tags: Tags,
  /** The YAML exactly as received; GET returns it verbatim (ref platform §6.2). */
  yaml: z.string(),
  ...bookkeeping,
});
/** A stored pipeline. */
export type StoredPipeline = z.infer<typeof StoredPipeline>;

/**
 * Everything the platform API stores, as the state file holds it. Keys: organizations by
 * identifier; projects by `<org>/<identifier lower-cased>`; connectors by `<org>/<project>/<id>`
 * (`-` for an absent scope level); pipelines by `<org>/<project>/<id>`. The keys are made of
 * user identifiers, so they are {@link dataRecord}s: an organization `__proto__` is read back from
 * the file like any other (`z.record` would drop it).
 */
export const PlatformState = z.object({
  accountId: z.string(),
  organizations: dataRecord(StoredOrganization),
  projects: dataRecord(StoredProject),
  connectors: dataRecord(StoredConnector),
  pipelines: dataRecord(StoredPipeline),
});
/** The platform part of the state file. */
export type PlatformState = z.infer<typeof PlatformState>;

/** A fresh account's platform state: the seeded organization `default` (spec platform §4 rule 1). */
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

// ---------------------------------------------------------------------------------------------
// The state file

/**
 * The feature-flag objects kept beside the first version's (flag sets `flag-set.ts`, attributes
 * `traffic-type-attribute.ts`, identities `identities.ts`, large and rule-based segments with
 * their activations `segment-kinds.ts`, change requests and change permissions
 * `change-requests.ts`, restrictions `restriction.ts`), as the state file holds them: under one
 * key, `catalog`, the name it was written under first (the store keeps them as parts of their
 * own and maps them, `Store.toFile`). Absent, and each member absent, in older files.
 */
export const CatalogState = z.object({
  flagSets: z.array(FlagSetRecord).default([]),
  attributes: z.array(AttributeRecord).default([]),
  identities: z.array(IdentityRecord).default([]),
  largeSegments: z.array(KindSegmentRecord).default([]),
  largeActivations: z.array(KindActivationRecord).default([]),
  ruleBasedSegments: z.array(KindSegmentRecord).default([]),
  ruleBasedActivations: z.array(KindActivationRecord).default([]),
  changeRequests: z.array(ChangeRequestRecord).default([]),
  policies: z.array(EnvironmentPolicyRecord).default([]),
  restrictions: z.array(RestrictionRecord).default([]),
});
/** The `catalog` member of the state file. */
export type CatalogState = z.output<typeof CatalogState>;

/** Format tag of the state file, checked on load. */
export const STATE_FORMAT = "flagstack-emulator-state";

/** The persisted state file (version 1). */
export const StateFile = z.object({
  format: z.literal(STATE_FORMAT),
  version: z.literal(1),
  accountId: z.string(),
  changeNumber: z.number().int(),
  workspaces: z.array(WorkspaceRecord),
  environments: z.array(EnvironmentRecord),
  trafficTypes: z.array(TrafficTypeRecord),
  rolloutStatuses: z.array(RolloutStatusRecord),
  flags: z.array(FlagRecord),
  definitions: z.array(DefinitionRecord),
  tombstones: z.array(TombstoneRecord),
  segments: z.array(SegmentRecord),
  segmentEnvironments: z.array(SegmentActivationFile),
  users: z.array(UserRecord),
  groups: z.array(GroupRecord),
  keys: z.array(KeyRecord),
  platform: PlatformState,
  /** Flag sets, attributes, identities, large and rule-based segments, change requests, change permissions, restrictions ({@link CatalogState}). */
  catalog: CatalogState.optional(),
  /** The platform's v2 entities (`platform-entity-records.ts`). */
  platformEntities: PlatformEntitiesState.optional(),
  /** The platform's access control (`access-control.ts`). */
  accessControl: AccessControlState.optional(),
});
/** The persisted state file. */
export type StateFile = z.output<typeof StateFile>;
