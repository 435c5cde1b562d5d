import { describe, expect, it } from "vitest";
import { checkExpectations, TargetingConfig, targetingAssertions } from "../../policy/targeting";
import { nativeToken } from "../../provider/native/kinds";
import { FLAG_DEFINITION_TYPE, FLAG_TYPE } from "../../provider/types";
import { checkedResource, runStackPolicy, type StackResource, stackUrn } from "./util";

/** A FlagDefinition as a program declares it (provider/flags/flag-definition.ts), checked by its provider. */
const checkout = (over: Record<string, unknown> = {}) =>
  checkedResource(
    FLAG_DEFINITION_TYPE,
    {
      workspace: "Default",
      flag: "new-checkout",
      environment: "Production",
      treatments: [
        { name: "on", keys: ["qa-bot"], configurations: { color: "green" } },
        { name: "off", segments: ["blocked"] },
      ],
      defaultTreatment: "off",
      baselineTreatment: "off",
      rules: [
        {
          buckets: [{ treatment: "on", size: 100 }],
          condition: {
            combiner: "AND",
            matchers: [{ type: "ENDS_WITH_STRING", attribute: "email", strings: ["@example.com"] }],
          },
        },
      ],
      defaultRule: [
        { treatment: "on", size: 10 },
        { treatment: "off", size: 90 },
      ],
      ...over,
    },
    "checkout-prod",
  );
/** The Flag of the definitions, declared without a traffic type (the provider's default applies). */
const flag = () =>
  checkedResource(FLAG_TYPE, { workspace: "Default", name: "new-checkout" }, "checkout-flag");
const urn = stackUrn(FLAG_DEFINITION_TYPE, "checkout-prod");
const run = async (
  expectations: object[],
  resources: Promise<StackResource>[] = [flag(), checkout()],
  extra: object = {},
) => runStackPolicy(targetingAssertions, await Promise.all(resources), { expectations, ...extra });

describe("targeting-assertions: keys", () => {
  it.each<[string, object]>([
    ["an individual target", { key: "qa-bot", treatment: "on" }],
    ["an attribute rule", { key: "ann", attributes: { email: "ann@example.com" }, treatment: "on" }],
    ["a segment member (segments from the config)", { key: "mallory", treatment: "off" }],
  ])("passes %s", async (_, e) => {
    expect(
      await run([{ flag: "new-checkout", environment: "Production", ...e }], undefined, {
        segments: { blocked: ["mallory"] },
      }),
    ).toEqual([]);
  });

  it("reports a key that gets another treatment, with the SDK's label", async () => {
    expect(
      await run(
        [
          {
            flag: "new-checkout",
            environment: "Production",
            key: "mallory",
            attributes: { email: "m@example.com" },
            treatment: "on",
          },
        ],
        undefined,
        { segments: { blocked: ["mallory"] } },
      ),
    ).toEqual([
      {
        message:
          'in environment "Production", key "mallory" gets treatment "off" for flag "new-checkout" (label "whitelisted segment"), expected "on"',
        urn,
      },
    ]);
  });

  it("reports a key whose treatment depends on the service's bucketing seed", async () => {
    expect(
      await run([{ flag: "new-checkout", environment: "Production", key: "someone", treatment: "off" }]),
    ).toEqual([
      {
        message:
          'in environment "Production", key "someone" gets treatment "on" or "off" for flag "new-checkout" depending on the service\'s bucketing seed (label "default rule"), expected always "off"',
        urn,
      },
    ]);
  });

  it("reports a killed definition serving its default treatment", async () => {
    expect(
      await run(
        [{ flag: "new-checkout", environment: "production", key: "qa-bot", treatment: "on" }],
        [checkout({ killed: true })],
      ),
    ).toEqual([
      {
        message:
          'in environment "production", key "qa-bot" gets treatment "off" for flag "new-checkout" (label "killed"), expected "on"',
        urn,
      },
    ]);
  });
});

describe("targeting-assertions: shares", () => {
  it("passes when the measured share is within bounds", async () => {
    expect(
      await run([
        { flag: "new-checkout", environment: "Production", treatment: "on", maxPercent: 12, minPercent: 8 },
      ]),
    ).toEqual([]);
  });

  it("reports a share above the maximum, with the breakdown", async () => {
    const e = {
      flag: "new-checkout",
      environment: "Production",
      treatment: "on",
      maxPercent: 5,
      sampleSize: 2000,
      keyPrefix: "user-",
    };
    expect(await run([e])).toEqual([
      {
        message:
          'in environment "Production", 9.8% of 2000 sampled keys get treatment "on" for flag "new-checkout", expected at most 5% (off: 90.2%, on: 9.8%)',
        urn,
      },
    ]);
  });

  it("reports a share below the minimum: everyone outside a zero allocation gets the default", async () => {
    expect(
      await run(
        [
          {
            flag: "new-checkout",
            environment: "Production",
            treatment: "on",
            minPercent: 1,
            sampleSize: 300,
          },
        ],
        [checkout({ trafficAllocation: 0 })],
      ),
    ).toEqual([
      {
        message:
          'in environment "Production", 0% of 300 sampled keys get treatment "on" for flag "new-checkout", expected at least 1% (off: 100%)',
        urn,
      },
    ]);
  });

  it("applies attributes to the sample", async () => {
    expect(
      await run([
        {
          flag: "new-checkout",
          environment: "Production",
          treatment: "on",
          minPercent: 100,
          sampleSize: 200,
          attributes: { email: "x@example.com" },
        },
      ]),
    ).toEqual([]);
  });
});

