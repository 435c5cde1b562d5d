/**
 * Traffic-type attributes (ref admin §1.1 "attributes", §9.1 `split_traffic_type_attribute`),
 * under `/schema/ws/{ws}/trafficTypes/{tt}`: the list (a bare array, as splitapiclient's
 * `attribute_microclient.py` reads it), create, a JSON Patch of one attribute, and delete.
 *
 * The routes live here rather than in `./endpoints.ts`, with the part that calls them.
 * @module
 */
import { z } from "zod";
import { route } from "../core/route";
import { AdminApiPart, adminPart } from "./part";
import { Attribute, AttributeBody, JsonPatch, TrueBody } from "./schemas";

const BASE = "/internal/api/v2/schema/ws/{wsId}/trafficTypes/{trafficType}" as const;

/** The attribute routes (ref §1.1). */
export const attributeEndpoints = {
  list: route(`GET ${BASE}`, z.array(Attribute)),
  create: route(`POST ${BASE}`, Attribute),
  patch: route(`PATCH ${BASE}/{attributeId}`, Attribute),
  /** A DELETE retried after a lost response that finds the attribute gone has succeeded. */
  delete: route(`DELETE ${BASE}/{attributeId}`, TrueBody, { goneOnRetry: true }),
} as const;

/** Attributes of a traffic type: `admin.attributes`. */
export class AttributesApi extends AdminApiPart {
  /** Every attribute of a traffic type (id or name). */
  async list(wsId: string, trafficType: string): Promise<Attribute[]> {
    return this.request(attributeEndpoints.list, { wsId, trafficType });
  }

  /** The attribute with this id, or `undefined`. */
  async find(wsId: string, trafficType: string, attributeId: string): Promise<Attribute | undefined> {
    return (await this.list(wsId, trafficType)).find((a) => a.id === attributeId);
  }

  /**
   * Creates an attribute.
   * @throws ConflictError when the traffic type has an attribute of that id.
   * @example
   * await admin.attributes.create(ws.id, "user", { id: "plan", displayName: "Plan", dataType: "STRING", suggestedValues: ["free", "pro"] });
   */
  async create(wsId: string, trafficType: string, body: AttributeBody): Promise<Attribute> {
    return this.send(attributeEndpoints.create, { wsId, trafficType }, AttributeBody, body);
  }

  /** Applies a JSON Patch to an attribute: `/displayName`, `/description`, `/dataType`, `/suggestedValues`, ... */
  async patch(wsId: string, trafficType: string, attributeId: string, ops: JsonPatch): Promise<Attribute> {
    return this.send(
      attributeEndpoints.patch,
      { wsId, trafficType, attributeId },
      JsonPatch,
      ops,
      "JSON Patch",
    );
  }

  /** Deletes an attribute. */
  async delete(wsId: string, trafficType: string, attributeId: string): Promise<true> {
    return this.request(attributeEndpoints.delete, { wsId, trafficType, attributeId });
  }
}

/** Attributes of a traffic type. */
export const part = adminPart("attributes", (core) => new AttributesApi(core));
