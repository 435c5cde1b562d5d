import { afterEach, describe, expect, it } from "vitest";
import {
  adminClient,
  changeNote,
  configureProvider,
  forget,
  MEMO_TTL_MS,
  memo,
  providerSettings,
  resetProvider,
  stackLabel,
} from "../../../provider/core/config";

const config = (values: Record<string, string>) => ({ get: (key: string) => values[key] });

afterEach(() => resetProvider());

describe("provider settings", () => {
  it("reads flagstack:* stack config, which wins over the environment", () => {
    configureProvider(
      config({
        "flagstack:adminApiUrl": "http://127.0.0.1:1",
        "flagstack:adminApiKey": "k1",
        "flagstack:requestsPerSecond": "4",
      }),
    );
    expect(providerSettings({ FLAGSTACK_ADMIN_API_KEY: "env-key", FLAGSTACK_ACCOUNT_ID: "acc" })).toEqual({
      adminApiUrl: "http://127.0.0.1:1",
      adminApiKey: "k1",
      requestsPerSecond: 4,
      accountId: "acc",
    });
  });

  it("falls back to the environment", () => {
    expect(providerSettings({ FLAGSTACK_ADMIN_API_URL: "http://h:2", FLAGSTACK_MAX_RETRIES: "2" })).toEqual({
      adminApiUrl: "http://h:2",
      maxRetries: 2,
    });
  });

  it("takes Infinity as no client-side limit, as the SDK option does", () => {
    configureProvider(config({ "flagstack:requestsPerSecond": "Infinity" }));
    expect(providerSettings({})).toEqual({ requestsPerSecond: Number.POSITIVE_INFINITY });
  });

  it("names the config key of a malformed value", () => {
    expect(() =>
      configureProvider(
        config({ "flagstack:adminApiUrl": "not a url", "flagstack:requestsPerSecond": "-1" }),
      ),
    ).toThrow(
      "flagstack: invalid provider configuration: flagstack:adminApiUrl: must be an http(s) URL; flagstack:requestsPerSecond: must be a positive number, or Infinity for no limit",
    );
    expect(() => providerSettings({ FLAGSTACK_MAX_RETRIES: "x" })).toThrow("FLAGSTACK_MAX_RETRIES: ");
  });

  it("says how to configure a missing credential", () => {
    expect(() => adminClient({ adminApiUrl: "http://h:1" })).toThrow(
      "flagstack: no admin API key configured: run `pulumi config set flagstack:adminApiKey --secret <value>` or set FLAGSTACK_ADMIN_API_KEY",
    );
  });

  it("names the stack in the default change note", () => {
    const env = { PULUMI_NODEJS_PROJECT: "shop", PULUMI_NODEJS_STACK: "prod" };
    expect(stackLabel(env)).toBe("shop/prod");
    const saved = { ...process.env };
    Object.assign(process.env, env);
    try {
      expect(changeNote("update", "flag checkout in Production", {})).toEqual({
        title: "pulumi up: shop/prod",
        comment: "update of flag checkout in Production by flagstack (Pulumi stack shop/prod)",
      });
      expect(changeNote("update", "x", { changeTitle: "T", changeComment: "C" })).toEqual({
        title: "T",
        comment: "C",
      });
    } finally {
      process.env = saved;
    }
  });
});

describe("memo", () => {
  it("shares one load between callers, keeps it for the TTL, forgets on demand and on failure", async () => {
    const client = {};
    let loads = 0;
    const load = async () => ++loads;
    const t0 = 1_000_000;
    expect(await Promise.all([memo(client, "k", load, t0), memo(client, "k", load, t0)])).toEqual([1, 1]);
    expect(await memo(client, "k", load, t0 + MEMO_TTL_MS - 1)).toBe(1);
    expect(await memo(client, "k", load, t0 + MEMO_TTL_MS)).toBe(2);
    forget(client, "k");
    expect(await memo(client, "k", load, t0 + MEMO_TTL_MS)).toBe(3);
    await expect(memo(client, "bad", () => Promise.reject(new Error("down")), t0)).rejects.toThrow("down");
    expect(await memo(client, "bad", load, t0)).toBe(4);
  });
});
