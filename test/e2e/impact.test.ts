/**
 * Who a change reaches, at both doors (issue 36). The same objects (test/e2e/declared.ts), applied
 * as set A, then planned as set B, once by a Pulumi stack (`pulumi preview --json`) and once by an
 * OpenTofu configuration (`tofu show -json <planfile>`): ramp up and down, a kill, an allocation cut,
 * a new IN_SEGMENT rule, a segment member added and removed, a rule moved above another, an
 * individual target removed, a definition created and one deleted.
 * - `flagstack impact` gives the same table for both plans;
 * - what it computes equals what the real SDK serves from the emulator before and after
 *   `tofu apply`, key by key over the population and the named keys (the served splits and
 *   segments loaded into the SDK; the report computed with the served seeds);
 * - max-traffic-shift (limit 20%) blocks the 40% allocation cut and passes the rest, in
 *   `pulumi preview --policy-pack` and in `flagstack policy check` on the plan;
 * - `--max-shift` exits 1 naming the flag, and the markdown report is a table per environment.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import type { EngineEvent } from "@pulumi/pulumi/automation";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ImpactReport, planImpact } from "../../policy/impact";
import { readPlanChanges } from "../../policy/plan";
import { OfflineEvaluator } from "../../sdk/split/evaluate";
import type { Population } from "../../sdk/split/impact";
import { samplingError } from "../../sdk/split/impact";
import { readPopulationFile, samplePopulation } from "../../sdk/split/population";
import type { SdkSplit } from "../../sdk/split/schemas";
import { type Declared, hclOf } from "./declared";
import { EngineStack, REPO_ROOT, writeJson } from "./harness";
import { PROVIDER_HCL, TofuDir } from "./tofu";

const run = promisify(execFile);
const CLI = join(REPO_ROOT, "bin", "flagstack.js");
const POLICY_PACK = join(REPO_ROOT, "policy");
const WS = "Default";
const ENV = "Production";

const onOff = (on: number) => [
  { treatment: "on", size: on },
  { treatment: "off", size: 100 - on },
];
const rule = (segment: string, treatment: string) => ({
  condition: { combiner: "AND", matchers: [{ type: "IN_SEGMENT", string: { $ref: `seg_${segment}.name` } }] },
  buckets: [{ treatment, size: 100 }],
});

/** Set A (before) or B (after). */
function objects(after: boolean): Declared[] {
  const flag = (name: string): Declared => ({
    kind: "Flag",
    name: `f_${name}`,
    args: { workspace: WS, name: `im-${name}` },
  });
  const segment = (name: string): Declared => ({
    kind: "Segment",
    name: `seg_${name}`,
    args: { workspace: WS, name },
  });
  const members = (name: string, keys: string[]): Declared => ({
    kind: "SegmentKeys",
    name: `keys_${name}`,
    args: { workspace: WS, environment: ENV, segment: { $ref: `seg_${name}.name` }, keys },
  });
  const def = (name: string, args: Record<string, unknown>): Declared => ({
    kind: "FlagDefinition",
    name: `d_${name}`,
    args: {
      workspace: WS,
      flag: { $ref: `f_${name}.name` },
      environment: ENV,
      treatments: [{ name: "on" }, { name: "off" }],
      defaultTreatment: "off",
      ...args,
    },
  });
  const flags = [
    "ramp",
    "down",
    "kill",
    "restore",
    "alloc",
    "seg",
    "attr",
    "beta",
    "order",
    after ? "new" : "old",
  ];
  return [
    ...flags.map(flag),
    ...["enterprise", "beta", "s1", "s2"].map(segment),
    members("enterprise", ["e1", "e2", "e3"]),
    members("beta", after ? ["a", "c"] : ["a", "b"]),
    members("s1", ["x", "both"]),
    members("s2", ["y", "both"]),
    def("ramp", {
      treatments: [{ name: "on", ...(after ? {} : { keys: ["qa-bot"] }) }, { name: "off" }],
      defaultRule: onOff(after ? 25 : 10),
    }),
    def("down", { defaultRule: onOff(after ? 20 : 35) }),
    def("kill", { defaultRule: onOff(10), killed: after }),
    def("restore", { defaultRule: onOff(20), killed: !after }),
    def("alloc", { defaultRule: onOff(100), trafficAllocation: after ? 60 : 100 }),
    def("attr", {
      rules: after
        ? [
            {
              condition: {
                combiner: "AND",
                matchers: [{ type: "IN_LIST_STRING", attribute: "plan", strings: ["enterprise"] }],
              },
              buckets: [{ treatment: "on", size: 100 }],
            },
          ]
        : [],
    }),
    def("seg", { rules: after ? [rule("enterprise", "on")] : [] }),
    def("beta", { treatments: [{ name: "on", segments: [{ $ref: "seg_beta.name" }] }, { name: "off" }] }),
    def("order", {
      rules: after ? [rule("s2", "off"), rule("s1", "on")] : [rule("s1", "on"), rule("s2", "off")],
    }),
    after ? def("new", { defaultRule: onOff(50) }) : def("old", { defaultRule: onOff(50) }),
  ];
}

