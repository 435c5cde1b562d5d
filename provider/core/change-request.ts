/**
 * Change requests of approval-gated environments, shared by `FlagDefinition`, `SegmentKeys` and
 * `RuleBasedSegmentDefinition`, and by the deletes of `Flag`, `Segment` and `RuleBasedSegment` (ref admin §1.1 "change requests", §2 and §9.2; splitapiclient 3.5.9
 * `resources/split_definition.py`, `segment_definition.py` and `rule_based_segment_definition.py`
 * `submit_change_request`).
 *
 * Where an environment's `changePermissions.areApprovalsRequired` is set, the service refuses a
 * direct definition or segment-key write with 403. The provider finds out from that refusal (a
 * gated environment costs nothing more until a write is refused, an ungated one costs nothing at
 * all), confirms it from the environment's change permissions, so that a 403 of a scoped key is
 * not mistaken for a gate (the list leaves them out, ref admin §1.2: they are read with a dry-run
 * `PATCH ?dry_run=true` of no operations, which changes nothing and answers the environment with
 * them), and then:
 * - finds an open (REQUESTED) change request of the same object in the environment (the service
 *   takes one per object, and an earlier `up` may have submitted it): when it holds the same
 *   change it is reported, not submitted again; a different open change is refused, naming it;
 * - otherwise submits one with the program's `changeRequest` title, comment and approvers;
 * - without `waitForApproval` returns it as pending: the resource records what is live (never the
 *   requested change) plus `pendingChangeRequest {id, status, reference}`, so the next `up` sees
 *   the difference again, reads the request (one GET, {@link recordedRequest}) and reports it
 *   while it is open; once it is applied, the live object is its outcome and the update's base
 *   (nothing is sent for what is live); once it is rejected or withdrawn, it says so (who decided,
 *   when and their comment) and submits the change anew;
 * - with `waitForApproval` polls it, printing a progress line through the engine's log, until it
 *   is APPROVED or PUBLISHED (the update then reads the applied change back), REJECTED or
 *   WITHDRAWN (fails naming the request, its status and the last comment), or the timeout (fails
 *   saying it is still pending; the next `up` picks it up).
 *
 * {@link gatedWrite} is that path for every create and update. Deletes are gated too: a refused
 * delete becomes an ARCHIVE request ({@link gatedDelete}), and the delete of an owner that takes
 * what it holds in every environment with it (a flag, a segment, a rule-based segment, whose
 * resources are `deletedWith` it) first takes what it holds in each gated environment through
 * one ({@link ownerDeleteGate}); neither succeeds while anything is left behind the gate.
 *
 * The first write of every update is the one refused, so a refused update has applied nothing.
 * `reference` is `changeRequests/<id>`, the request's path under the admin API's v2 prefix.
 * @module
 */
import { z } from "zod";
import type { AdminClient } from "../../sdk/admin/client";
import type { ChangeRequest, ChangeRequestCreate } from "../../sdk/admin/schemas";
import { ApiError, isNotFound } from "../../sdk/core/errors";
import { clientIdentity, MEMO_TTL_MS, memo, memoLoadedAt } from "./config";
import { jsonEqual } from "./diff";
import { door } from "./door";
import { type GateFacts, handedOwnerGate, noteOwnerGate } from "./gate-ledger";
import { deleteIdempotent, readOrGone } from "./lifecycle";
import { pulumiLog } from "./pulumi-runtime";
import { environmentsKey, workspaceEnvironments } from "./resolve";

/** The `changeRequest` input: the request's title, comment and approvers. */
export const ChangeRequestInput = z.strictObject({
  /** The request's title. Default: the resource's `title`, else the provider's change title. */
  title: z
    .string()
    .min(1, "changeRequest.title must not be empty")
    .max(256, "changeRequest.title must be at most 256 characters")
    .optional(),
  /** The request's comment. Default: the resource's `comment`, else the provider's change comment. */
  comment: z
    .string()
    .min(1, "changeRequest.comment must not be empty")
    .max(4096, "changeRequest.comment must be at most 4096 characters")
    .optional(),
  /** Who may approve it: user emails or group names, as the API takes them. Default: none named. */
  approvers: z.array(z.string().min(1, "an approver must not be empty")).optional(),
});
export type ChangeRequestInput = z.output<typeof ChangeRequestInput>;

