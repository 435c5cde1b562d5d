/**
 * Pipelines (v0 API): `POST /pipeline/api/pipelines/v2`, `PUT /pipeline/api/pipelines/v2/{id}`,
 * `GET|DELETE /pipeline/api/pipelines/{id}` (spec §4 for create; ref §6.2 for the rest); the
 * earlier create `POST /pipeline/api/pipelines` (raw YAML, answered `data: "<identifier>"`) and the
 * list `POST /pipeline/api/pipelines/list` (filter body, Spring page, ref §8), both as the public
 * Harness Go SDK calls them (harness-go-sdk v0.8.24 `nextgen/api_pipelines.go` `PostPipeline`,
 * `GetPipelineList`).
 *
 * The YAML is stored exactly as received and returned verbatim; identifier, name, description and
 * tags are read out of it (ref §6.2). Delete is a hard delete, so an identifier can be used again.
 * @module
 */
import { type Context, Hono } from "hono";
import { pipelineViewOfYaml } from "../../sdk/platform/pipeline/walk";
import { PIPELINE_PAGE_DEFAULT, PipelineListFilter, type PipelineSummary } from "../../sdk/platform/schemas";
import type { AppEnv } from "../context";
import { intQuery, optionalQuery, PLATFORM_INT, readJson } from "../http";
import { authorize } from "../middleware/auth";
import type { Store, StoredPipeline } from "../store";
import {
  entityNotFound,
  invalidRequest,
  mediaNotSupported,
  validationFailure,
  zodViolations,
} from "./errors";
import { checkIfMatch, mediaType, notModified, requireQuery, success } from "./http";
import { type PipelineFacts, parsePipelineYaml, pipelineModules, validatePipeline } from "./pipeline-yaml";
import { resolveTemplateRefs, templateAppliedYaml } from "./template-refs";

const SCOPE_PARAMS = ["orgIdentifier", "projectIdentifier"] as const;

/**
 * Reads the YAML body. The resource consumes `application/yaml`; a raw YAML body sent as
 * `application/json` is accepted too, as the Go SDK sends it that way (ref §6.2 quirk). Any other
 * media type is a 415.
 */
export async function readYaml(c: Context<AppEnv>): Promise<string> {
  const media = mediaType(c);
  if (media !== "application/yaml" && media !== "application/json") throw mediaNotSupported();
  return c.req.text();
}

export function notFoundMessage(id: string, org: string, project: string): string {
  return `Pipeline [${id}] under Project[${project}], Organization [${org}] doesn't exist or has been deleted.`;
}

/**
 * Reads and checks a pipeline YAML saved under `org`/`project`: the schema, then its template
 * references, each naming a template version (`template-refs.ts`; the order of the two checks is
 * inferred).
 */
function parseAndValidate(store: Store, text: string, org: string, project: string): PipelineFacts {
  const doc = parsePipelineYaml(text);
  const facts = validatePipeline(doc, { org, project });
  resolveTemplateRefs(store, doc, { org, project });
  return facts;
}

/** The stage names of a stored pipeline's YAML, in order (none when it no longer reads). */
function stageNames(text: string): string[] {
  try {
    return pipelineViewOfYaml(text).stages.map((s) => s.name);
  } catch {
    return [];
  }
}

/** A pipeline as the list shows it (`PMSPipelineSummaryResponseDTO`; never the YAML). */
function summaryOf(p: StoredPipeline): PipelineSummary {
  const stages = stageNames(p.yaml);
  return {
    identifier: p.identifier,
    name: p.name,
    description: p.description,
    tags: p.tags,
    version: p.version,
    numOfStages: stages.length,
    createdAt: p.createdAt,
    lastUpdatedAt: p.lastModifiedAt,
    modules: pipelineModules(p.yaml),
    stageNames: stages,
    filters: {},
    storeType: "INLINE",
    entityValidityDetails: { valid: true },
  };
}

/** Whether a pipeline matches the list's filter body and `searchTerm` (case-insensitive, inferred). */
function matches(
  p: StoredPipeline,
  filter: PipelineListFilter | undefined,
  searchTerm: string | null,
): boolean {
  const has = (text: string, part: string) => text.toLowerCase().includes(part.toLowerCase());
  const tags = Object.entries(p.tags);
  if (searchTerm !== null) {
    const found =
      has(p.name, searchTerm) ||
      has(p.identifier, searchTerm) ||
      tags.some(([k, v]) => has(k, searchTerm) || has(v, searchTerm));
    if (!found) return false;
  }
  if (filter === undefined) return true;
  if (filter.pipelineIdentifiers?.length && !filter.pipelineIdentifiers.includes(p.identifier)) return false;
  const name = filter.name ?? filter.pipelineName;
  if (name && !has(p.name, name)) return false;
  if (filter.description && !has(p.description, filter.description)) return false;
  for (const t of filter.pipelineTags ?? []) {
    if (!tags.some(([k, v]) => k === t.key && (t.value ? v === t.value : true))) return false;
  }
  for (const [k, v] of Object.entries(filter.tags ?? {})) {
    if (!tags.some(([tk, tv]) => tk === k && (v ? tv === v : true))) return false;
  }
  return true;
}

