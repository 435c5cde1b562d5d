/**
 * `SegmentKeys`: a segment in one environment: its activation there and its exact member list
 * (ref admin §1.1 "segments", §1.2; the peers' `split_environment_segment_keys`, ref §9).
 *
 * | verb | API call |
 * |---|---|
 * | check | none: the zod schema below (keys a set of at most 100,000, each 1 to 250 characters) |
 * | diff | none: `workspace`, `environment` and `segment` replace (delete first: one activation per segment and environment); `keys` update in place, as a set (order and duplicates make no change); `title` and `comment` are the change's note, not compared |
 * | create | workspace and environment lists (once per process); `POST /segments/{env}/{segment}` (activation); then `PUT …/uploadKeys?replace=false {keys, title, comment}`, 10,000 keys per request. With `adopt` (or a lost activation answer), the live members are read and only the difference is sent |
 * | read | `GET /segments/{env}/{segment}/keys` (1,000 per page); a 404 (not active there, or no such segment) reports it gone |
 * | update | the minimal change from the recorded members to the desired ones: `PUT …/removeKeys` and `PUT …/uploadKeys`, 10,000 keys per request, each with the title and comment. A one-key change is one request |
 * | delete | `DELETE /segments/{env}/{segment}` (the members go with the activation); a 404 counts as done. Where the environment requires approvals (the DELETE of a segment with members refused with 403): `GET …/keys`, an `ARCHIVE` change request of every live member (an open one found, not submitted again), and the delete fails naming it until it is approved (with `waitForApproval`, waits), then the emptied activation is deleted (`../core/change-request.ts` `gatedDelete`) |
 | create, update in an environment that requires approvals | the refused key write (403), a dry-run `PATCH .../environments/ws/{ws}/{env}?dry_run=true` of no operations (its `changePermissions`, which the list leaves out), `GET /changeRequests?status=REQUESTED&environmentId=` (an open request of this segment is reported, not duplicated), `POST /changeRequests/ws/{ws}/environments/{env}` `{segment: {name, keys}, operationType, title, comment, approvers}`: UPDATE with the keys added, or ARCHIVE with the keys removed (one open request per segment, so one change holds additions or removals, not both); with `waitForApproval`, `GET /changeRequests/{id}` every `pollSeconds`, then the members read back (`../core/change-request.ts`). A recorded `pendingChangeRequest` is read first: while it is REQUESTED with this change, nothing is written |
 *
 * **The update guard, per key.** The members are a set, so each key is a field of two values,
 * member or not, and the update writes only the keys the preview showed as changing. For such a
 * key the recorded and desired values are the only two there are, so the live value is always one
 * of them: the rule of `../core/guard.ts` (write when live = recorded, nothing to write when live =
 * desired, refuse otherwise) can never refuse, and adding a member or removing a non-member is a
 * no-op on the service. The update therefore sends the changed keys without reading the list
 * first (no request a 100,000-member read would cost), and every key it did not touch, such as a
 * key a colleague added, keeps its live value (the next refresh shows it). A segment no longer
 * active in the environment fails the update with the guard's {@link GoneSinceRecordedError}.
 *
 * Until its change request is approved, the resource records the live members and the request in
 * `pendingChangeRequest`, never the requested ones: the next `up` shows the difference again. Once
 * it is applied, that `up` reads the live members (the request's outcome) instead of sending the
 * change from the recorded ones, and sends nothing when they are the desired ones.
 *
 * The resource id is the natural key `<environment id>/<segment>`.
 * @module
 */
