/**
 * The targeting assertions against the real thing: definitions created through the admin API of
 * the emulator, served to the real `@splitsoftware/splitio` SDK by `/api/splitChanges`, and the
 * treatments it returns compared with what the policy pack predicts for the same definitions.
 */
import { SplitFactory } from "@splitsoftware/splitio";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator } from "../../emulator";
import { checkExpectations, TargetingConfig } from "../../policy/targeting";
import { FLAG_DEFINITION_TYPE } from "../../provider/types";
import { AdminClient } from "../../sdk/admin/client";
import { type DefinitionBody, DefinitionBody as DefinitionBodySchema } from "../../sdk/admin/schemas";
import { toSdkSplit } from "../../sdk/split/convert";
import { OfflineEvaluator, sampleKeys } from "../../sdk/split/evaluate";
import { type SdkSplit, SplitChanges } from "../../sdk/split/schemas";
import { checkedResource, type StackResource } from "./util";

const checkout: DefinitionBody = {
  treatments: [
    { name: "on", keys: ["qa-bot"], configurations: '{"color":"green"}' },
    { name: "off" },
    { name: "v2" },
  ],
  defaultTreatment: "off",
  baselineTreatment: "off",
  trafficAllocation: 100,
  rules: [
    {
      buckets: [{ treatment: "v2", size: 100 }],
      condition: { matchers: [{ type: "ENDS_WITH_STRING", attribute: "email", strings: ["@example.com"] }] },
    },
    {
      buckets: [{ treatment: "on", size: 100 }],
      condition: { matchers: [{ type: "GREATER_THAN_OR_EQUAL_NUMBER", attribute: "age", number: 65 }] },
    },
  ],
  defaultRule: [
    { treatment: "on", size: 30 },
    { treatment: "off", size: 50 },
    { treatment: "v2", size: 20 },
  ],
};
const shipping: DefinitionBody = {
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
  defaultRule: [{ treatment: "off", size: 100 }],
};

/** A partial allocation: which keys are in depends on the trafficAllocationSeed. */
const banner: DefinitionBody = {
  treatments: [{ name: "on" }, { name: "off" }],
  defaultTreatment: "off",
  trafficAllocation: 50,
  defaultRule: [{ treatment: "on", size: 100 }],
};
const FLAGS = ["new-checkout", "express-shipping", "banner"];

/** Keys and attributes to compare: targeted ones and plain ones that land in the splits. */
const cases: { key: string; attributes?: Record<string, string | number> }[] = [
  { key: "qa-bot" },
  { key: "ann", attributes: { email: "ann@example.com" } },
  { key: "bob", attributes: { age: 70 } },
  { key: "carol", attributes: { email: "carol@elsewhere.org", age: 30 } },
  ...sampleKeys(40, "user-").map((key) => ({ key })),
];

let emu: Awaited<ReturnType<typeof startEmulator>>;
let sdk: SplitIO.ISDK;
let served: SdkSplit[];
const sdkTreatments = new Map<string, Record<string, string>>();

beforeAll(async () => {
  emu = await startEmulator({ port: 0 });
  const admin = new AdminClient({ baseUrl: emu.url, apiKey: emu.adminKey, requestsPerSecond: 100 });
  const ws = await admin.workspaces.getByName("Default");
  if (!ws) throw new Error("the emulator has no Default workspace");
  for (const [name, body] of [
    ["new-checkout", checkout],
    ["express-shipping", shipping],
    ["banner", banner],
  ] as const) {
    await admin.flags.create(ws.id, "user", { name, description: "" });
    await admin.definitions.create(ws.id, name, "Production", body);
  }

  const res = await fetch(`${emu.url}/api/splitChanges?s=1.3&since=-1`, {
    headers: { authorization: `Bearer ${emu.sdkKey}` },
  });
  served = SplitChanges.parse(await res.json()).ff.d;

  const api = `${emu.url}/api`;
  sdk = SplitFactory({
    core: { authorizationKey: emu.sdkKey },
    urls: { sdk: api, events: api, auth: api, telemetry: api, streaming: emu.url },
    streamingEnabled: false,
    startup: { readyTimeout: 10 },
    debug: false,
  });
  const client = sdk.client();
  await client.whenReady();
  for (const c of cases) {
    sdkTreatments.set(
      c.key + JSON.stringify(c.attributes ?? {}),
      client.getTreatments(c.key, FLAGS, c.attributes),
    );
  }
});

afterAll(async () => {
  await sdk?.client().destroy();
  await emu?.stop();
});

