/**
 * Explicit provider instances of the native provider through the real engine: one YAML program
 * manages a group in each of two accounts (two emulators), each instance configured by its own
 * inputs, the keys secret stack config. Each instance is a plugin process of its own, so each keeps
 * its own settings; a preview sends nothing to either account; `destroy` empties both.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Emulator, startEmulator } from "../../emulator";
import { clients, groupNames } from "./fixtures";
import { apiRequests, EngineStack, REPO_ROOT } from "./harness";

const PLUGIN_DIR = join(REPO_ROOT, "provider-plugin");

const program = (urlA: string, urlB: string) => `name: two-accounts
runtime: yaml
plugins:
  providers:
    - name: flagstack
      path: ${PLUGIN_DIR}
config:
  keyA:
    type: string
    secret: true
  keyB:
    type: string
    secret: true
resources:
  accountA:
    type: pulumi:providers:flagstack
    properties:
      adminApiUrl: ${urlA}
      adminApiKey: \${keyA}
      requestsPerSecond: 1000
  accountB:
    type: pulumi:providers:flagstack
    properties:
      adminApiUrl: ${urlB}
      adminApiKey: \${keyB}
      requestsPerSecond: 1000
  teamA:
    type: flagstack:index:Group
    properties:
      name: team-a
    options:
      provider: \${accountA}
  teamB:
    type: flagstack:index:Group
    properties:
      name: team-b
    options:
      provider: \${accountB}
`;

describe("native provider: two explicit provider instances, two accounts", () => {
  let s: EngineStack;
  let other: Emulator;
  let source: string;

  beforeAll(async () => {
    other = await startEmulator({ port: 0 });
    source = mkdtempSync(join(tmpdir(), "flagstack-native-providers-"));
    // The stack's emulator is account A; its URL is known once the stack is open.
    writeFileSync(join(source, "Pulumi.yaml"), program("http://placeholder", other.url));
    s = await EngineStack.open({ program: source });
    writeFileSync(join(s.programDir, "Pulumi.yaml"), program(s.emu.url, other.url));
    await s.setConfig({
      "two-accounts:keyA": { value: s.emu.adminKey, secret: true },
      "two-accounts:keyB": { value: other.adminKey, secret: true },
    });
  });

  afterAll(async () => {
    await s?.close();
    await other?.stop();
    if (source) rmSync(source, { recursive: true, force: true });
  });

  it("up puts each group in its own account; preview sends nothing; destroy empties both", async () => {
    const a = clients(s.emu).admin;
    const b = clients(other).admin;

    const up = await s.up();
    expect(up.result.summary.resourceChanges).toEqual({ create: 5 });
    expect(await groupNames(a)).toEqual(["team-a"]);
    expect(await groupNames(b)).toEqual(["team-b"]);
    const exported = await s.exportText();
    expect(exported).not.toContain(s.emu.adminKey);
    expect(exported).not.toContain(other.adminKey);

    const before = other.requests().length;
    const preview = await s.preview();
    expect(preview.result.changeSummary).toEqual({ same: 5 });
    expect(preview.requests).toEqual([]);
    expect(apiRequests(other.requests().slice(before))).toEqual([]);

    const destroy = await s.destroy();
    expect(destroy.result.summary.resourceChanges).toEqual({ delete: 5 });
    expect(await groupNames(a)).toEqual([]);
    expect(await groupNames(b)).toEqual([]);
  });
});
