/**
 * Input sets of a pipeline: `POST|GET /pipeline/api/inputSets`, `PUT|GET|DELETE
 * /pipeline/api/inputSets/{identifier}`, with `orgIdentifier`, `projectIdentifier` and
 * `pipelineIdentifier` (Go SDK `harness/nextgen/api_input_sets.go`: PostInputSet with a YAML body,
 * PutInputSet and DeleteInputSet with `If-Match`, GetInputSet, ListInputSet with
 * `pageIndex`/`pageSize`). The YAML is `inputSet: {name, identifier, orgIdentifier,
 * projectIdentifier, pipeline: {identifier, ...}}`; its scope and pipeline are the query's.
 * @module
 */
import {
  EntityApi,
  type EntityCtx,
  type EntityYaml,
  type PipelineChildScope,
  pipelineChildKind,
} from "./entity-api";
import { platformPart } from "./part";
import { InputSetData, InputSetSummary, InputSetYaml } from "./schemas";

/** The input sets of a pipeline. */
export type InputSetsApi = EntityApi<PipelineChildScope, EntityYaml, InputSetData, InputSetSummary>;

/** The input sets namespace of a client. */
export const inputSetsApi = (ctx: EntityCtx): InputSetsApi =>
  new EntityApi(
    ctx,
    pipelineChildKind({
      route: ["input set", "/pipeline/api/inputSets", "pipelineIdentifier"],
      schemas: [InputSetYaml, InputSetData, InputSetSummary],
      paging: ["pageIndex", "pageSize"],
      identity: ({ inputSet: s }) => ({ ...s, pipeline: s.pipeline.identifier }),
    }),
  );

/** Input sets of pipelines. */
export const part = platformPart("inputSets", inputSetsApi);
