/**
 * `FlagDefinition`: the targeting of one flag in one environment: treatments (with descriptions,
 * configurations, individual target keys), default and baseline treatment, traffic allocation,
 * rules, default rule, and whether the flag is killed (spec §2 "Feature flag definition", §3, §4).
 *
 * | verb | API call |
 * |---|---|
 * | check | none: the zod schema below plus `validateDefinition` (bucket sums, known treatments) |
 * | diff | none: `workspace`, `flag` and `environment` replace (delete first: one definition per flag and environment); the rest updates in place |
 * | create | workspace and environment lists (once per process); `POST .../splits/ws/{ws}/{flag}/environments/{env}` with title and comment; then `PUT .../kill` when `killed` |
 * | read | the environment's definition list `GET .../splits/ws/{ws}/environments/{env}?offset&limit=50`, once for every read of the environment in one engine operation (`../core/list-reads.ts`); a definition missing from it, a read outside an engine operation or an import: `GET .../splits/ws/{ws}/{flagId}/environments/{env}`; a 404 reports the definition gone. Individual target keys are kept (the peer providers lose them, ref admin §9.1); `flagSets` reports the live membership |
 * | update | `GET` of the live definition, then ONE `PATCH` holding the minimal RFC 6902 patch from live to desired, each change guarded by a `test` (a concurrent edit is refused, not overwritten), with `?title=&comment=` (a change of `flagSets` is one guarded `replace /flagSets` of `[{id, type}]`, ref admin §2); `killed` changes through `PUT .../kill` or `.../restore`, never the patch. A recorded `pendingChangeRequest` is read first (`GET` of the definition and `GET /changeRequests/{id}`): while it is REQUESTED with the change the program needs next, nothing is written |
 | create, update in an environment that requires approvals | the refused write (403), a dry-run `PATCH .../environments/ws/{ws}/{env}?dry_run=true` of no operations (its `changePermissions`, which the list leaves out), `GET /changeRequests?status=REQUESTED&environmentId=` (an open request of this definition is reported, not duplicated), `POST /changeRequests/ws/{ws}/environments/{env}` `{split: {name, ...definition}, operationType: CREATE or UPDATE, title, comment, approvers}`, and `killed` as a KILL or RESTORE request once the document is applied (one open request per object); with `waitForApproval`, `GET /changeRequests/{id}` every `pollSeconds`, then the definition read back and the next request submitted (`../core/change-request.ts`) |
 * | delete | `DELETE .../splits/ws/{ws}/{flag}/environments/{env}` with title and comment; a 404 counts as done. Where the environment requires approvals: an ARCHIVE change request (waited for with `waitForApproval`, else the delete fails naming it, and the definition stays in the state) |
 *
 * Title and comment (needed by workspaces that require them, ref admin §2) come from the `title`
 * and `comment` inputs, else from `flagstack:changeTitle` / `flagstack:changeComment`, else a
 * default naming the stack and the operation.
 *
 * Until its change request is approved, a definition records what is live (for a definition not
 * yet created: no treatments, no rules, creation time 0) and the request in `pendingChangeRequest`,
 * never the requested change: the next `up` shows the difference again and reports the request.
 * @module
 */
import { z } from "zod";
import type { AdminClient } from "../../sdk/admin/client";
import {
  Bucket,
  type ChangeRequest,
  type Definition,
  DefinitionBody,
  FlagCreate,
  type JsonPatch,
  LIMITS,
  Rule,
  Treatment,
  validateDefinition,
} from "../../sdk/admin/schemas";
import { ApiError, isNotFound, isOutcomeUnknown } from "../../sdk/core/errors";
import { conversionProblems } from "../../sdk/split/convert";
import {
  type ChangeSubject,
  changeRequestInputs,
  changeRequestOutputs,
  gatedDelete,
  type PendingChangeRequest,
  recordedRequest,
  refusedForApprovals,
  requestNote,
  reuseOpen,
  settle,
  stillPending,
  submitOrFind,
} from "../core/change-request";
import type { InputProblem } from "../core/check";
import { adminClient, changeNote } from "../core/config";
import {
  alignToLive,
  canonicalField,
  configurationText,
  documentPatch,
  liveDoc,
  WRITABLE_FIELDS,
} from "../core/definition-doc";
import type { DiffSpec } from "../core/diff";
import { door } from "../core/door";
import { fieldsToWrite, guardedUpdate } from "../core/guard";
import { defineKind } from "../core/kind";
import { createOrAdopt, GONE, PartialFailure, readOrGone, resourceHandlers } from "../core/lifecycle";
import { listRead } from "../core/list-reads";
import { definitionArchive, definitionDeleteNote, definitionSubject as subject } from "../core/owned-archive";
import { resolveEnvironment, resolveWorkspace } from "../core/resolve";
import { plain, type ResourceArgs, type ResourceHandlers, resourceClass } from "../core/resource";
import { FLAG_DEFINITION_TYPE, FLAG_TYPE } from "../types";

