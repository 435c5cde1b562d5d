/**
 * Workspaces (projects): spec §2 "Project (workspace)", §4 "Projects and environments".
 *
 * - `GET /workspaces?offset&limit&name&nameOp` → `{objects, offset, limit, totalCount}`; limit
 *   default 10 (the spec's sample), at most 100 (ref admin §1.2); `nameOp` is `IS` (default),
 *   `STARTS_WITH` or `CONTAINS` (ref admin §1.1).
 * - `POST /workspaces {name, requiresTitleAndComments}` creates a workspace with a `user` traffic
 *   type and no environment (ref admin §1.1); a duplicate name is 409 (inferred).
 * - A Harness project is an FME workspace (`Store.takeWorkspace`): the answers of a project's
 *   workspace carry its `organizationIdentifier` and `projectIdentifier` ([HSDK]
 *   `harness/split/workspaces.go` `Workspace`), and the list filters by them.
 * - `PATCH /workspaces/{id}` JSON Patch on `/name` and `/requiresTitleAndComments` (ref §9.1); an
 *   unrestricted key, or a Harness token of the workspace's project or organization
 *   (`Scope.assertWorkspaceChange`); a rename keeps the workspace its project's.
 * - `DELETE /workspaces/{id}` is refused while traffic types exist (ref admin §1.2), else `true`.
 * @module
 */
import { Hono } from "hono";
import { z } from "zod";
import { LIMITS, WorkspaceCreate } from "../../sdk/admin/schemas";
import type { AppEnv } from "../context";
import { badRequest } from "../errors";
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
    let all = store.workspaces.list().filter((w) => scope.workspaceAllowed(w));
    // Harness mode (ref admin §1.2: [HSDK] `workspaces.go` resolves a workspace from the Harness
    // organization and project, `?organizationIdentifier=&projectIdentifier=`, and every
    // `harness_fme_*` resource of [HP] through it, `internal/service/split/workspace.go`; a public
    // migration script does the same lookup): the workspace that project is (`Store.inProject`);
    // none when the project does not exist.
    const org = c.req.query("organizationIdentifier");
    const project = c.req.query("projectIdentifier");
    if (org !== undefined || project !== undefined) {
      if (!org || !project) {
        throw badRequest("organizationIdentifier and projectIdentifier must be given together");
      }
      const linked = store.platform.project(org, project);
      all = linked ? all.filter((w) => store.inProject(w, linked)) : [];
    }
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
    const ws = store.createWorkspace({
      name: body.name,
      requiresTitleAndComments: body.requiresTitleAndComments,
    });
    await store.commit();
    return c.json(workspaceJson(ws));
  });

  app.get("/workspaces/:ws", (c) => c.json(workspaceJson(workspaceOr404(store, c, c.req.param("ws")))));

  app.patch("/workspaces/:ws", async (c) => {
    const ws = workspaceOr404(store, c, c.req.param("ws"));
    scopeOf(store, c).assertWorkspaceChange();
    const ops = await parsePatch(c);
    const patched = applyJsonPatch(workspaceJson(ws), ops);
    if (patched.id !== ws.id || patched.type !== "workspace")
      throw badRequest("id and type of a workspace cannot be changed");
    const next = parseValue(WorkspacePatched, {
      name: patched.name,
      requiresTitleAndComments: patched.requiresTitleAndComments,
    });
    store.workspaces.update(ws, next);
    await store.commit();
    return c.json(workspaceJson(ws));
  });

  app.delete("/workspaces/:ws", async (c) => {
    const ws = workspaceOr404(store, c, c.req.param("ws"));
    scopeOf(store, c).assertAccountWide("delete workspaces");
    store.deleteWorkspace(ws);
    await store.commit();
    return c.json(true);
  });

  return app;
}
