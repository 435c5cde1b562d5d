/**
 * The typed client of the platform API (`x-api-key`, `accountIdentifier` query parameter): projects,
 * connectors and YAML pipelines. Creates follow `../shared/spec/platform-api.md` §4; reads,
 * updates, deletes and lists follow `../shared/reference/platform-api-behaviour.md` (ref §N).
 *
 * Methods return the `data` of the success envelope `{status: "SUCCESS", data, metaData,
 * correlationId}`. Both error shapes (ERROR and FAILURE with field errors, ref §2) become typed
 * errors; a missing connector's 400 RESOURCE_NOT_FOUND_EXCEPTION is a NotFoundError (ref §5).
 * @module
 */
import { stringify } from "yaml";
import type { z } from "zod";
import { type CommonOptions, ConfigurationError, resolveCommonOptions } from "../core/options";
import { checkPageSize } from "../core/paginate";
import { type CallInit, HttpCore, type Query } from "../core/request";
import type { Route } from "../core/route";
import { invalidInput, parseInput } from "../core/validate-input";
import { loadYaml } from "../core/yaml";
import { platformEndpoints as E } from "./endpoints";
import type { EntityCtx } from "./entity-api";
import { partsBase } from "./part";
import { PLATFORM_PARTS, type PlatformParts } from "./parts";
import {
  ConnectorBody,
  type ConnectorData,
  DEFAULT_ORG,
  PIPELINE_PAGE_DEFAULT,
  type PipelineGetData,
  PipelineListFilter,
  type PipelineSaveData,
  type PipelineSummary,
  PLATFORM_PAGE_MAX,
  ProjectBody,
  type ProjectData,
} from "./schemas";
import { type IfMatchOption, type Versioned, versionedCall } from "./versioned";

/** Options of {@link PlatformClient}: the {@link CommonOptions} plus the key and the account. */
export type PlatformClientOptions = CommonOptions & {
  /** API key token (`x-api-key`); falls back to `FLAGSTACK_PLATFORM_API_KEY`. */
  apiKey?: string | undefined;
  /** The account identifier sent as `accountIdentifier`; falls back to `FLAGSTACK_ACCOUNT_ID`. */
  accountId?: string | undefined;
};

/** Organization (and project) a connector lives in; both absent means account level. */
export interface ConnectorScope {
  org?: string | undefined;
  project?: string | undefined;
}

/** Organization and project of a pipeline (both required, spec §4). */
export interface PipelineScope {
  org: string;
  project: string;
}

const AUTH_HINT = "check the platform API key: option apiKey or FLAGSTACK_PLATFORM_API_KEY";

/** A pipeline definition: YAML text, or an object rendered to YAML. */
export type PipelineYaml = string | { pipeline: Record<string, unknown> };

interface Ctx {
  core: HttpCore;
  account: string;
}

/** Walks an NG page list (`pageIndex` from 0 until `totalPages`, ref §8). */
async function* walkPages<T>(
  ctx: Ctx,
  r: Route,
  query: Query,
  pageSize: number,
): AsyncGenerator<T, void, undefined> {
  for (let pageIndex = 0; ; pageIndex++) {
    const env = (await ctx.core.request(r, {}, { query: { ...query, pageIndex, pageSize } })) as {
      data: { content: T[]; totalPages: number };
    };
    yield* env.data.content;
    if (env.data.content.length === 0 || pageIndex + 1 >= env.data.totalPages) return;
  }
}

/** Projects (spec §4; ref §4). */
export class ProjectsApi {
  readonly #ctx: Ctx;
  /** @internal */
  constructor(ctx: Ctx) {
    this.#ctx = ctx;
  }