import { z } from "zod";
import type { ChangeRequest } from "../../sdk/admin/schemas";
import { type KeysChangeSummary, MAX_SEGMENT_MEMBERS } from "../../sdk/admin/segment-keys";
import { isNotFound } from "../../sdk/core/errors";
import {
  type ChangeSubject,
  changeRequestInputs,
  changeRequestOutputs,
  gatedDelete,
  gatedWrite,
  recordedRequest,
  referenceOf,
  requestNote,
  stillPending,
} from "../core/change-request";
import { adminClient, changeNote } from "../core/config";
import type { DiffSpec } from "../core/diff";
import { GoneSinceRecordedError } from "../core/guard";
import { defineKind, type ImportId } from "../core/kind";
import { createOrAdopt, GONE, PartialFailure, readOrGone, resourceHandlers } from "../core/lifecycle";
import { keysArchive, keysChange } from "../core/owned-archive";
import { resolveEnvironment, resolveWorkspace } from "../core/resolve";
import { plain, type ResourceArgs, type ResourceHandlers, resourceClass } from "../core/resource";
import {
  asSet,
  environmentRule,
  importParts,
  setChanges,
  setRule,
  workspaceRule,
} from "../core/workspace-fields";
import { SEGMENT_KEYS_TYPE, SEGMENT_TYPE } from "../types";

/** The inputs of a {@link SegmentKeys}. */
export const SegmentKeysInputs = z.strictObject({
  /** The workspace (project) of the segment, by name or id. Changing it replaces the resource. */
  workspace: z.string().min(1, "workspace must not be empty"),
  /** The environment, by name or id. Changing it replaces the resource. */
  environment: z.string().min(1, "environment must not be empty"),
  /** The segment's name (a `Segment`'s `name`). Changing it replaces the resource. */
  segment: z.string().min(1, "segment must not be empty"),
  /**
   * The members, a set: order and duplicates do not matter; at most 100,000, each 1 to 250
   * characters. Default: none.
   */
  keys: z
    .array(z.string().min(1, "a key must not be empty").max(250, "a key must be at most 250 characters"))
    .default([])
    .transform(asSet)
    .pipe(
      z
        .array(z.string())
        .max(
          MAX_SEGMENT_MEMBERS,
          `keys: a segment holds at most ${MAX_SEGMENT_MEMBERS} members in an environment`,
        ),
    ),
  /** The title of each key change (required when the workspace requires titles and comments). */
  title: z.string().optional(),
  /** The comment of each key change (required when the workspace requires titles and comments). */
  comment: z.string().optional(),
  /** Take over a segment already active in the environment instead of failing. Default: false. */
  adopt: z.boolean().default(false),
  ...changeRequestInputs,
});

/** The outputs of a {@link SegmentKeys}: the inputs (members as live) plus the ids and names. */
export const SegmentKeysOutputs = SegmentKeysInputs.extend({
  /** The workspace's id. */
  workspaceId: z.string(),
  /** The workspace's name. */
  workspaceName: z.string(),
  /** The environment's id. */
  environmentId: z.string(),
  /** The environment's name. */
  environmentName: z.string(),
  ...changeRequestOutputs,
});

/** Checked inputs of a segment's members in an environment. */
export type SegmentKeysInputs = z.output<typeof SegmentKeysInputs>;
/** Outputs of a segment's members in an environment. */
export type SegmentKeysOutputs = z.output<typeof SegmentKeysOutputs>;
/** The arguments of `new SegmentKeys(...)`. */
export type SegmentKeysArgs = ResourceArgs<z.input<typeof SegmentKeysInputs>>;

/** Inputs whose change replaces the resource: where the members live. */
export const segmentKeysReplaceOnChange = [
  "workspace",
  "environment",
  "segment",
] as const satisfies readonly (keyof SegmentKeysInputs)[];

const segmentKeysDiff: DiffSpec<"workspace" | "environment" | "segment" | "keys"> = {
  fields: ["workspace", "environment", "segment", "keys"],
  replaceOnChange: segmentKeysReplaceOnChange,
  deleteBeforeReplace: true,
  rules: { workspace: workspaceRule, environment: environmentRule, keys: setRule },
};

/** Where the members live, as the outputs record it. */
type Place = Pick<SegmentKeysOutputs, "workspaceId" | "workspaceName" | "environmentId" | "environmentName">;

