/**
 * The Terraform door's whole story with the real OpenTofu against the emulator (issue 26), the
 * Pulumi example's story in HCL (`examples/workspace-from-nothing/terraform/main.tf`):
 * - `apply` from nothing: environments (Production approval-gated), a traffic type and its
 *   attributes, a segment with members in each environment, a flag set, a flag whose definitions
 *   target the segment (`IN_SEGMENT`), an SDK key per environment; Production's members and
 *   definition go out as change requests, as the Pulumi door's (the same `impl`); once a colleague
 *   approves them, an `apply` records them with no write, the workspace is what the Pulumi story
 *   shows, and a `plan` finds nothing to change (no write; with `-refresh=false` no request);
 * - ramping Production: one UPDATE change request, the apply waiting while a colleague approves it;
 * - an out-of-band edit of a definition: the refreshing `plan` shows it, `apply` puts it back with
 *   one PATCH;
 * - `import` of a flag made outside with an `import` block and `-generate-config-out`: the
 *   generated HCL validates, the import writes nothing, and the next plan is clean;
 * - `destroy`: refused behind the gate naming the change requests, then, once approved, nothing
 *   left of what it made.
 * Then, each in its own working directory: a flag and three definitions destroyed in one run send
 * the flag's DELETE and no definition DELETE; and OpenTofu's state encryption keeps the key a
 * `flagstack_api_key` makes out of every file in plain text.
 *
 * No `tofu`: the test fails, naming the way to get one, rather than skipping.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Emulator, startEmulator } from "../../emulator";
import { AdminClient } from "../../sdk/admin/client";
import { clients, flagNames, groupNames } from "./fixtures";
import { REPO_ROOT, type RequestRecord } from "./harness";
import { TofuDir } from "./tofu";

/** The emulator's writes (dry-run probes of approval gates change nothing and are left out), ids as `{id}`. */
const writes = (requests: RequestRecord[]) =>
  requests
    .filter((r) => r.method !== "GET" && !r.query.includes("dry_run=true"))
    .map((r) => `${r.method} ${r.path.replace(/\/[0-9a-f-]{36}/g, "/{id}")} ${r.status}`);

const STORY = readFileSync(
  join(REPO_ROOT, "examples", "workspace-from-nothing", "terraform", "main.tf"),
  "utf8",
);

/** Every file under `dir`, as bytes read as latin1 text. */
function filesUnder(dir: string): { path: string; text: string }[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return filesUnder(path);
    return e.isFile() ? [{ path, text: readFileSync(path, "latin1") }] : [];
  });
}

let emu: Emulator;
let admin: AdminClient;

/** A second admin key of the account for one workspace: a colleague's, who approves change requests. */
async function approver(workspace: string): Promise<AdminClient> {
  const ws = await admin.workspaces.getByName(workspace);
  const key = await admin.apiKeys.create({
    name: `approver-${Date.now()}`,
    apiKeyType: "admin",
    roles: ["API_ALL_GRANTED"],
    workspace: { type: "workspace", id: ws!.id },
  });
  return new AdminClient({ baseUrl: emu.url, apiKey: key.key, requestsPerSecond: 1000, env: {} });
}

/** The open change requests of an environment: `[id, operationType, what]`. */
async function openRequests(
  environmentId: string,
): Promise<{ id: string; operationType: string; what: unknown }[]> {
  const open: { id: string; operationType: string; what: unknown }[] = [];
  for await (const cr of admin.changeRequests.list({ status: "REQUESTED", environmentId })) {
    const { split, segment } = cr as {
      split?: { name: string } | null;
      segment?: { name: string; keys: string[] } | null;
    };
    open.push({ id: cr.id, operationType: cr.operationType, what: split ? `flag ${split.name}` : segment });
  }
  return open;
}

beforeAll(async () => {
  emu = await startEmulator({ port: 0 });
  ({ admin } = clients(emu));
});
afterAll(async () => {
  await emu?.stop();
});

