/**
 * policy/plan-check.ts: the pack's policies (their cores) on the resources of a Terraform plan, the
 * pack's config file format, levels as the engine applies them, a value not known until apply as an
 * advisory "can't run" naming the resource, and the text and JSON reports.
 */
import { describe, expect, it } from "vitest";
import type { PolicyCore } from "../../policy/common";
import {
  checkPlan,
  checkResources,
  failsCheck,
  formatJson,
  formatText,
  type PlanCheck,
  readPolicyPackConfig,
} from "../../policy/plan-check";
import { flagstackPolicies, policyCores } from "../../policy/policies";
import { UNKNOWN } from "../../provider/core/check";
import { ENVIRONMENT_TYPE, FLAG_DEFINITION_TYPE, FLAG_TYPE } from "../../provider/types";

/** A flag as a configuration gives it, by its address. */
const flag = (address: string, inputs: Record<string, unknown>) => ({
  type: FLAG_TYPE,
  address,
  props: { workspace: "Default", ...inputs },
});

/** A production definition sending 80% of untargeted traffic to `on`. */
const ramp = (address: string, inputs: Record<string, unknown> = {}) => ({
  type: FLAG_DEFINITION_TYPE,
  address,
  props: {
    workspace: "Default",
    flag: "new-checkout",
    environment: "Production",
    treatments: [{ name: "on" }, { name: "off" }],
    defaultTreatment: "off",
    defaultRule: [
      { treatment: "on", size: 80 },
      { treatment: "off", size: 20 },
    ],
    ...inputs,
  },
});

const NAMING = 'flag name "Bad_Name" does not match the pattern ^[a-z][a-z0-9]*(-[a-z0-9]+)*$';
const TAGS = 'flag "Bad_Name" lacks the required tags "owner:*" (it has no tags)';
const RAMP =
  'flag "new-checkout" in environment "Production" sends 80% of untargeted traffic to treatments other than the baseline "off" (limit 50%), and its rollout status "Pre-Production" is not one of: Ramping, Experimenting, Ramped, Ready to Remove, Removed';

describe("the policies' cores", () => {
  it("every policy of the pack carries its core: the same name, level and severity, its scope its wrapper's", () => {
    expect(policyCores).toHaveLength(17);
    for (const p of flagstackPolicies) {
      expect([p.core.name, p.core.enforcementLevel, p.core.severity]).toEqual([
        p.name,
        p.enforcementLevel,
        p.severity,
      ]);
      expect(p.core.scope).toBe("validateStack" in p ? "stack" : "resource");
      expect(p.core.config !== undefined).toBe(p.configSchema !== undefined);
    }
  });
});

describe("readPolicyPackConfig: the file --policy-pack-config takes", () => {
  const levels = (json: unknown) =>
    Object.fromEntries([...readPolicyPackConfig(json).policies].map(([n, s]) => [n, s.enforcementLevel]));

  it("without a file: each policy at its own level, no settings", () => {
    const config = readPolicyPackConfig(undefined);
    expect([...config.policies.keys()]).toEqual(policyCores.map((p) => p.name));
    expect(config.policies.get("flag-naming")).toEqual({ enforcementLevel: "advisory", settings: {} });
    expect(config.policies.get("production-ramp-guard")).toEqual({
      enforcementLevel: "mandatory",
      settings: {},
    });
    expect(config.ignored).toEqual([]);
  });

  it("a level, settings with or without a level, `all` under each policy's own entry; other names ignored", () => {
    const config = readPolicyPackConfig({
      all: "advisory",
      "flag-naming": "mandatory",
      "production-ramp-guard": { maxNonBaselinePercent: 90 },
      "segment-size-limit": { enforcementLevel: "disabled", maxMembers: 10 },
      "flag-described": "mandatory",
    });
    expect(config.policies.get("flag-naming")).toEqual({ enforcementLevel: "mandatory", settings: {} });
    expect(config.policies.get("production-ramp-guard")).toEqual({
      enforcementLevel: "advisory",
      settings: { maxNonBaselinePercent: 90 },
    });
    expect(config.policies.get("segment-size-limit")).toEqual({
      enforcementLevel: "disabled",
      settings: { maxMembers: 10 },
    });
    expect(levels({ all: "advisory" })["api-keys-scoped"]).toBe("advisory");
    expect(config.ignored).toEqual(["flag-described"]);
  });

  it.each<[string, unknown, string]>([
    [
      "an unknown level",
      { "flag-naming": "loud" },
      'invalid policy-pack config: flag-naming: "loud" is not an enforcement level (advisory, mandatory, remediate, disabled)',
    ],
    [
      "a level of another type",
      { "flag-naming": 3 },
      "invalid policy-pack config: flag-naming: an entry is a policy's enforcement level or an object of its settings, not 3",
    ],
    [
      "not an object",
      [],
      "invalid policy-pack config: (config): Invalid input: expected record, received array",
    ],
    [
      "settings the policies refuse, all of them, in the pack's words",
      { "production-ramp-guard": { maxNonBaselinePercent: 101 }, "flag-naming": { pattern: "(" } },
      "invalid config of policy production-ramp-guard: maxNonBaselinePercent: Too big: expected number to be <=100\ninvalid config of policy flag-naming: pattern: pattern must be a valid regular expression",
    ],
  ])("refuses %s, before reading any resource", (_, json, message) => {
    expect(() => readPolicyPackConfig(json)).toThrow(message);
  });
});

