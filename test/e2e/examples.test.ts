/**
 * Every example in `examples/` runs with the real CLI against one shared emulator: `up` succeeds,
 * a preview right after finds nothing to change, and `destroy` removes everything it made. The
 * examples' own stories are checked too: a ramp is one PATCH and the kill switch is the kill
 * operation, a flag rename reaches the pipeline's script, the policy pack passes the example and
 * blocks its over-ramped variant.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Emulator, startEmulator } from "../../emulator";
import { AdminClient } from "../../sdk/admin/client";
import { clients, defaultWorkspaceId, flagNames, groupNames, projectIds, users } from "./fixtures";
import { EngineStack, REPO_ROOT, type RequestRecord } from "./harness";

const EXAMPLES = join(REPO_ROOT, "examples");
const POLICY_PACK = join(REPO_ROOT, "policy");
const writes = (requests: RequestRecord[]) => requests.filter((r) => r.method !== "GET");

/**
 * Names of the example directories of the dynamic resources (each a TypeScript Pulumi program).
 * Examples that name the native provider's plugin (`plugins:` in their Pulumi.yaml: native-yaml,
 * python, native-typescript) run in their own e2e tests (test/e2e/native-*.test.ts), and those
 * with no Pulumi program (`terraform-flags`, HCL only) in theirs (test/e2e/terraform-*.test.ts).
 */
const examples = readdirSync(EXAMPLES, { withFileTypes: true })
  .filter((d) => d.isDirectory() && existsSync(join(EXAMPLES, d.name, "Pulumi.yaml")))
  .filter((d) => !/^plugins:/m.test(readFileSync(join(EXAMPLES, d.name, "Pulumi.yaml"), "utf8")))
  .map((d) => d.name)
  .sort();

/**
 * A second admin key of the emulator's account for one workspace, made with the first: the key a
 * colleague approves change requests with (the submitting key cannot approve its own).
 */
async function approverClient(emu: Emulator, workspace: string): Promise<AdminClient> {
  const { admin } = clients(emu);
  const ws = await admin.workspaces.getByName(workspace);
  const key = await admin.apiKeys.create({
    name: `approver-${Date.now()}`,
    apiKeyType: "admin",
    roles: ["API_ALL_GRANTED"],
    workspace: { type: "workspace", id: ws!.id },
  });
  return new AdminClient({ baseUrl: emu.url, apiKey: key.key, requestsPerSecond: 1000, env: {} });
}

/** The pending change request of a stack output, as the provider reports it. */
interface Pending {
  id: string;
  status: string;
  reference: string;
}

/**
 * What an example needs right after its first `up` before a preview can find nothing to change:
 * workspace-from-nothing's Production definition is a change request until someone approves it.
 */
const settle: Record<string, (s: EngineStack) => Promise<void>> = {
  async "workspace-from-nothing"(s) {
    const { admin } = clients(s.emu);
    const ws = (await admin.workspaces.getByName("Storefront"))!;
    const pending = (await s.outputs()).productionChange as Pending;
    expect(pending).toEqual({
      id: expect.any(String),
      status: "REQUESTED",
      reference: `changeRequests/${pending.id}`,
    });
    // Production requires approvals: its segment members and its definition went out as change
    // requests, and nothing of either is applied until they are approved.
    const production = (await admin.environments.list(ws.id)).find((e) => e.name === "Production")!;
    const open: { id: string; operationType: string; what: unknown }[] = [];
    for await (const cr of admin.changeRequests.list({ status: "REQUESTED", environmentId: production.id })) {
      const { split, segment } = cr as {
        split?: { name: string } | null;
        segment?: { name: string; keys: string[] } | null;
      };
      open.push({ id: cr.id, operationType: cr.operationType, what: split ? `flag ${split.name}` : segment });
      expect(cr.approvers).toEqual(["storefront-approvers"]);
    }
    expect(open.map(({ operationType, what }) => ({ operationType, what }))).toEqual([
      { operationType: "UPDATE", what: { name: "beta_accounts", keys: ["acct-acme", "acct-globex"] } },
      { operationType: "CREATE", what: "flag new-search" },
    ]);
    expect(open[1]!.id).toBe(pending.id);
    expect((await admin.changeRequests.get(pending.id)).title).toBe("New search at 0% in Production");
    await expect(admin.definitions.get(ws.id, "new-search", "Production")).rejects.toThrow(/404|not found/i);
    const members: string[] = [];
    for await (const k of admin.segmentKeys.list(production.id, "beta_accounts")) members.push(k);
    expect(members).toEqual([]);
    // A second admin key approves them; a refresh records what is applied.
    const approver = await approverClient(s.emu, "Storefront");
    for (const { id } of open) await approver.changeRequests.approve(id, "approved for launch");
    expect((await admin.changeRequests.get(pending.id)).status).toBe("PUBLISHED");
    const refresh = await s.refresh();
    // Reads only: the environment's change permissions are read by a dry-run PATCH that changes nothing.
    expect(refresh.requests.filter((r) => r.method !== "GET" && r.query !== "dry_run=true")).toEqual([]);
    await s.up(); // the stack output follows the refreshed state: no request pending
    expect((await s.outputs()).productionChange).toBeUndefined();
  },
};