describe("OpenTofu: the workspace-from-nothing story", () => {
  let w: TofuDir;
  let wsId: string;
  let production: string;
  beforeAll(() => {
    w = TofuDir.open(emu);
    w.write(STORY);
  });
  afterAll(() => w?.close());

  it("apply from nothing: Production's members and definition go out as change requests", async () => {
    expect((await w.tf(["init", "-input=false"])).code).toBe(0);
    const { code, out } = await w.tf(["apply", "-input=false", "-auto-approve"]);
    expect(code, out).toBe(0);
    expect(out).toContain("Apply complete! Resources: 16 added, 0 changed, 0 destroyed.");
    const ws = (await admin.workspaces.getByName("Storefront"))!;
    wsId = ws.id;
    production = (await admin.environments.list(ws.id)).find((e) => e.name === "Production")!.id;
    const pending = (await w.outputs()).production_change!.value as { id: string };
    expect(pending).toEqual({
      id: expect.any(String),
      status: "REQUESTED",
      reference: `changeRequests/${pending.id}`,
    });
    const open = await openRequests(production);
    expect(open.map(({ operationType, what }) => ({ operationType, what }))).toEqual([
      { operationType: "UPDATE", what: { name: "beta_accounts", keys: ["acct-acme", "acct-globex"] } },
      { operationType: "CREATE", what: "flag new-search" },
    ]);
    expect(open[1]!.id).toBe(pending.id);
    const cr = await admin.changeRequests.get(pending.id);
    expect([cr.title, cr.approvers]).toEqual(["New search at 0% in Production", ["storefront-approvers"]]);
    await expect(admin.definitions.get(ws.id, "new-search", "Production")).rejects.toThrow(/404|not found/i);
  });

  it("approved by a colleague: an apply records them with no write, and the workspace is the Pulumi story's", async () => {
    const colleague = await approver("Storefront");
    for (const { id } of await openRequests(production))
      await colleague.changeRequests.approve(id, "approved");
    const { code, out, requests } = await w.tf(["apply", "-input=false", "-auto-approve"]);
    expect(code, out).toBe(0);
    expect(out).toContain("Apply complete! Resources: 0 added, 0 changed, 0 destroyed.");
    expect(writes(requests)).toEqual([]);
    expect((await w.outputs()).production_change?.value ?? null).toBeNull();

    expect((await admin.workspaces.getByName("Storefront"))?.requiresTitleAndComments).toBe(true);
    const envs = await admin.environments.list(wsId);
    expect(envs.map((e) => [e.name, e.production]).sort()).toEqual([
      ["Production", true],
      ["Staging", false],
    ]);
    const account = (await admin.trafficTypes.list(wsId)).find((t) => t.name === "account")!;
    expect((await admin.attributes.list(wsId, account.id)).map((a) => a.id).sort()).toEqual([
      "country",
      "plan",
    ]);
    const outputs = await w.outputs();
    for (const [env, keys] of [
      ["Staging", ["acct-acme", "acct-qa-1", "acct-qa-2"]],
      ["Production", ["acct-acme", "acct-globex"]],
    ] as const) {
      const members: string[] = [];
      for await (const k of admin.segmentKeys.list(envs.find((e) => e.name === env)!.id, "beta_accounts"))
        members.push(k);
      expect(members.sort()).toEqual([...keys]);
      const def = await admin.definitions.get(wsId, "new-search", env);
      expect(def.rules).toEqual([
        {
          condition: { combiner: "AND", matchers: [{ type: "IN_SEGMENT", string: "beta_accounts" }] },
          buckets: [{ treatment: "on", size: 100 }],
        },
      ]);
      expect(def.flagSets).toEqual([{ id: outputs.flag_set_id!.value, type: "flag_set" }]);
    }
    const sdkKeys = outputs.server_side_sdk_keys!.value as Record<string, string>;
    expect(Object.keys(sdkKeys).sort()).toEqual(["Production", "Staging"]);
    expect(sdkKeys.Production).not.toBe(sdkKeys.Staging);
  });

  it("plan of it unchanged: no change and no write; without refresh no request", async () => {
    const refreshed = await w.tf(["plan", "-input=false", "-detailed-exitcode"]);
    expect(refreshed.code, refreshed.out).toBe(0);
    expect(refreshed.out).toContain("No changes. Your infrastructure matches the configuration.");
    expect(writes(refreshed.requests)).toEqual([]);
    const quick = await w.tf(["plan", "-input=false", "-detailed-exitcode", "-refresh=false"]);
    expect(quick.code, quick.out).toBe(0);
    expect(quick.requests).toEqual([]);
  });

  it("ramping Production is one UPDATE change request, and apply waits while a colleague approves it", async () => {
    w.write("production_percent        = 10\nwait_for_approval_seconds = 120\n", "terraform.tfvars");
    const colleague = await approver("Storefront");
    // The colleague looks until the request shows up, and stops when the apply ends either way.
    let ended = false;
    const approving = (async () => {
      while (!ended) {
        for (const cr of await openRequests(production))
          if (cr.what === "flag new-search") return colleague.changeRequests.approve(cr.id, "ramp approved");
        await new Promise((r) => setTimeout(r, 250));
      }
      return undefined;
    })();
    const ramp = await w.tf(["apply", "-input=false", "-auto-approve"]).finally(() => {
      ended = true;
    });
    expect(ramp.code, ramp.out).toBe(0);
    expect((await approving)?.status).toBe("PUBLISHED");
    expect(ramp.out).toContain("Apply complete! Resources: 0 added, 1 changed, 0 destroyed.");
    expect(writes(ramp.requests)).toEqual([
      "PATCH /internal/api/v2/splits/ws/{id}/new-search/environments/{id} 403",
      "POST /internal/api/v2/changeRequests/ws/{id}/environments/{id} 200",
      // The colleague's approval, while the apply waits.
      expect.stringMatching(/^PUT \/internal\/api\/v2\/changeRequests\/[^/]+ 200$/),
    ]);
    expect((await admin.definitions.get(wsId, "new-search", "Production")).defaultRule).toEqual([
      { treatment: "on", size: 10 },
      { treatment: "off", size: 90 },
    ]);
    // Without waiting from here on (a gated delete then fails naming its request): no write.
    w.write("production_percent = 10\n", "terraform.tfvars");
    const settled = await w.tf(["apply", "-input=false", "-auto-approve"]);
    expect(settled.code, settled.out).toBe(0);
    expect(writes(settled.requests)).toEqual([]);
    expect((await w.tf(["plan", "-input=false", "-detailed-exitcode"])).code).toBe(0);
  });

  it("an out-of-band edit of a definition: the refreshing plan shows it, apply puts it back with one PATCH", async () => {
    await admin.definitions.patch(
      wsId,
      "new-search",
      "Staging",
      [{ op: "replace", path: "/trafficAllocation", value: 40 }],
      {
        title: "by hand",
        comment: "a colleague's edit",
      },
    );
    const plan = await w.tf(["plan", "-input=false", "-detailed-exitcode"]);
    expect(plan.code, plan.out).toBe(2);
    expect(plan.out).toContain('# flagstack_flag_definition.search["Staging"] will be updated in-place');
    expect(plan.out).toMatch(/~ traffic_allocation\s+= 40 -> 100\n/);
    expect(plan.out).toContain("Plan: 0 to add, 1 to change, 0 to destroy.");
    const { code, out, requests } = await w.tf(["apply", "-input=false", "-auto-approve"]);
    expect(code, out).toBe(0);
    expect(writes(requests)).toEqual([
      "PATCH /internal/api/v2/splits/ws/{id}/new-search/environments/{id} 200",
    ]);
    expect((await admin.definitions.get(wsId, "new-search", "Staging")).trafficAllocation).toBe(100);
    expect((await w.tf(["plan", "-input=false", "-detailed-exitcode"])).code).toBe(0);
  });

  it("import of a flag made outside: generated HCL that validates, no write, then no change", async () => {
    await admin.flags.create(wsId, "account", { name: "made-outside", description: "made by hand" });
    w.write('import {\n  to = flagstack_flag.outside\n  id = "Storefront/made-outside"\n}\n', "import.tf");
    const generate = await w.tf(["plan", "-input=false", "-generate-config-out=generated.tf"]);
    expect(generate.code, generate.out).toBe(0);
    expect(writes(generate.requests)).toEqual([]);
    const generated = readFileSync(join(w.dir, "generated.tf"), "utf8");
    expect(generated).toContain('resource "flagstack_flag" "outside" {');
    expect(generated).toMatch(/\n {2}name\s+= "made-outside"\n/);
    expect(generated).toMatch(/\n {2}description\s+= "made by hand"\n/);
    expect((await w.tf(["validate"])).code).toBe(0);
    const plan = await w.tf(["plan", "-input=false", "-detailed-exitcode"]);
    expect(plan.out).toContain("Plan: 1 to import, 0 to add, 0 to change, 0 to destroy.");
    const { code, out, requests } = await w.tf(["apply", "-input=false", "-auto-approve"]);
    expect(code, out).toBe(0);
    expect(out).toContain("Apply complete! Resources: 1 imported, 0 added, 0 changed, 0 destroyed.");
    expect(writes(requests)).toEqual([]);
    const again = await w.tf(["plan", "-input=false", "-detailed-exitcode"]);
    expect(again.code, again.out).toBe(0);
  });

  it("destroy: refused behind the gate naming each change request, then nothing left", async () => {
    const refusals: string[] = [];
    let planned: string | undefined;
    for (let round = 0; round < 4; round++) {
      const { code, out } = await w.tf(["destroy", "-input=false", "-auto-approve"]);
      planned ??= out;
      if (code === 0) break;
      refusals.push(...(out.match(/^Error: .*$/gm) ?? []));
      const colleague = await approver("Storefront");
      for (const { id } of await openRequests(production))
        await colleague.changeRequests.approve(id, "retire it");
    }
    expect(refusals).toEqual([
      expect.stringMatching(
        /^Error: environment "Production" requires approvals: change request \S+ \(changeRequests\/\S+\) to delete the definition of flag "new-search" in environment "Production" is REQUESTED/,
      ),
      expect.stringMatching(
        /^Error: environment "Production" requires approvals: change request \S+ \(changeRequests\/\S+\) to delete the keys of segment "beta_accounts" in environment "Production" is REQUESTED/,
      ),
    ]);
    // The plan told it first, for each of the five objects (two flags and a segment, and what the
    // first flag and the segment hold in Production): OpenTofu shows one and counts the others.
    expect(planned?.match(/^Warning: .*$/gm)).toEqual([
      'Warning: Environment "Production" requires approvals',
    ]);
    expect(planned).toContain("(and 4 more similar warnings elsewhere)");
    expect(planned).toMatch(
      /the apply\s+(first\s+)?asks\s+for\s+(this\s+delete|that)\s+with\s+an\s+ARCHIVE\s+change\s+request/,
    );
    const state = JSON.parse(readFileSync(join(w.dir, "terraform.tfstate"), "utf8")) as {
      resources: unknown[];
    };
    expect(state.resources).toEqual([]);
    expect(await flagNames(admin)).toEqual([]);
    expect(await groupNames(admin)).toEqual([]);
    const workspaces: string[] = [];
    for await (const ws of admin.workspaces.list()) workspaces.push(ws.name);
    expect(workspaces).toEqual(["Default"]);
  });
});

