/**
 * Pipelines (v0 API): `POST /pipeline/api/pipelines/v2`, `PUT /pipeline/api/pipelines/v2/{id}`,
 * `GET|DELETE /pipeline/api/pipelines/{id}` (spec §4 for create; ref §6.2 for the rest).
 *
 * The YAML is stored exactly as received and returned verbatim; identifier, name, description and
 * tags are read out of it (ref §6.2). Delete is a hard delete, so an identifier can be used again.
 * @module
 */
import { type Context, Hono } from "hono";
import type { AppEnv } from "../context";
import { authorize } from "../middleware/auth";
import type { Store } from "../store";
import { duplicateField, entityNotFound, invalidRequest, mediaNotSupported } from "./errors";
import { checkIfMatch, mediaType, notModified, requireQuery, success } from "./http";
import { type PipelineFacts, parsePipelineYaml, pipelineModules, validatePipeline } from "./pipeline-yaml";
import { findProject } from "./projects";
import { type PlatformState, pipelineKey, type StoredPipeline } from "./state";

const SCOPE_PARAMS = ["orgIdentifier", "projectIdentifier"] as const;

/**
 * Reads the YAML body. The resource consumes `application/yaml`; a raw YAML body sent as
 * `application/json` is accepted too, as the Go SDK sends it that way (ref §6.2 quirk). Any other
 * media type is a 415.
 */
async function readYaml(c: Context<AppEnv>): Promise<string> {
  const media = mediaType(c);
  if (media !== "application/yaml" && media !== "application/json") throw mediaNotSupported();
  return c.req.text();
}

function notFoundMessage(id: string, org: string, project: string): string {
  return `Pipeline [${id}] under Project[${project}], Organization [${org}] doesn't exist or has been deleted.`;
}

/** The project must exist (ref §6.2, harness-core PR #45274); the status and text are inferred. */
function assureProject(state: PlatformState, org: string, project: string): void {
  if (findProject(state, org, project) === undefined) {
    throw entityNotFound(`Project with orgIdentifier [${org}] and identifier [${project}] not found`);
  }
}

function parseAndValidate(text: string, org: string, project: string): PipelineFacts {
  return validatePipeline(parsePipelineYaml(text), { org, project });
}

/** The pipeline routes, mounted at `/pipeline/api/pipelines`. */
export function pipelineRoutes(store: Store): Hono<AppEnv> {
  const app = new Hono<AppEnv>();

  app.post("/v2", async (c) => {
    const { orgIdentifier: org, projectIdentifier: project } = requireQuery(c, SCOPE_PARAMS);
    authorize(c, { org, project }, "core_pipeline_edit", "pipeline");
    const text = await readYaml(c);
    const state = store.platform;
    assureProject(state, org, project);
    const facts = parseAndValidate(text, org, project);
    const key = pipelineKey(org, project, facts.identifier);
    if (state.pipelines[key] !== undefined) {
      throw duplicateField(
        `Pipeline [${facts.identifier}] under Project[${project}], Organization [${org}] already exists or has been deleted.`,
      );
    }
    const now = Date.now();
    const stored: StoredPipeline = {
      orgIdentifier: org,
      projectIdentifier: project,
      identifier: facts.identifier,
      name: facts.name,
      description: facts.description,
      tags: facts.tags,
      yaml: text,
      createdAt: now,
      lastModifiedAt: now,
      version: 0,
    };
    state.pipelines[key] = stored;
    await store.commit();
    return success(c, { identifier: stored.identifier, governanceMetadata: { deny: false } }, stored.version);
  });

  app.put("/v2/:identifier", async (c) => {
    const id = c.req.param("identifier");
    const { orgIdentifier: org, projectIdentifier: project } = requireQuery(c, SCOPE_PARAMS);
    authorize(c, { org, project }, "core_pipeline_edit", "pipeline", id);
    const text = await readYaml(c);
    const state = store.platform;
    const facts = parseAndValidate(text, org, project);
    // ref §6.2: toPipelineEntityWithVersion.
    if (facts.identifier !== id) {
      throw invalidRequest(
        `Expected Pipeline identifier in YAML to be [${id}], but was [${facts.identifier}]`,
      );
    }
    const key = pipelineKey(org, project, id);
    const existing = state.pipelines[key];
    // Status for updating a missing pipeline: as GET (inferred).
    if (existing === undefined) throw entityNotFound(notFoundMessage(id, org, project));
    checkIfMatch(c, existing.version);
    const updated: StoredPipeline = {
      ...existing,
      name: facts.name,
      description: facts.description,
      tags: facts.tags,
      yaml: text,
      lastModifiedAt: Math.max(Date.now(), existing.lastModifiedAt),
      version: existing.version + 1,
    };
    state.pipelines[key] = updated;
    await store.commit();
    return success(c, { identifier: id, governanceMetadata: { deny: false } }, updated.version);
  });

  app.get("/:identifier", (c) => {
    const id = c.req.param("identifier");
    const { orgIdentifier: org, projectIdentifier: project } = requireQuery(c, SCOPE_PARAMS);
    authorize(c, { org, project }, "core_pipeline_view", "pipeline", id);
    const stored = store.platform.pipelines[pipelineKey(org, project, id)];
    if (stored === undefined) throw entityNotFound(notFoundMessage(id, org, project));
    // ref §6.2: null fields are omitted (`@JsonInclude(NON_NULL)`), so no gitDetails for INLINE.
    const data = {
      yamlPipeline: stored.yaml,
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
    const state = store.platform;
    const key = pipelineKey(org, project, id);
    const existing = state.pipelines[key];
    // ref §6.2 leaves the status of a missing pipeline unverified; 404 as GET (inferred).
    if (existing === undefined) throw entityNotFound(notFoundMessage(id, org, project));
    checkIfMatch(c, existing.version);
    delete state.pipelines[key];
    await store.commit();
    return success(c, true);
  });

  return app;
}
