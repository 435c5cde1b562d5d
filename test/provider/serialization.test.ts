/**
 * The `__provider` texts of every kind of `provider/kinds.ts`, as the engine stores them in every
 * resource's inputs and outputs: a constant that holds no secret and loads back, the way the
 * dynamic-provider host loads it (`requireFromString(text).handler()`, ref pulumi-notes §1), into
 * the resource module's `impl`. A kind added to the list is covered without a change here.
 * Needs `npm run build`: the text `require`s `flagstack/provider/<file>`, which resolves to `dist/`.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { configureProvider, resetProvider } from "../../provider/core/config";
import { providerText } from "../../provider/core/resource";
import { KINDS_BY_TOKEN } from "../../provider/kinds";
import { NATIVE_KINDS, type NativeKind } from "../../provider/native/kinds";
import { loadSerializedProvider } from "./harness";

const SECRET = "sk-admin-SENTINEL-7f3c9a1e";
/** The lifecycle verbs every provider answers (a kind may add its own, such as `recover`). */
const METHODS = ["configure", "check", "diff", "create", "read", "update", "delete", "lookup"];

/** Kinds whose text both tests checked. */
const covered = { text: new Set<string>(), load: new Set<string>() };

/** The text the resource class of `kind` gives the engine (its static `providerText`). */
async function classText(kind: NativeKind): Promise<unknown> {
  return KINDS_BY_TOKEN.get(kind.dynamicToken)?.resource.providerText;
}

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

describe.each(NATIVE_KINDS.map((k) => k.name))("the %s provider text", (name) => {
  const kind = NATIVE_KINDS.find((k) => k.name === name) as NativeKind;

  it("is one require of the package's module, the same from the class, the source and the built package", async () => {
    const text = await classText(kind);
    // The name states have stored since the kind was added (`provider/<file>` before the modules
    // moved into provider/flags/ and provider/platform/): the package's exports keep it.
    expect(text).toBe(`exports.handler = () => require("flagstack/provider/${kind.file}").impl;\n`);
    expect(text).toBe(providerText(kind.file));
    expect(require("flagstack/provider/core/resource").providerText(kind.file)).toBe(text);
    expect(text).not.toContain(SECRET);
    covered.text.add(name);
  });

  it("loads back with require-from-string into the built module's impl, which answers check", async () => {
    const loaded = loadSerializedProvider(providerText(kind.file));
    expect(loaded).toBe(require(`flagstack/provider/${kind.module}`).impl);
    expect(loaded).toBe(require(`flagstack/provider/${kind.file}`).impl);
    expect(Object.keys(loaded).sort()).toEqual(Object.keys(kind.impl).sort());
    expect(METHODS.filter((m) => !(m in loaded))).toEqual([]);
    const result = await loaded.check?.({}, { __provider: providerText(kind.file), bogus: 1 });
    expect(result?.failures).toContainEqual({ property: "bogus", reason: 'unknown property "bogus"' });
    covered.load.add(name);
  });
});

it("covers every kind of the list", () => {
  const list = NATIVE_KINDS.map((k) => k.name);
  expect({ text: [...covered.text], load: [...covered.load] }).toEqual({ text: list, load: list });
});
