/**
 * policy/plan.ts: a Terraform plan's JSON (`tofu show -json <planfile>`, the shapes OpenTofu 1.12
 * writes) read as the policies read a resource: `flagstack_<kind>` to the kind, snake_case
 * attributes to its inputs, only what the configuration sets, values unknown until apply as the
 * provider's `UNKNOWN`, each resource by its full address (module and `for_each` keys included).
 */
import { describe, expect, it } from "vitest";
import { modulePath, readPlan } from "../../policy/plan";
import { readDefinition, readFlag, readPipeline, UnknownInputError } from "../../policy/resources";
import { UNKNOWN } from "../../provider/core/check";
import { UNKNOWN_VALUE } from "../../provider/terraform/msgpack";
import { plannedValue } from "../../provider/terraform/plan-json";
import { FLAG_DEFINITION_TYPE, FLAG_TYPE, PIPELINE_TYPE } from "../../provider/types";

/** One resource change of a plan. */
const change = (
  address: string,
  after: Record<string, unknown> | null,
  after_unknown: Record<string, unknown> = {},
  extra: Record<string, unknown> = {},
) => {
  const [type, rest] = address.replace(/^(module\.[^.]+(\[[^\]]+\])?\.)+/, "").split(/\.(.*)/s) as [
    string,
    string,
  ];
  const name = rest.replace(/\[.*$/, "");
  return {
    address,
    mode: "managed",
    type,
    name,
    provider_name: "flagstack.local/flagstack/flagstack",
    change: { actions: [after === null ? "delete" : "create"], before: null, after, after_unknown },
    ...extra,
  };
};

/** A configuration block setting `attributes` (their expressions do not matter here). */
const configured = (type: string, name: string, attributes: string[]) => ({
  address: `${type}.${name}`,
  mode: "managed",
  type,
  name,
  provider_config_key: "flagstack",
  expressions: Object.fromEntries(attributes.map((a) => [a, { constant_value: "…" }])),
  schema_version: 0,
});

const plan = (resource_changes: unknown[], resources: unknown[] = [], module_calls: unknown = undefined) => ({
  format_version: "1.2",
  terraform_version: "1.12.6",
  resource_changes,
  configuration: { root_module: { resources, ...(module_calls ? { module_calls } : {}) } },
});

/** A flag's planned values as the provider plans a create: the check's defaults filled in, its outputs unknown. */
const flagAfter = {
  adopt: null,
  description: "",
  name: "new-checkout",
  tags: ["owner:payments"],
  traffic_type: "user",
  workspace: "Default",
};
const flagUnknown = {
  creation_time: true,
  flag_id: true,
  id: true,
  owners: true,
  rollout_status: true,
  workspace_id: true,
  tags: [false],
};

