/**
 * `FlagDefinitions`: the targeting of one flag in several environments, one object: a map from
 * environment to the same definition a {@link FlagDefinition} holds (spec §2 "Feature flag
 * definition", §3, §4). What a definition does in each environment is exactly a `FlagDefinition`'s:
 * every verb below is that kind's, once per environment, and this module only splits the object
 * into its definitions and joins their answers.
 *
 * Why a kind of its own: a Terraform configuration of a thousand flags with a definition per
 * environment is four thousand resources, and OpenTofu's own walk of each (plan, apply, destroy)
 * costs more than the provider's; one resource per flag for its definitions halves the count, and
 * the destroy of the 800-resource shape then comes within 1.2× of its requests at the rate limit
 * (issue 35, docs/terraform.md "A shape that scales").
 *
 * | verb | API call |
 * |---|---|
 * | check | none: the zod schema below, and each environment's definition checked as a `FlagDefinition`'s, its problems named under `definitions.<environment>` |
 * | diff | none: `workspace` and `flag` replace; an environment added, removed or changed updates in place (an environment named by id where the state has its name is the same one) |
 * | create | each environment's definition created as a `FlagDefinition`'s, all at once; one that fails leaves the others created and recorded (a partial failure naming each failed environment) |
 * | read | each environment's definition read as a `FlagDefinition`'s (the environment's definition list, once per engine operation); a definition gone leaves the map; all gone: the object is gone. Import (`<workspace>/<flag>`): the workspace's environments, and the flag's definition read in each (those it has are kept, under the environment's name) |
 * | update | the environments removed: deleted; added: created; changed: the guarded minimal update of a `FlagDefinition`; unchanged: nothing. All at once; what failed keeps its recorded state and is named, what succeeded is recorded |
 * | delete | each definition deleted as a `FlagDefinition`'s (a change request where the environment requires approvals) |
 *
 * `title`, `comment`, `adopt`, `changeRequest` and `waitForApproval` apply to every environment's
 * change. Given the `Flag` itself, the object is deleted with it (Pulumi's `deletedWith`; the
 * Terraform door holds its delete for the flag's), like a definition.
 * @module
 */
import { z } from "zod";
import { changeRequestInputs } from "../core/change-request";
import type { InputProblem } from "../core/check";
import { adminClient } from "../core/config";
import { WRITABLE_FIELDS } from "../core/definition-doc";
import { changedFields, type DiffSpec } from "../core/diff";
import { ChangedSinceRecordedError } from "../core/guard";
import { defineKind } from "../core/kind";
import { GONE, PartialFailure, resourceHandlers } from "../core/lifecycle";
import { resolveWorkspace } from "../core/resolve";
import { type ResourceArgs, type ResourceHandlers, resourceClass } from "../core/resource";
import { FLAG_DEFINITIONS_TYPE, FLAG_TYPE } from "../types";
import {
  definitionDiff,
  definitionProblems,
  FlagDefinitionInputs,
  FlagDefinitionOutputs,
  impl as one,
} from "./flag-definition";

/** The members of a definition that an environment's entry holds: its document and `killed`. */
const ENTRY_FIELDS = [...WRITABLE_FIELDS, "killed"] as const;

const pick = <T extends Record<string, unknown>>(from: T, keys: readonly string[]) => {
  const out: Record<string, unknown> = {};
  for (const k of keys) if (from[k] !== undefined) out[k] = from[k];
  return out;
};

/** The members of a `FlagDefinition` an environment's entry holds: its document and `killed`. */
const ENTRY_MASK = {
  treatments: true,
  defaultTreatment: true,
  baselineTreatment: true,
  trafficAllocation: true,
  rules: true,
  defaultRule: true,
  flagSets: true,
  killed: true,
} as const;

/** One environment's definition as a program writes it: a `FlagDefinition`'s document and `killed`. */
export const DefinitionEntry = z.strictObject(FlagDefinitionInputs.pick(ENTRY_MASK).shape);

/** One environment's definition as the service holds it. */
export const DefinitionEntryOutput = z.object(FlagDefinitionOutputs.pick(ENTRY_MASK).shape);

/**
 * What the service says of one environment's definition beside its document: the environment's id
 * and name, the definition's times and the change request it waits on. An output of its own
 * (`environments`), not members of `definitions`: a Terraform map attribute the program gives holds
 * what the program gives, nothing computed.
 */
