/**
 * Secret inputs through the native plugin: a `Secret`'s `value` and `file` come back from Check in
 * the engine's secret wrapper even when the program passed plain text (a YAML program without
 * `fn::secret`), so the engine stores them encrypted among the inputs; every other input stays
 * plain, and the package schema marks exactly those inputs secret.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type NativePlugin, PLUGIN_DIR, secret, startNativePlugin, urnOf } from "./harness";

let plugin: NativePlugin;
beforeAll(async () => {
  plugin = await startNativePlugin();
});
afterAll(async () => {
  await plugin?.stop();
});

const urn = urnOf("flagstack:index:Secret");

describe("native plugin: secret inputs", () => {
  it("answers a Secret's plain value as a secret from Check, every other input plain", async () => {
    const checked = await plugin.check(
      urn,
      {},
      { org: "default", identifier: "docker_pw", name: "Docker password", value: "sentinel-plain-1" },
    );
    expect(checked.failures).toEqual([]);
    expect(checked.inputs).toEqual({
      org: "default",
      identifier: "docker_pw",
      name: "Docker password",
      description: "",
      tags: {},
      secretManager: "harnessSecretManager",
      value: secret("sentinel-plain-1"),
      adopt: false,
    });
  });

  it("answers a file's content as a secret, and a value already secret once wrapped", async () => {
    const file = await plugin.check(
      urn,
      {},
      { org: "default", identifier: "kubeconfig", name: "kubeconfig", file: "sentinel-file-1" },
    );
    expect(file.inputs.file).toEqual(secret("sentinel-file-1"));
    const wrapped = await plugin.check(
      urn,
      {},
      { org: "default", identifier: "docker_pw", name: "Docker password", value: secret("sentinel-2") },
    );
    expect(wrapped.inputs.value).toEqual(secret("sentinel-2"));
  });

  it("still names the bad field, with the secret input wrapped", async () => {
    const checked = await plugin.check(urn, {}, { org: "default", identifier: "docker_pw", name: "x" });
    expect(checked.failures.map((f) => f.property)).toEqual(["value"]);
  });

  it("marks exactly those inputs secret in the package schema", () => {
    const schema = JSON.parse(readFileSync(join(PLUGIN_DIR, "schema.json"), "utf8")) as {
      resources: Record<string, { inputProperties: Record<string, { secret?: boolean }> }>;
    };
    const secrets = Object.entries(schema.resources).flatMap(([token, r]) =>
      Object.entries(r.inputProperties)
        .filter(([, p]) => p.secret)
        .map(([name]) => `${token}.${name}`),
    );
    expect(secrets).toEqual(["flagstack:index:Secret.value", "flagstack:index:Secret.file"]);
  });
});
