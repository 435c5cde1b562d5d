/**
 * Traffic types: spec §2 "Traffic type" (named in the path when creating a flag); ref admin §1.1:
 * `GET /trafficTypes/ws/{ws}` (bare array), `POST /trafficTypes/ws/{ws} {name}`,
 * `DELETE /trafficTypes/{id}` (refused with 409 while flags or segments use it, inferred).
 * @module
 */
import { Hono } from "hono";
import { z } from "zod";
import type { AppEnv } from "../context";
import { notFound } from "../errors";
import { scopeOf } from "../middleware/auth";
import type { Store } from "../store";
import { KeyedName, parseBody, trafficTypeJson, workspaceOr404 } from "./common";

/** Body of `POST /trafficTypes/ws/{ws}`. */
export const TrafficTypeCreate = z.object({ name: KeyedName });

/** Routes under `/internal/api/v2/trafficTypes`. */
export function trafficTypeRoutes(store: Store): Hono<AppEnv> {
  const app = new Hono<AppEnv>({ strict: false });

  app.get("/trafficTypes/ws/:ws", (c) => {
    const ws = workspaceOr404(store, c, c.req.param("ws"));
    return c.json(store.trafficTypes.inWorkspace(ws.id).map((t) => trafficTypeJson(store, t)));
  });

  app.post("/trafficTypes/ws/:ws", async (c) => {
    const ws = workspaceOr404(store, c, c.req.param("ws"));
    const body = await parseBody(c, TrafficTypeCreate);
    const tt = store.trafficTypes.create(ws, body.name);
    await store.commit();
    return c.json(trafficTypeJson(store, tt));
  });

  app.delete("/trafficTypes/:id", async (c) => {
    const tt = store.trafficTypes.get(c.req.param("id"));
    if (!tt) throw notFound(`Could not find traffic type ${c.req.param("id")}`);
    const ws = store.workspaces.get(tt.workspaceId);
    if (ws) scopeOf(store, c).assertWorkspace(ws);
    store.deleteTrafficType(tt);
    await store.commit();
    return c.json(true);
  });

  return app;
}
