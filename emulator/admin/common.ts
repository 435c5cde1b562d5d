/**
 * Helpers shared by the admin API sections: body and query parsing with field-naming 400s,
 * lookups that turn into 404/403, JSON Patch application, and the wire shapes of each object.
 * @module
 */
import type { Context } from "hono";
import { applyPatch, type Operation } from "rfc6902";
import type { z } from "zod";
import { JsonPatch, SegmentCreateBody } from "../../sdk/admin/schemas";
import type { AppEnv } from "../context";
import {
  badRequest,
  conflict,
  EmulatorError,
  emptyBadRequest,
  fieldName,
  notFound,
  zodBadRequest,
} from "../errors";
import { intQuery, readJson, WHOLE_NUMBER } from "../http";
import { scopeOf } from "../middleware/auth";
import type {
  DefinitionRecord,
  EnvironmentRecord,
  FlagRecord,
  GroupRecord,
  Store,
  TrafficTypeRecord,
  UserRecord,
  WorkspaceRecord,
} from "../store";

/**
 * The name of a traffic type or a segment: what the SDK uses as a key (traffic type names in
 * events, segment names in `/api/segmentChanges/{name}`, ref admin §1.1, §6). One schema, the
 * SDK's segment name.
 */
export const KeyedName = SegmentCreateBody.shape.name;

/** The hono context of an admin route. */
export type AdminContext = Context<AppEnv>;

/** Reads the raw JSON body; 400 when it is missing or not JSON. */
export const readBody = (c: AdminContext): Promise<unknown> =>
  readJson(c, { required: "body: a JSON request body is required" });

/** Reads the JSON body and validates it with a schema of `sdk/admin/schemas.ts`; 400 names the field. */
export async function parseBody<S extends z.ZodType>(c: AdminContext, schema: S): Promise<z.output<S>> {
  return parseValue(schema, await readBody(c));
}

/** Validates a value with a schema; 400 names the field. */
export function parseValue<S extends z.ZodType>(schema: S, value: unknown, root = ""): z.output<S> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw zodBadRequest(parsed.error, root, value);
  return parsed.data;
}

/** Reads a JSON Patch body (RFC 6902); 400 for anything else (ref admin §7: non-array refused). */
export async function parsePatch(c: AdminContext): Promise<JsonPatch> {
  const body = await readBody(c);
  if (!Array.isArray(body)) throw badRequest("body: a JSON Patch array of {op, path, value} is required");
  return parseValue(JsonPatch, body, "body");
}

/** `offset` and `limit` of an offset-paginated list. */
export function offsetParams(
  c: AdminContext,
  dfltLimit: number,
  maxLimit: number,
): { offset: number; limit: number } {
  return {
    offset: intQuery(c, "offset", 0, WHOLE_NUMBER, 0),
    limit: intQuery(c, "limit", dfltLimit, WHOLE_NUMBER, 1, maxLimit),
  };
}

/** The offset envelope `{objects, offset, limit, totalCount}`; past the end gives empty objects. */
export function offsetPage<T>(all: T[], offset: number, limit: number) {
  return { objects: all.slice(offset, offset + limit), offset, limit, totalCount: all.length };
}

/** A workspace by id (or name), checked against the key's scope: 404 / 403. */
export function workspaceOr404(store: Store, c: AdminContext, ref: string): WorkspaceRecord {
  const ws = store.workspaces.byRef(ref);
  if (!ws) throw notFound(`Could not find workspace ${ref}`);
  scopeOf(store, c).assertWorkspace(ws);
  return ws;
}

/** An environment of a workspace by id or name (ref admin §2), checked against the scope. */
export function environmentOr404(
  store: Store,
  c: AdminContext,
  ws: WorkspaceRecord,
  ref: string,
): EnvironmentRecord {
  const env = store.environments.byRef(ws.id, ref);
  if (!env) throw notFound(`Could not find environment ${ref}`);
  scopeOf(store, c).assertEnvironment(env);
  return env;
}

/**
 * The environment of the paths that name no workspace (`/segments/{env}/...`,
 * `/large-segments/{env}/...`): an id, or a name unique among the key's environments.
 */
export function anyEnvironmentOr404(
  store: Store,
  c: AdminContext,
  ref: string,
): { env: EnvironmentRecord; ws: WorkspaceRecord } {
  const scope = scopeOf(store, c);
  let env = store.environments.get(ref);
  if (!env) {
    const named = store.environments.list().filter((e) => e.name === ref && scope.environmentAllowed(e));
    if (named.length > 1)
      throw badRequest(`environment: ${ref} names environments in several workspaces; use its id`);
    env = named[0];
  }
  const ws = env && store.workspaces.get(env.workspaceId);
  if (!env || !ws) throw notFound(`Could not find environment ${ref}`);
  scope.assertEnvironment(env);
  return { env, ws };
}

