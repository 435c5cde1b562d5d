/**
 * Feature flag definitions per environment: spec §2 "Feature flag definition", §3 "Environment
 * definition of a flag", §4 "Flag definitions", §7; ref admin §2-3.
 *
 * Path: `/splits/ws/{ws}/{flagNameOrId}/environments/{envIdOrName}` (ref §2: environment id or
 * name; names URL-decoded).
 * - `GET` → the definition; 404 "Could not find splitmetadata <x>" when there is none (spec §7).
 * - `POST` → creates it: the body is validated with `DefinitionBody` and `validateDefinition`
 *   (buckets sum to 100, treatments exist, ...) plus the per-matcher field rules of ref §3; the
 *   response is the definition as sent plus `creationTime` and `lastUpdateTime`. 409 when one
 *   exists (ref §2, inferred).
 * - `PUT` → full replace (ref §2): omitted `rules` ⇒ `[]`, omitted `trafficAllocation` ⇒ 100,
 *   `killed` kept unless sent (inferred).
 * - `PATCH` → RFC 6902 JSON Patch applied with `rfc6902` to the whole definition; the result is
 *   validated as a whole; an invalid result is 400 and nothing changes. A failed `test` is 409.
 * - `flagSets: [{id, type}]` (ref §2): the flag sets the flag belongs to in this environment, each
 *   a flag set of the workspace (400 naming `flagSets[i].id`); GET always has it (`[]` when none);
 *   a PUT without it keeps the current sets (inferred); `replace /flagSets` by PATCH.
 * - `DELETE` → removes it and returns `true`; the SDK then gets ARCHIVED and `control`.
 * - `PUT …/kill`, `PUT …/restore` (ref §1.1) → the definition with `killed` set / cleared.
 * - `GET /splits/ws/{ws}/environments/{env}?offset&limit` → `{objects, offset, limit, totalCount}`.
 * title/comment: body fields on POST/PUT, query parameters on PATCH/DELETE; a workspace with
 * `requiresTitleAndComments` refuses a change without them with an empty 400 (spec §7). They are
 * never stored or echoed (ref §2: GET does not return them).
 * @module
 */
import { Hono } from "hono";
import { DefinitionBody, LIMITS, validateDefinition } from "../../sdk/admin/schemas";
import { conversionProblems } from "../../sdk/split/convert";
import type { AppEnv } from "../context";
import { badRequest, fieldName, notFound } from "../errors";
import type {
  DefinitionDocument,
  DefinitionRecord,
  EnvironmentRecord,
  FlagRecord,
  Store,
  WorkspaceRecord,
} from "../store";
import {
  type AdminContext,
  applyJsonPatch,
  assertDirectWrite,
  definitionJson,
  environmentOr404,
  offsetPage,
  offsetParams,
  parsePatch,
  parseValue,
  readBody,
  requireTitleAndComment,
  workspaceOr404,
} from "./common";

/**
 * Validates a whole definition document with the rules shared by the provider and the policy
 * pack: `validateDefinition` (sums, treatments, matcher fields) and `conversionProblems` (the
 * field each matcher type needs, ref §3). Throws a 400 naming the first field.
 */
export function assertValidDefinition(doc: DefinitionDocument): void {
  const problems = [...validateDefinition(doc), ...conversionProblems(doc)].map(
    (p) => `${fieldName(p.path)}: ${p.message}`,
  );
  if (problems.length)
    throw badRequest(problems[0] ?? "invalid definition", problems.length > 1 ? problems.join("; ") : "");
}

/**
 * The lists the spec leaves open, sent as `null`, read as absent (empty): the davidji99 Terraform
 * provider's Go client sends `"rules": null` for a definition without rules, and Go
 * clients send `null` for any empty slice (a treatment's `keys` and `segments`, a matcher's
 * `strings`).
 */
function dropNullLists(value: unknown): unknown {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return value;
  const body = { ...(value as Record<string, unknown>) };
  const without = (o: unknown, keys: readonly string[]) => {
    if (typeof o !== "object" || o === null || Array.isArray(o)) return o;
    const copy = { ...(o as Record<string, unknown>) };
    for (const k of keys) if (copy[k] === null) delete copy[k];
    return copy;
  };
  const each = (list: unknown, fn: (item: unknown) => unknown) => (Array.isArray(list) ? list.map(fn) : list);
  if (body.rules === null) delete body.rules;
  body.treatments = each(body.treatments, (t) => without(t, ["keys", "segments"]));
  body.rules = each(body.rules, (r) => {
    const rule = without(r, []) as Record<string, unknown>;
    const cond = rule?.condition as Record<string, unknown> | undefined;
    if (cond && typeof cond === "object")
      rule.condition = { ...cond, matchers: each(cond.matchers, (m) => without(m, ["strings"])) };
    return rule;
  });
  for (const k of ["treatments", "rules"]) if (body[k] === undefined) delete body[k];
  return body;
}

