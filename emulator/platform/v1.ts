/**
 * The v1 API for pipelines and input sets (ref §6.1), as today's Harness Terraform provider calls
 * it through harness-openapi-go-client (`nextgen/api_pipelines.go`, `nextgen/api_input_sets.go`;
 * terraform-provider-harness `internal/service/pipeline/pipeline/resource_pipeline.go`,
 * `internal/service/pipeline/input_set/input_set_resource.go`):
 * - `POST /v1/orgs/{org}/projects/{project}/pipelines` `{pipeline_yaml, identifier, name,
 *   description, tags, git_details}` → 201 `{identifier}`; `PUT .../pipelines/{pipeline}` (same
 *   body) → 200 `{identifier}`; `GET .../pipelines/{pipeline}` → `{pipeline_yaml, identifier, name,
 *   org, project, description, tags, modules, valid, created, updated}`; `DELETE` → 204;
 *   `GET .../pipelines?page&limit&search_term&sort&order` → an array of summaries.
 * - `POST /v1/orgs/{org}/projects/{project}/input-sets?pipeline=` `{input_set_yaml, identifier,
 *   name, description, tags, git_details}` → 201, `PUT .../input-sets/{input-set}?pipeline=` →
 *   200, both answering the input set `{input_set_yaml, identifier, name, org, project,
 *   description, tags, created, updated}`; `GET` the same; `DELETE` → 204; `GET .../input-sets?
 *   pipeline=&page&limit&search_term&sort&order` → an array of input sets.
 *
 * One store with the v0/v2 routes: a pipeline is the platform part's (`store.platform`), an input
 * set the entities part's (`store.entities`), so an object made through one API is read, changed
 * and deleted through the other. The YAML rules are the v0 ones (`pipeline.ts`,
 * `pipeline-children.ts`), plus the v1 mapper's: the YAML's identifier, name, description and tags
 * must be the body's ("Expected Pipeline <field> in YAML to be [x], but was [y]", ref §6.1); a
 * create without `git_details` fails inside the service (NullPointerException, ref §6.1: the
 * provider always sends `store_type: INLINE`; an input set needs none); `REMOTE` (Git) storage is
 * not emulated.
 *
 * Auth: `x-api-key` with the account in `Harness-Account` (`KEY_KINDS.platformV1`). Errors are
 * the pipeline service's own (the v1 resources run in the same service, behind the same exception
 * mappers: ErrorDTO with `message`, which is all the provider reads, `helpers/errors.go`; the
 * shape is inferred, the swagger leaves the 400 body an empty object). Status and headers of the
 * lists (`X-Total-Elements`, `X-Page-Number`, `X-Page-Size`; `limit` default 30 up to 100) are
 * inferred from the v1 API's documented conventions.
 * @module
 */
import { type Context, Hono } from "hono";
import type { z } from "zod";
import { loadYaml } from "../../sdk/core/yaml";
import { V1InputSetBody, V1PipelineBody } from "../../sdk/platform/schemas";
import type { AppEnv } from "../context";
import { EmulatorError } from "../errors";
import { intQuery, optionalQuery, PLATFORM_INT } from "../http";
import { authorize, keyAuth } from "../middleware/auth";
import type { EntityAt, Store, StoredEntity, StoredPipeline } from "../store";
import { entityNotFound, invalidRequest, validationFailure, zodViolations } from "./errors";
import { readJsonBody } from "./http";
import { INPUT_SET_YAML, inputSetNotFound, inputSetRefusals } from "./input-set";
import { notFoundMessage } from "./pipeline";
import { readPipelineChild } from "./pipeline-children";
import { parsePipelineYaml, pipelineModules, validatePipeline } from "./pipeline-yaml";
import { resolveTemplateRefs, templateAppliedYaml } from "./template-refs";

/** Base of the v1 routes of one project. */
const PROJECT = "/v1/orgs/:org/projects/:project";

/** The body, checked by its schema: bean validation's 400 naming each field. */
async function body<S extends z.ZodType>(c: Context<AppEnv>, schema: S): Promise<z.output<S>> {
  const parsed = schema.safeParse(await readJsonBody(c));
  if (!parsed.success) throw validationFailure(zodViolations("body", parsed.error.issues));
  return parsed.data;
}

