/**
 * Feature flags at project level: spec §2 "Feature flag", §3 "Rollout status of a flag",
 * §4 "Flags (project level)"; ref admin §1.1.
 *
 * - `POST /splits/ws/{ws}/trafficTypes/{tt}` `{name, description}` → the flag, in the
 *   Pre-Production rollout status with `rolloutStatusTimestamp` set and `tags: null`; the traffic
 *   type is named (or given by id) in the path only. A duplicate name is 409 (inferred).
 * - `GET /splits/ws/{ws}?offset&limit&name&tag&rolloutStatus` → `{objects, offset, limit,
 *   totalCount}`, limit default 20, at most 50 (ref §1.1).
 * - `GET /splits/ws/{ws}/{nameOrId}` → the flag (ref §2: by name or id).
 * - `PATCH /splits/ws/{ws}/{name}` JSON Patch on `/description`, `/tags` (replace, `add /tags/0`
 *   of `{name}`, remove) and `/rolloutStatus/id` (must be a listed status; moves
 *   `rolloutStatusTimestamp`). The name, id, traffic type and times cannot change: a flag's name
 *   and traffic type are immutable (ref §2).
 * - `PUT /splits/ws/{ws}/{name}/updateDescription` with the raw description string (ref §1.1).
 * - `POST /tags/ws/{ws}/object/{name}/objecttype/Split` `["a","b"]` sets the tags (ref §1.1);
 *   `objecttype/Segment` sets a segment's (see the route).
 * - `DELETE /splits/ws/{ws}/{name}` removes every environment definition and returns `true`.
 * @module
 */
import { Hono } from "hono";
import { z } from "zod";
import { FlagCreate, LIMITS } from "../../sdk/admin/schemas";
import type { AppEnv } from "../context";
import { badRequest } from "../errors";
import { scopeOf } from "../middleware/auth";
import type { Store } from "../store";
import {
  applyJsonPatch,
  flagJson,
  flagOr404,
  offsetPage,
  offsetParams,
  parseBody,
  parsePatch,
  parseValue,
  readBody,
  trafficTypeOr404,
  workspaceOr404,
} from "./common";
import { segmentJson, segmentOr404 } from "./segment";

const TagList = z.array(
  z.object({ name: z.string().min(1, "tag name must not be empty").max(256) }, { error: "a tag is {name}" }),
  {
    error: "tags must be an array of {name} or null",
  },
);

/** The project-level fields a flag PATCH may change. */
/**
 * A flag's owners, as the GET shows them (ref admin §1.1: `owners:[{id,type}]`). Setting them by
 * a `replace` of `/owners` in the flag PATCH is inferred: no public client sets owners (the UI
 * does, "Edit details"), and this is the shape the GET returns, patched as `/tags` is.
 */
const Owners = z.array(
  z.object(
    {
      id: z.string({ error: "id is required" }).min(1, "id must not be empty"),
      type: z.enum(["user", "group"], { error: 'type must be "user" or "group"' }),
    },
    { error: "an owner must be {id, type}" },
  ),
  { error: "must be an array of {id, type}" },
);

const FlagPatched = z.object({
  description: FlagCreate.shape.description
    .unwrap()
    .nullable()
    .transform((d) => d ?? ""),
  tags: TagList.nullable(),
  rolloutStatus: z.object(
    { id: z.string({ error: "rolloutStatus.id is required" }) },
    { error: "rolloutStatus must be {id}" },
  ),
  owners: Owners,
});

const READ_ONLY = ["id", "name", "trafficType", "creationTime", "rolloutStatusTimestamp"] as const;
const PATCHABLE = new Set<string>([...READ_ONLY, "description", "tags", "rolloutStatus", "owners"]);

const sameJson = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** The body of the tag route: the tag names. */
const TagNames = z.array(z.string().min(1, "tag name must not be empty"), {
  error: "must be an array of tag names",
});

