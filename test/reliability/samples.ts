/**
 * One valid object of every kind in `provider/kinds.ts`, as data: the inputs a program gives it,
 * from the kind's definition (its `example`: the inputs, the other kinds' objects it names, made
 * first through those kinds' own lifecycle, and the inputs made unique per object), and for each
 * input that updates in place two other values, a colleague's and the program's (derived from the
 * input's schema where it can be, {@link derivedEdits}, else given here). The kind-wide suites
 * (`kind-*.test.ts`) attack every kind through these samples, so a kind added to the list is
 * attacked without a new test; `samples.test.ts` fails when a kind has no sample or a sample leaves
 * an updatable input out.
 * @module
 */

import type { z } from "zod";
import type { Emulator } from "../../emulator";
import { valueAt, withValueAt } from "../../provider/core/kind";
import { type AnyHandlers, KIND_LIST, KINDS, type Kind } from "../../provider/kinds";
import { NATIVE_KINDS, type NativeKind } from "../../provider/native/kinds";
import type { AdminClient, PlatformClient } from "../../sdk";
import { BAD_INPUTS, type BadInput } from "./bad-inputs";

type Props = Record<string, unknown>;

/** What a sample is made with. */
export interface SampleContext {
  emu: Emulator;
  /** Straight to the emulator (the "someone else" of out-of-band changes). */
  admin: AdminClient;
  platform: PlatformClient;
  /** An identifier no other sample of the run uses: `prefix_` and a serial. */
  unique(prefix: string): string;
  /**
   * One object of `kind` made by that kind's own `check` and `create` from its sample (with
   * `change` over its inputs, each key a member or a path such as `pipeline.variables`): what
   * another kind's sample lives in.
   */
  make(kind: string, change?: Props): Promise<{ id: string; inputs: Props; outs: Props }>;
  /** The platform project every platform sample lives in (made once per context). */
  project(): Promise<string>;
}

/** Two values other than the sample's own: a colleague's edit, then the program's change. */
export type Edit = readonly [unknown, unknown];

/** One kind's sample. */
export interface Sample {
  /**
   * The program's inputs of one new object (before `check`); by default the kind's example with
   * its unique inputs made unique and the objects it names made first ({@link exampleInputs}).
   */
  inputs?(ctx: SampleContext): Promise<Props>;
  /**
   * For each input that updates in place: a colleague's value and the program's next value; an
   * input left out of it and of {@link notEdited} gets the values {@link derivedEdits} finds.
   */
  edits?(ctx: SampleContext, inputs: Props): Promise<Record<string, Edit>> | Record<string, Edit>;
  /**
   * Inputs that update in place but are not edited here, each with the reason (the suites' check
   * that every updatable input is covered reads both lists).
   */
  notEdited?: Record<string, string>;
  /**
   * Inputs whose out-of-band edit the update keeps instead of refusing (the program's change is
   * applied on top of the colleague's), with the reason.
   */
  keepsOutOfBand?: Record<string, string>;
  /**
   * When the API cannot find an object whose create answer was lost (no read or list of it): the
   * create must then fail with a message matching this, telling the user what to do, instead of
   * letting the next `pulumi up` make a second one silently.
   */
  lostCreateRefused?: RegExp;
  /** Why a deleted object still reads as present (the API has no read of it), when it does. */
  noRead?: string;
  /**
   * Inputs the API never shows back (a secret's value): a colleague's edit cannot be seen, so the
   * update writes the program's value whatever is live, with the reason.
   */
  writeOnly?: Record<string, string>;
  /** The input naming the feature-flag environment the kind writes into (approval gates apply). */
  environmentInput?: string;
  /**
   * Writes into a gated environment that change no targeting (`METHOD path`), which the service
   * does not gate: each pattern's reason is in the sample's comment.
   */
  ungatedWrites?: RegExp[];
  /** Why a kind whose inputs name environments writes nothing an approval gate covers. */
  notGated?: string;
  /**
   * Changes made outside Pulumi to what the program does not declare (a user's status), by label:
   * `settle` brings the new object where such a change can happen (a refresh then records it),
   * `change` makes it. A refresh must see it and the next `up` put it back.
   */
  drifts?: Record<string, Drift>;
  /**
   * Malformed inputs of the kind, as changes over these inputs (`bad-inputs.ts`, merged in by
   * {@link kindsUnderTest}): the bad input suite fails for a kind without one.
   */
  badInputs?: readonly BadInput[];
}