/** The GitHub token of delivery-project: a sentinel to search for wherever it must not be. */
const GITHUB_TOKEN_SENTINEL = "sentinel-github-token-7f3c9e1d";

/** Config an example needs before its first `up`. */
const initialConfig: Record<string, Record<string, { value: string; secret?: boolean }>> = {
  "delivery-project": { "delivery-project:githubToken": { value: GITHUB_TOKEN_SENTINEL, secret: true } },
};

/** Every file under `dir`, as text: symbolic links and `node_modules` not followed. */
function filesUnder(dir: string): { path: string; text: string }[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return e.name === "node_modules" ? [] : filesUnder(path);
    return e.isFile() ? [{ path, text: readFileSync(path, "latin1") }] : [];
  });
}

/**
 * What an example's `destroy` needs first: workspace-from-nothing's Production requires approvals,
 * so deleting the flag (and with it its Production definition) and the segment (and its Production
 * members) goes out as change requests; the first `destroy` fails naming them, deletes nothing
 * behind the gate, and a colleague's approval lets the next `destroy` finish.
 */
const beforeDestroy: Record<string, (s: EngineStack) => Promise<void>> = {
  async "workspace-from-nothing"(s) {
    const { admin } = clients(s.emu);
    const ws = (await admin.workspaces.getByName("Storefront"))!;
    const production = (await admin.environments.list(ws.id)).find((e) => e.name === "Production")!;
    const refused = await s.destroy().then(
      () => "(destroyed)",
      (e: unknown) => (e instanceof Error ? e.message : String(e)),
    );
    expect(refused).toMatch(
      /flag "new-search" in workspace "Storefront" is not deleted: .*change request \S+ \(changeRequests\/\S+\) to delete the definition of flag "new-search" in environment "Production" is REQUESTED/s,
    );
    expect(refused).toMatch(
      /segment "beta_accounts" in workspace "Storefront" is not deleted: .*change request \S+ \(changeRequests\/\S+\) to delete the keys of segment "beta_accounts" in environment "Production" is REQUESTED/s,
    );
    // Nothing behind the gate went: the Production definition and members are still live.
    expect((await admin.definitions.get(ws.id, "new-search", "Production")).name).toBe("new-search");
    const members: string[] = [];
    for await (const k of admin.segmentKeys.list(production.id, "beta_accounts")) members.push(k);
    expect(members.sort()).toEqual(["acct-acme", "acct-globex"]);
    const open: string[] = [];
    for await (const cr of admin.changeRequests.list({ status: "REQUESTED", environmentId: production.id }))
      open.push(cr.id);
    expect(open).toHaveLength(2);
    const approver = await approverClient(s.emu, "Storefront");
    for (const id of open) await approver.changeRequests.approve(id, "retire the storefront");
  },
};

