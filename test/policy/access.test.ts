import { describe, expect, it } from "vitest";
import { apiKeysScoped, productionRequiresApprovals } from "../../policy/access";
import { nativeToken } from "../../provider/native/kinds";
import { API_KEY_TYPE, ENVIRONMENT_TYPE } from "../../provider/types";
import { checkedProps, runResourcePolicy } from "./util";

/** An Environment as a program declares it (provider/flags/environment.ts). */
const environment = (inputs: Record<string, unknown>) =>
  checkedProps(ENVIRONMENT_TYPE, { workspace: "Default", name: "Production", ...inputs });

describe("production-requires-approvals", () => {
  const run = async (inputs: Record<string, unknown>, type = ENVIRONMENT_TYPE) =>
    runResourcePolicy(productionRequiresApprovals, type, await environment(inputs));

  it("passes a production environment whose changes need approvals, and any non-production one", async () => {
    expect(
      await run({
        production: true,
        changePermissions: { areApprovalsRequired: true, approvers: [{ type: "group", id: "g1" }] },
      }),
    ).toEqual([]);
    expect(await run({})).toEqual([]);
    expect(await run({ production: false, changePermissions: { areApprovalsRequired: false } })).toEqual([]);
  });

  it("reports a production environment whose permissions do not require approvals (the schema's default)", async () => {
    const expected = [
      'production environment "Production" of workspace "Default" has changePermissions with areApprovalsRequired false: set changePermissions: { areApprovalsRequired: true, approvers: [...] }',
    ];
    expect(await run({ production: true, changePermissions: { areApprovalsRequired: false } })).toEqual(
      expected,
    );
    expect(await run({ production: true, changePermissions: { approvers: [] } })).toEqual(expected);
  });

  it("reports a production environment that leaves its permissions unmanaged, on the native token too", async () => {
    const expected = [
      `production environment "Production" of workspace "Default" has no changePermissions (the service's are left as they are, so approvals are not known to be required): set changePermissions: { areApprovalsRequired: true, approvers: [...] }`,
    ];
    expect(await run({ production: true })).toEqual(expected);
    expect(nativeToken(ENVIRONMENT_TYPE)).toBe("flagstack:index:Environment");
    expect(await run({ production: true }, nativeToken(ENVIRONMENT_TYPE))).toEqual(expected);
  });
});

/** An ApiKey as a program declares it (provider/flags/api-key.ts). */
const apiKey = (inputs: Record<string, unknown>) =>
  checkedProps(API_KEY_TYPE, { name: "ci", workspace: "Default", ...inputs });

describe("api-keys-scoped", () => {
  const run = async (inputs: Record<string, unknown>, type = API_KEY_TYPE) =>
    runResourcePolicy(apiKeysScoped, type, await apiKey(inputs));
  const unscoped = [
    'admin API key "ci" names no environments, so it reaches every environment of workspace "Default": list the environments it needs in environments',
  ];

  it("passes an admin key limited to environments, and SDK keys (one environment, the provider's rule)", async () => {
    expect(
      await run({ apiKeyType: "admin", environments: ["Staging"], roles: ["API_FEATURE_FLAG_EDITOR"] }),
    ).toEqual([]);
    expect(await run({ apiKeyType: "server_side", environments: ["Production"] })).toEqual([]);
    // An SDK key without its environment is the provider's check's to refuse, not this policy's.
    expect(await run({ apiKeyType: "client_side" })).toEqual([]);
  });

  it("reports an admin key without environments (the schema's default), on the native token too", async () => {
    expect(await run({ apiKeyType: "admin", roles: ["API_ALL_GRANTED"] })).toEqual(unscoped);
    expect(await run({ apiKeyType: "admin", environments: [] })).toEqual(unscoped);
    expect(nativeToken(API_KEY_TYPE)).toBe("flagstack:index:ApiKey");
    expect(await run({ apiKeyType: "admin" }, nativeToken(API_KEY_TYPE))).toEqual(unscoped);
  });
});