/** Where a document is written: its workspace's flag sets are the only ones it may name. */
export interface DocumentPlace {
  store: Store;
  workspaceId: string;
  /** The document replaced (PUT, change-request UPDATE): its flag sets are kept when none are sent. */
  previous?: DefinitionDocument | undefined;
}

/**
 * The flag sets of a document written at `place` (ref admin §2 `flagSets: [{id, type}]`): each
 * id must be a flag set of the definition's workspace (400 naming `flagSets[i].id`); a repeated id
 * counts once; none sent keeps the replaced document's (clients that predate flag sets, such as
 * the davidji99 provider's Go client, send whole definitions without them: inferred); none at all
 * is `[]`.
 */
function flagSetsAt(doc: DefinitionDocument, place: DocumentPlace): DefinitionDocument["flagSets"] {
  if (doc.flagSets === undefined) return place.previous?.flagSets ?? [];
  const seen = new Set<string>();
  return doc.flagSets.flatMap((ref, i) => {
    const set = place.store.flagSets.get(ref.id);
    if (!set || set.workspaceId !== place.workspaceId)
      throw badRequest(`flagSets[${i}].id: no flag set ${ref.id} in this workspace`);
    if (seen.has(ref.id)) return [];
    seen.add(ref.id);
    return [{ id: ref.id, type: "flag_set" }];
  });
}

/**
 * Parses a POST/PUT body (or a patched document) into the stored document; with a `place`, its
 * `flagSets` are checked against the workspace's flag sets ({@link flagSetsAt}).
 */
export function parseDocument(
  value: unknown,
  place?: DocumentPlace,
): { doc: DefinitionDocument; killed: boolean | undefined } {
  const body = parseValue(DefinitionBody, dropNullLists(value));
  const { title: _t, comment: _c, killed, ...doc } = body;
  assertValidDefinition(doc);
  if (place) doc.flagSets = flagSetsAt(doc, place);
  return { doc, killed };
}

/** Fields of the definition response that a PATCH may not change. */
const READ_ONLY = ["id", "name", "environment", "trafficType", "creationTime", "lastUpdateTime"] as const;
const WRITABLE = new Set([
  "treatments",
  "defaultTreatment",
  "baselineTreatment",
  "trafficAllocation",
  "rules",
  "defaultRule",
  "killed",
  "flagSets",
]);

/**
 * The document a PATCH applies to: the GET response, with an empty `keys` and `segments` array on
 * every treatment so that `add /treatments/<i>/keys/-` works on a treatment without targets
 * (spec §2 addresses individual targets that way).
 */
function patchTarget(store: Store, d: DefinitionRecord): Record<string, unknown> {
  const json = definitionJson(store, d);
  json.treatments = d.doc.treatments.map((t) => ({ ...t, keys: t.keys ?? [], segments: t.segments ?? [] }));
  return json;
}

/** Drops the empty `keys`/`segments` arrays that {@link patchTarget} added and the patch left empty. */
function dropAddedEmpties(before: DefinitionDocument, treatments: unknown): unknown {
  if (!Array.isArray(treatments)) return treatments;
  const had = new Map(before.treatments.map((t) => [t.name, t]));
  return treatments.map((t) => {
    if (typeof t !== "object" || t === null) return t;
    const out = { ...(t as Record<string, unknown>) };
    const orig = had.get(String(out.name));
    for (const f of ["keys", "segments"] as const) {
      if (Array.isArray(out[f]) && (out[f] as unknown[]).length === 0 && orig?.[f] === undefined)
        delete out[f];
    }
    return out;
  });
}

interface Located {
  /** The flag name or id as the path gave it (echoed in the 404, spec §7). */
  flagRef: string;
  ws: WorkspaceRecord;
  flag: FlagRecord;
  env: EnvironmentRecord;
}