const Configurations = z
  .union([z.string(), z.record(z.string(), z.unknown())], {
    error: "configurations must be a JSON string or an object",
  })
  .refine(
    (v) => {
      if (typeof v !== "string") return true;
      try {
        JSON.parse(v);
        return true;
      } catch {
        return false;
      }
    },
    { message: "configurations must be valid JSON" },
  )
  .transform((v) => configurationText(v) as string);

/** A set of strings as a program writes it: repetitions dropped, order kept. */
const StringSet = (inner: z.ZodArray<z.ZodString>) => inner.transform((v) => [...new Set(v)]).optional();

/** A treatment as a program writes it: `configurations` may be an object; target keys and segments are sets. */
export const TreatmentInput = Treatment.extend({
  /** The treatment's configuration: a JSON string, or an object that is sent as JSON. */
  configurations: Configurations.optional(),
  /** Individual targets: keys that always get this treatment (a set). */
  keys: StringSet(z.array(z.string().min(1, "a target key must not be empty"))),
  /** Segments whose members always get this treatment (a set). */
  segments: StringSet(z.array(z.string().min(1, "a segment name must not be empty"))),
}).strict();

/** The inputs of a {@link FlagDefinition}. */
export const FlagDefinitionInputs = z.strictObject({
  /** The workspace, by name or id. Changing it replaces the definition. */
  workspace: z.string().min(1, "workspace must not be empty"),
  /** The flag's name. Changing it replaces the definition. */
  flag: FlagCreate.shape.name,
  /** The environment, by name or id. Changing it replaces the definition. */
  environment: z.string().min(1, "environment must not be empty"),
  /** The treatments (1 to 20): name, description, configurations, individual target keys, segments. */
  treatments: z.array(TreatmentInput).min(1, "at least one treatment is required"),
  /** The treatment served when the flag is killed or a key is outside the traffic allocation. */
  defaultTreatment: z.string().min(1, "defaultTreatment must not be empty"),
  /** The baseline for experiment comparisons. When omitted, the service's value is kept. */
  baselineTreatment: z.string().min(1, "baselineTreatment must not be empty").optional(),
  /** Percentage of traffic that is evaluated by the rules (0-100). Default 100. */
  trafficAllocation: DefinitionBody.shape.trafficAllocation,
  /** Targeting rules, evaluated in order. Default: none. */
  rules: z.array(Rule).default([]),
  /** Buckets for keys no rule matches; sizes sum to 100. Default: 100% the default treatment. */
  defaultRule: z.array(Bucket).min(1, "defaultRule needs at least one bucket").optional(),
  /**
   * The flag sets (by id, e.g. a `FlagSet`'s `flagSetId`) the flag belongs to in this environment:
   * a set (order and repetitions mean nothing). When omitted, the service's value is kept.
   */
  flagSets: StringSet(z.array(z.string().min(1, "a flag set id must not be empty"))),
  /** Whether the flag is killed in this environment (applied with the kill / restore operation). Default false. */
  killed: z.boolean().default(false),
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
  /** Take over an existing definition instead of failing. Default: false. */
  adopt: z.boolean().default(false),
  ...changeRequestInputs,
});

/** The outputs of a {@link FlagDefinition}: the definition as the service holds it, plus ids and times. */
export const FlagDefinitionOutputs = FlagDefinitionInputs.extend({
  treatments: z.array(TreatmentInput.extend({ configurations: z.string().optional() })),
  defaultRule: z.array(Bucket),
  /** The flag's id. */
  flagId: z.string(),
  /** The flag's name as on the service. */
  flagName: z.string(),
  /** The workspace's id. */
  workspaceId: z.string(),
  /** The workspace's name. */
  workspaceName: z.string(),
  /** The environment's id. */
  environmentId: z.string(),
  /** The environment's name. */
  environmentName: z.string(),
  /** The traffic type's name. */
  trafficType: z.string(),
  /** Creation time, epoch milliseconds. */
  creationTime: z.number().int(),
  /** Last change, epoch milliseconds. */
  lastUpdateTime: z.number().int(),
  ...changeRequestOutputs,
});

