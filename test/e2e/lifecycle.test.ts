/**
 * The whole lifecycle of a stack with every resource type, through the real Pulumi CLI and the
 * emulator: up from empty, a preview that makes no request, a one-field edit that is one PATCH, a
 * rename that replaces, drift found by refresh and put back by up, an out-of-band delete that is
 * recreated, secrets that never reach the state in plain text, and a destroy that leaves nothing.
 * The scenarios run in order on one stack (each starts from the state the previous one left).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AdminClient, PlatformClient } from "../../sdk";
import {
  clients,
  defaultWorkspaceId,
  flagNames,
  fullSpec,
  groupNames,
  projectIds,
  resourceCount,
  type StackSpec,
  users,
} from "./fixtures";
import { EngineStack, type RequestRecord } from "./harness";

const writes = (requests: RequestRecord[]) =>
  requests.filter((r) => r.method !== "GET").map((r) => `${r.method} ${r.path} ${r.status}`);

describe("a stack of every resource type, end to end", () => {
  let s: EngineStack;
  let admin: AdminClient;
  let platform: PlatformClient;
  let ws: string;
  const spec: StackSpec = fullSpec("e2e");
  const n = resourceCount(spec); // 10 resources, plus the stack itself

  beforeAll(async () => {
    s = await EngineStack.open({ program: "test/e2e/programs/stack" });
    ({ admin, platform } = clients(s.emu));
    ws = await defaultWorkspaceId(admin);
    await s.setSpec(spec);
  });
  afterAll(async () => {
    await s?.close();
  });

  it("up from empty creates every resource once", async () => {
    const { result } = await s.up();
    expect(result.summary.result).toBe("succeeded");
    expect(result.summary.resourceChanges).toEqual({ create: n + 1 });
    expect(await flagNames(admin)).toEqual(["e2e-checkout", "e2e-search"]);
    const production = await admin.definitions.get(ws, "e2e-checkout", "Production");
    expect(production.treatments.map((t) => [t.name, t.keys ?? []])).toEqual([
      ["on", ["qa-bot", "alice"]],
      ["off", []],
    ]);
    expect(production.rules).toHaveLength(1);
    expect((await admin.definitions.get(ws, "e2e-search", "Production")).killed).toBe(true);
    expect(await groupNames(admin)).toContain("e2e-payments");
    expect(await users(admin)).toContainEqual({ email: "ann.e2e@example.test", status: "PENDING" });
    expect(await projectIds(platform)).toContain("e2e_payments");
    const connector = await platform.connectors.get("registry", { org: "default", project: "e2e_payments" });
    expect(connector.connector.type).toBe("DockerRegistry");
    const pipeline = await platform.pipelines.get("deploy", { org: "default", project: "e2e_payments" });
    expect(pipeline.yamlPipeline).toContain("identifier: deploy");
  });

  it("preview of the unchanged stack reports no changes and makes no request", async () => {
    const { result, requests } = await s.preview();
    expect(result.changeSummary).toEqual({ same: n + 1 });
    expect(requests).toEqual([]);
  });

  it("one edited field is exactly one update and one PATCH", async () => {
    spec.definitions!["checkout-staging"]!.trafficAllocation = 80;
    await s.setSpec(spec);
    const { result, requests } = await s.up();
    expect(result.summary.resourceChanges).toEqual({ update: 1, same: n });
    expect(writes(requests)).toEqual([
      expect.stringMatching(
        /^PATCH \/internal\/api\/v2\/splits\/ws\/[^/]+\/e2e-checkout\/environments\/[^/]+ 200$/,
      ),
    ]);
    expect((await admin.definitions.get(ws, "e2e-checkout", "Staging")).trafficAllocation).toBe(80);
  });

  it("a renamed flag is replaced, with its definition", async () => {
    spec.flags!.search!.name = "e2e-search-v2";
    await s.setSpec(spec);
    const { result } = await s.up();
    // The definition names the flag through the flag's output, so it is replaced with it.
    expect(result.summary.resourceChanges).toEqual({ replace: 2, same: n - 1 });
    expect(await flagNames(admin)).toEqual(["e2e-checkout", "e2e-search-v2"]);
    expect((await admin.definitions.get(ws, "e2e-search-v2", "Production")).killed).toBe(true);
  });

  it("an out-of-band change is found by refresh and put back by up", async () => {
    await admin.definitions.patch(ws, "e2e-checkout", "Production", [
      { op: "replace", path: "/defaultRule", value: [{ treatment: "on", size: 100 }] },
    ]);
    await admin.groups.put((await admin.groups.getByName("e2e-payments"))!.id, {
      name: "e2e-payments",
      description: "edited by hand",
    });
    const refreshed = await s.refresh();
    expect(refreshed.result.summary.resourceChanges).toEqual({ update: 2, same: n - 1 });
    const preview = await s.preview();
    expect(preview.result.changeSummary).toEqual({ update: 2, same: n - 1 });
    const { result } = await s.up();
    expect(result.summary.resourceChanges).toEqual({ update: 2, same: n - 1 });
    expect((await admin.definitions.get(ws, "e2e-checkout", "Production")).defaultRule).toEqual([
      { treatment: "off", size: 100 },
    ]);
    expect((await admin.groups.getByName("e2e-payments"))?.description).toBe("Payments team");
    expect((await s.preview()).result.changeSummary).toEqual({ same: n + 1 });
  });

  it("an out-of-band delete is recreated", async () => {
    await admin.definitions.delete(ws, "e2e-checkout", "Staging");
    await platform.pipelines.delete("deploy", { org: "default", project: "e2e_payments" });
    const { result } = await s.up({ refresh: true });
    expect(result.summary.resourceChanges).toEqual({ create: 2, same: n - 1 });
    expect((await admin.definitions.get(ws, "e2e-checkout", "Staging")).trafficAllocation).toBe(80);
    const pipeline = await platform.pipelines.get("deploy", { org: "default", project: "e2e_payments" });
    expect(pipeline.yamlPipeline).toContain("identifier: deploy");
  });

  it("the state holds no API key in plain text", async () => {
    const exported = await s.exportText();
    // The engine hands dynamic providers the whole stack config, so the default provider's state
    // holds the keys: encrypted.
    const provider = JSON.parse(exported).deployment.resources.find(
      (r: { type: string }) => r.type === "pulumi:providers:pulumi-nodejs",
    );
    expect(Object.keys(provider.inputs["flagstack:adminApiKey"])).toContain("ciphertext");
    expect(Object.keys(provider.inputs["flagstack:platformApiKey"])).toContain("ciphertext");
    for (const key of [s.emu.adminKey, s.emu.platformKey]) {
      expect(exported).not.toContain(key);
      expect(s.backendText()).not.toContain(key);
    }
    // The serialized providers are in the state: prove they are there, and small.
    const resources = await s.resources();
    const providers = resources.filter((r) => r.type.startsWith("pulumi-nodejs:dynamic/flagstack:"));
    expect(providers).toHaveLength(n);
    for (const r of providers) expect(String(r.outputs.__provider).length).toBeLessThan(2048);
    // The stack config file beside the program holds the keys encrypted too.
    const config = readFileSync(join(s.programDir, "Pulumi.e2e.yaml"), "utf8");
    expect(config).toMatch(/flagstack:adminApiKey:\n\s+secure: v1:/);
    for (const key of [s.emu.adminKey, s.emu.platformKey]) expect(config).not.toContain(key);
  });

  it("destroy leaves the emulator with nothing of the stack, one DELETE per flag and none per definition", async () => {
    const { result, requests } = await s.destroy();
    expect(result.summary.resourceChanges).toEqual({ delete: n + 1 });
    // Each definition was given its `Flag`, so it is deleted with it: the flag's DELETE removes
    // its definitions, and no definition path is deleted on its own.
    const deletes = requests.filter((r) => r.method === "DELETE" && r.api === "admin").map((r) => r.path);
    expect(deletes.filter((p) => p.includes("/environments/"))).toEqual([]);
    expect(deletes.filter((p) => p.includes("/splits/")).sort()).toEqual(
      Object.values(spec.flags ?? {})
        .map((f) => `/internal/api/v2/splits/ws/${ws}/${String(f.name)}`)
        .sort(),
    );
    expect(await flagNames(admin)).toEqual([]);
    expect(await groupNames(admin)).not.toContain("e2e-payments");
    expect((await users(admin)).filter((u) => u.email === "ann.e2e@example.test")).toEqual([]);
    expect(await projectIds(platform)).not.toContain("e2e_payments");
    expect(await s.resources()).toEqual([]);
  });
});