/** One change outside Pulumi of what the program does not declare ({@link Sample.drifts}). */
export interface Drift {
  settle?(ctx: SampleContext, object: { id: string; outs: Props }): Promise<void>;
  change(ctx: SampleContext, object: { id: string; outs: Props }): Promise<void>;
}

/**
 * Inputs that steer the provider rather than describe the object: never "updatable fields" of
 * the object itself.
 */
export const CONTROL_INPUTS = new Set(["adopt", "title", "comment", "changeRequest", "waitForApproval"]);

/** Why a segment's description is not edited: the update refuses it, naming it (the segment tests). */
const CANNOT_CHANGE = "the API cannot change it; the update refuses naming it, as the segment tests assert";

const proRule = (value: string) => ({
  condition: { combiner: "AND", matchers: [{ type: "EQUAL_SET", attribute: "plan", strings: [value] }] },
});
const definitionRules = (value: string) => [
  {
    buckets: [{ treatment: "on", size: 100 }],
    condition: {
      combiner: "AND",
      matchers: [{ type: "IN_LIST_STRING", attribute: "plan", strings: [value] }],
    },
  },
];

const docker = (url: string) => ({
  url,
  providerType: "DockerHub",
  auth: { type: "Anonymous" },
});

/**
 * What each kind's sample adds to its example (`provider/<area>/<kind>.ts`), by kind name (the
 * type name of its token): the edits the schema cannot find and the exceptions, each with its
 * reason. A kind whose updatable inputs {@link derivedEdits} covers needs no entry.
 */