export const EnvironmentOutput = z.object(
  FlagDefinitionOutputs.pick({
    environmentId: true,
    environmentName: true,
    creationTime: true,
    lastUpdateTime: true,
    pendingChangeRequest: true,
  }).shape,
);

/** The members of an entry, of its outputs and of what the outputs say of its environment (each read per resource). */
const ENTRY_INPUT_KEYS = DefinitionEntry.keyof().options;
const DOCUMENT_KEYS = DefinitionEntryOutput.keyof().options;
const ENVIRONMENT_KEYS = EnvironmentOutput.keyof().options;
const ENTRY_OUTPUT_KEYS = [...DOCUMENT_KEYS, ...ENVIRONMENT_KEYS];

/** The inputs of a {@link FlagDefinitions}. */
export const FlagDefinitionsInputs = z.strictObject({
  /** The workspace, by name or id. Changing it replaces the object. */
  workspace: FlagDefinitionInputs.shape.workspace,
  /** The flag's name. Changing it replaces the object. */
  flag: FlagDefinitionInputs.shape.flag,
  /**
   * The flag's definition in each environment, by environment name or id: treatments, default
   * treatment, allocation, rules, default rule, flag sets and `killed`, as a `FlagDefinition` takes
   * them. An environment added is created, one removed is deleted.
   */
  definitions: z
    .record(z.string().min(1, "an environment must not be empty"), DefinitionEntry, {
      error: "definitions must be a map from environment to definition",
    })
    .refine((d) => Object.keys(d).length > 0, { message: "definitions needs at least one environment" }),
  /** Title of the changes sent to the service. Default: see `FlagDefinition`. */
  title: FlagDefinitionInputs.shape.title,
  /** Comment of the changes sent to the service. */
  comment: FlagDefinitionInputs.shape.comment,
  /** Take over existing definitions instead of failing. Default: false. */
  adopt: FlagDefinitionInputs.shape.adopt,
  ...changeRequestInputs,
});

/** The outputs of a {@link FlagDefinitions}: each environment's definition as the service holds it, plus ids. */
export const FlagDefinitionsOutputs = FlagDefinitionsInputs.extend({
  definitions: z.record(z.string(), DefinitionEntryOutput),
  /**
   * By the same keys as `definitions`: each environment's id and name, its definition's creation
   * and last change times, and the change request it waits on, if any.
   */
  environments: z.record(z.string(), EnvironmentOutput),
  /** The flag's id. */
  flagId: z.string(),
  /** The flag's name as on the service. */
  flagName: z.string(),
  /** The workspace's id. */
  workspaceId: z.string(),
  /** The workspace's name. */
  workspaceName: z.string(),
  /** The traffic type's name. */
  trafficType: z.string(),
});

/** Checked inputs of a flag's definitions. */
export type FlagDefinitionsInputs = z.output<typeof FlagDefinitionsInputs>;
/** Outputs of a flag's definitions. */
export type FlagDefinitionsOutputs = z.output<typeof FlagDefinitionsOutputs>;
/** The arguments of `new FlagDefinitions(...)`. */
export type FlagDefinitionsArgs = ResourceArgs<z.input<typeof FlagDefinitionsInputs>>;
type Entry = z.output<typeof DefinitionEntry>;
/** One environment's outputs: its definition's and its own ({@link entriesOf}). */
type EntryOutput = z.output<typeof DefinitionEntryOutput> & z.output<typeof EnvironmentOutput>;

/** The members a definition has a default for, with it (the entry schema's own: 100, none, not killed). */
const DEFAULTS = {
  trafficAllocation: DefinitionEntry.shape.trafficAllocation.parse(undefined),
  rules: DefinitionEntry.shape.rules.parse(undefined),
  killed: DefinitionEntry.shape.killed.parse(undefined),
};

/**
 * An environment's definition with the defaults of what it leaves out, as `check` fills them: a
 * Terraform state records the configuration (a member the configuration omits is null there, the
 * map's members being no computed attributes), a Pulumi state the service's values; both compare
 * and write alike.
 */
function completed<T>(entry: T): T {
  if (entry === null || typeof entry !== "object") return entry;
  const out: Record<string, unknown> = { ...(entry as Record<string, unknown>) };
  for (const [k, v] of Object.entries(DEFAULTS)) if (out[k] === undefined || out[k] === null) out[k] = v;
  if ((out.defaultRule === undefined || out.defaultRule === null) && typeof out.defaultTreatment === "string")
    out.defaultRule = [{ treatment: out.defaultTreatment, size: 100 }];
  return out as T;
}

