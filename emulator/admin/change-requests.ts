/**
 * Change requests (ref admin §1.1 "change requests"; the bodies splitapiclient 3.5.9 sends,
 * `microclients/change_request_microclient.py`, `resources/{split,segment,rule_based_segment,
 * large_segment}_definition.py`, and the answer `resources/change_request.py` reads):
 * - `POST /changeRequests/ws/{ws}/environments/{env} {split | segment | largeSegment |
 *   ruleBasedSegment, operationType, title, comment, approvers, rolloutStatus?}`: the change is
 *   checked as the direct write would be (a split's definition as a definition POST, a
 *   rule-based segment's rules as its PUT), the object must exist in the environment, and one
 *   REQUESTED change per object and environment may be open (409, inferred). Where the
 *   environment requires approvals (`changePermissions.areApprovalsRequired`) it waits as
 *   REQUESTED; elsewhere it is applied at once and PUBLISHED (inferred).
 *   Operations: a split CREATE/UPDATE (the definition, made or replaced), KILL, RESTORE, ARCHIVE
 *   (the definition removed); a segment CREATE/UPDATE (its `keys` added) or ARCHIVE (removed); a
 *   rule-based segment CREATE/UPDATE (rules and exclusions) or ARCHIVE (out of the environment);
 *   a large segment UPLOAD (members replaced by a CSV file sent to `transactionMetadata.url`,
 *   `large_segment_definition_microclient.py` `upload_file`) or ARCHIVE (every member removed).
 * - `PUT /changeRequests/{id} {status: APPROVED | REJECTED | WITHDRAWN, comment}`: only a
 *   REQUESTED change moves (400 otherwise); the submitting key may withdraw it and never approve
 *   or reject it (403: ref admin §9.2, harness provider issue #1404, "the submitter can't
 *   self-approve"); an approved change is applied and PUBLISHED.
 * - `GET /changeRequests?status&environmentId&limit&after` → `{data, nextMarker,
 *   previousMarker, limit, count}` (the client follows `nextMarker`); `GET /changeRequests/{id}`.
 * Every answer carries all four object keys, `null` but for the one changed: the client's
 * `find` reads `split` and `segment` of every request.
 * @module
 */
import { randomUUID } from "node:crypto";
import { Hono } from "hono";
import { ChangeRequestCreate, ChangeRequestStatus, ChangeRequestStatusBody } from "../../sdk/admin/schemas";
import type { AppEnv } from "../context";
import { badRequest, forbidden, notFound } from "../errors";
import { emptyResponse } from "../http";
import { scopeOf } from "../middleware/auth";
import {
  type ChangeRequestRecord,
  type ChangeTarget,
  type EnvironmentRecord,
  MAX_SEGMENT_KEYS,
  type ParsedChange,
  type Store,
  type WorkspaceRecord,
} from "../store";
import {
  type AdminContext,
  environmentOr404,
  flagOr404,
  markerPage,
  parseBody,
  parseValue,
  requireTitleAndComment,
  workspaceOr404,
} from "./common";
import { parseDocument } from "./flag-definition";
import { KIND_PATH, ruleBasedContent } from "./segment-kinds";

type Body = ReturnType<typeof ChangeRequestCreate.parse>;

/** Which operations apply to which kind of object. */
const OPERATIONS: Record<ChangeTarget["kind"], readonly string[]> = {
  split: ["CREATE", "UPDATE", "KILL", "RESTORE", "ARCHIVE"],
  segment: ["CREATE", "UPDATE", "ARCHIVE"],
  largeSegment: ["UPLOAD", "ARCHIVE"],
  ruleBasedSegment: ["CREATE", "UPDATE", "ARCHIVE"],
};

/** Reads the keys of an uploaded CSV file: one key a line, an optional `key` header. */
export function csvKeys(text: string): string[] {
  const lines = text
    .split(/\r?\n/)
    .map((l) => l.split(",")[0]?.trim() ?? "")
    .filter((l) => l !== "");
  if (lines[0]?.toLowerCase() === "key") lines.shift();
  return [...new Set(lines)];
}

/**
 * What applying a request will write, parsed from its payload (a split's document over its
 * current definition, a rule-based segment's content); the store applies it
 * (`Store.submitChangeRequest`, `Store.decideChangeRequest`).
 */
