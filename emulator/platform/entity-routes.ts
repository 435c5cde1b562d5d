/**
 * The one CRUD shape of the platform's v2 entities, driven by a per-entity table
 * ({@link EntitySpec}, one per `service.ts`, `delivery-environment.ts`, `infrastructure.ts`,
 * `secret.ts`, `input-set.ts`, `trigger.ts`, `environment-group.ts`): create (`POST`), update
 * (`PUT`, with or without the identifier in the path), read (`GET /{id}`), list (`GET`, an NG page;
 * a `POST` at a sub-path where the entity's API lists so) and delete (`DELETE /{id}`), each
 * parsing the request, calling one domain method of the store's `entities` part and rendering the
 * success envelope (ref §1), with `ETag: W/<version>` and `If-Match` where the entity's API offers
 * them.
 * @module
 */
import { type Context, Hono } from "hono";
import type { z } from "zod";
import type { AppEnv } from "../context";
import type { EmulatorError } from "../errors";
import { intQuery, optionalQuery, PLATFORM_INT } from "../http";
import { authorize } from "../middleware/auth";
import type {
  EntityAt,
  EntityFields,
  EntityKind,
  EntityReference,
  EntityRefusals,
  Store,
  StoredEntity,
} from "../store";
import { duplicateField, invalidRequest, validationFailure, zodViolations } from "./errors";
import { ifMatchVersion, ngPage, notModified, readJsonBody, requireQuery, success } from "./http";
import { parsePipelineYaml } from "./pipeline-yaml";

/** What a write request says: where the entity lives and what it sets. */
export interface EntityRequest {
  at: EntityAt;
  fields: EntityFields;
}

/** One write route of an entity (secrets have two: JSON and multipart file). */
export interface EntityWriter {
  /** Sub-path of the write routes: `""`, or `/files`. */
  path: string;
  /** Parses the request; `pathId` is the identifier of a `PUT /{id}` (null otherwise). */
  read: (c: Context<AppEnv>, pathId: string | null) => Promise<EntityRequest>;
}

/** The table row of one entity: what differs between them. */
export interface EntitySpec {
  kind: EntityKind;
  /** RBAC resource: permissions `core_<resource>_view|edit|delete`. */
  resource: string;
  /** The query parameter naming the parent (environment, pipeline), required where present. */
  parentParam?: string;
  /** Org and project are required query parameters (`@NotNull`, the pipeline service's entities). */
  scopeRequired: boolean;
  /** `PUT /{id}` (else `PUT /`, the body naming the entity). */
  putById: boolean;
  /** The list's paging parameters and default page size. */
  paging: { index: "page" | "pageIndex"; size: "size" | "pageSize"; defaultSize: number };
  /** The API takes `If-Match` on update and delete (else the header is not read). */
  ifMatch: boolean;
  writers: EntityWriter[];
  refusals: EntityRefusals;
  /** A GET of an entity that does not exist. */
  notFound: (id: string, at: EntityAt) => EmulatorError;
  /** `data` of a create, read and update. */
  render: (e: StoredEntity, accountId: string) => unknown;
  /** One item of the list (default: {@link EntitySpec.render}). */
  listItem?: (e: StoredEntity, accountId: string) => unknown;
  /** Filters of the list beyond `searchTerm` (a secret's `type`, say). */
  listFilter?: (c: Context<AppEnv>) => (e: StoredEntity) => boolean;
  /** The list is a `POST` at this sub-path (its filter body not read), not `GET /` (environment groups). */
  listByPost?: `/${string}`;
  /** `data` of a delete (default `true`). */
  deleted?: (id: string, at: EntityAt, accountId: string) => unknown;
  /** The other entities a write names, which must exist (the store refuses it otherwise). */
  references?: (request: EntityRequest) => EntityReference[];
}

/**
 * One v2 entity of the emulator, as its file exports it (`export const part = entityPart({...})`):
 * its kind in the store, the kind it lives under (`parent`: an infrastructure's environment, an input
 * set's or trigger's pipeline; a deletion of the parent takes it), its base path and its table row.
 * `npm run generate` lists the files that export one (`./entity-parts.ts`, and the store's kinds,
 * `../store/entity-kinds.ts`), so nothing else registers it.
 */