/** Checked inputs of a flag definition. */
export type FlagDefinitionInputs = z.output<typeof FlagDefinitionInputs>;
/** Outputs of a flag definition. */
export type FlagDefinitionOutputs = z.output<typeof FlagDefinitionOutputs>;
/** The arguments of `new FlagDefinition(...)`. */
export type FlagDefinitionArgs = ResourceArgs<z.input<typeof FlagDefinitionInputs>>;

/** Inputs whose change replaces a definition: which flag and environment it belongs to. */
export const flagDefinitionReplaceOnChange = [
  "workspace",
  "flag",
  "environment",
] as const satisfies readonly (keyof FlagDefinitionInputs)[];

/** The fields `diff` compares: where the definition lives, its document and `killed`. */
const DEFINITION_DIFF_FIELDS = [...flagDefinitionReplaceOnChange, ...WRITABLE_FIELDS, "killed"] as const;
type DefinitionField = (typeof DEFINITION_DIFF_FIELDS)[number];

const sameText = (a: unknown, b: unknown) => typeof a === "string" && typeof b === "string" && a === b;
const documentField = (field: string) => ({ normalize: (v: unknown) => canonicalField(field, v) });

/**
 * How a definition's state and a program compare (also each environment's of a `FlagDefinitions`).
 * @internal
 */
export const definitionDiff: DiffSpec<DefinitionField> = {
  fields: DEFINITION_DIFF_FIELDS,
  replaceOnChange: flagDefinitionReplaceOnChange,
  deleteBeforeReplace: true,
  rules: {
    workspace: {
      equals: (o, n, olds) =>
        sameText(n, o) || sameText(n, olds.workspaceId) || sameText(n, olds.workspaceName),
    },
    flag: {
      equals: (o, n, olds) => sameText(n, o) || sameText(n, olds.flagName) || sameText(n, olds.flagId),
    },
    environment: {
      equals: (o, n, olds) =>
        sameText(n, o) || sameText(n, olds.environmentId) || sameText(n, olds.environmentName),
    },
    treatments: documentField("treatments"),
    rules: documentField("rules"),
    defaultRule: documentField("defaultRule"),
    // Omitted: the service's value is not managed (a recorded none is still a value: the guard
    // refuses a colleague's baseline set since, see `FieldRule.optional`).
    baselineTreatment: { optional: true },
    flagSets: { optional: true, normalize: (v) => canonicalField("flagSets", v) ?? [] },
    killed: { normalize: (v) => v === true },
  },
};

/**
 * Whole-document rules, so that `check` refuses what the service would: `validateDefinition`
 * (bucket sums, known treatments; shared with the emulator and the policy pack), the field each
 * matcher type needs (`conversionProblems`, shared with the SDK conversion), and one treatment per
 * target key.
 * @internal
 */
export function definitionProblems(
  inputs: Pick<
    FlagDefinitionInputs,
    "treatments" | "defaultTreatment" | "baselineTreatment" | "rules" | "defaultRule"
  >,
): InputProblem[] {
  const problems: InputProblem[] = [
    ...validateDefinition({ ...inputs, defaultRule: inputs.defaultRule ?? [] }),
    ...conversionProblems(inputs),
  ];
  const owner = new Map<string, string>();
  inputs.treatments.forEach((t, i) => {
    (t.keys ?? []).forEach((key, j) => {
      const first = owner.get(key);
      if (first !== undefined && first !== t.name) {
        problems.push({
          path: ["treatments", i, "keys", j],
          message: `key "${key}" is already a target of treatment "${first}"`,
        });
      } else owner.set(key, t.name);
    });
  });
  return problems;
}

/**
 * The document sent on create and patched towards on update.
 * @internal
 */
export function desiredDoc(inputs: FlagDefinitionInputs): Record<string, unknown> {
  return plain({
    treatments: inputs.treatments.map((t) => ({
      name: t.name,
      description: t.description,
      configurations: t.configurations,
      keys: t.keys,
      segments: t.segments,
    })),
    defaultTreatment: inputs.defaultTreatment,
    baselineTreatment: inputs.baselineTreatment,
    trafficAllocation: inputs.trafficAllocation,
    rules: inputs.rules,
    defaultRule: inputs.defaultRule ?? [{ treatment: inputs.defaultTreatment, size: 100 }],
    flagSets: inputs.flagSets?.map((id) => ({ id, type: "flag_set" })),
  });
}

interface Place {
  workspace: { id: string; name: string };
  environment: { id: string; name: string };
}