/** The `waitForApproval` input: how long `up` waits for a submitted request to be approved. */
export const WaitForApprovalInput = z.strictObject({
  /** Seconds to wait before failing with the request still pending. */
  timeoutSeconds: z
    .number({ error: "waitForApproval.timeoutSeconds must be a number" })
    .positive("waitForApproval.timeoutSeconds must be positive")
    .max(86_400, "waitForApproval.timeoutSeconds must be at most 86400 (a day)"),
  /** Seconds between two reads of the request. Default 10. */
  pollSeconds: z.number().positive("waitForApproval.pollSeconds must be positive").default(10),
});
export type WaitForApprovalInput = z.output<typeof WaitForApprovalInput>;

/** The inputs both resources take (spread into their zod objects). */
export const changeRequestInputs = {
  /**
   * Where the environment requires approvals, the change is submitted as a change request with
   * this title, comment and approvers (all optional).
   */
  changeRequest: ChangeRequestInput.optional(),
  /** Wait for the submitted change request to be approved instead of reporting it pending. */
  waitForApproval: WaitForApprovalInput.optional(),
};

/** A change request submitted (or found open) and not yet approved. */
export const PendingChangeRequest = z.object({
  id: z.string(),
  status: z.string(),
  /** `changeRequests/<id>`: the request's path under the admin API's v2 prefix. */
  reference: z.string(),
});
export type PendingChangeRequest = z.output<typeof PendingChangeRequest>;

/** The output both resources add. */
export const changeRequestOutputs = {
  /** The change request this resource's change waits on, while it is not approved. */
  pendingChangeRequest: PendingChangeRequest.optional(),
};

/** What a change request changes: one object of one environment. */
export interface ChangeSubject {
  wsId: string;
  environmentId: string;
  environmentName: string;
  /** `split` (a flag's definition), `segment` (a segment's keys) or `ruleBasedSegment` (its definition). */
  kind: "split" | "segment" | "ruleBasedSegment";
  /** The flag's or segment's name. */
  name: string;
  /** The object's change without its name (the definition; `{keys}`). */
  payload: Record<string, unknown>;
  operationType: ChangeRequestCreate["operationType"];
  /** For messages: `flag "x" in environment "Production"`. */
  describe: string;
}

/** Where progress lines go: the engine's log (`info`), or stderr outside a Pulumi run. Tests replace it. */
let progressSink: (message: string) => void = engineInfo;
/** Replaces where progress lines go; returns the previous sink. */
export function setProgressSink(sink: (message: string) => void): (message: string) => void {
  const previous = progressSink;
  progressSink = sink;
  return previous;
}

function engineInfo(message: string): void {
  const log = pulumiLog();
  if (log) void log.info(message);
  else process.stderr.write(`${message}\n`);
}

/** `changeRequests/<id>`. */
export const referenceOf = (id: string) => `changeRequests/${id}`;

const pendingOf = (cr: ChangeRequest): PendingChangeRequest => ({
  id: cr.id,
  status: cr.status,
  reference: referenceOf(cr.id),
});

/**
 * Whether a refused write means the environment requires approvals: a 403 and the environment's
 * `changePermissions.areApprovalsRequired`, read with a dry-run PATCH of no operations (the list
 * leaves change permissions out, ref admin §1.2).
 */
export async function refusedForApprovals(
  admin: AdminClient,
  e: unknown,
  wsId: string,
  environmentId: string,
): Promise<boolean> {
  if (!ApiError.isInstance(e) || e.status !== 403) return false;
  const env = await admin.environments.patch(wsId, environmentId, [], { dryRun: true });
  return env.changePermissions?.areApprovalsRequired === true;
}