function outputs(inputs: SegmentKeysInputs, place: Place, keys: readonly string[]): SegmentKeysOutputs {
  const { workspaceId, workspaceName, environmentId, environmentName } = place;
  return plain({ ...inputs, keys: asSet(keys), workspaceId, workspaceName, environmentId, environmentName });
}

/** The inputs a program would write for these outputs. */
function inputsOf(outs: SegmentKeysOutputs): SegmentKeysInputs {
  const {
    workspaceId: _w,
    workspaceName: _wn,
    environmentId: _e,
    environmentName: _en,
    pendingChangeRequest: _p,
    ...inputs
  } = outs;
  return inputs;
}

/** `segment "beta" in environment "Production" of workspace "Default"`, for messages. */
const describeKeys = (o: Pick<SegmentKeysOutputs, "segment" | "environmentName" | "workspaceName">) =>
  `segment "${o.segment}" in environment "${o.environmentName}" of workspace "${o.workspaceName}"`;

/** The resource id: the natural key `<environment id>/<segment>`. */
const keysId = (environmentId: string, segment: string) => `${environmentId}/${segment}`;

/** Every live member of the segment in the environment; `undefined` when it is not active there. */
async function liveMembers(environmentId: string, segment: string): Promise<string[] | undefined> {
  return readOrGone(async () => {
    const keys: string[] = [];
    for await (const key of adminClient().segmentKeys.list(environmentId, segment)) keys.push(key);
    return keys;
  });
}

/** The note of each key change: the inputs' title and comment. */
const noteOf = (inputs: SegmentKeysInputs) => ({ title: inputs.title, comment: inputs.comment });

/**
 * Takes the members from `from` to `to` with the fewest requests: the removals, then the additions
 * (so a full segment has room), 10,000 keys per request, each with the title and comment.
 */
async function applyMembers(
  environmentId: string,
  segment: string,
  from: readonly string[],
  to: readonly string[],
  note: { title?: string | undefined; comment?: string | undefined },
): Promise<KeysChangeSummary[]> {
  const admin = adminClient();
  const { add, remove } = setChanges(from, to);
  const sent: KeysChangeSummary[] = [];
  if (remove.length > 0) sent.push(await admin.segmentKeys.remove(environmentId, segment, remove, note));
  if (add.length > 0) sent.push(await admin.segmentKeys.add(environmentId, segment, add, note));
  return sent;
}

// The ARCHIVE of the members is also a `Segment`'s delete's, in the environments that require
// approvals: it lives, with the key change it is, in `../core/owned-archive.ts`.
/** @internal */
export { keysArchive };

/** The request's note: the `changeRequest` input, else the title and comment, else the provider's. */
function requestNoteOf(inputs: SegmentKeysInputs, s: ChangeSubject) {
  const fallback = changeNote(s.operationType === "UPDATE" ? "add keys" : "remove keys", s.describe);
  return requestNote(inputs.changeRequest, {
    title: inputs.title ?? fallback.title,
    comment: inputs.comment ?? fallback.comment,
  });
}

/**
 * Takes the members from `from` to `to` as {@link applyMembers} does; where the environment
 * requires approvals (the first write refused with 403), through a change request instead
 * (`../core/change-request.ts` {@link gatedWrite}): reported pending (the live members `from`
 * recorded with it), or waited for and read back. `open`, the recorded request still REQUESTED
 * with this change, is reported without a write. Nothing to change is no request at all.
 */
