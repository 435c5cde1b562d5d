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
import { entityNotFound, invalidRequest, mediaNotSupported } from "./errors";
import { checkIfMatch, mediaType, notModified, requireQuery, success } from "./http";
import { type PipelineFacts, parsePipelineYaml, pipelineModules, validatePipeline } from "./pipeline-yaml";

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
    // The project must exist (ref §6.2, harness-core PR #45274); the status and text are inferred.
    if (store.platform.project(org, project) === undefined) {
      throw entityNotFound(`Project with orgIdentifier [${org}] and identifier [${project}] not found`);
    }
    const facts = parseAndValidate(text, org, project);
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
    return success(c, { identifier: stored.identifier, governanceMetadata: { deny: false } }, stored.version);
  });

  app.put("/v2/:identifier", async (c) => {
    const id = c.req.param("identifier");
    const { orgIdentifier: org, projectIdentifier: project } = requireQuery(c, SCOPE_PARAMS);
    authorize(c, { org, project }, "core_pipeline_edit", "pipeline", id);
    const text = await readYaml(c);
    const facts = parseAndValidate(text, org, project);
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
