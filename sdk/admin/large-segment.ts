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
 * The members' upload is a change request (`operationType: "UPLOAD"`, `./change-requests.ts`),
 * whose answer carries the address of the file, `transactionMetadata: {url, headers: {Host: [..]}}`,
 * where the CSV is PUT (`large_segment_definition_microclient.py` `submit_upload`, `upload_file`);
 * the members are replaced when the request is approved (at once where the environment needs no
 * approval): {@link LargeSegmentsApi.uploadMembers}.
 *
 * The routes and the part's methods are those both kinds share (`./segment-kinds.ts`).
 * @module
 */
import { createReadStream } from "node:fs";
import { createInterface } from "node:readline";
import { z } from "zod";
import { route } from "../core/route";
import { invalidInput, parseInput } from "../core/validate-input";
import { adminPart } from "./part";
import { ChangeRequest, IdRef } from "./schemas";
import { KindSegment, KindSegmentsApi, kindSegmentRoutes } from "./segment-kinds";

export { KIND_SEGMENTS_PAGE_MAX, KindSegment, segmentNotFound, walkArrayPages } from "./segment-kinds";

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
 * At most this many members in one upload: the bound of a segment's members (ref admin §1.1,
 * "≤100,000 members") that issue 27 sets for a large segment's upload, checked before any request.
 */
export const LARGE_SEGMENT_MEMBERS_MAX = 100_000;

/**
 * One member: a key of the segment's traffic type, 1 to 250 characters (the rule of segment keys,
 * `./segment-keys.ts`), and one CSV field a line, so no comma, quote or line break.
 */
