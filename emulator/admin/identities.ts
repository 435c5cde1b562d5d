/**
 * Identities: the attribute values of one key of a traffic type in an environment (ref admin
 * §1.1 "identities"; shapes of splitapiclient 3.5.9 `microclients/identity_microclient.py` and
 * `resources/identity.py`), under `/trafficTypes/{ttId}/environments/{env}/identities`:
 * - `PUT …/{key} {key, trafficTypeId, environmentId, values}` sets every value → the identity
 *   `{key, trafficTypeId, environmentId, values}`;
 * - `POST …` `[identity, ...]` → `{objects, failed:[{object, status, message}], metadata}`;
 * - `PATCH …/{key}` and `POST …/{key}/patch` merge the values sent into the stored ones;
 * - `DELETE …/{key}` → 204 (the client reads no body).
 * @module
 */
import { Hono } from "hono";
import type { z } from "zod";
import { IdentityBody } from "../../sdk/admin/schemas";
import type { AppEnv } from "../context";
import { badRequest, notFound } from "../errors";
import { emptyResponse } from "../http";
import { scopeOf } from "../middleware/auth";
import type { IdentityRecord, Store } from "../store";
import { type AdminContext, bulkSave, environmentOr404, parseBody, parseValue } from "./common";

/** An identity on the wire. */
export const identityJson = (i: IdentityRecord) => ({
  key: i.key,
  trafficTypeId: i.trafficTypeId,
  environmentId: i.environmentId,
  values: i.values,
});

/** Routes under `/internal/api/v2/trafficTypes/{tt}/environments/{env}/identities`. */
export function identityRoutes(store: Store): Hono<AppEnv> {
  const app = new Hono<AppEnv>({ strict: false });
  const ids = store.identities;
  const base = "/trafficTypes/:tt/environments/:env/identities";

  /** The traffic type (by id) and environment (id or name, in its workspace) of the path. */
  const placeOf = (c: AdminContext) => {
    const ttId = c.req.param("tt") ?? "";
    const tt = store.trafficTypes.get(ttId);
    const ws = tt && store.workspaces.get(tt.workspaceId);
    if (!tt || !ws) throw notFound(`Could not find traffic type ${ttId}`);
    scopeOf(store, c).assertWorkspace(ws);
    return { tt, env: environmentOr404(store, c, ws, c.req.param("env") ?? "") };
  };
  /** An identity of the path's place; a key in the body must be the path's. */
  const identityOf = (
    c: AdminContext,
    body: z.output<typeof IdentityBody>,
    key = c.req.param("key") ?? "",
  ) => {
    const { tt, env } = placeOf(c);
    if (body.key !== undefined && body.key !== key)
      throw badRequest(`key: ${body.key} does not match the key in the path (${key})`);
    return { key, trafficTypeId: tt.id, environmentId: env.id, values: body.values };
  };
  const merge = async (c: AdminContext) => {
    const i = ids.merge(identityOf(c, await parseBody(c, IdentityBody)));
    await store.commit();
    return c.json(identityJson(i));
  };

  app.put(`${base}/:key`, async (c) => {
    const i = ids.save(identityOf(c, await parseBody(c, IdentityBody)));
    await store.commit();
    return c.json(identityJson(i));
  });

  app.post(base, async (c) => {
    const result = await bulkSave(c, "identities", (item, n) => {
      const body = parseValue(IdentityBody, item, `[${n}]`);
      if (!body.key) throw badRequest(`[${n}].key: is required`);
      return identityJson(ids.save(identityOf(c, body, body.key)));
    });
    await store.commit();
    return c.json(result);
  });

  app.patch(`${base}/:key`, merge);
  app.post(`${base}/:key/patch`, merge);

  app.delete(`${base}/:key`, async (c) => {
    const { tt, env } = placeOf(c);
    ids.remove(tt.id, env.id, c.req.param("key"));
    await store.commit();
    return emptyResponse(204);
  });

  return app;
}