/** The object a request changes, when it is of this kind. */
const objectOf = (cr: ChangeRequest, kind: ChangeSubject["kind"]) =>
  (cr as Record<string, unknown>)[kind] as Record<string, unknown> | null | undefined;

/** Whether an open request holds this subject's change (the members sent, compared by meaning). */
function sameChange(cr: ChangeRequest, s: ChangeSubject): boolean {
  const object = objectOf(cr, s.kind);
  if (!object || cr.operationType !== s.operationType) return false;
  return Object.keys(s.payload).every((k) => jsonEqual(object[k], s.payload[k]));
}

/** Why an open request of the object blocks a new one. */
export class OtherChangeRequestOpenError extends Error {
  constructor(s: ChangeSubject, cr: ChangeRequest) {
    super(
      `change request ${cr.id} (${referenceOf(cr.id)}) for ${s.describe} is open (REQUESTED) with a different change, ` +
        `and the service takes one open change request per object: approve, reject or withdraw it, then run ${door().apply} again`,
    );
    this.name = "OtherChangeRequestOpenError";
  }
}

/** Why `up` failed on a request that will not be applied, or is still pending. */
export class ChangeRequestNotAppliedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ChangeRequestNotAppliedError";
  }
}

/** The open (REQUESTED) request of the subject's object, if any (the list, filtered by environment). */
async function openRequestOf(admin: AdminClient, s: ChangeSubject): Promise<ChangeRequest | undefined> {
  for await (const cr of admin.changeRequests.list({ status: "REQUESTED", environmentId: s.environmentId })) {
    if (objectOf(cr, s.kind)?.name === s.name) return cr;
  }
  return undefined;
}

/**
 * The request holding this change: the open one of the object when it holds the same change
 * (reported, not submitted twice), else a new one. A different open change is refused.
 */
export async function submitOrFind(
  admin: AdminClient,
  s: ChangeSubject,
  note: RequestNote,
): Promise<ChangeRequest> {
  const open = await openRequestOf(admin, s);
  if (open) {
    if (!sameChange(open, s)) throw new OtherChangeRequestOpenError(s, open);
    progressSink(
      `change request ${open.id} for ${s.describe} is already open (REQUESTED): not submitted again`,
    );
    return open;
  }
  const cr = await admin.changeRequests.create(s.wsId, s.environmentId, {
    [s.kind]: { name: s.name, ...s.payload },
    operationType: s.operationType,
    title: note.title,
    comment: note.comment,
    approvers: [...note.approvers],
  } as ChangeRequestCreate);
  progressSink(
    `environment "${s.environmentName}" requires approvals: submitted change request ${cr.id} for ${s.describe} (${cr.status})`,
  );
  return cr;
}

/** The last non-empty comment on a request, with who wrote it. */
function lastWord(cr: ChangeRequest): string {
  const c = [...cr.comments].reverse().find((x) => x.comment !== "");
  return c ? `; ${c.user} (${c.role}) commented: "${c.comment}"` : "";
}

/** The failure of a request that will never be applied. */
function refused(cr: ChangeRequest, describe: string): ChangeRequestNotAppliedError {
  return new ChangeRequestNotAppliedError(
    `change request ${cr.id} (${referenceOf(cr.id)}) for ${describe} was ${cr.status}${lastWord(cr)}; ` +
      `nothing was applied. Run ${door().apply} again to submit the change anew`,
  );
}

const ENDED = new Set(["REJECTED", "WITHDRAWN"]);
const APPLIED = new Set(["APPROVED", "PUBLISHED"]);

/** Waits `ms`. */
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * What became of a submitted (or found) request: `undefined` when it is applied (APPROVED or
 * PUBLISHED), the pending request when the program does not wait. With `wait`, polls `get(id)`
 * every `pollSeconds` until it is applied, REJECTED or WITHDRAWN (a {@link ChangeRequestNotAppliedError}
 * naming the request, its status and the last comment), or `timeoutSeconds` pass (the same error,
 * saying it is still pending and that the next `up` picks it up).
 */