/**
 * The Git storage the body asks for: only inline storage is emulated. A pipeline created without
 * `git_details` fails inside the service (ref §6.1: a NullPointerException, which is why the
 * provider always sends `store_type: INLINE` for pipelines); an input set without it is inline (the
 * provider's `buildCreateInputSet` sends none when the resource has no git block).
 */
function checkInline(
  git: { store_type?: string | null | undefined } | null | undefined,
  gitRequired: boolean,
) {
  if (gitRequired && (git === null || git === undefined)) {
    throw new EmulatorError(500, "Oops, something went wrong on our end: java.lang.NullPointerException", {
      code: "UNKNOWN_ERROR",
    });
  }
  const type = git?.store_type ?? "INLINE";
  if (type !== "INLINE") {
    throw invalidRequest(
      `store_type ${type}: only INLINE pipelines and input sets are served by the emulator`,
    );
  }
}

/** Tags as compared: a null value is the empty string, as the YAML reading stores it. */
const tagText = (tags: Record<string, string | null> | null | undefined): string =>
  JSON.stringify(
    Object.entries(tags ?? {})
      .map(([k, v]) => [k, v ?? ""])
      .sort(([a], [b]) => (a! < b! ? -1 : a! > b! ? 1 : 0)),
  );

/**
 * The v1 mapper's checks (ref §6.1 `PMSPipelineDtoMapper.toPipelineEntity(PipelineRequestInfoDTO, ...)`):
 * the YAML's identifier, name, description and tags are the body's.
 */
function expectBodyFields(
  label: string,
  y: Record<string, unknown>,
  b: {
    identifier: string;
    name: string;
    description?: string | null | undefined;
    tags?: Record<string, string> | null | undefined;
  },
) {
  const expect = (field: string, want: string, got: string) => {
    if (got !== want)
      throw invalidRequest(`Expected ${label} ${field} in YAML to be [${want}], but was [${got}]`);
  };
  const text = (v: unknown) => (v === undefined || v === null ? "" : String(v));
  expect("identifier", b.identifier, text(y.identifier));
  expect("name", b.name, text(y.name));
  expect("description", b.description ?? "", text(y.description));
  const yTags = (y.tags ?? null) as Record<string, string | null> | null;
  if (tagText(b.tags) !== tagText(yTags)) {
    expect("tags", JSON.stringify(b.tags ?? {}), JSON.stringify(yTags ?? {}));
  }
}

/** The map under `key` of a YAML text already read once, or an empty one. */
function section(text: string, key: string): Record<string, unknown> {
  const read = loadYaml(text);
  const doc = read.ok ? (read.value as Record<string, unknown> | null) : null;
  const inner = doc !== null && typeof doc === "object" ? doc[key] : undefined;
  return inner !== null && typeof inner === "object" && !Array.isArray(inner)
    ? (inner as Record<string, unknown>)
    : {};
}

/**
 * A pipeline as the v1 GET answers it; `templateApplied` is the YAML with its templates applied
 * when the request asked for it (`template_applied=true`, `template-refs.ts`).
 */
function pipelineJson(p: StoredPipeline, templateApplied: string | undefined) {
  return {
    pipeline_yaml: p.yaml,
    ...(templateApplied === undefined ? {} : { template_applied_pipeline_yaml: templateApplied }),
    identifier: p.identifier,
    name: p.name,
    org: p.orgIdentifier,
    project: p.projectIdentifier,
    description: p.description,
    tags: p.tags,
    modules: pipelineModules(p.yaml),
    valid: true,
    created: p.createdAt,
    updated: p.lastModifiedAt,
  };
}

/** An input set as the v1 API answers it (`InputSetResponseBody`). */
function inputSetJson(e: StoredEntity) {
  return {
    input_set_yaml: String(e.fields.yaml ?? ""),
    identifier: e.identifier,
    name: e.name,
    org: e.at.org,
    project: e.at.project,
    description: e.description,
    tags: e.tags,
    created: e.createdAt,
    updated: e.lastModifiedAt,
  };
}

/** Sort keys of the v1 lists (`sort`), and their order (`order`, ASC or DESC). */
const V1_SORT: Record<
  string,
  (x: { name: string; identifier: string; created: number; updated: number }) => string | number
> = {
  name: (x) => x.name.toLowerCase(),
  identifier: (x) => x.identifier,
  created: (x) => x.created,
  updated: (x) => x.updated,
};