function outputs(
  def: Definition,
  place: Place,
  inputs: FlagDefinitionInputs | FlagDefinitionOutputs,
): FlagDefinitionOutputs {
  const doc = liveDoc(def);
  return plain({
    workspace: inputs.workspace,
    flag: inputs.flag,
    environment: inputs.environment,
    ...(doc as unknown as Pick<
      FlagDefinitionOutputs,
      "treatments" | "defaultTreatment" | "trafficAllocation" | "rules" | "defaultRule"
    >),
    baselineTreatment: def.baselineTreatment,
    flagSets: def.flagSets?.map((f) => f.id),
    killed: def.killed,
    title: inputs.title,
    comment: inputs.comment,
    adopt: inputs.adopt,
    changeRequest: inputs.changeRequest,
    waitForApproval: inputs.waitForApproval,
    flagId: def.id,
    flagName: def.name,
    workspaceId: place.workspace.id,
    workspaceName: place.workspace.name,
    environmentId: place.environment.id,
    environmentName: place.environment.name,
    trafficType: def.trafficType.name,
    creationTime: def.creationTime,
    lastUpdateTime: def.lastUpdateTime,
  });
}

function note(
  inputs: { title?: string | undefined; comment?: string | undefined },
  operation: string,
  about: string,
) {
  const fallback = changeNote(operation, about);
  return { title: inputs.title ?? fallback.title, comment: inputs.comment ?? fallback.comment };
}

/** True when the service refused a patch because a `test` operation failed (a concurrent edit). */
function testFailed(e: unknown): boolean {
  if (!ApiError.isInstance(e)) return false;
  if (e.status === 409 || e.status === 412) return true;
  return e.status === 400 && /\btest\b/i.test(`${e.apiMessage} ${e.details ?? ""}`);
}

async function setKilled(
  admin: AdminClient,
  place: Place,
  flagName: string,
  inputs: FlagDefinitionInputs,
): Promise<void> {
  const about = subject(flagName, place.environment.name);
  if (inputs.killed) {
    await admin.definitions.kill(
      place.workspace.id,
      flagName,
      place.environment.id,
      note(inputs, "kill", about),
    );
  } else {
    await admin.definitions.restore(
      place.workspace.id,
      flagName,
      place.environment.id,
      note(inputs, "restore", about),
    );
  }
}

/**
 * Takes the live definition towards the desired one in the writable `fields` only (every other
 * field keeps its live value): one guarded PATCH (if anything differs), then kill / restore (if
 * `killed` is among the fields and differs). A PATCH whose response was lost is re-read and
 * `recheck`ed (the update's guard against the recorded state), then re-diffed: the `test` guards
 * make a re-send safe. Returns the final definition.
 */
async function converge(
  admin: AdminClient,
  place: Place,
  live: Definition,
  inputs: FlagDefinitionInputs,
  fields: readonly string[],
  recheck: (reread: Definition) => readonly string[] = () => fields,
): Promise<Definition> {
  let current = live;
  let touched = fields;
  for (let attempt = 0; ; attempt++) {
    const from = liveDoc(current);
    const aligned = alignToLive(desiredDoc(inputs), from);
    const to: Record<string, unknown> = { ...from };
    for (const field of WRITABLE_FIELDS) if (touched.includes(field)) to[field] = aligned[field];
    const ops = documentPatch(from, plain(to)) as JsonPatch;
    if (ops.length === 0) break;
    try {
      current = await admin.definitions.patch(
        place.workspace.id,
        current.name,
        place.environment.id,
        ops,
        note(inputs, "update", subject(current.name, place.environment.name)),
      );
      break;
    } catch (e) {
      if (testFailed(e)) {
        throw new Error(
          `the definition of ${subject(current.name, place.environment.name)} changed while this update was being applied ` +
            `(a concurrent edit); nothing was overwritten. Run ${door().refresh} and ${door().apply} again. (${(e as Error).message})`,
          { cause: e },
        );
      }
      if (!isOutcomeUnknown(e) || attempt >= 2) throw e;
      const reread = await readOrGone(() =>
        admin.definitions.get(place.workspace.id, current.id, place.environment.id),
      );
      if (!reread) throw e;
      current = reread;
      touched = recheck(reread);
    }
  }
  if (touched.includes("killed") && current.killed !== inputs.killed) {
    await setKilled(admin, place, current.name, inputs);
    current = { ...current, killed: inputs.killed };
  }
  return current;
}

/** Whether the live document differs from the desired one (what {@link converge} would patch). */
function documentDiffers(live: Definition, inputs: FlagDefinitionInputs): boolean {
  const from = liveDoc(live);
  const aligned = alignToLive(desiredDoc(inputs), from);
  const to: Record<string, unknown> = { ...from };
  for (const field of WRITABLE_FIELDS) to[field] = aligned[field];
  return documentPatch(from, plain(to)).length > 0;
}

