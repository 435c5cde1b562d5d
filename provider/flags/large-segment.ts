/**
 * `LargeSegment`: a large segment at workspace level (name, traffic type, description) and the
 * environments it is active in (ref admin §9.2 `harness_fme_large_segment` and its environment
 * association; paths of splitapiclient 3.5.9, `../sdk/admin/large-segment.ts`), and, per
 * environment, its members: a file or a list of keys, uploaded through an `UPLOAD` change request
 * whose answer names where the CSV goes (`transactionMetadata.url`), applied when the request is
 * approved (`admin.largeSegments.uploadMembers`).
 *
 * | verb | API call |
 * |---|---|
 * | check | none: the zod schema below; each `members` file is read (at most 100,000 members, one key a line), and each `members` environment must be one of `environments` |
 * | diff | none: `name`, `workspace`, `trafficType` replace (delete first: names are unique); `environments` update in place, as a set of environments (by name or id: the state records both); `members` update in place, compared by each environment's digest of the set (sha256 of the sorted distinct keys): order, repeats and the file's name make no change; a new `description` alone is refused (below) |
 * | create | workspace, traffic type and environment lists (once per process); `POST /large-segments/ws/{ws}/trafficTypes/{tt}` `{name, description}`; then `POST /large-segments/{env}/{name}` per environment; then per `members` entry `POST /changeRequests/ws/{ws}/environments/{env}` `{largeSegment: {name}, operationType: "UPLOAD", title, comment, approvers}` and `PUT` of the CSV to its `transactionMetadata.url`. With `adopt` (or a lost create answer), the live activations are read and only the difference is sent |
 * | read | `GET /large-segments/ws/{ws}` (the segment: the API has no GET of one), then the environment list and `GET /large-segments/ws/{ws}/environments/{env}` per environment; a segment missing from the list reports it gone; `GET /changeRequests/{id}` of each recorded upload still REQUESTED (one rejected or withdrawn is dropped from the record, so the next `up` uploads again) |
 * | update | `POST /large-segments/{env}/{name}` for each environment added, `DELETE` of the same path for each one removed; then one upload (change request and PUT) per environment whose member set changed, none for an unchanged one |
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
 *
 * **Members.** The API shows no large segment's members back, so the state records per environment
 * what was uploaded: the count, the sha256 of the sorted distinct keys and the upload's change
 * request (id and status), never the keys (a `file` input keeps them out of the program's inputs
 * too; a `keys` list is an input as written, as every input is). The diff compares digests: a
 * one-key change uploads the whole set once, an unchanged set uploads nothing. Where the
 * environment requires approvals the request stays REQUESTED and the members apply when someone
 * approves it; while it is open another upload there is refused by the service (409), and a
 * refresh that finds it rejected or withdrawn drops its record, so the next `up` uploads again.
 * An environment left out of `members` is no longer managed: its members stay as they are.
 * The resource id is the natural key `<workspace id>/<name>`.
 * @module
 */
import { createHash } from "node:crypto";
import { statSync } from "node:fs";
import { resolve as resolvePath } from "node:path";
import { z } from "zod";
import type { AdminClient } from "../../sdk/admin/client";
import {
  checkMembers,
  LARGE_SEGMENT_MEMBERS_MAX,
  LargeSegmentMember,
  type LargeSegment as LargeSegmentResponse,
  readMembersFile,
} from "../../sdk/admin/large-segment";
import { type Environment, SegmentCreateBody, type Workspace } from "../../sdk/admin/schemas";
import { ApiError, ConflictError, isNotFound } from "../../sdk/core/errors";
import { ChangeRequestInput } from "../core/change-request";
import { adminClient } from "../core/config";
import type { DiffSpec, FieldRule } from "../core/diff";
import { door } from "../core/door";
import { GoneSinceRecordedError } from "../core/guard";
import { defineKind, type ImportId } from "../core/kind";
import { createOrAdopt, deleteIdempotent, GONE, PartialFailure, readOrGone } from "../core/lifecycle";
import { resolveEnvironment, resolveTrafficType, resolveWorkspace } from "../core/resolve";
import { dataVerbs, plain, type ResourceArgs, type ResourceHandlers, resourceClass } from "../core/resource";
import { asSet, importParts, trafficTypeRule, workspaceRule } from "../core/workspace-fields";
import { LARGE_SEGMENT_TYPE } from "../types";

