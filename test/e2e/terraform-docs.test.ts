/**
 * The Terraform Registry pages (`docs/terraform/resources/*.md`, generated from the kinds'
 * examples by `npm run generate`) hold configurations OpenTofu accepts: each page's HCL blocks (its
 * example and its `import` block), behind the provider's blocks, pass the real `tofu validate`,
 * which runs the provider's ValidateResourceConfig (each kind's `check`) and sends no request.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Emulator, startEmulator } from "../../emulator";
import { KIND_LIST } from "../../provider/kinds";
import { REPO_ROOT } from "./harness";
import { PROVIDER_HCL, TofuDir } from "./tofu";

const PAGES = join(REPO_ROOT, "docs", "terraform", "resources");
const pages = readdirSync(PAGES)
  .filter((f) => f.endsWith(".md"))
  .sort();

/** Every ```hcl block of a page, in order. */
const hclOf = (page: string) =>
  [...readFileSync(join(PAGES, page), "utf8").matchAll(/^```hcl\n([\s\S]*?)^```$/gm)].map((m) => m[1]);

let emu: Emulator;
let w: TofuDir;

beforeAll(async () => {
  emu = await startEmulator({ port: 0 });
  w = TofuDir.open(emu);
  w.write(PROVIDER_HCL);
  const init = await w.tf(["init", "-input=false"]);
  expect(init.code, init.out).toBe(0);
});
afterAll(async () => {
  w?.close();
  await emu?.stop();
});

describe("the Terraform Registry pages' HCL passes tofu validate", () => {
  it("one page per kind, each with an example and an import block but the API key's (no read)", () => {
    expect(pages.length).toBe(KIND_LIST.length);
    expect(pages.filter((page) => hclOf(page).length !== 2)).toEqual(["api_key.md"]);
    expect(hclOf("api_key.md").length).toBe(1);
  });

  it.each(pages)("%s", async (page) => {
    w.write(`${PROVIDER_HCL}\n${hclOf(page).join("\n")}`);
    const { code, out, requests } = await w.tf(["validate"]);
    expect(code, out).toBe(0);
    expect(out).toContain("Success! The configuration is valid.");
    expect(requests).toEqual([]);
  });
});
