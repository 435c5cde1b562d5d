import { describe, expect, it } from "vitest";
import {
  definitionWellFormed,
  killSwitchDocumented,
  nonBaselineShare,
  productionRampGuard,
} from "../../policy/definitions";
import { readDefinition } from "../../policy/resources";
import { KINDS } from "../../provider/kinds";
import { FLAG_DEFINITION_TYPE, FLAG_DEFINITIONS_TYPE, FLAG_TYPE, GROUP_TYPE } from "../../provider/types";
import {
  checkedProps,
  checkedResource,
  runResourcePolicy,
  runStackPolicy,
  stackUrn,
  UnknownValueError,
  unknownCheckingProxy,
  unknownStringValue,
} from "./util";

/** A definition as a program declares it (provider/flags/flag-definition.ts). */
const good = {
  workspace: "Default",
  flag: "new-checkout",
  environment: "Production",
  treatments: [{ name: "on" }, { name: "off" }],
  defaultTreatment: "off",
  baselineTreatment: "off",
  trafficAllocation: 100,
  rules: [
    {
      buckets: [{ treatment: "on", size: 100 }],
      condition: { combiner: "AND", matchers: [{ type: "IN_SEGMENT", string: "beta" }] },
    },
  ],
  defaultRule: [
    { treatment: "on", size: 10 },
    { treatment: "off", size: 90 },
  ],
};

/** Runs a resource policy on a definition declared with `inputs`, as the engine hands it over. */
const runOnDefinition = async (
  policy: typeof definitionWellFormed,
  inputs: Record<string, unknown>,
  config: object = {},
) =>
  runResourcePolicy(policy, FLAG_DEFINITION_TYPE, await checkedProps(FLAG_DEFINITION_TYPE, inputs), config);

describe("definition-well-formed", () => {
  it("passes a well-formed definition, and ignores other resources", async () => {
    expect(await runOnDefinition(definitionWellFormed, good)).toEqual([]);
    const group = await checkedProps(GROUP_TYPE, { name: "testers" });
    expect(await runResourcePolicy(definitionWellFormed, GROUP_TYPE, group)).toEqual([]);
  });

  const at = 'flag "new-checkout" in environment "Production"';
  it.each<[string, Record<string, unknown>, string[]]>([
    [
      "bucket sums in a rule and in the default rule",
      {
        rules: [
          {
            buckets: [{ treatment: "on", size: 60 }],
            condition: { matchers: [{ type: "IN_SEGMENT", string: "b" }] },
          },
        ],
        defaultRule: [{ treatment: "off", size: 90 }],
      },
      [
        `${at}: rules[0].buckets: bucket sizes must sum to 100, got 60`,
        `${at}: defaultRule: bucket sizes must sum to 100, got 90`,
      ],
    ],
    [
      "a treatment referenced but not defined",
      { defaultRule: [{ treatment: "onn", size: 100 }] },
      [`${at}: defaultRule[0].treatment: treatment "onn" is not one of the treatments ("on", "off")`],
    ],
    [
      "a duplicate treatment name",
      { treatments: [{ name: "on" }, { name: "off" }, { name: "on" }] },
      [`${at}: treatments[2].name: treatment "on" is defined twice`],
    ],
    [
      "a reserved treatment name",
      { treatments: [{ name: "on" }, { name: "off" }, { name: "control" }] },
      [`${at}: treatments[2].name: treatment name is a reserved word (got "control")`],
    ],
    [
      "more than 20 treatments",
      {
        treatments: Array.from({ length: 21 }, (_, i) => ({
          name: i === 0 ? "on" : i === 1 ? "off" : `t${i}`,
        })),
      },
      [`${at}: treatments: at most 20 treatments are allowed, got 21`],
    ],
    [
      "traffic allocation above 100",
      { trafficAllocation: 101 },
      [`${at}: trafficAllocation: trafficAllocation must be 0..100 (got 101)`],
    ],
    [
      "traffic allocation below 0",
      { trafficAllocation: -1 },
      [`${at}: trafficAllocation: trafficAllocation must be 0..100 (got -1)`],
    ],
    [
      "a matcher without its data",
      {
        rules: [
          { buckets: [{ treatment: "on", size: 100 }], condition: { matchers: [{ type: "IN_SEGMENT" }] } },
        ],
      },
      [`${at}: rules[0].condition.matchers[0].string: string is required for a IN_SEGMENT matcher`],
    ],
    [
      "an unknown baseline treatment",
      { baselineTreatment: "none" },
      [`${at}: baselineTreatment: baselineTreatment "none" is not one of the treatments ("on", "off")`],
    ],
  ])("reports %s", async (_, change, messages) => {
    expect(await runOnDefinition(definitionWellFormed, { ...good, ...change })).toEqual(messages);
  });

  it("reports the provider's check failures in its words, the value given after a field's reason", async () => {
    const inputs = { ...good, treatments: [], defaultTreatment: "", defaultRule: [] };
    const { failures } = await KINDS[FLAG_DEFINITION_TYPE]!.check({}, inputs);
    expect(failures).toEqual([
      { property: "treatments", reason: "at least one treatment is required" },
      { property: "defaultTreatment", reason: "defaultTreatment must not be empty" },
      { property: "defaultRule", reason: "defaultRule needs at least one bucket" },
    ]);
    expect((await readDefinition(await checkedProps(FLAG_DEFINITION_TYPE, inputs))).problems).toEqual([
      "treatments: at least one treatment is required",
      'defaultTreatment: defaultTreatment must not be empty (got "")',
      "defaultRule: defaultRule needs at least one bucket",
    ]);
  });

  it("reports a target key given to two treatments, which only the provider's check refuses", async () => {
    const treatments = [
      { name: "on", keys: ["qa-bot"] },
      { name: "off", keys: ["qa-bot"] },
    ];
    expect(await runOnDefinition(definitionWellFormed, { ...good, treatments })).toEqual([
      `${at}: treatments[1].keys[0]: key "qa-bot" is already a target of treatment "on"`,
    ]);
  });
});

