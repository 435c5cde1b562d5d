/**
 * `Segment`: a segment at workspace level: name, traffic type, description, tags (ref admin §1.1
 * "segments"). Its members live per environment: {@link "./segment-keys"}.
 *
 * | verb | API call |
 * |---|---|
 * | check | none: the zod schema below |
 * | diff | none: `name`, `workspace`, `trafficType` replace (delete first: names are unique); `tags` update in place; a new `description` alone is refused (below) |
 * | create | workspace and traffic type lists (once per process); `POST /segments/ws/{ws}/trafficTypes/{tt}` `{name, description}`; then, when tags are given, `POST /tags/ws/{ws}/object/{name}/objecttype/Segment` with the tag names (tags cannot be set on create, as for flags, ref §1.1) |
 * | read | the workspace's segment list `GET /segments/ws/{ws}?offset&limit=50`, once for every read of the workspace in one engine operation (`../core/list-reads.ts`); a segment missing from it, or a read outside an engine operation, `GET /segments/ws/{ws}/{name}` (ref §9.1); a 404 reports it gone |
 * | update | the read, compared with the recorded state (`../core/guard.ts`), then the tag `POST` with the whole desired set (it replaces the tags) |
 * | delete | `DELETE /segments/ws/{ws}/{name}` (its members in every environment go with it, ref §1.1); a 404 counts as done. First, in each environment that requires approvals (`../core/change-request.ts` `ownerDeleteGate`: the environment list and a dry-run read of each one's change permissions, once per process), its members there (`GET /segments/{env}/{name}/keys`) are removed through an ARCHIVE change request, and the delete fails, naming each request, until every one is approved |
 *
 * The API has no update of a segment's description. Replacing the segment for it would delete its
 * members in every environment while each `SegmentKeys` of it (same segment name, so no diff) kept
 * recording them: a silent loss. So a description change on its own fails the preview naming
 * `description`, before any request; a deliberate replacement is `pulumi up --replace` of the
 * segment and of each of its `SegmentKeys`, which re-uploads the members.
 * A segment has no id on the wire: the resource id is its natural key `<workspace id>/<name>`.
 * @module
 */
import { z } from "zod";
import { SegmentCreateBody } from "../../sdk/admin/schemas";
import { SEGMENTS_PAGE_MAX, type Segment as SegmentResponse } from "../../sdk/admin/segment";
import { ownerDeleteGate, requestNote } from "../core/change-request";
import { adminClient, changeNote } from "../core/config";
import type { DiffSpec } from "../core/diff";
import { door } from "../core/door";
import { guardedUpdate } from "../core/guard";
import { defineKind, type ImportId } from "../core/kind";
import { createOrAdopt, deleteIdempotent, GONE, PartialFailure, readOrGone } from "../core/lifecycle";
import { listRead } from "../core/list-reads";
import { keysArchive } from "../core/owned-archive";
import { resolveTrafficType, resolveWorkspace } from "../core/resolve";
import { dataVerbs, plain, type ResourceArgs, type ResourceHandlers, resourceClass } from "../core/resource";
import {
  asSet,
  importParts,
  setRule,
  TagSet,
  trafficTypeRule,
  workspaceRule,
} from "../core/workspace-fields";
import { SEGMENT_TYPE } from "../types";

/** The inputs of a {@link Segment}. */
export const SegmentInputs = z.strictObject({
  /** The workspace (project) of the segment, by name or id. Changing it replaces the segment. */
  workspace: z.string().min(1, "workspace must not be empty"),
  /** The traffic type of its keys, by name (or id). Default `user`. Changing it replaces the segment. */
  trafficType: z.string().min(1, "trafficType must not be empty").default("user"),
  /** The segment's name, unique in the workspace. Changing it replaces the segment. */
  name: SegmentCreateBody.shape.name,
  /** What the segment is for. Default: empty. The API cannot change it: a new one alone is refused at preview. */
  description: z.string().max(1024, "description must be at most 1024 characters").default(""),
  /** Tags, a set: order and duplicates do not matter. Default: none. */
  tags: TagSet,
  /** Take over an existing segment with the same name instead of failing. Default: false. */
  adopt: z.boolean().default(false),
});

/** The outputs of a {@link Segment}: the inputs (with the service's values) plus ids and time. */
export const SegmentOutputs = SegmentInputs.extend({
  /** Creation time, epoch milliseconds. */
  creationTime: z.number().int(),
  /** The workspace's id. */
  workspaceId: z.string(),
  /** The workspace's name. */
  workspaceName: z.string(),
  /** The traffic type's id. */
  trafficTypeId: z.string(),
});

/** Checked inputs of a segment. */
export type SegmentInputs = z.output<typeof SegmentInputs>;
/** Outputs of a segment. */
export type SegmentOutputs = z.output<typeof SegmentOutputs>;
/** The arguments of `new Segment(...)`. */
export type SegmentArgs = ResourceArgs<z.input<typeof SegmentInputs>>;

