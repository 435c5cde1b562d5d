/**
 * The one client shape of the platform's v2 entities (services, environments, environment groups,
 * infrastructures, secrets, input sets, triggers), driven by a per-entity table ({@link EntityKind},
 * one in each of `service.ts`, `delivery-environment.ts`, `environment-group.ts`,
 * `infrastructure.ts`, `secret.ts`, `input-set.ts`, `trigger.ts`), as the emulator serves them
 * (`emulator/platform/entity-routes.ts`): create (`POST`), update (`PUT`, with or without the
 * identifier in the path; `If-Match` where the API offers it), get (`GET /{id}`), delete
 * (`DELETE /{id}`) and list (an NG page, walked by an async iterator). Paths and parameters are the
 * public Go SDK's (`harness/harness-go-sdk` `harness/nextgen/api_*.go`), cited per entity.
 *
 * A write's body names its entity and scope (JSON fields, or the YAML's), so `create` and `update`
 * take the body alone; reads and deletes take the identifier and the scope.
 * @module
 */
import { stringify } from "yaml";
import type { z } from "zod";
import { checkPageSize } from "../core/paginate";
import type { CallInit, HttpCore, Query } from "../core/request";
import { type Route, route } from "../core/route";
import { invalidInput, parseInput } from "../core/validate-input";
import { loadYaml } from "../core/yaml";
import { BooleanData, envelope, PLATFORM_PAGE_MAX, pageOf } from "./schemas";
import { type IfMatchOption, type Versioned, versionedCall } from "./versioned";

/** What a client's namespaces share: the HTTP core and the account. */
export interface EntityCtx {
  core: HttpCore;
  account: string;
}

/** The five routes of an entity. */
export interface EntityRoutes {
  create: Route;
  get: Route;
  update: Route;
  delete: Route;
  list: Route;
}

/** What a write sends: the entity's identifier, the query (the account is added) and the body. */
export interface EntityWrite {
  identifier: string;
  query: Query;
  body: unknown;
}

/** The table row of one entity: what differs between the six. */
export interface EntityKind<Scope, Body> {
  /** The entity in messages: `service`, `input set`. */
  label: string;
  routes: EntityRoutes;
  /** The list's paging parameters: `page`/`size` or `pageIndex`/`pageSize`. */
  paging: readonly [index: string, size: string];
  /** The API takes `If-Match` on update and delete. */
  ifMatch: boolean;
  /** The query of a get, delete or list (the account is added). */
  scopeQuery(scope: Scope): Query;
  /** The checked write of a body (throws a ValidationError naming each field, before any request). */
  writeOf(r: Route, body: Body): EntityWrite;
}

const BooleanEnvelope = envelope(BooleanData);

/** One call of a table's route (its params are the row's, unknown to the type system); returns the envelope's data. */
async function send<T>(ctx: EntityCtx, r: Route, params: Record<string, string>, init: CallInit): Promise<T> {
  const call = ctx.core.request.bind(ctx.core) as (
    r: Route,
    p: Record<string, string>,
    i: CallInit,
  ) => Promise<{ data: unknown }>;
  return (await call(r, params, init)).data as T;
}
const gone = { goneOnRetry: { status: "SUCCESS", data: true, metaData: null, correlationId: "" } } as const;

/**
 * The routes of an entity at `base`: `data` is the `data` schema of a create, get and update,
 * `item` of one list item; `putById` puts `PUT {base}/{identifier}` (else `PUT {base}`), `yaml`
 * sends YAML bodies, and `request` is the schema of a JSON write's body, for the secret fields it
 * declares (`sdk/core/secret-fields.ts`).
 */
export function entityRoutes(
  base: `/${string}`,
  data: z.ZodType,
  item: z.ZodType,
  opts: { putById: boolean; yaml?: boolean; request?: z.ZodType },
): EntityRoutes {
  const one = envelope(data);
  const body = {
    ...(opts.yaml ? ({ body: "yaml" } as const) : {}),
    ...(opts.request ? { request: opts.request } : {}),
  };
  return {
    create: route(`POST ${base}`, one, body),
    get: route(`GET ${base}/{identifier}`, one),
    update: route(opts.putById ? `PUT ${base}/{identifier}` : `PUT ${base}`, one, body),
    delete: route(`DELETE ${base}/{identifier}`, BooleanEnvelope, gone),
    list: route(`GET ${base}`, envelope(pageOf(item))),
  };
}