/** A v1 list page: the items of `page` (from 0) of `limit`, with the paging headers. */
function v1Page<T extends { name: string; identifier: string; created: number; updated: number }>(
  c: Context<AppEnv>,
  items: T[],
): Response {
  const page = intQuery(c, "page", 0, PLATFORM_INT);
  const limit = intQuery(c, "limit", 30, PLATFORM_INT);
  if (limit < 1 || limit > 100)
    throw validationFailure([{ path: "limit", message: "must be between 1 and 100" }]);
  const sortKey = optionalQuery(c, "sort") ?? "updated";
  const by = V1_SORT[sortKey];
  if (by === undefined) {
    throw validationFailure([{ path: "sort", message: `must be one of ${Object.keys(V1_SORT).join(", ")}` }]);
  }
  const sign = (optionalQuery(c, "order") ?? "DESC").toUpperCase() === "ASC" ? 1 : -1;
  const term = optionalQuery(c, "search_term")?.toLowerCase();
  const found = items
    .filter(
      (x) =>
        term === undefined ||
        x.name.toLowerCase().includes(term) ||
        x.identifier.toLowerCase().includes(term),
    )
    .sort((a, b) => {
      const [x, y] = [by(a), by(b)];
      return x === y ? 0 : (x < y ? -1 : 1) * sign;
    });
  c.header("X-Total-Elements", String(found.length));
  c.header("X-Page-Number", String(page));
  c.header("X-Page-Size", String(limit));
  return c.json(found.slice(page * limit, page * limit + limit), 200);
}

