/**
 * A credential set with `pulumi config set` without `--secret` (issue 23 item 9), through the real
 * engine: the first `pulumi preview` and `pulumi up` warn, naming the key and the fix, and the
 * stack's state never holds the key in plain text: flagstack's resources take the provider
 * `flagstack-config`, whose inputs hold the flagstack config with the key encrypted, instead of the
 * default provider, whose inputs the engine fills with the stack config as it is
 * (`provider/core/config-provider.ts`). Moving a stack between the two providers, as the key
 * becomes a secret or a stack recorded with the key in plain text is updated, replaces nothing and
 * sends no request.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AdminClient } from "../../sdk";
import { EngineStack } from "./harness";

const WARNING =
  "warning: flagstack: flagstack:adminApiKey is set in the stack config in plain text (without --secret), so it is stored unencrypted in Pulumi.<stack>.yaml and in each update's record of the config; flagstack's resources keep it out of the stack's state by taking the provider flagstack-config, which holds the flagstack config with the keys encrypted. Run `pulumi config set --secret flagstack:adminApiKey <value>`, or set flagstack:allowPlaintextKeys to true to accept plain-text keys";

type StateResource = { type: string; urn: string; inputs?: Record<string, unknown>; provider?: string };

/** The resources of the stack's state, as `pulumi stack export` shows them. */
async function stateOf(s: EngineStack): Promise<StateResource[]> {
  return (JSON.parse(await s.exportText()) as { deployment: { resources: StateResource[] } }).deployment
    .resources;
}

/** The stack's current checkpoint file in the file backend (not its history). */
function checkpoint(s: EngineStack): string {
  const dir = join(s.dir, "backend", ".pulumi", "stacks", "flagstack-e2e");
  return readdirSync(dir)
    .filter((f) => f.endsWith(".json"))
    .map((f) => readFileSync(join(dir, f), "utf8"))
    .join("\n");
}

/** Each resource's provider (its URN's name), by the resource's name. */
async function providers(s: EngineStack): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const r of await stateOf(s)) {
    if (r.provider) out[r.urn.slice(r.urn.lastIndexOf("::") + 2)] = r.provider.split("::")[3]!;
  }
  return out;
}

describe("an admin key set without --secret", () => {
  let s: EngineStack;
  let key: string;

  beforeAll(async () => {
    s = await EngineStack.open({ program: "test/e2e/programs/stack" });
    key = s.emu.adminKey;
    await s.setConfig({ "flagstack:adminApiKey": key });
    await s.setSpec({ groups: { team: { name: "plaintext-key-team" } } });
  });
  afterAll(async () => {
    await s?.close();
  });

  it("the first preview warns, naming the key and the fix", async () => {
    const { result, requests } = await s.preview();
    expect(result.stdout).toContain(WARNING);
    expect(result.changeSummary).toEqual({ create: 3 });
    expect(requests.filter((r) => r.method !== "GET")).toEqual([]);
  });

  it("the first up warns, and the state holds the key encrypted only", async () => {
    const { result } = await s.up();
    const exported = await s.exportText();
    expect(exported).not.toContain(key);
    expect(checkpoint(s)).not.toContain(key);
    expect(result.stdout).toContain(WARNING);
    expect(result.summary.resourceChanges).toEqual({ create: 3 });
    const state = await stateOf(s);
    expect(state.map((r) => r.type)).toEqual([
      "pulumi:pulumi:Stack",
      "pulumi:providers:pulumi-nodejs",
      "pulumi-nodejs:dynamic/flagstack:Group",
    ]);
    const provider = state[1]!;
    expect(provider.urn).toBe(
      "urn:pulumi:e2e::flagstack-e2e::pulumi:providers:pulumi-nodejs::flagstack-config",
    );
    expect(Object.keys(provider.inputs?.["flagstack:adminApiKey"] as object)).toContain("ciphertext");
    expect(provider.inputs?.["flagstack:adminApiUrl"]).toBe(s.emu.url);
    expect(await providers(s)).toEqual({ team: "flagstack-config" });
    // the provider was configured from those inputs: the group was made with the key
    const admin = new AdminClient({ baseUrl: s.emu.url, apiKey: key });
    expect((await admin.groups.getByName("plaintext-key-team"))?.name).toBe("plaintext-key-team");
  });

  it("once the key is a secret, the resources go back to the default provider: nothing replaced, no request, no warning", async () => {
    await s.setConfig({ "flagstack:adminApiKey": { value: key, secret: true } });
    const { result, requests } = await s.up();
    expect(result.stdout).not.toContain("warning: flagstack");
    expect(result.summary.resourceChanges).toEqual({ delete: 1, same: 2 });
    expect(requests).toEqual([]);
    expect(await s.exportText()).not.toContain(key);
    expect(await providers(s)).toEqual({ team: "default" });
  });
});

describe("a stack recorded with the admin key in plain text", () => {
  let s: EngineStack;
  let key: string;

  beforeAll(async () => {
    s = await EngineStack.open({ program: "test/e2e/programs/stack" });
    key = s.emu.adminKey;
    // accepted in plain text: the default provider records it so
    await s.setConfig({ "flagstack:adminApiKey": key, "flagstack:allowPlaintextKeys": "true" });
    await s.setSpec({ groups: { team: { name: "plaintext-key-upgrade" } } });
    const { result } = await s.up();
    expect(result.stdout).not.toContain("warning: flagstack");
    expect(await s.exportText()).toContain(key);
    await s.stack.removeConfig("flagstack:allowPlaintextKeys");
  });
  afterAll(async () => {
    await s?.close();
  });

  it("loses it at the next up, which moves the resources to flagstack-config without replacing them or a request", async () => {
    const { result, requests } = await s.up();
    expect(await s.exportText()).not.toContain(key);
    expect(checkpoint(s)).not.toContain(key);
    expect(result.stdout).toContain(WARNING);
    expect(result.summary.resourceChanges).toEqual({ create: 1, same: 2 });
    expect(requests).toEqual([]);
    expect(await providers(s)).toEqual({ team: "flagstack-config" });
  });
});