/** Inputs whose change replaces a segment: its natural key. */
export const segmentReplaceOnChange = [
  "name",
  "workspace",
  "trafficType",
] as const satisfies readonly (keyof SegmentInputs)[];

const segmentDiff: DiffSpec<Exclude<keyof SegmentInputs, "adopt">> = {
  fields: ["name", "workspace", "trafficType", "description", "tags"],
  replaceOnChange: segmentReplaceOnChange,
  deleteBeforeReplace: true,
  rules: {
    workspace: workspaceRule,
    trafficType: trafficTypeRule,
    description: { normalize: (v) => v ?? "" },
    tags: setRule,
  },
};

/** The workspace as the outputs record it. */
type WorkspaceRef = { id: string; name: string };

function outputs(
  segment: SegmentResponse,
  workspace: WorkspaceRef,
  inputs: Pick<SegmentInputs, "workspace" | "adopt">,
  tags: readonly string[] = segment.tags.map((t) => t.name),
): SegmentOutputs {
  return plain({
    workspace: inputs.workspace,
    trafficType: segment.trafficType.name,
    name: segment.name,
    description: segment.description,
    tags: asSet(tags),
    adopt: inputs.adopt,
    creationTime: segment.creationTime,
    workspaceId: workspace.id,
    workspaceName: workspace.name,
    trafficTypeId: segment.trafficType.id,
  });
}

/** The segment of that name, or `undefined` when the workspace has none (a 404). */
const liveSegment = (wsId: string, name: string) => readOrGone(() => adminClient().segments.get(wsId, name));

/** The resource id: the natural key, `<workspace id>/<name>` (a segment has no id on the wire). */
const segmentId = (workspaceId: string, name: string) => `${workspaceId}/${name}`;

/**
 * The `read` result of a segment as the service shows it (`undefined`: gone), with the recorded
 * inputs the service does not show.
 */
function readResult(props: SegmentOutputs, segment: SegmentResponse | undefined) {
  if (!segment) return GONE;
  const workspace = { id: props.workspaceId, name: props.workspaceName };
  const outs = outputs(segment, workspace, props);
  const inputs = plain({
    workspace: props.workspace,
    trafficType: props.trafficTypeId === segment.trafficType.id ? props.trafficType : outs.trafficType,
    name: outs.name,
    description: outs.description,
    tags: outs.tags,
    adopt: props.adopt,
  });
  return { id: segmentId(workspace.id, segment.name), props: outs, inputs };
}

/** Why an existing segment cannot be taken over as declared, or `undefined` when it can. */
function adoptMismatch(found: SegmentResponse, inputs: SegmentInputs, trafficTypeId: string) {
  if (found.trafficType.id !== trafficTypeId)
    return `traffic type "${found.trafficType.name}", not "${inputs.trafficType}"; a segment's traffic type cannot change`;
  if (found.description !== inputs.description)
    return `description ${JSON.stringify(found.description)}, not ${JSON.stringify(inputs.description)}; the API cannot change a segment's description, so declare the existing one`;
  return undefined;
}

/** The natural key: the import id's parts, written once for the import, the docs and the schema. */
const IMPORT_ID: ImportId = { form: "<workspace>/<name>", example: "Default/beta_testers" };

/**
 * The `read` of `pulumi import` (native provider), which has the id alone and no state: the id is
 * the segment's natural key `<workspace>/<name>` (the workspace by name or id, e.g.
 * `Default/beta_testers`).
 */
async function importSegment(
  importId: string,
): ReturnType<ResourceHandlers<SegmentInputs, SegmentOutputs>["read"]> {
  const [wsRef = "", name = ""] = importParts(importId, IMPORT_ID);
  const workspace = await resolveWorkspace(adminClient(), wsRef);
  const props = { workspace: wsRef, adopt: false, workspaceId: workspace.id, workspaceName: workspace.name };
  // A single read: an import's object is read alone, never through a list.
  return readResult({ ...props, name } as SegmentOutputs, await liveSegment(workspace.id, name));
}

/**
 * The provider: every lifecycle method. Each resource's `__provider` text
 * ({@link segmentProviderText}) loads this object in the provider process; the tests call it directly.
 */
const verbs = dataVerbs({ schema: SegmentInputs }, segmentDiff);