/** Each environment's outputs, `definitions` (completed: {@link completed}) and `environments` joined by key. */
function entriesOf(
  props: Pick<FlagDefinitionsOutputs, "definitions" | "environments">,
): Record<string, EntryOutput> {
  const out: Record<string, EntryOutput> = {};
  for (const [key, doc] of Object.entries(props.definitions ?? {}))
    out[key] = { ...completed(doc), ...props.environments?.[key] } as EntryOutput;
  return out;
}

/** Inputs whose change replaces the object: which flag the definitions belong to. */
export const flagDefinitionsReplaceOnChange = [
  "workspace",
  "flag",
] as const satisfies readonly (keyof FlagDefinitionsInputs)[];

/** How one environment's entry compares: a definition's document rules. */
const entryDiff: DiffSpec = { fields: ENTRY_FIELDS, replaceOnChange: [], rules: definitionDiff.rules };

/**
 * The recorded entry a program's environment `key` is: the one recorded under the same key, else
 * the one whose environment's id or name the key is (the program changed how it names it).
 */
function recordedEntry(
  recorded: Readonly<Record<string, EntryOutput>> | undefined,
  key: string,
): [string, EntryOutput] | undefined {
  if (!recorded) return undefined;
  if (Object.hasOwn(recorded, key)) return [key, recorded[key] as EntryOutput];
  return Object.entries(recorded).find(([, e]) => e.environmentId === key || e.environmentName === key);
}

/** What an update does with each environment: the program's and the state's entries paired. */
interface Plan {
  /** Environments of the program only: created. */
  create: string[];
  /** Environments of both whose definitions differ, with the recorded key: updated. */
  update: [string, string][];
  /** Environments of both that agree, with the recorded key. */
  same: [string, string][];
  /** Recorded keys of environments the program left: deleted. */
  remove: string[];
}

function plan(
  recorded: Readonly<Record<string, EntryOutput>>,
  wanted: Readonly<Record<string, unknown>>,
): Plan {
  const out: Plan = { create: [], update: [], same: [], remove: [] };
  const kept = new Set<string>();
  for (const [key, entry] of Object.entries(wanted)) {
    const old = recordedEntry(recorded, key);
    if (!old || kept.has(old[0])) {
      out.create.push(key);
      continue;
    }
    kept.add(old[0]);
    const changed = changedFields(entryDiff, old[1], completed(entry as Record<string, unknown>)).length > 0;
    (changed ? out.update : out.same).push([key, old[0]]);
  }
  out.remove = Object.keys(recorded).filter((k) => !kept.has(k));
  return out;
}

const sameText = (a: unknown, b: unknown) => typeof a === "string" && typeof b === "string" && a === b;

type Field = "workspace" | "flag" | "definitions";
const definitionsDiff: DiffSpec<Field> = {
  fields: ["workspace", "flag", "definitions"],
  replaceOnChange: flagDefinitionsReplaceOnChange,
  deleteBeforeReplace: true,
  rules: {
    workspace: definitionDiff.rules?.workspace,
    flag: definitionDiff.rules?.flag,
    definitions: {
      equals: (o, n, olds) => {
        if (n === null || typeof n !== "object" || o === null || typeof o !== "object") return sameText(o, n);
        const recorded = entriesOf({
          definitions: o as FlagDefinitionsOutputs["definitions"],
          environments: olds.environments as FlagDefinitionsOutputs["environments"],
        });
        const p = plan(recorded, n as Record<string, unknown>);
        return p.create.length + p.update.length + p.remove.length === 0;
      },
    },
  },
};

/** Each environment's problems, named under `definitions.<environment>`. */
function problems(inputs: FlagDefinitionsInputs): InputProblem[] {
  return Object.entries(inputs.definitions).flatMap(([env, entry]) =>
    definitionProblems(entry).map((p) => ({ ...p, path: ["definitions", env, ...p.path] })),
  );
}

/** The `FlagDefinition` inputs of environment `env`. */
function inputsOf(inputs: FlagDefinitionsInputs, env: string): FlagDefinitionInputs {
  return {
    ...(inputs.definitions[env] as Entry),
    workspace: inputs.workspace,
    flag: inputs.flag,
    environment: env,
    title: inputs.title,
    comment: inputs.comment,
    adopt: inputs.adopt,
    changeRequest: inputs.changeRequest,
    waitForApproval: inputs.waitForApproval,
  };
}