/**
 * The next change request that takes the live definition towards the program, or `undefined`
 * when there is nothing left to change. The definition goes as splitapiclient's
 * `split_definition.py` `submit_change_request` sends it (CREATE when there is none live yet,
 * else UPDATE, the whole document); `killed` goes by the KILL and RESTORE operations (a
 * document request carries no `killed`), after the document (one open request per object).
 */
function nextChange(
  place: Place,
  flagName: string,
  inputs: FlagDefinitionInputs,
  live: Definition | undefined,
): ChangeSubject | undefined {
  const base = {
    wsId: place.workspace.id,
    environmentId: place.environment.id,
    environmentName: place.environment.name,
    kind: "split" as const,
    name: flagName,
    describe: `the definition of ${subject(flagName, place.environment.name)}`,
  };
  if (!live) return { ...base, payload: desiredDoc(inputs), operationType: "CREATE" };
  if (documentDiffers(live, inputs)) return { ...base, payload: desiredDoc(inputs), operationType: "UPDATE" };
  if (live.killed !== inputs.killed)
    return { ...base, payload: {}, operationType: inputs.killed ? "KILL" : "RESTORE" };
  return undefined;
}

/**
 * Settles `cr` (`../core/change-request.ts` {@link settle}); once it is applied, reads the
 * definition back and submits the next change the program still needs (the kill after the
 * document), until none is left or one is pending. Returns the live definition and the pending
 * request, if any.
 */
async function untilApplied(
  admin: AdminClient,
  place: Place,
  flagName: string,
  inputs: FlagDefinitionInputs,
  submitted: { cr: ChangeRequest; change: ChangeSubject },
  live: Definition | undefined,
): Promise<{ def: Definition | undefined; pending?: PendingChangeRequest }> {
  let { cr, change } = submitted;
  for (;;) {
    const pending = await settle(admin, cr, change.describe, inputs.waitForApproval);
    if (pending) return { def: live, pending };
    live = await admin.definitions.get(place.workspace.id, flagName, place.environment.id);
    const next = nextChange(place, flagName, inputs, live);
    if (!next) return { def: live };
    change = next;
    cr = await submitChange(admin, next, inputs);
  }
}

/** Submits (or finds open) the change request of a write the gated environment refused. */
function submitChange(admin: AdminClient, change: ChangeSubject, inputs: FlagDefinitionInputs) {
  const operation = change.operationType.toLowerCase();
  return submitOrFind(
    admin,
    change,
    requestNote(inputs.changeRequest, note(inputs, operation, subject(change.name, change.environmentName))),
  );
}

/**
 * The outputs of a definition that does not exist yet, its creation waiting on a change request:
 * the place and the flag, an empty document (nothing is live) and the pending request.
 */
function notYetCreated(
  place: Place,
  flag: { id: string; name: string; trafficType: { name: string } },
  inputs: FlagDefinitionInputs,
  pending: PendingChangeRequest,
): FlagDefinitionOutputs {
  return plain({
    ...inputs,
    treatments: [],
    defaultTreatment: "",
    trafficAllocation: undefined,
    baselineTreatment: undefined,
    flagSets: [],
    rules: [],
    defaultRule: [],
    killed: false,
    flagId: flag.id,
    flagName: flag.name,
    workspaceId: place.workspace.id,
    workspaceName: place.workspace.name,
    environmentId: place.environment.id,
    environmentName: place.environment.name,
    trafficType: flag.trafficType.name,
    creationTime: 0,
    lastUpdateTime: 0,
    pendingChangeRequest: pending,
  }) as unknown as FlagDefinitionOutputs;
}

/** The members of the outputs that only the program sets (no meaning on the service). */
function inputMembers(inputs: FlagDefinitionInputs) {
  const { workspace, flag, environment, title, comment, adopt, changeRequest, waitForApproval } = inputs;
  return { workspace, flag, environment, title, comment, adopt, changeRequest, waitForApproval };
}

/** Every field a create converges: the whole document and `killed`. */
const ALL_FIELDS: readonly string[] = [...WRITABLE_FIELDS, "killed"];

/**
 * The `read` result of a definition as the service shows it (`def` undefined: gone), with the
 * recorded inputs the service does not show; a definition whose creation waits on a change request
 * is kept while the request is open.
 */
