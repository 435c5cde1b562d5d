/**
 * Workspaces (projects): spec §2 "Project (workspace)", §4 "Projects and environments".
 *
 * - `GET /workspaces?offset&limit&name&nameOp` → `{objects, offset, limit, totalCount}`; limit
 *   default 10 (the spec's sample), at most 100 (ref admin §1.2); `nameOp` is `IS` (default),
 *   `STARTS_WITH` or `CONTAINS` (ref admin §1.1).
 * - `POST /workspaces {name, requiresTitleAndComments}` creates a workspace with a `user` traffic
 *   type and no environment (ref admin §1.1); a duplicate name is 409 (inferred).
 * - `PATCH /workspaces/{id}` JSON Patch on `/name` and `/requiresTitleAndComments` (ref §9.1).
 * - `DELETE /workspaces/{id}` is refused while traffic types exist (ref admin §1.2), else `true`.
 * @module
 */
import { randomUUID } from "node:crypto";
import { Hono } from "hono";
import { z } from "zod";
import { LIMITS, WorkspaceCreate } from "../../sdk/admin/schemas";
import type { AppEnv } from "../context";
import { badRequest, conflict } from "../errors";
import { scopeOf } from "../middleware/auth";
import type { Store } from "../store";
import {
  applyJsonPatch,
  offsetPage,
  offsetParams,
  parseBody,
  parsePatch,
  parseValue,
  workspaceJson,
  workspaceOr404,
} from "./common";

const NAME_OPS = ["IS", "STARTS_WITH", "CONTAINS"] as const;

const WorkspacePatched = z.object({
  name: z.string().min(1, "name must not be empty"),
  requiresTitleAndComments: z.boolean({ error: "requiresTitleAndComments must be a boolean" }),
});

/** Routes under `/internal/api/v2/workspaces`. */
export function workspaceRoutes(store: Store): Hono<AppEnv> {
  const app = new Hono<AppEnv>({ strict: false });

  app.get("/workspaces", (c) => {
    const { offset, limit } = offsetParams(c, LIMITS.workspacesDefault, LIMITS.workspacesMax);
    const name = c.req.query("name");
    const nameOp = (c.req.query("nameOp") ?? "IS").toUpperCase();
    if (!(NAME_OPS as readonly string[]).includes(nameOp)) {
      throw badRequest(`nameOp: must be one of ${NAME_OPS.join(", ")}, got "${c.req.query("nameOp")}"`);
    }
    const scope = scopeOf(store, c);
    let all = [...store.workspaces.values()].filter((w) => scope.workspaceAllowed(w));
    if (name !== undefined && name !== "") {
      all = all.filter((w) =>
        nameOp === "IS"
          ? w.name === name
          : nameOp === "STARTS_WITH"
            ? w.name.startsWith(name)
            : w.name.includes(name),
      );
    }
    return c.json(offsetPage(all.map(workspaceJson), offset, limit));
  });

  app.post("/workspaces", async (c) => {
    scopeOf(store, c).assertAccountWide("create workspaces");
    const body = await parseBody(c, WorkspaceCreate);
    if ([...store.workspaces.values()].some((w) => w.name === body.name)) {
      throw conflict(`Workspace with name ${body.name} already exists`);
    }
    const ws = store.addWorkspace({
      id: randomUUID(),
      name: body.name,
      requiresTitleAndComments: body.requiresTitleAndComments,
    });
    const ttId = randomUUID();
    store.trafficTypes.set(ttId, { id: ttId, workspaceId: ws.id, name: "user", displayAttributeId: null });
    await store.commit();
    return c.json(workspaceJson(ws));
  });

  app.get("/workspaces/:ws", (c) => c.json(workspaceJson(workspaceOr404(store, c, c.req.param("ws")))));

  app.patch("/workspaces/:ws", async (c) => {
    const ws = workspaceOr404(store, c, c.req.param("ws"));
    scopeOf(store, c).assertAccountWide("change workspaces");
    const ops = await parsePatch(c);
    const patched = applyJsonPatch(workspaceJson(ws), ops);
    if (patched.id !== ws.id || patched.type !== "workspace")
      throw badRequest("id and type of a workspace cannot be changed");
    const next = parseValue(WorkspacePatched, {
      name: patched.name,
      requiresTitleAndComments: patched.requiresTitleAndComments,
    });
    if (next.name !== ws.name && [...store.workspaces.values()].some((w) => w.name === next.name)) {
      throw conflict(`Workspace with name ${next.name} already exists`);
    }
    ws.name = next.name;
    ws.requiresTitleAndComments = next.requiresTitleAndComments;
    await store.commit();
    return c.json(workspaceJson(ws));
  });

  app.delete("/workspaces/:ws", async (c) => {
    const ws = workspaceOr404(store, c, c.req.param("ws"));
    scopeOf(store, c).assertAccountWide("delete workspaces");
    const tts = store.trafficTypesOf(ws.id);
    if (tts.length > 0) {
      throw conflict(
        `Workspace ${ws.name} still has traffic types (${tts.map((t) => t.name).join(", ")}); delete them first`,
      );
    }
    if (store.environmentsOf(ws.id).length > 0)
      throw conflict(`Workspace ${ws.name} still has environments; delete them first`);
    store.workspaces.delete(ws.id);
    store.flagsByName.delete(ws.id);
    await store.commit();
    return c.json(true);
  });

  return app;
}
