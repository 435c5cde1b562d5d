/**
 * `LargeSegment`: a large segment at workspace level (name, traffic type, description) and the
 * environments it is active in (ref admin §9.2 `harness_fme_large_segment` and its environment
 * association; paths of splitapiclient 3.5.9, `../sdk/admin/large-segment.ts`). Its members, a
 * file of up to millions of keys, arrive through a change request (`UPLOAD`), which this resource
 * does not manage.
 *
 * | verb | API call |
 * |---|---|
 * | check | none: the zod schema below |
 * | diff | none: `name`, `workspace`, `trafficType` replace (delete first: names are unique); `environments` update in place, as a set of environments (by name or id: the state records both); a new `description` alone is refused (below) |
 * | create | workspace, traffic type and environment lists (once per process); `POST /large-segments/ws/{ws}/trafficTypes/{tt}` `{name, description}`; then `POST /large-segments/{env}/{name}` per environment. With `adopt` (or a lost create answer), the live activations are read and only the difference is sent |
 * | read | `GET /large-segments/ws/{ws}` (the segment: the API has no GET of one), then the environment list and `GET /large-segments/ws/{ws}/environments/{env}` per environment; a segment missing from the list reports it gone |
 * | update | `POST /large-segments/{env}/{name}` for each environment added, `DELETE` of the same path for each one removed; nothing else |
 * | delete | `DELETE /large-segments/ws/{ws}/{name}` (it leaves every environment with it); a 404 counts as done |
 *
 * **The update guard, per environment.** Being active in an environment is a field of two values,
 * and the update writes only the environments the preview showed as changing: for each, the live
 * value is the recorded or the desired one, so the rule of `../core/guard.ts` can never refuse.
 * The update therefore activates and deactivates without reading first; an activation that is
 * already there (409) and a deactivation of one already gone (404: the segment is read then, and
 * a segment deleted outside Pulumi fails the update) count as done. Environments it
 * did not touch keep their live state (the next refresh shows a colleague's).
 *
 * The API has no update of a large segment's description, and replacing the segment would delete
 * its uploaded members in every environment, which no flagstack resource records: a silent loss.
 * So a description change on its own fails the preview naming `description`, before any request,
 * as for `Segment`; a deliberate replacement is `pulumi up --replace`. Tags: the service answers
 * `tags: null` and its tag route takes only `Split` and `Segment` objects (ref admin §1.1), so a
 * large segment has none here.
 * The resource id is the natural key `<workspace id>/<name>`.
 * @module
 */
import { z } from "zod";
import type { AdminClient } from "../../sdk/admin/client";
import type { LargeSegment as LargeSegmentResponse } from "../../sdk/admin/large-segment";
import { type Environment, SegmentCreateBody, type Workspace } from "../../sdk/admin/schemas";
import { ConflictError, isNotFound } from "../../sdk/core/errors";
import { adminClient } from "../core/config";
import type { DiffSpec, FieldRule } from "../core/diff";
import { GoneSinceRecordedError } from "../core/guard";
import { defineKind, type ImportId } from "../core/kind";
import { createOrAdopt, deleteIdempotent, GONE, PartialFailure, readOrGone } from "../core/lifecycle";
import { resolveEnvironment, resolveTrafficType, resolveWorkspace } from "../core/resolve";
import { dataVerbs, plain, type ResourceArgs, type ResourceHandlers, resourceClass } from "../core/resource";
import { asSet, importParts, trafficTypeRule, workspaceRule } from "../core/workspace-fields";
import { LARGE_SEGMENT_TYPE } from "../types";

/** The inputs of a {@link LargeSegment}. */
export const LargeSegmentInputs = z.strictObject({
  /** The workspace (project) of the segment, by name or id. Changing it replaces the segment. */
  workspace: z.string().min(1, "workspace must not be empty"),
  /** The traffic type of its keys, by name (or id). Default `user`. Changing it replaces the segment. */
  trafficType: z.string().min(1, "trafficType must not be empty").default("user"),
  /** The large segment's name, unique in the workspace. Changing it replaces the segment. */
  name: SegmentCreateBody.shape.name,
  /** What the segment is for. Default: empty. The API cannot change it: a new one alone is refused at preview. */
  description: z.string().max(1024, "description must be at most 1024 characters").default(""),
  /** The environments it is active in, by name or id, a set. Default: none. */
  environments: z.array(z.string().min(1, "an environment must not be empty")).default([]).transform(asSet),
  /** Take over an existing large segment with the same name instead of failing. Default: false. */
  adopt: z.boolean().default(false),
});