async function changeMembers(
  place: Place,
  inputs: SegmentKeysInputs,
  from: readonly string[],
  open?: ChangeRequest,
): Promise<SegmentKeysOutputs> {
  const { add, remove } = setChanges(from, inputs.keys);
  if (add.length === 0 && remove.length === 0) {
    // An open request of another change stays recorded while it is open.
    const kept = open && { id: open.id, status: open.status, reference: referenceOf(open.id) };
    return plain({ ...outputs(inputs, place, from), pendingChangeRequest: kept });
  }
  return gatedWrite({
    admin: adminClient(),
    wsId: place.workspaceId,
    environmentId: place.environmentId,
    change: () => keysChange(place, inputs.segment, from, inputs.keys),
    open,
    note: (s) => requestNoteOf(inputs, s),
    wait: inputs.waitForApproval,
    write: async () => {
      await applyMembers(place.environmentId, inputs.segment, from, inputs.keys, noteOf(inputs));
      return outputs(inputs, place, inputs.keys);
    },
    pending: (pending) => plain({ ...outputs(inputs, place, from), pendingChangeRequest: pending }),
    applied: async () =>
      outputs(inputs, place, (await liveMembers(place.environmentId, inputs.segment)) ?? []),
  });
}

/** The natural key: the import id's parts, written once for the import, the docs and the schema. */
const IMPORT_ID: ImportId = {
  form: "<workspace>/<environment>/<segment>",
  example: "Default/Production/beta_testers",
};

/**
 * The `read` of `pulumi import` (native provider), which has the id alone and no state: the id is
 * the natural key `<workspace>/<environment>/<segment>` (each by name or id, e.g.
 * `Default/Production/beta_testers`).
 */
async function importKeys(
  importId: string,
): ReturnType<ResourceHandlers<SegmentKeysInputs, SegmentKeysOutputs>["read"]> {
  const [wsRef = "", envRef = "", segment = ""] = importParts(importId, IMPORT_ID);
  const admin = adminClient();
  const workspace = await resolveWorkspace(admin, wsRef);
  const env = await resolveEnvironment(admin, workspace, envRef);
  const inputs = { workspace: wsRef, environment: envRef, segment, keys: [], adopt: false };
  const place = {
    workspaceId: workspace.id,
    workspaceName: workspace.name,
    environmentId: env.id,
    environmentName: env.name,
  };
  return impl.read(keysId(env.id, segment), outputs(inputs, place, []));
}

/**
 * The provider: every lifecycle method. Each resource's `__provider` text
 * ({@link segmentKeysProviderText}) loads this object in the provider process; the tests call it directly.
 */