  #body(r: Route, body: ProjectBody, org: string | undefined) {
    const wanted = org ?? body.orgIdentifier ?? DEFAULT_ORG;
    if (body.orgIdentifier !== undefined && body.orgIdentifier !== wanted) {
      throw invalidInput(r, "request body", [
        {
          path: ["orgIdentifier"],
          message: `orgIdentifier "${body.orgIdentifier}" differs from the org option "${wanted}"`,
        },
      ]);
    }
    return {
      project: parseInput(ProjectBody, { ...body, orgIdentifier: wanted }, r, "request body", "project"),
      org: wanted,
    };
  }

  /**
   * Creates a project in an organization (`default` when none is given, spec §4 rule 1).
   * @returns the envelope's data: `{project, createdAt, lastModifiedAt, isFavorite}`.
   * @throws ConflictError when the identifier is taken (DUPLICATE_FIELD, ref §4).
   * @example
   * const { project } = await platform.projects.create({ identifier: "payments", name: "Payments" });
   */
  async create(body: ProjectBody, opts: { org?: string } = {}): Promise<Versioned<ProjectData>> {
    const init = this.#saveInit(E.projects.create, body, opts.org);
    return versionedCall(
      undefined,
      async (v) => (await this.#ctx.core.request(E.projects.create, {}, { ...init, ...v })).data,
    );
  }

  /**
   * A project by identifier, with its `version` (the answer's ETag, ref §1).
   * @throws NotFoundError when it does not exist (404 ENTITY_NOT_FOUND, ref §4).
   */
  async get(identifier: string, opts: { org?: string } = {}): Promise<Versioned<ProjectData>> {
    const query = { accountIdentifier: this.#ctx.account, orgIdentifier: opts.org ?? DEFAULT_ORG };
    return versionedCall(
      undefined,
      async (v) => (await this.#ctx.core.request(E.projects.get, { identifier }, { query, ...v })).data,
    );
  }

  /**
   * Replaces a project (ref §4: a full replace; the body's identifier must equal `identifier`).
   * With `ifMatch` the service refuses the replace when the project's version is no longer that
   * one (400 OPTIMISTIC_LOCKING_EXCEPTION, ref §2, §4).
   */
  async update(
    identifier: string,
    body: ProjectBody,
    opts: { org?: string } & IfMatchOption = {},
  ): Promise<Versioned<ProjectData>> {
    if (body.identifier !== identifier) {
      throw invalidInput(E.projects.update, "request body", [
        {
          path: ["project", "identifier"],
          message: `identifier "${body.identifier}" differs from the path identifier "${identifier}"`,
        },
      ]);
    }
    const init = this.#saveInit(E.projects.update, body, opts.org);
    return versionedCall(
      opts.ifMatch,
      async (v) => (await this.#ctx.core.request(E.projects.update, { identifier }, { ...init, ...v })).data,
    );
  }

  /** The query and body of a create or a replace: the checked body, the account and organization. */
  #saveInit(r: Route, body: ProjectBody, orgOption: string | undefined): CallInit {
    const { project, org } = this.#body(r, body, orgOption);
    return { query: { accountIdentifier: this.#ctx.account, orgIdentifier: org }, body: { project } };
  }

  /** Deletes a project (a hard delete, ref §4); returns `true`. */
  async delete(identifier: string, opts: { org?: string } = {}): Promise<true> {
    await this.#ctx.core.request(
      E.projects.delete,
      { identifier },
      { query: { accountIdentifier: this.#ctx.account, orgIdentifier: opts.org ?? DEFAULT_ORG } },
    );
    return true;
  }

  /** Every project of an organization (all organizations when `org` is absent), page after page. */
  list(opts: { org?: string; pageSize?: number } = {}): AsyncIterable<ProjectData> {
    const pageSize = checkPageSize(
      opts.pageSize,
      PLATFORM_PAGE_MAX,
      PLATFORM_PAGE_MAX,
      "GET",
      E.projects.list.template,
    );
    return walkPages<ProjectData>(
      this.#ctx,
      E.projects.list,
      { accountIdentifier: this.#ctx.account, orgIdentifier: opts.org },
      pageSize,
    );
  }
}

/** Connectors (spec §4; ref §5): one endpoint for every connector type. */
export class ConnectorsApi {
  readonly #ctx: Ctx;
  /** @internal */
  constructor(ctx: Ctx) {
    this.#ctx = ctx;
  }

  #body(r: Route, body: ConnectorBody) {
    const account = this.#ctx.account;
    if (body.accountIdentifier !== undefined && body.accountIdentifier !== account) {
      throw invalidInput(r, "request body", [
        {
          path: ["accountIdentifier"],
          message: `accountIdentifier "${body.accountIdentifier}" differs from the client's account "${account}"`,
        },
      ]);
    }
    if (body.projectIdentifier !== undefined && body.orgIdentifier === undefined) {
      // ref §5: "Project %s specified without the org Identifier"
      throw invalidInput(
        r,
        "request body",
        [{ path: ["orgIdentifier"], message: "orgIdentifier is required when projectIdentifier is set" }],
        "connector",
      );
    }
    return parseInput(ConnectorBody, { ...body, accountIdentifier: account }, r, "request body", "connector");
  }

  /**
   * Creates a connector in the scope its body names (spec §4 rule 2).
   * @example
   * await platform.connectors.create({
   *   identifier: "dockerhub", name: "Docker Hub", orgIdentifier: "default", projectIdentifier: "payments",
   *   type: "DockerRegistry",
   *   spec: { dockerRegistryUrl: "https://index.docker.io/v2/", providerType: "DockerHub", auth: { type: "Anonymous" } },
   * });
   */
  async create(body: ConnectorBody): Promise<ConnectorData> {
    return this.#save(E.connectors.create, body);
  }

  /**
   * A connector by identifier in a scope.
   * @throws NotFoundError when it does not exist (400 RESOURCE_NOT_FOUND_EXCEPTION, ref §5).
   */
  async get(identifier: string, scope: ConnectorScope = {}): Promise<ConnectorData> {
    const env = await this.#ctx.core.request(E.connectors.get, { identifier }, { query: this.#scope(scope) });
    return env.data;
  }

  /** Replaces a connector; the body names it (ref §5: `PUT /ng/api/connectors`, no id in the path). */
  async update(body: ConnectorBody): Promise<ConnectorData> {
    return this.#save(E.connectors.update, body);
  }

  /** A create or a replace: the checked body under `connector`, the client's account in the query. */
  async #save(r: typeof E.connectors.create | typeof E.connectors.update, body: ConnectorBody) {
    const connector = this.#body(r, body);
    const query = { accountIdentifier: this.#ctx.account };
    return (await this.#ctx.core.request(r, {}, { query, body: { connector } })).data;
  }

  /**
   * Deletes a connector (a soft delete, ref §5); returns `true`.
   * @throws NotFoundError when it does not exist (400 "No connector exists ...", ref §5).
   */
  async delete(identifier: string, scope: ConnectorScope = {}): Promise<true> {
    await this.#ctx.core.request(E.connectors.delete, { identifier }, { query: this.#scope(scope) });
    return true;
  }

  /** Every connector of a scope, page after page (ref §8). */
  list(scope: ConnectorScope & { pageSize?: number } = {}): AsyncIterable<ConnectorData> {
    const pageSize = checkPageSize(
      scope.pageSize,
      PLATFORM_PAGE_MAX,
      PLATFORM_PAGE_MAX,
      "GET",
      E.connectors.list.template,
    );
    return walkPages<ConnectorData>(this.#ctx, E.connectors.list, this.#scope(scope), pageSize);
  }

  #scope(scope: ConnectorScope): Query {
    return {
      accountIdentifier: this.#ctx.account,
      orgIdentifier: scope.org,
      projectIdentifier: scope.project,
    };
  }
}

/** What {@link PipelinesApi.list} filters by: the filter body less its `filterType`. */
export type PipelineListOptions = PipelineScope & {
  /** The filter body's fields (ref §8): `pipelineIdentifiers`, `name`, `description`, `pipelineTags`, .... */
  filter?: Omit<z.input<typeof PipelineListFilter>, "filterType">;
  /** Matches name, identifier and tags, case-insensitively. */
  searchTerm?: string;
  /** A module the pipelines use (`cd`, `ci`, `pms`). */
  module?: string;
  /** `<field>,ASC|DESC` (name, identifier, createdAt, lastUpdatedAt); the service's default: `lastUpdatedAt,DESC`. */
  sort?: string;
  /** Pipelines per request (1-100, default 25). */
  pageSize?: number;
};

/** Pipelines: YAML in, envelope out (spec §4; ref §6.2). */
export class PipelinesApi {
  readonly #ctx: Ctx;
  /** @internal */
  constructor(ctx: Ctx) {
    this.#ctx = ctx;
  }

  #query(r: Route, scope: PipelineScope): Query {
    const missing: { path: string[]; message: string }[] = [];
    if (!scope?.org)
      missing.push({ path: ["org"], message: "org is required (the pipeline's orgIdentifier)" });
    if (!scope?.project)
      missing.push({ path: ["project"], message: "project is required (the pipeline's projectIdentifier)" });
    if (missing.length) throw invalidInput(r, "scope", missing);
    return {
      accountIdentifier: this.#ctx.account,
      orgIdentifier: scope.org,
      projectIdentifier: scope.project,
    };
  }

  /**
   * Creates a pipeline from YAML (text, or an object rendered with the `yaml` package). Sent with
   * `Content-Type: application/yaml`; the YAML's orgIdentifier and projectIdentifier must equal
   * the scope (ref §6.2).
   * @returns `{identifier, governanceMetadata}`.
   * @example
   * await platform.pipelines.create(readFileSync("deploy.yaml", "utf8"), { org: "default", project: "payments" });
   */
  async create(yaml: PipelineYaml, scope: PipelineScope): Promise<Versioned<PipelineSaveData>> {
    const r = E.pipelines.create;
    const init = { query: this.#query(r, scope), body: pipelineText(r, yaml) };
    return versionedCall(
      undefined,
      async (v) => (await this.#ctx.core.request(r, {}, { ...init, ...v })).data,
    );
  }

  /**
   * A pipeline: `yamlPipeline` is the stored YAML verbatim (ref §6.2), `version` the answer's
   * ETag (ref §1: the body never carries it).
   * @throws NotFoundError when it does not exist (404 ENTITY_NOT_FOUND, ref §6.2).
   */
  async get(identifier: string, scope: PipelineScope): Promise<Versioned<PipelineGetData>> {
    const query = this.#query(E.pipelines.get, scope);
    return versionedCall(
      undefined,
      async (v) => (await this.#ctx.core.request(E.pipelines.get, { identifier }, { query, ...v })).data,
    );
  }

  /**
   * Replaces a pipeline's YAML; its identifier must equal `identifier` (ref §6.2). With `ifMatch`
   * (the `version` of a get) the service refuses the replace when the pipeline changed since
   * (400 OPTIMISTIC_LOCKING_EXCEPTION, ref §2, §6.2: UpdatePipelineV2's `If-Match`).
   */
  async update(
    identifier: string,
    yaml: PipelineYaml,
    scope: PipelineScope,
    opts: IfMatchOption = {},
  ): Promise<Versioned<PipelineSaveData>> {
    const r = E.pipelines.update;
    const init = { query: this.#query(r, scope), body: pipelineText(r, yaml) };
    return versionedCall(
      opts.ifMatch,
      async (v) => (await this.#ctx.core.request(r, { identifier }, { ...init, ...v })).data,
    );
  }

  /** Deletes a pipeline; returns `true`. */
  async delete(identifier: string, scope: PipelineScope): Promise<true> {
    await this.#ctx.core.request(
      E.pipelines.delete,
      { identifier },
      { query: this.#query(E.pipelines.delete, scope) },
    );
    return true;
  }

  /**
   * Every pipeline of a project that matches, as summaries (never the YAML: `get` reads that),
   * page after page: `POST /pipeline/api/pipelines/list` with the filter body
   * `{filterType: "PipelineSetup", ...filter}` and `page` from 0 until the last (ref §8). Bad options
   * fail before any request.
   * @example
   * for await (const p of platform.pipelines.list({ org: "default", project: "payments", searchTerm: "deploy" })) {
   *   console.log(p.identifier, p.numOfStages);
   * }
   */
  list(opts: PipelineListOptions): AsyncIterable<PipelineSummary> {
    const r = E.pipelines.list;
    const size = checkPageSize(opts.pageSize, PLATFORM_PAGE_MAX, PIPELINE_PAGE_DEFAULT, r.method, r.template);
    const query: Query = {
      ...this.#query(r, opts),
      searchTerm: opts.searchTerm,
      module: opts.module,
      sort: opts.sort,
      size,
    };
    const body = parseInput(
      PipelineListFilter,
      { ...opts.filter, filterType: "PipelineSetup" },
      r,
      "filter",
      "filter",
    );
    const ctx = this.#ctx;
    return {
      async *[Symbol.asyncIterator]() {
        for (let page = 0; ; page++) {
          const { data } = await ctx.core.request(r, {}, { query: { ...query, page }, body });
          yield* data.content;
          if (data.content.length === 0 || page + 1 >= data.totalPages) return;
        }
      },
    };
  }
}

/** Renders or checks pipeline YAML: it must parse and have a top-level `pipeline` map (spec §2). */
function pipelineText(r: Route, yaml: PipelineYaml): string {
  if (typeof yaml !== "string") {
    if (
      typeof yaml !== "object" ||
      yaml === null ||
      typeof yaml.pipeline !== "object" ||
      yaml.pipeline === null
    ) {
      throw invalidInput(r, "pipeline", [
        { path: ["pipeline"], message: "a pipeline object needs a top-level pipeline map" },
      ]);
    }
    return stringify(yaml);
  }
  // The one bounded reading (`sdk/core/yaml.ts`): an alias bomb or a text over 1 MiB is refused here.
  const read = loadYaml(yaml);
  if (!read.ok) throw invalidInput(r, "pipeline YAML", [{ path: [], message: read.error.message }], "yaml");
  const value = read.value as { pipeline?: unknown } | null;
  if (
    typeof value !== "object" ||
    value === null ||
    typeof value.pipeline !== "object" ||
    value.pipeline === null
  ) {
    throw invalidInput(
      r,
      "pipeline YAML",
      [{ path: ["pipeline"], message: "the YAML needs a top-level pipeline map" }],
      "yaml",
    );
  }
  return yaml;
}

/** One member per part of `./parts.ts`, each documented by its part's TSDoc. */
const PlatformPartsBase: new (ctx: EntityCtx) => PlatformParts = partsBase(PLATFORM_PARTS);

/**
 * Client of the platform API.
 *
 * @example
 * import { PlatformClient } from "flagstack";
 * const platform = new PlatformClient({ baseUrl: "http://127.0.0.1:8080", apiKey: process.env.PAT, accountId: "acc1" });
 * await platform.projects.create({ identifier: "payments", name: "Payments" });
 * await platform.pipelines.create(yamlText, { org: "default", project: "payments" });
 */
export class PlatformClient extends PlatformPartsBase {
  // One member per part of `./parts.ts` (organizations, services, environments, environmentGroups,
  // infrastructures, secrets, inputSets, triggers, ...: each part file's `part`), from the base class.
  /** Projects. */
  readonly projects: ProjectsApi;
  /** Connectors. */
  readonly connectors: ConnectorsApi;
  /** Pipelines. */
  readonly pipelines: PipelinesApi;
  /** The account identifier every call sends. */
  readonly accountId: string;
  /** The HTTP core (for advanced use). */
  readonly core: HttpCore;

  /**
   * @param options Base URL (`FLAGSTACK_PLATFORM_API_URL`), key (`FLAGSTACK_PLATFORM_API_KEY`),
   *   account (`FLAGSTACK_ACCOUNT_ID`), rate limit (`FLAGSTACK_REQUESTS_PER_SECOND`, default 5:
   *   ref §9 quotes about 350 requests per minute per account), retries, timeouts, dispatcher.
   * @throws ConfigurationError naming a missing or invalid option and its environment variable.
   */
  constructor(options: PlatformClientOptions = {}) {
    const ctx = platformCtx(options);
    super(ctx);
    this.accountId = ctx.account;
    this.core = ctx.core;
    this.projects = new ProjectsApi(ctx);
    this.connectors = new ConnectorsApi(ctx);
    this.pipelines = new PipelinesApi(ctx);
  }
}

/** The HTTP core and account of a client, from its options (or their environment variables). */
function platformCtx(options: PlatformClientOptions): Ctx {
  const { apiKey, accountId, ...common } = options;
  const resolved = resolveCommonOptions(common, apiKey, {
    client: "PlatformClient",
    urlEnv: "FLAGSTACK_PLATFORM_API_URL",
    keyOption: "apiKey",
    keyEnv: "FLAGSTACK_PLATFORM_API_KEY",
    defaultRequestsPerSecond: 5,
  });
  const account = accountId ?? resolved.env.FLAGSTACK_ACCOUNT_ID?.trim();
  if (account === undefined || account === "") {
    throw new ConfigurationError(
      "accountId",
      "FLAGSTACK_ACCOUNT_ID",
      "PlatformClient: missing accountId: pass { accountId } or set FLAGSTACK_ACCOUNT_ID",
    );
  }
  return {
    core: new HttpCore({ options: resolved, auth: ["x-api-key", resolved.key], authHint: AUTH_HINT }),
    account,
  };
}
