/**
 * Groups: spec §2 "Group", §4 "Groups", §8; ref admin §5.
 *
 * - `GET /groups?offset&limit` → `{objects, offset, limit, totalCount}`; limit default 50, at most
 *   200; an offset at or past the end gives an empty `objects` with the true `totalCount`.
 * - `POST /groups {name, description}`; names are unique in the account (the name acts as primary
 *   key): a duplicate is 409 (ref §5, inferred).
 * - `GET /groups/{id}`; `PUT /groups/{id} {id?, name, description, type?}` (both name and
 *   description required); `DELETE /groups/{id}` → `true`, and the group leaves every user.
 * Groups are account-wide: every admin key reads them; only an unrestricted key changes them.
 * @module
 */
import { Hono } from "hono";
import { z } from "zod";
import { GroupCreate, GroupPut, LIMITS } from "../../sdk/admin/schemas";
import type { AppEnv } from "../context";
import { badRequest, notFound } from "../errors";
import { scopeOf } from "../middleware/auth";
import type { GroupRecord, Store } from "../store";
import { type AdminContext, groupJson, offsetPage, offsetParams, parseBody } from "./common";

/**
 * PUT: unlike POST, `description` has no default (ref §5). `name` may be left out, keeping the
 * group's name: the spec leaves it open and the davidji99 Terraform provider's Go client sends
 * only `{description}`.
 */
const GroupPutFull = GroupPut.extend({
  name: GroupPut.shape.name.optional(),
  description: z
    .string({ error: "description is required (PUT replaces the whole group)" })
    .max(1024, "description must be at most 1024 characters"),
});

/** Routes under `/internal/api/v2/groups`. */
export function groupRoutes(store: Store): Hono<AppEnv> {
  const app = new Hono<AppEnv>({ strict: false });

  const groupOr404 = (c: AdminContext): GroupRecord => {
    const id = c.req.param("id") ?? "";
    const g = store.groups.get(id);
    if (!g) throw notFound(`Could not find group ${id}`);
    return g;
  };

  app.get("/groups", (c) => {
    const { offset, limit } = offsetParams(c, LIMITS.groupsDefault, LIMITS.groupsMax);
    return c.json(offsetPage(store.groups.list().map(groupJson), offset, limit));
  });

  app.post("/groups", async (c) => {
    scopeOf(store, c).assertAccountWide("create groups");
    const body = await parseBody(c, GroupCreate);
    const g = store.groups.create({ name: body.name, description: body.description });
    await store.commit();
    return c.json(groupJson(g));
  });

  app.get("/groups/:id", (c) => c.json(groupJson(groupOr404(c))));

  app.put("/groups/:id", async (c) => {
    const g = groupOr404(c);
    scopeOf(store, c).assertAccountWide("change groups");
    const body = await parseBody(c, GroupPutFull);
    if (body.id !== undefined && body.id !== g.id)
      throw badRequest(`id: ${body.id} does not match the group in the path (${g.id})`);
    store.groups.update(g, { name: body.name ?? g.name, description: body.description });
    await store.commit();
    return c.json(groupJson(g));
  });

  app.delete("/groups/:id", async (c) => {
    const g = groupOr404(c);
    scopeOf(store, c).assertAccountWide("delete groups");
    store.deleteGroup(g);
    await store.commit();
    return c.json(true);
  });

  return app;
}