/** An environment the segment is active in, as recorded: its id and name. */
const ActiveIn = z.object({ id: z.string(), name: z.string() });

/** The outputs of a {@link LargeSegment}: the inputs (with the service's values) plus ids and time. */
export const LargeSegmentOutputs = LargeSegmentInputs.extend({
  /** Creation time, epoch milliseconds. */
  creationTime: z.number().int(),
  /** The workspace's id. */
  workspaceId: z.string(),
  /** The workspace's name. */
  workspaceName: z.string(),
  /** The traffic type's id. */
  trafficTypeId: z.string(),
  /** The environments it is active in, by id (sorted) with their names. */
  activeIn: z.array(ActiveIn),
});

/** Checked inputs of a large segment. */
export type LargeSegmentInputs = z.output<typeof LargeSegmentInputs>;
/** Outputs of a large segment. */
export type LargeSegmentOutputs = z.output<typeof LargeSegmentOutputs>;
/** The arguments of `new LargeSegment(...)`. */
export type LargeSegmentArgs = ResourceArgs<z.input<typeof LargeSegmentInputs>>;

/** Inputs whose change replaces a large segment: its natural key. */
export const largeSegmentReplaceOnChange = [
  "name",
  "workspace",
  "trafficType",
] as const satisfies readonly (keyof LargeSegmentInputs)[];

type ActiveIn = z.output<typeof ActiveIn>;

/** The recorded environment a name-or-id denotes, or `undefined`. */
const recordedEnv = (activeIn: readonly ActiveIn[], ref: string) =>
  activeIn.find((e) => e.id === ref) ?? activeIn.find((e) => e.name === ref);

/**
 * `environments`: the same set of environments, each given by name or id (the state records both
 * in `activeIn`): every desired one is a distinct recorded environment, and there are as many.
 * @internal
 */
export const environmentSetRule: FieldRule = {
  equals: (o, n, olds) => {
    const desired = asSet(n as string[] | undefined);
    if (JSON.stringify(asSet(o as string[] | undefined)) === JSON.stringify(desired)) return true;
    const activeIn = (olds.activeIn ?? []) as ActiveIn[];
    const ids = new Set(desired.map((ref) => recordedEnv(activeIn, ref)?.id));
    return !ids.has(undefined) && ids.size === desired.length && ids.size === activeIn.length;
  },
};

const largeSegmentDiff: DiffSpec<Exclude<keyof LargeSegmentInputs, "adopt">> = {
  fields: ["name", "workspace", "trafficType", "description", "environments"],
  replaceOnChange: largeSegmentReplaceOnChange,
  deleteBeforeReplace: true,
  rules: {
    workspace: workspaceRule,
    trafficType: trafficTypeRule,
    description: { normalize: (v) => v ?? "" },
    environments: environmentSetRule,
  },
};

/** The environments in the recorded form: by id, with names. */
const byId = (envs: readonly { id: string; name: string }[]): ActiveIn[] =>
  [...new Map(envs.map((e) => [e.id, { id: e.id, name: e.name }])).values()].sort((a, b) =>
    a.id < b.id ? -1 : a.id > b.id ? 1 : 0,
  );

/** The `environments` a program would write for these live ones: the recorded spelling where there is one, else the name. */
const envRefs = (live: readonly ActiveIn[], recorded: readonly string[]) =>
  asSet(
    live.map((e) => recorded.find((ref) => ref === e.id) ?? recorded.find((ref) => ref === e.name) ?? e.name),
  );

function outputs(
  segment: LargeSegmentResponse,
  workspace: { id: string; name: string },
  inputs: Pick<LargeSegmentInputs, "workspace" | "adopt" | "environments">,
  activeIn: readonly ActiveIn[],
): LargeSegmentOutputs {
  return plain({
    workspace: inputs.workspace,
    trafficType: segment.trafficType.name,
    name: segment.name,
    description: segment.description,
    environments: envRefs(activeIn, inputs.environments),
    adopt: inputs.adopt,
    creationTime: segment.creationTime,
    workspaceId: workspace.id,
    workspaceName: workspace.name,
    trafficTypeId: segment.trafficType.id,
    activeIn: byId(activeIn),
  });
}

/** The large segment of that name, or `undefined` when the workspace has none. */
const liveSegment = (wsId: string, name: string) =>
  readOrGone(() => adminClient().largeSegments.get(wsId, name));

/** The environments of the workspace the segment is active in (one list per environment). */
async function liveActiveIn(admin: AdminClient, wsId: string, name: string): Promise<ActiveIn[]> {
  const active: ActiveIn[] = [];
  for (const env of await admin.environments.list(wsId)) {
    if (await admin.largeSegments.activation(wsId, env.id, name)) active.push({ id: env.id, name: env.name });
  }
  return byId(active);
}

