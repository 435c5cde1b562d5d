/**
 * The Terraform door end to end, with the real OpenTofu (`tofu`, built by
 * `../shared/toolchain/opentofu/build.sh` when none is on PATH) against the emulator: the provider
 * installed by `flagstack terraform install` into the configuration's `terraform.d/plugins` (a
 * filesystem mirror `init` searches by itself), `init` writing its lock file entry, `validate` of a
 * bad input naming the attribute (no request), `plan` and `apply` of a Flag and its definition in
 * Production, a `plan` of the unchanged configuration (no write; with `-refresh=false` no request),
 * a one-field change (exactly one PATCH), a data source (`flagstack_workspace`: its lookup, no
 * write), the `import` of a flag made outside (no write), and
 * `destroy` leaving nothing. The steps run in order on one working directory.
 *
 * No `tofu`, no build: the test fails, naming the way to get one, rather than skipping.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Emulator, startEmulator } from "../../emulator";
import type { AdminClient } from "../../sdk";
import { clients, defaultWorkspaceId, flagNames } from "./fixtures";
import { REPO_ROOT } from "./harness";
import { TofuDir, writes } from "./tofu";

/** The configuration: a flag and its definition in Production, and what the test adds. */
function mainTf(spec: { allocation?: number; extra?: string } = {}): string {
  return `terraform {
  required_providers {
    flagstack = {
      source = "flagstack.local/flagstack/flagstack"
    }
  }
}

variable "admin_api_url" {
  type = string
}

provider "flagstack" {
  admin_api_url = var.admin_api_url
  # admin_api_key: from FLAGSTACK_ADMIN_API_KEY, as in Pulumi
}

resource "flagstack_flag" "checkout" {
  workspace   = "Default"
  name        = "tf-checkout"
  description = "One-page checkout"
  tags        = ["web", "payments"]
}

resource "flagstack_flag_definition" "checkout_production" {
  workspace   = "Default"
  flag        = flagstack_flag.checkout.name
  environment = "Production"
  treatments = [
    { name = "on", keys = ["qa-bot"] },
    { name = "off" },
  ]
  default_treatment = "off"
  rules = [{
    condition = { matchers = [{ type = "IN_LIST_STRING", attribute = "plan", strings = ["enterprise"] }] }
    buckets   = [{ treatment = "on", size = 100 }]
  }]${spec.allocation === undefined ? "" : `\n  traffic_allocation = ${spec.allocation}`}
}
${spec.extra ?? ""}`;
}