export const LargeSegmentMember = z
  .string()
  .min(1, "a member must not be empty")
  .max(250, "a member must be at most 250 characters")
  .regex(/^[^,"\r\n]*$/, "a member must not contain a comma, a quote or a line break");

/** The title, comment and approvers of a members' upload (its change request's). */
export const LargeSegmentUploadNote = z.object({
  title: z.string().nullish(),
  comment: z.string().nullish(),
  approvers: z.array(z.string()).nullish(),
});
export type LargeSegmentUploadNote = z.input<typeof LargeSegmentUploadNote>;

/**
 * The answer to an UPLOAD change request: the change request plus where its file goes,
 * `transactionMetadata: {url, headers: {Host: [host]}}` (`large_segment_definition_microclient.py`
 * `upload_file` reads exactly these).
 */
export const LargeSegmentUploadRequest = ChangeRequest.extend({
  transactionMetadata: z.looseObject({
    url: z.string().min(1),
    headers: z.record(z.string(), z.array(z.string())).optional(),
  }),
});
export type LargeSegmentUploadRequest = z.infer<typeof LargeSegmentUploadRequest>;

/** The route of an UPLOAD change request (the change request route, answering the upload address). */
export const largeSegmentUploadRoute = route(
  "POST /internal/api/v2/changeRequests/ws/{wsId}/environments/{environment}",
  LargeSegmentUploadRequest,
);

/** What a members' upload did: its change request (REQUESTED where approvals are required) and how many members it sent. */
export interface LargeSegmentUpload {
  changeRequest: ChangeRequest;
  members: number;
}

/**
 * The members of a file: one key a line (the first field of a CSV line; blank lines and a first
 * line `key`, a header, skipped), distinct, in file order. Read line by line; a file with more
 * than {@link LARGE_SEGMENT_MEMBERS_MAX} distinct members is refused as soon as the next one is
 * read, before the rest is.
 * @throws ValidationError naming `field` (and the line) for a bad member or too many; an fs
 *   error when the file cannot be read.
 */
export async function readMembersFile(path: string, field = "file"): Promise<string[]> {
  const seen = new Set<string>();
  const lines = createInterface({ input: createReadStream(path), crlfDelay: Number.POSITIVE_INFINITY });
  let n = 0;
  try {
    for await (const line of lines) {
      n++;
      const key = (line.split(",")[0] ?? "").trim();
      if (key === "" || (n === 1 && key.toLowerCase() === "key")) continue;
      const checked = LargeSegmentMember.safeParse(key);
      if (!checked.success) throw membersError(field, `line ${n}: ${checked.error.issues[0]?.message}`);
      seen.add(key);
      if (seen.size > LARGE_SEGMENT_MEMBERS_MAX)
        throw tooMany(field, `more than ${LARGE_SEGMENT_MEMBERS_MAX}`);
    }
  } finally {
    lines.close();
  }
  return [...seen];
}

const membersError = (field: string, message: string) =>
  invalidInput(largeSegmentUploadRoute, "large segment members", [{ path: [], message }], field);
const tooMany = (field: string, given: string) =>
  membersError(
    field,
    `at most ${LARGE_SEGMENT_MEMBERS_MAX} members in a large segment upload, ${given} given`,
  );

/**
 * The members checked and made distinct (first occurrence kept).
 * @throws ValidationError naming `members` (too many) or `members[i]` (a bad one).
 */
export function checkMembers(members: Iterable<string>, field = "members"): string[] {
  const list = Array.isArray(members) ? (members as readonly string[]) : [...members];
  const distinct = [...new Set(list)];
  if (distinct.length > LARGE_SEGMENT_MEMBERS_MAX) throw tooMany(field, String(distinct.length));
  const problems: { path: number[]; message: string }[] = [];
  list.forEach((key, i) => {
    const checked = LargeSegmentMember.safeParse(key);
    if (!checked.success && problems.length < 20)
      problems.push({ path: [i], message: checked.error.issues[0]?.message ?? "invalid member" });
  });
  if (problems.length > 0)
    throw invalidInput(largeSegmentUploadRoute, "large segment members", problems, field);
  return distinct;
}

/** Keys per chunk of the streamed CSV: a chunk is one string of about 4,096 lines, never the whole file. */
const KEYS_PER_CHUNK = 4096;

/**
 * The CSV of the members, one key a line and no header (the Python client sends the user's file as
 * it is), as a length and a chunk stream made afresh per attempt. A first member spelled `key`
 * (any case) is moved after the second, so no reader takes it for a header.
 */
export function membersCsv(members: readonly string[]): {
  length: number;
  chunks: () => AsyncIterable<Uint8Array>;
  contentType: string;
} {
  let order = members;
  if (order.length > 1 && order[0]?.toLowerCase() === "key")
    order = [order[1]!, order[0]!, ...order.slice(2)];
  let length = 0;
  for (const k of order) length += Buffer.byteLength(k) + 1;
  return {
    length,
    contentType: "text/csv",
    async *chunks() {
      for (let i = 0; i < order.length; i += KEYS_PER_CHUNK) {
        yield Buffer.from(`${order.slice(i, i + KEYS_PER_CHUNK).join("\n")}\n`);
      }
    },
  };
}

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

  /**
   * Replaces the large segment's members in an environment (id) through the flow of the real API
   * (`large_segment_definition_microclient.py` `submit_upload` then `upload_file`): a change
   * request `{largeSegment: {name}, operationType: "UPLOAD", title, comment, approvers}`, then a
   * PUT of the members as CSV (streamed, one key a line) to the answer's
   * `transactionMetadata.url` with its `Host`, without the admin key. The members are applied
   * when the change request is approved (REQUESTED where the environment requires approvals,
   * PUBLISHED at once elsewhere). The members are checked (at most
   * {@link LARGE_SEGMENT_MEMBERS_MAX} distinct, each a {@link LargeSegmentMember}) before any
   * request. Give a file's members with {@link readMembersFile}.
   * @throws ValidationError naming `members` or `members[i]` (nothing sent), or
   *   `transactionMetadata` when the answer has no upload address; ConflictError while another
   *   change request of the segment is open there; ApiError subclasses of either request.
   * @example
   * const { changeRequest } = await admin.largeSegments.uploadMembers(ws.id, prod.id, "all_customers",
   *   await readMembersFile("customers.csv"), { title: "Nightly CRM export", approvers: ["lead@example.com"] });
   */
  async uploadMembers(
    wsId: string,
    envId: string,
    name: string,
    members: Iterable<string>,
    note: LargeSegmentUploadNote = {},
    options: { signal?: AbortSignal } = {},
  ): Promise<LargeSegmentUpload> {
    const distinct = checkMembers(members);
    const n = parseInput(LargeSegmentUploadNote, note, largeSegmentUploadRoute, "upload note");
    const request = await this.request(
      largeSegmentUploadRoute,
      { wsId, environment: envId },
      {
        body: {
          largeSegment: { name },
          operationType: "UPLOAD",
          title: n.title ?? null,
          comment: n.comment ?? null,
          approvers: n.approvers ?? [],
        },
        signal: options.signal,
      },
    );
    const { transactionMetadata, ...changeRequest } = request;
    const host = transactionMetadata.headers?.Host?.[0] ?? transactionMetadata.headers?.host?.[0];
    await this.putStream(transactionMetadata.url, membersCsv(distinct), {
      headers: host ? { host } : {},
      signal: options.signal,
    });
    return { changeRequest: changeRequest as ChangeRequest, members: distinct.length };
  }

  /** The large segment's activation in the environment, or `undefined` when it is not active there. */
  async activation(wsId: string, envId: string, name: string): Promise<LargeSegmentActivation | undefined> {
    return this.activeOne(wsId, envId, name);
  }
}

/** Large segments of a workspace and their activation per environment. */
export const part = adminPart("largeSegments", (core) => new LargeSegmentsApi(core));