/** The members of the segment in one environment: a file, or a list of keys. */
const MemberSet = z
  .strictObject({
    /** The environment, by name or id: one of `environments`, spelled the same way. */
    environment: z.string().min(1, "members[].environment must not be empty"),
    /**
     * A file of the members, one key a line (the first CSV field; blank lines and a first line
     * `key` skipped), relative to the program's directory. At most 100,000 distinct members.
     */
    file: z.string().min(1, "members[].file must not be empty").optional(),
    /** The members as a list (order and repeats make no difference). At most 100,000. */
    keys: z
      .array(LargeSegmentMember)
      .max(LARGE_SEGMENT_MEMBERS_MAX, `at most ${LARGE_SEGMENT_MEMBERS_MAX} members`)
      .optional(),
  })
  .refine((m) => (m.file === undefined) !== (m.keys === undefined), {
    message: "give exactly one of file and keys",
  });
type MemberSet = z.output<typeof MemberSet>;

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
  /**
   * Its members in some of those environments, each replaced by an upload (a change request) when
   * its set changes. Default: none managed.
   */
  members: z.array(MemberSet).default([]),
  /** The title, comment and approvers of the members' upload requests (all optional). */
  changeRequest: ChangeRequestInput.optional(),
  /** Take over an existing large segment with the same name instead of failing. Default: false. */
  adopt: z.boolean().default(false),
});

/** The members recorded for one environment: what was uploaded, never the keys. */
const RecordedMembers = z.object({
  /** The environment as the program spells it. */
  environment: z.string(),
  /** Its id. */
  environmentId: z.string(),
  /** The file given, if a file was. */
  file: z.string().optional(),
  /** How many distinct members were uploaded. */
  count: z.number().int(),
  /** sha256 (hex) of the sorted distinct members, one a line. */
  sha256: z.string(),
  /** The upload's change request: `REQUESTED` until approved where approvals are required. */
  changeRequest: z.object({ id: z.string(), status: z.string() }),
});
type RecordedMembers = z.output<typeof RecordedMembers>;

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
  /** Per environment, the members uploaded: count, digest and change request (never the keys). */
  members: z.array(RecordedMembers),
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

const largeSegmentDiff: DiffSpec<Exclude<keyof LargeSegmentInputs, "adopt" | "changeRequest">> = {
  fields: ["name", "workspace", "trafficType", "description", "environments", "members"],
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
  inputs: Pick<LargeSegmentInputs, "workspace" | "adopt" | "environments" | "changeRequest">,
  activeIn: readonly ActiveIn[],
  members: readonly RecordedMembers[],
): LargeSegmentOutputs {
  return plain({
    workspace: inputs.workspace,
    trafficType: segment.trafficType.name,
    name: segment.name,
    description: segment.description,
    environments: envRefs(activeIn, inputs.environments),
    changeRequest: inputs.changeRequest,
    adopt: inputs.adopt,
    creationTime: segment.creationTime,
    workspaceId: workspace.id,
    workspaceName: workspace.name,
    trafficTypeId: segment.trafficType.id,
    activeIn: byId(activeIn),
    members: [...members],
  });
}

/** A file's members as last read, by absolute path: read again only when its size or time changed. */
const filesRead = new Map<string, { mtimeMs: number; size: number; keys: string[] }>();

/**
 * The distinct members of an entry: its `keys` checked, or its `file` (relative to the program's
 * directory, the provider's working directory) read.
 * @throws ValidationError naming `<field>.keys[i]` or `<field>.file`; an fs error for a file that cannot be read.
 */
async function membersOf(m: MemberSet, field: string): Promise<string[]> {
  if (m.keys !== undefined) return checkMembers(m.keys, `${field}.keys`);
  const path = resolvePath(m.file ?? "");
  const { mtimeMs, size } = statSync(path);
  const known = filesRead.get(path);
  if (known && known.mtimeMs === mtimeMs && known.size === size) return known.keys;
  const keys = await readMembersFile(path, `${field}.file`);
  filesRead.set(path, { mtimeMs, size, keys });
  return keys;
}

/** The count and digest of a member set: sha256 of the sorted distinct keys, one a line. */
function digestOf(keys: readonly string[]): { count: number; sha256: string } {
  const h = createHash("sha256");
  for (const k of [...keys].sort()) h.update(`${k}\n`);
  return { count: keys.length, sha256: h.digest("hex") };
}

/** What the diff compares of `members`: per environment (sorted), the digest. */
type MembersView = { environment: string; sha256: string }[];
const sortView = (v: MembersView): MembersView =>
  v.sort((a, b) => (a.environment < b.environment ? -1 : a.environment > b.environment ? 1 : 0));

/** The recorded members as the diff compares them. */
const recordedView = (recorded: unknown): MembersView =>
  sortView(
    ((recorded ?? []) as RecordedMembers[]).map((r) => ({ environment: r.environment, sha256: r.sha256 })),
  );

