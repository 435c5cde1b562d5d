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
import { Hono } from "hono";
import { z } from "zod";
import { GroupRef, LIMITS, UserInviteBody, UserPutBody, UserStatus } from "../../sdk/admin/schemas";
import type { AppEnv } from "../context";
import { badRequest, notFound } from "../errors";
import { intQuery, WHOLE_NUMBER } from "../http";
import { scopeOf } from "../middleware/auth";
import type { Store, UserRecord } from "../store";
import {
  type AdminContext,
  applyJsonPatch,
  parseBody,
  parsePatch,
  parseValue,
  readBody,
  userJson,
} from "./common";

const orderKey = (u: UserRecord) => `${String(u.creationTime).padStart(15, "0")}:${u.id}`;
const encodeMarker = (u: UserRecord) => Buffer.from(orderKey(u)).toString("base64url");
function decodeMarker(name: string, marker: string): string {
  const key = Buffer.from(marker, "base64url").toString("utf8");
  if (!/^\d{15}:[-0-9a-f]+$/.test(key))
    throw badRequest(`${name}: not a marker returned by this API ("${marker}")`);
  return key;
}

const GroupRefs = z.array(GroupRef, { error: 'groups must be an array of {id, type: "group"}' });

/** The properties a user PUT must send (spec §4). */
const USER_PUT_FIELDS = UserPutBody.keyof().options;

/** Routes under `/internal/api/v2/users`. */
export function userRoutes(store: Store): Hono<AppEnv> {
  const app = new Hono<AppEnv>({ strict: false });

  const userOr404 = (c: AdminContext): UserRecord => {
    const id = c.req.param("id") ?? "";
    const u = store.users.get(id);
    if (!u || !scopeOf(store, c).userVisible(u)) throw notFound(`Could not find user ${id}`);
    return u;
  };

  app.post("/users", async (c) => {
    const body = await parseBody(c, UserInviteBody);
    const u = store.users.invite(body, scopeOf(store, c).inviteScope());
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
    const all = store.users
      .list()
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
    const raw = await readBody(c);
    // spec §4: "all properties must be sent (not a partial update)"; a partial body (the davidji99
    // Terraform provider's `{status: "DEACTIVATED"}`) is refused naming what is missing.
    const missing = USER_PUT_FIELDS.filter((k) => typeof raw === "object" && raw !== null && !(k in raw));
    if (missing.length)
      throw badRequest(
        `PUT replaces the whole user: all of ${USER_PUT_FIELDS.join(", ")} must be sent (not a partial update); missing: ${missing.join(", ")}`,
      );
    const body = parseValue(UserPutBody, raw);
    store.users.update(u, {
      email: body.email,
      name: body.name,
      status: body.status,
      twoFactor: body["2fa"],
    });
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
    store.users.setGroups(u, parseValue(GroupRefs, after.groups ?? [], "groups"));
    await store.commit();
    return c.json(userJson(u));
  });

  app.delete("/users/:id", async (c) => {
    store.users.remove(userOr404(c));
    await store.commit();
    return c.json(true);
  });

  return app;
}