/** The desired environments, resolved (by name or id) in the workspace. */
async function desiredEnvs(admin: AdminClient, workspace: Workspace, refs: readonly string[]) {
  const envs: Environment[] = [];
  for (const ref of refs) envs.push(await resolveEnvironment(admin, workspace, ref));
  return byId(envs);
}

/**
 * Takes the segment's activations from `from` to `to`: activations, then deactivations. One
 * already active (409) or already gone (404) counts as done (see the module notes).
 */
async function applyEnvironments(
  admin: AdminClient,
  wsId: string,
  name: string,
  from: readonly ActiveIn[],
  to: readonly ActiveIn[],
): Promise<void> {
  const before = new Set(from.map((e) => e.id));
  const after = new Set(to.map((e) => e.id));
  for (const env of to) {
    if (before.has(env.id)) continue;
    try {
      await admin.largeSegments.activate(env.id, name);
    } catch (e) {
      if (!(e instanceof ConflictError)) throw e;
    }
  }
  for (const env of from) {
    if (after.has(env.id)) continue;
    try {
      await admin.largeSegments.deactivate(env.id, name);
    } catch (e) {
      // Not active there (done), or the segment itself deleted outside Pulumi (the update fails).
      if (!isNotFound(e) || (await liveSegment(wsId, name)) === undefined) throw e;
    }
  }
}

/** The resource id: the natural key, `<workspace id>/<name>`. */
const largeSegmentId = (workspaceId: string, name: string) => `${workspaceId}/${name}`;

/** Why an existing large segment cannot be taken over as declared, or `undefined` when it can. */
function adoptMismatch(found: LargeSegmentResponse, inputs: LargeSegmentInputs, trafficTypeId: string) {
  if (found.trafficType.id !== trafficTypeId)
    return `traffic type "${found.trafficType.name}", not "${inputs.trafficType}"; a large segment's traffic type cannot change`;
  if (found.description !== inputs.description)
    return `description ${JSON.stringify(found.description)}, not ${JSON.stringify(inputs.description)}; the API cannot change a large segment's description, so declare the existing one`;
  return undefined;
}

/** The natural key: the import id's parts, written once for the import, the docs and the schema. */
const IMPORT_ID: ImportId = { form: "<workspace>/<name>", example: "Default/all_customers" };

/**
 * The `read` of `pulumi import` (native provider), which has the id alone and no state: the id is
 * the natural key `<workspace>/<name>` (the workspace by name or id, e.g. `Default/all_customers`).
 */
async function importLargeSegment(
  importId: string,
): ReturnType<ResourceHandlers<LargeSegmentInputs, LargeSegmentOutputs>["read"]> {
  const [wsRef = "", name = ""] = importParts(importId, IMPORT_ID);
  const workspace = await resolveWorkspace(adminClient(), wsRef);
  const props = { workspace: wsRef, adopt: false, environments: [], workspaceId: workspace.id };
  return impl.read(largeSegmentId(workspace.id, name), {
    ...props,
    workspaceName: workspace.name,
    name,
  } as unknown as LargeSegmentOutputs);
}

/**
 * The provider: every lifecycle method. Each resource's `__provider` text
 * ({@link largeSegmentProviderText}) loads this object in the provider process; the tests call it directly.
 */
const verbs = dataVerbs({ schema: LargeSegmentInputs }, largeSegmentDiff);

