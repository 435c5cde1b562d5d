/**
 * Shared ownership (docs/shared-ownership.md), through the real engine: the page's TypeScript
 * program, as written, owns a flag and its production definition with `ignoreChanges:
 * ["defaultRule", "rules", "treatments"]`; a product person edits the default rule and adds a
 * target key in the UI (the admin API); `pulumi up` and `pulumi up --refresh` keep that edit and
 * write nothing; a code change of `trafficAllocation` is one PATCH, and the UI's targeting stays.
 * The page's Python and YAML run the same story in native-python.test.ts and native-yaml.test.ts
 * (test/e2e/shared-ownership-story.ts).
 */
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EngineStack, REPO_ROOT } from "./harness";
import {
  CREATED,
  editInUi,
  liveTargeting,
  sharedOwnershipBlock,
  UI_EDITED,
  writes,
} from "./shared-ownership-story";

describe("shared ownership: the flag in code, the targeting in the UI (TypeScript)", () => {
  let src: string;
  let s: EngineStack;

  beforeAll(async () => {
    src = mkdtempSync(join(tmpdir(), "flagstack-shared-ownership-"));
    const program = join(src, "program");
    mkdirSync(program);
    writeFileSync(join(program, "Pulumi.yaml"), "name: shared-ownership\nruntime: nodejs\nmain: index.ts\n");
    copyFileSync(join(REPO_ROOT, "test/e2e/programs/stack/tsconfig.json"), join(program, "tsconfig.json"));
    writeFileSync(join(program, "index.ts"), sharedOwnershipBlock("ts"));
    s = await EngineStack.open({ program });
  });
  afterAll(async () => {
    await s?.close();
    if (src) rmSync(src, { recursive: true, force: true });
  });

  it("creates the flag and its definition with the program's first values", async () => {
    const { result } = await s.up();
    expect(result.summary.resourceChanges).toEqual({ create: 3 });
    expect(await liveTargeting(s)).toEqual(CREATED);
  });

  it("keeps a UI edit of the default rule and a target key through `pulumi up`, writing nothing", async () => {
    await editInUi(s);
    const { result, requests } = await s.up();
    expect(result.summary.resourceChanges).toEqual({ same: 3 });
    expect(writes(requests)).toEqual([]);
    expect(await liveTargeting(s)).toEqual(UI_EDITED);
  });

  it("keeps it through `pulumi up --refresh`, writing nothing", async () => {
    const { result, requests } = await s.up({ refresh: true });
    expect(result.summary.resourceChanges).toEqual({ same: 3 });
    expect(writes(requests)).toEqual([]);
    expect(await liveTargeting(s)).toEqual(UI_EDITED);
  });

  it("sends a later code change of trafficAllocation as one PATCH, and the UI's targeting stays", async () => {
    const file = join(s.programDir, "index.ts");
    const text = readFileSync(file, "utf8");
    expect(text).toContain("trafficAllocation: 100,");
    writeFileSync(file, text.replace("trafficAllocation: 100,", "trafficAllocation: 50,"));
    const { result, requests } = await s.up();
    expect(result.summary.resourceChanges).toEqual({ same: 2, update: 1 });
    expect(writes(requests)).toEqual([
      expect.stringMatching(
        /^PATCH \/internal\/api\/v2\/splits\/ws\/[^/]+\/shared-checkout\/environments\/[^/]+$/,
      ),
    ]);
    expect(await liveTargeting(s)).toEqual({ ...UI_EDITED, trafficAllocation: 50 });
  });
});
