/**
 * Rollout statuses: spec §2 "Rollout status", §4: `GET /rolloutStatuses?wsId=<id>` → a bare JSON
 * array of `{id, name, description}`. The statuses are account-wide, so every workspace lists the
 * same ones (inferred; the spec ties the list to a workspace only through the query).
 * @module
 */
import { Hono } from "hono";
import type { AppEnv } from "../context";
import { badRequest } from "../errors";
import type { Store } from "../store";
import { type AdminContext, workspaceOr404 } from "./common";

/** Routes under `/internal/api/v2/rolloutStatuses`. */
export function rolloutStatusRoutes(store: Store): Hono<AppEnv> {
  const app = new Hono<AppEnv>({ strict: false });

  const list = (c: AdminContext, wsRef: string | undefined) => {
    if (!wsRef) throw badRequest("wsId: the workspace id query parameter is required");
    workspaceOr404(store, c, wsRef);
    return c.json(
      store.rolloutStatuses.list().map((s) => ({ id: s.id, name: s.name, description: s.description })),
    );
  };

  app.get("/rolloutStatuses", (c) => list(c, c.req.query("wsId")));
  // ref admin §1.1: one client uses /rolloutStatuses/ws/{ws}; serve it too.
  app.get("/rolloutStatuses/ws/:ws", (c) => list(c, c.req.param("ws")));

  return app;
}
