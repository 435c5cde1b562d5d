/**
 * The platform API's route table: `namespace → method → route + schema of the envelope`.
 * Creates are from `../shared/spec/platform-api.md` §4; reads, updates, deletes and lists, which
 * the spec marks "not shown", from `../shared/reference/platform-api-behaviour.md` (ref §N).
 * Every route takes `accountIdentifier` in the query (spec §5.6).
 *
 * Schemas are built once here, never per call.
 * @module
 */
import { route } from "../core/route";
import {
  BooleanData,
  ConnectorData,
  envelope,
  PipelineGetData,
  PipelineSaveData,
  PipelineSummary,
  ProjectData,
  pageOf,
  springPageOf,
} from "./schemas";

const ProjectEnvelope = envelope(ProjectData);
const ConnectorEnvelope = envelope(ConnectorData);
const PipelineSaveEnvelope = envelope(PipelineSaveData);
const BooleanEnvelope = envelope(BooleanData);
/** A DELETE retried after a lost response that finds the object gone has succeeded. */
const gone = { goneOnRetry: { status: "SUCCESS", data: true, metaData: null, correlationId: "" } } as const;

/** Every platform endpoint the SDK calls. */
export const platformEndpoints = {
  projects: {
    create: route("POST /ng/api/projects", ProjectEnvelope),
    /** ref §4 */
    get: route("GET /ng/api/projects/{identifier}", ProjectEnvelope),
    /** ref §4: a full replace, same body as create. */
    update: route("PUT /ng/api/projects/{identifier}", ProjectEnvelope),
    /** ref §4: `{status, data: true}`. */
    delete: route("DELETE /ng/api/projects/{identifier}", BooleanEnvelope, gone),
    /** ref §4, §8 */
    list: route("GET /ng/api/projects", envelope(pageOf(ProjectData))),
  },
  connectors: {
    /** Scope from the body (spec §4 rule 2). */
    create: route("POST /ng/api/connectors", ConnectorEnvelope),
    /** ref §5: scope from the query. */
    get: route("GET /ng/api/connectors/{identifier}", ConnectorEnvelope),
    /** ref §5: no identifier in the path, the body names the connector. */
    update: route("PUT /ng/api/connectors", ConnectorEnvelope),
    delete: route("DELETE /ng/api/connectors/{identifier}", BooleanEnvelope, gone),
    /** ref §5, §8 (the deprecated GET list; pageIndex and pageSize). */
    list: route("GET /ng/api/connectors", envelope(pageOf(ConnectorData))),
  },
  pipelines: {
    /** YAML body, `Content-Type: application/yaml` (spec §4). */
    create: route("POST /pipeline/api/pipelines/v2", PipelineSaveEnvelope, { body: "yaml" }),
    /** ref §6.2 */
    get: route("GET /pipeline/api/pipelines/{identifier}", envelope(PipelineGetData)),
    /** ref §6.2: the YAML's identifier must equal the path's. */
    update: route("PUT /pipeline/api/pipelines/v2/{identifier}", PipelineSaveEnvelope, { body: "yaml" }),
    delete: route("DELETE /pipeline/api/pipelines/{identifier}", BooleanEnvelope, gone),
    /**
     * ref §8: a filter body `{filterType: "PipelineSetup", ...}`, `page` from 0 and `size`; a
     * Spring page of summaries (harness-go-sdk v0.8.24 `nextgen/api_pipelines.go` `GetPipelineList`);
     * a read, so retried like a GET.
     */
    list: route("POST /pipeline/api/pipelines/list", envelope(springPageOf(PipelineSummary)), {
      readOnly: true,
    }),
  },
} as const;
