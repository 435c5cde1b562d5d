/**
 * Flag sets, the admin API's v3 part (ref admin §1.1 "flag sets", §9.1 `split_flag_set`):
 * `/internal/api/v3/flag-sets`, marker pages `{data, nextMarker, previousMarker, limit, count}`
 * (the shapes of the official Python client, `microclients/flag_set_microclient.py`). A flag set
 * has a name and a description; there is no update, and which flags belong to it is kept on each
 * flag's definition per environment (`flagSets: [{id, type}]`, ref §2).
 *
 * The routes live here rather than in `./endpoints.ts`, with the part that calls them.
 * @module
 */
import { z } from "zod";
import { route } from "../core/route";
import { AdminApiPart, adminPart } from "./part";
import { FlagSet, FlagSetCreate } from "./schemas";

/** Flag sets per request of the list (the most a page holds, ref §9.1: `limit=200`). */
export const FLAG_SETS_PAGE_MAX = 200;

/** One page of the flag set list. */
export const FlagSetPage = z.looseObject({
  data: z.array(FlagSet),
  nextMarker: z.string().nullable(),
  previousMarker: z.string().nullable().optional(),
  limit: z.number().int(),
  count: z.number().int(),
});

/** The flag set routes (ref §1.1: v3, outside the v2 prefix). */
export const flagSetEndpoints = {
  list: route("GET /internal/api/v3/flag-sets", FlagSetPage),
  get: route("GET /internal/api/v3/flag-sets/{flagSetId}", FlagSet),
  create: route("POST /internal/api/v3/flag-sets", FlagSet),
  /** 204 with no body. */
  delete: route("DELETE /internal/api/v3/flag-sets/{flagSetId}", z.literal(true), {
    emptyBody: true,
    goneOnRetry: true,
  }),
} as const;

/** Flag sets of a workspace: `admin.flagSets`. */
export class FlagSetsApi extends AdminApiPart {
  /**
   * Every flag set of a workspace, following `nextMarker`.
   * @param options.pageSize Flag sets per request, 1 to 200 (default 200).
   * @example
   * for await (const set of admin.flagSets.list(ws.id)) console.log(set.name);
   */
  list(wsId: string, options: { pageSize?: number } = {}): AsyncIterable<FlagSet> {
    const query = { workspace_id: wsId };
    return this.markerPages(flagSetEndpoints.list, {}, options.pageSize, FLAG_SETS_PAGE_MAX, query);
  }

  /** The flag set of the workspace with exactly this name, or `undefined` (a walk of the list). */
  async find(wsId: string, name: string): Promise<FlagSet | undefined> {
    for await (const set of this.list(wsId)) if (set.name === name) return set;
    return undefined;
  }

  /**
   * A flag set by id.
   * @throws NotFoundError when there is no such flag set.
   */
  async get(id: string): Promise<FlagSet> {
    return this.request(flagSetEndpoints.get, { flagSetId: id });
  }

  /**
   * Creates a flag set in a workspace.
   * @throws ConflictError when the workspace has a flag set of that name.
   * @example
   * const web = await admin.flagSets.create({ name: "web", description: "Flags of the web app", workspace: { id: ws.id } });
   */
  async create(body: FlagSetCreate): Promise<FlagSet> {
    return this.send(flagSetEndpoints.create, {}, FlagSetCreate, body);
  }

  /** Deletes a flag set; returns `true`. */
  async delete(id: string): Promise<true> {
    return this.request(flagSetEndpoints.delete, { flagSetId: id });
  }
}

/** Flag sets of a workspace (v3). */
export const part = adminPart("flagSets", (core) => new FlagSetsApi(core));
