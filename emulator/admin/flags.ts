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
 * - `POST /tags/ws/{ws}/object/{name}/objecttype/Split` `["a","b"]` sets the tags (ref §1.1).
 * - `DELETE /splits/ws/{ws}/{name}` removes every environment definition and returns `true`.
 * @module
 */
import { randomUUID } from "node:crypto";
import { Hono } from "hono";
import { z } from "zod";
import { FlagCreate, LIMITS } from "../../sdk/admin/schemas";
import type { AppEnv } from "../context";
import { badRequest, conflict, forbidden, notFound } from "../errors";
import { scopeOf } from "../middleware/auth";
import { type FlagRecord, INITIAL_ROLLOUT_STATUS, type Store } from "../store";
import {
  applyJsonPatch,
  findFlag,
  findTrafficType,
  flagJson,
  flagOr404,
  offsetPage,
  offsetParams,
  parseBody,
  parsePatch,
  parseValue,
  readBody,
  workspaceOr404,
} from "./common";
import { removeDefinition } from "./definitions";

const TagList = z.array(
  z.object({ name: z.string().min(1, "tag name must not be empty").max(256) }, { error: "a tag is {name}" }),
  {
    error: "tags must be an array of {name} or null",
  },
);

/** The project-level fields a flag PATCH may change. */
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
});

const READ_ONLY = ["id", "name", "trafficType", "creationTime", "rolloutStatusTimestamp", "owners"] as const;
const PATCHABLE = new Set<string>([...READ_ONLY, "description", "tags", "rolloutStatus"]);

const sameJson = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** Tags without duplicates, in first-seen order; `null` when none (spec §2). */
function normaliseTags(tags: { name: string }[] | null): { name: string }[] | null {
  if (!tags || tags.length === 0) return null;
  const seen = new Set<string>();
  return tags.filter((t) => !seen.has(t.name) && !!seen.add(t.name)).map((t) => ({ name: t.name }));
}

/** Deletes a flag and all its definitions (leaving ARCHIVED tombstones for the SDK). */
export function removeFlag(store: Store, flag: FlagRecord): void {
  for (const [envId, defs] of store.definitions) {
    const d = defs.get(flag.id);
    if (d) removeDefinition(store, d, envId);
  }
  store.removeFlag(flag);
}

/** Routes under `/internal/api/v2/splits` and `/internal/api/v2/tags` (flags). */
export function flagRoutes(store: Store): Hono<AppEnv> {
  const app = new Hono<AppEnv>({ strict: false });

  app.post("/splits/ws/:ws/trafficTypes/:tt", async (c) => {
    const ws = workspaceOr404(store, c, c.req.param("ws"));
    const ttRef = c.req.param("tt");
    const tt = findTrafficType(store, ws, ttRef);
    if (!tt) throw notFound(`Could not find traffic type ${ttRef}`);
    const body = await parseBody(c, FlagCreate);
    if (findFlag(store, ws, body.name))
      throw conflict(`Split with name ${body.name} already exists in workspace ${ws.name}`);
    const initial =
      store.rolloutStatuses.find((s) => s.name === INITIAL_ROLLOUT_STATUS) ?? store.rolloutStatuses[0];
    if (!initial) throw badRequest("the account has no rollout statuses");
    const now = Date.now();
    const flag = store.addFlag({
      id: randomUUID(),
      workspaceId: ws.id,
      name: body.name,
      description: body.description,
      trafficTypeId: tt.id,
      creationTime: now,
      rolloutStatusId: initial.id,
      rolloutStatusTimestamp: now,
      tags: null,
    });
    await store.commit();
    return c.json(flagJson(store, flag));
  });

  app.get("/splits/ws/:ws", (c) => {
    const ws = workspaceOr404(store, c, c.req.param("ws"));
    const { offset, limit } = offsetParams(c, LIMITS.flagsDefault, LIMITS.flagsMax);
    const name = c.req.query("name");
    const tags = c.req.queries("tag") ?? [];
    const status = c.req.query("rolloutStatus");
    let all = [...(store.flagsByName.get(ws.id)?.values() ?? [])];
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
    });
    const status = store.rolloutStatuses.find((s) => s.id === next.rolloutStatus.id);
    if (!status) {
      throw badRequest(
        `rolloutStatus.id: ${next.rolloutStatus.id} is not a rollout status (see GET /rolloutStatuses?wsId=${ws.id})`,
      );
    }
    flag.description = next.description;
    flag.tags = normaliseTags(next.tags);
    if (status.id !== flag.rolloutStatusId) {
      flag.rolloutStatusId = status.id;
      // spec §3: the timestamp moves with the status; never backwards, even within one millisecond.
      flag.rolloutStatusTimestamp = Math.max(Date.now(), flag.rolloutStatusTimestamp + 1);
    }
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
    flag.description = parseValue(FlagCreate.shape.description, description, "description");
    await store.commit();
    return c.json(flagJson(store, flag));
  });

  app.post("/tags/ws/:ws/object/:name/objecttype/:type", async (c) => {
    const ws = workspaceOr404(store, c, c.req.param("ws"));
    if (c.req.param("type") !== "Split")
      throw badRequest(`objecttype: only Split is supported, got ${c.req.param("type")}`);
    const flag = flagOr404(store, ws, c.req.param("name"));
    const names = parseValue(
      z.array(z.string().min(1, "tag name must not be empty"), {
        error: "body must be an array of tag names",
      }),
      await readBody(c),
    );
    flag.tags = normaliseTags(names.map((name) => ({ name })));
    await store.commit();
    return c.json(flagJson(store, flag));
  });

  app.delete("/splits/ws/:ws/:flag", async (c) => {
    const ws = workspaceOr404(store, c, c.req.param("ws"));
    const flag = flagOr404(store, ws, c.req.param("flag"));
    const scope = scopeOf(store, c);
    for (const defs of store.definitions.values()) {
      const d = defs.get(flag.id);
      const env = d && store.environments.get(d.environmentId);
      if (env && !scope.environmentAllowed(env)) {
        throw forbidden(
          `The API key is not allowed to access environment ${env.id}, where ${flag.name} is defined`,
        );
      }
    }
    removeFlag(store, flag);
    await store.commit();
    return c.json(true);
  });

  return app;
}
