/**
 * `GET /api/segmentChanges/{name}?since=N` (ref wire §4): `{name, added, removed, since, till}`.
 * `since=-1` returns every member; a later `since` returns the keys added and removed after it;
 * once up to date `since == till`, which ends the SDK's fetch loop. A segment that does not exist
 * or is not active in the key's environment is served empty with `till == since`, so the SDK
 * never waits for it (ref wire §4: every referenced segment must be served). Client-side SDK keys
 * get 403, as server-side endpoints refuse them.
 * @module
 */
import { Hono } from "hono";
import type { AppEnv } from "../context";
import { forbidden } from "../errors";
import { CHANGE_NUMBER, intQuery } from "../http";
import type { Store } from "../store";

/** Route `/segmentChanges/:name`, mounted under `/api` behind the SDK-key middleware. */
export function segmentChangesRoutes(store: Store): Hono<AppEnv> {
  const app = new Hono<AppEnv>({ strict: false });

  app.get("/segmentChanges/:name", (c) => {
    const key = c.get("key");
    if (key.apiKeyType === "client_side") throw forbidden("segmentChanges takes a server-side SDK key");
    const name = c.req.param("name");
    const since = intQuery(c, "since", -1, CHANGE_NUMBER);
    const env = store.environmentOf(key);
    const empty = { name, added: [] as string[], removed: [] as string[], since, till: since };
    if (!env) return c.json(empty);
    const segment = store.segments.byName(env.workspaceId, name);
    const a = segment ? store.segments.activation(env.id, segment.id) : undefined;
    if (!a || (since !== -1 && since >= a.changeNumber)) return c.json(empty);
    const added: string[] = [];
    const removed: string[] = [];
    for (const [k, cn] of a.members) if (since === -1 || cn > since) added.push(k);
    if (since !== -1) for (const [k, cn] of a.removed) if (cn > since) removed.push(k);
    return c.json({ name, added, removed, since, till: a.changeNumber });
  });

  return app;
}
