/**
 * One valid object of every kind in `provider/kinds.ts`, as data: the inputs a program gives it
 * (with what it lives in made first, through the other kinds' own lifecycle), and for each input
 * that updates in place two other values, a colleague's and the program's. The kind-wide suites
 * (`kind-*.test.ts`) attack every kind through these samples, so a kind added to the list is
 * attacked without a new test; `samples.test.ts` fails when a kind has no sample or a sample leaves
 * an updatable input out.
 * @module
 */
import type { Emulator } from "../../emulator";
import { type AnyHandlers, KINDS } from "../../provider/kinds";
import { NATIVE_KINDS, type NativeKind } from "../../provider/native/kinds";
import type { AdminClient, PlatformClient } from "../../sdk";
import { renderPipelineYaml } from "../../sdk/platform/pipeline";
import { hello } from "../provider/fixtures/pipelines";
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
   * `change` over its inputs): what another kind's sample lives in.
   */
  make(kind: string, change?: Props): Promise<{ id: string; inputs: Props; outs: Props }>;
  /** The platform project every platform sample lives in (made once per context). */
  project(): Promise<string>;
}

/** Two values other than the sample's own: a colleague's edit, then the program's change. */
export type Edit = readonly [unknown, unknown];

/** One kind's sample. */
export interface Sample {
  /** The program's inputs of one new object (before `check`). */
  inputs(ctx: SampleContext): Promise<Props>;
  /** For each input that updates in place: a colleague's value and the program's next value. */
  edits(ctx: SampleContext, inputs: Props): Promise<Record<string, Edit>> | Record<string, Edit>;
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

const note = { title: "kind-wide suite", comment: "managed by the reliability suite" };
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
const helloModel = (identifier: string, script = "echo hello") => ({
  ...hello,
  identifier,
  name: `Pipeline ${identifier}`,
  stages: [
    {
      type: "Custom",
      name: "Say hello",
      identifier: "say_hello",
      execution: { steps: [{ type: "ShellScript", name: "Echo", identifier: "echo", script }] },
    },
  ],
});
/** A pipeline with one runtime input (`env`), for input sets and triggers. */
const runtimePipelineYaml = (identifier: string, project: string) =>
  [
    "pipeline:",
    `  identifier: ${identifier}`,
    `  name: Deploy ${identifier}`,
    "  orgIdentifier: default",
    `  projectIdentifier: ${project}`,
    "  variables:",
    "    - name: env",
    "      type: String",
    "      value: <+input>",
    "  stages:",
    "    - stage:",
    "        name: Say hello",
    "        identifier: say_hello",
    "        type: Custom",
    "        spec:",
    "          execution:",
    "            steps:",
    "              - step:",
    "                  name: Echo",
    "                  identifier: echo",
    "                  type: ShellScript",
    "                  spec:",
    "                    shell: Bash",
    "                    onDelegate: true",
    "                    source:",
    "                      type: Inline",
    "                      spec:",
    "                        script: echo hello",
    "                  timeout: 10m",
    "",
  ].join("\n");

const docker = (url: string) => ({
  url,
  providerType: "DockerHub",
  auth: { type: "Anonymous" },
});

/** Every kind's sample, by kind name (the type name of its token). */
export const SAMPLES: Readonly<Record<string, Sample>> = {
  Workspace: {
    inputs: async (c) => ({ name: c.unique("ws") }),
    edits: () => ({ requiresTitleAndComments: [true, true] }),
    notEdited: { name: "a rename: edited by the Flag-like kinds' name checks elsewhere" },
  },
  Environment: {
    inputs: async (c) => ({ workspace: "Default", name: c.unique("env"), production: false }),
    edits: () => ({
      production: [true, true],
    }),
    notEdited: {
      name: "renaming an environment is covered by the environment tests",
      changePermissions: "approval settings: the approval-gate suite sets them",
    },
  },
  TrafficType: {
    inputs: async (c) => ({ workspace: "Default", name: c.unique("tt") }),
    edits: () => ({}),
  },
  TrafficTypeAttribute: {
    inputs: async (c) => ({
      workspace: "Default",
      trafficType: "user",
      attributeId: c.unique("attr"),
      displayName: "Plan",
      description: "the plan",
      dataType: "STRING",
    }),
    edits: () => ({
      displayName: ["Plan (colleague)", "Plan (program)"],
      description: ["by a colleague", "by the program"],
      dataType: ["NUMBER", "DATETIME"],
      suggestedValues: [["gold"], ["silver"]],
      isSearchable: [true, true],
    }),
  },
  ApiKey: {
    inputs: async (c) => ({
      name: c.unique("key"),
      apiKeyType: "server_side",
      workspace: "Default",
      environments: ["Staging"],
    }),
    edits: () => ({}),
    notGated: "an API key is not a change to an environment's targeting: change permissions do not cover it",
    noRead: "the API has no read of a key: what was recorded is all there is",
    lostCreateRefused: /the answer to creating API key "key_\d+" was lost .*revoke any key named "key_\d+"/s,
  },
  Flag: {
    inputs: async (c) => ({
      workspace: "Default",
      trafficType: "user",
      name: c.unique("flag"),
      description: "sample flag",
      tags: ["team-a"],
    }),
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
    inputs: async (c) => {
      const flag = await c.make("Flag");
      return {
        workspace: "Default",
        flag: flag.outs.name,
        environment: "Staging",
        treatments: [{ name: "on" }, { name: "off" }],
        defaultTreatment: "off",
        rules: definitionRules("pro"),
        defaultRule: [
          { treatment: "on", size: 10 },
          { treatment: "off", size: 90 },
        ],
        ...note,
      };
    },
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
  Group: {
    inputs: async (c) => ({ name: c.unique("group"), description: "sample group" }),
    edits: (c) => ({
      name: [c.unique("group_a"), c.unique("group_b")],
      description: ["by a colleague", "by the program"],
    }),
  },
  UserInvite: {
    inputs: async (c) => ({ email: `${c.unique("user")}@example.test`, groups: [] }),
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
    inputs: async (c) => ({ identifier: c.unique("org"), name: "Sample org", description: "sample" }),
    edits: () => ({
      name: ["Colleague org", "Program org"],
      description: ["by a colleague", "by the program"],
      tags: [{ by: "colleague" }, { by: "program" }],
    }),
  },
  Project: {
    notEdited: { modules: "server-owned: the service enables every module and never removes one" },
    inputs: async (c) => ({
      org: "default",
      identifier: c.unique("proj"),
      name: "Sample project",
      color: "#0063f7",
    }),
    edits: () => ({
      name: ["Colleague project", "Program project"],
      color: ["#aa0000", "#00aa00"],
      description: ["by a colleague", "by the program"],
      tags: [{ by: "colleague" }, { by: "program" }],
    }),
  },
  Connector: {
    inputs: async (c) => ({
      org: "default",
      project: await c.project(),
      identifier: c.unique("conn"),
      name: c.unique("Connector"),
      dockerRegistry: docker("https://index.docker.io/v2/"),
    }),
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
    inputs: async (c) => ({
      org: "default",
      project: await c.project(),
      pipeline: helloModel(c.unique("pipe")),
    }),
    edits: (_c, inputs) => {
      const id = (inputs.pipeline as { identifier: string }).identifier;
      return { pipeline: [helloModel(id, "echo colleague"), helloModel(id, "echo program")] };
    },
    notEdited: { yaml: "the same pipeline as `pipeline`, given as text: one of the two is given" },
  },
  Segment: {
    inputs: async (c) => ({
      workspace: "Default",
      trafficType: "user",
      name: c.unique("seg"),
      description: "sample",
    }),
    edits: () => ({ tags: [["a"], ["b"]] }),
    notEdited: { description: CANNOT_CHANGE },
  },
  SegmentKeys: {
    environmentInput: "environment",
    // Activating the segment in the environment before any key is uploaded: no key, no targeting
    // (the service gates the keys, ref admin §1.2).
    ungatedWrites: [/^POST \/internal\/api\/v2\/segments\/[^/]+\/[^/]+$/],
    inputs: async (c) => {
      const segment = await c.make("Segment");
      return {
        workspace: "Default",
        environment: "Staging",
        segment: segment.outs.name,
        keys: ["k1", "k2"],
        ...note,
      };
    },
    edits: () => ({
      keys: [
        ["k1", "k2", "colleague"],
        ["k1", "program"],
      ],
    }),
    keepsOutOfBand: {
      keys: "key additions and removals are sent from the recorded set: a colleague's other keys survive",
    },
  },
  LargeSegment: {
    notGated:
      "the sample activates and deactivates the segment in environments and gives no members: with none, no targeting changes, and the service gates only a segment that holds members",
    inputs: async (c) => ({
      workspace: "Default",
      trafficType: "user",
      name: c.unique("lseg"),
      description: "sample",
      environments: ["Staging"],
    }),
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
    inputs: async (c) => ({
      workspace: "Default",
      trafficType: "user",
      name: c.unique("rbs"),
      description: "sample",
    }),
    edits: () => ({}),
    notEdited: { description: CANNOT_CHANGE },
  },
  RuleBasedSegmentDefinition: {
    environmentInput: "environment",
    // Activating the segment in the environment, with an empty definition, before its rules go
    // through a change request: no rule, no targeting (the service gates the definition's PUT).
    ungatedWrites: [/^POST \/internal\/api\/v2\/rule-based-segments\/[^/]+\/[^/]+$/],
    inputs: async (c) => {
      const segment = await c.make("RuleBasedSegment");
      return {
        workspace: "Default",
        environment: "Staging",
        segment: segment.outs.name,
        rules: [proRule("pro")],
        excludedKeys: ["qa-bot"],
        ...note,
      };
    },
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
    inputs: async (c) => ({ workspace: "Default", name: c.unique("set"), description: "sample" }),
    edits: () => ({}),
  },
  Restriction: {
    // One restriction per workspace: each object restricts a workspace of its own.
    inputs: async (c) => {
      const [ws, group] = [await c.make("Workspace"), await c.make("Group")];
      return { workspace: ws.outs.name, viewers: [{ type: "group", id: group.outs.groupId }] };
    },
    edits: async (c) => {
      const [a, b] = [await c.make("Group"), await c.make("Group")];
      return {
        view: [false, false],
        viewers: [[{ type: "group", id: a.outs.groupId }], [{ type: "group", id: b.outs.groupId }]],
      };
    },
  },
  Secret: {
    inputs: async (c) => ({
      org: "default",
      project: await c.project(),
      identifier: c.unique("secret"),
      name: c.unique("Secret"),
      value: `sentinel-${c.unique("value")}-3f9a`,
    }),
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
    inputs: async (c) => ({
      org: "default",
      project: await c.project(),
      identifier: c.unique("svc"),
      name: "Checkout",
    }),
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
    inputs: async (c) => ({
      org: "default",
      project: await c.project(),
      identifier: c.unique("denv"),
      name: "Production",
      type: "Production",
      variables: [{ name: "replicas", type: "Number", value: 3 }],
    }),
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
    inputs: async (c) => {
      const env = await c.make("DeliveryEnvironment");
      return {
        org: "default",
        project: env.outs.project,
        identifier: c.unique("ovr"),
        type: "ENV_GLOBAL_OVERRIDE",
        environment: env.outs.identifier,
        variables: [{ name: "replicas", type: "String", value: "2" }],
      };
    },
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
    inputs: async (c) => {
      const env = await c.make("DeliveryEnvironment");
      return {
        org: "default",
        project: env.outs.project,
        identifier: c.unique("egrp"),
        name: "Production group",
        environments: [env.outs.identifier],
      };
    },
    edits: async (c) => {
      const [a, b] = [await c.make("DeliveryEnvironment"), await c.make("DeliveryEnvironment")];
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
    inputs: async (c) => {
      const env = await c.make("DeliveryEnvironment");
      return {
        org: "default",
        project: env.outs.project,
        identifier: c.unique("infra"),
        name: "GKE",
        environment: env.outs.identifier,
        definition: {
          type: "KubernetesGcp",
          connectorRef: "gcp",
          cluster: "prod-1",
          namespace: "co",
          releaseName: "co",
        },
      };
    },
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
    inputs: async (c) => {
      const project = await c.project();
      const pipelineIdentifier = c.unique("deploy");
      await c.platform.pipelines.create(runtimePipelineYaml(pipelineIdentifier, project), {
        org: "default",
        project,
      });
      return {
        org: "default",
        project,
        pipelineIdentifier,
        identifier: c.unique("iset"),
        name: "Prod",
        values: { variables: [{ name: "env", type: "String", value: "prod" }] },
      };
    },
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
  Trigger: {
    inputs: async (c) => {
      const project = await c.project();
      const pipeline = c.unique("hello");
      await c.platform.pipelines.create(
        renderPipelineYaml(helloModel(pipeline) as never, { org: "default", project }),
        {
          org: "default",
          project,
        },
      );
      return {
        org: "default",
        project,
        pipelineIdentifier: pipeline,
        identifier: c.unique("trig"),
        name: "Nightly",
        cron: { expression: "0 3 * * 1-5" },
      };
    },
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

/** Each kind of the list with its sample: the suites iterate over this. */
export interface KindUnderTest extends NativeKind {
  sample: Sample;
}

/** Every kind of `provider/kinds.ts`, in its order, with its sample (a kind without one throws). */
export function kindsUnderTest(): KindUnderTest[] {
  return NATIVE_KINDS.map((k) => {
    const sample = SAMPLES[k.name];
    if (sample === undefined) throw new Error(`test/reliability/samples.ts: no sample of the kind ${k.name}`);
    return { ...k, sample: { badInputs: BAD_INPUTS[k.name] ?? [], ...sample } };
  });
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
