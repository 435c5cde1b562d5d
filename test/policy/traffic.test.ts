/**
 * max-traffic-shift (policy/traffic.ts): a production change above maxShiftPercent is reported
 * naming the definition, one below it passes, other environments are not judged, maxNamedKeys
 * limits the targeted keys that move; with no prior state from its door (a Pulumi preview) the
 * policy reads the definition from the service (the emulator here), and measures nothing where the
 * service's settings are not set.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Emulator, startEmulator } from "../../emulator";
import type { PolicyTarget } from "../../policy/common";
import { maxTrafficShift } from "../../policy/traffic";
import { resetProvider } from "../../provider/core/config";
import { FLAG_DEFINITION_TYPE } from "../../provider/types";
import { AdminClient } from "../../sdk/admin/client";

const def = (on: number, environment = "Production", extra: Record<string, unknown> = {}) => ({
  workspace: "Default",
  flag: "checkout",
  environment,
  treatments: [{ name: "on" }, { name: "off" }],
  defaultTreatment: "off",
  defaultRule: [
    { treatment: "on", size: on },
    { treatment: "off", size: 100 - on },
  ],
  ...extra,
});
const target = (before: object | null | undefined, after: object, address = "d"): PolicyTarget => ({
  type: FLAG_DEFINITION_TYPE,
  address,
  props: after as Record<string, unknown>,
  before: before as Record<string, unknown> | null | undefined,
});

async function verdicts(targets: PolicyTarget[], settings: object = {}) {
  const out: [string, string | undefined][] = [];
  await maxTrafficShift.core.check(targets, { sampleSize: 1000, ...settings }, (m, a) => out.push([m, a]));
  return out;
}

describe("max-traffic-shift on a plan (the state before known)", () => {
  it("reports a production change above the limit, passes one below it and other environments", async () => {
    expect(
      await verdicts([
        target(def(10), def(40), "flagstack_flag_definition.big"),
        target(def(10, "Production", { flag: "small" }), def(15, "Production", { flag: "small" })),
        target(def(0, "Staging"), def(100, "Staging")),
        target(null, def(100, "Production", { flag: "new" })),
      ]),
    ).toEqual([
      [
        'flag "checkout" in environment "Production" (updated) moves 30% of its traffic (off → on 30%; exact, over the 100 buckets), more than maxShiftPercent 10%',
        "flagstack_flag_definition.big",
      ],
    ]);
    expect(await verdicts([target(def(10), def(40))], { maxShiftPercent: 30 })).toEqual([]);
    expect(
      await verdicts([target(def(0, "Staging"), def(100, "Staging"))], {
        productionEnvironments: ["staging"],
      }),
    ).toHaveLength(1);
  });

  it("maxNamedKeys: the targeted keys that move", async () => {
    const targets = (keys: string[]) =>
      def(0, "Production", { treatments: [{ name: "on", keys }, { name: "off" }] });
    expect(await verdicts([target(targets([]), targets(["a", "b", "c"]))], { maxNamedKeys: 2 })).toEqual([
      [
        'flag "checkout" in environment "Production" (updated) moves 3 of the keys targeting names (a off → on, b off → on, c off → on), more than maxNamedKeys 2',
        "d",
      ],
    ]);
  });
});

describe("max-traffic-shift in a Pulumi preview (the state before read from the service)", () => {
  let emu: Emulator;
  const saved = { ...process.env };
  beforeAll(async () => {
    emu = await startEmulator({ port: 0 });
    const admin = new AdminClient({ baseUrl: emu.url, apiKey: emu.adminKey });
    const ws = (await admin.workspaces.getByName("Default"))!;
    await admin.flags.create(ws.id, "user", { name: "checkout" });
    const { workspace: _w, flag: _f, environment: _e, ...body } = def(10);
    await admin.definitions.create(ws.id, "checkout", "Production", {
      ...body,
      trafficAllocation: 100,
      rules: [],
    });
  });
  afterAll(async () => {
    process.env = saved;
    resetProvider();
    await emu?.stop();
  });

  it("reads the definition as served, and measures the change from it", async () => {
    resetProvider();
    process.env.FLAGSTACK_ADMIN_API_URL = emu.url;
    process.env.FLAGSTACK_ADMIN_API_KEY = emu.adminKey;
    emu.resetRequests();
    expect(await verdicts([target(undefined, def(50), "urn:d")])).toEqual([
      [
        'flag "checkout" in environment "Production" (updated) moves 40% of its traffic (off → on 40%; exact, over the 100 buckets), more than maxShiftPercent 10%',
        "urn:d",
      ],
    ]);
    expect(emu.requests().map((r) => `${r.method} ${r.path}`)).toEqual([
      "GET /internal/api/v2/workspaces",
      expect.stringMatching(
        /^GET \/internal\/api\/v2\/splits\/ws\/[^/]+\/checkout\/environments\/Production$/,
      ),
    ]);
    // A definition the service does not have is created by the change: nothing moves.
    expect(await verdicts([target(undefined, def(50, "Production", { flag: "brand-new" }))])).toEqual([]);
  });

  it("measures nothing where the service's settings are not set", async () => {
    resetProvider();
    delete process.env.FLAGSTACK_ADMIN_API_URL;
    delete process.env.FLAGSTACK_ADMIN_API_KEY;
    emu.resetRequests();
    expect(await verdicts([target(undefined, def(90))])).toEqual([]);
    expect(emu.requests()).toEqual([]);
  });
});
