/**
 * A segment's presence and members in one environment (ref admin §1.1 "segments", §1.2): the
 * segment is activated in the environment, then keys are added and removed there, at most
 * {@link KEYS_PER_REQUEST} per request and {@link MAX_SEGMENT_MEMBERS} in all. Every key change
 * carries the change's title and comment, which a workspace may require (ref §9.1, davidji99
 * issue #184).
 *
 * The routes live here rather than in `./endpoints.ts`, with the part that calls them.
 * @module
 */
import { z } from "zod";
import { checkPageSize, walkOffsetPages } from "../core/paginate";
import { route } from "../core/route";
import { parseInput } from "../core/validate-input";
import { AdminApiPart, adminPart } from "./part";
import { ChangeNote, IdRef, offsetPage, TrueBody } from "./schemas";

/** At most this many keys per upload or removal (ref §1.1). */
export const KEYS_PER_REQUEST = 10_000;
/** At most this many members per segment and environment (ref §1.1). */
export const MAX_SEGMENT_MEMBERS = 100_000;
/** Keys per request of the member list. */
export const KEYS_PAGE_MAX = 1_000;

/** A segment active in an environment: `{name, environment, trafficType, creationTime}` (no id, ref §1.2). */
export const SegmentActivation = z.looseObject({
  name: z.string(),
  environment: IdRef,
  trafficType: IdRef,
  creationTime: z.number().int(),
});
export type SegmentActivation = z.infer<typeof SegmentActivation>;

/**
 * One page of members: `{keys: [{key}], totalCount}` (ref §1.2; the service also sends `count`,
 * which the Python client reads).
 */
export const SegmentKeysPage = z.looseObject({
  keys: z.array(z.looseObject({ key: z.string() })),
  totalCount: z.number().int(),
});

/** The answer of an upload or removal; not documented (the emulator counts what came and went). */
export const SegmentKeysChange = z.looseObject({
  added: z.number().int().optional(),
  removed: z.number().int().optional(),
  totalCount: z.number().int().optional(),
});
export type SegmentKeysChange = z.infer<typeof SegmentKeysChange>;

/** A batch of keys with the change's note, the body of `uploadKeys` and `removeKeys`. */
export const SegmentKeysBody = z.object({
  keys: z
    .array(z.string().min(1, "a key must not be empty").max(250, "a key must be at most 250 characters"))
    .max(KEYS_PER_REQUEST, `at most ${KEYS_PER_REQUEST} keys per request`),
  ...ChangeNote.shape,
});

/** Message for the empty-bodied 400 of a workspace that requires a title and comment (ref §9.1, davidji99 #184). */
export const KEYS_TITLE_AND_COMMENT_REQUIRED =
  "the workspace requires a title and comment for segment key changes; pass { title, comment }";

/** How an upload or removal is sent: the empty 400 explained; a retry of the same keys is harmless. */
const keysChange = { emptyBody: {}, emptyBadRequest: KEYS_TITLE_AND_COMMENT_REQUIRED } as const;

/** The routes of a segment in an environment (`{environment}` is an environment id). */
export const segmentKeysEndpoints = {
  /** Segments active in an environment (ref §1.2). */
  active: route(
    "GET /internal/api/v2/segments/ws/{wsId}/environments/{environment}",
    offsetPage(SegmentActivation),
  ),
  activate: route("POST /internal/api/v2/segments/{environment}/{segment}", SegmentActivation),
  /** Removes the segment and its members from the environment. */
  deactivate: route("DELETE /internal/api/v2/segments/{environment}/{segment}", TrueBody, {
    goneOnRetry: true,
  }),
  keys: route("GET /internal/api/v2/segments/{environment}/{segment}/keys", SegmentKeysPage),
  upload: route(
    "PUT /internal/api/v2/segments/{environment}/{segment}/uploadKeys",
    SegmentKeysChange,
    keysChange,
  ),
  remove: route(
    "PUT /internal/api/v2/segments/{environment}/{segment}/removeKeys",
    SegmentKeysChange,
    keysChange,
  ),
} as const;

/** How many keys a change added and removed, summed over its requests, and how many it sent. */
export interface KeysChangeSummary {
  /** Keys that became members (as the service counts them). */
  added: number;
  /** Keys that stopped being members. */
  removed: number;
  /** Requests sent: one per {@link KEYS_PER_REQUEST} keys. */
  requests: number;
}