async function readResult(
  admin: AdminClient,
  id: string,
  props: FlagDefinitionOutputs,
  def: Definition | undefined,
) {
  const pending = await stillPending(admin, props.pendingChangeRequest);
  if (!def && pending) return { id, props: { ...props, pendingChangeRequest: pending } };
  if (!def) return GONE;
  const place: Place = {
    workspace: { id: props.workspaceId, name: props.workspaceName },
    environment: { id: props.environmentId, name: def.environment.name },
  };
  const outs = plain({ ...outputs(def, place, props), pendingChangeRequest: pending });
  const inputs = plain({
    workspace: props.workspace,
    flag: props.flag,
    environment: props.environment,
    treatments: outs.treatments,
    defaultTreatment: outs.defaultTreatment,
    baselineTreatment: outs.baselineTreatment,
    trafficAllocation: outs.trafficAllocation,
    rules: outs.rules,
    defaultRule: outs.defaultRule,
    flagSets: outs.flagSets?.length ? outs.flagSets : undefined,
    killed: outs.killed,
    title: props.title,
    comment: props.comment,
    adopt: props.adopt,
    changeRequest: props.changeRequest,
    waitForApproval: props.waitForApproval,
  });
  return { id: `${def.id}:${props.environmentId}`, props: outs, inputs };
}

/**
 * The `read` of `pulumi import` (native provider), which has the id alone and no state: the id is
 * the definition's natural key `<workspace>/<flag>/<environment>` (workspace and environment by
 * name or id, e.g. `Default/new-checkout/Production`). The definition is then read as a refresh
 * reads it, from the state a create would have recorded: the ids, with the flag by name (the API
 * takes either), and the inputs as the id gives them.
 */
async function importDefinition(importId: string): ReturnType<typeof impl.read> {
  const parts = importId.split("/");
  const [environment, flag] = [parts.pop(), parts.pop()];
  const workspace = parts.join("/");
  if (!environment || !flag || !workspace) {
    throw new Error(
      `flag definition import id "${importId}" must be <workspace>/<flag>/<environment>, e.g. Default/new-checkout/Production`,
    );
  }
  const admin = adminClient();
  const ws = await resolveWorkspace(admin, workspace);
  const env = await resolveEnvironment(admin, ws, environment);
  // Only these members are read from the state (`readResult`); the rest comes from the service.
  const recorded = { workspace, flag, environment, adopt: false, flagId: flag };
  const props = {
    ...recorded,
    workspaceId: ws.id,
    workspaceName: ws.name,
    environmentId: env.id,
  } as FlagDefinitionOutputs;
  // A single read: an import's object is read alone, never through a list.
  const def = await readOrGone(() => admin.definitions.get(ws.id, flag, env.id));
  return readResult(admin, "", props, def);
}

/**
 * The provider: every lifecycle method. Each resource's `__provider` text
 * ({@link flagDefinitionProviderText}) loads this object in the provider process; the tests call it directly.
 */