/** The program's members as the diff compares them (each set read and digested), or as given while unknown. */
async function desiredView(members: unknown): Promise<unknown> {
  if (!Array.isArray(members)) return members ?? [];
  const view: MembersView = [];
  for (const [i, m] of (members as MemberSet[]).entries()) {
    if (typeof m?.environment !== "string" || (m.file === undefined && !Array.isArray(m.keys)))
      return members;
    view.push({ environment: m.environment, sha256: digestOf(await membersOf(m, `members[${i}]`)).sha256 });
  }
  return sortView(view);
}

/** The check of `members` beyond its schema: environments among `environments`, once each; files readable. */
async function membersFailures(inputs: LargeSegmentInputs): Promise<{ property: string; reason: string }[]> {
  const failures: { property: string; reason: string }[] = [];
  if (!Array.isArray(inputs.members)) return failures;
  const envs = Array.isArray(inputs.environments) ? inputs.environments : undefined;
  const seen = new Set<string>();
  for (const [i, m] of inputs.members.entries()) {
    if (typeof m?.environment !== "string") continue;
    if (envs && !envs.includes(m.environment))
      failures.push({
        property: `members[${i}].environment`,
        reason: `"${m.environment}" is not one of environments (spell it as environments does)`,
      });
    if (seen.has(m.environment))
      failures.push({
        property: `members[${i}].environment`,
        reason: `"${m.environment}" has members twice`,
      });
    seen.add(m.environment);
    if (typeof m.file !== "string") continue;
    try {
      await membersOf(m, `members[${i}]`);
    } catch (e) {
      if (ApiError.isInstance(e) && e.fieldErrors.length > 0)
        for (const f of e.fieldErrors) failures.push({ property: f.field, reason: f.message });
      else
        failures.push({
          property: `members[${i}].file`,
          reason: `cannot read ${m.file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
        });
    }
  }
  return failures;
}

/**
 * Uploads each member set whose digest differs from the one recorded for its environment (all of
 * them when nothing is recorded) and returns the new record; `onProgress` gets the record so far
 * before each upload (for a partial failure).
 */
async function uploadMembers(
  admin: AdminClient,
  wsId: string,
  name: string,
  inputs: Pick<LargeSegmentInputs, "members" | "changeRequest">,
  envs: readonly ActiveIn[],
  recorded: readonly RecordedMembers[],
  onProgress: (sofar: RecordedMembers[]) => void,
): Promise<RecordedMembers[]> {
  const out: RecordedMembers[] = [];
  for (const [i, m] of inputs.members.entries()) {
    const env = recordedEnv(envs, m.environment);
    if (!env) throw new Error(`members[${i}].environment: "${m.environment}" is not one of environments`);
    const keys = await membersOf(m, `members[${i}]`);
    const { count, sha256 } = digestOf(keys);
    const before = recorded.find((r) => r.environmentId === env.id);
    const file = m.file !== undefined ? { file: m.file } : {};
    if (before && before.sha256 === sha256) {
      out.push({ ...before, environment: m.environment, ...file, count });
      continue;
    }
    onProgress([
      ...out,
      ...recorded.filter(
        (r) => r.environmentId !== env.id && !out.some((o) => o.environmentId === r.environmentId),
      ),
    ]);
    const note = inputs.changeRequest ?? {};
    let upload: Awaited<ReturnType<AdminClient["largeSegments"]["uploadMembers"]>>;
    try {
      upload = await admin.largeSegments.uploadMembers(wsId, env.id, name, keys, {
        title: note.title ?? `flagstack: ${name} members (${count})`,
        comment: note.comment ?? `sha256 ${sha256}`,
        approvers: note.approvers ?? [],
      });
    } catch (e) {
      if (e instanceof ConflictError || (ApiError.isInstance(e) && e.kind === "conflict"))
        throw new Error(
          `members[${i}] (environment "${env.name}"): a change request of large segment "${name}" is still open there; approve, reject or withdraw it, then run ${door().apply} again (${(e as Error).message})`,
        );
      throw e;
    }
    out.push({
      environment: m.environment,
      environmentId: env.id,
      ...file,
      count,
      sha256,
      changeRequest: { id: upload.changeRequest.id, status: upload.changeRequest.status },
    });
  }
  return out;
}

/**
 * The recorded uploads with each REQUESTED one's status read again: one rejected, withdrawn or
 * gone is dropped (its members were never applied, so the next `up` uploads the set again).
 */
async function refreshUploads(
  admin: AdminClient,
  recorded: readonly RecordedMembers[],
): Promise<RecordedMembers[]> {
  const out: RecordedMembers[] = [];
  for (const r of recorded) {
    if (r.changeRequest.status !== "REQUESTED") {
      out.push(r);
      continue;
    }
    const cr = await admin.changeRequests.get(r.changeRequest.id).catch((e: unknown) => {
      if (isNotFound(e)) return undefined;
      throw e;
    });
    if (cr && (cr.status === "REQUESTED" || cr.status === "APPROVED" || cr.status === "PUBLISHED"))
      out.push({ ...r, changeRequest: { id: r.changeRequest.id, status: cr.status } });
  }
  return out;
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
  const props = { workspace: wsRef, adopt: false, environments: [], members: [], workspaceId: workspace.id };
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

  async check(olds, news) {
    const result = await verbs.check(olds, news);
    if (result.failures?.length || !result.inputs) return result;
    const failures = await membersFailures(result.inputs);
    return failures.length === 0 ? result : { ...result, failures };
  },

  async diff(id, olds, news) {
    // `members` compared by digest: the recorded one, and the program's set read and digested.
    const result = await verbs.diff(
      id,
      { ...olds, members: recordedView(olds.members) },
      { ...news, members: await desiredView(news.members) },
    );
    const described = !result.stables?.includes("description");
    if (described && (result.replaces ?? []).length === 0) {
      throw new Error(
        `description: the API cannot change large segment "${String(olds.name)}"'s description (recorded ${JSON.stringify(olds.description ?? "")}, desired ${JSON.stringify(news.description ?? "")}), and replacing the large segment would delete its uploaded members in every environment. Declare the recorded description, or replace it deliberately with ${door().replace()} (and upload the members again).`,
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
        outputs(segment, workspace, inputs, live, []),
        e,
        "activating it in its environments",
      );
    }
    let sofar: RecordedMembers[] = [];
    let members: RecordedMembers[];
    try {
      members = await uploadMembers(admin, workspace.id, segment.name, inputs, envs, [], (r) => {
        sofar = r;
      });
    } catch (e) {
      throw new PartialFailure(
        id,
        outputs(segment, workspace, inputs, envs, sofar),
        e,
        "uploading its members",
      );
    }
    return { id, outs: outputs(segment, workspace, inputs, envs, members) };
  },

  async read(id, props) {
    if (props.workspaceId === undefined) return importLargeSegment(id);
    const admin = adminClient();
    const workspace = { id: props.workspaceId, name: props.workspaceName };
    const segment = await liveSegment(workspace.id, props.name);
    if (!segment) return GONE;
    const activeIn = await liveActiveIn(admin, workspace.id, segment.name);
    // Members recorded only for environments the segment is still active in (deactivation removes them).
    const active = new Set(activeIn.map((e) => e.id));
    const members = await refreshUploads(
      admin,
      (props.members ?? []).filter((m) => active.has(m.environmentId)),
    );
    const outs = outputs(
      segment,
      workspace,
      { ...props, environments: props.environments ?? [] },
      activeIn,
      members,
    );
    const inputs = plain({
      workspace: props.workspace,
      trafficType: props.trafficTypeId === segment.trafficType.id ? props.trafficType : outs.trafficType,
      name: outs.name,
      description: outs.description,
      environments: outs.environments,
      // What is recorded of each set: the file's name (a list's keys are the program's alone).
      members: members.map((m) => ({
        environment: m.environment,
        ...(m.file !== undefined ? { file: m.file } : {}),
      })),
      changeRequest: props.changeRequest,
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
    // Members recorded for environments left are gone with the activation.
    const stay = new Set(envs.map((e) => e.id));
    const recorded = (olds.members ?? []).filter((m) => stay.has(m.environmentId));
    const members = await uploadMembers(admin, workspace.id, olds.name, news, envs, recorded, () => {});
    const outs = plain({
      ...olds,
      workspace: news.workspace,
      trafficType: news.trafficType,
      adopt: news.adopt,
      changeRequest: news.changeRequest,
      environments: envRefs(envs, news.environments),
      activeIn: envs,
      members,
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
 * A large segment: a named set of keys of one traffic type, active in the environments listed,
 * with its members there (a file or a list, at most 100,000) uploaded through a change request
 * when the set changes.
 *
 * @example
 * ```ts
 * const customers = new LargeSegment("customers", {
 *   workspace: "Default",
 *   name: "all_customers",
 *   description: "Nightly CRM export",
 *   environments: ["Staging", "Production"],
 *   members: [{ environment: "Production", file: "customers.csv" }],
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
    what: "a large segment at workspace level, the environments it is active in, and its members there (a file or keys, uploaded through a change request)",
    replaces: "name, workspace, traffic type",
    updates:
      "environments: one activation or deactivation per environment that changes; members: one upload (change request and PUT) per environment whose set changed; a description change alone is refused at preview",
  },
  example: {
    inputs: {
      workspace: "Default",
      trafficType: "user",
      name: "all-customers",
      description: "Every customer",
      environments: ["Staging"],
    },
    unique: ["name"],
  },
});
