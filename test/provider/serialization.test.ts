/**
 * The `__provider` texts, as the engine stores them in every resource's inputs and outputs: a
 * constant that holds no secret and loads back, the way the dynamic-provider host loads it
 * (`requireFromString(text).handler()`, ref pulumi-notes §1), into the resource module's `impl`.
 * Needs `npm run build`: the text `require`s `flagstack/provider/<file>`, which resolves to `dist/`.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectorProviderText } from "../../provider/connector";
import { configureProvider, resetProvider } from "../../provider/core/config";
import { providerText } from "../../provider/core/resource";
import { flagProviderText } from "../../provider/flag";
import { flagDefinitionProviderText } from "../../provider/flag-definition";
import { groupProviderText } from "../../provider/group";
import { pipelineProviderText } from "../../provider/pipeline";
import { projectProviderText } from "../../provider/project";
import { userInviteProviderText } from "../../provider/user-invite";
import { loadSerializedProvider } from "./harness";

const SECRET = "sk-admin-SENTINEL-7f3c9a1e";
const METHODS = ["configure", "check", "diff", "create", "read", "update", "delete", "lookup"];

const texts: Record<string, string> = {
  connector: connectorProviderText,
  flag: flagProviderText,
  "flag-definition": flagDefinitionProviderText,
  group: groupProviderText,
  pipeline: pipelineProviderText,
  project: projectProviderText,
  "user-invite": userInviteProviderText,
};

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

describe.each(Object.keys(texts))("the %s provider text", (file) => {
  it("is one require of the package's module, the same from the source and the built package", () => {
    const text = texts[file]!;
    expect(text).toBe(`exports.handler = () => require("flagstack/provider/${file}").impl;\n`);
    expect(text).toBe(providerText(file));
    expect(require("flagstack/provider/core/resource").providerText(file)).toBe(text);
    expect(text).not.toContain(SECRET);
  });

  it("loads back with require-from-string into the built module's impl, which answers check", async () => {
    const loaded = loadSerializedProvider(texts[file]!);
    expect(loaded).toBe(require(`flagstack/provider/${file}`).impl);
    expect(Object.keys(loaded).sort()).toEqual([...METHODS].sort());
    const result = await loaded.check?.({}, { __provider: texts[file], bogus: 1 });
    expect(result?.failures).toContainEqual({ property: "bogus", reason: 'unknown property "bogus"' });
  });
});