/** The `FlagDefinition` state of the recorded environment `key`, whose entry ({@link entriesOf}) is `entry`. */
function stateOf(props: FlagDefinitionsOutputs, key: string, entry: EntryOutput): FlagDefinitionOutputs {
  return {
    ...entry,
    workspace: props.workspace,
    flag: props.flag,
    environment: key,
    title: props.title,
    comment: props.comment,
    adopt: props.adopt,
    changeRequest: props.changeRequest,
    waitForApproval: props.waitForApproval,
    flagId: props.flagId,
    flagName: props.flagName,
    workspaceId: props.workspaceId,
    workspaceName: props.workspaceName,
    trafficType: props.trafficType,
  };
}

const entryOf = (outs: FlagDefinitionOutputs): EntryOutput => pick(outs, ENTRY_OUTPUT_KEYS) as EntryOutput;

/** A definition's `FlagDefinition` id: `<flagId>:<environmentId>`. */
const oneId = (props: { flagId: string }, entry: EntryOutput) => `${props.flagId}:${entry.environmentId}`;

/** What every environment's definition shares: the flag's and the workspace's ids and names. */
type Ids = Pick<
  FlagDefinitionsOutputs,
  "flagId" | "flagName" | "workspaceId" | "workspaceName" | "trafficType"
>;

/** The object's outputs from the inputs, the ids (`first`: any environment's definition) and each environment's definition (by key). */
function joined(
  inputs: FlagDefinitionsInputs | FlagDefinitionsOutputs,
  first: Ids,
  entries: Readonly<Record<string, EntryOutput>>,
): FlagDefinitionsOutputs {
  const definitions: FlagDefinitionsOutputs["definitions"] = {};
  const environments: FlagDefinitionsOutputs["environments"] = {};
  for (const [key, entry] of Object.entries(entries)) {
    definitions[key] = pick(entry, DOCUMENT_KEYS) as (typeof definitions)[string];
    environments[key] = pick(entry, ENVIRONMENT_KEYS) as (typeof environments)[string];
  }
  // Plain JSON once it leaves the verbs (`resourceHandlers`, and a partial failure's outputs).
  return {
    workspace: inputs.workspace,
    flag: inputs.flag,
    definitions,
    environments,
    title: inputs.title,
    comment: inputs.comment,
    adopt: inputs.adopt,
    changeRequest: inputs.changeRequest,
    waitForApproval: inputs.waitForApproval,
    flagId: first.flagId,
    flagName: first.flagName,
    workspaceId: first.workspaceId,
    workspaceName: first.workspaceName,
    trafficType: first.trafficType,
  };
}

/** The outcome of one environment's verb: its definition's outputs (a partial one's too), or why it failed. */
type Outcome = { outs?: FlagDefinitionOutputs; error?: unknown };

/** Runs `verb` for each environment at once; each outcome, never a rejection. */
async function each(
  keys: readonly string[],
  verb: (key: string) => Promise<FlagDefinitionOutputs | undefined>,
) {
  const settled = await Promise.allSettled(keys.map(verb));
  const out = new Map<string, Outcome>();
  settled.forEach((s, i) => {
    const key = keys[i] as string;
    if (s.status === "fulfilled") out.set(key, { outs: s.value });
    else {
      const e = s.reason as { name?: string; properties?: unknown };
      // A definition created whose next step failed: recorded as made (`PartialFailure`).
      const partial = e?.name === "PartialFailure" ? (e.properties as FlagDefinitionOutputs) : undefined;
      out.set(key, { outs: partial, error: s.reason });
    }
  });
  return out;
}

const reason = (e: unknown) => (e instanceof Error ? e.message : String(e));

/**
 * The failures of `outcomes`, one line each naming the input and the environment
 * (`definitions.Staging (updating): ...`): empty when none failed.
 */
const failures = (outcomes: ReadonlyMap<string, Outcome>, verb: string) =>
  [...outcomes].flatMap(([env, o]) =>
    o.error === undefined ? [] : [`definitions.${env} (${verb}): ${reason(o.error)}`],
  );