export type EntityPart = {
  kind: EntityKind;
  parent?: EntityKind | "pipeline";
  path: `/${string}`;
} & (
  | { spec: (store: Store) => EntitySpec }
  /** Routes of its own, over the same store part, where the API is not the table's shape (templates). */
  | { serve: (store: Store) => Hono<AppEnv> }
);

/** Declares a v2 entity part (see {@link EntityPart}). */
export const entityPart = (part: EntityPart): EntityPart => part;

/** A YAML entity body parsed and checked by its schema: 400 naming each violated field (inferred wording). */
export function parseYamlEntity<T extends z.ZodType>(text: string, schema: T): z.output<T> {
  const parsed = schema.safeParse(parsePipelineYaml(text));
  if (!parsed.success) throw validationFailure(zodViolations("yaml", parsed.error.issues));
  return parsed.data;
}

/** A JSON body object checked by its schema: 400 FailureDTO naming each violated field (ref §2). */
export function parseBody<T extends z.ZodType>(raw: unknown, schema: T, root: string): z.output<T> {
  const parsed = schema.safeParse(raw);
  if (!parsed.success) throw validationFailure(zodViolations(root, parsed.error.issues));
  return parsed.data;
}

/** Tags of a YAML entity: a key-only tag reads as `""` (ref §3). */
export function yamlTags(tags: Record<string, string | null> | null | undefined): Record<string, string> {
  return Object.fromEntries(Object.entries(tags ?? {}).map(([k, v]) => [k, v ?? ""]));
}

/**
 * What the rows of the NG CD entities (services, environments, infrastructures) share: the scope
 * in the body, `PUT /` naming the entity in the body, `page`/`size` paging with 100 a page (Go SDK
 * GetServiceList, GetEnvironmentList, GetInfrastructureList; harness-core `@DefaultValue("100")`),
 * `If-Match` read.
 */
export const NG_ROW = {
  scopeRequired: false,
  putById: false,
  paging: { index: "page", size: "size", defaultSize: 100 },
  ifMatch: true,
} as const;

/**
 * `data` of an NG CD entity (SDK `ServiceResponse`, `EnvironmentResponse`,
 * `InfrastructureResponse`): the entity under `key` with its scope, name, description and tags
 * and the kind's `extra` members, then its timestamps.
 */
export function ngData(key: string, e: StoredEntity, accountId: string, extra: Record<string, unknown>) {
  const { identifier, name, description, tags } = e;
  return {
    [key]: {
      accountId,
      identifier,
      orgIdentifier: e.at.org,
      projectIdentifier: e.at.project,
      name,
      description,
      tags,
      ...extra,
    },
    createdAt: e.createdAt,
    lastModifiedAt: e.lastModifiedAt,
  };
}

/** A scope level as the service's messages print it (`String.format` of null is `null`). */
export const shown = (v: string | null): string => v ?? "null";

/**
 * The write of an NG entity whose JSON body names its scope (`orgIdentifier`, `projectIdentifier`
 * in the body, SDK `ServiceRequest`, `EnvironmentRequest`, `InfrastructureRequest`).
 */
export function bodyScopedWriter<T extends z.ZodType>(
  schema: T,
  root: string,
  build: (body: z.output<T>) => EntityRequest,
): EntityWriter {
  return { path: "", read: async (c) => build(parseBody(await readJsonBody(c), schema, root)) };
}

/**
 * The refusals of the NG CD entities (services, environments, infrastructures), worded as
 * harness-core `ServiceEntityServiceImpl` words them (`create`: DUP_KEY_EXP_FORMAT_STRING_FOR_PROJECT;
 * `update` and `delete`: "doesn't exist."; an update whose `If-Match` version is stale matches no
 * document, since `getServiceEqualityCriteria` adds the version to the criteria: "couldn't be
 * updated or doesn't exist.", a deletion "couldn't be deleted.", both INVALID_REQUEST, not
 * OPTIMISTIC_LOCKING_EXCEPTION). `label` names the kind; `extra` adds the environment of an
 * infrastructure.
 */
export function ngRefusals(
  label: string,
  accountId: () => string,
  extra: (at: EntityAt) => string = () => "",
): EntityRefusals {
  const where = (id: string, at: EntityAt) =>
    `${label} [${id}] under Project[${shown(at.project)}], Organization [${shown(at.org)}]${extra(at)}`;
  return {
    duplicate: (id, at) => duplicateField(`${where(id, at)} in Account [${accountId()}] already exists`),
    updateMissing: (id, at) => invalidRequest(`${where(id, at)} doesn't exist.`),
    deleteMissing: (id, at) => invalidRequest(`${where(id, at)} doesn't exist.`),
    stale: (id, at, verb) =>
      invalidRequest(
        verb === "update"
          ? `${where(id, at)} couldn't be updated or doesn't exist.`
          : `${where(id, at)} couldn't be deleted.`,
      ),
  };
}