/** Routes under `/internal/api/v2/splits` and `/internal/api/v2/tags` (flags). */
export function flagRoutes(store: Store): Hono<AppEnv> {
  const app = new Hono<AppEnv>({ strict: false });

  app.post("/splits/ws/:ws/trafficTypes/:tt", async (c) => {
    const ws = workspaceOr404(store, c, c.req.param("ws"));
    const tt = trafficTypeOr404(store, ws, c.req.param("tt"));
    const body = await parseBody(c, FlagCreate);
    const flag = store.createFlag(ws, tt, { name: body.name, description: body.description });
    await store.commit();
    return c.json(flagJson(store, flag));
  });

  app.get("/splits/ws/:ws", (c) => {
    const ws = workspaceOr404(store, c, c.req.param("ws"));
    const { offset, limit } = offsetParams(c, LIMITS.flagsDefault, LIMITS.flagsMax);
    const name = c.req.query("name");
    const tags = c.req.queries("tag") ?? [];
    const status = c.req.query("rolloutStatus");
    let all = store.flags.inWorkspace(ws.id);
    if (name) all = all.filter((f) => f.name === name);
    if (tags.length) all = all.filter((f) => f.tags?.some((t) => tags.includes(t.name)));
    if (status) all = all.filter((f) => f.rolloutStatusId === status);
    const page = offsetPage(all, offset, limit);
    return c.json({ ...page, objects: page.objects.map((f) => flagJson(store, f)) });
  });

  app.get("/splits/ws/:ws/:flag", (c) => {
    const ws = workspaceOr404(store, c, c.req.param("ws"));
    return c.json(flagJson(store, flagOr404(store, ws, c.req.param("flag"))));
  });

  app.patch("/splits/ws/:ws/:flag", async (c) => {
    const ws = workspaceOr404(store, c, c.req.param("ws"));
    const flag = flagOr404(store, ws, c.req.param("flag"));
    const ops = await parsePatch(c);
    const before = { ...flagJson(store, flag), tags: flag.tags ?? [] };
    const after = applyJsonPatch(before, ops) as Record<string, unknown>;
    for (const key of Object.keys(after)) {
      if (!PATCHABLE.has(key)) throw badRequest(`${key}: not a field of a feature flag`);
    }
    if (after.name !== before.name) throw badRequest("name: a feature flag cannot be renamed");
    for (const key of READ_ONLY) {
      if (!sameJson(after[key], before[key])) throw badRequest(`${key}: read-only, it cannot be changed`);
    }
    const next = parseValue(FlagPatched, {
      description: after.description,
      tags: after.tags,
      rolloutStatus: after.rolloutStatus,
      owners: after.owners,
    });
    for (const [i, o] of next.owners.entries()) {
      const known = o.type === "user" ? store.users.get(o.id) : store.groups.get(o.id);
      if (!known) throw badRequest(`owners[${i}].id: no ${o.type} with id ${o.id}`);
    }
    if (!store.rolloutStatuses.get(next.rolloutStatus.id)) {
      throw badRequest(
        `rolloutStatus.id: ${next.rolloutStatus.id} is not a rollout status (see GET /rolloutStatuses?wsId=${ws.id})`,
      );
    }
    store.flags.update(flag, {
      description: next.description,
      tags: next.tags,
      rolloutStatusId: next.rolloutStatus.id,
      owners: next.owners,
    });
    await store.commit();
    return c.json(flagJson(store, flag));
  });

  app.put("/splits/ws/:ws/:flag/updateDescription", async (c) => {
    const ws = workspaceOr404(store, c, c.req.param("ws"));
    const flag = flagOr404(store, ws, c.req.param("flag"));
    const text = await c.req.text();
    // ref §9.1: the body is the raw description; accept a JSON string too.
    let description = text;
    if (text.startsWith('"')) {
      try {
        description = String(JSON.parse(text));
      } catch {
        // keep the raw text
      }
    }
    store.flags.describe(flag, parseValue(FlagCreate.shape.description, description, "description"));
    await store.commit();
    return c.json(flagJson(store, flag));
  });

  /**
   * Associate tags (ref §1.1): the object type is a path parameter (`:object_type` in the Postman
   * collection, `{object-type}` in https://developer.harness.io/feature-management-experimentation/split-api-reference/tags),
   * whose description says tags organise "feature flag, segments, and metrics". Every client shows
   * `Split` alone (splitapiclient `split_microclient.py` `associate_tags`, harness-go-sdk
   * `harness/split/tags.go` `ObjectTypeSplit`); `Segment` for a segment is inferred (the segment
   * carries `tags` as a flag does, `./segments.ts`). No source names the types of large or
   * rule-based segments or metrics, nor the answer to an unknown type: a 400 naming the ones served
   * (inferred). The answer is the tagged object (not documented; [PY] only reads that it succeeded).
   */
  app.post("/tags/ws/:ws/object/:name/objecttype/:type", async (c) => {
    const ws = workspaceOr404(store, c, c.req.param("ws"));
    const type = c.req.param("type");
    if (type !== "Split" && type !== "Segment")
      throw badRequest(`objecttype: must be Split or Segment, got ${type}`);
    const name = c.req.param("name");
    if (type === "Split") {
      const flag = flagOr404(store, ws, name);
      store.flags.tag(flag, parseValue(TagNames, await readBody(c)));
      await store.commit();
      return c.json(flagJson(store, flag));
    }
    const segment = segmentOr404(store, ws, name);
    store.segments.tag(segment, parseValue(TagNames, await readBody(c)));
    await store.commit();
    return c.json(segmentJson(store, segment));
  });

  app.delete("/splits/ws/:ws/:flag", async (c) => {
    const ws = workspaceOr404(store, c, c.req.param("ws"));
    const flag = flagOr404(store, ws, c.req.param("flag"));
    const scope = scopeOf(store, c);
    store.deleteFlag(flag, (env) => scope.environmentAllowed(env));
    await store.commit();
    return c.json(true);
  });

  return app;
}