export const SAMPLES: Readonly<Record<string, Sample>> = {
  Workspace: {
    edits: () => ({ requiresTitleAndComments: [true, true] }),
    notEdited: { name: "a rename: edited by the Flag-like kinds' name checks elsewhere" },
  },
  Environment: {
    edits: () => ({
      production: [true, true],
    }),
    notEdited: {
      name: "renaming an environment is covered by the environment tests",
      changePermissions: "approval settings: the approval-gate suite sets them",
    },
  },
  TrafficType: {
    edits: () => ({}),
  },
  TrafficTypeAttribute: {
    edits: () => ({
      displayName: ["Plan (colleague)", "Plan (program)"],
      description: ["by a colleague", "by the program"],
      dataType: ["NUMBER", "DATETIME"],
      suggestedValues: [["gold"], ["silver"]],
      isSearchable: [true, true],
    }),
  },
  ApiKey: {
    edits: () => ({}),
    notGated: "an API key is not a change to an environment's targeting: change permissions do not cover it",
    noRead: "the API has no read of a key: what was recorded is all there is",
    lostCreateRefused:
      /the answer to creating API key "payments-staging-server_\d+" was lost .*revoke any key named "payments-staging-server_\d+"/s,
  },
  Flag: {
    edits: async (c) => {
      const [a, b] = [
        await c.admin.groups.create({ name: c.unique("ga") }),
        await c.admin.groups.create({ name: c.unique("gb") }),
      ];
      return {
        description: ["by a colleague", "by the program"],
        tags: [["team-b"], ["team-c"]],
        rolloutStatus: ["Ramping", "Experimenting"],
        owners: [[{ type: "group", id: a.id }], [{ type: "group", id: b.id }]],
      };
    },
  },
  FlagDefinition: {
    environmentInput: "environment",
    edits: async (c) => {
      const [set, other] = [await c.make("FlagSet"), await c.make("FlagSet")];
      return {
        treatments: [
          [{ name: "on" }, { name: "off" }, { name: "colleague" }],
          [{ name: "on" }, { name: "off" }, { name: "program" }],
        ],
        defaultTreatment: ["on", "on"],
        baselineTreatment: ["on", "off"],
        trafficAllocation: [50, 80],
        rules: [definitionRules("gold"), definitionRules("silver")],
        defaultRule: [
          [
            { treatment: "on", size: 30 },
            { treatment: "off", size: 70 },
          ],
          [
            { treatment: "on", size: 60 },
            { treatment: "off", size: 40 },
          ],
        ],
        flagSets: [[set.outs.flagSetId], [other.outs.flagSetId]],
        killed: [true, true],
      };
    },
  },
  FlagDefinitions: {
    environmentInput: "definitions",
    edits: (_c, inputs) => {
      // The first environment's default rule (the suites may key the map by an environment of theirs).
      const definitions = inputs.definitions as Record<string, Props>;
      const [env, entry] = Object.entries(definitions)[0] as [string, Props];
      const withRule = (defaultRule: Props[]) => ({ ...definitions, [env]: { ...entry, defaultRule } });
      return {
        definitions: [
          withRule([
            { treatment: "on", size: 30 },
            { treatment: "off", size: 70 },
          ]),
          withRule([
            { treatment: "on", size: 60 },
            { treatment: "off", size: 40 },
          ]),
        ],
      };
    },
  },
  Group: {
    edits: (c) => ({
      name: [c.unique("group_a"), c.unique("group_b")],
      description: ["by a colleague", "by the program"],
    }),
  },
  UserInvite: {
    edits: async (c) => {
      const [a, b] = [await c.make("Group"), await c.make("Group")];
      return { groups: [[a.outs.name], [b.outs.name]], onDelete: ["retain", "fail"] };
    },
    keepsOutOfBand: {
      onDelete: "what a destroy does to an active user: the state's alone, the service has no such field",
    },
    drifts: {
      "deactivated by an administrator": {
        settle: async (c, user) => {
          await c.emu.acceptInvitation(user.id);
        },
        change: async (c, user) => {
          const u = await c.admin.users.get(user.id);
          await c.admin.users.put(user.id, {
            email: u.email,
            name: u.name,
            "2fa": u["2fa"],
            status: "DEACTIVATED",
            type: "user",
          });
        },
      },
    },
  },
  Organization: {
    edits: () => ({
      name: ["Colleague org", "Program org"],
      description: ["by a colleague", "by the program"],
      tags: [{ by: "colleague" }, { by: "program" }],
    }),
  },
  Project: {
    notEdited: { modules: "server-owned: the service enables every module and never removes one" },
    edits: () => ({
      name: ["Colleague project", "Program project"],
      color: ["#aa0000", "#00aa00"],
      description: ["by a colleague", "by the program"],
      tags: [{ by: "colleague" }, { by: "program" }],
    }),
  },
  Connector: {
    edits: (c) => ({
      name: [c.unique("Colleague"), c.unique("Program")],
      description: ["by a colleague", "by the program"],
      tags: [{ by: "colleague" }, { by: "program" }],
      dockerRegistry: [
        docker("https://colleague.example.test/v2/"),
        docker("https://program.example.test/v2/"),
      ],
    }),
    notEdited: {
      github: "one connector kind per object: a change of kind replaces it",
      git: "one connector kind per object",
      kubernetes: "one connector kind per object",
      aws: "one connector kind per object",
      gcp: "one connector kind per object",
      httpHelm: "one connector kind per object",
      generic: "one connector kind per object",
    },
  },
  Pipeline: {
    edits: (_c, inputs) => {
      const script = (text: string) =>
        withValueAt(inputs.pipeline, "stages.0.execution.steps.0.script", text) as Props;
      return { pipeline: [script("echo colleague"), script("echo program")] };
    },
    notEdited: { yaml: "the same pipeline as `pipeline`, given as text: one of the two is given" },
  },
  Segment: {
    edits: () => ({ tags: [["a"], ["b"]] }),
    notEdited: { description: CANNOT_CHANGE },
  },
  SegmentKeys: {
    environmentInput: "environment",
    // Activating the segment in the environment before any key is uploaded: no key, no targeting
    // (the service gates the keys, ref admin §1.2).
    ungatedWrites: [/^POST \/internal\/api\/v2\/segments\/[^/]+\/[^/]+$/],
    edits: () => ({
      keys: [
        ["alice", "bob", "colleague"],
        ["alice", "program"],
      ],
    }),
    keepsOutOfBand: {
      keys: "key additions and removals are sent from the recorded set: a colleague's other keys survive",
    },
  },
  LargeSegment: {
    notGated:
      "the sample activates and deactivates the segment in environments and gives no members: with none, no targeting changes, and the service gates only a segment that holds members",
    edits: () => ({ environments: [["Staging", "Production"], []] }),
    notEdited: {
      description: CANNOT_CHANGE,
      members:
        "every upload is a change request (approved or not, the service never shows members back): its lifecycle, digest diff and approval are tested in test/provider/flags/large-segment.test.ts and test/e2e/large-segment-members.test.ts",
    },
    keepsOutOfBand: {
      environments:
        "each environment is active or not: the update activates and deactivates only those the program changes (a 409 or 404 counts as done), a colleague's other environments stay",
    },
  },
  RuleBasedSegment: {
    edits: () => ({}),
    notEdited: { description: CANNOT_CHANGE },
  },
  RuleBasedSegmentDefinition: {
    environmentInput: "environment",
    // Activating the segment in the environment, with an empty definition, before its rules go
    // through a change request: no rule, no targeting (the service gates the definition's PUT).
    ungatedWrites: [/^POST \/internal\/api\/v2\/rule-based-segments\/[^/]+\/[^/]+$/],
    edits: async (c) => {
      const [a, b] = [await c.make("Segment"), await c.make("Segment")];
      return {
        rules: [[proRule("gold")], [proRule("silver")]],
        excludedKeys: [["colleague"], ["program"]],
        excludedSegments: [
          [{ name: a.outs.name, type: "standard" }],
          [{ name: b.outs.name, type: "standard" }],
        ],
      };
    },
  },
  FlagSet: {
    edits: () => ({}),
  },
  Restriction: {
    // One restriction per workspace: each object restricts a workspace of its own (the example
    // names a Workspace, made for it).
    edits: async (c) => {
      const [a, b] = [await c.make("Group"), await c.make("Group")];
      return {
        view: [false, false],
        viewers: [[{ type: "group", id: a.outs.groupId }], [{ type: "group", id: b.outs.groupId }]],
      };
    },
  },
  Secret: {
    edits: (c) => ({
      name: [c.unique("Colleague"), c.unique("Program")],
      description: ["by a colleague", "by the program"],
      tags: [{ by: "colleague" }, { by: "program" }],
      value: [`sentinel-${c.unique("colleague")}-3f9a`, `sentinel-${c.unique("program")}-3f9a`],
    }),
    writeOnly: { value: "the API never shows a secret's value: the update writes the program's" },
    notEdited: {
      secretManager: "the built-in secret manager is the only one the emulator has",
      file: "a file secret is a Secret of the other type (value or file: a change replaces)",
      fileEncoding: "only with file",
    },
  },
  Service: {
    edits: () => ({
      name: ["Colleague service", "Program service"],
      description: ["by a colleague", "by the program"],
      tags: [{ by: "colleague" }, { by: "program" }],
    }),
    notEdited: {
      kubernetes: "the service definition: covered by the service tests",
      yaml: "the same service given as text",
    },
  },
  DeliveryEnvironment: {
    edits: () => ({
      name: ["Colleague", "Program"],
      description: ["by a colleague", "by the program"],
      tags: [{ by: "colleague" }, { by: "program" }],
      type: ["PreProduction", "PreProduction"],
      variables: [
        [{ name: "replicas", type: "Number", value: 4 }],
        [{ name: "replicas", type: "Number", value: 5 }],
      ],
    }),
    notEdited: { overrides: "service manifests per environment: covered by the delivery-environment tests" },
  },
  ServiceOverrides: {
    notGated:
      "an override's environment is a delivery environment of the platform API, which has no approval gates",
    edits: () => ({
      variables: [
        [{ name: "replicas", type: "String", value: "3" }],
        [{ name: "replicas", type: "String", value: "4" }],
      ],
      manifests: [
        [
          {
            identifier: "values_a",
            type: "Values",
            spec: { store: { type: "Harness", spec: { files: ["account:/a"] } } },
          },
        ],
        [
          {
            identifier: "values_b",
            type: "Values",
            spec: { store: { type: "Harness", spec: { files: ["account:/b"] } } },
          },
        ],
      ],
      configFiles: [
        [{ identifier: "config_a", spec: { store: { type: "Harness", spec: { files: ["account:/ca"] } } } }],
        [{ identifier: "config_b", spec: { store: { type: "Harness", spec: { files: ["account:/cb"] } } } }],
      ],
    }),
  },
  EnvironmentGroup: {
    notGated: "its environments are delivery environments of the platform API, which has no approval gates",
    edits: async (c, inputs) => {
      const project = { project: inputs.project };
      const [a, b] = [
        await c.make("DeliveryEnvironment", project),
        await c.make("DeliveryEnvironment", project),
      ];
      return {
        name: ["Colleague", "Program"],
        description: ["by a colleague", "by the program"],
        tags: [{ by: "colleague" }, { by: "program" }],
        color: ["#AA0000", "#00AA00"],
        environments: [[a.outs.identifier], [b.outs.identifier]],
      };
    },
  },
  Infrastructure: {
    notGated: "its environment is a delivery environment of the platform API, which has no approval gates",
    edits: () => ({
      name: ["Colleague", "Program"],
      description: ["by a colleague", "by the program"],
      tags: [{ by: "colleague" }, { by: "program" }],
      definition: [
        { type: "KubernetesGcp", connectorRef: "gcp", cluster: "prod-2", namespace: "co", releaseName: "co" },
        { type: "KubernetesGcp", connectorRef: "gcp", cluster: "prod-3", namespace: "co", releaseName: "co" },
      ],
    }),
    notEdited: { deploymentType: "Kubernetes is the only deployment type of the definitions above" },
  },
  InputSet: {
    edits: () => ({
      name: ["Colleague", "Program"],
      description: ["by a colleague", "by the program"],
      tags: [{ by: "colleague" }, { by: "program" }],
      values: [
        { variables: [{ name: "env", type: "String", value: "colleague" }] },
        { variables: [{ name: "env", type: "String", value: "program" }] },
      ],
    }),
    notEdited: {
      yaml: "the same input set given as text",
      pipelineYaml: "the pipeline's YAML the values are checked against: not sent",
    },
  },
  Template: {
    edits: () => {
      const stage = (script: string) => ({
        type: "Custom",
        execution: {
          steps: [{ type: "ShellScript", name: "Echo", identifier: "echo", script, timeout: "10m" }],
        },
      });
      return {
        name: ["Colleague", "Program"],
        description: ["by a colleague", "by the program"],
        tags: [{ by: "colleague" }, { by: "program" }],
        stage: [stage("echo colleague"), stage("echo program")],
      };
    },
    notEdited: {
      pipeline: "the body of a Pipeline template: the sample is a Stage template",
      spec: "the raw body of the types the model does not type: the sample's stage is typed",
      isStable:
        "a version stops being stable only when another version is made stable: covered by the template tests",
      comments:
        "the comment sent with a write, not a field of the version: the API never shows it and a change alone writes nothing",
    },
  },
  Trigger: {
    edits: () => ({
      name: ["Colleague", "Program"],
      description: ["by a colleague", "by the program"],
      tags: [{ by: "colleague" }, { by: "program" }],
      enabled: [false, false],
      cron: [{ expression: "0 4 * * 1-5" }, { expression: "0 5 * * 1-5" }],
    }),
    notEdited: {
      webhook: "a webhook trigger is a trigger of the other source (cron or webhook)",
      inputSetRefs: "needs input sets: covered by the trigger tests",
    },
  },
};

