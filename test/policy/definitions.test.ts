import { describe, expect, it } from "vitest";
import {
  definitionProblems,
  definitionWellFormed,
  killSwitchDocumented,
  nonBaselineShare,
  productionRampGuard,
} from "../../policy/definitions";
import { FLAG_DEFINITION_TYPE, FLAG_TYPE, GROUP_TYPE } from "../../provider/types";
import { DefinitionBody } from "../../sdk/admin/schemas";
import { runResourcePolicy, runStackPolicy, stackUrn } from "./util";

const good = {
  flagName: "new-checkout",
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

describe("definition-well-formed", () => {
  it("passes a well-formed definition, and ignores other resources", async () => {
    expect(await runResourcePolicy(definitionWellFormed, FLAG_DEFINITION_TYPE, good)).toEqual([]);
    expect(await runResourcePolicy(definitionWellFormed, GROUP_TYPE, { treatments: [] })).toEqual([]);
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
    expect(
      await runResourcePolicy(definitionWellFormed, FLAG_DEFINITION_TYPE, { ...good, ...change }),
    ).toEqual(messages);
  });

  it("reads a definition nested under `definition` and an environment given as {id, name}", async () => {
    const { flagName, environment, ...definition } = good;
    const props = {
      flag: { name: flagName },
      environment: { id: "env-1", name: environment },
      definition: { ...definition, trafficAllocation: 200 },
    };
    expect(await runResourcePolicy(definitionWellFormed, FLAG_DEFINITION_TYPE, props)).toEqual([
      `${at}: trafficAllocation: trafficAllocation must be 0..100 (got 200)`,
    ]);
  });

  it("lists problems of a document with the same words as the provider and the emulator", () => {
    expect(definitionProblems({ treatments: [], defaultTreatment: "", defaultRule: [] })).toEqual([
      "treatments: at least one treatment is required",
      'defaultTreatment: defaultTreatment must not be empty (got "")',
      "defaultRule: defaultRule needs at least one bucket",
    ]);
  });
});

describe("nonBaselineShare", () => {
  const doc = (over: object) => DefinitionBody.parse({ ...good, ...over });
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
  ])("%s", (_, over, share) => {
    expect(nonBaselineShare(doc(over))).toBe(share);
  });
});

describe("production-ramp-guard", () => {
  const flag = (rolloutStatus?: string) => ({
    type: FLAG_TYPE,
    name: "flag",
    props: {
      name: "new-checkout",
      workspace: "Default",
      trafficType: "user",
      ...(rolloutStatus ? { rolloutStatus } : {}),
    },
  });
  const definition = (over: object = {}, env = "Production") => ({
    type: FLAG_DEFINITION_TYPE,
    name: "def",
    props: {
      ...good,
      environment: env,
      defaultRule: [
        { treatment: "on", size: 80 },
        { treatment: "off", size: 20 },
      ],
      ...over,
    },
  });
  const urn = stackUrn(FLAG_DEFINITION_TYPE, "def");

  it("reports a production definition above the limit whose flag is not ramping", async () => {
    expect(await runStackPolicy(productionRampGuard, [flag("Pre-Production"), definition()])).toEqual([
      {
        message:
          'flag "new-checkout" in environment "Production" sends 80% of untargeted traffic to treatments other than the baseline "off" (limit 50%), and its rollout status "Pre-Production" is not one of: Ramping, Experimenting, Ramped, Ready to Remove, Removed',
        urn,
      },
    ]);
  });

  it("names an unknown status when the Flag is not in the stack", async () => {
    expect(await runStackPolicy(productionRampGuard, [definition()])).toEqual([
      {
        message:
          'flag "new-checkout" in environment "Production" sends 80% of untargeted traffic to treatments other than the baseline "off" (limit 50%), and its rollout status is unknown: no Flag resource named "new-checkout" in this stack (allowed: Ramping, Experimenting, Ramped, Ready to Remove, Removed)',
        urn,
      },
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
    expect(await runStackPolicy(productionRampGuard, [...flags, def], config)).toEqual([]);
  });

  it("treats configured environments as production, by name or id", async () => {
    const reports = await runStackPolicy(
      productionRampGuard,
      [flag("Pre-Production"), definition({}, "env-prod-id")],
      {
        productionEnvironments: ["ENV-PROD-ID"],
      },
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
    expect(
      await runResourcePolicy(killSwitchDocumented, FLAG_DEFINITION_TYPE, {
        ...good,
        killed: true,
        comment: "  ",
      }),
    ).toEqual([
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
    expect(
      await runResourcePolicy(killSwitchDocumented, FLAG_DEFINITION_TYPE, { ...good, ...over }, config),
    ).toEqual([]);
  });
});