/** Fields the list sorts by (`sort=<field>,ASC|DESC`, repeated; default `lastUpdatedAt,DESC`). */
const SORT_FIELDS: Record<string, (p: StoredPipeline) => string | number> = {
  name: (p) => p.name.toLowerCase(),
  identifier: (p) => p.identifier,
  createdAt: (p) => p.createdAt,
  lastUpdatedAt: (p) => p.lastModifiedAt,
};

function sortOrder(c: Context<AppEnv>): { by: (p: StoredPipeline) => string | number; sign: number }[] {
  const raw = c.req.queries("sort") ?? [];
  const specs = raw.length > 0 ? raw : ["lastUpdatedAt,DESC"];
  return specs.map((spec) => {
    const [field = "", dir = "ASC"] = spec.split(",").map((x) => x.trim());
    const by = SORT_FIELDS[field];
    if (by === undefined) {
      throw validationFailure([
        { path: "sort", message: `cannot sort by ${field}; one of ${Object.keys(SORT_FIELDS).join(", ")}` },
      ]);
    }
    return { by, sign: dir.toUpperCase() === "DESC" ? -1 : 1 };
  });
}

/**
 * The Spring `Page` of the list (ref §8: `{content, totalElements, totalPages, number, size,
 * numberOfElements, first, last, empty, pageable, sort}`).
 */
function springPage<T>(items: T[], page: number, size: number, sorted: boolean) {
  const content = items.slice(page * size, page * size + size);
  const totalPages = Math.ceil(items.length / size);
  const sort = { sorted, unsorted: !sorted, empty: !sorted };
  return {
    content,
    pageable: { sort, offset: page * size, pageNumber: page, pageSize: size, paged: true, unpaged: false },
    totalPages,
    totalElements: items.length,
    last: page + 1 >= totalPages,
    size,
    number: page,
    sort,
    numberOfElements: content.length,
    first: page === 0,
    empty: content.length === 0,
  };
}

