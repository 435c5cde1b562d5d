/**
 * `RuleBasedSegment`: a rule-based segment at workspace level: name, traffic type, description
 * (ref admin §9.2 `harness_fme_rule_based_segment`; paths of splitapiclient 3.5.9,
 * `../sdk/admin/rule-based-segment.ts`). Its rules, per environment, are a
 * {@link "./rule-based-segment-definition" | RuleBasedSegmentDefinition}, as a segment's members
 * are a `SegmentKeys` and a flag's targeting a `FlagDefinition`.
 *
 * | verb | API call |
 * |---|---|
 * | check | none: the zod schema below |
 * | diff | none: `name`, `workspace`, `trafficType` replace (delete first: names are unique); a new `description` alone is refused (below); nothing updates in place |
 * | create | workspace and traffic type lists (once per process); `POST /rule-based-segments/ws/{ws}/trafficTypes/{tt}` `{name, description}` |
 * | read | `GET /rule-based-segments/ws/{ws}?offset&limit` (the API has no GET of one); a segment missing from the list reports it gone; in a refresh, one walk of the list answers every rule-based segment of the workspace (`../core/list-reads.ts`), not one walk per segment |
 * | update | nothing to send: only `adopt` and the spelling of `workspace` / `trafficType` can change without a replacement |
 * | delete | `DELETE /rule-based-segments/ws/{ws}/{name}` (its definitions in every environment go with it); a 404 counts as done. First, in each environment that requires approvals (`../core/change-request.ts` `ownerDeleteGate`: the environment list and a dry-run read of each one's change permissions, once per process), a definition holding rules or exclusions there is taken out through an ARCHIVE change request, and the delete fails, naming each request, until every one is approved |
 *
 * The API has no update of a rule-based segment's description. Replacing the segment for it would
 * delete its definition in every environment while each `RuleBasedSegmentDefinition` of it (same
 * segment name, so no diff) kept recording it: a silent loss. So a description change on its own
 * fails the preview naming `description`, before any request, as for `Segment`. Tags: the service
 * answers `tags: null` and its tag route takes only `Split` and `Segment` objects (ref admin
 * §1.1), so a rule-based segment has none here.
 * The resource id is the natural key `<workspace id>/<name>`.
 * @module
 */
import { z } from "zod";
import type { RuleBasedSegment as RuleBasedSegmentResponse } from "../../sdk/admin/rule-based-segment";
import { SegmentCreateBody } from "../../sdk/admin/schemas";
import { KIND_SEGMENTS_PAGE_MAX } from "../../sdk/admin/segment-kinds";
import { ownerDeleteGate, requestNote } from "../core/change-request";
import { adminClient, changeNote } from "../core/config";
import type { DiffSpec } from "../core/diff";
import { door } from "../core/door";
import { defineKind, type ImportId } from "../core/kind";
import { createOrAdopt, deleteIdempotent, GONE, readOrGone } from "../core/lifecycle";
import { listRead } from "../core/list-reads";
import { holdsTargeting, ruleBasedArchive } from "../core/owned-archive";
import { resolveTrafficType, resolveWorkspace } from "../core/resolve";
import { dataVerbs, plain, type ResourceArgs, type ResourceHandlers, resourceClass } from "../core/resource";
import { importParts, trafficTypeRule, workspaceRule } from "../core/workspace-fields";
import { RULE_BASED_SEGMENT_TYPE } from "../types";

/** The inputs of a {@link RuleBasedSegment}. */
export const RuleBasedSegmentInputs = z.strictObject({
  /** The workspace (project) of the segment, by name or id. Changing it replaces the segment. */
  workspace: z.string().min(1, "workspace must not be empty"),
  /** The traffic type of its keys, by name (or id). Default `user`. Changing it replaces the segment. */
  trafficType: z.string().min(1, "trafficType must not be empty").default("user"),
  /** The segment's name, unique in the workspace. Changing it replaces the segment. */
  name: SegmentCreateBody.shape.name,
  /** What the segment is for. Default: empty. The API cannot change it: a new one alone is refused at preview. */
  description: z.string().max(1024, "description must be at most 1024 characters").default(""),
  /** Take over an existing rule-based segment with the same name instead of failing. Default: false. */
  adopt: z.boolean().default(false),
});

/** The outputs of a {@link RuleBasedSegment}: the inputs (with the service's values) plus ids and time. */
export const RuleBasedSegmentOutputs = RuleBasedSegmentInputs.extend({
  /** Creation time, epoch milliseconds. */
  creationTime: z.number().int(),
  /** The workspace's id. */
  workspaceId: z.string(),
  /** The workspace's name. */
  workspaceName: z.string(),
  /** The traffic type's id. */
  trafficTypeId: z.string(),
});

