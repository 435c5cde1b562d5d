/**
 * Environments: spec §2 "Environment", §4 "Projects and environments"; ref admin §1.1-1.2.
 *
 * - `GET /environments/ws/{ws}` → a bare JSON array `[{name, id, production}]`; a key restricted
 *   to environments lists only those.
 * - `GET /environments/ws/{ws}/{env}` → 405: the real API has no read of one environment.
 * - `POST /environments/ws/{ws} {name, production}` → the environment plus `apiTokens`: like the
 *   real service it creates a server-side and a client-side SDK key for it (ref §1.2); the
 *   response carries the key strings so tests can use them (inferred).
 * - `PATCH /environments/ws/{ws}/{env}` JSON Patch on `/name` and `/production` (a boolean, or the
 *   strings "true"/"false" as one client sends, ref §9.1).
 * - `DELETE /environments/ws/{ws}/{env}` is refused with 409 while API keys of the environment
 *   exist (ref §1.2: "you CANNOT delete an environment unless you first revoke all api keys");
 *   then it removes everything kept per environment (`Store.deleteEnvironment`) and returns `true`.
 * @module
 */
import { Hono } from "hono";
import { z } from "zod";
import { EnvironmentName } from "../../sdk/admin/schemas";
import type { AppEnv } from "../context";
import { badRequest, methodNotAllowed } from "../errors";
import { scopeOf } from "../middleware/auth";
import type { KeyRecord, Store } from "../store";
import {
  applyJsonPatch,
  boolQuery,
  environmentJson,
  environmentOr404,
  parseBody,
  parsePatch,
  parseValue,
  workspaceOr404,
} from "./common";

/** Body of `POST /environments/ws/{ws}` (ref admin §1.1). */
export const EnvironmentCreate = z.object({
  name: EnvironmentName,
  production: z.boolean({ error: "production must be a boolean" }).default(false),
  changePermissions: z.record(z.string(), z.unknown()).optional(),
  dataExportPermissions: z.record(z.string(), z.unknown()).optional(),
});

const boolish = z.union([z.boolean(), z.enum(["true", "false"]).transform((s) => s === "true")], {
  error: "production must be a boolean",
});
const EnvironmentPatched = z.object({ name: EnvironmentName, production: boolish });

/** The `apiTokens` entry of a key (ref admin §1.2; `type` undocumented, inferred). */
export const apiTokenJson = (k: KeyRecord) => ({
  id: k.id,
  name: k.name,
  type: "api_key",
  apiKeyType: k.type === "admin" ? "admin" : (k.apiKeyType ?? "server_side"),
  key: k.key,
});

/** Routes under `/internal/api/v2/environments`. */
export function environmentRoutes(store: Store): Hono<AppEnv> {
  const app = new Hono<AppEnv>({ strict: false });

  app.get("/environments/ws/:ws", (c) => {
    const ws = workspaceOr404(store, c, c.req.param("ws"));
    const scope = scopeOf(store, c);
    return c.json(
      store.environments
        .inWorkspace(ws.id)
        .filter((e) => scope.environmentAllowed(e))
        .map(environmentJson),
    );
  });

  app.get("/environments/ws/:ws/:env", () => {
    throw methodNotAllowed("HTTP 405 Method Not Allowed: environments are read by listing them");
  });

  app.post("/environments/ws/:ws", async (c) => {
    const ws = workspaceOr404(store, c, c.req.param("ws"));
    const scope = scopeOf(store, c);
    if (scope.key.environments?.length) scope.assertAccountWide("create environments");
    const body = await parseBody(c, EnvironmentCreate);
    const { env, keys } = store.createEnvironment(
      ws,
      { name: body.name, production: body.production },
      body.changePermissions,
    );
    await store.commit();
    return c.json({
      ...environmentJson(env),
      ...(body.changePermissions ? { changePermissions: body.changePermissions } : {}),
      ...(body.dataExportPermissions ? { dataExportPermissions: body.dataExportPermissions } : {}),
      apiTokens: keys.map(apiTokenJson),
    });
  });

  app.patch("/environments/ws/:ws/:env", async (c) => {
    const ws = workspaceOr404(store, c, c.req.param("ws"));
    const env = environmentOr404(store, c, ws, c.req.param("env"));
    const ops = await parsePatch(c);
    // `/changePermissions` is patched too (ref admin §1.2); `areApprovalsRequired` gates direct writes.
    const permissions = store.changePermissions.get(env.id)?.changePermissions ?? {};
    const patched = applyJsonPatch({ ...environmentJson(env), changePermissions: permissions }, ops);
    if (patched.id !== env.id) throw badRequest("id: the id of an environment cannot be changed");
    const next = parseValue(EnvironmentPatched, { name: patched.name, production: patched.production });
    const changePermissions =
      parseValue(EnvironmentCreate.shape.changePermissions, patched.changePermissions, "changePermissions") ??
      {};
    const dryRun = boolQuery(c, "dry_run");
    store.updateEnvironment(ws, env, next, changePermissions, !dryRun);
    if (!dryRun) await store.commit();
    // Like the create response, the answer shows the change permissions once there are any (ref §1.2).
    const shown = Object.keys(changePermissions).length > 0 ? { changePermissions } : {};
    return c.json({ ...environmentJson(env), ...(dryRun ? next : {}), ...shown });
  });

  app.delete("/environments/ws/:ws/:env", async (c) => {
    const ws = workspaceOr404(store, c, c.req.param("ws"));
    const env = environmentOr404(store, c, ws, c.req.param("env"));
    store.deleteEnvironment(env);
    await store.commit();
    return c.json(true);
  });

  return app;
}
