/**
 * Faults: against an emulator that answers a share of requests with 429, 500 or 503, drops
 * connections before and after acting on them, and adds latency, creating 100 mixed resources
 * (groups, user invites, flags, definitions, projects, connectors, pipelines) and then updating
 * them (in place and by replacement) converges to exactly the declared state: nothing missing, no
 * duplicate, no orphan, every field as declared. Failed steps are re-driven as a user runs
 * `pulumi up` again, a bounded number of times; once converged, another `up` changes nothing and a
 * refresh finds no drift.
 *
 * Each case prints its fault seed, also in its name. Replay one with
 * `FLAGSTACK_FAULT_SEEDS=<seed> npx vitest run test/reliability/faults.test.ts` (several: comma
 * separated). Steps run one at a time, so a seed replays the same faults on the same requests.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Emulator, type FaultConfigInput, startEmulator } from "../../emulator";
import type { Mode, ProviderHost } from "../provider/harness";
import { startProviderHost } from "../provider/harness";
import { type Declared, MiniEngine } from "./engine";
import { expectedSnapshot, liveSnapshot } from "./inventory";
import { configureDirect, drivers, stackConfig } from "./kinds";
import { declare, pipelineModel, programSpec } from "./program";
import { type Rule, type ScriptedProxy, startScriptedProxy } from "./scripted-proxy";

/** Runs of `up` allowed before a phase counts as not converging. */
const MAX_RUNS = 25;

/** The faults: about one request in nine fails in some way, and every request is slowed down. */
const faults = (seed: number): FaultConfigInput => ({
  rate429: 0.01,
  rate500: 0.03,
  rate503: 0.03,
  dropRate: 0.02,
  dropAfterRate: 0.02,
  latencyMs: 3,
  seed,
});

/** The seed every run of the suite replays, besides two fresh ones. */
const FIXED_SEED = 20261122;

function seeds(): number[] {
  const given = process.env.FLAGSTACK_FAULT_SEEDS;
  if (given) return given.split(",").map((s) => Number.parseInt(s.trim(), 10));
  // One fixed seed (the same faults on every run of the suite) and two new ones each time.
  const fresh = () => Math.floor(Math.random() * 2 ** 31);
  return [FIXED_SEED, fresh(), fresh()];
}

const cases = seeds().map((seed, i) => ({ seed, mode: (i % 3 === 1 ? "gRPC host" : "direct") as Mode }));

