/**
 * `RuleBasedSegmentDefinition`: a rule-based segment in one environment: its activation there and
 * its definition: rules (conditions of the same typed matchers as a flag definition's rules, ref
 * admin §3), excluded keys and excluded segments (ref admin §9.2
 * `harness_fme_rule_based_segment_environment_association`; paths of splitapiclient 3.5.9
 * `rule_based_segment_definition_microclient.py`, `../sdk/admin/rule-based-segment.ts`). It is to
 * a `RuleBasedSegment` what a `SegmentKeys` is to a `Segment` and a `FlagDefinition` to a `Flag`.
 *
 * | verb | API call |
 * |---|---|
 * | check | none: the zod schema below (the rules' matchers are the SDK's `Matcher`, a flag definition's) plus the rules of a definition's rules: the field each matcher type needs, patterns, ... (`segmentRuleProblems`, shared with the SDK; the emulator runs the same checks) |
 * | diff | none: `workspace`, `environment` and `segment` replace (delete first: one activation per segment and environment); `rules` (by meaning, as a flag definition's), `excludedKeys` (a set), `excludedSegments` (a set) update in place; `title` and `comment` are the change's note, not compared |
 * | create | workspace and environment lists (once per process); `POST /rule-based-segments/{env}/{segment}` (activation, empty rules); then, unless the definition is empty, `PUT /rule-based-segments/ws/{ws}/{segment}/environments/{env}` `{rules, excludedKeys, excludedSegments, title, comment}`. With `adopt` (or a lost activation answer), the live definition is read and the PUT sent only when it differs |
 * | read | `GET /rule-based-segments/ws/{ws}/environments/{env}` (the API has no GET of one definition); a segment missing from the list (not active there, or no such segment) reports it gone; in a refresh, one walk of the list answers every definition of the environment (`../core/list-reads.ts`), not one walk per definition |
 * | update | the read, compared with the recorded state (`../core/guard.ts`), then ONE `PUT` of the whole definition: the changed fields desired, the others live, with title and comment |
 * | delete | `DELETE /rule-based-segments/{env}/{segment}` (the definition goes with the activation); a 404 counts as done. Given the `RuleBasedSegment` itself as `segment`, the definition is `deletedWith` it and a destroy sends no DELETE for it (the segment's own delete then respects the gates). Where the environment requires approvals (the DELETE of a definition with rules or exclusions refused with 403): an `ARCHIVE` change request with the live definition (an open one found, not submitted again), and the delete fails naming it until it is approved (with `waitForApproval`, waits) (`../core/change-request.ts` `gatedDelete`) |
 * | create, update in an environment that requires approvals | the refused PUT (403), a dry-run `PATCH .../environments/ws/{ws}/{env}?dry_run=true` of no operations (its `changePermissions`, which the list leaves out), `GET /changeRequests?status=REQUESTED&environmentId=` (an open request of this segment with the same definition is reported, not duplicated), `POST /changeRequests/ws/{ws}/environments/{env}` `{ruleBasedSegment: {name, rules, excludedKeys, excludedSegments}, operationType: UPDATE, title, comment, approvers}` (splitapiclient 3.5.9 `rule_based_segment_definition.py` `submit_change_request`); with `waitForApproval`, `GET /changeRequests/{id}` every `pollSeconds`, then the definition read back (`../core/change-request.ts`). A recorded `pendingChangeRequest` is read first: while it is REQUESTED with this change, nothing is written |
 *
 * Activation is no definition write (the service takes it in a gated environment too); the PUT
 * of the rules is. Until its change request is approved, the resource records the live definition
 * and the request in `pendingChangeRequest`, never the requested one: the next `up` shows the
 * difference again.
 *
 * Title and comment (needed by workspaces that require them) come from the `title` and `comment`
 * inputs, else from `flagstack:changeTitle` / `flagstack:changeComment`, else a default naming
 * the stack and the operation, as for `FlagDefinition`.
 * The resource id is the natural key `<environment id>/<segment>`.
 * @module
 */
