/**
 * Users: spec §2 "User", §3 "User status", §4 "Users", §7, §8; ref admin §5.
 *
 * - `POST /users {email, groups}` invites: status PENDING, `name` = the local part of the e-mail,
 *   `2fa` false. Users cannot be created otherwise; the invited person accepting is emulated by
 *   `POST /_emulator/users/{id}/accept` (PENDING → ACTIVE). A second invitation of an e-mail is
 *   409 (inferred); unknown groups are 400.
 * - `GET /users?status&group_id&after&before&limit` → `{data, nextMarker, previousMarker, limit,
 *   count}`; limit default 20, at most 200; markers are opaque; a single page has both null.
 * - `GET /users/{id}`; `PUT /users/{id}` needs all of email, name, status, 2fa, type (not a
 *   partial update); 2FA cannot be enabled through the API (ref §5); a PENDING user becomes
 *   ACTIVE only by accepting; ACTIVE ⇄ DEACTIVATED through PUT (reactivation inferred).
 * - `PATCH /users/{id}` JSON Patch of `/groups` only (`add /groups/0 {id, type:"group"}`,
 *   `test /groups/0/id` + `remove /groups/0`), returning the full user.
 * - `DELETE /users/{id}`: PENDING → removed (`true`); ACTIVE → the spec's 400; DEACTIVATED → 400
 *   too (ref §9.1: only pending users are deleted; inferred).
 * A key restricted to workspaces only sees and changes its own users (see `middleware/auth.ts`);
 * other users are 404, as the real API answers for "no access" (ref §4).
 * @module
 */
import { randomUUID } from "node:crypto";
import { Hono } from "hono";
import { z } from "zod";
import { GroupRef, LIMITS, UserInviteBody, UserPutBody, UserStatus } from "../../sdk/admin/schemas";
import type { AppEnv } from "../context";
import { badRequest, conflict, notFound } from "../errors";
import { intQuery, WHOLE_NUMBER } from "../http";
import { scopeOf } from "../middleware/auth";
import type { Store, UserRecord } from "../store";
import { type AdminContext, applyJsonPatch, parseBody, parsePatch, parseValue, userJson } from "./common";

/** The spec's message for deleting an ACTIVE user (spec §7; wording from ref admin §4). */
export const ACTIVE_USER_DELETE_MESSAGE =
  "Active users cannot be deleted from your org. You can use a PUT request to deactivate the user";

const orderKey = (u: UserRecord) => `${String(u.creationTime).padStart(15, "0")}:${u.id}`;
const encodeMarker = (u: UserRecord) => Buffer.from(orderKey(u)).toString("base64url");
function decodeMarker(name: string, marker: string): string {
  const key = Buffer.from(marker, "base64url").toString("utf8");
  if (!/^\d{15}:[-0-9a-f]+$/.test(key))
    throw badRequest(`${name}: not a marker returned by this API ("${marker}")`);
  return key;
}

/** Makes a PENDING user ACTIVE (the invited person completed registration, spec §3). */
export function acceptInvitation(store: Store, id: string): UserRecord {
  const u = store.users.get(id);
  if (!u) throw notFound(`Could not find user ${id}`);
  if (u.status !== "PENDING")
    throw badRequest(`User ${id} is ${u.status}; only a PENDING invitation can be accepted`);
  u.status = "ACTIVE";
  return u;
}

const GroupRefs = z.array(GroupRef, { error: 'groups must be an array of {id, type: "group"}' });