export async function settle(
  admin: AdminClient,
  submitted: ChangeRequest,
  describe: string,
  wait: WaitForApprovalInput | undefined,
): Promise<PendingChangeRequest | undefined> {
  let cr = submitted;
  const started = Date.now();
  for (;;) {
    if (APPLIED.has(cr.status)) return undefined;
    if (ENDED.has(cr.status)) throw refused(cr, describe);
    if (!wait) return pendingOf(cr);
    const elapsed = (Date.now() - started) / 1000;
    if (elapsed >= wait.timeoutSeconds) {
      throw new ChangeRequestNotAppliedError(
        `change request ${cr.id} (${referenceOf(cr.id)}) for ${describe} is still ${cr.status} after ${wait.timeoutSeconds}s ` +
          "(waitForApproval.timeoutSeconds); nothing is applied until it is approved. " +
          `The next ${door().apply} picks it up (it is not submitted again)`,
      );
    }
    progressSink(
      `waiting for change request ${cr.id} (${cr.status}, ${Math.round(elapsed)}s of ${wait.timeoutSeconds}s)`,
    );
    await sleep(Math.min(wait.pollSeconds, wait.timeoutSeconds - elapsed) * 1000);
    cr = await admin.changeRequests.get(cr.id);
  }
}

/** What became of the request an earlier `up` recorded in `pendingChangeRequest`. */
export type RecordedRequest =
  /** None was recorded. */
  | { state: "none" }
  /** Still REQUESTED: reported (when it holds this change), nothing written. */
  | { state: "open"; cr: ChangeRequest }
  /**
   * APPROVED or PUBLISHED: its change is live. The recorded outputs predate it (they hold what was
   * live when it was submitted), so the update starts from the live object, the request's outcome.
   */
  | { state: "applied"; cr: ChangeRequest }
  /**
   * REJECTED or WITHDRAWN (reported: who decided, when, and their comment), or unknown to the
   * service: nothing was applied; the next change is submitted anew.
   */
  | { state: "ended" };

/**
 * Who ended a request, when, and what they said: the last entry of its history after the
 * submission's (the service records each decision there with its user, role and comment).
 */
function decision(cr: ChangeRequest): string {
  const entry = cr.comments.length > 1 ? cr.comments.at(-1) : undefined;
  if (!entry) return "";
  const when = Number.isFinite(entry.timestamp) ? ` at ${new Date(entry.timestamp).toISOString()}` : "";
  const said = entry.comment === "" ? ", with no comment" : `, commenting "${entry.comment}"`;
  return ` by ${entry.user} (${entry.role})${when}${said}`;
}

/**
 * Reads the request an earlier `up` recorded as pending (one GET; none when nothing is recorded).
 * One REJECTED or WITHDRAWN since is reported with a progress line naming who decided, when and
 * their comment, so that the change submitted anew does not hide the refusal; `describe` names
 * what it changes (`the definition of flag "x" in environment "Production"`).
 */
export async function recordedRequest(
  admin: AdminClient,
  pending: PendingChangeRequest | undefined,
  describe: string,
): Promise<RecordedRequest> {
  if (!pending) return { state: "none" };
  const cr = await readOrGone(() => admin.changeRequests.get(pending.id));
  if (!cr) return { state: "ended" };
  if (cr.status === "REQUESTED") return { state: "open", cr };
  if (APPLIED.has(cr.status)) return { state: "applied", cr };
  const words = door();
  progressSink(
    `change request ${cr.id} (${referenceOf(cr.id)}) for ${describe}, recorded as pending by an earlier ${words.apply}, ` +
      `was ${cr.status}${decision(cr)}; nothing of it was applied, so this ${words.apply} makes the change anew`,
  );
  return { state: "ended" };
}

