/**
 * The provider objects serialize as the engine stores them: small, secret-free, and working when
 * loaded back with `require-from-string` (ref pulumi-notes §2, §6.2). Needs `npm run build`: the
 * serialized methods `require("flagstack/provider/<file>")`, which resolves to `dist/`.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { configureProvider, resetProvider } from "../../provider/core/config";
import { flagProvider } from "../../provider/flag";
import { flagDefinitionProvider } from "../../provider/flag-definition";
import { groupProvider } from "../../provider/group";
import { userInviteProvider } from "../../provider/user-invite";
import { loadSerializedProvider, serializeProvider } from "./harness";

const SECRET = "sk-admin-SENTINEL-7f3c9a1e";
const METHODS = ["configure", "check", "diff", "create", "read", "update", "delete"];

// The same provider objects as a consumer gets them from the built package.
const built = {
  flag: require("flagstack/provider/flag").flagProvider,
  "flag-definition": require("flagstack/provider/flag-definition").flagDefinitionProvider,
  group: require("flagstack/provider/group").groupProvider,
  "user-invite": require("flagstack/provider/user-invite").userInviteProvider,
} as Record<string, object>;
const source = {
  flag: flagProvider,
  "flag-definition": flagDefinitionProvider,
  group: groupProvider,
  "user-invite": userInviteProvider,
} as Record<string, object>;

beforeAll(() => {
  // Credentials present everywhere they could leak from: process settings of both copies and env.
  process.env.FLAGSTACK_ADMIN_API_KEY = SECRET;
  const config = {
    get: (k: string) =>
      ({ "flagstack:adminApiKey": SECRET, "flagstack:adminApiUrl": "http://127.0.0.1:9" })[k],
  };
  configureProvider(config);
  require("flagstack/provider/core/config").configureProvider(config);
});

afterAll(() => {
  delete process.env.FLAGSTACK_ADMIN_API_KEY;
  resetProvider();
});

describe.each(Object.keys(built))("%s provider", (file) => {
  it.each([
    ["built package", built],
    ["source", source],
  ] as const)("from the %s: under 2 KB, no secret, only a require of the package", async (_from, set) => {
    const { text, containsSecrets } = await serializeProvider(set[file] as object);
    expect(containsSecrets).toBe(false);
    expect(text).not.toContain(SECRET);
    expect(text.length).toBeLessThan(2048);
    expect(
      text.match(/require\("[^"]+"\)/g)?.every((r) => r === `require("flagstack/provider/${file}")`),
    ).toBe(true);
  });

  it("loads back with require-from-string and delegates to the package", async () => {
    const { text } = await serializeProvider(built[file] as object);
    const loaded = loadSerializedProvider(text);
    expect(Object.keys(loaded).sort()).toEqual([...METHODS].sort());
    const result = await loaded.check?.({}, { __provider: text, bogus: 1 });
    expect(result?.failures).toContainEqual({ property: "bogus", reason: 'unknown property "bogus"' });
  });
});
