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
 * The routes and the part's methods are those both kinds share (`./kind-segments.ts`).
 * @module
 */
import { z } from "zod";
import { KindSegment, KindSegmentsApi, kindSegmentRoutes } from "./kind-segments";
import { IdRef } from "./schemas";

export { KIND_SEGMENTS_PAGE_MAX, KindSegment, segmentNotFound, walkArrayPages } from "./kind-segments";

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

/** The large segment routes. */
export const largeSegmentEndpoints = kindSegmentRoutes("large-segments", LargeSegmentActivation);

/**
 * Large segments of a workspace and their activation per environment: `admin.largeSegments`.
 * @example
 * const all = await admin.largeSegments.create(ws.id, "user", { name: "all_customers", description: "CRM export" });
 * await admin.largeSegments.activate(prod.id, "all_customers");
 */
export class LargeSegmentsApi extends KindSegmentsApi<typeof LargeSegmentActivation> {
  protected readonly routes = largeSegmentEndpoints;
  protected readonly label = "large segment";

  /**
   * Every large segment active in an environment (id) of a workspace, page after page.
   * @param options.pageSize Segments per request, 1 to 50 (default 50).
   */
  active(
    wsId: string,
    envId: string,
    options: { pageSize?: number } = {},
  ): AsyncIterable<LargeSegmentActivation> {
    return this.activeIn(wsId, envId, options);
  }

  /** The large segment's activation in the environment, or `undefined` when it is not active there. */
  async activation(wsId: string, envId: string, name: string): Promise<LargeSegmentActivation | undefined> {
    return this.activeOne(wsId, envId, name);
  }
}
