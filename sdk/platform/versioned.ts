/**
 * Entity versions on the platform API (ref platform-api-behaviour §1, §4, §6.2): the service sends
 * an entity's version as `ETag: W/<version>` and takes it back as a numeric `If-Match` on update
 * (and delete), refusing a stale one. The clients' versioned calls send `If-Match` when given a
 * version and return the answer's version beside its data.
 * @module
 */
import type { IncomingHttpHeaders } from "node:http";
import type { CallInit } from "../core/request";

/** Per-call option of a versioned write. */
export interface IfMatchOption {
  /**
   * The version the caller last read (`version` of a get): the service refuses the write when the
   * entity has changed since (pipelines and projects: 400 OPTIMISTIC_LOCKING_EXCEPTION, ref §2).
   */
  ifMatch?: number | undefined;
}

/** The version an `ETag` names: `W/<n>`, `W/"<n>"` or a bare number (ref §1 `EtagFilter`). */
export function etagVersion(headers: IncomingHttpHeaders): number | undefined {
  const raw = headers.etag;
  const m = /^\s*(?:W\/)?"?(\d+)"?\s*$/.exec(Array.isArray(raw) ? (raw[0] ?? "") : (raw ?? ""));
  return m ? Number(m[1]) : undefined;
}

/** What a versioned answer adds to its data: the entity's version, when the service sent one. */
export type Versioned<T> = T & { version?: number };

/**
 * Runs `call` with the `If-Match` of `ifMatch` (when given) and returns its data with the
 * answer's `ETag` version as `version` (a version in the body, as an environment's, stays when
 * the answer has no ETag).
 */
export async function versionedCall<T extends object>(
  ifMatch: number | undefined,
  call: (init: Pick<CallInit, "headers" | "onHeaders">) => Promise<T>,
): Promise<Versioned<T>> {
  let version: number | undefined;
  const data = await call({
    headers: ifMatch === undefined ? undefined : { "if-match": String(ifMatch) },
    onHeaders: (h) => {
      version = etagVersion(h);
    },
  });
  return version === undefined ? data : { ...data, version };
}