/** 403 where the environment requires approvals for a direct write (`Store.assertDirectWrite`). */
export function assertDirectWrite(store: Store, env: EnvironmentRecord): void {
  store.assertDirectWrite(env);
}

/** Whether a query flag is set: the real service reads booleans case-insensitively (`True` from Python). */
export function boolQuery(c: AdminContext, name: string, fallback = false): boolean {
  const raw = c.req.query(name);
  if (raw === undefined || raw === "") return fallback;
  const lower = raw.toLowerCase();
  if (lower !== "true" && lower !== "false") throw badRequest(`${name}: must be true or false, got "${raw}"`);
  return lower === "true";
}

/** A flag by name or id (ref admin §2: GET by id is what clients do), or 404. */
export function flagOr404(store: Store, ws: WorkspaceRecord, ref: string): FlagRecord {
  const flag = store.flags.byRef(ws.id, ref);
  if (!flag) throw notFound(`Could not find split ${ref}`);
  return flag;
}

/** A traffic type of a workspace by name or id, or 404. */
export function trafficTypeOr404(store: Store, ws: WorkspaceRecord, ref: string): TrafficTypeRecord {
  const tt = store.trafficTypes.byRef(ws.id, ref);
  if (!tt) throw notFound(`Could not find traffic type ${ref}`);
  return tt;
}

/**
 * A workspace with `requiresTitleAndComments` refuses a change without both: 400 with an empty
 * body (spec §7; ref admin §2: query parameters for PATCH/DELETE, body fields for POST/PUT).
 */
export function requireTitleAndComment(ws: WorkspaceRecord, title: unknown, comment: unknown): void {
  if (!ws.requiresTitleAndComments) return;
  const present = (v: unknown) => typeof v === "string" && v.trim() !== "";
  if (!present(title) || !present(comment)) throw emptyBadRequest();
}

/**
 * Applies an RFC 6902 patch to a deep copy of `doc` with the `rfc6902` library, stopping at the
 * first failed operation. A failed `test` is a 409 Conflict (inferred: the document is not in the
 * state the client expected); a missing path or an invalid operation is a 400. The original is
 * never modified.
 */
export function applyJsonPatch<T>(doc: T, ops: JsonPatch): T {
  const copy = structuredClone(doc);
  for (const [i, op] of ops.entries()) {
    const [err] = applyPatch(copy, [op as Operation]);
    if (!err) continue;
    if (err.name === "TestError") {
      throw conflict(
        `JSON Patch operation ${i} (test ${op.path}) failed: the current value differs, nothing was changed`,
      );
    }
    if (err.name === "MissingError") {
      throw badRequest(`${fieldName(["body", i, "path"])}: ${op.op} ${op.path}: the path does not exist`);
    }
    throw badRequest(`${fieldName(["body", i])}: ${op.op} ${op.path}: ${err.message}`);
  }
  return copy;
}

// ---------------------------------------------------------------------------------------------
// Wire shapes (spec §2)

/** A workspace on the wire. */
export const workspaceJson = (w: WorkspaceRecord) => ({
  name: w.name,
  type: "workspace" as const,
  id: w.id,
  requiresTitleAndComments: w.requiresTitleAndComments,
  // The Harness project the workspace is ([HSDK] `harness/split/workspaces.go` `Workspace`, both
  // `omitempty`): only on a project's workspace.
  ...(w.organizationIdentifier !== undefined && w.projectIdentifier !== undefined
    ? { organizationIdentifier: w.organizationIdentifier, projectIdentifier: w.projectIdentifier }
    : {}),
});

/** An environment on the wire (the list shape: ref admin §1.2). */
export const environmentJson = (e: EnvironmentRecord) => ({
  name: e.name,
  id: e.id,
  production: e.production,
});

/** A traffic type on the wire (ref admin §1.1; the `type` value is undocumented, inferred). */
export const trafficTypeJson = (store: Store, t: TrafficTypeRecord) => {
  const ws = store.workspaces.get(t.workspaceId);
  return {
    name: t.name,
    type: "trafficType",
    id: t.id,
    displayAttributeId: t.displayAttributeId,
    workspace: ws ? { id: ws.id, name: ws.name, type: "workspace" } : null,
  };
};