/** The open request of `s`'s object, reported instead of submitting another; a different change is refused. */
export function reuseOpen(cr: ChangeRequest, s: ChangeSubject): ChangeRequest {
  if (!sameChange(cr, s)) throw new OtherChangeRequestOpenError(s, cr);
  progressSink(`change request ${cr.id} for ${s.describe} is still REQUESTED: not submitted again`);
  return cr;
}

/** A change request's title, comment and approvers. */
export interface RequestNote {
  title: string;
  comment: string;
  approvers: readonly string[];
}

/**
 * A write into an environment that may require approvals, the one mechanism of every gated
 * resource's create and update ({@link gatedWrite}).
 */
export interface GatedWrite<Outs> {
  admin: AdminClient;
  /** Where the write goes: the environment whose change permissions decide. */
  wsId: string;
  environmentId: string;
  /** The change as a request, built only when one is needed (a write that goes through needs none). */
  change: () => ChangeSubject;
  /** The recorded request, still REQUESTED ({@link recordedRequest}): reported when it holds this change, nothing written. */
  open?: ChangeRequest | undefined;
  /** The request's note, for the change. */
  note: (s: ChangeSubject) => RequestNote;
  wait: WaitForApprovalInput | undefined;
  /** The direct write, and the outputs after it; a gated environment refuses its first request. */
  write: () => Promise<Outs>;
  /** The outputs while the request waits: what is live, with the request. */
  pending: (p: PendingChangeRequest) => Outs;
  /** The outputs once the request is applied: the object read back. */
  applied: () => Promise<Outs>;
}

/**
 * Writes directly; where the environment requires approvals (the first request refused with
 * 403, confirmed from the change permissions), submits the change as a request instead (or
 * finds it open), and then reports it pending, or waits for it and reads the object back. A
 * recorded request still open with this change is reported without a write.
 */
export async function gatedWrite<Outs>(g: GatedWrite<Outs>): Promise<Outs> {
  let cr: ChangeRequest;
  if (g.open) cr = reuseOpen(g.open, g.change());
  else {
    try {
      return await g.write();
    } catch (e) {
      if (!(await refusedForApprovals(g.admin, e, g.wsId, g.environmentId))) throw e;
      const change = g.change();
      cr = await submitOrFind(g.admin, change, g.note(change));
    }
  }
  const pending = await settle(g.admin, cr, g.change().describe, g.wait);
  return pending ? g.pending(pending) : g.applied();
}

/** A delete in an environment that may require approvals ({@link gatedDelete}). */
export interface GatedDelete {
  admin: AdminClient;
  wsId: string;
  environmentId: string;
  environmentName: string;
  /** The direct delete; a 404 counts as done. */
  remove: () => Promise<unknown>;
  /**
   * The request that removes, through the gate, what the refused delete would have (ARCHIVE),
   * from the live object; `undefined` (or a 404) when nothing is left to remove.
   */
  archive: () => Promise<ChangeSubject | undefined>;
  note: (s: ChangeSubject) => RequestNote;
  wait: WaitForApprovalInput | undefined;
  /** What the failure says stays while the request waits: `the definition stays, and stays in the state`. */
  stays: string;
  /**
   * Once the request is applied, send the direct delete again: what is left holds nothing to
   * approve (a segment's activation emptied of its members). A refusal leaves it, empty.
   */
  removeAfter?: boolean;
}

/**
 * Deletes directly; where the environment requires approvals (the delete refused with 403,
 * confirmed from the change permissions), through an ARCHIVE change request instead, found open
 * rather than submitted twice. The delete succeeds only once nothing is left behind the gate: the
 * request applied (waited for with `waitForApproval`), or nothing left to remove. Otherwise it fails
 * naming the request, so that the resource stays in the state (a delete that succeeds removes it)
 * until the request is approved; the next delete then finds it applied.
 */
