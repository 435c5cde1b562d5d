/**
 * The base every part of the admin client extends (`admin.flags`, `admin.apiKeys`, ...): the HTTP
 * core, calls with a checked body, offset lists. In a file of its own so that a part in its own
 * file (`./api-keys.ts`) and the client that wires it (`./client.ts`) import it without a cycle.
 * @module
 */
import type { z } from "zod";
import { checkPageSize, type OffsetPage, walkOffsetPages } from "../core/paginate";
import type { CallInit, HttpCore, Query } from "../core/request";
import type { Route, RouteParams } from "../core/route";
import { parseInput } from "../core/validate-input";

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
}

/** The one with this id or name in a list, or `undefined`. */
export const byIdOrName = <T extends { id: string; name: string }>(list: readonly T[], nameOrId: string) =>
  list.find((t) => t.id === nameOrId || t.name === nameOrId);