/** Routes of definitions under `/internal/api/v2/splits`. */
export function definitionRoutes(store: Store): Hono<AppEnv> {
  const app = new Hono<AppEnv>({ strict: false });
  const base = "/splits/ws/:ws/:flag/environments/:env";

  /** Workspace, flag and environment of the path; a missing flag is the spec's 404 (§7). */
  const locate = (c: AdminContext): Located => {
    const ws = workspaceOr404(store, c, c.req.param("ws") ?? "");
    const flagRef = c.req.param("flag") ?? "";
    const env = environmentOr404(store, c, ws, c.req.param("env") ?? "");
    const flag = store.flags.byRef(ws.id, flagRef);
    if (!flag) throw notFound(`Could not find splitmetadata ${flagRef}`);
    return { flagRef, ws, flag, env };
  };
  /** {@link locate} for a change: refused with 403 where approvals are required. */
  const forWrite = (c: AdminContext): Located => {
    const at = locate(c);
    assertDirectWrite(store, at.env);
    return at;
  };
  const existing = ({ flagRef, flag, env }: Located): DefinitionRecord => {
    const d = store.definitions.get(flag.id, env.id);
    if (!d) throw notFound(`Could not find splitmetadata ${flagRef}`);
    return d;
  };
  const bodyObject = async (c: AdminContext): Promise<Record<string, unknown>> => {
    const body = await readBody(c);
    if (typeof body !== "object" || body === null || Array.isArray(body))
      throw badRequest("body: a definition object is required");
    return body as Record<string, unknown>;
  };

  app.get("/splits/ws/:ws/environments/:env", (c) => {
    const ws = workspaceOr404(store, c, c.req.param("ws"));
    const env = environmentOr404(store, c, ws, c.req.param("env"));
    const { offset, limit } = offsetParams(c, LIMITS.flagsDefault, LIMITS.flagsMax);
    const all = store.definitions
      .inEnvironment(env.id)
      .filter((d) => store.flags.get(d.flagId)?.workspaceId === ws.id);
    const page = offsetPage(all, offset, limit);
    return c.json({ ...page, objects: page.objects.map((d) => definitionJson(store, d)) });
  });

  app.get(base, (c) => c.json(definitionJson(store, existing(locate(c)))));

  app.post(base, async (c) => {
    const at = forWrite(c);
    const body = await bodyObject(c);
    requireTitleAndComment(at.ws, body.title, body.comment);
    const { doc, killed } = parseDocument(body, { store, workspaceId: at.ws.id });
    const d = store.definitions.create(at.flag, at.env, doc, killed ?? false);
    await store.commit();
    return c.json(definitionJson(store, d));
  });

  app.put(base, async (c) => {
    const at = forWrite(c);
    const d = existing(at);
    const body = await bodyObject(c);
    requireTitleAndComment(at.ws, body.title, body.comment);
    const { doc, killed } = parseDocument(body, { store, workspaceId: at.ws.id, previous: d.doc });
    store.definitions.replace(d, doc, killed);
    await store.commit();
    return c.json(definitionJson(store, d));
  });

  app.patch(base, async (c) => {
    const at = forWrite(c);
    const d = existing(at);
    requireTitleAndComment(at.ws, c.req.query("title"), c.req.query("comment"));
    const ops = await parsePatch(c);
    const before = patchTarget(store, d);
    const after = applyJsonPatch(before, ops);
    for (const key of READ_ONLY) {
      if (JSON.stringify(after[key]) !== JSON.stringify(before[key]))
        throw badRequest(`${key}: read-only, it cannot be changed`);
    }
    const writable: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(after)) {
      if ((READ_ONLY as readonly string[]).includes(key)) continue;
      if (!WRITABLE.has(key)) throw badRequest(`${key}: not a field of a feature flag definition`);
      writable[key] = key === "treatments" ? dropAddedEmpties(d.doc, value) : value;
    }
    const { doc, killed } = parseDocument(writable, { store, workspaceId: at.ws.id, previous: d.doc });
    store.definitions.replace(d, doc, killed);
    await store.commit();
    return c.json(definitionJson(store, d));
  });

  app.delete(base, async (c) => {
    const at = forWrite(c);
    const d = existing(at);
    requireTitleAndComment(at.ws, c.req.query("title"), c.req.query("comment"));
    store.removeDefinition(d);
    await store.commit();
    return c.json(true);
  });

  for (const [action, killed] of [
    ["kill", true],
    ["restore", false],
  ] as const) {
    app.put(`${base}/${action}`, async (c) => {
      const d = existing(forWrite(c));
      if (store.definitions.setKilled(d, killed)) await store.commit();
      return c.json(definitionJson(store, d));
    });
  }

  return app;
}
