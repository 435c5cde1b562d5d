import { describe, expect, it } from "vitest";
import { POLICY_PACK_NAME, policies } from "../../policy/policies";

describe("the pack", () => {
  it("lists every policy once, with kebab-case names, a description and an enforcement level", () => {
    expect(POLICY_PACK_NAME).toBe("flagstack-rollout-safety");
    expect(policies.map((p) => [p.name, p.enforcementLevel])).toEqual([
      ["definition-well-formed", "mandatory"],
      ["production-ramp-guard", "mandatory"],
      ["kill-switch-documented", "advisory"],
      ["flag-naming", "advisory"],
      ["flag-required-tags", "advisory"],
      ["pipeline-deployment-rollback", "mandatory"],
      ["pipeline-no-literal-secrets", "mandatory"],
      ["pipeline-step-timeouts", "advisory"],
      ["connector-no-anonymous-production", "mandatory"],
      ["targeting-assertions", "mandatory"],
      ["segment-size-limit", "advisory"],
      ["production-requires-approvals", "mandatory"],
      ["api-keys-scoped", "mandatory"],
      ["secrets-not-inline", "mandatory"],
      ["pipeline-approval-before-production", "mandatory"],
      ["trigger-production-input-set", "mandatory"],
      ["max-traffic-shift", "mandatory"],
    ]);
    for (const p of policies) {
      expect(p.name).toMatch(/^[a-z]+(-[a-z]+)*$/);
      expect(p.description.length).toBeGreaterThan(20);
    }
  });

  it("gives configurable policies a draft-07 config schema with defaults and no enforcementLevel", () => {
    const ramp = policies.find((p) => p.name === "production-ramp-guard");
    expect(ramp?.configSchema?.properties.maxNonBaselinePercent).toEqual({
      default: 50,
      description:
        "Largest share (percent) of untargeted traffic a production definition may send to treatments other than the baseline.",
      type: "number",
      minimum: 0,
      maximum: 100,
    });
    for (const p of policies) {
      expect(p.configSchema?.properties ?? {}).not.toHaveProperty("enforcementLevel");
      expect(p.configSchema?.required).toBeUndefined();
    }
    expect(policies.filter((p) => p.configSchema).map((p) => p.name)).toEqual([
      "production-ramp-guard",
      "kill-switch-documented",
      "flag-naming",
      "flag-required-tags",
      "pipeline-deployment-rollback",
      "pipeline-no-literal-secrets",
      "pipeline-step-timeouts",
      "connector-no-anonymous-production",
      "targeting-assertions",
      "segment-size-limit",
      "pipeline-approval-before-production",
      "trigger-production-input-set",
      "max-traffic-shift",
    ]);
  });
});
