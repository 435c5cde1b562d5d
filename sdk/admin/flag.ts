/**
 * Feature flags at workspace level (spec §4 "Flags", ref §1.1, §2): create under a traffic type,
 * get, list (offset pages, by name or tag), JSON Patch (description, tags, rollout status), delete.
 * @module
 */
import { adminEndpoints as E } from "./endpoints";
import { AdminApiPart, adminPart } from "./part";
import { type Flag, FlagCreate, JsonPatch, LIMITS } from "./schemas";

/** Feature flags at workspace level (spec §4 "Flags"). */
export class FlagsApi extends AdminApiPart {
  /**
   * Creates a flag of a traffic type; it starts in the Pre-Production rollout status (spec §3).
   * @example
   * const flag = await admin.flags.create(ws.id, "user", { name: "new-checkout", description: "v2 flow" });
   */
  async create(wsId: string, trafficTypeName: string, body: FlagCreate): Promise<Flag> {
    return this.send(E.flags.create, { wsId, trafficType: trafficTypeName }, FlagCreate, body);
  }

  /**
   * A flag by name or id (ref §2).
   * @throws NotFoundError when there is no such flag.
   */
  async get(wsId: string, nameOrId: string): Promise<Flag> {
    return this.request(E.flags.get, { wsId, flag: nameOrId });
  }

  /**
   * Every flag of a workspace, optionally filtered by exact name or tag (ref §1.1).
   * @param filter.pageSize Flags per request, 1 to 50 (default 50).
   * @example
   * for await (const f of admin.flags.list(ws.id, { tag: "checkout" })) console.log(f.name);
   */
  list(
    wsId: string,
    filter: { name?: string; tag?: string | string[]; pageSize?: number } = {},
  ): AsyncIterable<Flag> {
    const tag = typeof filter.tag === "string" ? [filter.tag] : filter.tag;
    const query = { name: filter.name, tag };
    return this.offsetPages(E.flags.list, { wsId }, filter.pageSize, LIMITS.flagsMax, query);
  }

  /**
   * Applies a JSON Patch to the workspace-level flag: `/description`, `/tags`, `/rolloutStatus/id`
   * (spec §4, ref §1.1).
   * @example
   * await admin.flags.patch(ws.id, "new-checkout", [{ op: "replace", path: "/rolloutStatus/id", value: ramping.id }]);
   */
  async patch(wsId: string, name: string, ops: JsonPatch): Promise<Flag> {
    return this.send(E.flags.patch, { wsId, flag: name }, JsonPatch, ops, "JSON Patch");
  }

  /** Replaces the description (a JSON Patch `replace /description`). */
  async setDescription(wsId: string, name: string, description: string): Promise<Flag> {
    return this.patch(wsId, name, [{ op: "replace", path: "/description", value: description }]);
  }

  /** Replaces the tags with these names (a JSON Patch `replace /tags`; tags are `[{name}]`, ref §9.1). */
  async setTags(wsId: string, name: string, tags: readonly string[]): Promise<Flag> {
    return this.patch(wsId, name, [{ op: "replace", path: "/tags", value: tags.map((t) => ({ name: t })) }]);
  }

  /** Moves the flag to another rollout status (spec §3; `rolloutStatusTimestamp` moves with it). */
  async setRolloutStatus(wsId: string, name: string, rolloutStatusId: string): Promise<Flag> {
    return this.patch(wsId, name, [{ op: "replace", path: "/rolloutStatus/id", value: rolloutStatusId }]);
  }

  /**
   * Deletes the flag and every environment definition of it (spec §3).
   * @returns `true`, the service's answer.
   */
  async delete(wsId: string, name: string): Promise<true> {
    return this.request(E.flags.delete, { wsId, flag: name });
  }
}

/** Flags at workspace level. */
export const part = adminPart("flags", (core) => new FlagsApi(core));