describe("nonBaselineShare", () => {
  /** The document the provider sends for the definition `good` changed by `over`. */
  const doc = async (over: object) => {
    const view = await readDefinition(await checkedProps(FLAG_DEFINITION_TYPE, { ...good, ...over }));
    if (!view.document) throw new Error(`not well formed: ${view.problems.join("; ")}`);
    return view.document;
  };
  it.each<[string, object, number]>([
    ["10% of the default rule", {}, 10],
    [
      "half the allocation of a 100% rollout",
      { trafficAllocation: 50, defaultRule: [{ treatment: "on", size: 100 }] },
      50,
    ],
    [
      "the default treatment counts when it is not the baseline",
      { trafficAllocation: 80, defaultTreatment: "on", defaultRule: [{ treatment: "off", size: 100 }] },
      20,
    ],
    [
      "the default treatment is the baseline when none is set",
      { baselineTreatment: undefined, defaultTreatment: "on", defaultRule: [{ treatment: "on", size: 100 }] },
      0,
    ],
    [
      "a killed definition serves the default treatment",
      { killed: true, defaultRule: [{ treatment: "on", size: 100 }] },
      0,
    ],
    ["a killed definition whose default is not the baseline", { killed: true, defaultTreatment: "on" }, 100],
    [
      "no default rule: the provider's default rule sends everyone to the default treatment",
      { baselineTreatment: "off", defaultTreatment: "on", defaultRule: undefined },
      100,
    ],
  ])("%s", async (_, over, share) => {
    expect(nonBaselineShare(await doc(over))).toBe(share);
  });
});