function parsedChange(
  store: Store,
  r: Pick<ChangeRequestRecord, "workspaceId" | "environmentId" | "operationType" | "target">,
): ParsedChange {
  const { kind, name, payload } = r.target;
  if (r.operationType !== "CREATE" && r.operationType !== "UPDATE") return null;
  if (kind === "split") {
    const flag = store.flags.byRef(r.workspaceId, name);
    const previous = flag && store.definitions.get(flag.id, r.environmentId)?.doc;
    return parseDocument(payload, { store, workspaceId: r.workspaceId, previous });
  }
  if (kind === "ruleBasedSegment")
    return { ruleBased: ruleBasedContent(payload as Parameters<typeof ruleBasedContent>[0]) };
  return null;
}

/** Routes under `/internal/api/v2/changeRequests`. */
export function changeRequestRoutes(store: Store): Hono<AppEnv> {
  const app = new Hono<AppEnv>({ strict: false });
  const crs = store.changeRequests;

  const crJson = (c: AdminContext, r: ChangeRequestRecord) => {
    const env = store.environments.get(r.environmentId);
    const ws = store.workspaces.get(r.workspaceId);
    const pending = r.upload && r.upload.keys === null;
    const origin = new URL(c.req.url);
    return {
      id: r.id,
      status: r.status,
      title: r.title,
      comment: r.comment,
      approvers: r.approvers,
      operationType: r.operationType,
      comments: r.comments,
      rolloutStatus: r.rolloutStatusId ? { id: r.rolloutStatusId } : null,
      environment: { id: r.environmentId, name: env?.name ?? "" },
      workspace: { id: r.workspaceId, name: ws?.name ?? "", type: "workspace" },
      split: null,
      segment: null,
      largeSegment: null,
      ruleBasedSegment: null,
      [r.target.kind]: r.target.payload,
      ...(pending && r.upload
        ? {
            transactionMetadata: {
              url: `${origin.origin}/internal/api/v2${KIND_PATH.large}/uploads/${r.upload.token}`,
              headers: { Host: [origin.host] },
            },
          }
        : {}),
    };
  };

  /** The object a change names, checked to exist in the environment, and its validated payload. */
  const targetOf = (ws: WorkspaceRecord, env: EnvironmentRecord, body: Body): ChangeTarget => {
    const kind = (["split", "segment", "largeSegment", "ruleBasedSegment"] as const).find((k) => body[k]);
    const payload = kind && (body[kind] as Record<string, unknown> & { name: string });
    if (!kind || !payload)
      throw badRequest("body: one of split, segment, largeSegment, ruleBasedSegment is required");
    if (!OPERATIONS[kind].includes(body.operationType))
      throw badRequest(`operationType: ${body.operationType} does not apply to a ${kind}`);
    const name = payload.name;
    if (kind === "split") {
      const flag = flagOr404(store, ws, name);
      if (body.operationType === "CREATE" || body.operationType === "UPDATE") {
        const { name: _n, ...definition } = payload;
        parseDocument(definition, { store, workspaceId: ws.id });
      } else if (!store.definitions.get(flag.id, env.id))
        throw notFound(`Could not find splitmetadata ${name}`);
    } else if (kind === "segment") {
      const seg = store.segments.byName(ws.id, name);
      if (!seg || !store.segments.activation(env.id, seg.id))
        throw notFound(`Segment ${name} is not active in environment ${env.name}`);
    } else {
      const segs = store.segmentKinds(kind === "largeSegment" ? "large" : "rule-based");
      const seg = segs.byName(ws.id, name);
      if (!seg || !segs.activation(env.id, seg.id))
        throw notFound(`${segs.label} ${name} is not active in environment ${env.name}`);
      if (kind === "ruleBasedSegment") ruleBasedContent(payload as Parameters<typeof ruleBasedContent>[0]);
    }
    return { kind, name, payload };
  };

  const crOr404 = (c: AdminContext): ChangeRequestRecord => {
    const id = c.req.param("id") ?? "";
    const r = crs.get(id);
    const env = r && store.environments.get(r.environmentId);
    if (!r || !env) throw notFound(`Could not find change request ${id}`);
    scopeOf(store, c).assertEnvironment(env);
    return r;
  };

  app.post("/changeRequests/ws/:ws/environments/:env", async (c) => {
    const ws = workspaceOr404(store, c, c.req.param("ws"));
    const env = environmentOr404(store, c, ws, c.req.param("env"));
    const body = await parseBody(c, ChangeRequestCreate);
    requireTitleAndComment(ws, body.title, body.comment);
    if (body.rolloutStatus && !store.rolloutStatuses.get(body.rolloutStatus.id))
      throw badRequest(`rolloutStatus.id: ${body.rolloutStatus.id} is not a rollout status`);
    const target = targetOf(ws, env, body);
    const key = c.get("key");
    const fields = {
      workspaceId: ws.id,
      environmentId: env.id,
      operationType: body.operationType,
      title: body.title ?? null,
      comment: body.comment ?? null,
      approvers: body.approvers ?? [],
      rolloutStatusId: body.rolloutStatus?.id ?? null,
      target,
      submittedBy: key.id,
      comments: [{ comment: body.comment ?? "", user: key.name, role: "SUBMITTER", timestamp: Date.now() }],
      creationTime: Date.now(),
      upload: body.operationType === "UPLOAD" ? { token: randomUUID(), keys: null } : null,
    };
    const r = store.submitChangeRequest(fields, parsedChange(store, fields));
    await store.commit();
    return c.json(crJson(c, r));
  });

  app.get("/changeRequests", (c) => {
    const status = c.req.query("status");
    if (status) parseValue(ChangeRequestStatus, status, "status");
    const envRef = c.req.query("environmentId");
    const scope = scopeOf(store, c);
    const all = crs.list().filter((r) => {
      const env = store.environments.get(r.environmentId);
      return (
        env &&
        scope.environmentAllowed(env) &&
        (!status || r.status === status) &&
        (!envRef || env.id === envRef || env.name === envRef)
      );
    });
    const page = markerPage(c, all, (r) => r.id, 20, 100);
    return c.json({ ...page, data: page.data.map((r) => crJson(c, r)) });
  });

  app.get("/changeRequests/:id", (c) => c.json(crJson(c, crOr404(c))));

  app.put("/changeRequests/:id", async (c) => {
    const r = crOr404(c);
    const body = await parseBody(c, ChangeRequestStatusBody);
    if (r.status !== "REQUESTED")
      throw badRequest(
        `Change request ${r.id} is ${r.status}; only a REQUESTED change request can change status`,
      );
    const key = c.get("key");
    const mine = key.id === r.submittedBy;
    if (body.status === "WITHDRAWN" && !mine)
      throw forbidden(`Only the submitter can withdraw change request ${r.id}`);
    if (body.status !== "WITHDRAWN" && mine)
      throw forbidden(`The submitter of change request ${r.id} cannot approve or reject it`);
    const by = {
      user: key.name,
      role: mine ? "SUBMITTER" : "APPROVER",
      comment: body.comment ?? "",
    } as const;
    store.decideChangeRequest(r, body.status, by, body.status === "APPROVED" ? parsedChange(store, r) : null);
    await store.commit();
    return c.json(crJson(c, r));
  });

  return app;
}

