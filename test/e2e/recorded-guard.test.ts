/**
 * The scenario through the real engine: a colleague edits a definition by hand (traffic
 * allocation 70, default rule 50/50, a target key added); the program changes only the traffic
 * allocation, 100 → 50. The preview shows that one change; `pulumi up` refuses it, naming the
 * field with its recorded, live and desired values, and leaves the colleague's edit as it is.
 * `pulumi up --refresh` then shows and applies the real change.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AdminClient } from "../../sdk";
import { clients, defaultWorkspaceId, type StackSpec } from "./fixtures";
import { apiRequests, EngineStack } from "./harness";

describe("an update never silently reverts a change the preview did not show", () => {
  let s: EngineStack;
  let admin: AdminClient;
  let ws: string;
  const spec = (trafficAllocation: number): StackSpec => ({
    flags: { checkout: { workspace: "Default", name: "guard-checkout", description: "checkout" } },
    definitions: {
      production: {
        workspace: "Default",
        flag: "checkout",
        environment: "Production",
        treatments: [{ name: "on", keys: ["qa-bot"] }, { name: "off" }],
        defaultTreatment: "off",
        trafficAllocation,
        defaultRule: [
          { treatment: "on", size: 10 },
          { treatment: "off", size: 90 },
        ],
      },
    },
  });
  const live = async () => {
    const d = await admin.definitions.get(ws, "guard-checkout", "Production");
    return {
      trafficAllocation: d.trafficAllocation,
      defaultRule: d.defaultRule,
      keys: d.treatments[0]?.keys,
    };
  };

  beforeAll(async () => {
    s = await EngineStack.open({ program: "test/e2e/programs/stack" });
    ({ admin } = clients(s.emu));
    ws = await defaultWorkspaceId(admin);
    await s.setSpec(spec(100));
    expect((await s.up()).result.summary.result).toBe("succeeded");
    await admin.definitions.patch(ws, "guard-checkout", "Production", [
      { op: "replace", path: "/trafficAllocation", value: 70 },
      { op: "replace", path: "/defaultRule/0/size", value: 50 },
      { op: "replace", path: "/defaultRule/1/size", value: 50 },
      { op: "add", path: "/treatments/0/keys/-", value: "colleague" },
    ]);
  });
  afterAll(async () => {
    await s?.close();
  });

  const colleaguesEdit = {
    trafficAllocation: 70,
    defaultRule: [
      { treatment: "on", size: 50 },
      { treatment: "off", size: 50 },
    ],
    keys: ["qa-bot", "colleague"],
  };

  it("the preview shows one update; up refuses it naming recorded 100, live 70 and desired 50, and writes nothing", async () => {
    await s.setSpec(spec(50));
    const preview = await s.preview();
    expect(preview.result.changeSummary).toEqual({ update: 1, same: 2 });
    s.emu.resetRequests();
    const failed = await s.up().then(
      () => "succeeded",
      (e: Error) => e.message,
    );
    expect(failed).toContain(
      'the definition of flag "guard-checkout" in environment "Production" was changed outside Pulumi since its state was recorded, in a field this update changes:',
    );
    expect(failed).toContain("trafficAllocation: recorded 100, live 70, desired 50");
    expect(failed).toContain("Run `pulumi refresh` to record the live values");
    expect(apiRequests(s.emu.requests()).filter((r) => r.method !== "GET")).toEqual([]);
    expect(await live()).toEqual(colleaguesEdit);
  });

  it("pulumi up --refresh shows the whole change and applies it", async () => {
    const preview = await s.preview({ refresh: true, diff: true });
    expect(preview.result.changeSummary).toEqual({ update: 1, same: 2 });
    expect(preview.result.stdout).toContain("trafficAllocation");
    const { result } = await s.up({ refresh: true });
    expect(result.summary.resourceChanges).toEqual({ update: 1, same: 2 });
    expect(await live()).toEqual({
      trafficAllocation: 50,
      defaultRule: [
        { treatment: "on", size: 10 },
        { treatment: "off", size: 90 },
      ],
      keys: ["qa-bot"],
    });
    expect((await s.preview()).result.changeSummary).toEqual({ same: 3 });
  });
});
