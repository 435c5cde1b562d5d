/**
 * Segments at workspace level (ref admin §1.1 "segments"): a named set of keys of one traffic type,
 * whose members are kept per environment (`./segment-keys.ts`).
 *
 * The routes live here rather than in `./endpoints.ts`, with the part that calls them. One segment
 * is read with `GET /segments/ws/{ws}/{name}` (the read of the davidji99 and Harness Terraform
 * providers, ref §9.1; the emulator serves it too); {@link SegmentsApi.find} walks the list.
 * @module
 */
import { z } from "zod";
import { route } from "../core/route";
import { AdminApiPart, adminPart } from "./part";
import { IdRef, offsetPage, SegmentCreateBody, TrueBody } from "./schemas";

/** A segment as the service returns it: `{name, description, trafficType{id,name}, creationTime, tags}` (no id, ref §1.2). */
export const Segment = z.looseObject({
  /** The segment's name. */
  name: z.string(),
  /** The segment's description (empty when none). */
  description: z
    .string()
    .nullish()
    .transform((d) => d ?? ""),
  /** Its traffic type, by id and name. */
  trafficType: IdRef,
  /** Creation time, epoch milliseconds. */
  creationTime: z.number().int(),
  /** `null` until the segment is tagged (as for flags, ref §1.1). */
  tags: z
    .array(z.looseObject({ name: z.string() }))
    .nullish()
    .transform((t) => t ?? []),
});
export type Segment = z.infer<typeof Segment>;

/** Segments per request of the list (the most a page holds). */
export const SEGMENTS_PAGE_MAX = 50;

/** The segment routes (ref §1.1). */
export const segmentEndpoints = {
  list: route("GET /internal/api/v2/segments/ws/{wsId}", offsetPage(Segment)),
  /** One segment by name; 404 when the workspace has none of that name (ref §9.1). */
  get: route("GET /internal/api/v2/segments/ws/{wsId}/{segment}", Segment),
  create: route("POST /internal/api/v2/segments/ws/{wsId}/trafficTypes/{trafficType}", Segment),
  /** Removes the segment from every environment too (ref §1.1). */
  delete: route("DELETE /internal/api/v2/segments/ws/{wsId}/{segment}", TrueBody, { goneOnRetry: true }),
  /** Replaces the tags with these names, as for flags (ref §1.1 "associate tags"); the answer is not documented. */
  tag: route("POST /internal/api/v2/tags/ws/{wsId}/object/{segment}/objecttype/Segment", z.unknown(), {
    emptyBody: null,
  }),
} as const;

const TagNames = z.array(z.string().min(1, "a tag must not be empty"));

/** Segments of a workspace: `admin.segments`. */
export class SegmentsApi extends AdminApiPart {
  /**
   * Every segment of a workspace, page after page.
   * @param options.pageSize Segments per request, 1 to 50 (default 50).
   * @example
   * for await (const s of admin.segments.list(ws.id)) console.log(s.name, s.trafficType.name);
   */
  list(wsId: string, options: { pageSize?: number } = {}): AsyncIterable<Segment> {
    return this.offsetPages(segmentEndpoints.list, { wsId }, options.pageSize, SEGMENTS_PAGE_MAX);
  }

  /**
   * The segment of this name.
   * @throws NotFoundError when the workspace has none of that name.
   * @example
   * const beta = await admin.segments.get(ws.id, "beta_testers");
   */
  async get(wsId: string, name: string): Promise<Segment> {
    return this.request(segmentEndpoints.get, { wsId, segment: name });
  }

  /** The segment with exactly this name, or `undefined` (a walk of the list). */
  async find(wsId: string, name: string): Promise<Segment | undefined> {
    for await (const s of this.list(wsId)) if (s.name === name) return s;
    return undefined;
  }

  /**
   * Creates a segment of a traffic type (by name or id); it has no members anywhere until it is
   * activated in an environment (`admin.segmentKeys.activate`).
   * @throws ConflictError when the workspace has a segment of that name.
   * @example
   * const beta = await admin.segments.create(ws.id, "user", { name: "beta_testers", description: "Opted in" });
   */
  async create(wsId: string, trafficType: string, body: SegmentCreateBody): Promise<Segment> {
    return this.send(segmentEndpoints.create, { wsId, trafficType }, SegmentCreateBody, body);
  }

  /** Replaces the segment's tags with these names (`[]` removes them all). */
  async setTags(wsId: string, name: string, tags: readonly string[]): Promise<void> {
    await this.send(segmentEndpoints.tag, { wsId, segment: name }, TagNames, tags, "tags");
  }

  /**
   * Deletes the segment and its members in every environment.
   * @returns `true`, the service's answer.
   */
  async delete(wsId: string, name: string): Promise<true> {
    return this.request(segmentEndpoints.delete, { wsId, segment: name });
  }
}

/** Segments of a workspace. */
export const part = adminPart("segments", (core) => new SegmentsApi(core));