import { z } from "zod";
import {
  type RuleBasedSegmentDefinition as DefinitionResponse,
  segmentRuleProblems,
} from "../../sdk/admin/rule-based-segment";
import { type ChangeRequest, ExcludedSegment, SegmentCreateBody, SegmentRule } from "../../sdk/admin/schemas";
import { KIND_SEGMENTS_PAGE_MAX } from "../../sdk/admin/segment-kinds";
import {
  changeRequestInputs,
  changeRequestOutputs,
  gatedDelete,
  gatedWrite,
  type RecordedRequest,
  recordedRequest,
  requestNote,
  stillPending,
} from "../core/change-request";
import { adminClient, changeNote } from "../core/config";
import { canonicalField } from "../core/definition-doc";
import { canonicalJson, type DiffSpec } from "../core/diff";
import { guardedUpdate } from "../core/guard";
import { defineKind, type ImportId } from "../core/kind";
import { createOrAdopt, GONE, PartialFailure, readOrGone, resourceHandlers } from "../core/lifecycle";
import { listRead } from "../core/list-reads";
import {
  holdsTargeting,
  type RuleBasedDocField,
  ruleBasedArchive,
  ruleBasedChange,
  ruleBasedDoc,
} from "../core/owned-archive";
import { resolveEnvironment, resolveWorkspace } from "../core/resolve";
import { plain, type ResourceArgs, type ResourceHandlers, resourceClass } from "../core/resource";
import { asSet, environmentRule, importParts, setRule, workspaceRule } from "../core/workspace-fields";
import { RULE_BASED_SEGMENT_DEFINITION_TYPE, RULE_BASED_SEGMENT_TYPE } from "../types";

/** Excluded segments as one canonical list: each `{name, type}` once, sorted by name then type. */
const segmentSet = (list: readonly { name: string; type: string }[] | undefined) =>
  [...new Map((list ?? []).map((s) => [`${s.name}\n${s.type}`, { name: s.name, type: s.type }])).entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([, s]) => s);

/** The inputs of a {@link RuleBasedSegmentDefinition}. */
export const RuleBasedSegmentDefinitionInputs = z.strictObject({
  /** The workspace (project) of the segment, by name or id. Changing it replaces the resource. */
  workspace: z.string().min(1, "workspace must not be empty"),
  /** The environment, by name or id. Changing it replaces the resource. */
  environment: z.string().min(1, "environment must not be empty"),
  /** The rule-based segment's name (a `RuleBasedSegment`'s `name`). Changing it replaces the resource. */
  segment: SegmentCreateBody.shape.name,
  /**
   * The rules, in order: a key is in the segment when one rule's condition matches it. Each
   * condition has the typed matchers of a flag definition's rules (`IN_SEGMENT`, `EQUAL_SET`,
   * `MATCHES_STRING`, ...). Default: none (the segment matches no key).
   */
  rules: z.array(SegmentRule).default([]),
  /** Keys never in the segment, whatever the rules say: a set. Default: none. */
  excludedKeys: z
    .array(
      z
        .string()
        .min(1, "an excluded key must not be empty")
        .max(250, "an excluded key must be at most 250 characters"),
    )
    .default([])
    .transform(asSet),
  /**
   * Segments whose members are never in this one (`{name, type}`): a set. Default: none. `type`
   * is the excluded segment's kind as the service spells it; no public source lists the values
   * (splitapiclient's `rule_based_segment_definition.py` passes the objects through), so it is
   * sent as given.
   */
  excludedSegments: z.array(ExcludedSegment.strict()).default([]).transform(segmentSet),
  /** Title of the change sent to the service. Default: see the module notes. */
  title: z
    .string()
    .min(1, "title must not be empty")
    .max(256, "title must be at most 256 characters")
    .optional(),
  /** Comment of the change sent to the service. */
  comment: z
    .string()
    .min(1, "comment must not be empty")
    .max(4096, "comment must be at most 4096 characters")
    .optional(),
  /** Take over a segment already active in the environment instead of failing. Default: false. */
  adopt: z.boolean().default(false),
  ...changeRequestInputs,
});

/** The outputs of a {@link RuleBasedSegmentDefinition}: the definition as live, plus ids, names and time. */
export const RuleBasedSegmentDefinitionOutputs = RuleBasedSegmentDefinitionInputs.extend({
  /** The workspace's id. */
  workspaceId: z.string(),
  /** The workspace's name. */
  workspaceName: z.string(),
  /** The environment's id. */
  environmentId: z.string(),
  /** The environment's name. */
  environmentName: z.string(),
  /** The segment's traffic type name. */
  trafficType: z.string(),
  /** When the segment was activated in the environment, epoch milliseconds. */
  creationTime: z.number().int(),
  ...changeRequestOutputs,
});