describe("readPlan: the inputs of each flagstack resource", () => {
  it("maps the resource type to its kind and the attributes the configuration sets to its inputs", () => {
    const read = readPlan(
      plan(
        [change("flagstack_flag.checkout", flagAfter, flagUnknown)],
        [configured("flagstack_flag", "checkout", ["workspace", "name", "tags"])],
      ),
    );
    expect(read.unknownTypes).toEqual([]);
    expect(read.resources.map(({ kind, ...r }) => ({ kind: kind.name, ...r }))).toEqual([
      {
        kind: "Flag",
        type: FLAG_TYPE,
        typeName: "flagstack_flag",
        address: "flagstack_flag.checkout",
        actions: ["create"],
        // description and traffic_type are the check's defaults the plan shows: not given, as in a program.
        props: { workspace: "Default", name: "new-checkout", tags: ["owner:payments"] },
        unknown: [],
        // The plan creates it: no state before.
        before: null,
      },
    ]);
  });

  it("renames nested attributes, keeps map keys, drops nulls: the definition the provider applies", async () => {
    const after = {
      workspace: "Default",
      flag: "new-checkout",
      environment: "Production",
      treatments: [
        { name: "on", keys: ["qa-bot"], configurations: null, description: null, segments: null },
        { name: "off", keys: null, configurations: null, description: null, segments: null },
      ],
      default_treatment: "off",
      baseline_treatment: "off",
      default_rule: [
        { treatment: "on", size: 10 },
        { treatment: "off", size: 90 },
      ],
      rules: [],
      traffic_allocation: 100,
      killed: false,
      title: null,
      change_request: null,
    };
    const read = readPlan(
      plan(
        [
          change("flagstack_flag_definition.checkout_prod", after, {
            id: true,
            environment_id: true,
            treatments: [{}, {}],
          }),
        ],
        [
          configured("flagstack_flag_definition", "checkout_prod", [
            "workspace",
            "flag",
            "environment",
            "treatments",
            "default_treatment",
            "baseline_treatment",
            "default_rule",
          ]),
        ],
      ),
    );
    const [def] = read.resources;
    expect(def?.props).toEqual({
      workspace: "Default",
      flag: "new-checkout",
      environment: "Production",
      treatments: [{ name: "on", keys: ["qa-bot"] }, { name: "off" }],
      defaultTreatment: "off",
      baselineTreatment: "off",
      defaultRule: [
        { treatment: "on", size: 10 },
        { treatment: "off", size: 90 },
      ],
    });
    expect(def?.type).toBe(FLAG_DEFINITION_TYPE);
    // Read through the kind's own check, as the pack reads it: its defaults apply.
    expect((await readDefinition(def!.props)).document).toEqual({
      treatments: [{ name: "on", keys: ["qa-bot"] }, { name: "off" }],
      defaultTreatment: "off",
      baselineTreatment: "off",
      defaultRule: [
        { treatment: "on", size: 10 },
        { treatment: "off", size: 90 },
      ],
      rules: [],
      trafficAllocation: 100,
      killed: false,
    });
  });

  it("reads a typed pipeline's nested model by its snake_case names", async () => {
    const after = {
      org: "default",
      project: "payments",
      yaml: null,
      pipeline: {
        name: "Ship",
        identifier: "ship",
        stages: [
          {
            type: "Deployment",
            name: "deploy",
            identifier: "deploy",
            service: { service_ref: "checkout" },
            environment: { environment_ref: "prod" },
            infrastructure: { connector_ref: "k8s", namespace: "checkout" },
            execution: {
              steps: [{ type: "K8sRollingDeploy", name: "roll", identifier: "roll", timeout: null }],
              rollback_steps: null,
            },
            failure_strategies: [
              { on_failure: { errors: ["AllErrors"], action: { type: "StageRollback" } } },
            ],
          },
        ],
      },
    };
    const read = readPlan(
      plan(
        [change("flagstack_pipeline.ship", after)],
        [configured("flagstack_pipeline", "ship", ["project", "pipeline"])],
      ),
    );
    const [p] = read.resources;
    expect(p?.type).toBe(PIPELINE_TYPE);
    const view = await readPipeline(p!.props);
    expect(
      view?.stages.map((s) => [s.identifier, s.type, s.environmentRef, s.failureStrategies.length]),
    ).toEqual([["deploy", "Deployment", "prod", 1]]);
  });

  it("without the configuration, takes the planned values, an input decided by the apply as left out", () => {
    const { configuration: _, ...bare } = plan([
      change("flagstack_flag.checkout", flagAfter, { ...flagUnknown, description: true }),
    ]);
    expect(readPlan(bare).resources[0]?.props).toEqual({
      workspace: "Default",
      name: "new-checkout",
      tags: ["owner:payments"],
      trafficType: "user",
    });
  });
});

