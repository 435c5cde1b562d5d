/**
 * Flag sets on the SDK wire (ref wire §1 `sets`, §6 `splitChanges?sets=`): each split carries the
 * sorted names of its definition's flag sets; `sets=a,b` serves only the flags in one of them (a
 * flag that left them comes once as ARCHIVED); the real SDK with `sync.splitFilters` `bySet`
 * downloads and evaluates only those flags.
 */
import { SplitFactory } from "@splitsoftware/splitio";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Emulator } from "../../../emulator";
import { type Call, definitionBody, start } from "../helpers";

let emu: Emulator;
let call: Call;
let ws: { id: string };
let sets: Record<string, string>;
const defPath = (flag: string) => `/internal/api/v2/splits/ws/${ws.id}/${flag}/environments/Production`;
const changes = (query: string) => call("GET", `/api/splitChanges?s=1.3&${query}`, { key: emu.sdkKey });
const names = (r: { body: { ff: { d: { name: string; status: string; sets: string[] }[] } } }) =>
  r.body.ff.d.map((s) => [s.name, s.status, s.sets]);

beforeAll(async () => {
  ({ emu, call, ws } = await start());
  sets = {};
  for (const name of ["web", "mobile", "android"]) {
    const r = await call("POST", "/internal/api/v3/flag-sets", { body: { name, workspace: { id: ws.id } } });
    sets[name] = r.body.id;
  }
  const flags: [string, string[]][] = [
    ["web_only", ["web"]],
    ["both", ["web", "mobile", "android"]],
    ["mobile_only", ["mobile"]],
    ["no_set", []],
  ];
  for (const [name, of] of flags) {
    await call("POST", `/internal/api/v2/splits/ws/${ws.id}/trafficTypes/user`, { body: { name } });
    await call("POST", defPath(name), {
      body: definitionBody({
        defaultRule: [{ treatment: "on", size: 100 }],
        flagSets: of.map((s) => ({ id: sets[s], type: "flag_set" })),
      }),
    });
  }
});
afterAll(() => emu?.stop());

describe("flag sets on the SDK wire", () => {
  it("carries the sorted set names of each split and filters by ?sets", async () => {
    expect(names(await changes("since=-1"))).toEqual([
      ["web_only", "ACTIVE", ["web"]],
      ["both", "ACTIVE", ["android", "mobile", "web"]],
      ["mobile_only", "ACTIVE", ["mobile"]],
      ["no_set", "ACTIVE", []],
    ]);
    expect(names(await changes("since=-1&sets=web"))).toEqual([
      ["web_only", "ACTIVE", ["web"]],
      ["both", "ACTIVE", ["android", "mobile", "web"]],
    ]);
    expect(names(await changes("since=-1&sets=android,mobile"))).toEqual([
      ["both", "ACTIVE", ["android", "mobile", "web"]],
      ["mobile_only", "ACTIVE", ["mobile"]],
    ]);
  });

  it("serves a flag that left the sets once as ARCHIVED to an SDK that had it", async () => {
    const till = (await changes("since=-1&sets=web")).body.ff.t;
    await call("PATCH", defPath("web_only"), {
      body: [{ op: "replace", path: "/flagSets", value: [{ id: sets.mobile, type: "flag_set" }] }],
    });
    const next = await changes(`since=${till}&sets=web`);
    expect(names(next)).toEqual([["web_only", "ARCHIVED", []]]);
    expect(next.body.ff.t).toBeGreaterThan(till);
    await call("PATCH", defPath("web_only"), {
      body: [{ op: "replace", path: "/flagSets", value: [{ id: sets.web, type: "flag_set" }] }],
    });
  });

  it("the real SDK with a bySet filter gets only the flags of that set and evaluates them", async () => {
    const factory = SplitFactory({
      core: { authorizationKey: emu.sdkKey },
      urls: {
        sdk: `${emu.url}/api`,
        events: `${emu.url}/api`,
        auth: `${emu.url}/api`,
        telemetry: `${emu.url}/api`,
        streaming: emu.url,
      },
      sync: { splitFilters: [{ type: "bySet", values: ["web"] }] },
      streamingEnabled: false,
      startup: { readyTimeout: 10 },
      debug: false,
    });
    const client = factory.client();
    try {
      await client.whenReady();
      expect(factory.manager().names().sort()).toEqual(["both", "web_only"]);
      expect(factory.manager().split("both")?.sets).toEqual(["android", "mobile", "web"]);
      expect(client.getTreatment("someone", "web_only")).toBe("on");
      expect(client.getTreatment("someone", "both")).toBe("on");
      expect(client.getTreatment("someone", "mobile_only")).toBe("control");
      expect(client.getTreatment("someone", "no_set")).toBe("control");
      expect(client.getTreatmentsByFlagSet("someone", "web")).toEqual({ both: "on", web_only: "on" });
    } finally {
      await client.destroy();
    }
  });
});