/** Checked inputs of a rule-based segment's definition. */
export type RuleBasedSegmentDefinitionInputs = z.output<typeof RuleBasedSegmentDefinitionInputs>;
/** Outputs of a rule-based segment's definition. */
export type RuleBasedSegmentDefinitionOutputs = z.output<typeof RuleBasedSegmentDefinitionOutputs>;
/** The arguments of `new RuleBasedSegmentDefinition(...)`. */
export type RuleBasedSegmentDefinitionArgs = ResourceArgs<z.input<typeof RuleBasedSegmentDefinitionInputs>>;

/** Inputs whose change replaces the resource: which segment and environment it belongs to. */
export const ruleBasedSegmentDefinitionReplaceOnChange = [
  "workspace",
  "environment",
  "segment",
] as const satisfies readonly (keyof RuleBasedSegmentDefinitionInputs)[];

/** The fields of the definition itself, as the PUT sends them. */
const DOC_FIELDS = [
  "rules",
  "excludedKeys",
  "excludedSegments",
] as const satisfies readonly RuleBasedDocField[];
type DocField = (typeof DOC_FIELDS)[number];

const definitionDiff: DiffSpec<(typeof ruleBasedSegmentDefinitionReplaceOnChange)[number] | DocField> = {
  fields: [...ruleBasedSegmentDefinitionReplaceOnChange, ...DOC_FIELDS],
  replaceOnChange: ruleBasedSegmentDefinitionReplaceOnChange,
  deleteBeforeReplace: true,
  rules: {
    workspace: workspaceRule,
    environment: environmentRule,
    // By meaning, as a flag definition's rules: empty members dropped, set-like lists sorted.
    rules: { normalize: (v) => canonicalField("rules", v) },
    excludedKeys: setRule,
    excludedSegments: { normalize: (v) => segmentSet(v as { name: string; type: string }[] | undefined) },
  },
};

/** Whole-document rules: the rules of a definition's rules (`segmentRuleProblems`, shared with the SDK). */
const definitionProblems = (inputs: RuleBasedSegmentDefinitionInputs) => segmentRuleProblems(inputs.rules);

/** Where the definition lives, as the outputs record it. */
type Place = Pick<
  RuleBasedSegmentDefinitionOutputs,
  "workspaceId" | "workspaceName" | "environmentId" | "environmentName"
>;

/** True when the two documents mean the same definition (the diff's own rules). */
const sameDoc = (
  a: Pick<RuleBasedSegmentDefinitionInputs, DocField>,
  b: Pick<RuleBasedSegmentDefinitionInputs, DocField>,
) =>
  DOC_FIELDS.every((f) => {
    const normalize = definitionDiff.rules?.[f]?.normalize ?? ((v: unknown) => v);
    return canonicalJson(normalize(a[f])) === canonicalJson(normalize(b[f]));
  });

function outputs(
  def: DefinitionResponse,
  place: Place,
  inputs: Pick<
    RuleBasedSegmentDefinitionInputs,
    | "workspace"
    | "environment"
    | "segment"
    | "title"
    | "comment"
    | "adopt"
    | "changeRequest"
    | "waitForApproval"
  >,
): RuleBasedSegmentDefinitionOutputs {
  return plain({
    workspace: inputs.workspace,
    environment: inputs.environment,
    segment: def.name,
    rules: def.rules,
    excludedKeys: asSet(def.excludedKeys),
    excludedSegments: segmentSet(def.excludedSegments),
    title: inputs.title,
    comment: inputs.comment,
    adopt: inputs.adopt,
    changeRequest: inputs.changeRequest,
    waitForApproval: inputs.waitForApproval,
    workspaceId: place.workspaceId,
    workspaceName: place.workspaceName,
    environmentId: place.environmentId,
    environmentName: def.environment.name,
    trafficType: def.trafficType.name,
    creationTime: def.creationTime,
  });
}

/** The inputs a program would write for these outputs. */
function inputsOf(outs: RuleBasedSegmentDefinitionOutputs): RuleBasedSegmentDefinitionInputs {
  const {
    workspaceId: _w,
    workspaceName: _wn,
    environmentId: _e,
    environmentName: _en,
    trafficType: _t,
    creationTime: _c,
    pendingChangeRequest: _p,
    ...inputs
  } = outs;
  return inputs;
}

