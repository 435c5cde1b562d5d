/**
 * Traffic-type attributes (ref admin §1.1 "attributes", §9.1 `split_traffic_type_attribute`),
 * under `/schema/ws/{ws}/trafficTypes/{tt}` (`{tt}` an id or a name: splitapiclient's
 * `attribute_microclient.py` `find` sends the name there):
 * - `GET` → a bare array of `{id, trafficTypeId, displayName, description, dataType,
 *   isSearchable, suggestedValues}` (`attribute_microclient.py` `list` iterates the body);
 * - `POST {id, displayName, description, dataType, suggestedValues, isSearchable?}` → the
 *   attribute; 409 for an id the traffic type has (inferred); `PUT` with the same body replaces
 *   the attribute of that id (404 when none);
 * - `PATCH …/{attrId}` (an object of fields, or a JSON Patch) → the attribute;
 *   `DELETE …/{attrId}` → `true`;
 * - `POST …/attribute:bulk [attribute, ...]` → `{objects, failed, metadata}`: each created, or
 *   in `failed` with its status and message (the shape of the identities' bulk answer,
 *   `identity_microclient.py` `save_all`; inferred for attributes).
 * @module
 */
import { Hono } from "hono";
import type { z } from "zod";
import { AttributeBody } from "../../sdk/admin/schemas";
import type { AppEnv } from "../context";
import { notFound } from "../errors";
import type { AttributeRecord, Store, TrafficTypeRecord } from "../store";
import {
  type AdminContext,
  applyJsonPatch,
  bulkSave,
  parsePatch,
  parseValue,
  readBody,
  trafficTypeOr404,
  workspaceOr404,
} from "./common";

/** An attribute on the wire. */
export const attributeJson = (a: AttributeRecord) => ({
  id: a.id,
  trafficTypeId: a.trafficTypeId,
  displayName: a.displayName,
  description: a.description,
  dataType: a.dataType,
  isSearchable: a.isSearchable,
  suggestedValues: a.suggestedValues,
});

/**
 * An attribute body checked by the shared schema, its `dataType` upper-cased first: the Harness Go
 * SDK documents and its provider sends the lower-case names (`harness/split/attributes.go`
 * `Attribute.DataType` "string", "datetime", "number", "set"; terraform-provider-harness
 * `harness_fme_traffic_type_attribute` lower-cases it on read, as "Split may return uppercase").
 */
function attributeBody(value: unknown, root = ""): z.output<typeof AttributeBody> {
  const v = value as { dataType?: unknown } | null;
  const upper =
    v !== null && typeof v === "object" && typeof v.dataType === "string"
      ? { ...v, dataType: v.dataType.toUpperCase() }
      : value;
  return parseValue(AttributeBody, upper, root);
}

/** The stored fields of a parsed body. */
const fieldsOf = (b: z.output<typeof AttributeBody>) => ({
  displayName: b.displayName ?? null,
  description: b.description ?? null,
  dataType: b.dataType ?? null,
  isSearchable: b.isSearchable ?? false,
  suggestedValues: b.suggestedValues ?? [],
});

/** Routes under `/internal/api/v2/schema`. */
export function attributeRoutes(store: Store): Hono<AppEnv> {
  const app = new Hono<AppEnv>({ strict: false });
  const attrs = store.attributes;
  const base = "/schema/ws/:ws/trafficTypes/:tt";

  const trafficTypeOf = (c: AdminContext): TrafficTypeRecord =>
    trafficTypeOr404(store, workspaceOr404(store, c, c.req.param("ws") ?? ""), c.req.param("tt") ?? "");
  const attributeOr404 = (c: AdminContext) => {
    const tt = trafficTypeOf(c);
    const id = c.req.param("attr") ?? "";
    const a = attrs.byId(tt.id, id);
    if (!a) throw notFound(`Could not find attribute ${id}`);
    return a;
  };
  const create = (tt: TrafficTypeRecord, b: z.output<typeof AttributeBody>) =>
    attrs.create(tt, { id: b.id, ...fieldsOf(b) });

  app.get(base, (c) => c.json(attrs.where({ trafficTypeId: trafficTypeOf(c).id }).map(attributeJson)));

  app.post(base, async (c) => {
    const tt = trafficTypeOf(c);
    const a = create(tt, attributeBody(await readBody(c)));
    await store.commit();
    return c.json(attributeJson(a));
  });

  app.put(base, async (c) => {
    const tt = trafficTypeOf(c);
    const body = attributeBody(await readBody(c));
    const had = attrs.byId(tt.id, body.id);
    if (!had) throw notFound(`Could not find attribute ${body.id}`);
    const a = attrs.update(had, fieldsOf(body));
    await store.commit();
    return c.json(attributeJson(a));
  });

  app.post(`${base}/:attr`, async (c) => {
    if (c.req.param("attr") !== "attribute:bulk")
      throw notFound(`HTTP 404 Not Found: no route for POST ${c.req.path}`);
    const tt = trafficTypeOf(c);
    const result = await bulkSave(c, "attributes", (item, i) =>
      attributeJson(create(tt, attributeBody(item, `[${i}]`))),
    );
    await store.commit();
    return c.json(result);
  });

  app.patch(`${base}/:attr`, async (c) => {
    const had = attributeOr404(c);
    const raw = await readBody(c);
    const patched = Array.isArray(raw)
      ? applyJsonPatch(attributeJson(had), await parsePatch(c))
      : { ...attributeJson(had), ...(raw as Record<string, unknown>), id: had.id };
    const a = attrs.update(had, fieldsOf(attributeBody(patched)));
    await store.commit();
    return c.json(attributeJson(a));
  });

  app.delete(`${base}/:attr`, async (c) => {
    attrs.remove(attributeOr404(c));
    await store.commit();
    return c.json(true);
  });

  return app;
}