const CONFIG = { "max-traffic-shift": { maxShiftPercent: 20 } };

/** The report without what differs between the doors (addresses), for comparing them. */
const table = (r: ImpactReport) =>
  r.flags.map(({ address: _, ...f }) => f).sort((a, b) => a.flag.localeCompare(b.flag));

async function impactJson(plan: string): Promise<ImpactReport> {
  const { stdout } = await run(process.execPath, [CLI, "impact", plan, "--format", "json"]);
  return JSON.parse(stdout) as ImpactReport;
}

/** What the emulator serves the SDK of Production now: its splits and the members of the segments. */
async function served(url: string, sdkKey: string) {
  const get = async (path: string) => {
    const r = await fetch(`${url}${path}`, { headers: { authorization: `Bearer ${sdkKey}` } });
    expect(r.status).toBe(200);
    return r.json() as Promise<Record<string, unknown>>;
  };
  const changes = (await get("/api/splitChanges?s=1.3&since=-1")) as { ff: { d: SdkSplit[] } };
  const splits = changes.ff.d.filter((s) => s.status === "ACTIVE" && s.name.startsWith("im-"));
  const segments: Record<string, string[]> = {};
  for (const name of ["enterprise", "beta", "s1", "s2"]) {
    const body = (await get(`/api/segmentChanges/${name}?since=-1`)) as { added: string[] };
    segments[name] = body.added;
  }
  return { splits, segments };
}