/** The resource id: the natural key `<environment id>/<segment>`. */
const definitionId = (environmentId: string, segment: string) => `${environmentId}/${segment}`;

/** The segment's live definition in the environment, or `undefined` when it is not active there. */
const liveDefinition = (wsId: string, envId: string, segment: string) =>
  readOrGone(() => adminClient().ruleBasedSegments.definition(wsId, envId, segment));

/** A read's answer from the live definition (with the recorded request, if still open), or gone. */
async function readResult(props: RuleBasedSegmentDefinitionOutputs, def: DefinitionResponse | undefined) {
  if (def === undefined) return GONE;
  const pending = await stillPending(adminClient(), props.pendingChangeRequest);
  const outs = plain({ ...outputs(def, props, props), pendingChangeRequest: pending });
  return { id: definitionId(props.environmentId, def.name), props: outs, inputs: inputsOf(outs) };
}

/** The change's note: the inputs' title and comment, else the configured or default ones. */
function noteOf(inputs: RuleBasedSegmentDefinitionInputs, operation: string, place: Place) {
  const fallback = changeNote(
    operation,
    `rule-based segment "${inputs.segment}" in environment "${place.environmentName}"`,
  );
  return { title: inputs.title ?? fallback.title, comment: inputs.comment ?? fallback.comment };
}

/** Replaces the definition in the environment with `doc`, with the change's note. */
const putDefinition = (
  place: Place,
  segment: string,
  doc: Pick<RuleBasedSegmentDefinitionInputs, DocField>,
  note: { title: string; comment: string },
) =>
  adminClient().ruleBasedSegments.put(place.workspaceId, segment, place.environmentId, {
    ...ruleBasedDoc(doc),
    ...note,
  });

// The ARCHIVE of a definition is also a `RuleBasedSegment`'s delete's, in the environments that
// require approvals: it lives, with the UPDATE it is a variant of, in `../core/owned-archive.ts`.
/** @internal */
/** @internal */
export { holdsTargeting, ruleBasedArchive };

/**
 * Replaces the definition with `doc` ({@link putDefinition}); where the environment requires
 * approvals (the PUT refused with 403), through a change request instead (`../core/change-request.ts`
 * {@link gatedWrite}): reported pending (the `live` outputs recorded with it), or waited for and
 * read back. `open`, the recorded request still REQUESTED with this change, is reported without a write.
 */
async function writeDefinition(
  place: Place,
  inputs: RuleBasedSegmentDefinitionInputs,
  doc: Pick<RuleBasedSegmentDefinitionInputs, DocField>,
  operation: "create" | "update",
  live: RuleBasedSegmentDefinitionOutputs,
  open?: ChangeRequest,
): Promise<RuleBasedSegmentDefinitionOutputs> {
  const change = () => ruleBasedChange(place, inputs.segment, doc);
  const note = noteOf(inputs, operation, place);
  return gatedWrite({
    admin: adminClient(),
    wsId: place.workspaceId,
    environmentId: place.environmentId,
    change,
    open,
    note: () => requestNote(inputs.changeRequest, note),
    wait: inputs.waitForApproval,
    write: async () => outputs(await putDefinition(place, inputs.segment, doc, note), place, inputs),
    pending: (pending) => {
      const { pendingChangeRequest: _p, ...recordedLive } = live;
      return plain({ ...recordedLive, pendingChangeRequest: pending });
    },
    applied: async () => {
      const applied = await liveDefinition(place.workspaceId, place.environmentId, inputs.segment);
      if (applied === undefined) throw new Error(`${change().describe}: not active there any more`);
      return outputs(applied, place, inputs);
    },
  });
}

/** The natural key: the import id's parts, written once for the import, the docs and the schema. */
const IMPORT_ID: ImportId = {
  form: "<workspace>/<environment>/<segment>",
  example: "Default/Production/pro_users",
};

/**
 * The `read` of `pulumi import` (native provider), which has the id alone and no state: the id is
 * the natural key `<workspace>/<environment>/<segment>` (each by name or id, e.g.
 * `Default/Production/pro_users`).
 */
