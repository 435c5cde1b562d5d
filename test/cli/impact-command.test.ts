/**
 * `flagstack impact <plan.json>` (cli/impact-command.ts): either door's JSON, `--format`,
 * `--max-shift` per environment or for all and its exit status, the population from `--config`
 * (max-traffic-shift's settings) overridden by `--sample-size`, `--keys`; unreadable input exits 2
 * naming it; the built command where `@pulumi/*` is not installed (a Terraform-only install).
 */
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { parseMaxShift, runImpact } from "../../cli/impact-command";
import { fakeIo } from "./fake-io";
import { NO_PULUMI_HOOK } from "./no-pulumi";

const state = (on: number, extra: Record<string, unknown> = {}) => ({
  workspace: "Default",
  flag: "checkout",
  environment: "Production",
  treatments: [{ name: "on" }, { name: "off" }],
  default_treatment: "off",
  default_rule: [
    { treatment: "on", size: on },
    { treatment: "off", size: 100 - on },
  ],
  rules: [],
  traffic_allocation: 100,
  killed: false,
  ...extra,
});
/** A Terraform plan ramping `checkout` in Production from 10% to 25%, and in Staging from 0% to 80%. */
const PLAN = JSON.stringify({
  format_version: "1.2",
  resource_changes: [
    ["prod", "Production", 10, 25],
    ["stage", "Staging", 0, 80],
  ].map(([name, environment, from, to]) => ({
    address: `flagstack_flag_definition.${name}`,
    mode: "managed",
    type: "flagstack_flag_definition",
    name,
    change: {
      actions: ["update"],
      before: state(from as number, { environment }),
      after: state(to as number, { environment }),
      after_unknown: {},
    },
  })),
});

const io = fakeIo;

describe("flagstack impact", () => {
  it("prints each environment's changes and exits 0 without a limit", async () => {
    const { fake, written } = io({ "plan.json": PLAN });
    expect(await runImpact("plan.json", { sampleSize: 2000 }, fake)).toBe(0);
    expect(written.err).toBe("");
    expect(written.out).toContain(
      "Production (workspace Default)\n  checkout: updated, moves 15% (exact, over the 100 buckets)\n",
    );
    expect(written.out).toContain(
      "Staging (workspace Default)\n  checkout: updated, moves 80% (exact, over the 100 buckets)\n",
    );
    expect(written.out).toContain("Population: 2,000 sampled keys");
  });

  it("--max-shift: per environment, for all, and the exit status", async () => {
    const { fake, written } = io({ "plan.json": PLAN });
    expect(await runImpact("plan.json", { maxShift: ["Production=20"], format: "json" }, fake)).toBe(0);
    const report = JSON.parse(written.out) as { flags: { environment: string; shift: number }[] };
    expect(report.flags.map((f) => [f.environment, f.shift])).toEqual([
      ["Production", 15],
      ["Staging", 80],
    ]);
    const over = io({ "plan.json": PLAN });
    expect(await runImpact("plan.json", { maxShift: ["10", "staging=90"] }, over.fake)).toBe(1);
    expect(over.written.err).toBe(
      'flagstack impact: flag "checkout" in environment "Production" moves 15% of its traffic, more than --max-shift 10%\n',
    );
    expect(parseMaxShift(["12.5", "Production=5"])).toEqual(
      new Map([
        ["*", 12.5],
        ["production", 5],
      ]),
    );
    expect(() => parseMaxShift(["lots"])).toThrow(
      "--max-shift lots: give a percent (0-100), or ENVIRONMENT=PERCENT",
    );
  });

  it("the population from --config, --keys over it; bad input exits 2 naming it", async () => {
    const config = JSON.stringify({ "max-traffic-shift": { sampleSize: 500, keyPrefix: "u-" } });
    const a = io({ "plan.json": PLAN, "cfg.json": config });
    expect(await runImpact("plan.json", { config: "cfg.json", format: "markdown" }, a.fake)).toBe(0);
    expect(a.written.out).toContain("_Population: 500 sampled keys; shares are of keys no target names._");
    const bad = io({
      "plan.json": PLAN,
      "cfg.json": JSON.stringify({ "max-traffic-shift": { sampleSize: 0 } }),
    });
    expect(await runImpact("plan.json", { config: "cfg.json" }, bad.fake)).toBe(2);
    expect(bad.written.err).toBe(
      "flagstack impact: invalid config of policy max-traffic-shift: sampleSize: Too small: expected number to be >=1\n",
    );
    const notJson = io({ "plan.json": "{" });
    expect(await runImpact("plan.json", {}, notJson.fake)).toBe(2);
    expect(notJson.written.err).toMatch(
      /^flagstack impact: plan\.json is not JSON \(.*\): give `tofu show -json <planfile>`/,
    );
    const stdin = io({}, PLAN);
    expect(await runImpact("-", { sampleSize: 100 }, stdin.fake)).toBe(0);
    expect(stdin.written.out).toContain("moves 80%");
  });

  it("runs where @pulumi/* is not installed, from a keys file", async () => {
    const dir = mkdtempSync(join(tmpdir(), "flagstack-impact-cli-"));
    try {
      writeFileSync(join(dir, "no-pulumi.cjs"), NO_PULUMI_HOOK);
      writeFileSync(join(dir, "plan.json"), PLAN);
      writeFileSync(
        join(dir, "keys.jsonl"),
        `${Array.from({ length: 300 }, (_, i) => JSON.stringify({ key: `k${i}` })).join("\n")}\n`,
      );
      const { stdout, stderr } = await promisify(execFile)(process.execPath, [
        "-r",
        join(dir, "no-pulumi.cjs"),
        join(__dirname, "..", "..", "bin", "flagstack.js"),
        "impact",
        join(dir, "plan.json"),
        "--keys",
        join(dir, "keys.jsonl"),
      ]);
      expect(stderr).toBe("");
      expect(stdout).toContain("Population: 300 keys of keys.jsonl");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