export const impl: ResourceHandlers<FlagDefinitionInputs, FlagDefinitionOutputs> = resourceHandlers(
  {
    schema: FlagDefinitionInputs,
    complete: (i) => ({
      ...i,
      defaultRule: i.defaultRule ?? [{ treatment: i.defaultTreatment, size: 100 }],
    }),
    validate: definitionProblems,
  },
  definitionDiff,
  {
    async create(inputs) {
      const admin = adminClient();
      const ws = await resolveWorkspace(admin, inputs.workspace);
      const env = await resolveEnvironment(admin, ws, inputs.environment);
      const place: Place = {
        workspace: { id: ws.id, name: ws.name },
        environment: { id: env.id, name: env.name },
      };
      const about = subject(inputs.flag, env.name);
      let made: Awaited<ReturnType<typeof createOrAdopt<Definition>>>;
      try {
        made = await createOrAdopt({
          describe: `a definition of ${about}`,
          adopt: inputs.adopt,
          lookup: () => readOrGone(() => admin.definitions.get(ws.id, inputs.flag, env.id)),
          create: async () => {
            try {
              return await admin.definitions.create(ws.id, inputs.flag, env.id, {
                ...(desiredDoc(inputs) as DefinitionBody),
                ...note(inputs, "create", about),
              });
            } catch (e) {
              if (isNotFound(e)) {
                throw new Error(
                  `flag "${inputs.flag}" does not exist in workspace "${ws.name}" (${(e as Error).message})`,
                  { cause: e },
                );
              }
              throw e;
            }
          },
        });
      } catch (e) {
        if (!(await refusedForApprovals(admin, e, ws.id, env.id))) throw e;
        const change = nextChange(place, inputs.flag, inputs, undefined) as ChangeSubject;
        const cr = await submitChange(admin, change, inputs);
        const { def, pending } = await untilApplied(
          admin,
          place,
          inputs.flag,
          inputs,
          { cr, change },
          undefined,
        );
        if (def && pending) {
          return {
            id: `${def.id}:${env.id}`,
            outs: plain({ ...outputs(def, place, inputs), pendingChangeRequest: pending }),
          };
        }
        if (def) return { id: `${def.id}:${env.id}`, outs: outputs(def, place, inputs) };
        const flag = await admin.flags.get(ws.id, inputs.flag);
        return {
          id: `${flag.id}:${env.id}`,
          outs: notYetCreated(place, flag, inputs, pending as PendingChangeRequest),
        };
      }
      const { value: created, how } = made;
      const id = `${created.id}:${env.id}`;
      try {
        const final = await converge(admin, place, created, inputs, ALL_FIELDS);
        return { id, outs: outputs(final, place, inputs) };
      } catch (e) {
        if (how === "adopted") throw e;
        throw new PartialFailure(
          id,
          outputs(created, place, inputs),
          e,
          inputs.killed ? "killing the flag" : "converging the definition",
        );
      }
    },

    async read(id, props) {
      if (props.workspaceId === undefined) return importDefinition(id);
      const admin = adminClient();
      const def = await listRead({
        client: admin,
        scope: `definitions of environment ${props.environmentId} in workspace ${props.workspaceId}`,
        key: props.flagId,
        list: () => admin.definitions.list(props.workspaceId, props.environmentId),
        pageSize: LIMITS.flagsMax,
        keys: (d) => [d.id, d.name],
        single: () => admin.definitions.get(props.workspaceId, props.flagId, props.environmentId),
      });
      return readResult(admin, id, props, def);
    },

    async update(id, olds, news) {
      const admin = adminClient();
      const place: Place = {
        workspace: { id: olds.workspaceId, name: olds.workspaceName },
        environment: { id: olds.environmentId, name: olds.environmentName },
      };
      const describe = `the definition of ${subject(olds.flagName, olds.environmentName)}`;
      const fieldsFor = (def: Definition) =>
        fieldsToWrite(describe, definitionDiff, base, news, outputs(def, place, olds));
      const read = () =>
        readOrGone(() => admin.definitions.get(olds.workspaceId, olds.flagId, olds.environmentId));
      let def: Definition | undefined;
      let submitted: { cr: ChangeRequest; change: ChangeSubject } | undefined;
      // The guard's base: the recorded state, or the live definition once a recorded request was applied.
      let base: FlagDefinitionOutputs = olds;
      if (olds.pendingChangeRequest) {
        // The request an earlier `up` submitted: still open with the change the program needs next?
        // (nothing is live yet when the definition's creation waits on it)
        def = await read();
        const change = nextChange(place, olds.flagName, news, def);
        if (def && !change) return { outs: outputs(def, place, news) };
        const request = await recordedRequest(admin, olds.pendingChangeRequest, describe);
        if (change && request.state === "open") submitted = { cr: reuseOpen(request.cr, change), change };
        // Applied since: the live definition is the request's outcome, not a colleague's edit.
        if (request.state === "applied" && def) base = outputs(def, place, olds);
      }
      if (!submitted) {
        try {
          return await guardedUpdate({
            describe,
            spec: definitionDiff,
            recorded: base,
            desired: news,
            read: async () => {
              def = await read();
              return def ? { id, props: outputs(def, place, olds) } : GONE;
            },
            write: async (fields) => {
              const final = await converge(admin, place, def as Definition, news, fields, fieldsFor);
              return outputs(final, place, news);
            },
          });
        } catch (e) {
          if (!(await refusedForApprovals(admin, e, place.workspace.id, place.environment.id))) throw e;
          // The refused write was the first: `def` is live as read, and differs from the program.
          const change = nextChange(place, olds.flagName, news, def);
          if (!change) throw e;
          submitted = { cr: await submitChange(admin, change, news), change };
        }
      }
      const { def: live, pending } = await untilApplied(admin, place, olds.flagName, news, submitted, def);
      if (!pending) return { outs: outputs(live as Definition, place, news) };
      // What is live, never the requested change: the next `up` sees the difference again.
      const recorded = live ? outputs(live, place, news) : { ...olds, ...inputMembers(news) };
      return { outs: plain({ ...recorded, pendingChangeRequest: pending }) };
    },

    async lookup(inputs) {
      const admin = adminClient();
      const ws = await resolveWorkspace(admin, inputs.workspace);
      const env = await resolveEnvironment(admin, ws, inputs.environment);
      const def = await readOrGone(() => admin.definitions.get(ws.id, inputs.flag, env.id));
      return def && { createdAt: def.creationTime };
    },

    async delete(_id, props) {
      const admin = adminClient();
      const about = subject(props.flagName, props.environmentName);
      // Where approvals are required, through an ARCHIVE request (`../core/change-request.ts` `gatedDelete`).
      await gatedDelete({
        admin,
        wsId: props.workspaceId,
        environmentId: props.environmentId,
        environmentName: props.environmentName,
        remove: () =>
          admin.definitions.delete(
            props.workspaceId,
            props.flagName,
            props.environmentId,
            note(props, "delete", about),
          ),
        // The gated environment refuses the DELETE before it looks for the definition, so a
        // definition already gone (an approved ARCHIVE) shows as the change request's 404: done.
        archive: async () =>
          definitionArchive(
            props.workspaceId,
            { id: props.environmentId, name: props.environmentName },
            props.flagName,
          ),
        note: () => requestNote(props.changeRequest, note(props, "delete", about)),
        wait: props.waitForApproval,
        stays: "the definition stays, and stays in the state",
      });
    },
  },
);