async function importDefinition(
  importId: string,
): ReturnType<ResourceHandlers<RuleBasedSegmentDefinitionInputs, RuleBasedSegmentDefinitionOutputs>["read"]> {
  const [wsRef = "", envRef = "", segment = ""] = importParts(importId, IMPORT_ID);
  const admin = adminClient();
  const workspace = await resolveWorkspace(admin, wsRef);
  const env = await resolveEnvironment(admin, workspace, envRef);
  const props = {
    workspace: wsRef,
    environment: envRef,
    segment,
    adopt: false,
    workspaceId: workspace.id,
    workspaceName: workspace.name,
    environmentId: env.id,
    environmentName: env.name,
  };
  return impl.read(definitionId(env.id, segment), props as RuleBasedSegmentDefinitionOutputs);
}

/**
 * The provider: every lifecycle method. Each resource's `__provider` text
 * ({@link ruleBasedSegmentDefinitionProviderText}) loads this object in the provider process; the tests call it directly.
 */
export const impl: ResourceHandlers<RuleBasedSegmentDefinitionInputs, RuleBasedSegmentDefinitionOutputs> =
  resourceHandlers(
    { schema: RuleBasedSegmentDefinitionInputs, validate: definitionProblems },
    definitionDiff,
    {
      async create(inputs) {
        const admin = adminClient();
        const workspace = await resolveWorkspace(admin, inputs.workspace);
        const env = await resolveEnvironment(admin, workspace, inputs.environment);
        const { value: live } = await createOrAdopt({
          describe: `rule-based segment "${inputs.segment}" active in environment "${env.name}" of workspace "${workspace.name}"`,
          adopt: inputs.adopt,
          lookup: () => admin.ruleBasedSegments.definition(workspace.id, env.id, inputs.segment),
          create: () => admin.ruleBasedSegments.activate(env.id, inputs.segment),
        });
        const place: Place = {
          workspaceId: workspace.id,
          workspaceName: workspace.name,
          environmentId: env.id,
          environmentName: env.name,
        };
        const id = definitionId(env.id, inputs.segment);
        // A segment just activated has an empty definition; one taken over (or whose answer was lost) may not.
        const liveOuts = outputs(live, place, inputs);
        if (sameDoc(liveOuts, inputs)) return { id, outs: liveOuts };
        try {
          return { id, outs: await writeDefinition(place, inputs, inputs, "create", liveOuts) };
        } catch (e) {
          throw new PartialFailure(id, outputs(live, place, inputs), e, "putting the definition");
        }
      },

      async read(id, props) {
        if (props.environmentId === undefined) return importDefinition(id);
        const admin = adminClient();
        const { workspaceId: wsId, environmentId: envId, segment } = props;
        return readResult(
          props,
          await listRead({
            client: admin,
            scope: `rule-based segment definitions of environment ${envId} in workspace ${wsId}`,
            key: segment,
            list: () => admin.ruleBasedSegments.definitions(wsId, envId),
            pageSize: KIND_SEGMENTS_PAGE_MAX,
            keys: (d) => [d.name],
            single: () => admin.ruleBasedSegments.definition(wsId, envId, segment),
          }),
        );
      },

      async update(_id, olds, news) {
        let request: RecordedRequest = { state: "none" };
        return guardedUpdate({
          describe: `rule-based segment "${olds.segment}" in environment "${olds.environmentName}" of workspace "${olds.workspaceName}"`,
          spec: definitionDiff,
          recorded: olds,
          desired: news,
          // The live definition alone, by a single fresh read (never a shared list,
          // `../core/list-reads.ts`); the recorded request is read once, next.
          read: async () =>
            readResult(
              { ...olds, pendingChangeRequest: undefined },
              await liveDefinition(olds.workspaceId, olds.environmentId, olds.segment),
            ),
          // Once the recorded request was applied, the live definition is its outcome: the base.
          rebase: async () => {
            request = await recordedRequest(
              adminClient(),
              olds.pendingChangeRequest,
              `the definition of rule-based segment "${olds.segment}" in environment "${olds.environmentName}"`,
            );
            return request.state === "applied";
          },
          write: async (fields, live) => {
            // The program-only inputs (note, adopt, ...) are the program's: `resourceHandlers` records them.
            const kept = { ...live, workspace: news.workspace, environment: news.environment };
            if (fields.length === 0) return kept;
            // A PUT replaces the whole definition: the changed fields desired, the others as live.
            const pick = <F extends DocField>(f: F) => (fields.includes(f) ? news[f] : live[f]);
            const doc = {
              rules: pick("rules"),
              excludedKeys: pick("excludedKeys"),
              excludedSegments: pick("excludedSegments"),
            };
            return writeDefinition(
              olds,
              { ...news, segment: olds.segment },
              doc,
              "update",
              kept,
              request.state === "open" ? request.cr : undefined,
            );
          },
        });
      },

      async delete(_id, props) {
        const admin = adminClient();
        // Where approvals are required, through an ARCHIVE request (`../core/change-request.ts` `gatedDelete`).
        await gatedDelete({
          admin,
          wsId: props.workspaceId,
          environmentId: props.environmentId,
          environmentName: props.environmentName,
          remove: () => admin.ruleBasedSegments.deactivate(props.environmentId, props.segment),
          archive: async () => {
            const live = await liveDefinition(props.workspaceId, props.environmentId, props.segment);
            return live && ruleBasedArchive(props, props.segment, live);
          },
          note: () => requestNote(props.changeRequest, noteOf(props, "delete", props)),
          wait: props.waitForApproval,
          stays: "the definition stays, and stays in the state",
        });
      },

      async lookup(inputs) {
        const admin = adminClient();
        const workspace = await resolveWorkspace(admin, inputs.workspace);
        const env = await resolveEnvironment(admin, workspace, inputs.environment);
        const def = await admin.ruleBasedSegments.definition(workspace.id, env.id, inputs.segment);
        return def && { createdAt: def.creationTime };
      },
    },
  );

