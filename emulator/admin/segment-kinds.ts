/**
 * Large segments and rule-based segments (ref admin §9.2 `harness_fme_large_segment`,
 * `harness_fme_rule_based_segment` and their environment associations; the paths and shapes are
 * those of splitapiclient 3.5.9 `microclients/large_segment*_microclient.py` and
 * `microclients/rule_based_segment*_microclient.py`), one route set per kind under
 * `/large-segments` and `/rule-based-segments`:
 * - `POST /{kind}/ws/{ws}/trafficTypes/{tt} {name, description}` → `{name, description,
 *   trafficType:{id, name}, creationTime, tags:null}`; 409 for a name taken (inferred);
 * - `GET /{kind}/ws/{ws}[?offset&limit]` → a bare array (both clients iterate the body);
 *   `GET /{kind}/ws/{ws}/{name}` → the segment with its `id` (the Harness Go SDK's `Get`);
 *   `DELETE /{kind}/ws/{ws}/{name}` → `true`, and the segment leaves every environment;
 * - `POST /{kind}/{env}/{name}` activates it in an environment → its definition `{name,
 *   environment:{id, name}, trafficType, creationTime}` (a rule-based one adds `rules`,
 *   `excludedKeys`, `excludedSegments`, empty at first); 409 when active;
 *   `DELETE /{kind}/{env}/{name}` → `true`, refused with 403 where approvals are required and
 *   the activation holds members, rules or exclusions (they would leave without approval; an
 *   ARCHIVE change request removes them; inferred from ref admin §2 "direct writes return 403");
 * - `GET /{kind}/ws/{ws}/environments/{env}[?offset&limit]` → a bare array of definitions;
 * - rule-based only: `PUT /rule-based-segments/ws/{ws}/{name}/environments/{env} {rules,
 *   excludedKeys, excludedSegments, title?, comment?}` → the definition. Rules are conditions
 *   of the same typed matchers as definitions' rules, checked by the same rules (ref admin §3);
 *   refused with 403 where approvals are required, like every direct write.
 * A large segment's members arrive only through change requests (`change-requests.ts`).
 * @module
 */
import { Hono } from "hono";
import { RuleBasedSegmentDefinitionBody, SegmentCreateBody, type SegmentRule } from "../../sdk/admin/schemas";
import type { AppEnv } from "../context";
import { notFound } from "../errors";
import type {
  EnvironmentRecord,
  KindActivationRecord,
  KindSegmentRecord,
  SegmentKind,
  Store,
  WorkspaceRecord,
} from "../store";
import {
  type AdminContext,
  anyEnvironmentOr404,
  assertDirectWrite,
  environmentOr404,
  parseBody,
  requireTitleAndComment,
  trafficTypeOr404,
  workspaceOr404,
} from "./common";
import { assertValidDefinition } from "./flag-definition";

/** The path prefix of each kind. */
export const KIND_PATH: Record<SegmentKind, string> = {
  large: "/large-segments",
  "rule-based": "/rule-based-segments",
};

/**
 * Checks rule-based segment rules with the definitions' rules (ref admin §3: the field each
 * matcher type needs, patterns that cannot backtrack, ...), as the rules of a one-treatment
 * definition, so a refusal names `rules[i].condition.matchers[j]...` as in a definition.
 */
export function assertValidSegmentRules(rules: SegmentRule[]): void {
  const bucket = [{ treatment: "in", size: 100 }];
  assertValidDefinition({
    treatments: [{ name: "in" }],
    defaultTreatment: "in",
    trafficAllocation: 100,
    rules: rules.map((r) => ({ ...r, buckets: bucket })),
    defaultRule: bucket,
  });
}

