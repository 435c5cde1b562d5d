/**
 * Segments, minimal (ref admin §1.1 "segments", §1.2), enough for IN_SEGMENT rules and treatment
 * segment targets to be evaluated by the SDK against `/api/segmentChanges`:
 * - `POST /segments/ws/{ws}/trafficTypes/{tt}` `{name, description}` creates one (409 duplicate);
 *   `GET /segments/ws/{ws}?offset&limit&tag` lists them (ref §1.1); `DELETE /segments/ws/{ws}/{name}`
 *   removes it everywhere.
 * - `GET /segments/ws/{ws}/{name}` → the segment, 404 when the workspace has none of that name.
 *   Not in the Postman collection, but the read of every Terraform provider: davidji99
 *   terraform-provider-split `api/segments.go` `Get` (used by `resourceSplitSegmentRead`), Harness
 *   harness-go-sdk `harness/split/segments.go` `Get` (used by terraform-provider-harness
 *   `internal/service/split/resource_fme_segment.go`, whose destroy check takes a 404 for gone:
 *   `fme_check_destroy_test.go`), and harness/mcp-server `fme_standard_segment.get`. The 404's body
 *   is not shown anywhere; it is the API's error body (ref §4).
 * - A segment has `tags: [{name}]` or `null` as a flag does (splitapiclient `resources/segment.py`
 *   reads `tags` `[{'name': ...}]`; the Harness script "Export a List of Tags for Feature Flags and
 *   Segments", https://developer.harness.io/docs/feature-management-experimentation/api/examples/extract-list,
 *   skips segments whose tags are `None`); they are set with the tag route (`./flags.ts`).
 * - `POST /segments/{env}/{name}` activates it in an environment, `DELETE` deactivates it (refused
 *   with 403 where approvals are required and it has members: they would leave without approval);
 *   `GET /segments/ws/{ws}/environments/{env}` lists the active ones (no `id`, ref §1.2).
 * - `PUT /segments/{env}/{name}/uploadKeys?replace=bool {keys, title, comment}` adds keys
 *   (at most 10,000 per call, 100,000 per segment, ref §1.1); title/comment are required when
 *   the workspace requires them (ref §2, TF issue #184). `PUT …/removeKeys {keys, comment}`
 *   removes keys. `GET …/keys?offset&limit` → `{keys:[{key}], offset, limit, totalCount}`.
 * The response bodies of the key uploads are not documented; they return a count summary
 * (inferred). `{env}` is an environment id, or a name when it is unique among the key's
 * environments.
 * @module
 */
import { Hono } from "hono";
import { z } from "zod";
import type { AppEnv } from "../context";
import { notFound } from "../errors";
import type { EnvironmentRecord, SegmentActivation, SegmentRecord, Store, WorkspaceRecord } from "../store";
import {
  type AdminContext,
  anyEnvironmentOr404,
  assertDirectWrite,
  boolQuery,
  environmentOr404,
  KeyedName,
  offsetPage,
  offsetParams,
  parseBody,
  parseValue,
  readBody,
  requireTitleAndComment,
  trafficTypeOr404,
  workspaceOr404,
} from "./common";

/** At most this many keys per upload call (ref §1.1). */
export const MAX_KEYS_PER_UPLOAD = 10_000;

/** Body of `POST /segments/ws/{ws}/trafficTypes/{tt}`. */
export const SegmentCreate = z.object({
  name: KeyedName,
  description: z.string().max(1024, "description must be at most 1024 characters").default(""),
});

/** Body of `PUT …/uploadKeys` and `PUT …/removeKeys`. */
export const SegmentKeysBody = z.object({
  keys: z
    .array(z.string().min(1, "a key must not be empty").max(250, "a key must be at most 250 characters"), {
      error: "keys must be an array of strings",
    })
    .max(MAX_KEYS_PER_UPLOAD, `at most ${MAX_KEYS_PER_UPLOAD} keys per request`),
  title: z.string().optional(),
  comment: z.string().optional(),
});

/** A segment as the API renders it (no id, ref §1.2). */
export const segmentJson = (store: Store, s: SegmentRecord) => ({
  name: s.name,
  description: s.description,
  trafficType: { id: s.trafficTypeId, name: store.trafficTypes.get(s.trafficTypeId)?.name ?? "" },
  creationTime: s.creationTime,
  tags: s.tags,
});

/** The workspace's segment of that name; 404 otherwise. */
export function segmentOr404(store: Store, ws: WorkspaceRecord, name: string): SegmentRecord {
  const s = store.segments.byName(ws.id, name);
  if (!s) throw notFound(`Could not find segment ${name}`);
  return s;
}

const activationJson = (store: Store, s: SegmentRecord, env: EnvironmentRecord, a: SegmentActivation) => ({
  name: s.name,
  environment: { id: env.id, name: env.name },
  trafficType: { id: s.trafficTypeId, name: store.trafficTypes.get(s.trafficTypeId)?.name ?? "" },
  creationTime: a.creationTime,
});

