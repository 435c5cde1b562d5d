/**
 * Async iterators that walk every page of a list, and the page-size check they share.
 *
 * Two pagination styles exist in the admin API (spec §4): offset envelopes
 * `{objects, offset, limit, totalCount}` (workspaces, flags, definitions, groups) and marker
 * envelopes `{data, nextMarker, previousMarker, limit, count}` (users; the next page is requested
 * with `after=<nextMarker>`).
 * @module
 */
import { ValidationError } from "./errors";

/**
 * Checks a caller's page size against the API's maximum, naming `pageSize` when it is wrong.
 * @returns the page size to send (`fallback` when none was given)
 */
export function checkPageSize(
  pageSize: number | undefined,
  max: number,
  fallback: number,
  method: string,
  path: string,
): number {
  if (pageSize === undefined) return fallback;
  if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > max) {
    const message = `pageSize must be a whole number from 1 to ${max}, got ${pageSize}`;
    throw new ValidationError({
      status: 0,
      method,
      url: path,
      message: "invalid option",
      fieldErrors: [{ field: "pageSize", message }],
    });
  }
  return pageSize;
}

/** One page of an offset list. */
export interface OffsetPage<T> {
  objects: T[];
  totalCount: number;
}

/**
 * Walks an offset list: requests `offset=0, limit`, then advances by the number of objects
 * received, until a page is empty or `totalCount` is reached (an offset at or past `totalCount`
 * yields an empty page, spec §4).
 */
export async function* walkOffsetPages<T>(
  fetch: (offset: number, limit: number) => Promise<OffsetPage<T>>,
  limit: number,
): AsyncGenerator<T, void, undefined> {
  let offset = 0;
  for (;;) {
    const page = await fetch(offset, limit);
    yield* page.objects;
    offset += page.objects.length;
    if (page.objects.length === 0 || offset >= page.totalCount) return;
  }
}

/** One page of a marker list. */
export interface MarkerPage<T> {
  data: T[];
  nextMarker: string | null;
}

/**
 * Walks a marker list: follows `nextMarker` until it is null. (The spec also says iteration
 * "continues until previousMarker is null", which cannot end a forward walk; the official Python
 * wrapper stops on a null `nextMarker`, ref admin §5.) A marker seen twice ends the walk instead of
 * looping forever on a server that repeats itself.
 */
export async function* walkMarkerPages<T>(
  fetch: (after: string | undefined) => Promise<MarkerPage<T>>,
): AsyncGenerator<T, void, undefined> {
  let after: string | undefined;
  const seen = new Set<string>();
  for (;;) {
    const page = await fetch(after);
    yield* page.data;
    if (page.nextMarker === null || page.nextMarker === "" || seen.has(page.nextMarker)) return;
    seen.add(page.nextMarker);
    after = page.nextMarker;
  }
}