export const impl: ResourceHandlers<SegmentInputs, SegmentOutputs> = {
  ...verbs,

  async diff(id, olds, news) {
    const result = await verbs.diff(id, olds, news);
    const described = !result.stables?.includes("description");
    if (described && (result.replaces ?? []).length === 0) {
      throw new Error(
        `description: the API cannot change segment "${String(olds.name)}"'s description (recorded ${JSON.stringify(olds.description ?? "")}, desired ${JSON.stringify(news.description ?? "")}), and replacing the segment would delete its members in every environment. Declare the recorded description, or replace it deliberately with ${door().replace("the segment and of each of its SegmentKeys")} (which uploads the members again).`,
      );
    }
    return result;
  },

  async create(inputs) {
    const admin = adminClient();
    const workspace = await resolveWorkspace(admin, inputs.workspace);
    const trafficType = await resolveTrafficType(admin, workspace, inputs.trafficType);
    const describe = `a segment named "${inputs.name}" in workspace "${workspace.name}"`;
    const { value: segment, how } = await createOrAdopt({
      describe,
      adopt: inputs.adopt,
      lookup: () => liveSegment(workspace.id, inputs.name),
      create: () =>
        admin.segments.create(workspace.id, trafficType.name, {
          name: inputs.name,
          description: inputs.description,
        }),
    });
    const mismatch = how === "created" ? undefined : adoptMismatch(segment, inputs, trafficType.id);
    if (mismatch !== undefined) throw new Error(`${describe} exists with ${mismatch}`);
    const id = segmentId(workspace.id, segment.name);
    const created = outputs(segment, workspace, inputs);
    if (created.tags.join("\n") === inputs.tags.join("\n")) return { id, outs: created };
    try {
      await admin.segments.setTags(workspace.id, segment.name, inputs.tags);
    } catch (e) {
      throw new PartialFailure(id, created, e, "setting tags");
    }
    return { id, outs: outputs(segment, workspace, inputs, inputs.tags) };
  },

  async read(id, props) {
    if (props.workspaceId === undefined) return importSegment(id);
    const admin = adminClient();
    return readResult(
      props,
      await listRead({
        client: admin,
        scope: `segments of workspace ${props.workspaceId}`,
        key: props.name,
        list: () => admin.segments.list(props.workspaceId),
        pageSize: SEGMENTS_PAGE_MAX,
        keys: (s) => [s.name],
        single: () => admin.segments.get(props.workspaceId, props.name),
      }),
    );
  },

  async update(_id, olds, news) {
    return guardedUpdate({
      describe: `segment "${olds.name}" in workspace "${olds.workspaceName}"`,
      spec: segmentDiff,
      recorded: olds,
      desired: news,
      // A single fresh GET, never a shared list (`../core/list-reads.ts`).
      read: async () => readResult(olds, await liveSegment(olds.workspaceId, olds.name)),
      write: async (fields, live) => {
        const kept = { ...live, adopt: news.adopt, workspace: news.workspace, trafficType: news.trafficType };
        if (!fields.includes("tags")) return kept;
        await adminClient().segments.setTags(olds.workspaceId, olds.name, news.tags);
        return { ...kept, tags: news.tags };
      },
    });
  },

  async delete(_id, props) {
    const admin = adminClient();
    // Its members in every environment go with it (its `SegmentKeys` are `deletedWith` it): in an
    // environment that requires approvals, only once an approved ARCHIVE request removed them.
    await ownerDeleteGate({
      admin,
      wsId: props.workspaceId,
      describe: `segment "${props.name}" in workspace "${props.workspaceName}"`,
      noun: "segment",
      holds: "members",
      archiveIn: async (env) => {
        const keys: string[] = [];
        for await (const key of admin.segmentKeys.list(env.id, props.name)) keys.push(key);
        const place = { ...props, environmentId: env.id, environmentName: env.name };
        return keysArchive(place, props.name, keys);
      },
      note: (s) =>
        requestNote(
          undefined,
          changeNote("remove keys", `segment "${props.name}" in environment "${s.environmentName}"`),
        ),
    });
    await deleteIdempotent(() => admin.segments.delete(props.workspaceId, props.name));
  },

  async lookup(inputs) {
    const admin = adminClient();
    const workspace = await resolveWorkspace(admin, inputs.workspace);
    const segment = await liveSegment(workspace.id, inputs.name);
    return segment && { createdAt: segment.creationTime };
  },
};

/**
 * A segment: a named set of keys of one traffic type, for `IN_SEGMENT` rules and treatment
 * targets. Its members, per environment, are a {@link "./segment-keys" | SegmentKeys}.
 *
 * @example
 * ```ts
 * const beta = new Segment("beta", {
 *   workspace: "Default",
 *   name: "beta_testers",
 *   description: "Opted in to early features",
 *   tags: ["growth"],
 * });
 * ```
 */
export const Segment = resourceClass("segment", SEGMENT_TYPE, SegmentInputs, SegmentOutputs);
/** A {@link Segment} object: one `Output` per member of {@link SegmentOutputs}. */
export type Segment = InstanceType<typeof Segment>;
/** What the engine stores as each object's `__provider`: a require of {@link impl}, no code, no secret. */
export const segmentProviderText = Segment.providerText;

/** The kind's one definition: what every registry, door, doc and kind-wide test reads (`../core/kind.ts`). */
export const kind = defineKind({
  resource: Segment,
  impl,
  area: "flags",
  replaceOnChange: segmentReplaceOnChange,
  importId: IMPORT_ID,
  doc: {
    what: "a segment at workspace level",
    replaces: "name, workspace, traffic type",
    updates:
      "tags (POST of the whole set); a description change alone is refused at preview (the API cannot change it, and a replacement would drop the members)",
  },
  example: {
    inputs: {
      workspace: "Default",
      trafficType: "user",
      name: "beta-testers",
      description: "Early adopters",
    },
    unique: ["name"],
  },
});
