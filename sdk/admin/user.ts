/**
 * Users of the account (spec §1, §3, §4 "Users", ref §5): invited, never created; listed by
 * `nextMarker`; read, replaced, patched (group membership) and deleted while PENDING.
 * @module
 */
import { adminEndpoints as E } from "./endpoints";
import { AdminApiPart, adminPart } from "./part";
import { JsonPatch, LIMITS, type User, UserInviteBody, UserPutBody, type UserStatus } from "./schemas";

/** Users: invited, never created (spec §1, §4 "Users"). */
export class UsersApi extends AdminApiPart {
  /**
   * Invites a user by e-mail; the user is PENDING until they accept (spec §3).
   * @example
   * const user = await admin.users.invite({ email: "ana@example.com", groups: [{ id: group.id, type: "group" }] });
   */
  async invite(body: UserInviteBody): Promise<User> {
    return this.send(E.users.invite, {}, UserInviteBody, body);
  }

  /**
   * Every user the key can see, following `nextMarker` (spec §4).
   * @param filter.pageSize Users per request, 1 to 200 (default 200).
   * @example
   * for await (const u of admin.users.list({ status: "PENDING" })) console.log(u.email);
   */
  list(filter: { status?: UserStatus; groupId?: string; pageSize?: number } = {}): AsyncIterable<User> {
    const query = { status: filter.status, group_id: filter.groupId };
    return this.markerPages(E.users.list, {}, filter.pageSize, LIMITS.usersMax, query);
  }

  /**
   * A user by id.
   * @throws NotFoundError when there is no such user.
   */
  async get(id: string): Promise<User> {
    return this.request(E.users.get, { userId: id });
  }

  /**
   * Replaces a user: every property must be sent (spec §4). Deactivate with `status: "DEACTIVATED"`.
   * @example
   * await admin.users.put(u.id, { email: u.email, name: u.name, status: "DEACTIVATED", "2fa": u["2fa"], type: "user" });
   */
  async put(id: string, body: UserPutBody): Promise<User> {
    return this.send(E.users.put, { userId: id }, UserPutBody, body);
  }

  /** Applies a JSON Patch (group membership, spec §4); returns the full user. */
  async patch(id: string, ops: JsonPatch): Promise<User> {
    return this.send(E.users.patch, { userId: id }, JsonPatch, ops, "JSON Patch");
  }

  /** Adds the user to a group: `add /groups/0 {id, type: "group"}` (spec §4). */
  async addToGroup(id: string, groupId: string): Promise<User> {
    return this.patch(id, [{ op: "add", path: "/groups/0", value: { id: groupId, type: "group" } }]);
  }

  /**
   * Removes the user from a group (ref §5: a `test` of `/groups/<i>/id`, then `remove /groups/<i>`;
   * the test makes a concurrent change fail instead of removing the wrong group). Returns the user
   * unchanged, without a PATCH, when they are not a member.
   */
  async removeFromGroup(id: string, groupId: string): Promise<User> {
    const user = await this.get(id);
    const i = (user.groups ?? []).findIndex((g) => g.id === groupId);
    if (i < 0) return user;
    return this.patch(id, [
      { op: "test", path: `/groups/${i}/id`, value: groupId },
      { op: "remove", path: `/groups/${i}` },
    ]);
  }

  /**
   * Deletes a PENDING user (an open invitation).
   * @throws ApiError 400 for an ACTIVE user: deactivate with {@link put} instead (spec §3).
   */
  async delete(id: string): Promise<true> {
    return this.request(E.users.delete, { userId: id });
  }
}

/** Users: invite, list, read, replace, patch, delete. */
export const part = adminPart("users", (core) => new UsersApi(core));