describe("OpenTofu with the flagstack provider, end to end", () => {
  let emu: Emulator;
  let admin: AdminClient;
  let ws: string;
  let t: TofuDir;
  const tf = (args: string[]) => t.tf(args);

  beforeAll(async () => {
    emu = await startEmulator({ port: 0 });
    ({ admin } = clients(emu));
    ws = await defaultWorkspaceId(admin);
    t = TofuDir.open(emu);
    t.write(mainTf());
  });
  afterAll(async () => {
    await emu?.stop();
    t?.close();
  });

  it("init installs the provider from the mirror and locks it", async () => {
    const { code, out } = await tf(["init", "-input=false"]);
    expect(code, out).toBe(0);
    const version = (JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8")) as { version: string })
      .version;
    const lock = readFileSync(join(t.dir, ".terraform.lock.hcl"), "utf8");
    expect(lock).toContain(`provider "flagstack.local/flagstack/flagstack" {\n  version = "${version}"`);
    expect(lock).toMatch(/hashes = \[\n {4}"h1:[A-Za-z0-9+/=]{44}",\n {2}\]/);
  });

  it("validate of a bad input names the attribute and its line, and sends no request", async () => {
    t.write(mainTf({ allocation: 140 }));
    const { code, out, requests } = await tf(["validate"]);
    t.write(mainTf());
    expect(code).toBe(1);
    expect(out).toContain("Error: traffic_allocation: traffic_allocation must be 0..100");
    expect(out).toMatch(
      /on main\.tf line 38, in resource "flagstack_flag_definition" "checkout_production":\n\s+38:\s+traffic_allocation = 140/,
    );
    expect(requests).toEqual([]);
  });

  it("plan shows the two creates and writes nothing", async () => {
    const { code, out, requests } = await tf(["plan", "-input=false", "-detailed-exitcode"]);
    expect(code, out).toBe(2);
    expect(out).toContain("Plan: 2 to add, 0 to change, 0 to destroy.");
    expect(writes(requests)).toEqual([]);
  });

  it("apply creates the flag and its definition", async () => {
    const { code, out, requests } = await tf(["apply", "-input=false", "-auto-approve"]);
    expect(code, out).toBe(0);
    expect(out).toContain("Apply complete! Resources: 2 added, 0 changed, 0 destroyed.");
    expect(writes(requests)).toEqual([
      `POST /internal/api/v2/splits/ws/${ws}/trafficTypes/user 200`,
      `PATCH /internal/api/v2/splits/ws/${ws}/tf-checkout 200`,
      expect.stringMatching(
        new RegExp(`^POST /internal/api/v2/splits/ws/${ws}/tf-checkout/environments/[^/]+ 200$`),
      ),
    ]);
    const flag = await admin.flags.get(ws, "tf-checkout");
    expect([flag.description, (flag.tags ?? []).map((t) => t.name).sort()]).toEqual([
      "One-page checkout",
      ["payments", "web"],
    ]);
    const definition = await admin.definitions.get(ws, "tf-checkout", "Production");
    expect(definition.treatments.map((t) => [t.name, t.keys ?? []])).toEqual([
      ["on", ["qa-bot"]],
      ["off", []],
    ]);
    expect([definition.defaultTreatment, definition.trafficAllocation, definition.rules.length]).toEqual([
      "off",
      100,
      1,
    ]);
  });

  it("plan of the unchanged configuration: no change and no write; without refresh no request", async () => {
    const refreshed = await tf(["plan", "-input=false", "-detailed-exitcode"]);
    expect(refreshed.code, refreshed.out).toBe(0);
    expect(refreshed.out).toContain("No changes. Your infrastructure matches the configuration.");
    expect(writes(refreshed.requests)).toEqual([]);
    const quick = await tf(["plan", "-input=false", "-detailed-exitcode", "-refresh=false"]);
    expect(quick.code, quick.out).toBe(0);
    expect(quick.requests).toEqual([]);
  });

  it("a one-field change is one update and exactly one PATCH", async () => {
    t.write(mainTf({ allocation: 80 }));
    const { code, out, requests } = await tf(["apply", "-input=false", "-auto-approve"]);
    expect(code, out).toBe(0);
    expect(out).toContain("Apply complete! Resources: 0 added, 1 changed, 0 destroyed.");
    expect(writes(requests)).toEqual([
      expect.stringMatching(
        new RegExp(`^PATCH /internal/api/v2/splits/ws/${ws}/tf-checkout/environments/[^/]+ 200$`),
      ),
    ]);
    expect((await admin.definitions.get(ws, "tf-checkout", "Production")).trafficAllocation).toBe(80);
  });

  it("an edit made outside since the last apply: `apply -refresh=false` writes nothing and names Terraform's commands", async () => {
    await admin.definitions.patch(ws, "tf-checkout", "Production", [
      { op: "replace", path: "/trafficAllocation", value: 60 },
    ]);
    t.write(mainTf({ allocation: 90 }));
    const stale = await tf(["apply", "-input=false", "-auto-approve", "-refresh=false"]);
    expect(stale.code, stale.out).toBe(1);
    expect(writes(stale.requests)).toEqual([]);
    const message = stale.out.replace(/\s*\n[│ ]*/g, " ");
    expect(message).toContain("was changed outside Terraform since its state was recorded");
    expect(message).toContain(
      "Nothing was written. Run `terraform apply -refresh-only` to record the live values (the next `terraform plan` then shows exactly what `terraform apply` will change), or `terraform apply` (without `-refresh=false`).",
    );
    expect(message).not.toContain("pulumi");
    // Back to the recorded 80 by a refreshing apply: one PATCH over the outside edit.
    t.write(mainTf({ allocation: 80 }));
    const put = await tf(["apply", "-input=false", "-auto-approve"]);
    expect(put.code, put.out).toBe(0);
    expect(writes(put.requests)).toEqual([
      expect.stringMatching(
        new RegExp(`^PATCH /internal/api/v2/splits/ws/${ws}/tf-checkout/environments/[^/]+ 200$`),
      ),
    ]);
    expect((await admin.definitions.get(ws, "tf-checkout", "Production")).trafficAllocation).toBe(80);
  });

  it("a data source runs its lookup: flagstack_workspace gives the workspace's id, and writes nothing", async () => {
    const extra = `
data "flagstack_workspace" "default" {
  name = "Default"
}

output "workspace_id" {
  value = data.flagstack_workspace.default.id
}
`;
    t.write(mainTf({ allocation: 80, extra }));
    const { code, out, requests } = await tf(["apply", "-input=false", "-auto-approve"]);
    expect(code, out).toBe(0);
    expect(out).toContain("Apply complete! Resources: 0 added, 0 changed, 0 destroyed.");
    expect(out).toContain(`workspace_id = "${ws}"`);
    expect(writes(requests)).toEqual([]);
  });

  it("import of a flag made outside: an import block, no write, then nothing to change", async () => {
    await admin.flags.create(ws, "user", { name: "tf-made-outside", description: "made by hand" });
    const extra = `
import {
  to = flagstack_flag.outside
  id = "Default/tf-made-outside"
}

resource "flagstack_flag" "outside" {
  workspace   = "Default"
  name        = "tf-made-outside"
  description = "made by hand"
}
`;
    t.write(mainTf({ allocation: 80, extra }));
    const { code, out, requests } = await tf(["apply", "-input=false", "-auto-approve"]);
    expect(code, out).toBe(0);
    expect(out).toContain("Apply complete! Resources: 1 imported, 0 added, 0 changed, 0 destroyed.");
    expect(writes(requests)).toEqual([]);
    const again = await tf(["plan", "-input=false", "-detailed-exitcode"]);
    expect(again.code, again.out).toBe(0);
  });

  it("destroy leaves nothing", async () => {
    const { code, out } = await tf(["destroy", "-input=false", "-auto-approve"]);
    expect(code, out).toBe(0);
    expect(out).toContain("Destroy complete! Resources: 3 destroyed.");
    expect(await flagNames(admin)).toEqual([]);
    const state = JSON.parse(readFileSync(join(t.dir, "terraform.tfstate"), "utf8")) as {
      resources: unknown[];
    };
    expect(state.resources).toEqual([]);
  });
});
