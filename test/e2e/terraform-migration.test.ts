/**
 * The migration guide's story (`docs/terraform-migration.md`), with the real OpenTofu against the
 * emulator: the objects of the peer's (davidji99/terraform-provider-split) documented example
 * configurations are made through the SDK as that provider makes them (an environment, a traffic
 * type and its attribute, a split and its definition, a segment active in the environment with
 * its keys, a group, a flag set), then the guide's own flagstack HCL, import blocks included, is
 * planned (only imports), applied (the imports recorded, 0 writes) and planned again (no change,
 * 0 writes). The HCL is read from the guide, so the guide cannot drift from what works.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Emulator, startEmulator } from "../../emulator";
import type { AdminClient } from "../../sdk";
import { clients, defaultWorkspaceId } from "./fixtures";
import { REPO_ROOT } from "./harness";
import { TofuDir, writes } from "./tofu";

/** The guide's HCL block marked `migration-example`. */
function guideConfiguration(): string {
  const guide = readFileSync(join(REPO_ROOT, "docs", "terraform-migration.md"), "utf8");
  const m = /<!-- migration-example[^>]*-->\n```hcl\n([\s\S]*?)\n```/.exec(guide);
  if (!m) throw new Error("docs/terraform-migration.md has no block marked migration-example");
  return `${m[1]}\n`;
}

/** The objects the peer's examples make (its `docs/resources/*.md`), made through the SDK. */
async function peerObjects(admin: AdminClient, ws: string): Promise<void> {
  const env = await admin.environments.create(ws, { name: "production-canary", production: true });
  await admin.trafficTypes.create(ws, { name: "my_traffic_type" });
  await admin.attributes.create(ws, "my_traffic_type", {
    id: "my-attribute",
    displayName: "my attribute display name",
    description: "this is my attribute description",
    dataType: "NUMBER",
    suggestedValues: ["1", "2", "3"],
    isSearchable: true,
  });
  await admin.flags.create(ws, "my_traffic_type", { name: "my_split", description: "my split description" });
  await admin.definitions.create(ws, "my_split", env.id, {
    treatments: [
      { name: "treatment_123", configurations: '{"key":"value"}', description: "my treatment 123" },
      { name: "treatment_456", configurations: '{"key2":"value2"}', description: "my treatment 456" },
    ],
    defaultTreatment: "treatment_123",
    defaultRule: [{ treatment: "treatment_123", size: 100 }],
    rules: [
      {
        buckets: [{ treatment: "treatment_123", size: 100 }],
        condition: {
          combiner: "AND",
          matchers: [{ type: "EQUAL_SET", attribute: "test_string", strings: ["test_string"] }],
        },
      },
    ],
  });
  await admin.segments.create(ws, "my_traffic_type", {
    name: "name_of_my_segment",
    description: "description_of_my_segment",
  });
  await admin.segmentKeys.activate(env.id, "name_of_my_segment");
  await admin.segmentKeys.add(env.id, "name_of_my_segment", ["mytestkey1", "mytestkey2"]);
  await admin.groups.create({ name: "name_of_my_group", description: "description_of_my_group" });
  await admin.flagSets.create({
    name: "mobile_features",
    description: "Feature flags for mobile applications",
    workspace: { id: ws },
  });
}

describe("moving the peer's example stack to flagstack with import blocks", () => {
  let emu: Emulator;
  let t: TofuDir;

  beforeAll(async () => {
    emu = await startEmulator({ port: 0 });
    const { admin } = clients(emu);
    await peerObjects(admin, await defaultWorkspaceId(admin));
    t = TofuDir.open(emu);
    t.write(guideConfiguration());
    const init = await t.tf(["init", "-input=false"]);
    expect(init.code, init.out).toBe(0);
  }, 300_000);
  afterAll(async () => {
    t?.close();
    await emu?.stop();
  });

  it("plan: every object imported, nothing to add, change or destroy, no write", async () => {
    const plan = await t.tf(["plan", "-input=false"]);
    expect(plan.code, plan.out).toBe(0);
    expect(plan.out).toContain("Plan: 9 to import, 0 to add, 0 to change, 0 to destroy.");
    expect(writes(plan.requests)).toEqual([]);
  });

  it("apply records the imports and writes nothing", async () => {
    const apply = await t.tf(["apply", "-input=false", "-auto-approve"]);
    expect(apply.code, apply.out).toBe(0);
    expect(apply.out).toContain("Apply complete! Resources: 9 imported, 0 added, 0 changed, 0 destroyed.");
    expect(writes(apply.requests)).toEqual([]);
  });

  it("plan after the import: no change, no write", async () => {
    const plan = await t.tf(["plan", "-input=false", "-detailed-exitcode"]);
    expect(plan.code, plan.out).toBe(0);
    expect(plan.out).toContain("No changes.");
    expect(writes(plan.requests)).toEqual([]);
  });
});