describe("OpenTofu: a flag and its definitions destroyed in one run", () => {
  it("destroy sends the flag's one DELETE and no definition DELETE", async () => {
    const w = TofuDir.open(emu);
    try {
      w.write(
        `terraform {
  required_providers {
    flagstack = {
      source = "flagstack.local/flagstack/flagstack"
    }
  }
}

resource "flagstack_environment" "dev" {
  workspace = "Default"
  name      = "Dev"
}

resource "flagstack_flag" "owned" {
  workspace = "Default"
  name      = "tf-owned"
}

resource "flagstack_flag_definition" "owned" {
  for_each          = toset(["Production", "Staging", "Dev"])
  workspace         = "Default"
  flag              = flagstack_flag.owned.name
  environment       = each.key == "Dev" ? flagstack_environment.dev.name : each.key
  treatments        = [{ name = "on" }, { name = "off" }]
  default_treatment = "off"
}
`,
      );
      expect((await w.tf(["init", "-input=false"])).code).toBe(0);
      const applied = await w.tf(["apply", "-input=false", "-auto-approve"]);
      expect(applied.code, applied.out).toBe(0);
      expect(applied.out).toContain("Resources: 5 added");
      const { code, out, requests } = await w.tf(["destroy", "-input=false", "-auto-approve"]);
      expect(code, out).toBe(0);
      expect(out).toContain("Destroy complete! Resources: 5 destroyed.");
      // The Dev environment's delete revokes its SDK keys first (an environment with keys cannot go).
      expect(writes(requests).filter((r) => !r.startsWith("DELETE /internal/api/v2/apiKeys/"))).toEqual([
        "DELETE /internal/api/v2/splits/ws/{id}/tf-owned 200",
        "DELETE /internal/api/v2/environments/ws/{id}/{id} 200",
      ]);
      // The owner gate's reads (each environment's change permissions, a dry-run PATCH) go once,
      // in the destroy's plan; its apply takes them from there (provider/core/gate-ledger.ts).
      expect(
        requests
          .filter((r) => r.query.includes("dry_run=true"))
          .map((r) => `${r.method} ${r.path.replace(/[0-9a-f-]{36}/g, "{id}")}`),
      ).toEqual(Array.from({ length: 3 }, () => "PATCH /internal/api/v2/environments/ws/{id}/{id}"));
      expect(await flagNames(admin)).toEqual([]);
    } finally {
      w.close();
    }
  });
});