describe("production-ramp-guard", () => {
  const flag = (rolloutStatus?: string) =>
    checkedResource(
      FLAG_TYPE,
      { name: "new-checkout", workspace: "Default", ...(rolloutStatus ? { rolloutStatus } : {}) },
      "flag",
    );
  const definition = (over: object = {}, env = "Production") =>
    checkedResource(
      FLAG_DEFINITION_TYPE,
      {
        ...good,
        environment: env,
        defaultRule: [
          { treatment: "on", size: 80 },
          { treatment: "off", size: 20 },
        ],
        ...over,
      },
      "def",
    );
  const urn = stackUrn(FLAG_DEFINITION_TYPE, "def");

  it("reports a production definition above the limit whose flag is not ramping", async () => {
    expect(
      await runStackPolicy(productionRampGuard, await Promise.all([flag("Pre-Production"), definition()])),
    ).toEqual([
      {
        message:
          'flag "new-checkout" in environment "Production" sends 80% of untargeted traffic to treatments other than the baseline "off" (limit 50%), and its rollout status "Pre-Production" is not one of: Ramping, Experimenting, Ramped, Ready to Remove, Removed',
        urn,
      },
    ]);
  });

  it("names an unknown status when the Flag is not in the stack", async () => {
    expect(await runStackPolicy(productionRampGuard, [await definition()])).toEqual([
      {
        message:
          'flag "new-checkout" in environment "Production" sends 80% of untargeted traffic to treatments other than the baseline "off" (limit 50%), and its rollout status is unknown: no Flag resource named "new-checkout" in this stack (allowed: Ramping, Experimenting, Ramped, Ready to Remove, Removed)',
        urn,
      },
    ]);
  });

  it("gives a flag declared without a rollout status the status a new flag starts in", async () => {
    expect(
      (await runStackPolicy(productionRampGuard, await Promise.all([flag(), definition()]))).map(
        (r) => r.message,
      ),
    ).toEqual([
      'flag "new-checkout" in environment "Production" sends 80% of untargeted traffic to treatments other than the baseline "off" (limit 50%), and its rollout status "Pre-Production" is not one of: Ramping, Experimenting, Ramped, Ready to Remove, Removed',
    ]);
  });

  it.each<[string, ReturnType<typeof flag>[], ReturnType<typeof definition>, object]>([
    ["an allowed rollout status (any case)", [flag("ramping")], definition(), {}],
    [
      "a share at the limit",
      [flag("Pre-Production")],
      definition({
        defaultRule: [
          { treatment: "on", size: 50 },
          { treatment: "off", size: 50 },
        ],
      }),
      {},
    ],
    ["a non-production environment", [flag("Pre-Production")], definition({}, "Staging"), {}],
    ["a raised limit", [flag("Pre-Production")], definition(), { maxNonBaselinePercent: 80 }],
    [
      "a configured status list",
      [flag("Pre-Production")],
      definition(),
      { allowedRolloutStatuses: ["Pre-Production"] },
    ],
    [
      "an ill-formed definition (left to definition-well-formed)",
      [flag()],
      definition({ defaultRule: [{ treatment: "on", size: 80 }] }),
      {},
    ],
  ])("passes %s", async (_, flags, def, config) => {
    expect(await runStackPolicy(productionRampGuard, await Promise.all([...flags, def]), config)).toEqual([]);
  });

  it("treats configured environments as production, by name or id", async () => {
    const reports = await runStackPolicy(
      productionRampGuard,
      await Promise.all([flag("Pre-Production"), definition({}, "env-prod-id")]),
      { productionEnvironments: ["ENV-PROD-ID"] },
    );
    expect(reports.map((r) => r.message)).toEqual([
      'flag "new-checkout" in environment "env-prod-id" sends 80% of untargeted traffic to treatments other than the baseline "off" (limit 50%), and its rollout status "Pre-Production" is not one of: Ramping, Experimenting, Ramped, Ready to Remove, Removed',
    ]);
  });

  it("refuses a bad config, naming the field", async () => {
    await expect(runStackPolicy(productionRampGuard, [], { maxNonBaselinePercent: 120 })).rejects.toThrow(
      "invalid config of policy production-ramp-guard: maxNonBaselinePercent: Too big: expected number to be <=100",
    );
  });
});