/** The scope of a read, list or delete: the query's. */
function queryAt(c: Context<AppEnv>, spec: EntitySpec): EntityAt {
  const names = [
    ...(spec.scopeRequired ? (["orgIdentifier", "projectIdentifier"] as const) : []),
    ...(spec.parentParam === undefined ? [] : [spec.parentParam]),
  ];
  requireQuery(c, names);
  return {
    org: optionalQuery(c, "orgIdentifier"),
    project: optionalQuery(c, "projectIdentifier"),
    parent: spec.parentParam === undefined ? null : optionalQuery(c, spec.parentParam),
  };
}

const permit = (c: Context<AppEnv>, spec: EntitySpec, at: EntityAt, verb: string, id?: string) =>
  authorize(c, { org: at.org, project: at.project }, `core_${spec.resource}_${verb}`, spec.resource, id);

/** The routes of one entity, mounted at its base path. */
export function entityRoutes(store: Store, spec: EntitySpec): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const ifMatch = (c: Context<AppEnv>) => (spec.ifMatch ? ifMatchVersion(c) : null);
  const rendered = (c: Context<AppEnv>, e: StoredEntity) =>
    success(c, spec.render(e, store.accountId), spec.ifMatch ? e.version : undefined);

  for (const writer of spec.writers) {
    app.post(writer.path || "/", async (c) => {
      const { at, fields } = await writer.read(c, null);
      permit(c, spec, at, "edit");
      const refs = spec.references?.({ at, fields }) ?? [];
      const stored = store.entities.create(spec.kind, at, fields, spec.refusals, refs);
      await store.commit();
      return rendered(c, stored);
    });
    app.put(spec.putById ? `${writer.path}/:identifier` : writer.path || "/", async (c) => {
      const { at, fields } = await writer.read(c, spec.putById ? (c.req.param("identifier") ?? null) : null);
      permit(c, spec, at, "edit", fields.identifier);
      const refs = spec.references?.({ at, fields }) ?? [];
      const updated = store.entities.replace(spec.kind, at, fields, ifMatch(c), spec.refusals, refs);
      await store.commit();
      return rendered(c, updated);
    });
  }

  const list = (c: Context<AppEnv>) => {
    const at = queryAt(c, spec);
    permit(c, spec, at, "view");
    const page = {
      pageIndex: intQuery(c, spec.paging.index, 0, PLATFORM_INT),
      pageSize: Math.max(1, intQuery(c, spec.paging.size, spec.paging.defaultSize, PLATFORM_INT)),
    };
    const search = optionalQuery(c, "searchTerm")?.toLowerCase() ?? null;
    const extra = spec.listFilter?.(c) ?? (() => true);
    const items = store.entities
      .list(spec.kind, at)
      .filter(
        (e) =>
          search === null ||
          e.identifier.toLowerCase().includes(search) ||
          e.name.toLowerCase().includes(search),
      )
      .filter(extra);
    const item = spec.listItem ?? spec.render;
    return success(
      c,
      ngPage(
        items.map((e) => item(e, store.accountId)),
        page,
      ),
    );
  };
  if (spec.listByPost === undefined) app.get("/", list);
  else app.post(spec.listByPost, list);

  app.get("/:identifier", (c) => {
    const id = c.req.param("identifier");
    const at = queryAt(c, spec);
    permit(c, spec, at, "view", id);
    const stored = store.entities.get(spec.kind, at, id);
    if (stored === undefined) throw spec.notFound(id, at);
    return (spec.ifMatch ? notModified(c, stored.version) : null) ?? rendered(c, stored);
  });

  app.delete("/:identifier", async (c) => {
    const id = c.req.param("identifier");
    const at = queryAt(c, spec);
    permit(c, spec, at, "delete", id);
    store.entities.remove(spec.kind, at, id, ifMatch(c), spec.refusals);
    await store.commit();
    return success(c, spec.deleted?.(id, at, store.accountId) ?? true);
  });

  return app;
}