/** A JSON body checked by `schema`: the write of the NG CD entities and secrets. */
export function jsonWrite<S extends z.ZodType>(
  r: Route,
  schema: S,
  body: unknown,
  root: string,
  build: (parsed: z.output<S>) => EntityWrite,
): EntityWrite {
  return build(parseInput(schema, body, r, "request body", root));
}

/** A YAML entity: the text, or an object rendered with the `yaml` package. */
export type EntityYaml = string | Record<string, unknown>;

/**
 * A YAML body (text, or an object rendered to YAML) checked by `schema`: the write of input sets
 * and triggers, whose YAML names the entity, its scope and its pipeline.
 */
export function yamlWrite<S extends z.ZodType>(
  r: Route,
  schema: S,
  yaml: EntityYaml,
  build: (parsed: z.output<S>) => Omit<EntityWrite, "body">,
): EntityWrite {
  const text = typeof yaml === "string" ? yaml : stringify(yaml);
  // The one bounded reading (`sdk/core/yaml.ts`): an alias bomb or a text over 1 MiB is refused here.
  const read = loadYaml(text);
  if (!read.ok) throw invalidInput(r, "YAML", [{ path: [], message: read.error.message }], "yaml");
  const value = read.value;
  return { ...build(parseInput(schema, value, r, "YAML", "yaml")), body: text };
}

/**
 * The client of one v2 entity: create, get, update, delete and a paged list, each one request (a
 * list one per page). Data comes back with the entity's `version` (the answer's ETag, ref §1)
 * where the API versions it.
 */
export class EntityApi<Scope, Body, Data extends object, Item = Data> {
  readonly #ctx: EntityCtx;
  readonly #kind: EntityKind<Scope, Body>;
  /** @internal */
  constructor(ctx: EntityCtx, kind: EntityKind<Scope, Body>) {
    this.#ctx = ctx;
    this.#kind = kind;
  }

  /**
   * Creates the entity the body describes, in the scope the body names.
   * @throws ConflictError when the identifier is taken in that scope (DUPLICATE_FIELD).
   */
  async create(body: Body): Promise<Versioned<Data>> {
    return this.#write(this.#kind.routes.create, body, undefined);
  }

  /**
   * Replaces the entity the body names (a full replace). With `ifMatch` (the `version` of a get,
   * where the API offers it) the service refuses the replace when the entity changed since.
   */
  async update(body: Body, opts: IfMatchOption = {}): Promise<Versioned<Data>> {
    return this.#write(this.#kind.routes.update, body, this.#ifMatch(this.#kind.routes.update, opts));
  }

