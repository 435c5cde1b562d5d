/**
 * Every example in `examples/` runs with the real CLI against one shared emulator: `up` succeeds,
 * a preview right after finds nothing to change, and `destroy` removes everything it made. The
 * examples' own stories are checked too: a ramp is one PATCH and the kill switch is the kill
 * operation, a flag rename reaches the pipeline's script, the policy pack passes the example and
 * blocks its over-ramped variant.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Emulator, startEmulator } from "../../emulator";
import { clients, defaultWorkspaceId, flagNames, groupNames, projectIds, users } from "./fixtures";
import { EngineStack, REPO_ROOT, type RequestRecord } from "./harness";

const EXAMPLES = join(REPO_ROOT, "examples");
const POLICY_PACK = join(REPO_ROOT, "policy");
const writes = (requests: RequestRecord[]) => requests.filter((r) => r.method !== "GET");

/**
 * Names of the example directories of the dynamic resources (each a TypeScript Pulumi program).
 * Examples that name the native provider's plugin (`plugins:` in their Pulumi.yaml: native-yaml,
 * python, native-typescript) run in their own e2e tests (test/e2e/native-*.test.ts).
 */
const examples = readdirSync(EXAMPLES, { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .filter((d) => !/^plugins:/m.test(readFileSync(join(EXAMPLES, d.name, "Pulumi.yaml"), "utf8")))
  .map((d) => d.name)
  .sort();

/** The checks specific to one example, run between its `up` and its `destroy`. */
const stories: Record<string, (s: EngineStack) => Promise<void>> = {
  async "progressive-rollout"(s) {
    const { admin } = clients(s.emu);
    const ws = await defaultWorkspaceId(admin);
    await s.setConfig({ "progressive-rollout:productionPercent": "50" });
    const ramp = await s.up();
    expect(ramp.result.summary.resourceChanges).toEqual({ update: 1, same: 3 });
    expect(writes(ramp.requests).map((r) => `${r.method} ${r.path}`)).toEqual([
      expect.stringMatching(
        /^PATCH \/internal\/api\/v2\/splits\/ws\/[^/]+\/one-click-pay\/environments\/[^/]+$/,
      ),
    ]);
    expect((await admin.definitions.get(ws, "one-click-pay", "Production")).defaultRule).toEqual([
      { treatment: "on", size: 50 },
      { treatment: "off", size: 50 },
    ]);

    await s.setConfig({ "progressive-rollout:killed": "true" });
    const kill = await s.up();
    expect(kill.result.summary.resourceChanges).toEqual({ update: 1, same: 3 });
    expect(writes(kill.requests).map((r) => `${r.method} ${r.path}`)).toContainEqual(
      expect.stringMatching(
        /^PUT \/internal\/api\/v2\/splits\/ws\/[^/]+\/one-click-pay\/environments\/[^/]+\/kill$/,
      ),
    );
    expect((await admin.definitions.get(ws, "one-click-pay", "Production")).killed).toBe(true);
    expect((await admin.definitions.get(ws, "one-click-pay", "Staging")).killed).toBe(false);
  },

  async "team-access"(s) {
    const { admin } = clients(s.emu);
    expect(await groupNames(admin)).toEqual(["checkout-developers", "checkout-release-managers"]);
    expect(await users(admin)).toEqual([
      { email: "dana@example.com", status: "PENDING" },
      { email: "eli@example.com", status: "PENDING" },
      { email: "fran@example.com", status: "PENDING" },
    ]);
    expect((await s.outputs()).invitations).toEqual([
      { email: "dana@example.com", status: "PENDING" },
      { email: "eli@example.com", status: "PENDING" },
      { email: "fran@example.com", status: "PENDING" },
    ]);

    // Dana registers: refresh sees PENDING -> ACTIVE, and the program still matches.
    let dana: string | undefined;
    for await (const u of admin.users.list()) if (u.email === "dana@example.com") dana = u.id;
    await s.emu.acceptInvitation(dana!);
    await s.refresh();
    const state = (await s.resources()).find((r) => r.urn.endsWith("::dana"));
    expect(state?.outputs.status).toBe("ACTIVE");
    expect((await s.preview()).result.changeSummary).toEqual({ same: 6 });
    await s.up(); // the stack outputs follow the refreshed state
    expect((await s.outputs()).invitations).toContainEqual({ email: "dana@example.com", status: "ACTIVE" });
  },

  async "delivery-pipeline"(s) {
    const { platform } = clients(s.emu);
    expect(await projectIds(platform)).toEqual(["orders"]);
    const stored = await platform.pipelines.get("deploy_orders", { org: "default", project: "orders" });
    expect(stored.yamlPipeline).toBe((await s.outputs()).pipelineYaml);
    expect(stored.yamlPipeline).toContain("value: <+input>.regex(^v[0-9]+\\.[0-9]+\\.[0-9]+$)");
    const connector = await platform.connectors.get("orders_registry", { org: "default", project: "orders" });
    expect(connector.connector.spec).toMatchObject({
      dockerRegistryUrl: "https://harbor.example.com/v2/",
      providerType: "Harbor",
    });
  },

  async "flag-and-pipeline"(s) {
    const { admin, platform } = clients(s.emu);
    const before = await platform.pipelines.get("release_search", { org: "default", project: "search" });
    expect(before.yamlPipeline).toContain('echo "releasing behind feature flag instant-search"');
    await s.setConfig({ "flag-and-pipeline:flagName": "instant-search-v2" });
    const { result } = await s.up();
    // The flag and its definition are replaced (a flag name is its identity). The pipeline is
    // replaced too: the flag is deleted before its replacement is created (names are unique), so
    // the engine asks each dependent whether it would be replaced with the flag's outputs unknown,
    // and the pipeline cannot tell its identifier from a model that is entirely unknown.
    expect(result.summary.resourceChanges).toEqual({ replace: 3, same: 2 });
    expect(await flagNames(admin)).toEqual(["instant-search-v2"]);
    const after = await platform.pipelines.get("release_search", { org: "default", project: "search" });
    expect(after.yamlPipeline).toContain('echo "releasing behind feature flag instant-search-v2"');
    expect(after.yamlPipeline).toContain("flag: instant-search-v2");
  },

  async "policy-check"(s) {
    const config = join(s.programDir, "policy-config.json");
    const passing = await s.preview({ policyPacks: [POLICY_PACK], policyPackConfigs: [config] });
    expect(passing.result.stdout).not.toContain("[mandatory]");
    await s.setConfig({ "policy-check:rampPercent": "80" });
    const blocked = await s.preview({ policyPacks: [POLICY_PACK], policyPackConfigs: [config] }).then(
      () => "passed",
      (e: unknown) => String(e),
    );
    expect(blocked).toContain(
      'flag "new-onboarding" in environment "Production" sends 80% of untargeted traffic to treatments other than the baseline "off" (limit 25%), and its rollout status "Pre-Production" is not one of: Ramping, Experimenting, Ramped',
    );
    expect(blocked).toMatch(
      /in environment "Production", \d+(\.\d+)?% of 2000 sampled keys get treatment "on" for flag "new-onboarding", expected at most 25%/,
    );
    // The individual target and the EU rule hold, so they are not reported.
    expect(blocked).not.toContain('key "qa-bot"');
    expect(blocked).not.toContain('key "berlin-user"');
    await s.setConfig({ "policy-check:rampPercent": "20" });
  },
};

describe("the examples", () => {
  let emu: Emulator;

  beforeAll(async () => {
    emu = await startEmulator({ port: 0 });
  });
  afterAll(async () => {
    await emu?.stop();
  });

  it("are the five documented ones of the dynamic resources, each with a story checked here", () => {
    expect(examples).toEqual([
      "delivery-pipeline",
      "flag-and-pipeline",
      "policy-check",
      "progressive-rollout",
      "team-access",
    ]);
    expect(Object.keys(stories).sort()).toEqual(examples);
  });

  it.each(examples)("%s: up, a clean preview, its story, destroy", async (name) => {
    const s = await EngineStack.open({
      program: join(EXAMPLES, name),
      stackName: "dev",
      sharedEmulator: emu,
    });
    let destroyed = false;
    try {
      const up = await s.up();
      expect(up.result.summary.result).toBe("succeeded");
      const created = up.result.summary.resourceChanges?.create ?? 0;
      expect(created).toBeGreaterThan(1);
      const preview = await s.preview();
      expect(preview.result.changeSummary).toEqual({ same: created });
      expect(preview.requests).toEqual([]);

      await stories[name]!(s);

      const destroy = await s.destroy();
      destroyed = true;
      expect(destroy.result.summary.result).toBe("succeeded");
      expect(await s.resources()).toEqual([]);
      const { admin, platform } = clients(emu);
      expect(await flagNames(admin)).toEqual([]);
      expect(await groupNames(admin)).toEqual([]);
      // An ACTIVE user is deactivated, not deleted (team-access: onDelete "deactivate").
      expect(await users(admin)).toEqual(
        name === "team-access" ? [{ email: "dana@example.com", status: "DEACTIVATED" }] : [],
      );
      expect(await projectIds(platform)).toEqual([]);
    } finally {
      // A failed story must not leave objects behind for the next example on this emulator.
      if (!destroyed) await s.destroy().catch(() => undefined);
      await s.close();
    }
  });
});
