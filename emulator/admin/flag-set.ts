/**
 * Flag sets, the admin API's v3 part (ref admin §1.1 "flag sets": `/internal/api/v3/flag-sets`,
 * marker pagination; the shapes are those of splitapiclient 3.5.9
 * `microclients/flag_set_microclient.py` and `resources/flag_set.py`):
 * - `POST /flag-sets {name, description, workspace:{id, type}}` → the flag set
 *   `{id, name, description, workspace:{id, type:"WORKSPACE"}, createdAt (ISO time), type:"flag_set"}`;
 *   409 for a name taken in the workspace (inferred).
 * - `GET /flag-sets?workspace_id&limit&after` → `{data, nextMarker, previousMarker, limit, count}`.
 * - `GET /flag-sets/{id}`; `DELETE /flag-sets/{id}` → 204 (the client reads no body, inferred);
 *   the flag set leaves every definition that named it (a new change number each, so SDKs drop it
 *   from `sets`, `Store.deleteFlagSet`): removal rather than refusal while used is inferred, no
 *   public evidence either way.
 * @module
 */
import { Hono } from "hono";
import { FlagSetCreate } from "../../sdk/admin/schemas";
import type { AppEnv } from "../context";
import { badRequest, notFound } from "../errors";
import { emptyResponse } from "../http";
import { scopeOf } from "../middleware/auth";
import type { FlagSetRecord, Store } from "../store";
import { type AdminContext, markerPage, parseBody, workspaceOr404 } from "./common";

/** A flag set on the wire. */
export const flagSetJson = (f: FlagSetRecord) => ({
  id: f.id,
  name: f.name,
  description: f.description,
  workspace: { id: f.workspaceId, type: "WORKSPACE" },
  createdAt: new Date(f.createdAt).toISOString(),
  type: "flag_set" as const,
});

/** Routes under `/internal/api/v3/flag-sets`. */
export function flagSetRoutes(store: Store): Hono<AppEnv> {
  const app = new Hono<AppEnv>({ strict: false });
  const sets = store.flagSets;

  const flagSetOr404 = (c: AdminContext): FlagSetRecord => {
    const id = c.req.param("id") ?? "";
    const f = sets.get(id);
    const ws = f && store.workspaces.get(f.workspaceId);
    if (!f || !ws) throw notFound(`Could not find flag set ${id}`);
    scopeOf(store, c).assertWorkspace(ws);
    return f;
  };

  app.get("/flag-sets", (c) => {
    const wsRef = c.req.query("workspace_id");
    if (!wsRef) throw badRequest("workspace_id: is required");
    const ws = workspaceOr404(store, c, wsRef);
    const page = markerPage(c, sets.where({ workspaceId: ws.id }), (f) => f.id, 50, 200);
    return c.json({ ...page, data: page.data.map(flagSetJson) });
  });

  app.post("/flag-sets", async (c) => {
    const body = await parseBody(c, FlagSetCreate);
    const ws = workspaceOr404(store, c, body.workspace.id);
    const f = sets.create(ws, { name: body.name, description: body.description ?? null });
    await store.commit();
    return c.json(flagSetJson(f));
  });

  app.get("/flag-sets/:id", (c) => c.json(flagSetJson(flagSetOr404(c))));

  app.delete("/flag-sets/:id", async (c) => {
    store.deleteFlagSet(flagSetOr404(c));
    await store.commit();
    return emptyResponse(204);
  });

  return app;
}