describe("targeting-assertions: what cannot be checked", () => {
  it("reports a flag with no definition in that environment", async () => {
    expect(
      await run([{ flag: "new-checkout", environment: "Staging", key: "qa-bot", treatment: "on" }]),
    ).toEqual([
      {
        message:
          'in environment "Staging", flag "new-checkout" has no definition in this stack, so the expectation on treatment "on" cannot be checked',
        urn: undefined,
      },
    ]);
  });

  it("reports a definition that is not well formed", async () => {
    expect(
      await run(
        [{ flag: "new-checkout", environment: "Production", key: "qa-bot", treatment: "on" }],
        [checkout({ defaultRule: [{ treatment: "on", size: 10 }] })],
      ),
    ).toEqual([
      {
        message:
          'in environment "Production", flag "new-checkout" cannot be evaluated: its definition is not well formed (see definition-well-formed)',
        urn,
      },
    ]);
  });

  it("refuses an expectation of neither shape (a misspelt field), naming its index", async () => {
    await expect(
      run([{ flag: "new-checkout", environment: "Production", key: "k", treatmnet: "on" }]),
    ).rejects.toThrow(
      "invalid config of policy targeting-assertions: expectations[0]: an expectation is {flag, environment, key, attributes?, treatment} or {flag, environment, treatment, maxPercent?, minPercent?, sampleSize?, keyPrefix?, attributes?}, with no other field",
    );
  });

  it("does nothing without expectations, and refuses an expectation with neither key nor bounds", async () => {
    expect(await runStackPolicy(targetingAssertions, [await checkout()], {})).toEqual([]);
    await expect(run([{ flag: "new-checkout", environment: "Production", treatment: "on" }])).rejects.toThrow(
      "invalid config of policy targeting-assertions: expectations[0]: an expectation needs a key, or maxPercent and/or minPercent",
    );
  });
});

describe("targeting-assertions: dependencies", () => {
  it("evaluates IN_SPLIT against the other definitions of the same environment", async () => {
    const base = await checkout();
    const dependent = await checkedResource(
      FLAG_DEFINITION_TYPE,
      {
        workspace: "Default",
        flag: "express-shipping",
        environment: "Production",
        treatments: [{ name: "on" }, { name: "off" }],
        defaultTreatment: "off",
        rules: [
          {
            buckets: [{ treatment: "on", size: 100 }],
            condition: {
              matchers: [{ type: "IN_SPLIT", depends: { splitName: "new-checkout", treatment: "on" } }],
            },
          },
        ],
      },
      "dep",
    );
    const failures = await checkExpectations(
      [base, dependent],
      TargetingConfig.parse({
        expectations: [
          { flag: "express-shipping", environment: "Production", key: "qa-bot", treatment: "on" },
          { flag: "express-shipping", environment: "Production", key: "mallory", treatment: "on" },
        ],
        segments: { blocked: ["mallory"] },
      }),
    );
    expect(failures.map((f) => f.message)).toEqual([
      'in environment "Production", key "mallory" gets treatment "off" for flag "express-shipping" (label "default rule"), expected "on"',
    ]);
  });
});

describe("targeting-assertions: native provider tokens", () => {
  it("evaluates the definitions and flags of the native provider (flagstack:index:*) as dynamic ones", async () => {
    const native = async (r: Promise<StackResource>): Promise<StackResource> => {
      const resource = await r;
      return { ...resource, type: nativeToken(resource.type) };
    };
    const resources = [await native(flag()), await native(checkout())];
    expect(resources.map((r) => r.type)).toEqual(["flagstack:index:Flag", "flagstack:index:FlagDefinition"]);
    const failures = await checkExpectations(
      resources,
      TargetingConfig.parse({
        expectations: [
          { flag: "new-checkout", environment: "Production", key: "qa-bot", treatment: "on" },
          { flag: "new-checkout", environment: "Production", key: "mallory", treatment: "on" },
        ],
        segments: { blocked: ["mallory"] },
      }),
    );
    expect(failures.map((f) => f.message)).toEqual([
      'in environment "Production", key "mallory" gets treatment "off" for flag "new-checkout" (label "whitelisted segment"), expected "on"',
    ]);
  });
});