export const impl: ResourceHandlers<LargeSegmentInputs, LargeSegmentOutputs> = {
  ...verbs,

  async diff(id, olds, news) {
    const result = await verbs.diff(id, olds, news);
    const described = !result.stables?.includes("description");
    if (described && (result.replaces ?? []).length === 0) {
      throw new Error(
        `description: the API cannot change large segment "${String(olds.name)}"'s description (recorded ${JSON.stringify(olds.description ?? "")}, desired ${JSON.stringify(news.description ?? "")}), and replacing the large segment would delete its uploaded members in every environment. Declare the recorded description, or replace it deliberately with \`pulumi up --replace\` (and upload the members again).`,
      );
    }
    return result;
  },

  async create(inputs) {
    const admin = adminClient();
    const workspace = await resolveWorkspace(admin, inputs.workspace);
    const trafficType = await resolveTrafficType(admin, workspace, inputs.trafficType);
    const envs = await desiredEnvs(admin, workspace, inputs.environments);
    const describe = `a large segment named "${inputs.name}" in workspace "${workspace.name}"`;
    const { value: segment, how } = await createOrAdopt({
      describe,
      adopt: inputs.adopt,
      lookup: () => liveSegment(workspace.id, inputs.name),
      create: () =>
        admin.largeSegments.create(workspace.id, trafficType.name, {
          name: inputs.name,
          description: inputs.description,
        }),
    });
    const mismatch = how === "created" ? undefined : adoptMismatch(segment, inputs, trafficType.id);
    if (mismatch !== undefined) throw new Error(`${describe} exists with ${mismatch}`);
    const id = largeSegmentId(workspace.id, segment.name);
    // A segment we just created is active nowhere; one taken over (or whose answer was lost) may be.
    const live = how === "created" ? [] : await liveActiveIn(admin, workspace.id, segment.name);
    try {
      await applyEnvironments(admin, workspace.id, segment.name, live, envs);
    } catch (e) {
      throw new PartialFailure(
        id,
        outputs(segment, workspace, inputs, live),
        e,
        "activating it in its environments",
      );
    }
    return { id, outs: outputs(segment, workspace, inputs, envs) };
  },

  async read(id, props) {
    if (props.workspaceId === undefined) return importLargeSegment(id);
    const admin = adminClient();
    const workspace = { id: props.workspaceId, name: props.workspaceName };
    const segment = await liveSegment(workspace.id, props.name);
    if (!segment) return GONE;
    const activeIn = await liveActiveIn(admin, workspace.id, segment.name);
    const outs = outputs(segment, workspace, { ...props, environments: props.environments ?? [] }, activeIn);
    const inputs = plain({
      workspace: props.workspace,
      trafficType: props.trafficTypeId === segment.trafficType.id ? props.trafficType : outs.trafficType,
      name: outs.name,
      description: outs.description,
      environments: outs.environments,
      adopt: props.adopt,
    });
    return { id: largeSegmentId(workspace.id, segment.name), props: outs, inputs };
  },

  async update(_id, olds, news) {
    const admin = adminClient();
    const workspace = await resolveWorkspace(admin, olds.workspaceId);
    const envs = await desiredEnvs(admin, workspace, news.environments);
    try {
      await applyEnvironments(admin, workspace.id, olds.name, olds.activeIn, envs);
    } catch (e) {
      if (isNotFound(e)) {
        throw new GoneSinceRecordedError(`large segment "${olds.name}" in workspace "${olds.workspaceName}"`);
      }
      throw e;
    }
    const outs = plain({
      ...olds,
      workspace: news.workspace,
      trafficType: news.trafficType,
      adopt: news.adopt,
      environments: envRefs(envs, news.environments),
      activeIn: envs,
    });
    return { outs };
  },

  async delete(_id, props) {
    await deleteIdempotent(() => adminClient().largeSegments.delete(props.workspaceId, props.name));
  },

  async lookup(inputs) {
    const admin = adminClient();
    const workspace = await resolveWorkspace(admin, inputs.workspace);
    const segment = await liveSegment(workspace.id, inputs.name);
    return segment && { createdAt: segment.creationTime };
  },
};

/**
 * A large segment: a named set of up to millions of keys of one traffic type, active in the
 * environments listed. Its members are uploaded through a change request.
 *
 * @example
 * ```ts
 * const customers = new LargeSegment("customers", {
 *   workspace: "Default",
 *   name: "all_customers",
 *   description: "Nightly CRM export",
 *   environments: ["Staging", "Production"],
 * });
 * ```
 */
export const LargeSegment = resourceClass(
  "large-segment",
  LARGE_SEGMENT_TYPE,
  LargeSegmentInputs,
  LargeSegmentOutputs,
);
/** A {@link LargeSegment} object: one `Output` per member of {@link LargeSegmentOutputs}. */
export type LargeSegment = InstanceType<typeof LargeSegment>;
/** What the engine stores as each object's `__provider`: a require of {@link impl}, no code, no secret. */
export const largeSegmentProviderText = LargeSegment.providerText;

/** The kind's one definition: what every registry, door, doc and kind-wide test reads (`../core/kind.ts`). */
export const kind = defineKind({
  resource: LargeSegment,
  impl,
  area: "flags",
  replaceOnChange: largeSegmentReplaceOnChange,
  importId: IMPORT_ID,
  doc: {
    what: "a large segment at workspace level and the environments it is active in (members arrive through a change request)",
    replaces: "name, workspace, traffic type",
    updates:
      "environments: one activation or deactivation per environment that changes; a description change alone is refused at preview",
  },
});
