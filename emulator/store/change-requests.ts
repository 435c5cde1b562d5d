/**
 * Approvals: change requests (ref admin §1.1 "change requests", §9.2) and the environments'
 * change permissions, which say where a direct write is refused and a change must be requested
 * and approved. Routes: `emulator/admin/change-requests.ts` (and the environment routes for the
 * permissions); applying an approved change is `Store.applyChangeRequest`.
 * @module
 */
import { z } from "zod";
import { ChangeRequestStatus } from "../../sdk/admin/schemas";
import { conflict } from "../errors";
import type { DefinitionDocument, EnvironmentRecord } from "./records";
import type { KindActivationRecord } from "./segment-kinds";
import { Table } from "./table";

/**
 * What applying a change request writes, parsed from its payload by the route (the store does
 * not parse bodies): a flag definition's document and `killed` (a CREATE or UPDATE of a split),
 * or a rule-based segment's rules and exclusions (its CREATE or UPDATE); nothing for the rest.
 */
export type ParsedChange =
  | { doc: DefinitionDocument; killed: boolean | undefined }
  | { ruleBased: Pick<KindActivationRecord, "rules" | "excludedKeys" | "excludedSegments"> }
  | null;

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

/** The change requests of the account, in submission order. */
export class ChangeRequests extends Table<ChangeRequestRecord> {
  constructor() {
    super((r) => r.id);
  }

  /** Records a new request; 409 while another REQUESTED one changes the same object there (inferred). */
  submit(r: Omit<ChangeRequestRecord, "id">): ChangeRequestRecord {
    const open = this.find(
      (o) =>
        o.status === "REQUESTED" &&
        o.environmentId === r.environmentId &&
        o.target.kind === r.target.kind &&
        o.target.name === r.target.name,
    );
    if (open && r.status === "REQUESTED")
      throw conflict(`Change request ${open.id} for ${r.target.name} is still open in this environment`);
    // One above the largest id held, not the count: an environment's deletion takes its requests along.
    const last = Math.max(0, ...this.list().map((o) => Number(o.id) || 0));
    return this.put({ ...r, id: String(last + 1) });
  }

  /** The request whose large-segment upload address has this token. */
  byUploadToken(token: string): ChangeRequestRecord | undefined {
    return this.find((r) => r.upload?.token === token);
  }

  /** Sets a request's status, recording who did it, in which role, and their comment. */
  transition(
    r: ChangeRequestRecord,
    status: ChangeRequestRecord["status"],
    by: { user: string; role: "SUBMITTER" | "APPROVER"; comment: string },
  ): void {
    r.status = status;
    r.comments.push({ comment: by.comment, user: by.user, role: by.role, timestamp: Date.now() });
  }

  /** Records the keys of an uploaded file. */
  uploaded(r: ChangeRequestRecord, keys: string[]): void {
    if (r.upload) r.upload.keys = keys;
  }

  /** What a deleted environment takes along: the requests made there. */
  forgetEnvironment(environmentId: string): void {
    this.dropWhere((r) => r.environmentId === environmentId);
  }
}

/** The change permissions of environments, as last sent. */
export class ChangePermissions extends Table<EnvironmentPolicyRecord> {
  constructor() {
    super((p) => p.environmentId);
  }

  /** Sets an environment's change permissions. */
  set(env: EnvironmentRecord, changePermissions: Record<string, unknown>): void {
    this.put({ environmentId: env.id, changePermissions });
  }

  /** Whether changes in the environment need an approved change request (ref admin §2, §9.2). */
  approvalsRequired(environmentId: string): boolean {
    return this.get(environmentId)?.changePermissions.areApprovalsRequired === true;
  }

  /** What a deleted environment takes along: its change permissions. */
  forgetEnvironment(environmentId: string): void {
    this.dropWhere((p) => p.environmentId === environmentId);
  }
}