describe("kill-switch-documented", () => {
  it("reports a production kill without a comment", async () => {
    expect(await runOnDefinition(killSwitchDocumented, { ...good, killed: true, comment: "  " })).toEqual([
      'flag "new-checkout" in environment "Production" is killed without a comment: set comment to say why it was killed and what brings it back',
    ]);
  });

  it.each<[string, object, object]>([
    ["a commented kill", { killed: true, comment: "INC-1234: checkout errors" }, {}],
    ["a definition that is not killed", { killed: false }, {}],
    ["a kill outside production", { killed: true, environment: "Staging" }, {}],
    [
      "a kill in an environment not configured as production",
      { killed: true },
      { productionEnvironments: ["Prod-EU"] },
    ],
  ])("passes %s", async (_, over, config) => {
    expect(await runOnDefinition(killSwitchDocumented, { ...good, ...over }, config)).toEqual([]);
  });
});

describe("a flag's definitions in several environments (FlagDefinitions): each judged as the FlagDefinition it is", () => {
  const { workspace, flag, environment: _, ...doc } = good;
  const definitions = (production: object, staging: object = {}) => ({
    workspace,
    flag,
    definitions: { Staging: { ...doc, ...staging }, Production: { ...doc, ...production } },
    comment: "INC-1234: checkout errors",
  });
  const urn = stackUrn(FLAG_DEFINITIONS_TYPE, "defs");

  it("definition-well-formed names each environment's problems, and passes the others", async () => {
    const props = await checkedProps(
      FLAG_DEFINITIONS_TYPE,
      definitions({}, { defaultRule: [{ treatment: "off", size: 90 }] }),
    );
    expect(await runResourcePolicy(definitionWellFormed, FLAG_DEFINITIONS_TYPE, props)).toEqual([
      'flag "new-checkout" in environment "Staging": defaultRule: bucket sizes must sum to 100, got 90',
    ]);
    const fine = await checkedProps(FLAG_DEFINITIONS_TYPE, definitions({}));
    expect(await runResourcePolicy(definitionWellFormed, FLAG_DEFINITIONS_TYPE, fine)).toEqual([]);
  });

  it("production-ramp-guard judges the Production entry only, naming the resource", async () => {
    const ramp = [
      { treatment: "on", size: 80 },
      { treatment: "off", size: 20 },
    ];
    const reports = await runStackPolicy(productionRampGuard, [
      await checkedResource(
        FLAG_DEFINITIONS_TYPE,
        definitions({ defaultRule: ramp }, { defaultRule: ramp }),
        "defs",
      ),
    ]);
    expect(reports).toEqual([
      {
        message:
          'flag "new-checkout" in environment "Production" sends 80% of untargeted traffic to treatments other than the baseline "off" (limit 50%), and its rollout status is unknown: no Flag resource named "new-checkout" in this stack (allowed: Ramping, Experimenting, Ramped, Ready to Remove, Removed)',
        urn,
      },
    ]);
  });

  it("kill-switch-documented reads the resource's comment for each environment", async () => {
    const killed = await checkedProps(FLAG_DEFINITIONS_TYPE, {
      ...definitions({ killed: true }),
      comment: undefined,
    });
    expect(await runResourcePolicy(killSwitchDocumented, FLAG_DEFINITIONS_TYPE, killed)).toEqual([
      'flag "new-checkout" in environment "Production" is killed without a comment: set comment to say why it was killed and what brings it back',
    ]);
    const commented = await checkedProps(FLAG_DEFINITIONS_TYPE, definitions({ killed: true }));
    expect(await runResourcePolicy(killSwitchDocumented, FLAG_DEFINITIONS_TYPE, commented)).toEqual([]);
  });

  it("a value unknown during a preview anywhere in the map: the engine's own error, as for a definition's input", async () => {
    const props = await checkedProps(FLAG_DEFINITIONS_TYPE, definitions({}));
    const previewed = unknownCheckingProxy({
      ...props,
      definitions: {
        ...(props.definitions as object),
        Staging: { ...doc, defaultTreatment: unknownStringValue },
      },
    });
    await expect(
      runResourcePolicy(definitionWellFormed, FLAG_DEFINITIONS_TYPE, previewed),
    ).rejects.toBeInstanceOf(UnknownValueError);
  });
});
