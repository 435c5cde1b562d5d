/**
 * `withConfigProvider` (`provider/core/config-provider.ts`) through `pulumi.runtime.setMocks`: with
 * a credential set in plain text in the program's config, flagstack's resources take the run's
 * `flagstack-config` provider (made once, its credential inputs secrets); with every credential a
 * secret, plain text allowed, or a provider chosen by the program, nothing changes.
 */
import * as pulumi from "@pulumi/pulumi";
import { beforeAll, describe, expect, it } from "vitest";
import { Group } from "../../../provider";
import { configProviderInputs } from "../../../provider/core/config-provider";

const KEY = "adm-CFGPROVIDER-0123456789abcdef";
type Registered = { type: string; name: string; provider?: string; inputs: Record<string, unknown> };
const registered: Registered[] = [];

beforeAll(async () => {
  await pulumi.runtime.setMocks(
    {
      newResource: (args) => {
        registered.push({ type: args.type, name: args.name, provider: args.provider, inputs: args.inputs });
        return { id: `${args.name}-id`, state: args.inputs };
      },
      call: () => ({}),
    },
    "shop",
    "dev",
  );
});

/** Declares a group under `config` (secret keys as given) and returns what the engine was sent. */
async function declare(
  config: Record<string, string>,
  secretKeys: string[],
  opts?: pulumi.CustomResourceOptions,
): Promise<Registered[]> {
  pulumi.runtime.setAllConfig(config, secretKeys);
  const before = registered.length;
  const group = new Group(`g${before}`, { name: `team-${before}` }, opts);
  await new Promise<void>((ok) => group.urn.apply(() => ok()));
  await new Promise((ok) => setTimeout(ok, 50));
  return registered.slice(before);
}

const PROVIDER_REF =
  "urn:pulumi:dev::shop::pulumi:providers:pulumi-nodejs::flagstack-config::flagstack-config-id";

describe("a credential in plain text", () => {
  it("gives flagstack's resources the run's flagstack-config provider, made once with the flagstack config", async () => {
    const config = { "flagstack:adminApiKey": KEY, "flagstack:adminApiUrl": "http://h", "shop:size": "3" };
    const first = await declare(config, []);
    expect(first.map((r) => [r.type, r.name, r.provider])).toEqual([
      ["pulumi:providers:pulumi-nodejs", "flagstack-config", ""],
      ["pulumi-nodejs:dynamic/flagstack:Group", "g0", PROVIDER_REF],
    ]);
    // the key goes to the engine as a secret (the RPC's secret signature), the URL as it is
    expect(first[0]!.inputs).toEqual({
      "flagstack:adminApiKey": {
        "4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270",
        value: KEY,
      },
      "flagstack:adminApiUrl": "http://h",
    });
    // the next resource of the run takes the same provider
    const second = await declare(config, []);
    expect(second.map((r) => [r.type, r.provider])).toEqual([
      ["pulumi-nodejs:dynamic/flagstack:Group", PROVIDER_REF],
    ]);
  });

  it("wraps the credentials and every secret value as secrets in the provider's inputs, and nothing else", async () => {
    const inputs = configProviderInputs({
      PULUMI_CONFIG: JSON.stringify({
        "flagstack:config:adminApiKey": KEY,
        "flagstack:config:changeTitle": "t",
        "flagstack:config:accountId": "acct",
        "shop:config:other": "x",
      }),
      PULUMI_CONFIG_SECRET_KEYS: JSON.stringify(["flagstack:accountId"]),
    });
    expect(Object.keys(inputs).sort()).toEqual([
      "flagstack:accountId",
      "flagstack:adminApiKey",
      "flagstack:changeTitle",
    ]);
    expect(inputs["flagstack:changeTitle"]).toBe("t");
    expect(await pulumi.isSecret(inputs["flagstack:adminApiKey"] as pulumi.Output<string>)).toBe(true);
    expect(await pulumi.isSecret(inputs["flagstack:accountId"] as pulumi.Output<string>)).toBe(true);
  });
});

describe("no credential in plain text, or a provider chosen", () => {
  it("leaves the resource on the default provider when the key is a secret or plain text is allowed", async () => {
    const secret = await declare({ "flagstack:adminApiKey": KEY }, ["flagstack:adminApiKey"]);
    expect(secret.map((r) => [r.type, r.provider])).toEqual([["pulumi-nodejs:dynamic/flagstack:Group", ""]]);
    const allowed = await declare(
      { "flagstack:adminApiKey": KEY, "flagstack:allowPlaintextKeys": "true" },
      [],
    );
    expect(allowed.map((r) => [r.type, r.provider])).toEqual([["pulumi-nodejs:dynamic/flagstack:Group", ""]]);
  });

  it("keeps a provider the program gives", async () => {
    const mine = new (class extends pulumi.ProviderResource {
      constructor() {
        super("pulumi-nodejs", "mine", {});
      }
    })();
    const given = await declare({ "flagstack:adminApiKey": KEY }, [], { provider: mine });
    expect(given.map((r) => [r.type, r.provider])).toEqual([
      ["pulumi:providers:pulumi-nodejs", ""],
      [
        "pulumi-nodejs:dynamic/flagstack:Group",
        "urn:pulumi:dev::shop::pulumi:providers:pulumi-nodejs::mine::mine-id",
      ],
    ]);
  });
});