/** Checked inputs of a rule-based segment. */
export type RuleBasedSegmentInputs = z.output<typeof RuleBasedSegmentInputs>;
/** Outputs of a rule-based segment. */
export type RuleBasedSegmentOutputs = z.output<typeof RuleBasedSegmentOutputs>;
/** The arguments of `new RuleBasedSegment(...)`. */
export type RuleBasedSegmentArgs = ResourceArgs<z.input<typeof RuleBasedSegmentInputs>>;

/** Inputs whose change replaces a rule-based segment: its natural key. */
export const ruleBasedSegmentReplaceOnChange = [
  "name",
  "workspace",
  "trafficType",
] as const satisfies readonly (keyof RuleBasedSegmentInputs)[];

const ruleBasedSegmentDiff: DiffSpec<Exclude<keyof RuleBasedSegmentInputs, "adopt">> = {
  fields: ["name", "workspace", "trafficType", "description"],
  replaceOnChange: ruleBasedSegmentReplaceOnChange,
  deleteBeforeReplace: true,
  rules: {
    workspace: workspaceRule,
    trafficType: trafficTypeRule,
    description: { normalize: (v) => v ?? "" },
  },
};

function outputs(
  segment: RuleBasedSegmentResponse,
  workspace: { id: string; name: string },
  inputs: Pick<RuleBasedSegmentInputs, "workspace" | "adopt">,
): RuleBasedSegmentOutputs {
  return plain({
    workspace: inputs.workspace,
    trafficType: segment.trafficType.name,
    name: segment.name,
    description: segment.description,
    adopt: inputs.adopt,
    creationTime: segment.creationTime,
    workspaceId: workspace.id,
    workspaceName: workspace.name,
    trafficTypeId: segment.trafficType.id,
  });
}

/** The rule-based segment of that name, or `undefined` when the workspace has none. */
const liveSegment = (wsId: string, name: string) =>
  readOrGone(() => adminClient().ruleBasedSegments.get(wsId, name));

/** The resource id: the natural key, `<workspace id>/<name>`. */
const ruleBasedSegmentId = (workspaceId: string, name: string) => `${workspaceId}/${name}`;

/** Why an existing rule-based segment cannot be taken over as declared, or `undefined` when it can. */
function adoptMismatch(
  found: RuleBasedSegmentResponse,
  inputs: RuleBasedSegmentInputs,
  trafficTypeId: string,
) {
  if (found.trafficType.id !== trafficTypeId)
    return `traffic type "${found.trafficType.name}", not "${inputs.trafficType}"; a rule-based segment's traffic type cannot change`;
  if (found.description !== inputs.description)
    return `description ${JSON.stringify(found.description)}, not ${JSON.stringify(inputs.description)}; the API cannot change a rule-based segment's description, so declare the existing one`;
  return undefined;
}

/** The natural key: the import id's parts, written once for the import, the docs and the schema. */
const IMPORT_ID: ImportId = { form: "<workspace>/<name>", example: "Default/pro_users" };

/**
 * The `read` of `pulumi import` (native provider), which has the id alone and no state: the id is
 * the natural key `<workspace>/<name>` (the workspace by name or id, e.g. `Default/pro_users`).
 */
async function importRuleBasedSegment(
  importId: string,
): ReturnType<ResourceHandlers<RuleBasedSegmentInputs, RuleBasedSegmentOutputs>["read"]> {
  const [wsRef = "", name = ""] = importParts(importId, IMPORT_ID);
  const workspace = await resolveWorkspace(adminClient(), wsRef);
  const props = { workspace: wsRef, adopt: false, workspaceId: workspace.id, workspaceName: workspace.name };
  return impl.read(ruleBasedSegmentId(workspace.id, name), { ...props, name } as RuleBasedSegmentOutputs);
}

/**
 * The provider: every lifecycle method. Each resource's `__provider` text
 * ({@link ruleBasedSegmentProviderText}) loads this object in the provider process; the tests call it directly.
 */
const verbs = dataVerbs({ schema: RuleBasedSegmentInputs }, ruleBasedSegmentDiff);