/**
 * A rule-based segment's definition in one environment: the segment is activated there and
 * matches the keys its rules match, minus the excluded keys and the members of the excluded
 * segments. A change is one PUT of the whole definition.
 *
 * @example
 * ```ts
 * const proInProd = new RuleBasedSegmentDefinition("pro-prod", {
 *   workspace: "Default",
 *   environment: "Production",
 *   segment: pro, // the RuleBasedSegment (or its name): deleted with it, no DELETE of its own
 *   rules: [{ condition: { matchers: [{ type: "EQUAL_SET", attribute: "plan", strings: ["pro"] }] } }],
 *   excludedKeys: ["qa-bot"],
 *   excludedSegments: [{ name: "employees", type: "standard" }],
 *   title: "Pro users",
 *   comment: "managed by Pulumi",
 * });
 * ```
 */
export const RuleBasedSegmentDefinition = resourceClass(
  "rule-based-segment-definition",
  RULE_BASED_SEGMENT_DEFINITION_TYPE,
  RuleBasedSegmentDefinitionInputs,
  RuleBasedSegmentDefinitionOutputs,
  // Deleting a rule-based segment removes its definition from every environment: given the
  // `RuleBasedSegment` itself, its definitions are `deletedWith` it, one DELETE for all.
  { input: "segment", type: RULE_BASED_SEGMENT_TYPE, output: "name" },
);
/** A {@link RuleBasedSegmentDefinition} object: one `Output` per member of {@link RuleBasedSegmentDefinitionOutputs}. */
export type RuleBasedSegmentDefinition = InstanceType<typeof RuleBasedSegmentDefinition>;
/** What the engine stores as each object's `__provider`: a require of {@link impl}, no code, no secret. */
export const ruleBasedSegmentDefinitionProviderText = RuleBasedSegmentDefinition.providerText;

/** The kind's one definition: what every registry, door, doc and kind-wide test reads (`../core/kind.ts`). */
export const kind = defineKind({
  resource: RuleBasedSegmentDefinition,
  impl,
  area: "flags",
  replaceOnChange: ruleBasedSegmentDefinitionReplaceOnChange,
  importId: IMPORT_ID,
  doc: {
    what: "a rule-based segment's activation and definition in one environment: rules (the typed matchers of definitions), excluded keys and segments",
    replaces: "workspace, environment, segment",
    updates: "rules, excluded keys, excluded segments (one guarded PUT of the whole definition)",
  },
  example: {
    inputs: {
      workspace: "Default",
      environment: "Staging",
      segment: "pro-accounts",
      rules: [
        {
          condition: {
            combiner: "AND",
            matchers: [{ type: "EQUAL_SET", attribute: "plan", strings: ["pro"] }],
          },
        },
      ],
      excludedKeys: ["qa-bot"],
      title: "Pro accounts",
      comment: "CHG-1236",
    },
    refs: { segment: { kind: "RuleBasedSegment", output: "name" } },
  },
});
