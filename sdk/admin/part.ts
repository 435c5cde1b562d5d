/**
 * A part of the admin client: the namespace it is reached by (`admin.flags`) and how it is made
 * from the client's HTTP core, and the base every part's class extends (the HTTP core, calls with a
 * checked body, offset and marker lists). Each part file of `sdk/admin/` exports its `part`
 * (`export const part = adminPart("flags", (core) => new FlagsApi(core))`) with its member's TSDoc;
 * `npm run generate` lists those files in `./parts.ts`, and the client gets one typed, documented
 * member per part from that list ({@link adminPartsBase}, the platform client's mechanism:
 * `../core/parts.ts`), so adding a part is its file alone. In a file of its own so that the parts
 * and the client that extends their list (`./client.ts`) import it without a cycle.
 * @module
 */
import type { z } from "zod";
import {
  checkPageSize,
  type MarkerPage,
  type OffsetPage,
  walkMarkerPages,
  walkOffsetPages,
} from "../core/paginate";
import { type Part, partsBase } from "../core/parts";
import type { CallInit, HttpCore, Query } from "../core/request";
import type { Route, RouteParams } from "../core/route";
import { parseInput } from "../core/validate-input";
import type { ChangeNote } from "./schemas";

/** One part: its namespace name and its factory from the client's HTTP core. */
export type AdminPart<Name extends string = string, Api = unknown> = Part<HttpCore, Name, Api>;

/** A part named `name`, made by `make` (its type is the namespace's type on the client). */
export const adminPart = <const Name extends string, Api>(
  name: Name,
  make: (core: HttpCore) => Api,
): AdminPart<Name, Api> => ({ name, make });

/** A base class whose instances hold one member per part, each made from the client's HTTP core. */
export const adminPartsBase = <const T extends readonly AdminPart[]>(parts: T) =>
  partsBase<HttpCore, T>(parts);

/** What every part of the client shares: the HTTP core, calls with a checked body, offset lists. */
export abstract class AdminApiPart {
  readonly #core: HttpCore;
  /** @internal */
  constructor(core: HttpCore) {
    this.#core = core;
  }

  /** One call through the HTTP core. */
  protected request<R extends string, S extends z.ZodType>(
    r: Route<R, S>,
    params: RouteParams<R>,
    init?: CallInit,
  ): Promise<z.output<S>> {
    return this.#core.request(r, params, init);
  }

  /** A file streamed to an address an answer gave (`HttpCore.putStream`: no key sent there). */
  protected putStream(...args: Parameters<HttpCore["putStream"]>): Promise<number> {
    return this.#core.putStream(...args);
  }

  /** One call whose body is first checked by `schema` (a ValidationError naming `what` otherwise). */
  protected send<R extends string, S extends z.ZodType>(
    r: Route<R, S>,
    params: RouteParams<R>,
    schema: z.ZodType,
    body: unknown,
    what = "request body",
  ): Promise<z.output<S>> {
    return this.request(r, params, { body: parseInput(schema, body, r, what) });
  }

  /** Every object of an offset-paged list, `pageSize` per request (default and most: `max`). */
  protected offsetPages<R extends string, T>(
    r: Route<R, z.ZodType<OffsetPage<T>>>,
    params: RouteParams<R>,
    pageSize: number | undefined,
    max: number,
    query: Query = {},
  ): AsyncIterable<T> {
    const limit = checkPageSize(pageSize, max, max, "GET", r.template);
    return walkOffsetPages(
      (offset, l) => this.request(r, params, { query: { offset, limit: l, ...query } }),
      limit,
    );
  }

  /**
   * Every object of a list that pages by `nextMarker`, `pageSize` per request (default and most:
   * `max`); `query` goes before `limit` and `after`.
   */
  protected markerPages<R extends string, T>(
    r: Route<R, z.ZodType<MarkerPage<T>>>,
    params: RouteParams<R>,
    pageSize: number | undefined,
    max: number,
    query: Query = {},
  ): AsyncIterable<T> {
    const limit = checkPageSize(pageSize, max, max, "GET", r.template);
    return walkMarkerPages((after) => this.request(r, params, { query: { ...query, limit, after } }));
  }
}

/** `title` and `comment` of a change, as query parameters (ref admin §2). */
export function noted(note: ChangeNote = {}): {
  query: { title: string | undefined; comment: string | undefined };
} {
  return { query: { title: note.title, comment: note.comment } };
}

/** The one with this id or name in a list, or `undefined`. */
export const byIdOrName = <T extends { id: string; name: string }>(list: readonly T[], nameOrId: string) =>
  list.find((t) => t.id === nameOrId || t.name === nameOrId);
