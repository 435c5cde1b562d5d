/**
 * Restrictions: who may view a workspace (ref admin §1.1 "restrictions": `GET
 * /restrictions?resource_type&resource_id&offset&limit`, `PUT /restrictions`, workspace view only).
 * The shapes are those of Split's official Python client, `splitapiclient` 3.5.9:
 * `microclients/restriction_microclient.py` (`list` walks offset pages of `limit=20` filtered by
 * `resource_type` and `resource_id`; `add` PUTs `{resource: {id, type}, operations: {view},
 * resourcePermissions: {view: [...]}}`) and `resources/restriction.py` (the answer: `{id, type:
 * "restriction", resource: {id, type, name}, operations: {view}, resourcePermissions: {view:
 * [{id, type, name}]}}`). There is no DELETE: a PUT sets a resource's whole restriction, and a PUT
 * of `view: false` with no viewers opens it to everyone again.
 *
 * The routes live here rather than in `./endpoints.ts`, with the part that calls them.
 * @module
 */
import { z } from "zod";
import { route } from "../core/route";
import { AdminApiPart, adminPart } from "./part";
import { offsetPage, RestrictionBody } from "./schemas";

/** Restrictions per request of the list: the official client's fixed `limit=20`. */
export const RESTRICTIONS_PAGE_MAX = 20;

/** One user or group a restriction names (`resources/restriction.py`: `{name, id, type}`). */
export const RestrictionViewer = z.looseObject({
  id: z.string(),
  type: z.string(),
  name: z.string().nullish(),
});
export type RestrictionViewer = z.infer<typeof RestrictionViewer>;

/** A restriction as the service answers it (`resources/restriction.py` `_schema`). */
export const Restriction = z.looseObject({
  id: z.string(),
  type: z.literal("restriction"),
  resource: z.looseObject({ id: z.string(), type: z.string(), name: z.string().nullish() }),
  operations: z.looseObject({ view: z.boolean() }),
  resourcePermissions: z.looseObject({ view: z.array(RestrictionViewer) }),
});
export type Restriction = z.infer<typeof Restriction>;

/** The restriction routes (ref admin §1.1). */
export const restrictionEndpoints = {
  list: route("GET /internal/api/v2/restrictions", offsetPage(Restriction)),
  put: route("PUT /internal/api/v2/restrictions", Restriction),
} as const;

/** Restrictions of workspaces: `admin.restrictions`. */
export class RestrictionsApi extends AdminApiPart {
  /**
   * Every restriction of one resource (a workspace), page after page.
   * @param options.pageSize Restrictions per request, 1 to 20 (default 20).
   * @example
   * for await (const r of admin.restrictions.list("workspace", ws.id)) console.log(r.operations.view);
   */
  list(
    resourceType: "workspace",
    resourceId: string,
    options: { pageSize?: number } = {},
  ): AsyncIterable<Restriction> {
    const query = { resource_type: resourceType, resource_id: resourceId };
    return this.offsetPages(restrictionEndpoints.list, {}, options.pageSize, RESTRICTIONS_PAGE_MAX, query);
  }

  /**
   * The restriction of a workspace, or `undefined` where none was ever set.
   * @throws NotFoundError when there is no such workspace.
   */
  async ofWorkspace(workspaceId: string): Promise<Restriction | undefined> {
    for await (const r of this.list("workspace", workspaceId)) {
      if (r.resource.id === workspaceId && r.resource.type === "workspace") return r;
    }
    return undefined;
  }

  /**
   * Sets a workspace's whole restriction: whether its view is restricted, and to whom.
   * @example
   * await admin.restrictions.put({
   *   resource: { id: ws.id, type: "workspace" },
   *   operations: { view: true },
   *   resourcePermissions: { view: [{ id: group.id, type: "group" }] },
   * });
   */
  async put(body: RestrictionBody): Promise<Restriction> {
    return this.send(restrictionEndpoints.put, {}, RestrictionBody, body);
  }
}

/** Who may view a workspace: list, set. */
export const part = adminPart("restrictions", (core) => new RestrictionsApi(core));
