/**
 * Large segments (ref admin §9.2 `harness_fme_large_segment` and its environment association): a
 * segment at workspace level whose members (up to millions) are uploaded as a file through a
 * change request, never key by key. The paths and shapes are those of the official Python client,
 * splitapiclient 3.5.9 `microclients/large_segment_microclient.py` and
 * `large_segment_definition_microclient.py`:
 * - `POST /large-segments/ws/{ws}/trafficTypes/{tt} {name, description}`;
 * - `GET /large-segments/ws/{ws}` and `GET /large-segments/ws/{ws}/environments/{env}`: bare
 *   arrays (the Python client iterates the body). There is no GET of one large segment: it is
 *   found in the list;
 * - `DELETE /large-segments/ws/{ws}/{name}` → `true` (it leaves every environment);
 * - `POST /large-segments/{env}/{name}` activates it in an environment, `DELETE` the same path
 *   deactivates it.
 * The members' upload is a change request (`operationType: "UPLOAD"`, `./change-requests.ts`).
 *
 * Also here, shared with `./rule-based-segments.ts`: the segment shape both kinds answer and the
 * walk of a bare-array list paged by `offset` and `limit`.
 *
 * The routes live here rather than in `./endpoints.ts`, with the part that calls them.
 * @module
 */
import { z } from "zod";
import { NotFoundError } from "../core/errors";
import { checkPageSize } from "../core/paginate";
import type { Query } from "../core/request";
import { route } from "../core/route";
import { AdminApiPart } from "./part";
import { IdRef, SegmentCreateBody, TrueBody } from "./schemas";
import { Segment } from "./segments";

/**
 * A large or rule-based segment as the service returns it: `{name, description, trafficType{id,
 * name}, creationTime, tags}`, the shape of a segment (no id).
 */
export const KindSegment = Segment;
export type KindSegment = z.infer<typeof KindSegment>;

/** A large segment at workspace level. */
export const LargeSegment = KindSegment;
export type LargeSegment = KindSegment;

/** A large segment active in an environment: `{id, name, environment, trafficType, creationTime}`. */
export const LargeSegmentActivation = z.looseObject({
  id: z.string().optional(),
  name: z.string(),
  environment: IdRef,
  trafficType: IdRef,
  creationTime: z.number().int(),
});
export type LargeSegmentActivation = z.infer<typeof LargeSegmentActivation>;

/** Segments per request of the kinds' lists (the Python client's `limit=50`). */
export const KIND_SEGMENTS_PAGE_MAX = 50;

/**
 * Walks a bare-array list paged by `offset` and `limit`: the next page is asked for while a page
 * is full. A page longer than the limit is a service that does not page that list (the Python
 * client's `rule_based_segment_microclient.py` `list` stops there too): it is the whole list.
 */
export async function* walkArrayPages<T>(
  fetch: (query: Query) => Promise<T[]>,
  limit: number,
): AsyncGenerator<T, void, undefined> {
  let offset = 0;
  for (;;) {
    const page = await fetch({ offset, limit });
    yield* page;
    if (page.length !== limit) return;
    offset += limit;
  }
}

/** The large segment routes. */
export const largeSegmentEndpoints = {
  list: route("GET /internal/api/v2/large-segments/ws/{wsId}", z.array(LargeSegment)),
  create: route("POST /internal/api/v2/large-segments/ws/{wsId}/trafficTypes/{trafficType}", LargeSegment),
  /** Removes the large segment from every environment too. */
  delete: route("DELETE /internal/api/v2/large-segments/ws/{wsId}/{segment}", TrueBody, {
    goneOnRetry: true,
  }),
  /** Large segments active in an environment. */
  active: route(
    "GET /internal/api/v2/large-segments/ws/{wsId}/environments/{environment}",
    z.array(LargeSegmentActivation),
  ),
  activate: route("POST /internal/api/v2/large-segments/{environment}/{segment}", LargeSegmentActivation),
  deactivate: route("DELETE /internal/api/v2/large-segments/{environment}/{segment}", TrueBody, {
    goneOnRetry: true,
  }),
} as const;