/**
 * The error of a create or update of which some environments failed: when the service changed in
 * others (`applied`: written, deleted, or created with a later step failed), a {@link PartialFailure}
 * whose outputs record them (the engine then keeps what was applied, and the next run shows only
 * what is left); otherwise a plain error, the state unchanged.
 */
function failedPart(
  id: string,
  outs: FlagDefinitionsOutputs,
  lines: string[],
  applied: string[],
  cause: unknown,
) {
  const text = lines.join("\n");
  if (applied.length === 0) return new Error(text, { cause });
  const e = new PartialFailure(id, outs, new Error(text), "writing the definitions");
  e.message = `${text}\nApplied, and recorded: ${applied.map((k) => `definitions.${k}`).join(", ")}.`;
  return e;
}

/**
 * The `read` of `pulumi import` and of an `import` block, which have the id alone: the id is the
 * flag's natural key `<workspace>/<flag>` (`Default/new-checkout`). Every environment of the
 * workspace where the flag has a definition is read, each under its environment's name.
 */
async function importDefinitions(importId: string): ReturnType<typeof impl.read> {
  const cut = importId.lastIndexOf("/");
  const [workspace, flag] = [importId.slice(0, cut), importId.slice(cut + 1)];
  if (cut <= 0 || !flag) {
    throw new Error(
      `flag definitions import id "${importId}" must be <workspace>/<flag>, e.g. Default/new-checkout`,
    );
  }
  const admin = adminClient();
  const ws = await resolveWorkspace(admin, workspace);
  const definitions: Record<string, unknown> = {};
  const environments: Record<string, unknown> = {};
  for (const env of await admin.environments.list(ws.id)) {
    definitions[env.name] = {};
    environments[env.name] = { environmentId: env.id, environmentName: env.name };
  }
  // Only these members are read from the state by each environment's read; the rest comes from
  // the service. An environment without the flag's definition reads as gone and leaves the map.
  const props = {
    workspace,
    flag,
    definitions,
    environments,
    adopt: false,
    flagId: flag,
    flagName: flag,
    workspaceId: ws.id,
    workspaceName: ws.name,
  } as FlagDefinitionsOutputs;
  return readAll(props);
}

/** Reads each recorded environment's definition; the object as the service holds it, gone when none is left. */
async function readAll(props: FlagDefinitionsOutputs): ReturnType<typeof impl.read> {
  const recorded = entriesOf(props);
  const keys = Object.keys(recorded);
  const results = await Promise.all(
    keys.map((key) => {
      const entry = recorded[key] as EntryOutput;
      return one.read(oneId(props, entry), stateOf(props, key, entry));
    }),
  );
  const entries: Record<string, EntryOutput> = {};
  const entryInputs: Record<string, Entry> = {};
  let first: FlagDefinitionOutputs | undefined;
  results.forEach((r, i) => {
    const key = keys[i] as string;
    if (!r.id || r.props === undefined) return;
    const outs = r.props as FlagDefinitionOutputs;
    first ??= outs;
    entries[key] = entryOf(outs);
    entryInputs[key] = pick(r.inputs ?? outs, ENTRY_INPUT_KEYS) as Entry;
  });
  if (first === undefined) return GONE;
  const outs = joined(props, first, entries);
  const inputs = {
    workspace: props.workspace,
    flag: props.flag,
    definitions: entryInputs,
    title: props.title,
    comment: props.comment,
    adopt: props.adopt,
    changeRequest: props.changeRequest,
    waitForApproval: props.waitForApproval,
  };
  // The engine's read result types its inputs as the outputs; they are the inputs' members only.
  return { id: outs.flagId, props: outs, inputs: inputs as FlagDefinitionsOutputs };
}

/**
 * The `FlagDefinition` props of each environment of a `FlagDefinitions`' props, keyed as the map
 * is: its inputs, or its recorded outputs (each environment's `environments` entry, its ids and
 * times, joined to its definition). Plain data in and out; the policy pack and the Terraform
 * door's plan warning read each environment's definition as the `FlagDefinition` it is. An entry that is not an object (a value not known
 * during a plan) stands as that environment's treatments, so a reader finds the value unknown
 * there; a `definitions` that is no map gives none.
 */
