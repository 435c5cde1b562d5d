/**
 * The rollout-safety policy pack (`policy/`) run by the real engine: `pulumi preview --policy-pack
 * policy/` prints advisory violations and passes, blocks a mandatory violation, honours a
 * `--policy-pack-config` file, evaluates targeting assertions with the real SDK, and `up` with a
 * mandatory violation changes nothing on the service.
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clients, clone, flagNames, type StackSpec } from "./fixtures";
import { EngineStack, REPO_ROOT, writeJson } from "./harness";

const POLICY_PACK = join(REPO_ROOT, "policy");

/** A compliant stack apart from one advisory finding: the flag name is not kebab-case. */
const advisoryOnly: StackSpec = {
  flags: {
    checkout: {
      workspace: "Default",
      name: "Checkout_V2",
      description: "New checkout",
      tags: ["owner:payments"],
    },
  },
  definitions: {
    production: {
      workspace: "Default",
      flag: "checkout",
      environment: "Production",
      treatments: [{ name: "on", keys: ["qa-bot"] }, { name: "off" }],
      defaultTreatment: "off",
      defaultRule: [
        { treatment: "on", size: 10 },
        { treatment: "off", size: 90 },
      ],
    },
  },
};

/** The same stack sending everyone to `on` in Production while the flag is still Pre-Production. */
function rampViolation(): StackSpec {
  const spec = clone(advisoryOnly);
  spec.definitions!.production!.defaultRule = [{ treatment: "on", size: 100 }];
  return spec;
}

/** The engine's text for a failed command (stdout and stderr of the CLI). */
const failureText = async (p: Promise<unknown>): Promise<string> => {
  const e = await p.then(
    () => {
      throw new Error("expected the command to fail");
    },
    (err: unknown) => err,
  );
  return String(e);
};

describe("the policy pack with the real engine", () => {
  let s: EngineStack;

  beforeAll(async () => {
    s = await EngineStack.open({ program: "test/e2e/programs/stack" });
  });
  afterAll(async () => {
    await s?.close();
  });

  it("prints an advisory violation and lets the preview pass, with no request", async () => {
    await s.setSpec(advisoryOnly);
    const { result, requests } = await s.preview({ policyPacks: [POLICY_PACK] });
    expect(result.changeSummary).toEqual({ create: 3 });
    expect(result.stdout).toContain(
      "[advisory] [severity: low]  flag-naming  (pulumi-nodejs:dynamic/flagstack:Flag: checkout)",
    );
    expect(result.stdout).toContain(
      'flag name "Checkout_V2" does not match the pattern ^[a-z][a-z0-9]*(-[a-z0-9]+)*$',
    );
    expect(result.stdout).not.toContain("[mandatory]");
    expect(requests).toEqual([]);
  });

  it("blocks a mandatory violation", async () => {
    await s.setSpec(rampViolation());
    const text = await failureText(s.preview({ policyPacks: [POLICY_PACK] }));
    expect(text).toContain(
      "[mandatory] [severity: high]  production-ramp-guard  (pulumi-nodejs:dynamic/flagstack:FlagDefinition: production)",
    );
    expect(text).toContain(
      'flag "Checkout_V2" in environment "Production" sends 100% of untargeted traffic to treatments other than the baseline "off" (limit 50%), and its rollout status "Pre-Production" is not one of: Ramping, Experimenting, Ramped, Ready to Remove, Removed',
    );
    // The advisory finding is printed beside it.
    expect(text).toContain("[advisory] [severity: low]  flag-naming");
  });

  it("up (with its preview) with a mandatory violation creates nothing", async () => {
    // `pulumi up` previews first and stops there. (With --skip-preview, as the Automation API runs
    // it, policies run as resources register, so a flag may be created before its definition's
    // violation stops the update.)
    await s.setSpec(rampViolation());
    const text = await failureText(s.cli(["up", "--yes", "--policy-pack", POLICY_PACK, "--color", "never"]));
    expect(text).toContain("production-ramp-guard");
    expect(await flagNames(clients(s.emu).admin)).toEqual([]);
    expect(s.emu.requests().filter((r) => r.method !== "GET")).toEqual([]);
  });

  it("honours a policy-pack config file: a raised limit passes, a failed targeting assertion blocks", async () => {
    const relaxed = writeJson(s.dir, "relaxed.json", {
      "production-ramp-guard": { maxNonBaselinePercent: 100 },
      "flag-naming": "disabled",
    });
    const passed = await s.preview({ policyPacks: [POLICY_PACK], policyPackConfigs: [relaxed] });
    expect(passed.result.stdout).not.toContain("production-ramp-guard");
    expect(passed.result.stdout).not.toContain("flag-naming");

    const expectations = writeJson(s.dir, "targeting.json", {
      "production-ramp-guard": { maxNonBaselinePercent: 100 },
      "targeting-assertions": {
        expectations: [
          { flag: "Checkout_V2", environment: "Production", key: "qa-bot", treatment: "on" },
          { flag: "Checkout_V2", environment: "Production", treatment: "on", maxPercent: 10 },
        ],
      },
    });
    const text = await failureText(
      s.preview({ policyPacks: [POLICY_PACK], policyPackConfigs: [expectations] }),
    );
    expect(text).toContain("[mandatory]");
    expect(text).toContain("targeting-assertions");
    expect(text).toContain('in environment "Production", 100% of');
    expect(text).toContain('sampled keys get treatment "on" for flag "Checkout_V2", expected at most 10%');
    // The individual-target expectation holds, so it is not reported.
    expect(text).not.toContain('key "qa-bot" gets treatment');
  });
});