/**
 * The upload address of a large segment's change request: `PUT
 * /large-segments/uploads/{token}` with the CSV file; the token is the credential, as a presigned
 * address is (no admin key). The members are replaced once the change is approved (or needs no
 * approval), and not before: until then the SDK's `/memberships` (`../sdk/memberships.ts`) serves
 * the members of the last applied upload. 404 for an unknown or used token; 400 for a file of more
 * than {@link MAX_SEGMENT_KEYS} members.
 */
export function largeSegmentUploadRoutes(store: Store): Hono<AppEnv> {
  const app = new Hono<AppEnv>({ strict: false });
  app.put(`${KIND_PATH.large}/uploads/:token`, async (c) => {
    const r = store.changeRequests.byUploadToken(c.req.param("token"));
    if (!r || r.upload?.keys !== null) throw notFound("Could not find the upload");
    const keys = csvKeys(await c.req.text());
    // The bound of a segment's members (ref admin §1.1) holds for an upload too.
    if (keys.length > MAX_SEGMENT_KEYS)
      throw badRequest(
        `file: a large segment upload holds at most ${MAX_SEGMENT_KEYS} members, this one has ${keys.length}`,
      );
    store.uploadChangeRequest(r, keys);
    await store.commit();
    return emptyResponse(200);
  });
  return app;
}