  /**
   * The entity by identifier in a scope.
   * @throws NotFoundError when it does not exist.
   */
  async get(identifier: string, scope: Scope): Promise<Versioned<Data>> {
    const query = this.#query(scope);
    return versionedCall(undefined, (v) =>
      send<Data>(this.#ctx, this.#kind.routes.get, { identifier }, { query, ...v }),
    );
  }

  /**
   * Deletes the entity; returns `true`. With `ifMatch` (where the API offers it) the service
   * refuses when the entity changed since that version.
   * @throws NotFoundError when it does not exist.
   */
  async delete(identifier: string, scope: Scope, opts: IfMatchOption = {}): Promise<true> {
    const r = this.#kind.routes.delete;
    const ifMatch = this.#ifMatch(r, opts);
    await versionedCall(ifMatch, (v) =>
      send<object>(this.#ctx, r, { identifier }, { query: this.#query(scope), ...v }),
    );
    return true;
  }

  /** Every entity of a scope, page after page (NG page shape, ref §8). */
  list(scope: Scope & { pageSize?: number }): AsyncIterable<Item> {
    const r = this.#kind.routes.list;
    const pageSize = checkPageSize(scope.pageSize, PLATFORM_PAGE_MAX, PLATFORM_PAGE_MAX, "GET", r.template);
    const [index, size] = this.#kind.paging;
    const ctx = this.#ctx;
    const query = this.#query(scope);
    return {
      async *[Symbol.asyncIterator]() {
        for (let page = 0; ; page++) {
          const data = await send<{ content: Item[]; totalPages: number }>(
            ctx,
            r,
            {},
            {
              query: { ...query, [index]: page, [size]: pageSize },
            },
          );
          yield* data.content;
          if (data.content.length === 0 || page + 1 >= data.totalPages) return;
        }
      },
    };
  }

  #query(scope: Scope): Query {
    return { accountIdentifier: this.#ctx.account, ...this.#kind.scopeQuery(scope) };
  }

  #ifMatch(r: Route, opts: IfMatchOption): number | undefined {
    if (opts.ifMatch !== undefined && !this.#kind.ifMatch) {
      throw invalidInput(r, "options", [
        { path: ["ifMatch"], message: `the ${this.#kind.label} API takes no If-Match` },
      ]);
    }
    return opts.ifMatch;
  }

  async #write(r: Route, body: Body, ifMatch: number | undefined): Promise<Versioned<Data>> {
    const w = this.#kind.writeOf(r, body);
    const query = { accountIdentifier: this.#ctx.account, ...w.query };
    const params: Record<string, string> = r.params.length > 0 ? { identifier: w.identifier } : {};
    return versionedCall(ifMatch, (v) => send<Data>(this.#ctx, r, params, { query, body: w.body, ...v }));
  }
}

/** Organization and project of an entity; both absent means account level. */
export interface EntityScope {
  org?: string | undefined;
  project?: string | undefined;
}

/** The query of an {@link EntityScope}. */
export const scopeQuery = (scope: EntityScope): Query => ({
  orgIdentifier: scope.org,
  projectIdentifier: scope.project,
});

/**
 * The table row of an NG CD entity (services, environments, infrastructures): a JSON request
 * naming its identifier and scope in the body (SDK `ServiceRequest`, `EnvironmentRequest`,
 * `InfrastructureRequest`), `PUT {base}` without the identifier in the path, `page`/`size` paging,
 * `If-Match` on update and delete (Go SDK `api_services.go`, `api_environments.go`).
 */
export function ngCdKind<S extends z.ZodType<{ identifier: string }>>(opts: {
  label: string;
  base: `/${string}`;
  request: S;
  data: z.ZodType;
  root: string;
}): EntityKind<EntityScope, z.input<S>> {
  return {
    label: opts.label,
    routes: entityRoutes(opts.base, opts.data, opts.data, { putById: false }),
    paging: ["page", "size"],
    ifMatch: true,
    scopeQuery,
    writeOf: (r, body) =>
      jsonWrite(r, opts.request, body, opts.root, (parsed) => ({
        identifier: parsed.identifier,
        query: {},
        body: parsed,
      })),
  };
}

/** Organization, project and pipeline of an input set or trigger (all required). */
export interface PipelineChildScope {
  org: string;
  project: string;
  /** The pipeline's identifier. */
  pipeline: string;
}

/** What the YAML of a pipeline's child names: the entity, its scope and its pipeline. */
interface ChildIdentity {
  identifier: string;
  orgIdentifier?: string | undefined;
  projectIdentifier?: string | undefined;
  pipeline: string;
}

/**
 * The table row of a pipeline's child (input sets, triggers): a YAML body whose entity names its
 * organization, project and pipeline, sent with them as required query parameters (`parentParam`
 * names the pipeline's), `PUT {base}/{identifier}`, `If-Match` on update and delete (Go SDK
 * `api_input_sets.go`, `api_triggers.go`).
 */
export function pipelineChildKind<S extends z.ZodType>(opts: {
  /** The entity in messages, its base path, and the query parameter naming its pipeline. */
  route: readonly [label: string, base: `/${string}`, parentParam: string];
  /** The schemas of its YAML, of an answer's `data` and of a list item. */
  schemas: readonly [yaml: S, data: z.ZodType, item: z.ZodType];
  paging: readonly [index: string, size: string];
  identity: (doc: z.output<S>) => ChildIdentity;
}): EntityKind<PipelineChildScope, EntityYaml> {
  const [label, base, parentParam] = opts.route;
  const [yaml, data, item] = opts.schemas;
  const query = (org: string | undefined, project: string | undefined, pipeline: string): Query => ({
    orgIdentifier: org,
    projectIdentifier: project,
    [parentParam]: pipeline,
  });
  return {
    label,
    routes: entityRoutes(base, data, item, { putById: true, yaml: true }),
    paging: opts.paging,
    ifMatch: true,
    scopeQuery: (scope) => query(scope.org, scope.project, scope.pipeline),
    writeOf: (r, body) =>
      yamlWrite(r, yaml, body, (doc) => {
        const id = opts.identity(doc);
        return {
          identifier: id.identifier,
          query: query(id.orgIdentifier, id.projectIdentifier, id.pipeline),
        };
      }),
  };
}
