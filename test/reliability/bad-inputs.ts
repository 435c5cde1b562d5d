/**
 * Malformed inputs of every kind that its zod schema does not show, as data over its sample's
 * inputs (`samples.ts`): rules across fields (a default treatment among the treatments, bucket
 * sizes summing to 100, a project without its org), patterns and words a name may not have,
 * documents (YAML) with a fault inside, and inputs only the service can judge. Each row breaks one
 * thing and says which property the failure names and a part of its reason. What the schema says
 * (a wrong JSON type, a required input left out, an unknown input, a value outside an enum or a
 * bound) is derived for every kind by `schema-attacks.ts` and needs no row here. The bad input
 * suite (`bad-input.test.ts`) runs every row of every kind of the list, directly and through the
 * real gRPC host. Rows marked `create` are inputs that
 * only the service can judge (a name that does not exist): `check` passes them and `create`
 * refuses them with nothing stored (after reads only, or a write the service refuses).
 * @module
 */

type Props = Record<string, unknown>;

/** One malformed input of a kind. */
export interface BadInput {
  /** What is wrong, for the test's name. */
  label: string;
  /**
   * The change over the sample's inputs: members that replace the sample's (`undefined` removes
   * one), or a function of the sample's inputs that returns the whole malformed inputs.
   */
  change: Props | ((inputs: Props) => Props);
  /** The property the failure names (`rules[0].buckets`); for `create` rows, the input at fault. */
  property: string;
  /** A part of the failure's reason (for `create` rows, of the create's error message). */
  reason: string;
  /** Passes `check`; refused by `create` with nothing stored (no write the service accepts). */
  create?: true;
}

/** The sample's inputs with `change` applied, as the engine sends them (JSON: `undefined` gone). */
export function applyChange(inputs: Props, change: BadInput["change"]): Props {
  const changed = typeof change === "function" ? change(structuredClone(inputs)) : { ...inputs, ...change };
  return JSON.parse(JSON.stringify(changed)) as Props;
}

const rule = (over: Props = {}) => ({
  condition: { matchers: [{ type: "IN_LIST_STRING", attribute: "country", strings: ["NL"] }] },
  buckets: [{ treatment: "on", size: 100 }],
  ...over,
});
const registry = { url: "https://registry.example.test/v2", providerType: "DockerHub" };

/** A pipeline given as YAML: the sample's identifier, one shell step. */
const pipelineYaml = (identifier: string) =>
  [
    "pipeline:",
    `  name: Pipeline ${identifier}`,
    `  identifier: ${identifier}`,
    "  stages:",
    "    - stage:",
    "        name: Run",
    "        identifier: run",
    "        type: Custom",
    "        spec:",
    "          execution:",
    "            steps:",
    "              - step:",
    "                  type: ShellScript",
    "                  name: Script",
    "                  identifier: script",
    "                  spec:",
    "                    shell: Bash",
    "                    source:",
    "                      type: Inline",
    "                      spec:",
    '                        script: "echo hi"',
    "                    onDelegate: true",
    "                  timeout: 5m",
    "",
  ].join("\n");

type Model = { identifier: string; stages: ({ execution: { steps: Props[] } } & Props)[] } & Props;
const model = (i: Props) => i.pipeline as Model;
/** The sample's pipeline with its first stage changed. */
const withStage = (stage: Props) => (i: Props) => {
  const m = model(i);
  return { ...i, pipeline: { ...m, stages: [{ ...m.stages[0], ...stage }] } };
};
/** The sample's pipeline with its first step changed. */
const withStep = (step: Props) => (i: Props) => {
  const first = model(i).stages[0];
  return withStage({ execution: { steps: [{ ...first?.execution.steps[0], ...step }] } })(i);
};
/** The sample's pipeline given as YAML instead, edited by `edit`. */
const asYaml =
  (edit: (yaml: string) => string = (y) => y) =>
  (i: Props) => {
    const { pipeline: _, ...rest } = i;
    return { ...rest, yaml: edit(pipelineYaml(model(i).identifier)) };
  };

const DUPLICATE = "  name: Pipeline ";

