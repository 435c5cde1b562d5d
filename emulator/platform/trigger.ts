/**
 * Triggers of a pipeline: `POST|GET /pipeline/api/triggers`, `PUT|GET|DELETE
 * /pipeline/api/triggers/{id}` with `orgIdentifier`, `projectIdentifier` and `targetIdentifier`
 * (the pipeline) (Go SDK `harness/nextgen/api_triggers.go`: CreateTrigger with a YAML body,
 * UpdateTrigger and DeleteTrigger with `If-Match`, GetTrigger, GetListForTarget with
 * `page`/`size`; the Terraform provider sends `if_match` through, `resource_triggers.go`). The
 * YAML is `trigger: {..., pipelineIdentifier, source: {type: Webhook|Scheduled, spec}, inputYaml}`
 * (Terraform provider `resource_triggers_test.go` for a webhook; the cron form `{type: Cron, spec:
 * {expression}}` is inferred from the product's documented scheduled trigger); the response is the
 * SDK's `NgTriggerResponse` (with `version`). A missing trigger: 404 (the Terraform provider's
 * read drops it on 404; before, issue #399, it read "Trigger X does not exist"). Rules shared with
 * input sets: `pipeline-children.ts`.
 * @module
 */
import { TriggerYaml } from "../../sdk/platform/schemas";
import type { Store } from "../store";
import { type EntitySpec, entityPart } from "./entity-routes";
import { entityNotFound } from "./errors";
import { PIPELINE_CHILD_ROW, pipelineChildRefusals, pipelineChildWriter } from "./pipeline-children";

const missing = (id: string) => `Trigger ${id} does not exist`;

/** The trigger table row. */
export const triggerSpec = (_store: Store): EntitySpec => ({
  ...PIPELINE_CHILD_ROW,
  kind: "trigger",
  parentParam: "targetIdentifier",
  paging: { index: "page", size: "size", defaultSize: 100 },
  writers: [
    pipelineChildWriter({
      label: "Trigger",
      parentParam: "targetIdentifier",
      schema: TriggerYaml,
      entity: (doc) => doc.trigger,
      pipelineOf: (y) => y.pipelineIdentifier,
      fields: (y, text) => ({ type: y.source.type, enabled: y.enabled ?? true, yaml: text }),
    }),
  ],
  refusals: pipelineChildRefusals("Trigger", missing),
  notFound: (id) => entityNotFound(missing(id)),
  render: (e, accountId) => ({
    name: e.name,
    identifier: e.identifier,
    description: e.description,
    type: e.fields.type,
    accountIdentifier: accountId,
    orgIdentifier: e.at.org,
    projectIdentifier: e.at.project,
    targetIdentifier: e.at.parent,
    yaml: e.fields.yaml,
    version: e.version,
    enabled: e.fields.enabled,
  }),
  listItem: (e) => ({
    name: e.name,
    identifier: e.identifier,
    description: e.description,
    type: e.fields.type,
    tags: e.tags,
    yaml: e.fields.yaml,
    enabled: e.fields.enabled,
  }),
});

/** The trigger part: its store kind, base path and table row. */
export const part = entityPart({
  kind: "trigger",
  parent: "pipeline",
  path: "/pipeline/api/triggers",
  spec: triggerSpec,
});
