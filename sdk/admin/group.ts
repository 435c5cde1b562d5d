/**
 * Groups of the account (spec §4 "Groups", ref §1.1): list (offset pages), get, get by name,
 * create, replace of name and description, delete.
 * @module
 */
import { invalidInput, parseInput } from "../core/validate-input";
import { adminEndpoints as E } from "./endpoints";
import { AdminApiPart, adminPart } from "./part";
import { type Group, GroupCreate, GroupPut, LIMITS } from "./schemas";

/** Groups (spec §4 "Groups"); names are unique per account. */
export class GroupsApi extends AdminApiPart {
  /**
   * Every group, page after page.
   * @param options.pageSize Groups per request, 1 to 200 (default 200).
   * @example
   * for await (const g of admin.groups.list({ pageSize: 50 })) console.log(g.name);
   */
  list(options: { pageSize?: number } = {}): AsyncIterable<Group> {
    return this.offsetPages(E.groups.list, {}, options.pageSize, LIMITS.groupsMax);
  }

  /**
   * A group by id (ref §1.1).
   * @throws NotFoundError when there is no such group.
   */
  async get(id: string): Promise<Group> {
    return this.request(E.groups.get, { groupId: id });
  }

  /** The group with exactly this name, or `undefined`. */
  async getByName(name: string): Promise<Group | undefined> {
    for await (const g of this.list()) if (g.name === name) return g;
    return undefined;
  }

  /**
   * Creates a group.
   * @throws ConflictError when the name is taken.
   * @example
   * const g = await admin.groups.create({ name: "release-managers", description: "may ramp flags" });
   */
  async create(body: GroupCreate): Promise<Group> {
    return this.send(E.groups.create, {}, GroupCreate, body);
  }

  /** Replaces a group's name and description; sends `{id, name, description, type}` (spec §4). */
  async put(id: string, body: GroupPut): Promise<Group> {
    const parsed = parseInput(GroupPut, body, E.groups.put, "request body");
    if (parsed.id !== undefined && parsed.id !== id) {
      throw invalidInput(E.groups.put, "request body", [
        { path: ["id"], message: `id must equal the group id in the path (${id})` },
      ]);
    }
    return this.request(
      E.groups.put,
      { groupId: id },
      { body: { id, name: parsed.name, description: parsed.description, type: "group" } },
    );
  }

  /** Deletes a group; returns `true`. */
  async delete(id: string): Promise<true> {
    return this.request(E.groups.delete, { groupId: id });
  }
}

/** Groups. */
export const part = adminPart("groups", (core) => new GroupsApi(core));
