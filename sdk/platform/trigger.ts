/**
 * Triggers of a pipeline: `POST|GET /pipeline/api/triggers`, `PUT|GET|DELETE
 * /pipeline/api/triggers/{identifier}`, with `orgIdentifier`, `projectIdentifier` and
 * `targetIdentifier` (the pipeline) (Go SDK `harness/nextgen/api_triggers.go`: CreateTrigger with a
 * YAML body, UpdateTrigger and DeleteTrigger with `If-Match`, GetTrigger, GetListForTarget with
 * `page`/`size`). The YAML is `trigger: {..., pipelineIdentifier, source: {type: Webhook|Scheduled,
 * spec}}`; its scope and pipeline are the query's.
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
import { TriggerData, TriggerSummary, TriggerYaml } from "./schemas";

/** The triggers of a pipeline. */
export type TriggersApi = EntityApi<PipelineChildScope, EntityYaml, TriggerData, TriggerSummary>;

/** The triggers namespace of a client. */
export const triggersApi = (ctx: EntityCtx): TriggersApi =>
  new EntityApi(
    ctx,
    pipelineChildKind({
      route: ["trigger", "/pipeline/api/triggers", "targetIdentifier"],
      schemas: [TriggerYaml, TriggerData, TriggerSummary],
      paging: ["page", "size"],
      identity: ({ trigger: t }) => ({ ...t, pipeline: t.pipelineIdentifier }),
    }),
  );

/** Triggers of pipelines. */
export const part = platformPart("triggers", triggersApi);
