/**
 * Traffic types: spec §2 "Traffic type" (named in the path when creating a flag); ref admin §1.1:
 * `GET /trafficTypes/ws/{ws}` (bare array), `POST /trafficTypes/ws/{ws} {name}`,
 * `DELETE /trafficTypes/{id}` (refused with 409 while flags or segments use it, inferred).
 * @module
 */
import { randomUUID } from "node:crypto";
import { Hono } from "hono";
import { z } from "zod";
import type { AppEnv } from "../context";
import { conflict, notFound } from "../errors";
import { scopeOf } from "../middleware/auth";
import type { Store } from "../store";
import { parseBody, trafficTypeJson, workspaceOr404 } from "./common";

/** Body of `POST /trafficTypes/ws/{ws}`. */
export const TrafficTypeCreate = z.object({
  name: z
    .string({ error: "name is required" })
    .min(1, "name must not be empty")
    .max(100, "name must be at most 100 characters")
    .regex(
      /^[a-zA-Z][-_a-zA-Z0-9]*$/,
      "name must start with a letter and use only letters, digits, '-' and '_'",
    ),
});

/** Routes under `/internal/api/v2/trafficTypes`. */
export function trafficTypeRoutes(store: Store): Hono<AppEnv> {
  const app = new Hono<AppEnv>({ strict: false });

  app.get("/trafficTypes/ws/:ws", (c) => {
    const ws = workspaceOr404(store, c, c.req.param("ws"));
    return c.json(store.trafficTypesOf(ws.id).map((t) => trafficTypeJson(store, t)));
  });

  app.post("/trafficTypes/ws/:ws", async (c) => {
    const ws = workspaceOr404(store, c, c.req.param("ws"));
    const body = await parseBody(c, TrafficTypeCreate);
    // The SDK lower-cases traffic type names (ref admin §6), so names differing in case collide.
    if (store.trafficTypesOf(ws.id).some((t) => t.name.toLowerCase() === body.name.toLowerCase())) {
      throw conflict(`Traffic type with name ${body.name} already exists in workspace ${ws.name}`);
    }
    const id = randomUUID();
    const tt = { id, workspaceId: ws.id, name: body.name, displayAttributeId: null };
    store.trafficTypes.set(id, tt);
    await store.commit();
    return c.json(trafficTypeJson(store, tt));
  });

  app.delete("/trafficTypes/:id", async (c) => {
    const tt = store.trafficTypes.get(c.req.param("id"));
    if (!tt) throw notFound(`Could not find traffic type ${c.req.param("id")}`);
    const ws = store.workspaces.get(tt.workspaceId);
    if (ws) scopeOf(store, c).assertWorkspace(ws);
    const usedBy = [...store.flags.values()].filter((f) => f.trafficTypeId === tt.id);
    if (usedBy.length > 0) {
      throw conflict(
        `Traffic type ${tt.name} is used by ${usedBy.length} feature flag(s) (${usedBy[0]?.name}, ...); delete them first`,
      );
    }
    if ([...store.segments.values()].some((s) => s.trafficTypeId === tt.id)) {
      throw conflict(`Traffic type ${tt.name} is used by segments; delete them first`);
    }
    store.trafficTypes.delete(tt.id);
    await store.commit();
    return c.json(true);
  });

  return app;
}
