/**
 * API keys (ref admin §1.1 "api keys", §9.1 `split_api_key`): `POST /apiKeys` and
 * `DELETE /apiKeys/{id}`; there is no read or list. Needed so environments can be deleted (their
 * auto-created SDK keys must be revoked first). An unrestricted key mints and revokes any key; a
 * Harness token of some organizations or projects only keys no wider than itself; a restricted
 * admin key none (`Scope.assertMint`, `Scope.assertRevoke`).
 * @module
 */
import { Hono } from "hono";
import { z } from "zod";
import type { AppEnv } from "../context";
import { badRequest } from "../errors";
import { scopeOf } from "../middleware/auth";
import { type EnvironmentRecord, newKeyString, type Store } from "../store";
import { parseBody } from "./common";
import { apiTokenJson } from "./environment";

/** Body of `POST /apiKeys` (ref §9.1). */
export const ApiKeyCreate = z.object({
  name: z
    .string({ error: "name is required" })
    .min(1, "name must not be empty")
    .max(100, "name must be at most 100 characters"),
  apiKeyType: z.enum(["server_side", "client_side", "admin"], {
    error: "apiKeyType must be server_side, client_side or admin",
  }),
  // null: the Harness Go SDK sends the fields it leaves unset (`harness/split/api_keys.go`
  // `KeyRequest`, no `omitempty`; the Harness provider's `harness_fme_api_key`).
  roles: z.array(z.string()).nullish(),
  environments: z
    .array(z.object({ type: z.literal("environment").optional(), id: z.string().min(1) }))
    .default([]),
  workspace: z.object({ type: z.literal("workspace").optional(), id: z.string().min(1) }).nullish(),
});

/** Routes under `/internal/api/v2/apiKeys`. */
export function apiKeyRoutes(store: Store): Hono<AppEnv> {
  const app = new Hono<AppEnv>({ strict: false });

  app.post("/apiKeys", async (c) => {
    const scope = scopeOf(store, c);
    scope.assertMint();
    const body = await parseBody(c, ApiKeyCreate);
    const ws = body.workspace ? store.workspaces.get(body.workspace.id) : undefined;
    if (body.workspace && !ws)
      throw badRequest(`workspace.id: workspace ${body.workspace.id} does not exist`);
    const envs: EnvironmentRecord[] = [];
    for (const [i, e] of body.environments.entries()) {
      const env = store.environments.get(e.id);
      if (!env) throw badRequest(`environments[${i}].id: environment ${e.id} does not exist`);
      if (ws && env.workspaceId !== ws.id)
        throw badRequest(`environments[${i}].id: environment ${e.id} is not in workspace ${ws.id}`);
      envs.push(env);
    }
    if (body.apiKeyType !== "admin" && body.environments.length !== 1) {
      throw badRequest("environments: an SDK key belongs to exactly one environment");
    }
    scope.assertMint({ workspace: ws, environments: envs });
    const admin = body.apiKeyType === "admin";
    const key = store.keys.add({
      name: body.name,
      key: admin ? newKeyString.admin() : newKeyString.sdk(),
      type: admin ? "admin" : "sdk",
      ...(admin ? {} : { apiKeyType: body.apiKeyType as "server_side" | "client_side" }),
      ...(ws ? { workspaces: [ws.id] } : {}),
      ...(body.environments.length ? { environments: body.environments.map((e) => e.id) } : {}),
    });
    await store.commit();
    return c.json({ ...apiTokenJson(key), roles: body.roles ?? [] });
  });

  app.delete("/apiKeys/:id", async (c) => {
    const id = c.req.param("id");
    scopeOf(store, c).assertRevoke(store.keys.byId(id));
    store.keys.revoke(id);
    await store.commit();
    return c.json(true);
  });

  return app;
}
