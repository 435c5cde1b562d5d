/**
 * What large segments (`./large-segment.ts`) and rule-based segments (`./rule-based-segment.ts`)
 * share: the same routes under their own path (`/internal/api/v2/large-segments`,
 * `/internal/api/v2/rule-based-segments`; splitapiclient 3.5.9's two microclients of each kind
 * call the same shapes), the segment shape both answer, lists that are bare arrays paged by
 * `offset` and `limit`, and the part's methods over them: list, find, get (a walk of the list:
 * there is no GET of one), create, delete, the per-environment list and activation.
 * @module
 */
import { z } from "zod";
import { NotFoundError } from "../core/errors";
import { checkPageSize } from "../core/paginate";
import type { Query } from "../core/request";
import { type Route, route } from "../core/route";
import { AdminApiPart } from "./part";
import { SegmentCreateBody, TrueBody } from "./schemas";
import { Segment } from "./segment";

/**
 * A large or rule-based segment as the service returns it: `{name, description, trafficType{id,
 * name}, creationTime, tags}`, the shape of a segment (no id).
 */
export const KindSegment = Segment;
export type KindSegment = z.infer<typeof KindSegment>;

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

/** The NotFoundError of a segment missing from its workspace's list (there is no GET of one). */
export function segmentNotFound(template: string, label: string, name: string): NotFoundError {
  return new NotFoundError({
    status: 404,
    method: "GET",
    url: template,
    message: `Could not find ${label} ${name}`,
  });
}

/**
 * The routes of one kind, typed by their parameters (`R` of a {@link Route} is what names them;
 * the kind's path is in each route's template).
 */
export interface KindSegmentRoutes<A extends z.ZodType> {
  list: Route<"GET /ws/{wsId}", z.ZodArray<typeof KindSegment>>;
  create: Route<"POST /ws/{wsId}/trafficTypes/{trafficType}", typeof KindSegment>;
  /** Removes the segment from every environment too. */
  delete: Route<"DELETE /ws/{wsId}/{segment}", typeof TrueBody>;
  /** What of the kind is active in an environment (activations, or definitions). */
  active: Route<"GET /ws/{wsId}/environments/{environment}", z.ZodArray<A>>;
  activate: Route<"POST /{environment}/{segment}", A>;
  deactivate: Route<"DELETE /{environment}/{segment}", typeof TrueBody>;
}

/** The routes of the kind under `/internal/api/v2/{kind}`, answering `activation` per environment. */
export function kindSegmentRoutes<A extends z.ZodType>(
  kind: "large-segments" | "rule-based-segments",
  activation: A,
): KindSegmentRoutes<A> {
  const base = `/internal/api/v2/${kind}` as const;
  return {
    list: route(`GET ${base}/ws/{wsId}`, z.array(KindSegment)),
    create: route(`POST ${base}/ws/{wsId}/trafficTypes/{trafficType}`, KindSegment),
    delete: route(`DELETE ${base}/ws/{wsId}/{segment}`, TrueBody, { goneOnRetry: true }),
    active: route(`GET ${base}/ws/{wsId}/environments/{environment}`, z.array(activation)),
    activate: route(`POST ${base}/{environment}/{segment}`, activation),
    deactivate: route(`DELETE ${base}/{environment}/{segment}`, TrueBody, { goneOnRetry: true }),
  } as unknown as KindSegmentRoutes<A>;
}

/** A part of one kind of segment: its routes, and its name in messages (`large segment`). */
export abstract class KindSegmentsApi<A extends z.ZodType> extends AdminApiPart {
  protected abstract readonly routes: KindSegmentRoutes<A>;
  protected abstract readonly label: string;

  /**
   * Every segment of the kind in a workspace, page after page.
   * @param options.pageSize Segments per request, 1 to 50 (default 50).
   */
  list(wsId: string, options: { pageSize?: number } = {}): AsyncIterable<KindSegment> {
    const r = this.routes.list;
    const limit = checkPageSize(
      options.pageSize,
      KIND_SEGMENTS_PAGE_MAX,
      KIND_SEGMENTS_PAGE_MAX,
      "GET",
      r.template,
    );
    return walkArrayPages((query) => this.request(r, { wsId }, { query }), limit);
  }

  /** The segment with exactly this name, or `undefined` (a walk of the list). */
  async find(wsId: string, name: string): Promise<KindSegment | undefined> {
    for await (const s of this.list(wsId)) if (s.name === name) return s;
    return undefined;
  }

  /**
   * The segment of this name (a walk of the list: the API has no GET of one).
   * @throws NotFoundError when the workspace has none of that name.
   */
  async get(wsId: string, name: string): Promise<KindSegment> {
    const found = await this.find(wsId, name);
    if (found === undefined) throw segmentNotFound(this.routes.list.template, this.label, name);
    return found;
  }

  /**
   * Creates a segment of the kind of a traffic type (by name or id).
   * @throws ConflictError when the workspace has one of that name.
   */
  async create(wsId: string, trafficType: string, body: SegmentCreateBody): Promise<KindSegment> {
    return this.send(this.routes.create, { wsId, trafficType }, SegmentCreateBody, body);
  }

  /** Deletes the segment and what it holds in every environment; returns `true`. */
  async delete(wsId: string, name: string): Promise<true> {
    return this.request(this.routes.delete, { wsId, segment: name });
  }

  /** What of the kind is active in an environment (id) of a workspace, page after page. */
  protected activeIn(
    wsId: string,
    envId: string,
    options: { pageSize?: number } = {},
  ): AsyncIterable<z.output<A>> {
    const r = this.routes.active;
    const limit = checkPageSize(
      options.pageSize,
      KIND_SEGMENTS_PAGE_MAX,
      KIND_SEGMENTS_PAGE_MAX,
      "GET",
      r.template,
    );
    return walkArrayPages((query) => this.request(r, { wsId, environment: envId }, { query }), limit);
  }

  /** The segment's entry among {@link activeIn}, or `undefined` when it is not active there. */
  protected async activeOne(wsId: string, envId: string, name: string): Promise<z.output<A> | undefined> {
    for await (const a of this.activeIn(wsId, envId)) if ((a as { name: string }).name === name) return a;
    return undefined;
  }

  /**
   * Activates the segment in an environment (id): no members, no rules.
   * @throws ConflictError when it is active there already.
   */
  async activate(envId: string, name: string): Promise<z.output<A>> {
    return this.request(this.routes.activate, { environment: envId, segment: name });
  }

  /** Removes the segment, with what it holds there, from the environment; returns `true`. */
  async deactivate(envId: string, name: string): Promise<true> {
    return this.request(this.routes.deactivate, { environment: envId, segment: name });
  }
}
