/**
 * What the emulator stores of the admin API's wider object model (issue 18): flag sets,
 * traffic-type attributes and identities, large and rule-based segments with their activations
 * per environment, change requests, environment change permissions and workspace restrictions.
 * Zod schemas, the only source of the record types; the state file holds them under `catalog`.
 * @module
 */
import { z } from "zod";
import { ChangeRequestStatus, ExcludedSegment, SegmentRule } from "../../sdk/admin/schemas";
import { dataRecord } from "../../sdk/core/data-record";
import { InWorkspaceRecord, TrafficTypedRecord } from "./record-shapes";

/** A flag set of a workspace (ref admin §1.1, v3). */
export const FlagSetRecord = InWorkspaceRecord.extend({
  description: z.string().nullable(),
  createdAt: z.number().int(),
});
/** A flag set. */
export type FlagSetRecord = z.output<typeof FlagSetRecord>;

/** An attribute of a traffic type (ref admin §1.1 "attributes", §9.1). */
export const AttributeRecord = z.object({
  trafficTypeId: z.string(),
  id: z.string(),
  displayName: z.string().nullable(),
  description: z.string().nullable(),
  dataType: z.string().nullable(),
  isSearchable: z.boolean(),
  suggestedValues: z.array(z.string()),
});
/** An attribute of a traffic type. */
export type AttributeRecord = z.output<typeof AttributeRecord>;

/** The attribute values of one key of a traffic type in an environment (ref admin §1.1 "identities"). */
export const IdentityRecord = z.object({
  trafficTypeId: z.string(),
  environmentId: z.string(),
  key: z.string(),
  /** By attribute id, a user's name ({@link dataRecord}: `__proto__` is kept). */
  values: dataRecord(z.unknown()),
});
/** An identity. */
export type IdentityRecord = z.output<typeof IdentityRecord>;

/** The kinds of segment beside the standard one. */
export const SEGMENT_KINDS = ["large", "rule-based"] as const;
/** A large or rule-based segment. */
export type SegmentKind = (typeof SEGMENT_KINDS)[number];

/** A large or rule-based segment of a workspace (ref admin §9.2). */
export const KindSegmentRecord = TrafficTypedRecord.extend({ description: z.string().nullable() });
/** A large or rule-based segment. */
export type KindSegmentRecord = z.output<typeof KindSegmentRecord>;

/**
 * A large or rule-based segment in an environment: a large one holds members (uploaded through
 * change requests), a rule-based one its rules and exclusions.
 */
export const KindActivationRecord = z.object({
  segmentId: z.string(),
  environmentId: z.string(),
  creationTime: z.number().int(),
  members: z.array(z.string()).default([]),
  /** When the members last changed (a large segment's change number for the SDK's `/memberships`; 0: never). */
  changeNumber: z.number().int().default(0),
  rules: z.array(SegmentRule).default([]),
  excludedKeys: z.array(z.string()).default([]),
  excludedSegments: z.array(ExcludedSegment).default([]),
});
/** A large or rule-based segment in an environment. */
export type KindActivationRecord = z.output<typeof KindActivationRecord>;

/** What a change request changes: the kind of object, its name and the body's object as sent. */
export const ChangeTarget = z.object({
  kind: z.enum(["split", "segment", "largeSegment", "ruleBasedSegment"]),
  name: z.string(),
  /** The validated object of the request (`split`, `segment`, ...), as it is echoed. */
  payload: z.record(z.string(), z.unknown()),
});
/** What a change request changes. */
export type ChangeTarget = z.output<typeof ChangeTarget>;

/** One entry of a change request's history. */
export const ChangeComment = z.object({
  comment: z.string(),
  user: z.string(),
  role: z.string(),
  timestamp: z.number().int(),
});

/** A change request (ref admin §1.1 "change requests"). */
export const ChangeRequestRecord = z.object({
  id: z.string(),
  workspaceId: z.string(),
  environmentId: z.string(),
  status: ChangeRequestStatus,
  operationType: z.string(),
  title: z.string().nullable(),
  comment: z.string().nullable(),
  approvers: z.array(z.string()),
  rolloutStatusId: z.string().nullable(),
  target: ChangeTarget,
  /** The id of the key that submitted it: it may withdraw, never approve (ref admin §9.2, HP #1404). */
  submittedBy: z.string(),
  comments: z.array(ChangeComment),
  creationTime: z.number().int(),
  /** A large-segment upload: the token of its upload address and, once sent, the keys of the file. */
  upload: z.object({ token: z.string(), keys: z.array(z.string()).nullable() }).nullable(),
});
/** A change request. */
export type ChangeRequestRecord = z.output<typeof ChangeRequestRecord>;

/** An environment's `changePermissions` as last sent (ref admin §1.2, §9.2). */
export const EnvironmentPolicyRecord = z.object({
  environmentId: z.string(),
  changePermissions: z.record(z.string(), z.unknown()),
});
/** An environment's change permissions. */
export type EnvironmentPolicyRecord = z.output<typeof EnvironmentPolicyRecord>;

/** Who may view a workspace (ref admin §1.1 "restrictions"). */
export const RestrictionRecord = z.object({
  id: z.string(),
  resourceId: z.string(),
  resourceType: z.string(),
  view: z.boolean(),
  viewers: z.array(z.record(z.string(), z.unknown())),
});
/** A workspace restriction. */
export type RestrictionRecord = z.output<typeof RestrictionRecord>;

/** The catalog part of the state file; absent in files written before it existed. */
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
/** The catalog part of the state file. */
export type CatalogState = z.output<typeof CatalogState>;
