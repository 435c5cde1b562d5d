/**
 * Shared ownership through the Terraform door (docs/shared-ownership.md, its HCL block as written,
 * with the real OpenTofu): the configuration owns a flag and its production definition with
 * `lifecycle { ignore_changes = [default_rule, rules, treatments] }`; a product person edits the
 * default rule and adds a target key in the UI (the admin API); a refreshing `apply` and an
 * `apply -refresh=false` keep that edit and write nothing; a change of `traffic_allocation`,
 * 100 → 50, is one PATCH, and the UI's targeting stays.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Emulator, startEmulator } from "../../emulator";
import type { EngineStack } from "./harness";
import { CREATED, editInUi, liveTargeting, sharedOwnershipBlock, UI_EDITED } from "./shared-ownership-story";
import { TofuDir, writes } from "./tofu";

let emu: Emulator;
let w: TofuDir;
const hcl = sharedOwnershipBlock("hcl");
/** The helpers of the story take a stack; they use its emulator alone. */
const stack = () => ({ emu }) as EngineStack;
const PATCH_OF_DEFINITION =
  /^PATCH \/internal\/api\/v2\/splits\/ws\/[^/]+\/shared-checkout\/environments\/[^/]+ 200$/;

beforeAll(async () => {
  emu = await startEmulator({ port: 0 });
  w = TofuDir.open(emu);
  w.write(hcl);
});
afterAll(async () => {
  w?.close();
  await emu?.stop();
});

describe("shared ownership: the flag in code, the targeting in the UI (HCL, OpenTofu)", () => {
  it("apply of the page's configuration creates the flag and its definition", async () => {
    expect((await w.tf(["init", "-input=false"])).code).toBe(0);
    const { code, out } = await w.tf(["apply", "-input=false", "-auto-approve"]);
    expect(code, out).toBe(0);
    expect(out).toContain("Apply complete! Resources: 2 added, 0 changed, 0 destroyed.");
    expect(await liveTargeting(stack())).toEqual(CREATED);
  });

  it("a UI edit of the default rule and a target key survives apply, refreshing or not, with no write", async () => {
    await editInUi(stack());
    const refreshing = await w.tf(["apply", "-input=false", "-auto-approve"]);
    expect(refreshing.code, refreshing.out).toBe(0);
    expect(refreshing.out).toContain("No changes.");
    expect(writes(refreshing.requests)).toEqual([]);
    const quick = await w.tf(["apply", "-input=false", "-auto-approve", "-refresh=false"]);
    expect(quick.code, quick.out).toBe(0);
    expect(quick.out).toContain("No changes.");
    expect(quick.requests).toEqual([]);
    expect(await liveTargeting(stack())).toEqual(UI_EDITED);
  });

  it("a change of traffic_allocation is one PATCH, and the UI's targeting stays", async () => {
    w.write(hcl.replace("traffic_allocation = 100", "traffic_allocation = 50"));
    const { code, out, requests } = await w.tf(["apply", "-input=false", "-auto-approve"]);
    expect(code, out).toBe(0);
    expect(out).toContain("Apply complete! Resources: 0 added, 1 changed, 0 destroyed.");
    expect(writes(requests)).toEqual([expect.stringMatching(PATCH_OF_DEFINITION)]);
    expect(await liveTargeting(stack())).toEqual({ ...UI_EDITED, trafficAllocation: 50 });
  });

  it("destroy leaves nothing: the definition goes with its flag's one DELETE", async () => {
    const { code, out, requests } = await w.tf(["destroy", "-input=false", "-auto-approve"]);
    expect(code, out).toBe(0);
    expect(writes(requests)).toEqual([
      expect.stringMatching(/^DELETE \/internal\/api\/v2\/splits\/ws\/[^/]+\/shared-checkout 200$/),
    ]);
  });
});
