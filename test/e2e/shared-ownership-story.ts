/**
 * docs/shared-ownership.md's story, for each language's program on the page: the program owns a
 * flag and its production definition with `ignoreChanges: [defaultRule, rules, treatments]`; a
 * product person edits the default rule and adds a target key in the UI (the admin API); `pulumi
 * up` and `pulumi up --refresh` keep that edit and write nothing; a code change of the traffic
 * allocation, 100 → 50, is one PATCH and the UI's targeting stays. Run by
 * test/e2e/shared-ownership.test.ts (TypeScript), native-python.test.ts and native-yaml.test.ts.
 * @module
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "vitest";
import { clients, defaultWorkspaceId } from "./fixtures";
import { type EngineStack, REPO_ROOT, type RequestRecord } from "./harness";

/** The page's one block of that fence language. */
export function sharedOwnershipBlock(lang: "ts" | "python" | "yaml" | "hcl"): string {
  const page = readFileSync(join(REPO_ROOT, "docs", "shared-ownership.md"), "utf8");
  const blocks = [...page.matchAll(/^```(\w+)\n([\s\S]*?)^```$/gm)].filter((m) => m[1] === lang);
  if (blocks.length !== 1) throw new Error(`docs/shared-ownership.md: ${blocks.length} ${lang} blocks`);
  return blocks[0]?.[2] as string;
}

/** `METHOD path` of each request that is not a read. */
export const writes = (requests: RequestRecord[]): string[] =>
  requests.filter((r) => r.method !== "GET").map((r) => `${r.method} ${r.path}`);

/** The definition's traffic allocation, default rule and target keys, as the service holds them. */
export async function liveTargeting(s: EngineStack) {
  const { admin } = clients(s.emu);
  const ws = await defaultWorkspaceId(admin);
  const d = await admin.definitions.get(ws, "shared-checkout", "Production");
  return {
    trafficAllocation: d.trafficAllocation,
    defaultRule: d.defaultRule,
    treatments: d.treatments.map((t) => ({ name: t.name, keys: t.keys ?? [] })),
  };
}

/** What the program creates. */
export const CREATED = {
  trafficAllocation: 100,
  defaultRule: [{ treatment: "off", size: 100 }],
  treatments: [
    { name: "on", keys: ["qa-bot"] },
    { name: "off", keys: [] },
  ],
};

/** The definition after the UI edit: 20% on, and pm-alice targeted. */
export const UI_EDITED = {
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

/** The UI edit: the default rule to 20/80 and a target key added to `on`. */
export async function editInUi(s: EngineStack): Promise<void> {
  const { admin } = clients(s.emu);
  const ws = await defaultWorkspaceId(admin);
  await admin.definitions.patch(ws, "shared-checkout", "Production", [
    { op: "replace", path: "/defaultRule", value: UI_EDITED.defaultRule },
    { op: "add", path: "/treatments/0/keys/-", value: "pm-alice" },
  ]);
}

const PATCH_OF_DEFINITION =
  /^PATCH \/internal\/api\/v2\/splits\/ws\/[^/]+\/shared-checkout\/environments\/[^/]+$/;

/**
 * The whole story on a stack of the page's program; `changeTrafficAllocation` edits the
 * program's copy from 100 to 50.
 */
export async function sharedOwnershipStory(
  s: EngineStack,
  changeTrafficAllocation: () => void,
): Promise<void> {
  const created = (await s.up()).result.summary.resourceChanges ?? {};
  expect(Object.keys(created)).toEqual(["create"]);
  const n = created.create as number;
  expect(await liveTargeting(s)).toEqual(CREATED);

  await editInUi(s);
  const up = await s.up();
  expect(up.result.summary.resourceChanges).toEqual({ same: n });
  expect(writes(up.requests)).toEqual([]);
  expect(await liveTargeting(s)).toEqual(UI_EDITED);

  const refreshed = await s.up({ refresh: true });
  expect(refreshed.result.summary.resourceChanges).toEqual({ same: n });
  expect(writes(refreshed.requests)).toEqual([]);
  expect(await liveTargeting(s)).toEqual(UI_EDITED);

  changeTrafficAllocation();
  const changed = await s.up();
  expect(changed.result.summary.resourceChanges).toEqual({ same: n - 1, update: 1 });
  expect(writes(changed.requests)).toEqual([expect.stringMatching(PATCH_OF_DEFINITION)]);
  expect(await liveTargeting(s)).toEqual({ ...UI_EDITED, trafficAllocation: 50 });
}