describe("checkResources: the cores on a plan's resources", () => {
  it("reports each policy's findings in the pack's order, a resource policy's and a stack policy's naming the address", async () => {
    expect(
      await checkResources([
        flag('flagstack_flag.bad["x"]', { name: "Bad_Name" }),
        ramp("flagstack_flag_definition.prod"),
      ]),
    ).toEqual([
      {
        policy: "production-ramp-guard",
        enforcementLevel: "mandatory",
        severity: "high",
        address: "flagstack_flag_definition.prod",
        message: RAMP.replace(
          'its rollout status "Pre-Production" is not one of: Ramping, Experimenting, Ramped, Ready to Remove, Removed',
          'its rollout status is unknown: no Flag resource named "new-checkout" in this stack (allowed: Ramping, Experimenting, Ramped, Ready to Remove, Removed)',
        ),
      },
      {
        policy: "flag-naming",
        enforcementLevel: "advisory",
        severity: "low",
        address: 'flagstack_flag.bad["x"]',
        message: NAMING,
      },
      {
        policy: "flag-required-tags",
        enforcementLevel: "advisory",
        severity: "low",
        address: 'flagstack_flag.bad["x"]',
        message: TAGS,
      },
    ]);
  });

  it("applies the config: settings, disabled, remediate as mandatory, advisory", async () => {
    const config = readPolicyPackConfig({
      "flag-naming": "remediate",
      "flag-required-tags": "disabled",
      "production-ramp-guard": { enforcementLevel: "advisory", maxNonBaselinePercent: 90 },
    });
    const resources = [
      flag("flagstack_flag.checkout", { name: "new-checkout", tags: ["owner:payments"] }),
      flag("flagstack_flag.bad", { name: "Bad_Name" }),
      ramp("flagstack_flag_definition.prod", {
        defaultRule: [{ treatment: "on", size: 100 }],
      }),
    ];
    expect(await checkResources(resources, config)).toEqual([
      {
        policy: "production-ramp-guard",
        enforcementLevel: "advisory",
        severity: "high",
        address: "flagstack_flag_definition.prod",
        message: RAMP.replace("sends 80%", "sends 100%").replace("(limit 50%)", "(limit 90%)"),
      },
      {
        policy: "flag-naming",
        enforcementLevel: "mandatory",
        severity: "low",
        address: "flagstack_flag.bad",
        message: NAMING,
      },
    ]);
  });

  it("a value not known until apply: the policies that need it cannot run, advisory, naming the resource and its attribute", async () => {
    const resources = [
      flag("flagstack_flag.checkout", { name: "new-checkout", tags: ["owner:payments"] }),
      ramp("flagstack_flag_definition.prod", { defaultTreatment: UNKNOWN }),
      {
        type: ENVIRONMENT_TYPE,
        address: "flagstack_environment.live",
        props: { workspace: "Default", name: UNKNOWN, production: true },
      },
    ];
    const cantRun = (policy: string, severity: string, address: string, attribute: string) => ({
      policy,
      enforcementLevel: "advisory",
      severity,
      address,
      message: `can't run during the plan: the value of ${attribute} is known only after apply`,
    });
    expect(await checkResources(resources)).toEqual([
      cantRun("definition-well-formed", "high", "flagstack_flag_definition.prod", "default_treatment"),
      // A stack policy stops at the first value it cannot read, and names its resource.
      cantRun("production-ramp-guard", "high", "flagstack_flag_definition.prod", "default_treatment"),
      cantRun("kill-switch-documented", "medium", "flagstack_flag_definition.prod", "default_treatment"),
      // What the policy names it by is unknown too: it does not guess.
      cantRun("production-requires-approvals", "high", "flagstack_environment.live", "name"),
      // Who the change reaches needs the whole definition.
      cantRun("max-traffic-shift", "high", "flagstack_flag_definition.prod", "default_treatment"),
    ]);
  });

  it("a policy that fails for another reason fails the check, naming it", async () => {
    const broken: PolicyCore = {
      name: "broken",
      description: "fails",
      enforcementLevel: "mandatory",
      scope: "resource",
      check: async () => {
        throw new Error("boom");
      },
    };
    await expect(
      checkResources([flag("flagstack_flag.x", { name: "x" })], undefined, [broken]),
    ).rejects.toThrow("policy broken failed: boom");
  });
});