export const impl: ResourceHandlers<SegmentKeysInputs, SegmentKeysOutputs> = resourceHandlers(
  { schema: SegmentKeysInputs },
  segmentKeysDiff,
  {
    async create(inputs) {
      const admin = adminClient();
      const workspace = await resolveWorkspace(admin, inputs.workspace);
      const env = await resolveEnvironment(admin, workspace, inputs.environment);
      const { how } = await createOrAdopt({
        describe: `segment "${inputs.segment}" active in environment "${env.name}" of workspace "${workspace.name}"`,
        adopt: inputs.adopt,
        lookup: () => admin.segmentKeys.activation(workspace.id, env.id, inputs.segment),
        create: () => admin.segmentKeys.activate(env.id, inputs.segment),
      });
      const id = keysId(env.id, inputs.segment);
      const place = {
        workspaceId: workspace.id,
        workspaceName: workspace.name,
        environmentId: env.id,
        environmentName: env.name,
      };
      // A segment we just activated has no members; one taken over (or whose activation answer was lost) may.
      const live = how === "created" ? [] : ((await liveMembers(env.id, inputs.segment)) ?? []);
      try {
        return { id, outs: await changeMembers(place, inputs, live) };
      } catch (e) {
        throw new PartialFailure(id, outputs(inputs, place, live), e, "setting the members");
      }
    },

    async read(id, props) {
      if (props.environmentId === undefined) return importKeys(id);
      const keys = await liveMembers(props.environmentId, props.segment);
      if (keys === undefined) return GONE;
      const pending = await stillPending(adminClient(), props.pendingChangeRequest);
      const outs = plain({ ...outputs(inputsOf(props), props, keys), pendingChangeRequest: pending });
      return { id: keysId(props.environmentId, props.segment), props: outs, inputs: inputsOf(outs) };
    },

    async update(_id, olds, news) {
      try {
        // The keys change from the recorded members, without a read (see the module notes), unless
        // the request recorded as pending was applied since: the members are then its outcome, read.
        const request = await recordedRequest(
          adminClient(),
          olds.pendingChangeRequest,
          `the keys of segment "${olds.segment}" in environment "${olds.environmentName}"`,
        );
        const from =
          request.state === "applied" ? await liveMembers(olds.environmentId, olds.segment) : olds.keys;
        if (from === undefined) throw new GoneSinceRecordedError(describeKeys(olds));
        return {
          outs: await changeMembers(olds, news, from, request.state === "open" ? request.cr : undefined),
        };
      } catch (e) {
        if (isNotFound(e)) throw new GoneSinceRecordedError(describeKeys(olds));
        throw e;
      }
    },

    async delete(_id, props) {
      const admin = adminClient();
      // Where approvals are required the members leave through an ARCHIVE request of the live ones,
      // then the emptied activation goes (`../core/change-request.ts` `gatedDelete`).
      await gatedDelete({
        admin,
        wsId: props.workspaceId,
        environmentId: props.environmentId,
        environmentName: props.environmentName,
        remove: () => admin.segmentKeys.deactivate(props.environmentId, props.segment),
        archive: async () => {
          const live = await liveMembers(props.environmentId, props.segment);
          return live && keysArchive(props, props.segment, live);
        },
        note: (s) => requestNoteOf(inputsOf(props), s),
        wait: props.waitForApproval,
        stays: "the members stay, and stay in the state",
        removeAfter: true,
      });
    },

    async lookup(inputs) {
      const admin = adminClient();
      const workspace = await resolveWorkspace(admin, inputs.workspace);
      const env = await resolveEnvironment(admin, workspace, inputs.environment);
      const active = await admin.segmentKeys.activation(workspace.id, env.id, inputs.segment);
      return active && { createdAt: active.creationTime };
    },
  },
);

/**
 * A segment's members in one environment: the segment is activated there and holds exactly these
 * keys. A change sends only the keys that come and go.
 *
 * @example
 * ```ts
 * const betaInProd = new SegmentKeys("beta-prod", {
 *   workspace: "Default",
 *   environment: "Production",
 *   segment: beta.name,
 *   keys: ["ana", "ben", "cy"],
 *   title: "Beta testers",
 *   comment: "managed by Pulumi",
 * });
 * ```
 */
export const SegmentKeys = resourceClass(
  "segment-keys",
  SEGMENT_KEYS_TYPE,
  SegmentKeysInputs,
  SegmentKeysOutputs,
  // Deleting a segment removes it from every environment with its members (ref admin §1.1):
  // given the `Segment` itself, its keys are `deletedWith` it, one DELETE for both.
  { input: "segment", type: SEGMENT_TYPE, output: "name" },
);
/** A {@link SegmentKeys} object: one `Output` per member of {@link SegmentKeysOutputs}. */
export type SegmentKeys = InstanceType<typeof SegmentKeys>;
/** What the engine stores as each object's `__provider`: a require of {@link impl}, no code, no secret. */
export const segmentKeysProviderText = SegmentKeys.providerText;

/** The kind's one definition: what every registry, door, doc and kind-wide test reads (`../core/kind.ts`). */
export const kind = defineKind({
  resource: SegmentKeys,
  impl,
  area: "flags",
  replaceOnChange: segmentKeysReplaceOnChange,
  importId: IMPORT_ID,
  doc: {
    what: "a segment's activation and exact members in one environment",
    replaces: "workspace, environment, segment",
    updates: "keys: only those that change (`removeKeys` / `uploadKeys`, 10,000 a request)",
  },
  example: {
    inputs: {
      workspace: "Default",
      environment: "Staging",
      segment: "beta-testers",
      keys: ["alice", "bob"],
      title: "Beta testers",
      comment: "CHG-1235",
    },
    refs: { segment: { kind: "Segment", output: "name" } },
  },
});