/** A flag on the wire (spec §2 "Feature flag", ref admin §1.1). */
export function flagJson(store: Store, f: FlagRecord) {
  const tt = store.trafficTypes.get(f.trafficTypeId);
  const rs = store.rolloutStatuses.get(f.rolloutStatusId);
  return {
    id: f.id,
    name: f.name,
    description: f.description,
    trafficType: { id: f.trafficTypeId, name: tt?.name ?? "" },
    creationTime: f.creationTime,
    rolloutStatus: { id: f.rolloutStatusId, name: rs?.name ?? "" },
    rolloutStatusTimestamp: f.rolloutStatusTimestamp,
    tags: f.tags && f.tags.length > 0 ? f.tags.map((t) => ({ name: t.name })) : null,
    owners: (f.owners ?? []).map((o) => ({ id: o.id, type: o.type })),
  };
}

/** A definition on the wire: the document plus identity and times (spec §2; never title/comment, ref §2). */
export function definitionJson(store: Store, d: DefinitionRecord) {
  const flag = store.flags.get(d.flagId);
  const env = store.environments.get(d.environmentId);
  const tt = flag ? store.trafficTypes.get(flag.trafficTypeId) : undefined;
  const out: Record<string, unknown> = {
    id: d.flagId,
    name: flag?.name ?? "",
    environment: { id: d.environmentId, name: env?.name ?? "" },
    trafficType: { id: flag?.trafficTypeId ?? "", name: tt?.name ?? "" },
    killed: d.killed,
    treatments: d.doc.treatments,
    defaultTreatment: d.doc.defaultTreatment,
  };
  if (d.doc.baselineTreatment !== undefined) out.baselineTreatment = d.doc.baselineTreatment;
  out.trafficAllocation = d.doc.trafficAllocation;
  out.rules = d.doc.rules;
  out.defaultRule = d.doc.defaultRule;
  out.flagSets = (d.doc.flagSets ?? []).map((f) => ({ id: f.id, type: f.type }));
  out.creationTime = d.creationTime;
  out.lastUpdateTime = d.lastUpdateTime;
  return out;
}

/** A user on the wire (spec §2 "User"). */
export const userJson = (u: UserRecord) => ({
  id: u.id,
  type: "user" as const,
  name: u.name,
  email: u.email,
  status: u.status,
  "2fa": u.twoFactor,
  groups: u.groups.map((id) => ({ id, type: "group" as const })),
});

/** A group on the wire (spec §2 "Group"). */
export const groupJson = (g: GroupRecord) => ({
  id: g.id,
  name: g.name,
  description: g.description,
  type: "group" as const,
});

/**
 * A page of a marker-paginated list (`{data, nextMarker, previousMarker, limit, count}`, as the
 * users list, spec §4): the items after the one the `after` marker names. Markers are opaque
 * (base64url of an item's id); an unknown one is a 400.
 */
export function markerPage<T>(
  c: AdminContext,
  all: T[],
  idOf: (t: T) => string,
  dfltLimit: number,
  maxLimit: number,
) {
  const limit = intQuery(c, "limit", dfltLimit, WHOLE_NUMBER, 1, maxLimit);
  const after = c.req.query("after");
  let start = 0;
  if (after) {
    const id = Buffer.from(after, "base64url").toString();
    const at = all.findIndex((t) => idOf(t) === id);
    if (at < 0) throw badRequest(`after: ${after} is not a marker of this list`);
    start = at + 1;
  }
  const data = all.slice(start, start + limit);
  const marker = (t: T | undefined) => (t ? Buffer.from(idOf(t)).toString("base64url") : null);
  return {
    data,
    nextMarker: start + limit < all.length ? marker(data.at(-1)) : null,
    previousMarker: start > 0 ? marker(all[start - 1]) : null,
    limit,
    count: data.length,
  };
}

/**
 * A bulk write: each item saved on its own, a refused one reported in `failed` with its status
 * and message (splitapiclient `identity_microclient.py` `save_all` reads `{objects, failed,
 * metadata}`). The body must be an array of `what`.
 */
export async function bulkSave<T>(c: AdminContext, what: string, save: (item: unknown, i: number) => T) {
  const body = await readBody(c);
  if (!Array.isArray(body)) throw badRequest(`body: an array of ${what} is required`);
  const objects: T[] = [];
  const failed: { object: unknown; status: number; message: string }[] = [];
  for (const [i, item] of body.entries()) {
    try {
      objects.push(save(item, i));
    } catch (e) {
      if (!(e instanceof EmulatorError)) throw e;
      failed.push({ object: item, status: e.status, message: e.message });
    }
  }
  return { objects, failed, metadata: { total: body.length, failed: failed.length } };
}