/** Routes of one kind of segment. */
export function kindSegmentRoutes(store: Store, kind: SegmentKind): Hono<AppEnv> {
  const app = new Hono<AppEnv>({ strict: false });
  const segs = store.segmentKinds(kind);
  const p = KIND_PATH[kind];

  const ttJson = (s: KindSegmentRecord) => ({
    id: s.trafficTypeId,
    name: store.trafficTypes.get(s.trafficTypeId)?.name ?? "",
  });
  const segmentJson = (s: KindSegmentRecord) => ({
    name: s.name,
    description: s.description,
    trafficType: ttJson(s),
    creationTime: s.creationTime,
    tags: null,
  });
  const definitionJson = (s: KindSegmentRecord, env: EnvironmentRecord, a: KindActivationRecord) => ({
    ...(kind === "large" ? { id: s.id } : {}),
    name: s.name,
    environment: { id: env.id, name: env.name },
    trafficType: ttJson(s),
    creationTime: a.creationTime,
    ...(kind === "rule-based"
      ? { rules: a.rules, excludedKeys: a.excludedKeys, excludedSegments: a.excludedSegments }
      : {}),
  });
  const segmentOf = (ws: WorkspaceRecord, name: string): KindSegmentRecord => {
    const s = segs.byName(ws.id, name);
    if (!s) throw notFound(`Could not find ${segs.label.toLowerCase()} ${name}`);
    return s;
  };
  const activationOf = (env: EnvironmentRecord, s: KindSegmentRecord) => {
    const a = segs.activation(env.id, s.id);
    if (!a) throw notFound(`${segs.label} ${s.name} is not active in environment ${env.name}`);
    return a;
  };
  /** The `offset`/`limit` window of a bare-array list (the rule-based client pages by them). */
  const window = <T>(c: AdminContext, all: T[]) => {
    const offset = Number(c.req.query("offset") ?? 0) || 0;
    const limit = Number(c.req.query("limit") ?? 0) || all.length;
    return all.slice(offset, offset + limit);
  };
  const inEnvPath = (c: AdminContext) => {
    const { env, ws } = anyEnvironmentOr404(store, c, c.req.param("env") ?? "");
    return { env, seg: segmentOf(ws, c.req.param("name") ?? "") };
  };

  app.post(`${p}/ws/:ws/trafficTypes/:tt`, async (c) => {
    const ws = workspaceOr404(store, c, c.req.param("ws"));
    const tt = trafficTypeOr404(store, ws, c.req.param("tt"));
    const body = await parseBody(c, SegmentCreateBody);
    const s = segs.create(ws, tt, { name: body.name, description: body.description ?? null });
    await store.commit();
    return c.json(segmentJson(s));
  });

  app.get(`${p}/ws/:ws`, (c) => {
    const ws = workspaceOr404(store, c, c.req.param("ws"));
    return c.json(window(c, segs.where({ workspaceId: ws.id })).map(segmentJson));
  });

  // One segment by name, with its id: the Harness Go SDK reads each resource so
  // (`harness/split/large_segments.go` `Get` → `LargeSegmentMetadata`, `rule_based_segments.go`
  // `Get`; the Harness provider's `harness_fme_large_segment` and `harness_fme_rule_based_segment`
  // read and import through it); 404 for a name the workspace does not have.
  app.get(`${p}/ws/:ws/:name`, (c) => {
    const ws = workspaceOr404(store, c, c.req.param("ws"));
    const s = segmentOf(ws, c.req.param("name"));
    return c.json({ id: s.id, ...segmentJson(s) });
  });

  app.delete(`${p}/ws/:ws/:name`, async (c) => {
    const ws = workspaceOr404(store, c, c.req.param("ws"));
    segs.remove(segmentOf(ws, c.req.param("name")));
    await store.commit();
    return c.json(true);
  });

  app.get(`${p}/ws/:ws/environments/:env`, (c) => {
    const ws = workspaceOr404(store, c, c.req.param("ws"));
    const env = environmentOr404(store, c, ws, c.req.param("env"));
    const all = segs.activeIn(env.id).flatMap((a) => {
      const s = segs.get(a.segmentId);
      return s ? [definitionJson(s, env, a)] : [];
    });
    return c.json(window(c, all));
  });

  app.post(`${p}/:env/:name`, async (c) => {
    const { env, seg } = inEnvPath(c);
    const a = segs.activate(seg, env);
    await store.commit();
    return c.json(definitionJson(seg, env, a));
  });

  app.delete(`${p}/:env/:name`, async (c) => {
    const { env, seg } = inEnvPath(c);
    store.deactivateKindSegment(kind, activationOf(env, seg), env);
    await store.commit();
    return c.json(true);
  });

  if (kind === "rule-based") {
    app.put(`${p}/ws/:ws/:name/environments/:env`, async (c) => {
      const ws = workspaceOr404(store, c, c.req.param("ws"));
      const env = environmentOr404(store, c, ws, c.req.param("env"));
      const seg = segmentOf(ws, c.req.param("name"));
      const a = activationOf(env, seg);
      assertDirectWrite(store, env);
      const body = await parseBody(c, RuleBasedSegmentDefinitionBody);
      requireTitleAndComment(ws, body.title, body.comment);
      const next = ruleBasedContent(body);
      const changed = segs.change(a, next);
      await store.commit();
      return c.json(definitionJson(seg, env, changed));
    });
  }

  return app;
}

/** The rules and exclusions of a rule-based segment body, checked (absent lists: empty). */
export function ruleBasedContent(body: {
  rules?: SegmentRule[] | null | undefined;
  excludedKeys?: string[] | null | undefined;
  excludedSegments?: { name: string; type: string }[] | null | undefined;
}) {
  const rules = body.rules ?? [];
  assertValidSegmentRules(rules);
  return { rules, excludedKeys: body.excludedKeys ?? [], excludedSegments: body.excludedSegments ?? [] };
}