/** The v1 routes; mount at the root. */
export function v1Routes(store: Store): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.use("/v1/*", keyAuth(store, "platformV1"));

  const scopeOf = (c: Context<AppEnv>) => ({
    org: c.req.param("org") ?? "",
    project: c.req.param("project") ?? "",
  });
  const projectOr404 = (org: string, project: string) => {
    // As the v0 create (ref §6.2, harness-core PR #45274); status and text inferred.
    if (store.platform.project(org, project) === undefined) {
      throw entityNotFound(`Project with orgIdentifier [${org}] and identifier [${project}] not found`);
    }
  };
  const pipelineOr404 = (org: string, project: string, id: string) => {
    const p = store.platform.pipeline(org, project, id);
    if (p === undefined) throw entityNotFound(notFoundMessage(id, org, project));
    return p;
  };

  /** Reads a v1 pipeline body: the mapper's checks, then the v0 YAML rules at this scope. */
  const pipelineSave = async (c: Context<AppEnv>, verb: "create" | "update") => {
    const { org, project } = scopeOf(c);
    authorize(c, { org, project }, "core_pipeline_edit", "pipeline", c.req.param("pipeline"));
    const b = await body(c, V1PipelineBody);
    checkInline(b.git_details, verb === "create");
    const path = c.req.param("pipeline");
    if (path !== undefined && path !== b.identifier) {
      throw invalidRequest(`Expected Pipeline identifier in YAML to be [${path}], but was [${b.identifier}]`);
    }
    const doc = parsePipelineYaml(b.pipeline_yaml);
    expectBodyFields("Pipeline", section(b.pipeline_yaml, "pipeline"), b);
    const facts = validatePipeline(doc, { org, project });
    resolveTemplateRefs(store, doc, { org, project });
    return { org, project, b, facts };
  };

  app.post(`${PROJECT}/pipelines`, async (c) => {
    const { org, project, b, facts } = await pipelineSave(c, "create");
    projectOr404(org, project);
    const stored = store.platform.createPipeline({
      orgIdentifier: org,
      projectIdentifier: project,
      identifier: facts.identifier,
      name: facts.name,
      description: facts.description,
      tags: facts.tags,
      yaml: b.pipeline_yaml,
    });
    await store.commit();
    return c.json({ identifier: stored.identifier }, 201);
  });

  app.get(`${PROJECT}/pipelines`, (c) => {
    const { org, project } = scopeOf(c);
    authorize(c, { org, project }, "core_pipeline_view", "pipeline");
    const items = store.platform.pipelinesOf(org, project).map((p) => ({
      identifier: p.identifier,
      name: p.name,
      description: p.description,
      tags: p.tags,
      created: p.createdAt,
      updated: p.lastModifiedAt,
      modules: pipelineModules(p.yaml),
      store_type: "INLINE",
      valid: true,
    }));
    return v1Page(c, items);
  });

  app.get(`${PROJECT}/pipelines/:pipeline`, (c) => {
    const { org, project } = scopeOf(c);
    const id = c.req.param("pipeline");
    authorize(c, { org, project }, "core_pipeline_view", "pipeline", id);
    const stored = pipelineOr404(org, project, id);
    const applied =
      c.req.query("template_applied") === "true"
        ? templateAppliedYaml(store, stored.yaml, { org, project })
        : undefined;
    return c.json(pipelineJson(stored, applied), 200);
  });

  app.put(`${PROJECT}/pipelines/:pipeline`, async (c) => {
    const { org, project, b, facts } = await pipelineSave(c, "update");
    const existing = pipelineOr404(org, project, c.req.param("pipeline"));
    store.platform.replacePipeline(existing, {
      name: facts.name,
      description: facts.description,
      tags: facts.tags,
      yaml: b.pipeline_yaml,
    });
    await store.commit();
    return c.json({ identifier: existing.identifier }, 200);
  });

  app.delete(`${PROJECT}/pipelines/:pipeline`, async (c) => {
    const { org, project } = scopeOf(c);
    const id = c.req.param("pipeline");
    authorize(c, { org, project }, "core_pipeline_delete", "pipeline", id);
    store.platform.deletePipeline(pipelineOr404(org, project, id));
    await store.commit();
    return c.body(null, 204);
  });

  /** The input set's scope: the path's org and project, the `pipeline` query parameter (required). */
  const inputSetAt = (c: Context<AppEnv>): EntityAt & { pipeline: string } => {
    const { org, project } = scopeOf(c);
    const pipeline = c.req.query("pipeline");
    if (pipeline === undefined || pipeline === "") {
      throw validationFailure([{ path: "pipeline", message: "must not be null" }]);
    }
    return { org, project, parent: pipeline, pipeline };
  };

  const inputSetSave = async (c: Context<AppEnv>) => {
    const at = inputSetAt(c);
    authorize(c, { org: at.org!, project: at.project! }, "core_pipeline_edit", "pipeline", at.pipeline);
    const b = await body(c, V1InputSetBody);
    checkInline(b.git_details, false);
    const path = c.req.param("inputSet") ?? null;
    if (path !== null && path !== b.identifier) {
      throw invalidRequest(`Expected InputSet identifier in YAML to be [${path}], but was [${b.identifier}]`);
    }
    const scope = { org: at.org!, project: at.project!, pipeline: at.pipeline };
    const read = readPipelineChild(INPUT_SET_YAML, b.input_set_yaml, scope, path);
    expectBodyFields("InputSet", section(b.input_set_yaml, "inputSet"), b);
    return read;
  };

  app.post(`${PROJECT}/input-sets`, async (c) => {
    const { at, fields } = await inputSetSave(c);
    const stored = store.entities.create("inputSet", at, fields, inputSetRefusals);
    await store.commit();
    return c.json(inputSetJson(stored), 201);
  });

  app.get(`${PROJECT}/input-sets`, (c) => {
    const at = inputSetAt(c);
    authorize(c, { org: at.org!, project: at.project! }, "core_pipeline_view", "pipeline", at.pipeline);
    return v1Page(c, store.entities.list("inputSet", at).map(inputSetJson));
  });

  app.get(`${PROJECT}/input-sets/:inputSet`, (c) => {
    const at = inputSetAt(c);
    const id = c.req.param("inputSet");
    authorize(c, { org: at.org!, project: at.project! }, "core_pipeline_view", "pipeline", at.pipeline);
    const stored = store.entities.get("inputSet", at, id);
    if (stored === undefined) throw inputSetNotFound(id);
    return c.json(inputSetJson(stored), 200);
  });

  app.put(`${PROJECT}/input-sets/:inputSet`, async (c) => {
    const { at, fields } = await inputSetSave(c);
    const updated = store.entities.replace("inputSet", at, fields, null, inputSetRefusals);
    await store.commit();
    return c.json(inputSetJson(updated), 200);
  });

  app.delete(`${PROJECT}/input-sets/:inputSet`, async (c) => {
    const at = inputSetAt(c);
    authorize(c, { org: at.org!, project: at.project! }, "core_pipeline_edit", "pipeline", at.pipeline);
    store.entities.remove("inputSet", at, c.req.param("inputSet"), null, inputSetRefusals);
    await store.commit();
    return c.body(null, 204);
  });

  return app;
}