describe.each(cases)("faults, seed $seed ($mode)", ({ seed, mode }) => {
  let emu: Emulator;
  let host: ProviderHost | undefined;
  let engine: MiniEngine;
  let dir: string;
  let statePath: string;
  /** Resource ids once the first version converged. */
  const idsAfterCreate = new Map<string, string>();
  /** Requests by fault kind, over both phases. */
  const injected: Record<string, number> = {};
  const count = () => {
    for (const r of emu.requests()) if (r.fault) injected[r.fault] = (injected[r.fault] ?? 0) + 1;
    emu.resetRequests();
  };

  beforeAll(async () => {
    console.log(
      `faults: seed ${seed} (${mode}); replay with FLAGSTACK_FAULT_SEEDS=${seed} npx vitest run test/reliability/faults.test.ts`,
    );
    dir = mkdtempSync(join(tmpdir(), "flagstack-faults-"));
    statePath = join(dir, "state.json");
    emu = await startEmulator({ port: 0, statePath });
    const config = stackConfig(emu);
    configureDirect(config);
    if (mode === "gRPC host") {
      host = await startProviderHost();
      await host.configure(config);
    }
    engine = new MiniEngine(await drivers(mode, host));
  });
  afterAll(async () => {
    await host?.stop();
    await emu?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it(`creates 100 resources through the faults and converges exactly (seed ${seed})`, async () => {
    const v1 = programSpec("v1");
    const program = declare(v1);
    expect(program).toHaveLength(100);
    emu.setFaults(faults(seed));
    const runs = await engine.upUntilConverged(program, MAX_RUNS);
    emu.setFaults({});
    count();
    console.log(
      `faults: seed ${seed}: create converged in ${runs.length} run(s); failed steps per run: ${runs.map((r) => r.errors.length).join(", ")}`,
    );
    expect(engine.state.size).toBe(100);
    expect(engine.pendingDeletes).toEqual([]);
    expect(await liveSnapshot(emu, statePath)).toEqual(expectedSnapshot(v1));
    for (const s of engine.state.values()) idsAfterCreate.set(s.urn, s.id);
  }, 120_000);

  it(`updates them in place and by replacement through the faults and converges exactly (seed ${seed})`, async () => {
    const v2 = programSpec("v2");
    emu.setFaults(faults(seed + 1));
    const runs = await engine.upUntilConverged(declare(v2), MAX_RUNS);
    emu.setFaults({});
    count();
    console.log(
      `faults: seed ${seed}: update converged in ${runs.length} run(s); failed steps per run: ${runs.map((r) => r.errors.length).join(", ")}`,
    );
    // Replaced objects have new ids (a replacement cut short by a fault shows up as a create later).
    const changedIds = [...engine.state.values()]
      .filter((s) => idsAfterCreate.get(s.urn) !== s.id)
      .map((s) => s.urn);
    expect(changedIds.sort()).toEqual(["connector-5", "flag-20", "flag-21", "pipeline-15"]);
    expect(engine.state.size).toBe(100);
    expect(engine.pendingDeletes).toEqual([]);
    expect(await liveSnapshot(emu, statePath)).toEqual(expectedSnapshot(v2));
  }, 120_000);

  it("injected faults (every kind, for the fixed seed)", () => {
    console.log(`faults: seed ${seed}: requests answered with a fault: ${JSON.stringify(injected)}`);
    // A random seed may by chance skip a rare kind over a few hundred requests (2% drops: about
    // 1 run in 500); the fixed seed replays the same faults every time and must hit them all.
    const kinds = seed === FIXED_SEED ? ["429", "500", "503", "drop", "drop-after"] : ["500", "503"];
    for (const kind of kinds) {
      expect(injected[kind] ?? 0, `requests answered with fault ${kind}`).toBeGreaterThan(0);
    }
  });

  it("then another up changes nothing and writes nothing, and a refresh finds no drift", async () => {
    const program = declare(programSpec("v2"));
    emu.resetRequests();
    expect(await engine.up(program)).toEqual({ steps: [], errors: [] });
    expect(await engine.refresh()).toEqual({ gone: [], errors: [] });
    expect(await engine.up(program)).toEqual({ steps: [], errors: [] });
    expect(emu.requests().filter((r) => r.method !== "GET")).toEqual([]);
  }, 60_000);
});

/**
 * The worst moment for a fault: a create whose answer is lost (the service made the object), and
 * whose look-up by natural key then fails too. The object exists, the state does not know it: the
 * next `up` must still converge (find and take the object), never fail on "already exists" forever.
 */
describe("a create whose answer is lost at the worst moment", () => {
  let emu: Emulator;
  let proxy: ScriptedProxy;
  let engine: MiniEngine;

  beforeAll(async () => {
    emu = await startEmulator({ port: 0 });
    proxy = await startScriptedProxy(emu.url);
    configureDirect(
      stackConfig(emu, { "flagstack:adminApiUrl": proxy.url, "flagstack:platformApiUrl": proxy.url }),
    );
    engine = new MiniEngine(await drivers("direct"));
  });
  afterAll(async () => {
    await proxy?.stop();
    await emu?.stop();
  });

  const project = {
    urn: "project",
    kind: "Project",
    inputs: { identifier: "lost_proj", name: "Lost" },
    deps: [],
  };
  const flag = { urn: "flag", kind: "Flag", inputs: { workspace: "Default", name: "lost-flag" }, deps: [] };
  /** [kind, the program (the last resource is the one whose create is lost), create path, look-up path]. */
  const cases: [string, Declared[], RegExp, RegExp][] = [
    [
      "Group",
      [{ urn: "group", kind: "Group", inputs: { name: "lost-group" }, deps: [] }],
      /\/groups$/,
      /\/groups$/,
    ],
    [
      "UserInvite",
      [{ urn: "user", kind: "UserInvite", inputs: { email: "lost@example.test" }, deps: [] }],
      /\/users$/,
      /\/users$/,
    ],
    ["Flag", [flag], /\/trafficTypes\/user\/?$/, /\/splits\/ws\/[^/]+\/lost-flag$/],
    [
      "FlagDefinition",
      [
        flag,
        {
          urn: "definition",
          kind: "FlagDefinition",
          inputs: {
            workspace: "Default",
            flag: "lost-flag",
            environment: "Staging",
            treatments: [{ name: "on" }],
            defaultTreatment: "on",
          },
          deps: ["flag"],
        },
      ],
      /\/lost-flag\/environments\/[^/]+$/,
      /\/environments\/[^/]+$/,
    ],
    ["Project", [project], /\/ng\/api\/projects$/, /\/ng\/api\/projects\/lost_proj$/],
    [
      "Connector",
      [
        project,
        {
          urn: "connector",
          kind: "Connector",
          inputs: {
            org: "default",
            project: "lost_proj",
            identifier: "lost_registry",
            name: "Lost registry",
            dockerRegistry: { url: "https://r.example.test", providerType: "Quay" },
          },
          deps: ["project"],
        },
      ],
      /\/ng\/api\/connectors$/,
      /\/ng\/api\/connectors\/lost_registry$/,
    ],
    [
      "Pipeline",
      [
        project,
        {
          urn: "pipeline",
          kind: "Pipeline",
          inputs: { project: "lost_proj", pipeline: pipelineModel("lost_pipe", "echo") },
          deps: ["project"],
        },
      ],
      /\/pipelines\/v2$/,
      /\/pipelines\/lost_pipe$/,
    ],
  ];

  /** Applies the program with `rules` on its last create; the next up must converge, then nothing is left to do. */
  async function convergesAfter(program: Declared[], rules: Rule[]): Promise<void> {
    // Everything before the last resource exists already.
    expect((await engine.up(program.slice(0, -1))).errors).toEqual([]);
    proxy.script(...rules);
    // The first up may report the create as failed (it could not tell), or find the object itself.
    await engine.up(program);
    expect(proxy.pending()).toEqual([]);
    expect((await engine.up(program)).errors).toEqual([]);
    expect(await engine.up(program)).toEqual({ steps: [], errors: [] });
    // Clean up for the next case: delete everything through the engine.
    expect((await engine.up([])).errors).toEqual([]);
  }

  it.each(cases)(
    "%s: answer lost, then the look-up fails with 500",
    async (_kind, program, createPath, lookupPath) => {
      await convergesAfter(program, [
        { method: "POST", path: createPath, action: { lose: true } },
        { method: "GET", path: lookupPath, action: { status: 500 } },
      ]);
    },
  );

  it.each(cases)(
    "%s: a 500 before acting, then the answer of the second create lost",
    async (_kind, program, createPath) => {
      await convergesAfter(program, [
        { method: "POST", path: createPath, action: { status: 500 } },
        { method: "POST", path: createPath, action: { lose: true } },
      ]);
    },
  );
});