describe("what the emulator serves", () => {
  it("is the conversion of the definition with the emulator's stable seeds", () => {
    for (const [name, body] of [
      ["new-checkout", checkout],
      ["express-shipping", shipping],
      ["banner", banner],
    ] as const) {
      const split = served.find((s) => s.name === name)!;
      expect(split).toEqual(
        toSdkSplit(
          { ...DefinitionBodySchema.parse(body), name },
          {
            seed: split.seed,
            trafficAllocationSeed: split.trafficAllocationSeed,
            changeNumber: split.changeNumber,
            trafficTypeName: "user",
          },
        ),
      );
    }
  });

  it("is evaluated offline exactly as the real SDK evaluates it online, key by key", async () => {
    const ev = OfflineEvaluator.fromSplits(served);
    try {
      for (const c of cases) {
        const offline = await ev.evaluate(c.key, c.attributes);
        const online = sdkTreatments.get(c.key + JSON.stringify(c.attributes ?? {}));
        expect({
          key: c.key,
          ...Object.fromEntries(Object.entries(offline).map(([f, e]) => [f, e.treatment])),
        }).toEqual({ key: c.key, ...online });
      }
      // The partial allocation did split the sample: the comparison covered both outcomes.
      const banners = new Set(
        cases.map((c) => sdkTreatments.get(c.key + JSON.stringify(c.attributes ?? {}))?.banner),
      );
      expect([...banners].sort()).toEqual(["off", "on"]);
    } finally {
      await ev.destroy();
    }
  });
});

describe("targeting-assertions against the SDK's answers", () => {
  // The same documents declared as FlagDefinitions, as the engine hands them to the policy.
  let resources: StackResource[];
  beforeAll(async () => {
    resources = await Promise.all([
      checkedResource(FLAG_DEFINITION_TYPE, {
        workspace: "Default",
        flag: "new-checkout",
        environment: "Production",
        ...checkout,
      }),
      checkedResource(FLAG_DEFINITION_TYPE, {
        workspace: "Default",
        flag: "express-shipping",
        environment: "Production",
        ...shipping,
      }),
    ]);
  });
  const sdkSays = (key: string, attributes: Record<string, string | number> | undefined, flag: string) =>
    sdkTreatments.get(key + JSON.stringify(attributes ?? {}))?.[flag] as string;

  it("holds for every targeted key, with the treatment the SDK returns", async () => {
    const targeted = cases.slice(0, 3);
    const expectations = targeted.flatMap((c) =>
      ["new-checkout", "express-shipping"].map((flag) => ({
        flag,
        environment: "Production",
        key: c.key,
        attributes: c.attributes,
        treatment: sdkSays(c.key, c.attributes, flag),
      })),
    );
    expect(expectations.map((e) => e.treatment)).toEqual(["on", "on", "v2", "off", "on", "on"]);
    expect(await checkExpectations(resources, TargetingConfig.parse({ expectations }))).toEqual([]);
  });

  it("fails a targeted key expected to get another treatment, naming the treatment the SDK returns", async () => {
    const expectations = [
      {
        flag: "new-checkout",
        environment: "Production",
        key: "ann",
        attributes: { email: "ann@example.com" },
        treatment: "on",
      },
    ];
    expect(sdkSays("ann", { email: "ann@example.com" }, "new-checkout")).toBe("v2");
    expect(
      (await checkExpectations(resources, TargetingConfig.parse({ expectations }))).map((f) => f.message),
    ).toEqual([
      'in environment "Production", key "ann" gets treatment "v2" for flag "new-checkout" (label "email ends with [@example.com]"), expected "on"',
    ]);
  });

  it("reports an untargeted key as seed-dependent, listing the treatment the SDK gave it among the possible ones", async () => {
    const c = cases[3]!;
    const given = sdkSays(c.key, c.attributes, "new-checkout");
    const failures = await checkExpectations(
      resources,
      TargetingConfig.parse({
        expectations: [
          {
            flag: "new-checkout",
            environment: "Production",
            key: c.key,
            attributes: c.attributes,
            treatment: given,
          },
        ],
      }),
    );
    expect(failures.map((f) => f.message)).toEqual([
      `in environment "Production", key "carol" gets treatment "on" or "off" or "v2" for flag "new-checkout" depending on the service's bucketing seed (label "${failures[0]?.message.match(/label "([^"]+)"/)?.[1]}"), expected always "${given}"`,
    ]);
    expect(["on", "off", "v2"]).toContain(given);
  });

  it("measures shares that agree with the SDK's over the same sample", async () => {
    const keys = sampleKeys(2000, "share-");
    const client = sdk.client();
    const counts: Record<string, number> = {};
    for (const k of keys) {
      const t = client.getTreatment(k, "new-checkout");
      counts[t] = (counts[t] ?? 0) + 1;
    }
    const onlineOn = ((counts.on ?? 0) / keys.length) * 100;
    // The default rule sends 30% of untargeted keys to "on".
    expect(onlineOn).toBeGreaterThan(27);
    expect(onlineOn).toBeLessThan(33);
    const bounds = { maxPercent: Math.ceil(onlineOn + 3), minPercent: Math.floor(onlineOn - 3) };
    const failures = await checkExpectations(
      resources,
      TargetingConfig.parse({
        expectations: [
          {
            flag: "new-checkout",
            environment: "Production",
            treatment: "on",
            sampleSize: 2000,
            keyPrefix: "share-",
            ...bounds,
          },
        ],
      }),
    );
    expect(failures).toEqual([]);
  });
});