describe("OpenTofu: state encryption", () => {
  it("a key made by flagstack_api_key is in no file in plain text", async () => {
    const w = TofuDir.open(emu);
    try {
      w.write(
        `terraform {
  required_providers {
    flagstack = {
      source = "flagstack.local/flagstack/flagstack"
    }
  }
  encryption {
    key_provider "pbkdf2" "main" {
      passphrase = "a passphrase of sixteen characters or more"
    }
    method "aes_gcm" "main" {
      keys = key_provider.pbkdf2.main
    }
    state {
      method   = method.aes_gcm.main
      enforced = true
    }
    plan {
      method   = method.aes_gcm.main
      enforced = true
    }
  }
}

resource "flagstack_api_key" "server" {
  name         = "encrypted-server"
  api_key_type = "server_side"
  workspace    = "Default"
  environments = ["Staging"]
}

output "key" {
  value     = flagstack_api_key.server.key
  sensitive = true
}
`,
      );
      expect((await w.tf(["init", "-input=false"])).code).toBe(0);
      const applied = await w.tf(["apply", "-input=false", "-auto-approve"]);
      expect(applied.code, applied.out).toBe(0);
      // A plan file with the state in it, and the state's backup after a second apply.
      const plan = await w.tf(["plan", "-input=false", "-out=saved.tfplan"]);
      expect(plan.code, plan.out).toBe(0);
      const again = await w.tf(["apply", "-input=false", "saved.tfplan"]);
      expect(again.code, again.out).toBe(0);
      const key = (await w.outputs()).key!.value as string;
      expect(key).toMatch(/^\S{16,}$/);
      const files = filesUnder(w.dir).filter((f) => !f.path.includes(`${join("terraform.d", "plugins")}`));
      expect(
        files.map((f) => f.path.slice(w.dir.length + 1)).filter((p) => !p.startsWith(".terraform/")),
      ).toEqual(expect.arrayContaining(["main.tf", "saved.tfplan", "terraform.tfstate"]));
      expect(files.filter((f) => f.text.includes(key)).map((f) => f.path)).toEqual([]);
      expect(readFileSync(join(w.dir, "terraform.tfstate"), "utf8")).toContain('"encrypted_data"');
      const destroyed = await w.tf(["destroy", "-input=false", "-auto-approve"]);
      expect(destroyed.code, destroyed.out).toBe(0);
    } finally {
      w.close();
    }
  });
});