/** Routes under `/internal/api/v2/users`. */
export function userRoutes(store: Store): Hono<AppEnv> {
  const app = new Hono<AppEnv>({ strict: false });

  const userOr404 = (c: AdminContext): UserRecord => {
    const id = c.req.param("id") ?? "";
    const u = store.users.get(id);
    if (!u || !scopeOf(store, c).userVisible(u)) throw notFound(`Could not find user ${id}`);
    return u;
  };
  /** Group ids of a groups array, each checked to exist; duplicates dropped. */
  const groupIds = (refs: { id: string }[]): string[] => {
    refs.forEach((g, i) => {
      if (!store.groups.has(g.id)) throw badRequest(`groups[${i}].id: group ${g.id} does not exist`);
    });
    return [...new Set(refs.map((g) => g.id))];
  };
  const emailTaken = (email: string, except?: string) =>
    [...store.users.values()].some((u) => u.id !== except && u.email.toLowerCase() === email.toLowerCase());

  app.post("/users", async (c) => {
    const body = await parseBody(c, UserInviteBody);
    if (emailTaken(body.email)) throw conflict(`User with email ${body.email} already exists`);
    const u: UserRecord = {
      id: randomUUID(),
      name: body.email.slice(0, body.email.indexOf("@")),
      email: body.email,
      status: "PENDING",
      twoFactor: false,
      groups: groupIds(body.groups),
      scope: scopeOf(store, c).inviteScope(),
      creationTime: Date.now(),
    };
    store.users.set(u.id, u);
    await store.commit();
    return c.json(userJson(u));
  });

  app.get("/users", (c) => {
    const limit = intQuery(c, "limit", LIMITS.usersDefault, WHOLE_NUMBER, 1, LIMITS.usersMax);
    const statusRaw = c.req.query("status");
    const status = statusRaw ? parseValue(UserStatus, statusRaw, "status") : undefined;
    const groupId = c.req.query("group_id");
    const afterRaw = c.req.query("after");
    const beforeRaw = c.req.query("before");
    if (afterRaw && beforeRaw) throw badRequest("after: give either after or before, not both");
    const scope = scopeOf(store, c);
    const all = [...store.users.values()]
      .filter((u) => scope.userVisible(u))
      .filter((u) => !status || u.status === status)
      .filter((u) => !groupId || u.groups.includes(groupId))
      .sort((a, b) => (orderKey(a) < orderKey(b) ? -1 : 1));
    let start = 0;
    let end: number;
    if (afterRaw) {
      const k = decodeMarker("after", afterRaw);
      start = all.findIndex((u) => orderKey(u) > k);
      if (start < 0) start = all.length;
      end = Math.min(all.length, start + limit);
    } else if (beforeRaw) {
      const k = decodeMarker("before", beforeRaw);
      end = all.findIndex((u) => orderKey(u) >= k);
      if (end < 0) end = all.length;
      start = Math.max(0, end - limit);
    } else {
      end = Math.min(all.length, limit);
    }
    const data = all.slice(start, end);
    const last = data[data.length - 1];
    const first = data[0];
    return c.json({
      data: data.map(userJson),
      nextMarker: end < all.length && last ? encodeMarker(last) : null,
      previousMarker: start > 0 && first ? encodeMarker(first) : null,
      limit,
      count: data.length,
    });
  });

  app.get("/users/:id", (c) => c.json(userJson(userOr404(c))));

  app.put("/users/:id", async (c) => {
    const u = userOr404(c);
    const body = await parseBody(c, UserPutBody);
    if (body["2fa"] && !u.twoFactor)
      throw badRequest("2fa: two-factor authentication cannot be enabled through the API");
    if (body.status !== u.status) {
      if (u.status === "PENDING") {
        throw badRequest(
          `status: a PENDING user becomes ACTIVE only by accepting the invitation; delete the invitation instead`,
        );
      }
      if (body.status === "PENDING") throw badRequest("status: a user cannot be set back to PENDING");
    }
    if (emailTaken(body.email, u.id)) throw conflict(`User with email ${body.email} already exists`);
    u.email = body.email;
    u.name = body.name;
    u.status = body.status;
    u.twoFactor = body["2fa"];
    await store.commit();
    return c.json(userJson(u));
  });

  app.patch("/users/:id", async (c) => {
    const u = userOr404(c);
    const ops = await parsePatch(c);
    const before = userJson(u);
    const after = applyJsonPatch(before, ops) as Record<string, unknown>;
    for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
      if (key === "groups") continue;
      if (JSON.stringify(after[key]) !== JSON.stringify((before as Record<string, unknown>)[key])) {
        throw badRequest(`${key}: only /groups can be changed with PATCH; use PUT for the other fields`);
      }
    }
    u.groups = groupIds(parseValue(GroupRefs, after.groups ?? [], "groups"));
    await store.commit();
    return c.json(userJson(u));
  });

  app.delete("/users/:id", async (c) => {
    const u = userOr404(c);
    if (u.status === "ACTIVE") throw badRequest(ACTIVE_USER_DELETE_MESSAGE);
    if (u.status === "DEACTIVATED")
      throw badRequest(
        "Deactivated users cannot be deleted from your org; only pending invitations can be deleted",
      );
    store.users.delete(u.id);
    await store.commit();
    return c.json(true);
  });

  return app;
}