export function definitionsByEnvironment(
  props: Readonly<Record<string, unknown>>,
): Map<string, Record<string, unknown>> {
  const out = new Map<string, Record<string, unknown>>();
  const { definitions, environments, ...shared } = props;
  if (definitions === null || typeof definitions !== "object" || Array.isArray(definitions)) return out;
  const about = (environments ?? {}) as Record<string, unknown>;
  for (const [environment, entry] of Object.entries(definitions)) {
    const members = entry !== null && typeof entry === "object" ? entry : { treatments: entry };
    const own = about[environment];
    out.set(environment, {
      ...shared,
      ...(own !== null && typeof own === "object" ? own : {}),
      ...members,
      environment,
    });
  }
  return out;
}

/**
 * The provider: every lifecycle method. Each resource's `__provider` text
 * ({@link flagDefinitionsProviderText}) loads this object in the provider process; the tests call it directly.
 */
export const impl: ResourceHandlers<FlagDefinitionsInputs, FlagDefinitionsOutputs> = resourceHandlers(
  {
    schema: FlagDefinitionsInputs,
    complete: (i) => ({
      ...i,
      definitions: Object.fromEntries(Object.entries(i.definitions).map(([env, e]) => [env, completed(e)])),
    }),
    validate: problems,
  },
  definitionsDiff,
  {
    async create(inputs) {
      const keys = Object.keys(inputs.definitions);
      const outcomes = await each(keys, async (env) => (await one.create(inputsOf(inputs, env))).outs);
      const made = [...outcomes].filter(([, o]) => o.outs !== undefined) as [
        string,
        { outs: FlagDefinitionOutputs },
      ][];
      const failed = failures(outcomes, "creating");
      if (made.length === 0) {
        const [e] = [...outcomes.values()].map((o) => o.error);
        throw failed.length === 1 ? e : new Error(failed.join("\n"), { cause: e });
      }
      const first = (made[0] as [string, { outs: FlagDefinitionOutputs }])[1].outs;
      const outs = joined(inputs, first, Object.fromEntries(made.map(([k, o]) => [k, entryOf(o.outs)])));
      if (failed.length > 0) {
        const applied = made.map(([k]) => k);
        throw failedPart(outs.flagId, outs, failed, applied, undefined);
      }
      return { id: outs.flagId, outs };
    },

    async read(id, props) {
      if (props.workspaceId === undefined) return importDefinitions(id);
      return readAll(props);
    },

    async update(id, olds, news) {
      const recorded = entriesOf(olds);
      const p = plan(recorded, news.definitions);
      const recordedKey = new Map(p.update);
      // Each environment's verb at once (they touch different definitions).
      const [removed, created, updated] = await Promise.all([
        each(p.remove, async (key) => {
          const entry = recorded[key] as EntryOutput;
          await one.delete(oneId(olds, entry), stateOf(olds, key, entry));
          return undefined;
        }),
        each(p.create, async (key) => (await one.create(inputsOf(news, key))).outs),
        each([...recordedKey.keys()], async (key) => {
          const was = recordedKey.get(key) as string;
          const old = recorded[was] as EntryOutput;
          return (await one.update(oneId(olds, old), stateOf(olds, was, old), inputsOf(news, key))).outs;
        }),
      ]);
      // What each environment holds now: written, unchanged, or as recorded where its verb failed.
      const entries: Record<string, EntryOutput> = {};
      for (const [key, was] of p.same) entries[key] = recorded[was] as EntryOutput;
      for (const [key, o] of created) if (o.outs) entries[key] = entryOf(o.outs);
      for (const [key, o] of updated)
        entries[key] = o.outs ? entryOf(o.outs) : (recorded[recordedKey.get(key) as string] as EntryOutput);
      for (const [key, o] of removed) if (o.error !== undefined) entries[key] = recorded[key] as EntryOutput;
      const firstWritten = [...created.values(), ...updated.values()].find((o) => o.outs)?.outs;
      const outs = joined(news, firstWritten ?? olds, entries);
      const failed = [
        ...failures(removed, "deleting"),
        ...failures(created, "creating"),
        ...failures(updated, "updating"),
      ];
      if (failed.length > 0) {
        const all = [...removed, ...created, ...updated];
        // Changed on the service, so recorded: a delete done, a write answered (a create whose
        // later step failed included: it exists).
        const applied = [
          ...[...removed].filter(([, o]) => o.error === undefined),
          ...[...created, ...updated].filter(([, o]) => o.outs !== undefined),
        ].map(([k]) => k);
        const changed = [...updated].filter(([, o]) => o.error instanceof ChangedSinceRecordedError);
        if (applied.length === 0 && changed.length === failed.length) {
          // Colleagues' edits only, nothing written: one refusal naming each field by its path.
          const fields = changed.flatMap(([key, o]) =>
            (o.error as ChangedSinceRecordedError).fields.map((f) => ({
              ...f,
              field: `definitions.${key}.${f.field}`,
            })),
          );
          throw new ChangedSinceRecordedError(`the definitions of flag "${olds.flagName}"`, fields);
        }
        throw failedPart(id, outs, failed, applied, all.find(([, o]) => o.error !== undefined)?.[1].error);
      }
      return { outs };
    },

    async lookup(inputs) {
      const found = await Promise.all(
        Object.keys(inputs.definitions).map((env) => one.lookup(inputsOf(inputs, env))),
      );
      if (!found.some((f) => f !== undefined)) return undefined;
      const times = found.flatMap((f) => (f?.createdAt === undefined ? [] : [f.createdAt]));
      return { createdAt: times.length === 0 ? undefined : Math.min(...times) };
    },

    async delete(_id, props) {
      const recorded = entriesOf(props);
      const keys = Object.keys(recorded);
      const outcomes = await each(keys, async (key) => {
        const entry = recorded[key] as EntryOutput;
        await one.delete(oneId(props, entry), stateOf(props, key, entry));
        return undefined;
      });
      const failed = failures(outcomes, "deleting");
      if (failed.length === 0) return;
      const done = keys.filter((k) => outcomes.get(k)?.error === undefined);
      const gone = done.length === 0 ? "" : `\nDeleted: ${done.map((k) => `"${k}"`).join(", ")}.`;
      throw new Error(`${failed.join("\n")}${gone}`);
    },
  },
);

