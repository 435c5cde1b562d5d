/**
 * Shared ownership (docs/shared-ownership.md), through the real engine: the page's TypeScript
 * program, as written, owns a flag and its production definition with `ignoreChanges:
 * ["defaultRule", "rules", "treatments"]`; a product person edits the default rule and adds a
 * target key in the UI (the admin API); `pulumi up` and `pulumi up --refresh` keep that edit and
 * write nothing; a code change of `trafficAllocation` is one PATCH of that field alone, and the UI's
 * targeting stays.
 */
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AdminClient } from "../../sdk";
import { clients, defaultWorkspaceId } from "./fixtures";
import { EngineStack, REPO_ROOT, type RequestRecord } from "./harness";

/** The one TypeScript block of docs/shared-ownership.md. */
function documentedProgram(): string {
  const page = readFileSync(join(REPO_ROOT, "docs", "shared-ownership.md"), "utf8");
  const blocks = [...page.matchAll(/^```ts\n([\s\S]*?)^```$/gm)];
  if (blocks.length !== 1) throw new Error(`docs/shared-ownership.md: ${blocks.length} ts blocks`);
  return blocks[0]?.[1] as string;
}

/** `METHOD path` of each request that is not a read. */
const writes = (requests: RequestRecord[]) =>
  requests.filter((r) => r.method !== "GET").map((r) => `${r.method} ${r.path}`);

describe("shared ownership: the flag in code, the targeting in the UI", () => {
  let src: string;
  let s: EngineStack;
  let admin: AdminClient;
  let ws: string;
  const live = async () => {
    const d = await admin.definitions.get(ws, "shared-checkout", "Production");
    return { trafficAllocation: d.trafficAllocation, defaultRule: d.defaultRule, treatments: d.treatments };
  };
  const uiEdit = {
    trafficAllocation: 100,
    defaultRule: [
      { treatment: "on", size: 20 },
      { treatment: "off", size: 80 },
    ],
    treatments: [
      { name: "on", keys: ["qa-bot", "pm-alice"] },
      { name: "off", keys: [] },
    ],
  };

  beforeAll(async () => {
    src = mkdtempSync(join(tmpdir(), "flagstack-shared-ownership-"));
    const program = join(src, "program");
    mkdirSync(program);
    writeFileSync(join(program, "Pulumi.yaml"), "name: shared-ownership\nruntime: nodejs\nmain: index.ts\n");
    copyFileSync(join(REPO_ROOT, "test/e2e/programs/stack/tsconfig.json"), join(program, "tsconfig.json"));
    writeFileSync(join(program, "index.ts"), documentedProgram());
    s = await EngineStack.open({ program });
    ({ admin } = clients(s.emu));
    ws = await defaultWorkspaceId(admin);
  });
  afterAll(async () => {
    await s?.close();
    if (src) rmSync(src, { recursive: true, force: true });
  });

  it("creates the flag and its definition with the program's first values", async () => {
    const { result } = await s.up();
    expect(result.summary.resourceChanges).toEqual({ create: 3 });
    const d = await live();
    expect({ ...d, treatments: d.treatments.map((t) => ({ name: t.name, keys: t.keys ?? [] })) }).toEqual({
      trafficAllocation: 100,
      defaultRule: [{ treatment: "off", size: 100 }],
      treatments: [
        { name: "on", keys: ["qa-bot"] },
        { name: "off", keys: [] },
      ],
    });
  });

  it("keeps a UI edit of the default rule and a target key through `pulumi up`, writing nothing", async () => {
    await admin.definitions.patch(ws, "shared-checkout", "Production", [
      { op: "replace", path: "/defaultRule", value: uiEdit.defaultRule },
      { op: "add", path: "/treatments/0/keys/-", value: "pm-alice" },
    ]);
    const { result, requests } = await s.up();
    expect(result.summary.resourceChanges).toEqual({ same: 3 });
    expect(writes(requests)).toEqual([]);
    const d = await live();
    expect({ ...d, treatments: d.treatments.map((t) => ({ name: t.name, keys: t.keys ?? [] })) }).toEqual(
      uiEdit,
    );
  });

  it("keeps it through `pulumi up --refresh`, writing nothing", async () => {
    const { result, requests } = await s.up({ refresh: true });
    expect(result.summary.resourceChanges).toEqual({ same: 3 });
    expect(writes(requests)).toEqual([]);
    const d = await live();
    expect({ ...d, treatments: d.treatments.map((t) => ({ name: t.name, keys: t.keys ?? [] })) }).toEqual(
      uiEdit,
    );
  });

  it("sends a later code change of trafficAllocation as one PATCH of that field, and the UI's targeting stays", async () => {
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
    const d = await live();
    expect({ ...d, treatments: d.treatments.map((t) => ({ name: t.name, keys: t.keys ?? [] })) }).toEqual({
      ...uiEdit,
      trafficAllocation: 50,
    });
  });
});