/** A kind's whole sample: its inputs and edits, given or derived. */
export type FullSample = Sample & Required<Pick<Sample, "inputs" | "edits">>;

/** Each kind of the list with its sample: the suites iterate over this. */
export interface KindUnderTest extends NativeKind {
  sample: FullSample;
}

/** The definition of a kind by name. */
function definitionOf(name: string): Kind {
  const kind = KIND_LIST.find((k) => k.name === name);
  if (!kind) throw new Error(`no kind ${name}`);
  return kind;
}

/** `value` made unique by `ctx`: the example's value and a serial (before the `@` of an e-mail). */
function uniqueValue(ctx: SampleContext, value: unknown): string {
  const text = String(value);
  const at = text.indexOf("@");
  return at < 0 ? ctx.unique(text) : `${ctx.unique(text.slice(0, at))}${text.slice(at)}`;
}

/** The objects a context made once for every example that names them (`shared` refs), by kind. */
const sharedObjects = new WeakMap<SampleContext, Map<string, Promise<{ outs: Props }>>>();

/**
 * A new object's inputs from its kind's example (`provider/<area>/<kind>.ts`): each unique input
 * made unique, and each input that names another kind's object given that object's output, the
 * object made first through its kind's own lifecycle (`ctx.make`, with the ref's changes), or once
 * per context when the ref is `shared`.
 */