/**
 * The targeting of one flag in several environments, one object.
 *
 * @example
 * ```ts
 * new FlagDefinitions("checkout", {
 *   workspace: "Default",
 *   flag: checkout, // the Flag: these definitions are deleted with it (or `checkout.name`)
 *   definitions: {
 *     Production: { treatments: [{ name: "on" }, { name: "off" }], defaultTreatment: "off" },
 *     Staging: {
 *       treatments: [{ name: "on" }, { name: "off" }],
 *       defaultTreatment: "off",
 *       defaultRule: [{ treatment: "on", size: 50 }, { treatment: "off", size: 50 }],
 *     },
 *   },
 * });
 * ```
 */
export const FlagDefinitions = resourceClass(
  "flag-definitions",
  FLAG_DEFINITIONS_TYPE,
  FlagDefinitionsInputs,
  FlagDefinitionsOutputs,
  // Deleting a flag removes its definitions, as for a `FlagDefinition`.
  { input: "flag", type: FLAG_TYPE, output: "name" },
);
/** A {@link FlagDefinitions} object: one `Output` per member of {@link FlagDefinitionsOutputs}. */
export type FlagDefinitions = InstanceType<typeof FlagDefinitions>;
/** What the engine stores as each object's `__provider`: a require of {@link impl}, no code, no secret. */
export const flagDefinitionsProviderText = FlagDefinitions.providerText;

/** The kind's one definition: what every registry, door, doc and kind-wide test reads (`../core/kind.ts`). */
export const kind = defineKind({
  resource: FlagDefinitions,
  impl,
  area: "flags",
  replaceOnChange: flagDefinitionsReplaceOnChange,
  importId: { form: "<workspace>/<flag>", example: "Default/search-v2" },
  doc: {
    what: "a flag's targeting in several environments, one object (one resource per flag: the shape that scales)",
    replaces: "flag, workspace",
    updates:
      "each environment as a `FlagDefinition` updates; an environment added is created, one removed deleted",
  },
  example: {
    inputs: {
      workspace: "Default",
      flag: "search-v2",
      definitions: {
        Staging: {
          treatments: [{ name: "on" }, { name: "off" }],
          defaultTreatment: "off",
          defaultRule: [
            { treatment: "on", size: 50 },
            { treatment: "off", size: 50 },
          ],
        },
        Production: {
          treatments: [{ name: "on" }, { name: "off" }],
          defaultTreatment: "off",
        },
      },
      title: "Ramp search v2 in Staging",
    },
    // A flag of its own (not the `FlagDefinition` example's), so the two kinds' writes differ by path.
    refs: { flag: { kind: "Flag", output: "name", change: { name: "search-v2" } } },
  },
});
