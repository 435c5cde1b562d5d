/**
 * Restrictions: who may view a workspace (ref admin §1.1 "restrictions": workspace view only;
 * the body is that of splitapiclient 3.5.9 `microclients/restriction_microclient.py` `add`, the
 * answer that of `resources/restriction.py`):
 * - `PUT /restrictions {resource:{id, type:"workspace"}, operations:{view}, resourcePermissions:
 *   {view:[{id, type, name?}]}}` sets the workspace's restriction → `{id, type:"restriction",
 *   resource:{id, type, name}, operations, resourcePermissions}`;
 * - `GET /restrictions?resource_type&resource_id&offset&limit` → `{objects, offset, limit, totalCount}`.
 * @module
 */
import { Hono } from "hono";
import { RestrictionBody } from "../../sdk/admin/schemas";
import type { AppEnv } from "../context";
import type { RestrictionRecord, Store } from "../store";
import { offsetPage, offsetParams, parseBody, workspaceOr404 } from "./common";

/** Routes under `/internal/api/v2/restrictions`. */
export function restrictionRoutes(store: Store): Hono<AppEnv> {
  const app = new Hono<AppEnv>({ strict: false });
  const restrictions = store.restrictions;

  const restrictionJson = (r: RestrictionRecord) => ({
    id: r.id,
    type: "restriction" as const,
    resource: {
      id: r.resourceId,
      type: r.resourceType,
      name: store.workspaces.get(r.resourceId)?.name ?? "",
    },
    operations: { view: r.view },
    resourcePermissions: { view: r.viewers },
  });

  app.get("/restrictions", (c) => {
    const { offset, limit } = offsetParams(c, 20, 200);
    const type = c.req.query("resource_type");
    const id = c.req.query("resource_id");
    if (id) workspaceOr404(store, c, id);
    const all = restrictions
      .list()
      .filter((r) => (!type || r.resourceType === type) && (!id || r.resourceId === id))
      .map(restrictionJson);
    return c.json(offsetPage(all, offset, limit));
  });

  app.put("/restrictions", async (c) => {
    const body = await parseBody(c, RestrictionBody);
    const ws = workspaceOr404(store, c, body.resource.id);
    const r = restrictions.set({
      resourceId: ws.id,
      resourceType: body.resource.type,
      view: body.operations.view,
      viewers: body.resourcePermissions.view,
    });
    await store.commit();
    return c.json(restrictionJson(r));
  });

  return app;
}