/** Every kind's malformed inputs, by kind name. */
export const BAD_INPUTS: Readonly<Record<string, readonly BadInput[]>> = {
  Environment: [
    {
      label: "a name with a slash",
      change: { name: "qa/1" },
      property: "name",
      reason: "name must start with a letter",
    },
    {
      label: "an approver of no known type",
      change: { changePermissions: { approvers: [{ type: "team", id: "t1" }] } },
      property: "changePermissions.approvers[0].type",
      reason: 'type must be "user" or "group"',
    },
    {
      label: "a workspace that does not exist",
      change: { workspace: "Nope" },
      property: "workspace",
      reason: 'workspace "Nope" not found',
      create: true,
    },
  ],
  TrafficType: [
    {
      label: "a name with a space",
      change: { name: "my type" },
      property: "name",
      reason: "name must start with a letter",
    },
    {
      label: "a workspace that does not exist",
      change: { workspace: "Nope" },
      property: "workspace",
      reason: 'workspace "Nope" not found',
      create: true,
    },
  ],
  TrafficTypeAttribute: [
    {
      label: "a long suggested value",
      change: { suggestedValues: ["x".repeat(51)] },
      property: "suggestedValues[0]",
      reason: "a suggested value must be at most 50 characters",
    },
    {
      label: "51 suggested values",
      change: { suggestedValues: Array.from({ length: 51 }, (_, i) => `v${i}`) },
      property: "suggestedValues",
      reason: "at most 50 suggested values",
    },
    {
      label: "a traffic type that does not exist",
      change: { trafficType: "robot" },
      property: "trafficType",
      reason: 'traffic type "robot" not found',
      create: true,
    },
  ],
  ApiKey: [
    {
      label: "an SDK key of no environment",
      change: { environments: [] },
      property: "environments",
      reason: "a server_side key belongs to exactly one environment; 0 given",
    },
    {
      label: "an SDK key of two environments",
      change: { apiKeyType: "client_side", environments: ["Production", "Staging"] },
      property: "environments",
      reason: "a client_side key belongs to exactly one environment; 2 given",
    },
    {
      label: "roles on an SDK key",
      change: { roles: ["API_ADMIN"] },
      property: "roles",
      reason: "roles are for admin keys only",
    },
    {
      label: "an unknown role",
      change: { apiKeyType: "admin", environments: undefined, roles: ["ROOT"] },
      property: "roles[0]",
      reason: "a role must be one of API_ALL_GRANTED",
    },
    {
      label: "an environment that does not exist",
      change: { environments: ["Nope"] },
      property: "environments",
      reason: 'environment "Nope" not found',
      create: true,
    },
  ],
  Flag: [
    {
      label: "name starting with a digit",
      change: { name: "9lives" },
      property: "name",
      reason: "name must start with a letter and use only letters, digits, '-' and",
    },
    {
      label: "name with a space",
      change: { name: "bad input" },
      property: "name",
      reason: "name must start with a letter and use only letters, digits, '-' and",
    },
    {
      label: "empty tag",
      change: { tags: ["ok", ""] },
      property: "tags[1]",
      reason: "a tag must not be empty",
    },
    {
      label: "tag of 257 characters",
      change: { tags: ["t".repeat(257)] },
      property: "tags[0]",
      reason: "a tag must be at most 256 characters",
    },
    {
      label: "unknown rollout status",
      change: { rolloutStatus: "Rampin" },
      property: "rolloutStatus",
      reason: 'rolloutStatus "Rampin" is not a rollout status; valid:',
    },
    {
      label: "a workspace that does not exist",
      change: { workspace: "Nope" },
      property: "workspace",
      reason: 'workspace "Nope" not found',
      create: true,
    },
    {
      label: "a traffic type that does not exist",
      change: { trafficType: "robot" },
      property: "trafficType",
      reason: 'traffic type "robot" not found',
      create: true,
    },
  ],
  FlagDefinition: [
    {
      label: "no treatments",
      change: { treatments: [] },
      property: "treatments",
      reason: "at least one treatment is required",
    },
    {
      label: "empty treatment name",
      change: { treatments: [{ name: "" }, { name: "off" }] },
      property: "treatments[0].name",
      reason: "treatment name must not be empty",
    },
    {
      label: "reserved treatment name",
      change: { treatments: [{ name: "control" }, { name: "off" }] },
      property: "treatments[0].name",
      reason: "treatment name is a reserved word",
    },
    {
      label: "treatment name with a space",
      change: { treatments: [{ name: "on" }, { name: "o ff" }] },
      property: "treatments[1].name",
      reason: "treatment name must start with a letter and use only letters, digits,",
    },
    {
      label: "treatment defined twice",
      change: { treatments: [{ name: "off" }, { name: "off" }] },
      property: "treatments[1].name",
      reason: 'treatment "off" is defined twice',
    },
    {
      label: "21 treatments",
      change: { treatments: Array.from({ length: 21 }, (_, i) => ({ name: i === 0 ? "off" : `t${i}` })) },
      property: "treatments",
      reason: "at most 20 treatments are allowed, got 21",
    },
    {
      label: "default treatment not a treatment",
      change: { defaultTreatment: "maybe" },
      property: "defaultTreatment",
      reason: 'defaultTreatment "maybe" is not one of the treatments ("on", "off")',
    },
    {
      label: "baseline not a treatment",
      change: { baselineTreatment: "maybe" },
      property: "baselineTreatment",
      reason: 'baselineTreatment "maybe" is not one of the treatments ("on", "off")',
    },
    {
      label: "default rule summing to 90",
      change: {
        defaultRule: [
          { treatment: "on", size: 40 },
          { treatment: "off", size: 50 },
        ],
      },
      property: "defaultRule",
      reason: "bucket sizes must sum to 100, got 90",
    },
    {
      label: "empty default rule",
      change: { defaultRule: [] },
      property: "defaultRule",
      reason: "defaultRule needs at least one bucket",
    },
    {
      label: "bucket of 101",
      change: { defaultRule: [{ treatment: "on", size: 101 }] },
      property: "defaultRule[0].size",
      reason: "size must be 0..100",
    },
    {
      label: "bucket of an unknown treatment",
      change: { defaultRule: [{ treatment: "maybe", size: 100 }] },
      property: "defaultRule[0].treatment",
      reason: 'treatment "maybe" is not one of the treatments ("on", "off")',
    },
    {
      label: "rule buckets summing to 50",
      change: { rules: [rule({ buckets: [{ treatment: "on", size: 50 }] })] },
      property: "rules[0].buckets",
      reason: "bucket sizes must sum to 100, got 50",
    },
    {
      label: "rule without buckets",
      change: { rules: [rule({ buckets: [] })] },
      property: "rules[0].buckets",
      reason: "a rule needs at least one bucket",
    },
    {
      label: "rule without matchers",
      change: { rules: [rule({ condition: { matchers: [] } })] },
      property: "rules[0].condition.matchers",
      reason: "a condition needs at least one matcher",
    },
    {
      label: "matcher of an unknown type",
      change: { rules: [rule({ condition: { matchers: [{ type: "LIKE" }] } })] },
      property: "rules[0].condition.matchers[0].type",
      reason: "Invalid option: expected one of",
    },
    {
      label: "configurations that are not JSON",
      change: { treatments: [{ name: "on", configurations: "{color:" }, { name: "off" }] },
      property: "treatments[0].configurations",
      reason: "configurations must be valid JSON",
    },
    {
      label: "configurations a number",
      change: { treatments: [{ name: "on", configurations: 7 }, { name: "off" }] },
      property: "treatments[0].configurations",
      reason: "configurations must be a JSON string or an object",
    },
    {
      label: "one key targeted by two treatments",
      change: {
        treatments: [
          { name: "on", keys: ["k1"] },
          { name: "off", keys: ["k1"] },
        ],
      },
      property: "treatments[1].keys[0]",
      reason: 'key "k1" is already a target of treatment "on"',
    },
    {
      label: "empty target key",
      change: { treatments: [{ name: "on", keys: [""] }, { name: "off" }] },
      property: "treatments[0].keys[0]",
      reason: "a target key must not be empty",
    },
    {
      label: "flag name starting with a digit",
      change: { flag: "9lives" },
      property: "flag",
      reason: "name must start with a letter and use only letters, digits, '-' and",
    },
    {
      label: "a workspace that does not exist",
      change: { workspace: "Nope" },
      property: "workspace",
      reason: 'workspace "Nope" not found',
      create: true,
    },
    {
      label: "an environment that does not exist",
      change: { environment: "Prod" },
      property: "environment",
      reason: 'environment "Prod" not found',
      create: true,
    },
  ],
  UserInvite: [
    {
      label: "email without @",
      change: { email: "ana.example.test" },
      property: "email",
      reason: "email must be a valid e-mail address",
    },
    {
      label: "empty email",
      change: { email: "" },
      property: "email",
      reason: "email must be a valid e-mail address",
    },
    {
      label: "empty group",
      change: { groups: [""] },
      property: "groups[0]",
      reason: "a group must not be empty",
    },
    {
      label: "a group that does not exist",
      change: { groups: ["ghosts"] },
      property: "groups",
      reason: 'group "ghosts" not found',
      create: true,
    },
  ],
  Organization: [
    {
      label: "identifier with a hyphen",
      change: { identifier: "pay-ments" },
      property: "identifier",
      reason: "can only contain alphanumeric, underscore and $ characters",
    },
    {
      label: "reserved identifier",
      change: { identifier: "org" },
      property: "identifier",
      reason: "org is a keyword, so cannot be used",
    },
    { label: "empty name", change: { name: " " }, property: "name", reason: "name cannot be empty." },
    {
      label: "tag value not a string",
      change: { tags: { team: 1 } },
      property: "tags.team",
      reason: "expected string",
    },
  ],
  Project: [
    {
      label: "identifier starting with a digit",
      change: { identifier: "1proj" },
      property: "identifier",
      reason: "identifier can be 128 characters long and can only contain",
    },
    {
      label: "identifier with a hyphen",
      change: { identifier: "bad-input" },
      property: "identifier",
      reason: "identifier can be 128 characters long and can only contain",
    },
    {
      label: "reserved identifier",
      change: { identifier: "status" },
      property: "identifier",
      reason: "status is a keyword, so cannot be used",
    },
    { label: "empty name", change: { name: " " }, property: "name", reason: "name cannot be empty." },
    {
      label: "name with '!'",
      change: { name: "Bad!" },
      property: "name",
      reason: "name can only contain alphanumeric, space, hyphen, underscore, dot",
    },
    {
      label: "colour not #RRGGBB",
      change: { color: "blue" },
      property: "color",
      reason: "color must be a hex colour #RRGGBB",
    },
    {
      label: "organization with a hyphen",
      change: { org: "my-org" },
      property: "org",
      reason: "identifier can be 128 characters long and can only contain",
    },
    {
      label: "tag value not a string",
      change: { tags: { team: 7 } },
      property: "tags.team",
      reason: "Invalid input: expected string, received number",
    },
    {
      label: "empty module",
      change: { modules: [""] },
      property: "modules[0]",
      reason: "module names cannot be empty",
    },
    {
      label: "an organization that does not exist",
      change: { org: "no_such_org" },
      property: "org",
      reason: "Organization [no_such_org]",
      create: true,
    },
  ],
  Connector: [
    {
      label: "identifier starting with a digit",
      change: { identifier: "1registry" },
      property: "identifier",
      reason: "identifier can be 128 characters long and can only contain",
    },
    {
      label: "neither dockerRegistry nor generic",
      change: { dockerRegistry: undefined },
      property: "dockerRegistry",
      reason: "exactly one of dockerRegistry, github, git, kubernetes, aws, gcp,",
    },
    {
      label: "both dockerRegistry and generic",
      change: { generic: { type: "Git", spec: {} } },
      property: "dockerRegistry",
      reason: "exactly one of dockerRegistry, github, git, kubernetes, aws, gcp,",
    },
    {
      label: "url that is not a URL",
      change: { dockerRegistry: { ...registry, url: "registry" } },
      property: "dockerRegistry.url",
      reason: "url must be an http(s) URL",
    },
    {
      label: "ftp url",
      change: { dockerRegistry: { ...registry, url: "ftp://registry.example.test" } },
      property: "dockerRegistry.url",
      reason: "url must be an http(s) URL",
    },
    {
      label: "unknown provider type",
      change: { dockerRegistry: { ...registry, providerType: "Gitlab" } },
      property: "dockerRegistry.providerType",
      reason: "providerType must be one of DockerHub, Harbor, Quay, Other",
    },
    {
      label: "unknown auth type",
      change: { dockerRegistry: { ...registry, auth: { type: "Token" } } },
      property: "dockerRegistry.auth.type",
      reason: 'auth.type must be "Anonymous" or "UsernamePassword"',
    },
    {
      label: "password without a secret reference",
      change: { dockerRegistry: { ...registry, auth: { type: "UsernamePassword", username: "bot" } } },
      property: "dockerRegistry.auth.passwordRef",
      reason: "passwordRef must be a secret reference such as account.docker_password",
    },
    {
      label: "a password value instead of a secret reference",
      change: {
        dockerRegistry: {
          ...registry,
          auth: { type: "UsernamePassword", username: "bot", passwordRef: "hunter2!" },
        },
      },
      property: "dockerRegistry.auth.passwordRef",
      reason: "must be a secret reference such as account.docker_password (the name",
    },
    {
      label: "neither username nor usernameRef",
      change: {
        dockerRegistry: { ...registry, auth: { type: "UsernamePassword", passwordRef: "account.pw" } },
      },
      property: "dockerRegistry.auth",
      reason: "exactly one of username and usernameRef is required",
    },
    {
      label: "project without org",
      change: { org: undefined },
      property: "org",
      reason: "a project-level connector needs org as well as project (ref platform",
    },
    {
      label: "generic spec not an object",
      change: { dockerRegistry: undefined, generic: { type: "Git", spec: "url" } },
      property: "generic.spec",
      reason: "spec must be an object",
    },
    {
      label: "generic type empty",
      change: { dockerRegistry: undefined, generic: { type: "", spec: {} } },
      property: "generic.type",
      reason: "type cannot be empty",
    },
    {
      label: "generic spec of a typed kind's type without a required member",
      change: {
        dockerRegistry: undefined,
        generic: {
          type: "Git",
          spec: { url: "https://git.example.test/acme", connectionType: "Account", type: "Http" },
        },
      },
      property: "generic.spec.spec",
      reason: "spec is required (connector type Git)",
    },
    {
      label: "empty delegate selector",
      change: { dockerRegistry: { ...registry, delegateSelectors: [""] } },
      property: "dockerRegistry.delegateSelectors[0]",
      reason: "Too small: expected string to have >=1 characters",
    },
    {
      label: "executeOnDelegate not a boolean",
      change: { dockerRegistry: { ...registry, executeOnDelegate: "yes" } },
      property: "dockerRegistry.executeOnDelegate",
      reason: "Invalid input: expected boolean, received string",
    },
    {
      label: "tag value not a string",
      change: { tags: { team: false } },
      property: "tags.team",
      reason: "Invalid input: expected string, received boolean",
    },
    {
      label: "a project that does not exist",
      change: { project: "no_such_project" },
      property: "project",
      reason: "project [no_such_project] not found",
      create: true,
    },
  ],
  Pipeline: [
    {
      label: "neither pipeline nor yaml",
      change: { pipeline: undefined },
      property: "pipeline",
      reason: "exactly one of pipeline (the typed model) and yaml is required",
    },
    {
      label: "both pipeline and yaml",
      change: (i) => ({ ...i, yaml: pipelineYaml(model(i).identifier) }),
      property: "pipeline",
      reason: "exactly one of pipeline (the typed model) and yaml is required",
    },
    {
      label: "project with a hyphen",
      change: { project: "bad-input" },
      property: "project",
      reason: "identifier can be 128 characters long and can only contain",
    },
    {
      label: "model identifier with a hyphen",
      change: (i) => ({ ...i, pipeline: { ...model(i), identifier: "de-ploy" } }),
      property: "pipeline.identifier",
      reason: "identifier can be 128 characters long and can only contain",
    },
    {
      label: "model with an empty name",
      change: (i) => ({ ...i, pipeline: { ...model(i), name: "" } }),
      property: "pipeline.name",
      reason: "name cannot be empty.",
    },
    {
      label: "model without stages",
      change: (i) => ({ ...i, pipeline: { ...model(i), stages: [] } }),
      property: "pipeline.stages",
      reason: "a pipeline needs at least one stage",
    },
    {
      label: "stage of an unknown type",
      change: withStage({ type: "FeatureFlag" }),
      property: "pipeline.stages[0].type",
      reason: 'unknown stage type "FeatureFlag"; expected one of Deployment, Custom,',
    },
    {
      label: "step timeout that is not a duration",
      change: withStep({ timeout: "5 minutes" }),
      property: "pipeline.stages[0].execution.steps[0].timeout",
      reason: '"5 minutes" must be a duration such as 10m, 1h30m, 30s or 1d, or a',
    },
    {
      label: "step shell that is not Bash or PowerShell",
      change: withStep({ shell: "zsh" }),
      property: "pipeline.stages[0].execution.steps[0].shell",
      reason: "shell must be one of Bash, PowerShell",
    },
    {
      label: "stage identifier used twice",
      change: (i) => ({ ...i, pipeline: { ...model(i), stages: [model(i).stages[0], model(i).stages[0]] } }),
      property: "pipeline.stages[1].identifier",
      reason: "stage identifier say_hello is already used by stages[0]",
    },
    {
      label: "YAML that does not parse",
      change: asYaml(() => "pipeline:\n  name: [unclosed\n"),
      property: "yaml",
      reason: "invalid YAML: Flow sequence in block collection must be sufficiently",
    },
    {
      label: "YAML without a pipeline mapping",
      change: asYaml(() => "stages: []\n"),
      property: "yaml.pipeline",
      reason: "the YAML needs a top-level pipeline mapping",
    },
    {
      label: "YAML with a bad identifier",
      change: asYaml((y) => y.replace(/identifier: (\w+)\n/, "identifier: de-ploy\n")),
      property: "yaml.pipeline.identifier",
      reason: "identifier can be 128 characters long and can only contain",
    },
    {
      label: "YAML with a duplicate key",
      change: asYaml((y) => y.replace(DUPLICATE, `  name: Again\n${DUPLICATE}`)),
      property: "yaml",
      reason: "invalid YAML: Map keys must be unique at line 3, column 3:",
    },
    {
      label: "YAML naming another project",
      change: asYaml((y) => y.replace("pipeline:\n", "pipeline:\n  projectIdentifier: elsewhere\n")),
      property: "yaml",
      reason: 'pipeline.projectIdentifier is "elsewhere" but the resource\'s project',
    },
    {
      label: "yaml not a string",
      change: (i) => ({ ...asYaml()(i), yaml: 42 }),
      property: "yaml",
      reason: "yaml must be a string",
    },
    {
      label: "a project that does not exist",
      change: { project: "no_such_project" },
      property: "project",
      reason: "identifier [no_such_project] not found",
      create: true,
    },
  ],
  Segment: [
    {
      label: "a name with a space",
      change: { name: "bad segment" },
      property: "name",
      reason: "name must start with a letter and use only letters, digits, '-' and '_'",
    },
    {
      label: "an empty tag",
      change: { tags: ["ok", ""] },
      property: "tags[1]",
      reason: "a tag must not be empty",
    },
    {
      label: "a traffic type that does not exist",
      change: { trafficType: "robot" },
      property: "trafficType",
      reason: 'traffic type "robot" not found',
      create: true,
    },
  ],
  SegmentKeys: [
    {
      label: "an empty key",
      change: { keys: ["k1", ""] },
      property: "keys[1]",
      reason: "a key must not be empty",
    },
    {
      label: "a key of 251 characters",
      change: { keys: ["k".repeat(251)] },
      property: "keys[0]",
      reason: "a key must be at most 250 characters",
    },
    {
      label: "a segment that does not exist",
      change: { segment: "no_such_segment" },
      property: "segment",
      reason: "Could not find segment no_such_segment",
      create: true,
    },
  ],
  LargeSegment: [
    {
      label: "a name with a space",
      change: { name: "bad segment" },
      property: "name",
      reason: "name must start with a letter and use only letters, digits, '-' and '_'",
    },
    {
      label: "an empty environment",
      change: { environments: ["Staging", ""] },
      property: "environments[1]",
      reason: "an environment must not be empty",
    },
    {
      label: "members given both as a file and as keys",
      change: { members: [{ environment: "Staging", file: "members.csv", keys: ["a"] }] },
      property: "members[0]",
      reason: "give exactly one of file and keys",
    },
    {
      label: "members of an environment the segment is not active in",
      change: { members: [{ environment: "Production", keys: ["a"] }] },
      property: "members[0].environment",
      reason: '"Production" is not one of environments (spell it as environments does)',
    },
    {
      label: "a traffic type that does not exist",
      change: { trafficType: "robot" },
      property: "trafficType",
      reason: 'traffic type "robot" not found',
      create: true,
    },
  ],
  RuleBasedSegment: [
    {
      label: "a name with a space",
      change: { name: "bad segment" },
      property: "name",
      reason: "name must start with a letter and use only letters, digits, '-' and '_'",
    },
    {
      label: "a traffic type that does not exist",
      change: { trafficType: "robot" },
      property: "trafficType",
      reason: 'traffic type "robot" not found',
      create: true,
    },
  ],
  RuleBasedSegmentDefinition: [
    {
      label: "an empty excluded key",
      change: { excludedKeys: [""] },
      property: "excludedKeys[0]",
      reason: "an excluded key must not be empty",
    },
    {
      label: "a rule without matchers",
      change: { rules: [{ condition: { matchers: [] } }] },
      property: "rules[0].condition.matchers",
      reason: "a condition needs at least one matcher",
    },
    {
      label: "a matcher of an unknown type",
      change: { rules: [{ condition: { matchers: [{ type: "LIKE" }] } }] },
      property: "rules[0].condition.matchers[0].type",
      reason: "Invalid option: expected one of",
    },
    {
      label: "a segment that does not exist",
      change: { segment: "no_such_segment" },
      property: "segment",
      reason: "Could not find rule-based segment no_such_segment",
      create: true,
    },
  ],
  FlagSet: [
    {
      label: "a name with a capital",
      change: { name: "Payments" },
      property: "name",
      reason: "name must start with a-z or 0-9 and use only a-z, 0-9, '_' and '.'",
    },
    {
      label: "a workspace that does not exist",
      change: { workspace: "Nope" },
      property: "workspace",
      reason: 'workspace "Nope" not found',
      create: true,
    },
  ],
  Restriction: [
    {
      label: "a viewer of another type",
      change: { viewers: [{ type: "team", id: "t1" }] },
      property: "viewers[0].type",
      reason: "type must be user or group",
    },
    {
      label: "a viewer with an empty id",
      change: { viewers: [{ type: "user", id: "" }] },
      property: "viewers[0].id",
      reason: "id must not be empty",
    },
    {
      label: "view false with no viewers (no restriction at all)",
      change: { view: false, viewers: [] },
      property: "view",
      reason: "view: false with no viewers is a workspace open to everyone",
    },
    {
      label: "a workspace that does not exist",
      change: { workspace: "Nope" },
      property: "workspace",
      reason: 'workspace "Nope" not found',
      create: true,
    },
  ],
  Secret: [
    {
      label: "a missing value",
      change: { value: undefined },
      property: "value",
      reason: "value must be a string (the secret text)",
    },
    { label: "a project without org", change: { org: undefined }, property: "org", reason: "needs org" },
    {
      label: "a hyphenated identifier",
      change: { identifier: "docker-pw" },
      property: "identifier",
      reason: "can only contain",
    },
    {
      label: "a project that does not exist",
      change: { project: "no_such_project" },
      property: "project",
      reason: "project [no_such_project] not found",
      create: true,
    },
  ],
  Service: [
    {
      label: "both definitions",
      change: { kubernetes: { manifests: [] }, yaml: "service: {}" },
      property: "yaml",
      reason: "at most one",
    },
    {
      label: "YAML of another service",
      change: { yaml: "service:\n  identifier: t\n" },
      property: "yaml",
      reason: "service.identifier is",
    },
    {
      label: "YAML with a duplicate key",
      change: { yaml: "service:\n  a: 1\n  a: 2\n" },
      property: "yaml",
      reason: "unique",
    },
    {
      label: "a manifest without type",
      change: { kubernetes: { manifests: [{ manifest: { identifier: "m", spec: {} } }] } },
      property: "kubernetes.manifests[0].manifest.type",
      reason: "manifest type is required",
    },
    {
      label: "a project that does not exist",
      change: { project: "no_such_project" },
      property: "project",
      reason: "project [no_such_project] not found",
      create: true,
    },
  ],
  ServiceOverrides: [
    {
      label: "an unknown type",
      change: { type: "SERVICE_OVERRIDE" },
      property: "type",
      reason: "type must be one of ENV_GLOBAL_OVERRIDE",
    },
    {
      label: "a service override without its service",
      change: { type: "ENV_SERVICE_OVERRIDE" },
      property: "service",
      reason: "a ENV_SERVICE_OVERRIDE needs service",
    },
    {
      label: "an environment reference of another shape",
      change: { environment: "project.prod" },
      property: "environment",
      reason: "must be <id>, org.<id> or account.<id>",
    },
    {
      label: "a variable of an unknown type",
      change: { variables: [{ name: "replicas", type: "Boolean", value: "true" }] },
      property: "variables[0].type",
      reason: "variable type must be String, Secret or Number",
    },
    { label: "a project without org", change: { org: undefined }, property: "org", reason: "needs org" },
    {
      label: "a misspelt input",
      change: { env: "prod" },
      property: "env",
      reason: 'unknown property "env"',
    },
    {
      label: "an environment that does not exist",
      change: { environment: "no_such_env" },
      property: "environment",
      reason: "Environment with ref [no_such_env] not found",
      create: true,
    },
  ],
  EnvironmentGroup: [
    {
      label: "an environment that is no identifier",
      change: { environments: ["prod-eu"] },
      property: "environments[0]",
      reason: "can only contain",
    },
    {
      label: "a colour by name",
      change: { color: "red" },
      property: "color",
      reason: "color must be a hex colour #RRGGBB",
    },
    { label: "a project without org", change: { org: undefined }, property: "org", reason: "needs org" },
    {
      label: "a project that does not exist",
      change: { project: "no_such_project" },
      property: "project",
      reason: "project [no_such_project] not found",
      create: true,
    },
  ],
  DeliveryEnvironment: [
    {
      label: "a variable of no known type",
      change: { variables: [{ name: "v", type: "Bool", value: "1" }] },
      property: "variables[0].type",
      reason: "String, Secret or Number",
    },
    {
      label: "an override manifest without type",
      change: { overrides: { manifests: [{ manifest: { identifier: "m", spec: {} } }] } },
      property: "overrides.manifests[0].manifest.type",
      reason: "manifest type is required",
    },
    {
      label: "a hyphenated identifier",
      change: { identifier: "e-1" },
      property: "identifier",
      reason: "can only contain",
    },
    { label: "a project without org", change: { org: undefined }, property: "org", reason: "needs org" },
    {
      label: "a project that does not exist",
      change: { project: "no_such_project" },
      property: "project",
      reason: "project [no_such_project] not found",
      create: true,
    },
  ],
  Infrastructure: [
    {
      label: "an untyped kind",
      change: (i) => ({ ...i, definition: { ...(i.definition as Props), type: "Pdc" } }),
      property: "definition.type",
      reason: "KubernetesDirect or KubernetesGcp",
    },
    {
      label: "GKE without cluster",
      change: (i) => ({ ...i, definition: { ...(i.definition as Props), cluster: undefined } }),
      property: "definition.cluster",
      reason: "cluster is required",
    },
    {
      label: "another deployment type",
      change: { deploymentType: "Ssh" },
      property: "deploymentType",
      reason: "Kubernetes",
    },
    { label: "a project without org", change: { org: undefined }, property: "org", reason: "needs org" },
    {
      label: "an environment that does not exist",
      change: { environment: "no_such_env" },
      property: "environment",
      reason: "Environment with ref [no_such_env] not found",
      create: true,
    },
  ],
  InputSet: [
    {
      label: "raw YAML naming another identifier",
      change: { values: undefined, yaml: "inputSet:\n  identifier: t\n" },
      property: "yaml",
      reason: 'inputSet.identifier is "t"',
    },
    {
      label: "raw YAML with a duplicate key",
      change: { values: undefined, yaml: "inputSet:\n  a: 1\n  a: 2\n" },
      property: "yaml",
      reason: "unique",
    },
    {
      label: "both values and yaml",
      change: { yaml: "inputSet: {}\n" },
      property: "yaml",
      reason: "at most one",
    },
    {
      label: "a bad identifier",
      change: { identifier: "1s" },
      property: "identifier",
      reason: "identifier can be 128 characters long and can only contain",
    },
    {
      label: "a pipeline that does not exist",
      change: { pipelineIdentifier: "no_such_pipeline" },
      property: "pipelineIdentifier",
      reason: "Pipeline [no_such_pipeline]",
      create: true,
    },
  ],
  Trigger: [
    {
      label: "a cron of four fields",
      change: { cron: { expression: "0 3 * *" } },
      property: "cron.expression",
      reason: "has 5 fields",
    },
    {
      label: "an hour of 24",
      change: { cron: { expression: "0 24 * * *" } },
      property: "cron.expression",
      reason: 'hour field "24" is outside 0-23',
    },
    {
      label: "a backwards range",
      change: { cron: { expression: "0 3 * * 5-1" } },
      property: "cron.expression",
      reason: "backwards range",
    },
    {
      label: "a step of 0",
      change: { cron: { expression: "*/0 3 * * *" } },
      property: "cron.expression",
      reason: "step of 0",
    },
    {
      label: "both sources",
      change: { webhook: { type: "Github", event: "Push", connectorRef: "github", repoName: "checkout" } },
      property: "webhook",
      reason: "exactly one of webhook and cron",
    },
    {
      label: "no source",
      change: { cron: undefined },
      property: "webhook",
      reason: "exactly one of webhook and cron",
    },
    {
      label: "an empty input set ref",
      change: { inputSetRefs: [""] },
      property: "inputSetRefs[0]",
      reason: "cannot be empty",
    },
    {
      label: "a pipeline that does not exist",
      change: { pipelineIdentifier: "no_such_pipeline" },
      property: "pipelineIdentifier",
      reason: "Pipeline [no_such_pipeline]",
      create: true,
    },
  ],
};
