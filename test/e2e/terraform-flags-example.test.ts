/**
 * `examples/terraform-flags/`, the shape that stays linear at thousands of flags (a `module` block
 * per flag, docs/terraform.md "Thousands of flags"), applied with OpenTofu against the emulator as
 * it is written: each flag and its definitions as the module's variables give them, a plan of the
 * applied stack with nothing to change and no request, a flag added by a block of its own planned
 * as its creates only (a flag and its definitions), a change of one environment's share as one
 * guarded PATCH of that definition, and a destroy that sends one DELETE per flag (the definitions'
 * delete held for the flag's).
 */
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Emulator, startEmulator } from "../../emulator";
import type { AdminClient } from "../../sdk";
import { clients, defaultWorkspaceId, flagNames } from "./fixtures";
import { REPO_ROOT } from "./harness";
import { TofuDir, writes } from "./tofu";

const EXAMPLE = join(REPO_ROOT, "examples", "terraform-flags");
const FLAGS = ["new-search", "one-page-checkout", "dark-mode"];

describe("examples/terraform-flags: a module block per flag", () => {
  let emu: Emulator;
  let admin: AdminClient;
  let ws: string;
  let t: TofuDir;
  const main = readFileSync(join(EXAMPLE, "main.tf"), "utf8");

  beforeAll(async () => {
    emu = await startEmulator({ port: 0 });
    ({ admin } = clients(emu));
    ws = await defaultWorkspaceId(admin);
    t = TofuDir.open(emu);
    t.write(main);
    mkdirSync(join(t.dir, "flag"));
    t.write(readFileSync(join(EXAMPLE, "flag", "main.tf"), "utf8"), join("flag", "main.tf"));
    const init = await t.tf(["init", "-input=false"]);
    expect(init.code, init.out).toBe(0);
  }, 120_000);
  afterAll(async () => {
    t?.close();
    await emu?.stop();
  });

  it("applies each flag and its definitions as the module's variables give them", async () => {
    const apply = await t.tf(["apply", "-input=false", "-auto-approve"]);
    expect(apply.code, apply.out).toBe(0);
    expect(apply.out).toContain("Apply complete! Resources: 6 added, 0 changed, 0 destroyed.");
    expect(await flagNames(admin)).toEqual([...FLAGS].sort());
    const search = await admin.definitions.get(ws, "new-search", "Production");
    expect(search.treatments).toEqual([
      expect.objectContaining({ name: "on", keys: ["qa-bot", "alice@example.com"] }),
      expect.objectContaining({ name: "off" }),
    ]);
    expect(search.defaultRule).toEqual([
      { treatment: "on", size: 10 },
      { treatment: "off", size: 90 },
    ]);
    const checkout = await admin.definitions.get(ws, "one-page-checkout", "Production");
    expect(checkout.defaultRule).toEqual([
      { treatment: "on", size: 0 },
      { treatment: "off", size: 100 },
    ]);
    expect((await t.outputs()).flags?.value).toEqual(FLAGS);
  }, 120_000);

  it("plans the applied stack with nothing to change and no request", async () => {
    const plan = await t.tf(["plan", "-input=false", "-refresh=false", "-detailed-exitcode"]);
    expect(plan.code, plan.out).toBe(0);
    expect(plan.requests).toEqual([]);
  }, 120_000);

  it("a flag added by a block of its own is its flag and definitions, nothing else", async () => {
    t.write(`${main}\nmodule "beta" {\n  source = "./flag"\n  name   = "beta-banner"\n}\n`);
    try {
      // A module call is installed by `init` (a local one in no time), as CI runs it anyway.
      const init = await t.tf(["init", "-input=false"]);
      expect(init.code, init.out).toBe(0);
      const plan = await t.tf(["plan", "-input=false", "-detailed-exitcode"]);
      expect(plan.code, plan.out).toBe(2);
      expect(plan.out).toContain("Plan: 2 to add, 0 to change, 0 to destroy.");
      expect(plan.out).toContain("# module.beta.flagstack_flag_definitions.this will be created");
      expect(plan.out).toContain("# module.beta.flagstack_flag.this will be created");
      expect(writes(plan.requests)).toEqual([]);
    } finally {
      t.write(main);
    }
  }, 120_000);

  it("a change of one environment's share is one guarded PATCH of that definition, then nothing to change", async () => {
    const changed = main.replace("percent     = { Staging = 50 }", "percent     = { Staging = 75 }");
    expect(changed).not.toBe(main);
    t.write(changed);
    try {
      const apply = await t.tf(["apply", "-input=false", "-auto-approve"]);
      expect(apply.code, apply.out).toBe(0);
      expect(apply.out).toContain("Apply complete! Resources: 0 added, 1 changed, 0 destroyed.");
      const staging = (await admin.environments.list(ws)).find((e) => e.name === "Staging");
      expect(writes(apply.requests)).toEqual([
        `PATCH /internal/api/v2/splits/ws/${ws}/one-page-checkout/environments/${staging?.id} 200`,
      ]);
      expect((await admin.definitions.get(ws, "one-page-checkout", "Staging")).defaultRule).toEqual([
        { treatment: "on", size: 75 },
        { treatment: "off", size: 25 },
      ]);
      const plan = await t.tf(["plan", "-input=false", "-detailed-exitcode"]);
      expect(plan.code, plan.out).toBe(0);
    } finally {
      t.write(main);
    }
  }, 120_000);

  it("destroys with one DELETE per flag", async () => {
    const destroy = await t.tf(["destroy", "-input=false", "-auto-approve"]);
    expect(destroy.code, destroy.out).toBe(0);
    expect(writes(destroy.requests).sort()).toEqual(
      FLAGS.map((name) => `DELETE /internal/api/v2/splits/ws/${ws}/${name} 200`).sort(),
    );
    expect(await flagNames(admin)).toEqual([]);
  }, 120_000);
});