describe("flagstack impact: the same table from both doors, equal to what the SDK serves", () => {
  let s: EngineStack;
  let t: TofuDir;
  let config: string;
  let pulumiReport: ImpactReport;
  let tofuReport: ImpactReport;
  let previewFile: string;
  let plainReport: ImpactReport;

  beforeAll(async () => {
    s = await EngineStack.open({ program: "test/e2e/programs/policy-check" });
    config = writeJson(s.dir, "policy-config.json", CONFIG);
    await s.setSpec(objects(false));
    await s.up();
    await s.setSpec(objects(true));
    const { stdout } = await s.cli(["preview", "--json", "--show-sames"]);
    previewFile = writeJson(s.dir, "preview.json", JSON.parse(stdout));
    pulumiReport = await impactJson(previewFile);
    const plain = await s.cli(["preview", "--json"]);
    plainReport = await impactJson(writeJson(s.dir, "preview-plain.json", JSON.parse(plain.stdout)));
  }, 300_000);
  afterAll(async () => {
    t?.close();
    await s?.close();
  });

  it("pulumi preview --json: each change with its exact share and its named keys", () => {
    const rows = Object.fromEntries(
      pulumiReport.flags.map((f) => [
        f.flag,
        [
          f.change,
          f.method,
          f.shift,
          f.transitions.map((x) => `${x.from}>${x.to} ${x.share}`),
          f.moved.map((m) => `${m.key} ${m.from}>${m.to}`),
        ],
      ]),
    );
    expect(rows).toEqual({
      "im-ramp": ["updated", "exact", 15, ["off>on 15"], expect.arrayContaining([])],
      "im-down": ["updated", "exact", 15, ["on>off 15"], []],
      "im-kill": ["killed", "exact", 10, ["on>off 10"], []],
      "im-alloc": ["updated", "exact", 40, ["on>off 40"], []],
      "im-seg": ["updated", "exact", 0, [], ["e1 off>on", "e2 off>on", "e3 off>on"]],
      "im-beta": ['members of "beta"', "exact", 0, [], ["b on>off", "c off>on"]],
      "im-order": ["updated", "exact", 0, [], ["both on>off"]],
      "im-restore": ["restored", "exact", 20, ["off>on 20"], []],
      "im-new": ["created", "exact", 0, ["control>off 50", "control>on 50"], []],
      "im-old": ["deleted", "exact", 0, ["off>control 50", "on>control 50"], []],
    });
    // Without --show-sames the preview lists no unchanged segment or definition: said, not guessed.
    expect(plainReport.notes).toEqual([
      "the preview lists no unchanged resource: run `pulumi preview --json --show-sames`, so that changes reaching through an unchanged definition or segment (members added to a segment a definition targets, a flag others depend on) are measured",
    ]);
    expect(pulumiReport.notes).toEqual([]);
    // A rule on an attribute no sampled key carries moves none of them (a keys file does, below).
    expect(pulumiReport.quiet).toEqual([
      { workspace: "Default", environment: "Production", flag: "im-attr", change: "updated" },
    ]);
    // qa-bot was an individual target on "on"; now it takes the default rule (on or off by its bucket).
    const qa = pulumiReport.flags.find((f) => f.flag === "im-ramp")!.moved;
    expect(qa.every((m) => m.key === "qa-bot" && m.from === "on" && m.labels?.[0] === "whitelisted")).toBe(
      true,
    );
  });

  it("the OpenTofu plan of the same objects gives the same table", async () => {
    await s.destroy();
    t = TofuDir.open(s.emu);
    t.write(`${PROVIDER_HCL}\n${hclOf(objects(false))}`);
    expect((await t.tf(["init", "-input=false"])).code).toBe(0);
    const applyA = await t.tf(["apply", "-input=false", "-auto-approve"]);
    expect(applyA.code, applyA.out).toBe(0);
    t.write(`${PROVIDER_HCL}\n${hclOf(objects(true))}`);
    rmSync(join(t.dir, "tfplan"), { force: true });
    const plan = await t.tf(["plan", "-input=false", "-out", "tfplan"]);
    expect(plan.code, plan.out).toBe(0);
    // The plan itself says it for each definition whose shift it knows exactly, and only for those.
    const warnings = [...plan.out.matchAll(/^Warning: (flag "im-[^\n]*)$/gm)].map((m) => m[1]).sort();
    expect(warnings).toEqual([
      'flag "im-alloc" in environment "Production": this change moves 40% of its traffic',
      'flag "im-down" in environment "Production": this change moves 15% of its traffic',
      'flag "im-kill" in environment "Production": this change moves 10% of its traffic',
      'flag "im-ramp" in environment "Production": this change moves 15% of its traffic',
      'flag "im-restore" in environment "Production": this change moves 20% of its traffic',
    ]);
    const show = await t.tf(["show", "-json", "tfplan"]);
    writeJson(t.dir, "plan.json", JSON.parse(show.out));
    tofuReport = await impactJson(join(t.dir, "plan.json"));
    expect(table(tofuReport)).toEqual(table(pulumiReport));
    expect(tofuReport.flags.find((f) => f.flag === "im-alloc")!.address).toBe(
      "flagstack_flag_definition.d_alloc",
    );
  }, 300_000);

  it("equals, key by key, what the real SDK is served by the emulator before and after the apply", async () => {
    const before = await served(s.emu.url, s.emu.sdkKey);
    const population = samplePopulation(10_000);
    const plan = JSON.parse((await t.tf(["show", "-json", "tfplan"])).out);
    const apply = await t.tf(["apply", "-input=false", "-auto-approve", "tfplan"]);
    expect(apply.code, apply.out).toBe(0);
    const after = await served(s.emu.url, s.emu.sdkKey);
    // The seeds served (a created flag's are known once it is): the sample placed as the SDK places it.
    const seeds = new Map(
      [...after.splits, ...before.splits].map((x) => [
        x.name,
        { seed: x.seed, trafficAllocationSeed: x.trafficAllocationSeed },
      ]),
    );
    // The emulator keeps each definition's seeds across updates (ref wire §2 item 5).
    for (const x of before.splits) {
      const kept = after.splits.find((y) => y.name === x.name);
      if (kept) expect([kept.seed, kept.trafficAllocationSeed]).toEqual([x.seed, x.trafficAllocationSeed]);
    }
    // The keys each flag's targeting names (before or after); another flag's named keys are in
    // neither its sample nor its list.
    const NAMED: Record<string, string[]> = {
      "im-ramp": ["qa-bot"],
      "im-seg": ["e1", "e2", "e3"],
      "im-beta": ["a", "b", "c"],
      "im-order": ["x", "y", "both"],
    };
    const named = Object.values(NAMED).flat();
    const evBefore = OfflineEvaluator.fromSplits(before.splits, { segments: before.segments });
    const evAfter = OfflineEvaluator.fromSplits(after.splits, { segments: after.segments });

    /** The report over a population, held key by key to what the SDK is served before and after. */
    async function compare(pop: Population): Promise<ImpactReport> {
      const report = await planImpact(readPlanChanges(plan), pop, { seeds: (_, flag) => seeds.get(flag) });
      const keys = [...pop.keys, ...named];
      const attributesOf = (k: string) => pop.attributes?.get(k);
      const flags = report.flags.map((f) => f.flag);
      const [tb, ta] = await Promise.all([
        evBefore.treatmentsOf(flags, keys, attributesOf),
        evAfter.treatmentsOf(flags, keys, attributesOf),
      ]);
      for (const f of report.flags) {
        const cells: Record<string, number> = {};
        const moved: string[] = [];
        keys.forEach((k, i) => {
          const from = tb.get(f.flag)![i]!;
          const to = ta.get(f.flag)![i]!;
          if (from === to) return;
          if (NAMED[f.flag]?.includes(k)) moved.push(`${k} ${from}>${to}`);
          else if (named.includes(k)) return;
          else cells[`${from}>${to}`] = (cells[`${from}>${to}`] ?? 0) + 1;
        });
        expect([f.flag, Object.fromEntries(f.transitions.map((x) => [`${x.from}>${x.to}`, x.keys]))]).toEqual(
          [f.flag, cells],
        );
        expect([f.flag, f.moved.map((m) => `${m.key} ${m.from}>${m.to}`).sort()]).toEqual([
          f.flag,
          moved.sort(),
        ]);
        // A share is what the population sees: exactly when sampled, within its 95% error when exact.
        const n = pop.keys.length;
        for (const x of f.transitions) {
          const seen = ((cells[`${x.from}>${x.to}`] ?? 0) / n) * 100;
          if (f.method === "sampled") expect(seen).toBeCloseTo(x.share, 6);
          else expect(Math.abs(seen - x.share)).toBeLessThan(samplingError(x.share / 100, n) * 2 + 1e-9);
        }
      }
      return report;
    }

    try {
      const sampled = await compare(population);
      expect(sampled.flags.every((f) => f.method === "exact")).toBe(true);
      // Real keys with attributes (every fourth on the enterprise plan): the SDK judges each key.
      const dir = mkdtempSync(join(tmpdir(), "flagstack-impact-keys-"));
      const file = join(dir, "keys.jsonl");
      writeFileSync(
        file,
        Array.from({ length: 2000 }, (_, i) =>
          JSON.stringify({ key: `user-${i}`, attributes: { plan: i % 4 === 0 ? "enterprise" : "free" } }),
        ).join("\n"),
      );
      const real = await compare(readPopulationFile(file));
      const attr = real.flags.find((f) => f.flag === "im-attr")!;
      expect([attr.method, attr.transitions.map((x) => [x.from, x.to, x.share, x.keys])]).toEqual([
        "sampled",
        [["off", "on", 25, 500]],
      ]);
      rmSync(dir, { recursive: true, force: true });
    } finally {
      await Promise.all([evBefore.destroy(), evAfter.destroy()]);
    }
  }, 300_000);

  it("max-traffic-shift blocks the 40% cut and passes the rest at both doors; --max-shift exits 1", async () => {
    // Terraform: a plan of set B over A again (apply A, plan B).
    t.write(`${PROVIDER_HCL}\n${hclOf(objects(false))}`);
    expect((await t.tf(["apply", "-input=false", "-auto-approve"])).code).toBe(0);
    t.write(`${PROVIDER_HCL}\n${hclOf(objects(true))}`);
    rmSync(join(t.dir, "tfplan"), { force: true });
    expect((await t.tf(["plan", "-input=false", "-out", "tfplan"])).code).toBe(0);
    writeJson(t.dir, "plan.json", JSON.parse((await t.tf(["show", "-json", "tfplan"])).out));
    const planFile = join(t.dir, "plan.json");
    const check = await run(process.execPath, [
      CLI,
      "policy",
      "check",
      planFile,
      "--config",
      config,
      "--format",
      "json",
    ]).catch((e: { code: number; stdout: string }) => e);
    const findings = (
      JSON.parse(check.stdout) as { violations: { policy: string; address?: string; message: string }[] }
    ).violations.filter((v) => v.policy === "max-traffic-shift");
    expect(findings.map((v) => v.address)).toEqual(["flagstack_flag_definition.d_alloc"]);
    expect(findings[0]!.message).toBe(
      'flag "im-alloc" in environment "Production" (updated) moves 40% of its traffic (on → off 40%; exact, over the 10,000 bucket pairs (treatment and allocation)), more than maxShiftPercent 20%',
    );

    const cli = await run(process.execPath, [
      CLI,
      "impact",
      planFile,
      "--max-shift",
      "Production=20",
      "--format",
      "markdown",
    ]).catch((e: { code: number; stdout: string; stderr: string }) => e);
    expect((cli as { code?: number }).code).toBe(1);
    expect(cli.stderr).toBe(
      'flagstack impact: flag "im-alloc" in environment "Production" moves 40% of its traffic, more than --max-shift 20%\n',
    );
    expect(cli.stdout).toContain(
      "### Production (workspace Default)\n\n| flag | change | moves | from → to | method |\n|---|---|---|---|---|\n",
    );
    expect(cli.stdout).toContain(
      "| `im-alloc` | updated | **40%** | on → off: 40% | exact, over the 10,000 bucket pairs (treatment and allocation) |",
    );
    const under = await run(process.execPath, [CLI, "impact", planFile, "--max-shift", "40"]);
    expect(under.stderr).toBe("");

    // Pulumi: tofu's objects go, the stack's set A comes back, and the pack reads the service.
    expect((await t.tf(["destroy", "-input=false", "-auto-approve"])).code).toBe(0);
    await s.setSpec(objects(false));
    await s.up();
    await s.setSpec(objects(true));
    // The engine hands a policy no prior state: the pack reads the service, with the settings of
    // the environment it runs in (the harness blanks them for the program; they are set here).
    const env = s.stack.workspace.envVars;
    Object.assign(env, { FLAGSTACK_ADMIN_API_URL: s.emu.url, FLAGSTACK_ADMIN_API_KEY: s.emu.adminKey });
    const events: EngineEvent[] = [];
    let passed = true;
    try {
      await s.preview({
        policyPacks: [POLICY_PACK],
        policyPackConfigs: [config],
        onEvent: (e) => events.push(e),
      });
    } catch {
      passed = false;
    } finally {
      Object.assign(env, { FLAGSTACK_ADMIN_API_URL: "", FLAGSTACK_ADMIN_API_KEY: "" });
    }
    const shift = events.flatMap((e) =>
      e.policyEvent?.policyName === "max-traffic-shift" ? [e.policyEvent] : [],
    );
    const diagnostics = events.flatMap((e) => (e.diagnosticEvent ? [e.diagnosticEvent.message] : []));
    expect(
      shift.map((p) => [p.enforcementLevel, p.resourceUrn?.slice(p.resourceUrn.lastIndexOf("::") + 2)]),
      diagnostics.join("\n"),
    ).toEqual([["mandatory", "d_alloc"]]);
    expect(shift[0]!.message).toContain(
      'flag "im-alloc" in environment "Production" (updated) moves 40% of its traffic (on → off 40%; exact, over the 10,000 bucket pairs (treatment and allocation)), more than maxShiftPercent 20%',
    );
    expect(passed).toBe(false);
  }, 600_000);
});