export async function exampleInputs(ctx: SampleContext, name: string): Promise<Props> {
  const { example } = definitionOf(name);
  if (example === undefined)
    throw new Error(`kind ${name}: no example in its definition and no sample inputs in samples.ts`);
  let inputs: unknown = structuredClone(example.inputs);
  for (const path of example.unique ?? [])
    inputs = withValueAt(inputs, path, uniqueValue(ctx, valueAt(inputs, path)));
  for (const [path, ref] of Object.entries(example.refs ?? {})) {
    // A change of an input the other kind makes unique (a flag's own name) is made unique too.
    const unique = definitionOf(ref.kind).example?.unique ?? [];
    const change =
      ref.change &&
      Object.fromEntries(
        Object.entries(ref.change).map(([p, v]) => [p, unique.includes(p) ? uniqueValue(ctx, v) : v]),
      );
    let object: Promise<{ outs: Props }>;
    if (ref.shared) {
      const made = sharedObjects.get(ctx) ?? new Map<string, Promise<{ outs: Props }>>();
      sharedObjects.set(ctx, made);
      object = made.get(ref.kind) ?? ctx.make(ref.kind, change);
      made.set(ref.kind, object);
    } else object = ctx.make(ref.kind, change);
    inputs = withValueAt(inputs, path, (await object).outs[ref.output]);
  }
  return inputs as Props;
}