export async function gatedDelete(d: GatedDelete): Promise<void> {
  try {
    await deleteIdempotent(d.remove);
    return;
  } catch (e) {
    if (!(await refusedForApprovals(d.admin, e, d.wsId, d.environmentId))) throw e;
  }
  const change = await readOrGone(d.archive);
  if (!change) return;
  // The gated environment may refuse the DELETE before it looks for the object, so an object
  // already gone (an approved ARCHIVE) can show here, as the change request's 404: done.
  const cr = await readOrGone(() => submitOrFind(d.admin, change, d.note(change)));
  if (!cr) return;
  const pending = await settle(d.admin, cr, change.describe, d.wait);
  if (pending) {
    throw new ChangeRequestNotAppliedError(
      `environment "${d.environmentName}" requires approvals: change request ${pending.id} (${pending.reference}) ` +
        `to delete ${change.describe} is ${pending.status}; ${d.stays}, until it is approved. ` +
        "Run the delete again after approval (the request is not submitted again), or set `waitForApproval`",
    );
  }
  if (!d.removeAfter) return;
  await deleteIdempotent(d.remove).catch((e: unknown) => {
    if (!ApiError.isInstance(e) || e.status !== 403) throw e;
  });
}

/** The memo key of an environment's change permissions ({@link approvalsRequired}). */
const approvalsKey = (environmentId: string): string => `approvalsRequired:${environmentId}`;

/**
 * Whether an environment requires approvals: its change permissions, read with a dry-run PATCH
 * of no operations (the list leaves them out, ref admin §1.2), once per process and client, or
 * handed over by the run's previous process (`./gate-ledger.ts`). An environment gone since
 * the list, or out of the key's reach (404, 403), holds nothing this key could gate.
 */
export function approvalsRequired(admin: AdminClient, wsId: string, environmentId: string): Promise<boolean> {
  const handed = handedGate(admin, wsId)?.environments.find((e) => e.id === environmentId);
  if (handed !== undefined) return Promise.resolve(handed.approvals);
  return memo(admin, approvalsKey(environmentId), async () => {
    try {
      const env = await admin.environments.patch(wsId, environmentId, [], { dryRun: true });
      return env.changePermissions?.areApprovalsRequired === true;
    } catch (e) {
      if (ApiError.isInstance(e) && (e.status === 404 || e.status === 403)) return false;
      throw e;
    }
  });
}

/** The key of a client's workspace's facts; `undefined` for a client the settings did not make. */
function gateKey(admin: AdminClient, wsId: string): string | undefined {
  const identity = clientIdentity(admin);
  return identity === undefined ? undefined : `${identity} ${wsId}`;
}

/** The facts handed over for the client's workspace, while young enough. */
function handedGate(admin: AdminClient, wsId: string): GateFacts | undefined {
  const key = gateKey(admin, wsId);
  return key === undefined ? undefined : handedOwnerGate(key, MEMO_TTL_MS);
}

/** The delete of an object the service deletes with what it holds in every environment ({@link ownerDeleteGate}). */
export interface OwnerDelete {
  admin: AdminClient;
  wsId: string;
  /** The owner, for messages: `flag "checkout" in workspace "Default"`. */
  describe: string;
  /** What it is, for messages: `flag`. */
  noun: string;
  /** What it holds per environment, for messages: `definitions`. */
  holds: string;
  /** The ARCHIVE request of what the owner holds in the environment; `undefined` (or a 404) when it holds nothing there. */
  archiveIn: (env: { id: string; name: string }) => Promise<ChangeSubject | undefined>;
  note: (s: ChangeSubject) => RequestNote;
}

/**
 * The gate of an owner's delete: deleting a flag (a segment) deletes its definitions (members)
 * in every environment, so Pulumi's `deletedWith` skips their own deletes. Where an environment
 * requires approvals ({@link approvalsRequired}) and the owner holds something there, the owner's
 * delete first takes it through an ARCHIVE change request (found open rather than submitted
 * twice, such as the one the held resource's own delete submitted), and fails, naming each
 * environment and request, until every one is applied: the owner stays, and stays in the state,
 * and nothing goes behind the gate. An environment that requires no approvals costs one dry-run
 * read per process, and nothing per delete.
 */
