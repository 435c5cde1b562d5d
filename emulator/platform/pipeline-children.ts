/**
 * What input sets and triggers share: both are YAML documents saved for one pipeline of a
 * project, with `accountIdentifier`, `orgIdentifier`, `projectIdentifier` and the pipeline
 * (`pipelineIdentifier` for an input set, `targetIdentifier` for a trigger) as required query
 * parameters (Go SDK `api_input_sets.go`, `api_triggers.go`). The YAML's org, project and pipeline
 * must be the query's, as a pipeline's must (ref §6.2 injects them as `const`; for these two the
 * wording is inferred), and a `PUT /{id}` must name its own identifier (as the pipeline's
 * "Expected Pipeline identifier in YAML to be [..]", ref §6.2; wording inferred).
 * @module
 */
import type { z } from "zod";
import type { EntityAt, EntityFields, EntityRefusals } from "../store";
import { type EntityWriter, parseYamlEntity, yamlTags } from "./entity-routes";
import { duplicateField, entityNotFound, invalidRequest, optimisticLocking } from "./errors";
import { requireQuery } from "./http";
import { notFoundMessage, readYaml } from "./pipeline";

/** The entity's part of the YAML, as both schemas read it. */
interface ChildYaml {
  name: string;
  identifier: string;
  orgIdentifier?: string | undefined;
  projectIdentifier?: string | undefined;
  description?: string | null | undefined;
  tags?: Record<string, string | null> | null | undefined;
}

/** What the rows of input sets and triggers share: required scope, `PUT /{id}`, `If-Match` read. */
export const PIPELINE_CHILD_ROW = {
  resource: "pipeline",
  scopeRequired: true,
  putById: true,
  ifMatch: true,
} as const;

/**
 * The write of a pipeline's child: `label` words the refusals (`InputSet`, `Trigger`), `entity`
 * picks the entity out of the document, `pipelineOf` the pipeline it names, `fields` what else it
 * stores.
 */
export interface PipelineChildOptions<S extends z.ZodType, Y extends ChildYaml> {
  label: string;
  parentParam: string;
  schema: S;
  entity: (doc: z.output<S>) => Y;
  pipelineOf: (y: Y) => string;
  fields: (y: Y, text: string) => Record<string, unknown>;
}

/**
 * Reads a pipeline child's YAML saved at `org`/`project` for `pipeline` (`id`: the identifier the
 * request names, when it names one): the rules of the module comment, and what is stored. The v0
 * routes (query parameters) and the v1 routes (path and body, `v1.ts`) both save through it.
 */
export function readPipelineChild<S extends z.ZodType, Y extends ChildYaml>(
  opts: PipelineChildOptions<S, Y>,
  text: string,
  scope: { org: string; project: string; pipeline: string },
  id: string | null,
): { at: EntityAt; fields: EntityFields } {
  const y = opts.entity(parseYamlEntity(text, opts.schema));
  const expect = (field: string, want: string, got: string | undefined) => {
    if (got !== want)
      throw invalidRequest(
        `Expected ${opts.label} ${field} in YAML to be [${want}], but was [${got ?? "null"}]`,
      );
  };
  expect("orgIdentifier", scope.org, y.orgIdentifier);
  expect("projectIdentifier", scope.project, y.projectIdentifier);
  expect("pipeline identifier", scope.pipeline, opts.pipelineOf(y));
  if (id !== null) expect("identifier", id, y.identifier);
  return {
    at: { org: scope.org, project: scope.project, parent: scope.pipeline },
    fields: {
      identifier: y.identifier,
      name: y.name,
      description: y.description ?? "",
      tags: yamlTags(y.tags),
      fields: opts.fields(y, text),
    },
  };
}

export function pipelineChildWriter<S extends z.ZodType, Y extends ChildYaml>(
  opts: PipelineChildOptions<S, Y>,
): EntityWriter {
  return {
    path: "",
    read: async (c, pathId) => {
      const q: Record<string, string> = requireQuery(c, [
        "orgIdentifier",
        "projectIdentifier",
        opts.parentParam,
      ]);
      const scope = { org: q.orgIdentifier!, project: q.projectIdentifier!, pipeline: q[opts.parentParam]! };
      return readPipelineChild(opts, await readYaml(c), scope, pathId);
    },
  };
}

/**
 * The refusals of a pipeline's child (inferred wording: the pipeline service's own texts for
 * these are not in the public sources reviewed): a missing one is 404 ENTITY_NOT_FOUND, as the
 * Terraform provider expects (`resourceInputSetRead` and `resourceTriggersRead` drop the resource
 * on `httpResp.StatusCode == 404`); a stale `If-Match` is 400 OPTIMISTIC_LOCKING_EXCEPTION, as
 * for pipelines (ref §2, §6.2); a missing pipeline is the pipeline's own 404 (ref §6.2).
 */
export function pipelineChildRefusals(
  label: string,
  missing: (id: string, at: EntityAt) => string,
): EntityRefusals {
  return {
    duplicate: (id, at) =>
      duplicateField(
        `${label} [${id}] under Project[${at.project}], Organization [${at.org}] for Pipeline [${at.parent}] already exists`,
      ),
    updateMissing: (id, at) => entityNotFound(missing(id, at)),
    deleteMissing: (id, at) => entityNotFound(missing(id, at)),
    stale: () => optimisticLocking(),
    parentMissing: (at) => entityNotFound(notFoundMessage(at.parent ?? "", at.org ?? "", at.project ?? "")),
  };
}