/** Checks of an example's `destroy`, given the requests it made. */
const destroys: Record<string, (requests: RequestRecord[]) => void> = {
  /** Dependents first: each DELETE comes after those of everything that references its object. */
  "delivery-project"(requests) {
    const kinds: [string, RegExp][] = [
      ["trigger", /\/triggers\//],
      ["input set", /\/inputSets\//],
      ["pipeline", /\/pipelines\//],
      ["service", /\/servicesV2\//],
      ["infrastructure", /\/infrastructures\//],
      ["environment", /\/environmentsV2\//],
      ["github", /\/connectors\/acme_github$/],
      ["registry", /\/connectors\/acme_ghcr$/],
      ["cluster", /\/connectors\/prod_cluster$/],
      ["secret", /\/secrets\//],
      ["project", /\/projects\//],
      ["organization", /\/organizations\//],
    ];
    const order = requests
      .filter((r) => r.method === "DELETE")
      .map((r) => kinds.find(([, re]) => re.test(r.path))?.[0] ?? r.path);
    expect([...order].sort()).toEqual(kinds.map(([k]) => k).sort());
    const last = (k: string) => order.lastIndexOf(k);
    const first = (k: string) => order.indexOf(k);
    const before = (a: string, b: string) =>
      expect(`${a} before ${b}: ${last(a) < first(b)}`).toBe(`${a} before ${b}: true`);
    // Each pair: the first references the second (only the references decide the order).
    before("trigger", "input set");
    before("input set", "pipeline");
    for (const k of ["service", "infrastructure", "environment", "github", "registry", "cluster"])
      before("pipeline", k);
    before("infrastructure", "environment");
    before("infrastructure", "cluster");
    for (const k of ["github", "registry"]) {
      before("service", k);
      before(k, "secret");
    }
    for (const [k] of kinds.slice(0, -2)) before(k, "project");
    before("project", "organization");
  },
};

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

  async "workspace-from-nothing"(s) {
    const { admin } = clients(s.emu);
    const ws = (await admin.workspaces.getByName("Storefront"))!;
    expect(ws.requiresTitleAndComments).toBe(true);
    const envs = await admin.environments.list(ws.id);
    expect(envs.map((e) => [e.name, e.production]).sort()).toEqual([
      ["Production", true],
      ["Staging", false],
    ]);
    const account = (await admin.trafficTypes.list(ws.id)).find((t) => t.name === "account")!;
    const attributes = (await admin.attributes.list(ws.id, account.id)).map((a) => a.id);
    expect(attributes.sort()).toEqual(["country", "plan"]);
    const { flagSetId } = await s.outputs();
    for (const [env, keys] of [
      ["Staging", ["acct-acme", "acct-qa-1", "acct-qa-2"]],
      ["Production", ["acct-acme", "acct-globex"]],
    ] as const) {
      const members: string[] = [];
      for await (const k of admin.segmentKeys.list(envs.find((e) => e.name === env)!.id, "beta_accounts"))
        members.push(k);
      expect(members.sort()).toEqual([...keys]);
      const def = await admin.definitions.get(ws.id, "new-search", env);
      expect(def.rules).toEqual([
        {
          condition: {
            combiner: "AND",
            matchers: [{ type: "IN_SEGMENT", string: "beta_accounts" }],
          },
          buckets: [{ treatment: "on", size: 100 }],
        },
      ]);
      // Both definitions are in the storefront_web flag set (FlagDefinition.flagSets).
      expect(def.flagSets).toEqual([{ id: flagSetId, type: "flag_set" }]);
    }
    const outputs = await s.outputs();
    const sdkKeys = outputs.serverSideSdkKeys as Record<string, string>;
    expect(Object.keys(sdkKeys).sort()).toEqual(["Production", "Staging"]);
    expect(sdkKeys.Production).not.toBe(sdkKeys.Staging);

    // The approval-gated Production change: ramping to 10% goes out as one UPDATE change request
    // and nothing else; `up` waits for it while a colleague approves it with another key.
    await s.setConfig({
      "workspace-from-nothing:productionPercent": "10",
      "workspace-from-nothing:waitForApprovalSeconds": "120",
    });
    const approver = await approverClient(s.emu, "Storefront");
    // The colleague polls until the request shows up, and stops when `up` ends either way (a
    // failed `up` must not leave the poll running).
    let upEnded = false;
    const approving = (async () => {
      while (!upEnded) {
        for await (const cr of approver.changeRequests.list({ status: "REQUESTED" })) {
          const split = (cr as { split?: { name?: string } | null }).split;
          if (split?.name === "new-search") return approver.changeRequests.approve(cr.id, "ramp approved");
        }
        await new Promise((r) => setTimeout(r, 250));
      }
      return undefined;
    })();
    const ramp = await s.up().finally(() => {
      upEnded = true;
    });
    expect((await approving)?.status).toBe("PUBLISHED");
    expect(ramp.result.summary.resourceChanges).toEqual({ update: 1, same: expect.any(Number) });
    expect(
      writes(ramp.requests).map(
        (r) => `${r.method} ${r.path.replace(/\/[0-9a-f-]{36}/g, "/{id}")} ${r.status}`,
      ),
    ).toEqual([
      "PATCH /internal/api/v2/splits/ws/{id}/new-search/environments/{id} 403",
      "PATCH /internal/api/v2/environments/ws/{id}/{id} 200",
      "POST /internal/api/v2/changeRequests/ws/{id}/environments/{id} 200",
      // The colleague's approval (the second key), while `up` waits.
      expect.stringMatching(/^PUT \/internal\/api\/v2\/changeRequests\/[^/]+ 200$/),
    ]);
    expect(ramp.result.stdout).toMatch(/waiting for change request [^ ]+ \(REQUESTED, \d+s of 120s\)/);
    expect((await admin.definitions.get(ws.id, "new-search", "Production")).defaultRule).toEqual([
      { treatment: "on", size: 10 },
      { treatment: "off", size: 90 },
    ]);
    expect((await s.preview()).result.changeSummary).toEqual({ same: expect.any(Number) });
  },

  async "delivery-project"(s) {
    const { platform } = clients(s.emu);
    const scope = { org: "acme", project: "orders" };
    const orgs: string[] = [];
    for await (const o of platform.organizations.list({})) orgs.push(o.organization.identifier);
    expect(orgs.sort()).toEqual(["acme", "default"]);
    const projects: string[] = [];
    for await (const p of platform.projects.list({ org: "acme" })) projects.push(p.project.identifier);
    expect(projects).toEqual(["orders"]);
    expect((await platform.connectors.get("acme_github", scope)).connector).toMatchObject({
      type: "Github",
      spec: { url: "https://github.com/acme", type: "Account" },
    });
    expect((await platform.connectors.get("prod_cluster", scope)).connector.type).toBe("K8sCluster");
    const stored = await platform.pipelines.get("ship_orders", scope);
    expect(stored.yamlPipeline).toBe((await s.outputs()).pipelineYaml);
    // The stages reference the other resources by their identifier outputs.
    const yaml = stored.yamlPipeline;
    for (const needle of [
      "type: CI",
      "type: Approval",
      "type: HarnessApproval",
      "type: Deployment",
      "serviceRef: orders",
      "environmentRef: production",
      "- identifier: prod_k8s",
      "connectorRef: acme_github",
      "connectorRef: acme_ghcr",
      "connectorRef: prod_cluster",
    ])
      expect(yaml).toContain(needle);
    expect((await s.outputs()).tokenRef).toBe("github_token");

    // A one-field change (Production's replicas) updates exactly one resource with one write.
    await s.setConfig({ "delivery-project:replicas": "5" });
    const change = await s.up();
    expect(change.result.summary.resourceChanges).toEqual({ update: 1, same: expect.any(Number) });
    expect(writes(change.requests).map((r) => `${r.method} ${r.path}`)).toEqual([
      expect.stringMatching(/^PUT \/ng\/api\/environmentsV2$/),
    ]);

    // An edit of the pipeline made outside Pulumi between a refresh and an update is refused,
    // not overwritten.
    await s.refresh();
    const live = await platform.pipelines.get("ship_orders", scope);
    await platform.pipelines.update(
      "ship_orders",
      live.yamlPipeline.replace("Ship <+pipeline.variables.release> to Production?", "Edited in the UI"),
      scope,
    );
    await s.setConfig({ "delivery-project:minimumApprovals": "2" });
    const refused = await s.up().then(
      () => "succeeded",
      (e: unknown) => String(e),
    );
    expect(refused).toContain(
      'pipeline "ship_orders" in project acme/orders was changed outside Pulumi since its state was recorded',
    );
    expect(refused).toContain("Nothing was written.");
    expect((await platform.pipelines.get("ship_orders", scope)).yamlPipeline).toContain("Edited in the UI");
    // After a refresh the update goes through (the program's pipeline wins).
    await s.refresh();
    await s.up();
    const converged = (await platform.pipelines.get("ship_orders", scope)).yamlPipeline;
    expect(converged).toContain("minimumCount: 2");
    expect(converged).not.toContain("Edited in the UI");

    // The token is nowhere: not in the stack's export, its backend files, the program directory,
    // the emulator's request log, or any output of the runs above.
    const exported = await s.cli(["stack", "export"]);
    expect(exported.stdout).not.toContain(GITHUB_TOKEN_SENTINEL);
    for (const f of filesUnder(s.dir)) {
      expect(f.text.includes(GITHUB_TOKEN_SENTINEL) ? f.path : "").toBe("");
    }
    for (const text of [change.result.stdout, change.result.stderr, refused]) {
      expect(text).not.toContain(GITHUB_TOKEN_SENTINEL);
    }
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

  it("are the seven documented ones of the dynamic resources, each with a story checked here", () => {
    expect(examples).toEqual([
      "delivery-pipeline",
      "delivery-project",
      "flag-and-pipeline",
      "policy-check",
      "progressive-rollout",
      "team-access",
      "workspace-from-nothing",
    ]);
    expect(Object.keys(stories).sort()).toEqual(examples);
  });

  it.each(examples)("%s: up, a clean preview, its story, destroy", async (name) => {
    const s = await EngineStack.open({
      program: join(EXAMPLES, name),
      stackName: "dev",
      sharedEmulator: emu,
      config: initialConfig[name],
    });
    let destroyed = false;
    try {
      const usersBefore = await users(clients(emu).admin);
      const up = await s.up();
      expect(up.result.summary.result).toBe("succeeded");
      const created = up.result.summary.resourceChanges?.create ?? 0;
      expect(created).toBeGreaterThan(1);
      await settle[name]?.(s);
      const preview = await s.preview();
      expect(preview.result.changeSummary).toEqual({ same: created });
      expect(preview.requests).toEqual([]);

      await stories[name]!(s);

      await beforeDestroy[name]?.(s);
      const destroy = await s.destroy();
      destroyed = true;
      destroys[name]?.(destroy.requests);
      expect(destroy.result.summary.result).toBe("succeeded");
      expect(await s.resources()).toEqual([]);
      const { admin, platform } = clients(emu);
      expect(await flagNames(admin)).toEqual([]);
      expect(await groupNames(admin)).toEqual([]);
      // An ACTIVE user is deactivated, not deleted (team-access: onDelete "deactivate").
      expect(await users(admin)).toEqual(
        name === "team-access"
          ? [...usersBefore, { email: "dana@example.com", status: "DEACTIVATED" }]
          : usersBefore,
      );
      expect(await projectIds(platform)).toEqual([]);
      // Only the Default workspace the emulator starts with is left (workspace-from-nothing's goes).
      const workspaces: string[] = [];
      for await (const w of admin.workspaces.list()) workspaces.push(w.name);
      expect(workspaces).toEqual(["Default"]);
      // Only the `default` organization is left (delivery-project's goes, with its project).
      const orgs: string[] = [];
      for await (const o of platform.organizations.list({})) orgs.push(o.organization.identifier);
      expect(orgs).toEqual(["default"]);
    } finally {
      // A failed story must not leave objects behind for the next example on this emulator.
      if (!destroyed) await s.destroy().catch(() => undefined);
      await s.close();
    }
  });
});