/** The NotFoundError of a segment missing from its workspace's list (there is no GET of one). */
export function segmentNotFound(template: string, label: string, name: string): NotFoundError {
  return new NotFoundError({
    status: 404,
    method: "GET",
    url: template,
    message: `Could not find ${label} ${name}`,
  });
}

/** Large segments of a workspace and their activation per environment: `admin.largeSegments`. */
export class LargeSegmentsApi extends AdminApiPart {
  /**
   * Every large segment of a workspace, page after page.
   * @param options.pageSize Segments per request, 1 to 50 (default 50).
   * @example
   * for await (const s of admin.largeSegments.list(ws.id)) console.log(s.name);
   */
  list(wsId: string, options: { pageSize?: number } = {}): AsyncIterable<LargeSegment> {
    const r = largeSegmentEndpoints.list;
    const limit = checkPageSize(
      options.pageSize,
      KIND_SEGMENTS_PAGE_MAX,
      KIND_SEGMENTS_PAGE_MAX,
      "GET",
      r.template,
    );
    return walkArrayPages((query) => this.request(r, { wsId }, { query }), limit);
  }

  /** The large segment with exactly this name, or `undefined` (a walk of the list). */
  async find(wsId: string, name: string): Promise<LargeSegment | undefined> {
    for await (const s of this.list(wsId)) if (s.name === name) return s;
    return undefined;
  }

  /**
   * The large segment of this name (a walk of the list: the API has no GET of one).
   * @throws NotFoundError when the workspace has none of that name.
   */
  async get(wsId: string, name: string): Promise<LargeSegment> {
    const found = await this.find(wsId, name);
    if (found === undefined)
      throw segmentNotFound(largeSegmentEndpoints.list.template, "large segment", name);
    return found;
  }

  /**
   * Creates a large segment of a traffic type (by name or id).
   * @throws ConflictError when the workspace has a large segment of that name.
   * @example
   * const all = await admin.largeSegments.create(ws.id, "user", { name: "all_customers", description: "CRM export" });
   */
  async create(wsId: string, trafficType: string, body: SegmentCreateBody): Promise<LargeSegment> {
    return this.send(largeSegmentEndpoints.create, { wsId, trafficType }, SegmentCreateBody, body);
  }

  /** Deletes the large segment and its members in every environment; returns `true`. */
  async delete(wsId: string, name: string): Promise<true> {
    return this.request(largeSegmentEndpoints.delete, { wsId, segment: name });
  }

  /**
   * Every large segment active in an environment (id) of a workspace, page after page.
   * @param options.pageSize Segments per request, 1 to 50 (default 50).
   */
  active(
    wsId: string,
    envId: string,
    options: { pageSize?: number } = {},
  ): AsyncIterable<LargeSegmentActivation> {
    const r = largeSegmentEndpoints.active;
    const limit = checkPageSize(
      options.pageSize,
      KIND_SEGMENTS_PAGE_MAX,
      KIND_SEGMENTS_PAGE_MAX,
      "GET",
      r.template,
    );
    return walkArrayPages((query) => this.request(r, { wsId, environment: envId }, { query }), limit);
  }

  /** The large segment's activation in the environment, or `undefined` when it is not active there. */
  async activation(wsId: string, envId: string, name: string): Promise<LargeSegmentActivation | undefined> {
    for await (const a of this.active(wsId, envId)) if (a.name === name) return a;
    return undefined;
  }

  /**
   * Activates the large segment in an environment (id), with no members.
   * @throws ConflictError when it is active there already.
   * @example
   * await admin.largeSegments.activate(prod.id, "all_customers");
   */
  async activate(envId: string, name: string): Promise<LargeSegmentActivation> {
    return this.request(largeSegmentEndpoints.activate, { environment: envId, segment: name });
  }

  /** Removes the large segment, with its members, from the environment; returns `true`. */
  async deactivate(envId: string, name: string): Promise<true> {
    return this.request(largeSegmentEndpoints.deactivate, { environment: envId, segment: name });
  }
}