/** The pipeline routes, mounted at `/pipeline/api/pipelines`. */
export function pipelineRoutes(store: Store): Hono<AppEnv> {
  const app = new Hono<AppEnv>();

  /** Reads, checks and stores a pipeline created from the request's YAML. */
  const createFromYaml = async (c: Context<AppEnv>): Promise<StoredPipeline> => {
    const { orgIdentifier: org, projectIdentifier: project } = requireQuery(c, SCOPE_PARAMS);
    authorize(c, { org, project }, "core_pipeline_edit", "pipeline");
    const text = await readYaml(c);
    // The project must exist (ref §6.2, harness-core PR #45274); the status and text are inferred.
    if (store.platform.project(org, project) === undefined) {
      throw entityNotFound(`Project with orgIdentifier [${org}] and identifier [${project}] not found`);
    }
    const facts = parseAndValidate(store, text, org, project);
    const stored = store.platform.createPipeline({
      orgIdentifier: org,
      projectIdentifier: project,
      identifier: facts.identifier,
      name: facts.name,
      description: facts.description,
      tags: facts.tags,
      yaml: text,
    });
    await store.commit();
    return stored;
  };

  app.post("/v2", async (c) => {
    const stored = await createFromYaml(c);
    return success(c, { identifier: stored.identifier, governanceMetadata: { deny: false } }, stored.version);
  });

  // The earlier create (ref §6.2 "legacy create"): the same checks, answered `ResponseDTO<String>`
  // whose data is the identifier (the Go SDK's `PostPipeline` returns `ResponseDtoString`).
  app.post("/", async (c) => {
    const stored = await createFromYaml(c);
    return success(c, stored.identifier, stored.version);
  });

  // Before `/:identifier`, which would take `list` for an identifier. The body is the Go SDK's
  // `PipelineFilterProperties` (`{"filterType":"PipelineSetup", ...}`) or none; `page` from 0 and
  // `size` (default 25) as the SDK's docs say; an unknown project lists nothing (inferred).
  app.post("/list", async (c) => {
    const { orgIdentifier: org, projectIdentifier: project } = requireQuery(c, SCOPE_PARAMS);
    authorize(c, { org, project }, "core_pipeline_view", "pipeline");
    const raw = await readJson(c, {
      invalid: (detail) => invalidRequest(`Unable to process JSON: ${detail}`),
    });
    let filter: PipelineListFilter | undefined;
    if (raw !== undefined && raw !== null) {
      const parsed = PipelineListFilter.safeParse(raw);
      if (!parsed.success) throw validationFailure(zodViolations("body", parsed.error.issues));
      filter = parsed.data;
    }
    if (optionalQuery(c, "filterIdentifier") !== null) {
      // Saved filters are not kept by the emulator; the service's answer for an unknown one is inferred.
      throw entityNotFound(`Filter with identifier [${c.req.query("filterIdentifier")}] not found`);
    }
    const page = intQuery(c, "page", 0, PLATFORM_INT);
    const size = Math.max(1, intQuery(c, "size", PIPELINE_PAGE_DEFAULT, PLATFORM_INT));
    const order = sortOrder(c);
    const searchTerm = optionalQuery(c, "searchTerm");
    const module = optionalQuery(c, "module");
    const found = store.platform
      .pipelinesOf(org, project)
      .filter((p) => matches(p, filter, searchTerm))
      .filter((p) => module === null || pipelineModules(p.yaml).includes(module))
      .sort((a, b) => {
        for (const { by, sign } of order) {
          const x = by(a);
          const y = by(b);
          if (x !== y) return (x < y ? -1 : 1) * sign;
        }
        return 0;
      });
    return success(c, springPage(found.map(summaryOf), page, size, true));
  });

  app.put("/v2/:identifier", async (c) => {
    const id = c.req.param("identifier");
    const { orgIdentifier: org, projectIdentifier: project } = requireQuery(c, SCOPE_PARAMS);
    authorize(c, { org, project }, "core_pipeline_edit", "pipeline", id);
    const text = await readYaml(c);
    const facts = parseAndValidate(store, text, org, project);
    // ref §6.2: toPipelineEntityWithVersion.
    if (facts.identifier !== id) {
      throw invalidRequest(
        `Expected Pipeline identifier in YAML to be [${id}], but was [${facts.identifier}]`,
      );
    }
    const existing = store.platform.pipeline(org, project, id);
    // Status for updating a missing pipeline: as GET (inferred).
    if (existing === undefined) throw entityNotFound(notFoundMessage(id, org, project));
    checkIfMatch(c, existing.version);
    const updated = store.platform.replacePipeline(existing, {
      name: facts.name,
      description: facts.description,
      tags: facts.tags,
      yaml: text,
    });
    await store.commit();
    return success(c, { identifier: id, governanceMetadata: { deny: false } }, updated.version);
  });

  app.get("/:identifier", (c) => {
    const id = c.req.param("identifier");
    const { orgIdentifier: org, projectIdentifier: project } = requireQuery(c, SCOPE_PARAMS);
    authorize(c, { org, project }, "core_pipeline_view", "pipeline", id);
    const stored = store.platform.pipeline(org, project, id);
    if (stored === undefined) throw entityNotFound(notFoundMessage(id, org, project));
    // ref §6.2: null fields are omitted (`@JsonInclude(NON_NULL)`), so no gitDetails for INLINE.
    // ref §6.2: `getTemplatesResolvedPipeline=true` adds the YAML with its templates applied.
    const resolved =
      c.req.query("getTemplatesResolvedPipeline") === "true"
        ? templateAppliedYaml(store, stored.yaml, { org, project })
        : undefined;
    const data = {
      yamlPipeline: stored.yaml,
      ...(resolved === undefined ? {} : { resolvedTemplatesPipelineYaml: resolved }),
      entityValidityDetails: { valid: true },
      modules: pipelineModules(stored.yaml),
      storeType: "INLINE",
    };
    return notModified(c, stored.version) ?? success(c, data, stored.version);
  });

  app.delete("/:identifier", async (c) => {
    const id = c.req.param("identifier");
    const { orgIdentifier: org, projectIdentifier: project } = requireQuery(c, SCOPE_PARAMS);
    authorize(c, { org, project }, "core_pipeline_delete", "pipeline", id);
    const existing = store.platform.pipeline(org, project, id);
    // ref §6.2 leaves the status of a missing pipeline unverified; 404 as GET (inferred).
    if (existing === undefined) throw entityNotFound(notFoundMessage(id, org, project));
    checkIfMatch(c, existing.version);
    store.platform.deletePipeline(existing);
    await store.commit();
    return success(c, true);
  });

  return app;
}