describe("readPlan: values not known until apply", () => {
  it("are the provider's UNKNOWN, whole or inside a list or an object, and listed by attribute", () => {
    const after = {
      workspace: "Default",
      flag: "new-checkout",
      environment: "Production",
      treatments: [{ name: "on", keys: [null, "qa-bot"] }, { name: "off" }],
      default_treatment: "off",
      killed: true,
    };
    const afterUnknown = {
      comment: true,
      treatments: [{ keys: [true, false] }, {}],
      id: true,
      flag_id: true,
    };
    const read = readPlan(
      plan(
        [change("flagstack_flag_definition.prod", after, afterUnknown)],
        [
          configured("flagstack_flag_definition", "prod", [
            "workspace",
            "flag",
            "environment",
            "treatments",
            "default_treatment",
            "killed",
            "comment",
          ]),
        ],
      ),
    );
    const [def] = read.resources;
    expect(def?.props).toEqual({
      workspace: "Default",
      flag: "new-checkout",
      environment: "Production",
      treatments: [{ name: "on", keys: [UNKNOWN, "qa-bot"] }, { name: "off" }],
      defaultTreatment: "off",
      killed: true,
      comment: UNKNOWN,
    });
    expect(def?.unknown).toEqual(["treatments", "comment"]);
  });

  it("an input the policies need throws the pack's unknown-value error, naming the input", async () => {
    const read = readPlan(
      plan(
        [change("flagstack_flag.checkout", { ...flagAfter, name: null }, { ...flagUnknown, name: true })],
        [configured("flagstack_flag", "checkout", ["workspace", "name", "tags"])],
      ),
    );
    const error = await readFlag(read.resources[0]!.props).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(UnknownInputError);
    expect((error as UnknownInputError).props).toEqual(["name"]);
  });

  it("known outputs are read, unknown ones left out; an input the configuration leaves out is not given", () => {
    // An unchanged flag: the plan shows the recorded values, the service's rollout status among them.
    const after = { ...flagAfter, rollout_status: "Ramping", flag_id: "f-1", workspace_id: "w-1" };
    const read = readPlan(
      plan(
        [
          change(
            "flagstack_flag.checkout",
            after,
            {},
            {
              change: { actions: ["no-op"], before: after, after, after_unknown: { creation_time: true } },
            },
          ),
        ],
        [configured("flagstack_flag", "checkout", ["workspace", "name"])],
      ),
    );
    expect(read.resources.map((r) => [r.actions, r.props])).toEqual([
      [["no-op"], { workspace: "Default", name: "new-checkout", flagId: "f-1", workspaceId: "w-1" }],
    ]);
  });

  it("plannedValue: after_unknown's true marks, after's nulls in lists", () => {
    expect(plannedValue({ a: 1, l: [null, 2] }, { b: true, l: [true, false] })).toEqual({
      a: 1,
      b: UNKNOWN_VALUE,
      l: [UNKNOWN_VALUE, 2],
    });
    expect(plannedValue(null, true)).toBe(UNKNOWN_VALUE);
    expect(plannedValue(["x"], [])).toEqual(["x"]);
  });
});

describe("readPlan: which resources, by which address", () => {
  it("names each instance by its full address: for_each keys, count indexes, modules", () => {
    const read = readPlan(
      plan(
        [
          change('flagstack_flag.many["eu-west"]', { ...flagAfter, name: "f-eu" }, {}, { index: "eu-west" }),
          change("flagstack_flag.counted[1]", { ...flagAfter, name: "f-1" }, {}, { index: 1 }),
          change(
            'module.app["eu"].flagstack_flag.checkout',
            { ...flagAfter, name: "m-eu" },
            {},
            { module_address: 'module.app["eu"]' },
          ),
        ],
        [
          configured("flagstack_flag", "many", ["workspace", "name"]),
          configured("flagstack_flag", "counted", ["workspace", "name"]),
        ],
        {
          app: {
            source: "./app",
            module: { resources: [configured("flagstack_flag", "checkout", ["name"])] },
          },
        },
      ),
    );
    expect(read.resources.map((r) => [r.address, r.props])).toEqual([
      ['flagstack_flag.many["eu-west"]', { workspace: "Default", name: "f-eu" }],
      ["flagstack_flag.counted[1]", { workspace: "Default", name: "f-1" }],
      // The module's block sets only the name.
      ['module.app["eu"].flagstack_flag.checkout', { name: "m-eu" }],
    ]);
  });

  it("leaves out deletes, deposed objects, data sources and other providers; lists unknown flagstack types", () => {
    const read = readPlan(
      plan([
        change("flagstack_flag.gone", null),
        change("flagstack_flag.old", flagAfter, {}, { deposed: "00000001" }),
        { ...change("flagstack_workspace.default", { name: "Default" }), mode: "data" },
        change("random_id.suffix", { byte_length: 4 }),
        change("flagstack_rocket.launch", { name: "x" }),
        change("flagstack_rocket.again", { name: "y" }),
      ]),
    );
    expect(read).toEqual({ resources: [], unknownTypes: ["flagstack_rocket"] });
  });

  it("modulePath: module names without their instance keys", () => {
    expect(modulePath(undefined)).toEqual([]);
    expect(modulePath("module.app")).toEqual(["app"]);
    expect(modulePath('module.app["eu.west"].module.flags[0]')).toEqual(["app", "flags"]);
    expect(() => modulePath("app.flags")).toThrow("not a module address: app.flags");
  });

  it("refuses what is not a plan's JSON, naming what is missing", () => {
    expect(() => readPlan({ format_version: "1.0", values: { root_module: {} } })).toThrow(
      "not the JSON of a Terraform plan: resource_changes: no resource_changes: give the JSON of a saved plan (tofu show -json <planfile>), not of a state",
    );
    expect(() => readPlan([])).toThrow(
      "not the JSON of a Terraform plan: (plan): Invalid input: expected object, received array",
    );
  });
});