// The ARCHIVE of a definition is also a `Flag`'s delete's, in the environments that require
// approvals: it lives in `../core/owned-archive.ts`.
/** @internal */
/** @internal */
export { definitionArchive, definitionDeleteNote };

/** A treatment as returned in the outputs. */
export type TreatmentOutput = FlagDefinitionOutputs["treatments"][number];
/** A rule as returned in the outputs. */
export type RuleOutput = FlagDefinitionOutputs["rules"][number];
/** A bucket as returned in the outputs. */
export type BucketOutput = FlagDefinitionOutputs["defaultRule"][number];

/**
 * The targeting of one flag in one environment.
 *
 * @example
 * ```ts
 * new FlagDefinition("checkout-prod", {
 *   workspace: "Default",
 *   flag: checkout, // the Flag: this definition is deleted with it (or `checkout.name`)
 *   environment: "Production",
 *   treatments: [
 *     { name: "on", configurations: { color: "green" }, keys: ["qa-user-1"] },
 *     { name: "off" },
 *   ],
 *   defaultTreatment: "off",
 *   rules: [{
 *     condition: { matchers: [{ type: "IN_SEGMENT", string: "beta-testers" }] },
 *     buckets: [{ treatment: "on", size: 100 }],
 *   }],
 *   defaultRule: [{ treatment: "on", size: 10 }, { treatment: "off", size: 90 }],
 * });
 * ```
 */
export const FlagDefinition = resourceClass(
  "flag-definition",
  FLAG_DEFINITION_TYPE,
  FlagDefinitionInputs,
  FlagDefinitionOutputs,
  // Deleting a flag removes its definitions (admin spec's state table, "DELETE on the
  // project-level flag"): given the `Flag` itself, a definition is `deletedWith` it, so
  // destroying both sends one DELETE.
  { input: "flag", type: FLAG_TYPE, output: "name" },
);
/** A {@link FlagDefinition} object: one `Output` per member of {@link FlagDefinitionOutputs}. */
export type FlagDefinition = InstanceType<typeof FlagDefinition>;
/** What the engine stores as each object's `__provider`: a require of {@link impl}, no code, no secret. */
export const flagDefinitionProviderText = FlagDefinition.providerText;

/** The kind's one definition: what every registry, door, doc and kind-wide test reads (`../core/kind.ts`). */
export const kind = defineKind({
  resource: FlagDefinition,
  impl,
  area: "flags",
  replaceOnChange: flagDefinitionReplaceOnChange,
  importId: { form: "<workspace>/<flag>/<environment>", example: "Default/new-checkout/Production" },
  doc: {
    what: "a flag's targeting in one environment",
    replaces: "flag, workspace, environment",
    updates:
      "treatments, targets, rules, default rule, allocation (one minimal, `test`-guarded JSON Patch); `killed` via kill/restore",
  },
  example: {
    inputs: {
      workspace: "Default",
      flag: "new-checkout",
      environment: "Staging",
      treatments: [{ name: "on" }, { name: "off" }],
      defaultTreatment: "off",
      rules: [
        {
          buckets: [{ treatment: "on", size: 100 }],
          condition: {
            combiner: "AND",
            matchers: [{ type: "IN_LIST_STRING", attribute: "plan", strings: ["pro"] }],
          },
        },
      ],
      defaultRule: [
        { treatment: "on", size: 10 },
        { treatment: "off", size: 90 },
      ],
      title: "Ramp new checkout to 10%",
      comment: "CHG-1234",
    },
    refs: { flag: { kind: "Flag", output: "name" } },
  },
});