/** The keys in slices of at most `size`. */
export function inBatches<T>(items: readonly T[], size = KEYS_PER_REQUEST): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** A segment's activation and members per environment: `admin.segmentKeys`. */
export class SegmentKeysApi extends AdminApiPart {
  /**
   * Every segment active in an environment of a workspace.
   * @example
   * for await (const a of admin.segmentKeys.active(ws.id, prod.id)) console.log(a.name);
   */
  active(wsId: string, envId: string, options: { pageSize?: number } = {}): AsyncIterable<SegmentActivation> {
    const params = { wsId, environment: envId };
    return this.offsetPages(segmentKeysEndpoints.active, params, options.pageSize, 50);
  }

  /** The segment's activation in the environment, or `undefined` when it is not active there. */
  async activation(wsId: string, envId: string, segment: string): Promise<SegmentActivation | undefined> {
    for await (const a of this.active(wsId, envId)) if (a.name === segment) return a;
    return undefined;
  }

  /**
   * Activates the segment in an environment, with no members.
   * @throws ConflictError when it is active there already.
   * @example
   * await admin.segmentKeys.activate(prod.id, "beta_testers");
   */
  async activate(envId: string, segment: string): Promise<SegmentActivation> {
    return this.request(segmentKeysEndpoints.activate, { environment: envId, segment });
  }

  /** Removes the segment, with its members, from the environment; returns `true`. */
  async deactivate(envId: string, segment: string): Promise<true> {
    return this.request(segmentKeysEndpoints.deactivate, { environment: envId, segment });
  }

  /**
   * Every member of the segment in the environment, page after page.
   * @param options.pageSize Keys per request, 1 to 1,000 (default 1,000).
   * @throws NotFoundError when the segment is not active in the environment.
   * @example
   * for await (const key of admin.segmentKeys.list(prod.id, "beta_testers")) console.log(key);
   */
  async *list(envId: string, segment: string, options: { pageSize?: number } = {}): AsyncGenerator<string> {
    const params = { environment: envId, segment };
    const r = segmentKeysEndpoints.keys;
    const size = checkPageSize(options.pageSize, KEYS_PAGE_MAX, KEYS_PAGE_MAX, "GET", r.template);
    yield* walkOffsetPages(async (offset, limit) => {
      const page = await this.request(r, params, { query: { offset, limit } });
      return { objects: page.keys.map((k) => k.key), totalCount: page.totalCount };
    }, size);
  }

  /**
   * Adds keys to the segment in the environment, {@link KEYS_PER_REQUEST} per request, each
   * request with the note's title and comment. Keys already members stay as they are.
   * @example
   * await admin.segmentKeys.add(prod.id, "beta_testers", ["ana", "ben"], { title: "Beta", comment: "wave 2" });
   */
  async add(envId: string, segment: string, keys: readonly string[], note: ChangeNote = {}) {
    return this.change(segmentKeysEndpoints.upload, envId, segment, keys, note);
  }

  /** Removes keys from the segment in the environment, {@link KEYS_PER_REQUEST} per request. */
  async remove(envId: string, segment: string, keys: readonly string[], note: ChangeNote = {}) {
    return this.change(segmentKeysEndpoints.remove, envId, segment, keys, note);
  }

  private async change(
    r: (typeof segmentKeysEndpoints)["upload" | "remove"],
    envId: string,
    segment: string,
    keys: readonly string[],
    note: ChangeNote,
  ): Promise<KeysChangeSummary> {
    const summary: KeysChangeSummary = { added: 0, removed: 0, requests: 0 };
    const params = { environment: envId, segment };
    // uploadKeys adds without `replace`; removeKeys takes no query.
    const query = r === segmentKeysEndpoints.upload ? { replace: "false" } : {};
    for (const batch of inBatches(keys)) {
      const body = parseInput(
        SegmentKeysBody,
        { keys: batch, title: note.title, comment: note.comment },
        r,
        "request body",
      );
      const answer = await this.request(r, params, { body, query });
      summary.added += answer.added ?? 0;
      summary.removed += answer.removed ?? 0;
      summary.requests += 1;
    }
    return summary;
  }
}

/** A segment's activation and members per environment. */
export const part = adminPart("segmentKeys", (core) => new SegmentKeysApi(core));