/** Candidate values, a colleague's and the program's, for an input other than `value`. */
function candidates(schema: z.ZodType, value: unknown): Edit[] {
  const def = (schema as unknown as { _zod: { def: Props & { type: string } } })._zod.def;
  switch (def.type) {
    case "optional":
    case "default":
    case "prefault":
    case "nullable":
    case "readonly":
      return candidates(def.innerType as z.ZodType, value);
    case "pipe":
      return candidates(def.in as z.ZodType, value);
    case "boolean":
      return [[value !== true, value !== true]];
    case "enum": {
      const others = Object.values(def.entries as Props).filter((v) => v !== value);
      return others.length === 0 ? [] : [[others[0], others[1] ?? others[0]]];
    }
    case "number":
    case "int":
      return [
        [typeof value === "number" ? value + 1 : 1, typeof value === "number" ? value + 2 : 2],
        [50, 80],
        [typeof value === "number" ? value - 1 : 0, typeof value === "number" ? value - 2 : 0],
      ];
    case "string":
      return [
        ["by a colleague", "by the program"],
        [`${String(value ?? "value")}-colleague`, `${String(value ?? "value")}-program`],
      ];
    case "array":
      return candidates(def.element as z.ZodType, undefined).map(([a, b]) => [[a], [b]] as const);
    case "record":
    case "custom":
      return [[{ by: "colleague" }, { by: "program" }]];
    default:
      return [];
  }
}

/**
 * Edits found from each updatable input's schema for the inputs a sample neither edits nor leaves
 * out (a boolean flipped, another member of an enum, another number, a string, a list or a map of
 * them): the first candidate both of whose values the kind's `check` takes and that differs from
 * the sample's value.
 */
export async function derivedEdits(
  kind: NativeKind,
  inputs: Props,
  fields: readonly string[],
): Promise<Record<string, Edit>> {
  const out: Record<string, Edit> = {};
  const shape = kind.inputs.shape as Record<string, z.ZodType>;
  for (const field of fields) {
    const schema = shape[field];
    if (!schema) continue;
    for (const [a, b] of candidates(schema, inputs[field])) {
      if (JSON.stringify(b) === JSON.stringify(inputs[field])) continue;
      const ok = async (v: unknown) =>
        ((await kind.impl.check({}, { ...inputs, [field]: v })).failures ?? []).length === 0;
      if ((await ok(a)) && (await ok(b))) {
        out[field] = [a, b];
        break;
      }
    }
  }
  return out;
}

/** A kind's whole sample: its entry of {@link SAMPLES} (if any) over what its definition gives. */
export function sampleOf(kind: NativeKind, given: Sample = SAMPLES[kind.name] ?? {}): FullSample {
  return {
    badInputs: BAD_INPUTS[kind.name] ?? [],
    ...given,
    inputs: given.inputs ?? ((ctx) => exampleInputs(ctx, kind.name)),
    async edits(ctx, inputs) {
      const edits = { ...((await given.edits?.(ctx, inputs)) ?? {}) };
      const left = updatableInputs(kind).filter((f) => !(f in edits) && !(f in (given.notEdited ?? {})));
      return { ...edits, ...(await derivedEdits(kind, inputs, left)) };
    },
  };
}

/** Every kind of `provider/kinds.ts`, in its order, with its sample. */
export function kindsUnderTest(): KindUnderTest[] {
  return NATIVE_KINDS.map((k) => ({ ...k, sample: sampleOf(k) }));
}

/** The inputs of `kind` that update in place: neither replacing nor steering the provider. */
export function updatableInputs(kind: NativeKind): string[] {
  return Object.keys(kind.inputs.shape).filter(
    (f) => !kind.replaceOnChange.includes(f) && !CONTROL_INPUTS.has(f),
  );
}

/** The implementation of a kind by name. */
export function implOf(name: string): AnyHandlers {
  const kind = NATIVE_KINDS.find((k) => k.name === name);
  if (!kind) throw new Error(`no kind ${name}`);
  return KINDS[kind.dynamicToken] as AnyHandlers;
}