/** A plan of one flag named badly and one compliant, as `tofu show -json` writes it. */
const PLAN = {
  format_version: "1.2",
  resource_changes: [
    {
      address: "flagstack_flag.bad",
      mode: "managed",
      type: "flagstack_flag",
      name: "bad",
      change: {
        actions: ["create"],
        after: { workspace: "Default", name: "Bad_Name", tags: [] },
        after_unknown: { id: true },
      },
    },
    {
      address: "flagstack_rocket.launch",
      mode: "managed",
      type: "flagstack_rocket",
      name: "launch",
      change: { actions: ["create"], after: {}, after_unknown: {} },
    },
  ],
  configuration: {
    root_module: {
      resources: [
        {
          address: "flagstack_flag.bad",
          mode: "managed",
          type: "flagstack_flag",
          name: "bad",
          expressions: { workspace: {}, name: {} },
        },
      ],
    },
  },
};

describe("checkPlan and its reports", () => {
  it("checks a plan's JSON with a config's JSON, noting what it does not check", async () => {
    const check = await checkPlan(PLAN, { "flag-naming": "mandatory", "flag-described": "advisory" });
    expect(check).toEqual({
      policyPack: "flagstack-rollout-safety",
      resources: ["flagstack_flag.bad"],
      violations: [
        {
          policy: "flag-naming",
          enforcementLevel: "mandatory",
          severity: "low",
          address: "flagstack_flag.bad",
          message: NAMING,
        },
        {
          policy: "flag-required-tags",
          enforcementLevel: "advisory",
          severity: "low",
          address: "flagstack_flag.bad",
          message: TAGS,
        },
      ],
      notes: [
        'the config names no policy of flagstack-rollout-safety: "flag-described" is ignored',
        "resource type flagstack_rocket is not known to this version of flagstack: not checked",
      ],
    });
    expect(failsCheck(check)).toBe(true);
    expect(failsCheck(await checkPlan(PLAN))).toBe(false);
  });

  const check: PlanCheck = {
    policyPack: "flagstack-rollout-safety",
    resources: ["flagstack_flag.bad", "flagstack_flag_definition.prod"],
    violations: [
      {
        policy: "production-ramp-guard",
        enforcementLevel: "mandatory",
        severity: "high",
        address: "flagstack_flag_definition.prod",
        message: RAMP,
      },
      {
        policy: "targeting-assertions",
        enforcementLevel: "mandatory",
        severity: "high",
        message:
          'in environment "Staging", flag "x" has no definition in this stack, so the expectation on treatment "on" cannot be checked',
      },
      {
        policy: "flag-naming",
        enforcementLevel: "advisory",
        severity: "low",
        address: "flagstack_flag.bad",
        message: NAMING,
      },
    ],
    notes: ["resource type flagstack_rocket is not known to this version of flagstack: not checked"],
  };

  it("text: one line a finding, the address before the message, then the notes and a summary", () => {
    expect(formatText(check)).toBe(
      [
        `[mandatory] production-ramp-guard  flagstack_flag_definition.prod: ${RAMP}`,
        '[mandatory] targeting-assertions  in environment "Staging", flag "x" has no definition in this stack, so the expectation on treatment "on" cannot be checked',
        `[advisory] flag-naming  flagstack_flag.bad: ${NAMING}`,
        "note: resource type flagstack_rocket is not known to this version of flagstack: not checked",
        "flagstack-rollout-safety: 2 mandatory violations, 1 advisory finding on 2 flagstack resources of the plan",
        "",
      ].join("\n"),
    );
    expect(formatText({ ...check, resources: [], violations: [], notes: [] })).toBe(
      "flagstack-rollout-safety: 0 mandatory violations, 0 advisory findings on 0 flagstack resources of the plan\n",
    );
  });

  it("json: the check with its counts", () => {
    expect(JSON.parse(formatJson(check))).toEqual({ ...check, mandatory: 2, advisory: 1 });
  });
});
