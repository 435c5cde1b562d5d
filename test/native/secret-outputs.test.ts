/**
 * Secret outputs through the native plugin: an `ApiKey`'s key and an `Environment`'s SDK keys
 * come back from Create and Read in the engine's secret wrapper (so the engine stores them
 * encrypted, as the dynamic resources' `additionalSecretOutputs` does), every other output plain,
 * and the package schema marks those outputs secret.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Emulator, startEmulator } from "../../emulator";
import { type NativePlugin, PLUGIN_DIR, secret, startNativePlugin, urnOf } from "./harness";

let emu: Emulator;
let plugin: NativePlugin;
beforeAll(async () => {
  emu = await startEmulator({ port: 0 });
  plugin = await startNativePlugin({ FLAGSTACK_ADMIN_API_URL: "", FLAGSTACK_ADMIN_API_KEY: "" });
  await plugin.configure({
    adminApiUrl: emu.url,
    adminApiKey: secret(emu.adminKey),
    requestsPerSecond: 1000,
  });
});
afterAll(async () => {
  await plugin?.stop();
  await emu?.stop();
});

const SIG = "4dabf18193072939515e22adb298388d";
/** Whether a struct value is the engine's secret wrapper. */
const isSecret = (v: unknown) => typeof v === "object" && v !== null && SIG in v;

describe("native plugin: secret outputs", () => {
  it("answers an ApiKey's key as a secret, on create and on read, and nothing else", async () => {
    const urn = urnOf("flagstack:index:ApiKey");
    const inputs = (
      await plugin.check(
        urn,
        {},
        {
          name: "native-key",
          apiKeyType: "server_side",
          workspace: "Default",
          environments: ["Production"],
        },
      )
    ).inputs;
    const created = await plugin.create(urn, inputs);
    const key = created.properties.key as { value: string };
    expect(isSecret(key)).toBe(true);
    expect(key.value).toMatch(/^sdk-/);
    const plainOutputs = Object.entries(created.properties).filter(([name]) => name !== "key");
    expect(plainOutputs.filter(([, v]) => isSecret(v))).toEqual([]);
    expect(JSON.stringify(plainOutputs)).not.toContain(key.value);
    const read = await plugin.read(urn, created.id, { ...created.properties, key: key.value });
    expect(read.properties.key).toEqual(secret(key.value));
    await plugin.delete(urn, created.id, { ...created.properties, key: key.value });
  });

  it("answers an Environment's SDK keys as secrets", async () => {
    const urn = urnOf("flagstack:index:Environment");
    const inputs = (await plugin.check(urn, {}, { workspace: "Default", name: "native-secret-env" })).inputs;
    const { properties } = await plugin.create(urn, inputs);
    expect(isSecret(properties.serverSideSdkKey)).toBe(true);
    expect(isSecret(properties.clientSideSdkKey)).toBe(true);
    expect(isSecret(properties.environmentId)).toBe(false);
  });

  it("marks those outputs secret in the package schema", () => {
    const schema = JSON.parse(readFileSync(join(PLUGIN_DIR, "schema.json"), "utf8")) as {
      resources: Record<string, { properties: Record<string, { secret?: boolean }> }>;
    };
    const secrets = (token: string) =>
      Object.entries(schema.resources[token]?.properties ?? {})
        .filter(([, p]) => p.secret)
        .map(([name]) => name);
    expect(secrets("flagstack:index:ApiKey")).toEqual(["key"]);
    expect(secrets("flagstack:index:Environment")).toEqual(["serverSideSdkKey", "clientSideSdkKey"]);
    expect(secrets("flagstack:index:Flag")).toEqual([]);
  });
});