export async function ownerDeleteGate(o: OwnerDelete): Promise<void> {
  const waiting: string[] = [];
  for (const env of await gatedEnvironments(o.admin, o.wsId)) {
    const change = await readOrGone(() => o.archiveIn(env));
    if (!change) continue;
    const cr = await readOrGone(() => submitOrFind(o.admin, change, o.note(change)));
    if (!cr) continue;
    const pending = await settle(o.admin, cr, change.describe, undefined);
    if (pending) {
      waiting.push(
        `Environment "${env.name}": change request ${pending.id} (${pending.reference}) to delete ${change.describe} is ${pending.status}.`,
      );
    }
  }
  if (waiting.length === 0) return;
  throw new ChangeRequestNotAppliedError(
    `${o.describe} is not deleted: deleting it would also delete its ${o.holds} in environments that require approvals, without approval. ` +
      `${waiting.join(" ")} The ${o.noun} stays, and stays in the state, until each is approved; ` +
      "run the delete again then (the requests are not submitted again)",
  );
}

/**
 * The environments of workspace `wsId` that require approvals: the environment list and each
 * one's change permissions, both read once per process and client (`memo`), or handed over by
 * the run's previous process (`./gate-ledger.ts`); what was read is noted to hand on.
 */
export async function gatedEnvironments(
  admin: AdminClient,
  wsId: string,
): Promise<{ id: string; name: string }[]> {
  const handed = handedGate(admin, wsId);
  if (handed !== undefined)
    return handed.environments.filter((e) => e.approvals).map(({ id, name }) => ({ id, name }));
  const envs = await workspaceEnvironments(admin, wsId);
  const gated = await Promise.all(envs.map((env) => approvalsRequired(admin, wsId, env.id)));
  const key = gateKey(admin, wsId);
  if (key !== undefined) {
    // As old as the oldest of the reads (a lookup may have listed the environments earlier).
    const at = Math.min(
      ...[environmentsKey(wsId), ...envs.map((e) => approvalsKey(e.id))].map(
        (k) => memoLoadedAt(admin, k) ?? Date.now(),
      ),
    );
    noteOwnerGate(key, {
      at,
      environments: envs.map((e, i) => ({ id: e.id, name: e.name, approvals: gated[i] === true })),
    });
  }
  return envs.filter((_, i) => gated[i]).map(({ id, name }) => ({ id, name }));
}

/**
 * Reads ahead what {@link ownerDeleteGate} reads first in workspace `wsId`
 * ({@link gatedEnvironments}), without waiting and without failing: a Terraform run holds a flag's
 * definition deletes back for the flag's (`../terraform/held-deletes.ts`), so the reads go out
 * while OpenTofu walks the held deletes, not in front of the flag's DELETE. Once read, a call
 * costs nothing more (`memo`); a read that fails is not kept: the gate reads it again, and fails
 * there.
 */
export function readAheadOwnerGate(admin: AdminClient, wsId: string): void {
  gatedEnvironments(admin, wsId).catch(() => {});
}

/** Whether a recorded pending request is still REQUESTED (refresh: one GET), as the pending output. */
export async function stillPending(
  admin: AdminClient,
  pending: PendingChangeRequest | undefined,
): Promise<PendingChangeRequest | undefined> {
  if (!pending) return undefined;
  // A request the service no longer knows is no longer pending; any other failure fails the read.
  const cr = await admin.changeRequests.get(pending.id).catch((e: unknown) => {
    if (isNotFound(e)) return undefined;
    throw e;
  });
  return cr?.status === "REQUESTED" ? pendingOf(cr) : undefined;
}

/** The request's note: the `changeRequest` input, else the resource's title and comment, else `fallback`. */
export function requestNote(
  input: ChangeRequestInput | undefined,
  fallback: { title: string; comment: string },
): RequestNote {
  return {
    title: input?.title ?? fallback.title,
    comment: input?.comment ?? fallback.comment,
    approvers: input?.approvers ?? [],
  };
}
