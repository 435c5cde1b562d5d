/**
 * Rollout statuses of a workspace (spec §4: `GET /rolloutStatuses?wsId=`), read only.
 * @module
 */
import { adminEndpoints as E } from "./endpoints";
import { AdminApiPart, adminPart, byIdOrName } from "./part";
import type { RolloutStatus } from "./schemas";

/** Rollout statuses (spec §4: `GET /rolloutStatuses?wsId=`). */
export class RolloutStatusesApi extends AdminApiPart {
  /** All rollout statuses usable in a workspace. */
  async list(wsId: string): Promise<RolloutStatus[]> {
    return this.request(E.rolloutStatuses.list, {}, { query: { wsId } });
  }

  /** The rollout status with this name or id, or `undefined`. */
  async find(wsId: string, nameOrId: string): Promise<RolloutStatus | undefined> {
    return byIdOrName(await this.list(wsId), nameOrId);
  }
}

/** Rollout statuses. */
export const part = adminPart("rolloutStatuses", (core) => new RolloutStatusesApi(core));
