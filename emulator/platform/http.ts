/**
 * What only the platform API's routes need on top of `../http.ts`: the success envelope, the NG
 * page, ETags and `If-Match`, media types and required query parameters (ref §1, §2, §8).
 * @module
 */
import type { Context } from "hono";
import type { AppEnv } from "../context";
import { intQuery, PLATFORM_INT, readJson } from "../http";
import { invalidRequest, mediaNotSupported, optimisticLocking, validationFailure } from "./errors";

/** The media type of a request, lower-cased and without parameters (`""` when absent). */
export function mediaType(c: Context): string {
  return (c.req.header("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
}

function isJsonMedia(media: string): boolean {
  return media === "application/json" || /^application\/[a-z0-9.+-]*\+json$/.test(media);
}

/**
 * Reads a JSON request body. Resources consume `application/json` only, so any other media type
 * (or none: Jersey then assumes `application/octet-stream`) is a 415 (ref §2).
 */
export async function readJsonBody(c: Context): Promise<unknown> {
  if (!isJsonMedia(mediaType(c))) throw mediaNotSupported();
  // Jackson's JsonProcessingException surfaces as a 400 (inferred message).
  return readJson(c, { invalid: (detail) => invalidRequest(`Unable to process JSON: ${detail}`) });
}

/**
 * A copy of the object under `key` of a `{key: {...}}` body, as bean validation sees the
 * wrapper: 400 `key: must not be null` when the body or the object is missing, `key: must be an
 * object` when it is not one (ref §3 `ProjectDTO`, `ConnectorInfoDTO`).
 */
export function wrappedObject(raw: unknown, key: string): Record<string, unknown> {
  const inner =
    raw !== null && typeof raw === "object" && !Array.isArray(raw)
      ? (raw as Record<string, unknown>)[key]
      : null;
  if (inner === null || inner === undefined)
    throw validationFailure([{ path: key, message: "must not be null" }]);
  if (typeof inner !== "object" || Array.isArray(inner)) {
    throw validationFailure([{ path: key, message: "must be an object" }]);
  }
  return { ...(inner as Record<string, unknown>) };
}

/**
 * The named query parameters, each required (`@NotNull @QueryParam`). A missing one is a
 * bean-validation failure naming the parameter.
 */
export function requireQuery<K extends string>(c: Context, names: readonly K[]): Record<K, string> {
  const out = {} as Record<K, string>;
  const missing: { path: string; message: string }[] = [];
  for (const name of names) {
    const value = c.req.query(name);
    if (value === undefined || value === "") missing.push({ path: name, message: "must not be null" });
    else out[name] = value;
  }
  if (missing.length > 0) throw validationFailure(missing);
  return out;
}

/** `ETag: W/<version>` (ref §1: `EtagFilter`). */
export function etag(version: number): string {
  return `W/${version}`;
}

/**
 * Optimistic locking: `If-Match` carries the entity version. The real service parses a bare number
 * (ref §4, §6.2); the emulator also accepts the `W/<n>` form of its own ETag so that a client
 * echoing the ETag is locked too. Anything else is ignored, as the service ignores non-numbers.
 */
export function checkIfMatch(c: Context, version: number): void {
  const expected = ifMatchVersion(c);
  if (expected !== null && expected !== version) throw optimisticLocking();
}

/**
 * The version an `If-Match` names (a bare number, or the `W/<n>` of the emulator's ETag), or null
 * when there is none the service reads (`isNumeric(ifMatch) ? parseLong(ifMatch) : null`,
 * harness-core `ServiceResource.update`).
 */
export function ifMatchVersion(c: Context): number | null {
  const m = /^\s*(?:W\/)?"?(\d+)"?\s*$/.exec(c.req.header("if-match") ?? "");
  return m ? Number(m[1]) : null;
}

/** `If-None-Match` equal to the current ETag gives 304 (ref §1: `EtagFilter`). */
export function notModified(c: Context, version: number): Response | null {
  const raw = c.req.header("if-none-match");
  if (raw?.split(",").some((t) => t.trim() === etag(version))) {
    return c.body(null, 304, { ETag: etag(version) });
  }
  return null;
}

/**
 * The success envelope `{status, data, metaData, correlationId}` (spec §2), with an ETag when
 * versioned; the correlation id is the request's transaction id.
 */
export function success(c: Context<AppEnv>, data: unknown, version?: number): Response {
  if (version !== undefined) c.header("ETag", etag(version));
  return c.json({ status: "SUCCESS", data, metaData: null, correlationId: c.get("transactionId") }, 200);
}

/** `pageIndex` and `pageSize` of an NG list (`@QueryParam @DefaultValue`, ref §8); a page holds at least one item. */
export function pageParams(c: Context, defaultSize: number): { pageIndex: number; pageSize: number } {
  return {
    pageIndex: intQuery(c, "pageIndex", 0, PLATFORM_INT),
    pageSize: Math.max(1, intQuery(c, "pageSize", defaultSize, PLATFORM_INT)),
  };
}

/**
 * The NG page shape (ref §8): `{totalPages, totalItems, pageItemCount, pageSize, content,
 * pageIndex, empty}`.
 */
export function ngPage<T>(items: T[], { pageIndex, pageSize }: { pageIndex: number; pageSize: number }) {
  const content = items.slice(pageIndex * pageSize, pageIndex * pageSize + pageSize);
  return {
    totalPages: pageSize === 0 ? 0 : Math.ceil(items.length / pageSize),
    totalItems: items.length,
    pageItemCount: content.length,
    pageSize,
    content,
    pageIndex,
    empty: content.length === 0,
  };
}
