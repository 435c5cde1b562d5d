/**
 * Input sets of a pipeline: `POST|GET /pipeline/api/inputSets`, `PUT|GET|DELETE
 * /pipeline/api/inputSets/{id}` with `orgIdentifier`, `projectIdentifier` and
 * `pipelineIdentifier` (Go SDK `harness/nextgen/api_input_sets.go`: PostInputSet with a YAML
 * body, PutInputSet and DeleteInputSet with `If-Match`, GetInputSet, ListInputSet with
 * `pageIndex`/`pageSize`). The YAML is `inputSet: {name, identifier, orgIdentifier,
 * projectIdentifier, pipeline: {identifier, ...}}` (Terraform provider `input_set_resource_test.go`);
 * the response is the SDK's `InputSetResponse` (with `version`), the list's items its
 * `InputSetSummaryResponse`. Rules shared with triggers: `pipeline-children.ts`.
 * @module
 */
import { InputSetYaml } from "../../sdk/platform/schemas";
import type { Store } from "../store";
import { type EntitySpec, entityPart } from "./entity-routes";
import { entityNotFound } from "./errors";
import { PIPELINE_CHILD_ROW, pipelineChildRefusals, pipelineChildWriter } from "./pipeline-children";

const missing = (id: string) => `InputSet with the given ID: ${id} does not exist or has been deleted`;

/** How an input set's YAML is read and checked (the v0 routes here, the v1 routes in `v1.ts`). */
export const INPUT_SET_YAML = {
  label: "InputSet",
  parentParam: "pipelineIdentifier",
  schema: InputSetYaml,
  entity: (doc: InputSetYaml) => doc.inputSet,
  pipelineOf: (y: InputSetYaml["inputSet"]) => y.pipeline.identifier,
  fields: (_y: unknown, text: string) => ({ yaml: text }),
};

/** An input set's refusals, shared by the v0 and v1 routes. */
export const inputSetRefusals = pipelineChildRefusals("InputSet", missing);

/** A missing input set: 404 ENTITY_NOT_FOUND. */
export const inputSetNotFound = (id: string) => entityNotFound(missing(id));

/** The input set table row. */
export const inputSetSpec = (_store: Store): EntitySpec => ({
  ...PIPELINE_CHILD_ROW,
  kind: "inputSet",
  parentParam: "pipelineIdentifier",
  paging: { index: "pageIndex", size: "pageSize", defaultSize: 100 },
  writers: [pipelineChildWriter(INPUT_SET_YAML)],
  refusals: inputSetRefusals,
  notFound: inputSetNotFound,
  render: (e, accountId) => ({
    accountId,
    orgIdentifier: e.at.org,
    projectIdentifier: e.at.project,
    pipelineIdentifier: e.at.parent,
    identifier: e.identifier,
    inputSetYaml: e.fields.yaml,
    name: e.name,
    description: e.description,
    tags: e.tags,
    isOutdated: false,
    isErrorResponse: false,
    version: e.version,
  }),
  listItem: (e) => ({
    identifier: e.identifier,
    name: e.name,
    pipelineIdentifier: e.at.parent,
    description: e.description,
    inputSetType: "INPUT_SET",
    tags: e.tags,
    version: e.version,
    createdAt: e.createdAt,
    lastUpdatedAt: e.lastModifiedAt,
    isOutdated: false,
  }),
});

/** The inputSet part: its store kind, base path and table row. */
export const part = entityPart({
  kind: "inputSet",
  parent: "pipeline",
  path: "/pipeline/api/inputSets",
  spec: inputSetSpec,
});
