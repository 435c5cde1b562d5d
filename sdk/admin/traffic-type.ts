/**
 * Traffic types of a workspace (ref §1.1, §9.1): a bare-array list, create and delete by id.
 * @module
 */
import { adminEndpoints as E } from "./endpoints";
import { AdminApiPart, adminPart, byIdOrName } from "./part";
import { type TrafficType, TrafficTypeCreate } from "./schemas";

/** Traffic types of a workspace: a bare array (ref §1.1). */
export class TrafficTypesApi extends AdminApiPart {
  /** All traffic types of a workspace. */
  async list(wsId: string): Promise<TrafficType[]> {
    return this.request(E.trafficTypes.list, { wsId });
  }

  /** Creates a traffic type (ref §1.1 `{name}`). */
  async create(wsId: string, body: TrafficTypeCreate): Promise<TrafficType> {
    return this.send(E.trafficTypes.create, { wsId }, TrafficTypeCreate, body);
  }

  /** Deletes a traffic type by id (ref §9.1: no workspace in the path). */
  async delete(trafficTypeId: string): Promise<true> {
    return this.request(E.trafficTypes.delete, { trafficTypeId });
  }

  /** The traffic type with this name or id, or `undefined`. */
  async find(wsId: string, nameOrId: string): Promise<TrafficType | undefined> {
    return byIdOrName(await this.list(wsId), nameOrId);
  }
}

/** Traffic types of a workspace. */
export const part = adminPart("trafficTypes", (core) => new TrafficTypesApi(core));