/** Routes under `/internal/api/v2/segments`. */
export function segmentRoutes(store: Store): Hono<AppEnv> {
  const app = new Hono<AppEnv>({ strict: false });

  /** The environment of `/segments/{env}/...`: an id, or a name unique among the key's environments. */
  const envOf = (c: AdminContext) => anyEnvironmentOr404(store, c, c.req.param("env") ?? "");
  /** The body of a key upload or removal, once the workspace's title-and-comment rule holds. */
  const keysBody = async (c: AdminContext, { ws, env }: { ws: WorkspaceRecord; env: EnvironmentRecord }) => {
    assertDirectWrite(store, env);
    const raw = await readBody(c);
    const fields = typeof raw === "object" && raw !== null ? (raw as Record<string, unknown>) : {};
    requireTitleAndComment(
      ws,
      fields.title ?? c.req.query("title"),
      fields.comment ?? c.req.query("comment"),
    );
    return parseValue(SegmentKeysBody, raw);
  };
  const activationOf = (c: AdminContext) => {
    const { env, ws } = envOf(c);
    const seg = segmentOr404(store, ws, c.req.param("name") ?? "");
    const a = store.segments.activation(env.id, seg.id);
    if (!a) throw notFound(`Segment ${seg.name} is not active in environment ${env.name}`);
    return { env, ws, seg, a };
  };

  app.post("/segments/ws/:ws/trafficTypes/:tt", async (c) => {
    const ws = workspaceOr404(store, c, c.req.param("ws"));
    const tt = trafficTypeOr404(store, ws, c.req.param("tt"));
    const body = await parseBody(c, SegmentCreate);
    const seg = store.segments.create(ws, tt, { name: body.name, description: body.description });
    await store.commit();
    return c.json(segmentJson(store, seg));
  });

  app.get("/segments/ws/:ws", (c) => {
    const ws = workspaceOr404(store, c, c.req.param("ws"));
    const { offset, limit } = offsetParams(c, 20, 200);
    const tags = c.req.queries("tag") ?? [];
    const all = store.segments
      .inWorkspace(ws.id)
      .filter((s) => tags.length === 0 || s.tags?.some((t) => tags.includes(t.name)))
      .map((s) => segmentJson(store, s));
    return c.json(offsetPage(all, offset, limit));
  });

  app.get("/segments/ws/:ws/:name", (c) => {
    const ws = workspaceOr404(store, c, c.req.param("ws"));
    return c.json(segmentJson(store, segmentOr404(store, ws, c.req.param("name"))));
  });

  app.delete("/segments/ws/:ws/:name", async (c) => {
    const ws = workspaceOr404(store, c, c.req.param("ws"));
    store.segments.remove(segmentOr404(store, ws, c.req.param("name")));
    await store.commit();
    return c.json(true);
  });

  app.get("/segments/ws/:ws/environments/:env", (c) => {
    const ws = workspaceOr404(store, c, c.req.param("ws"));
    const env = environmentOr404(store, c, ws, c.req.param("env"));
    const { offset, limit } = offsetParams(c, 20, 200);
    const all = store.segments.activeIn(env.id).flatMap((a) => {
      const s = store.segments.get(a.segmentId);
      return s ? [activationJson(store, s, env, a)] : [];
    });
    return c.json(offsetPage(all, offset, limit));
  });

  app.post("/segments/:env/:name", async (c) => {
    const { env, ws } = envOf(c);
    const seg = segmentOr404(store, ws, c.req.param("name"));
    const a = store.segments.activate(seg, env);
    await store.commit();
    return c.json(activationJson(store, seg, env, a));
  });

  app.delete("/segments/:env/:name", async (c) => {
    const { a, env } = activationOf(c);
    store.deactivateSegment(a, env);
    await store.commit();
    return c.json(true);
  });

  app.put("/segments/:env/:name/uploadKeys", async (c) => {
    const { a, ...at } = activationOf(c);
    const body = await keysBody(c, at);
    // `replace=True` is how Python clients spell it (splitapiclient `segment_definition_microclient.py`
    // `import_keys_from_json` formats a bool into the query); the service reads it case-insensitively.
    const replace = boolQuery(c, "replace");
    const { added, removed } = store.segments.uploadKeys(a, body.keys, replace);
    await store.commit();
    return c.json({ added, removed, totalCount: a.members.size });
  });

  app.put("/segments/:env/:name/removeKeys", async (c) => {
    const { a, ...at } = activationOf(c);
    const body = await keysBody(c, at);
    const removed = store.segments.removeKeys(a, body.keys);
    await store.commit();
    return c.json({ added: 0, removed, totalCount: a.members.size });
  });

  app.get("/segments/:env/:name/keys", (c) => {
    const { a } = activationOf(c);
    const { offset, limit } = offsetParams(c, 100, 1000);
    const keys = [...a.members.keys()].slice(offset, offset + limit).map((key) => ({ key }));
    // `totalCount` (ref §1.2) and `count`, which splitapiclient reads (`segment_definition_microclient.py`
    // `get_keys`, `get_key_count`): the real service serves both.
    return c.json({ keys, offset, limit, count: a.members.size, totalCount: a.members.size });
  });

  return app;
}