export const impl: ResourceHandlers<RuleBasedSegmentInputs, RuleBasedSegmentOutputs> = {
  ...verbs,

  async diff(id, olds, news) {
    const result = await verbs.diff(id, olds, news);
    const described = !result.stables?.includes("description");
    if (described && (result.replaces ?? []).length === 0) {
      throw new Error(
        `description: the API cannot change rule-based segment "${String(olds.name)}"'s description (recorded ${JSON.stringify(olds.description ?? "")}, desired ${JSON.stringify(news.description ?? "")}), and replacing the segment would delete its definition in every environment. Declare the recorded description, or replace it deliberately with ${door().replace("the segment and of each of its RuleBasedSegmentDefinitions")} (which puts the rules back).`,
      );
    }
    return result;
  },

  async create(inputs) {
    const admin = adminClient();
    const workspace = await resolveWorkspace(admin, inputs.workspace);
    const trafficType = await resolveTrafficType(admin, workspace, inputs.trafficType);
    const describe = `a rule-based segment named "${inputs.name}" in workspace "${workspace.name}"`;
    const { value: segment, how } = await createOrAdopt({
      describe,
      adopt: inputs.adopt,
      lookup: () => liveSegment(workspace.id, inputs.name),
      create: () =>
        admin.ruleBasedSegments.create(workspace.id, trafficType.name, {
          name: inputs.name,
          description: inputs.description,
        }),
    });
    const mismatch = how === "created" ? undefined : adoptMismatch(segment, inputs, trafficType.id);
    if (mismatch !== undefined) throw new Error(`${describe} exists with ${mismatch}`);
    return { id: ruleBasedSegmentId(workspace.id, segment.name), outs: outputs(segment, workspace, inputs) };
  },

  async read(id, props) {
    if (props.workspaceId === undefined) return importRuleBasedSegment(id);
    const workspace = { id: props.workspaceId, name: props.workspaceName };
    const admin = adminClient();
    const segment = await listRead({
      client: admin,
      scope: `rule-based segments of workspace ${workspace.id}`,
      key: props.name,
      list: () => admin.ruleBasedSegments.list(workspace.id),
      pageSize: KIND_SEGMENTS_PAGE_MAX,
      keys: (s) => [s.name],
      single: () => admin.ruleBasedSegments.get(workspace.id, props.name),
    });
    if (!segment) return GONE;
    const outs = outputs(segment, workspace, props);
    const inputs = plain({
      workspace: props.workspace,
      trafficType: props.trafficTypeId === segment.trafficType.id ? props.trafficType : outs.trafficType,
      name: outs.name,
      description: outs.description,
      adopt: props.adopt,
    });
    return { id: ruleBasedSegmentId(workspace.id, segment.name), props: outs, inputs };
  },

  async update(_id, olds, news) {
    // Every field with a meaning on the service replaces (or is refused at preview): only the
    // spelling of the workspace and traffic type, and `adopt`, reach an update.
    return {
      outs: plain({ ...olds, workspace: news.workspace, trafficType: news.trafficType, adopt: news.adopt }),
    };
  },

  async delete(_id, props) {
    const admin = adminClient();
    // Its definitions go with it (its `RuleBasedSegmentDefinition`s are `deletedWith` it): in an
    // environment that requires approvals, only once an approved ARCHIVE request removed them.
    await ownerDeleteGate({
      admin,
      wsId: props.workspaceId,
      describe: `rule-based segment "${props.name}" in workspace "${props.workspaceName}"`,
      noun: "rule-based segment",
      holds: "definitions",
      archiveIn: async (env) => {
        const live = await admin.ruleBasedSegments.definition(props.workspaceId, env.id, props.name);
        const place = { ...props, environmentId: env.id, environmentName: env.name };
        return live && holdsTargeting(live) ? ruleBasedArchive(place, props.name, live) : undefined;
      },
      note: (s) =>
        requestNote(
          undefined,
          changeNote("delete", `rule-based segment "${props.name}" in environment "${s.environmentName}"`),
        ),
    });
    await deleteIdempotent(() => admin.ruleBasedSegments.delete(props.workspaceId, props.name));
  },

  async lookup(inputs) {
    const admin = adminClient();
    const workspace = await resolveWorkspace(admin, inputs.workspace);
    const segment = await liveSegment(workspace.id, inputs.name);
    return segment && { createdAt: segment.creationTime };
  },
};

/**
 * A rule-based segment: the keys of one traffic type that match its rules. Its rules, excluded
 * keys and excluded segments, per environment, are a
 * {@link "./rule-based-segment-definition" | RuleBasedSegmentDefinition}.
 *
 * @example
 * ```ts
 * const pro = new RuleBasedSegment("pro", {
 *   workspace: "Default",
 *   name: "pro_users",
 *   description: "Users on the pro plan",
 * });
 * ```
 */
export const RuleBasedSegment = resourceClass(
  "rule-based-segment",
  RULE_BASED_SEGMENT_TYPE,
  RuleBasedSegmentInputs,
  RuleBasedSegmentOutputs,
);
/** A {@link RuleBasedSegment} object: one `Output` per member of {@link RuleBasedSegmentOutputs}. */
export type RuleBasedSegment = InstanceType<typeof RuleBasedSegment>;
/** What the engine stores as each object's `__provider`: a require of {@link impl}, no code, no secret. */
export const ruleBasedSegmentProviderText = RuleBasedSegment.providerText;

/** The kind's one definition: what every registry, door, doc and kind-wide test reads (`../core/kind.ts`). */
export const kind = defineKind({
  resource: RuleBasedSegment,
  impl,
  area: "flags",
  replaceOnChange: ruleBasedSegmentReplaceOnChange,
  importId: IMPORT_ID,
  doc: {
    what: "a rule-based segment at workspace level",
    replaces: "name, workspace, traffic type",
    updates: "a description change alone is refused at preview",
  },
  example: {
    inputs: {
      workspace: "Default",
      trafficType: "user",
      name: "pro-accounts",
      description: "Accounts on the pro plan",
    },
    unique: ["name"],
  },
});
