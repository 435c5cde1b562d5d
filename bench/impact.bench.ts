/**
 * Who a change reaches (`policy/impact.ts` over `sdk/split/impact.ts`), as `flagstack impact` runs
 * it on a plan, from the plan's resources to the report, with the default population (10,000
 * sampled keys):
 *
 * - `impact_1_definition_ms`: a plan changing one definition (a ramp from 10% to 25%, one
 *   individual target removed) among the bench workload's 600 definitions (200 flags in
 *   Production, Staging and Development, the rest unchanged); median of 5 (goal: well under a
 *   second).
 * - `impact_600_definitions_seconds`: the same plan changing all 600 definitions; median of 3
 *   (1 in a quick run); goal ≤ 10 s.
 * - `impact_60_sampled_seconds`: 60 of them changed where the SDK must evaluate each key (a rule
 *   on the key itself), over 2,000 sampled keys: the cost of the sampled path (the real SDK
 *   client, some 25 µs per key, flag and side).
 * @module
 */
import { type ChangeTarget, planImpact } from "../policy/impact";
import { samplePopulation } from "../sdk/split/population";
import type { BenchContext } from "./run";

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

const ENVIRONMENTS = ["Production", "Staging", "Development"];

/** A definition's props as a plan holds them. */
function props(flag: string, environment: string, on: number, keyRule: boolean): Record<string, unknown> {
  return {
    workspace: "Default",
    flag,
    environment,
    treatments: [{ name: "on", ...(on === 10 ? { keys: ["qa-bot"] } : {}) }, { name: "off" }],
    defaultTreatment: "off",
    rules: keyRule
      ? [
          {
            condition: { combiner: "AND", matchers: [{ type: "STARTS_WITH_STRING", strings: ["key-1"] }] },
            buckets: [{ treatment: "on", size: 100 }],
          },
        ]
      : [],
    defaultRule: [
      { treatment: "on", size: on },
      { treatment: "off", size: 100 - on },
    ],
  };
}

/** The 600 definitions, the first `changed` of them ramped from 10% to 25%. */
function plan(changed: number, keyRule = false): ChangeTarget[] {
  // keyRule: each definition also has a rule on the key itself, which only the SDK can judge.
  const out: ChangeTarget[] = [];
  for (let f = 0; f < 200; f++) {
    for (const env of ENVIRONMENTS) {
      const i = out.length;
      const flag = `bench-flag-${f}`;
      out.push({
        address: `flagstack_flag_definition.d["${flag}/${env}"]`,
        type: "flagstack:index:FlagDefinition",
        before: props(flag, env, 10, keyRule),
        after: props(flag, env, i < changed ? 25 : 10, keyRule),
      });
    }
  }
  return out;
}

async function time(fn: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await fn();
  return performance.now() - started;
}

/** Runs the impact benchmark. */
export async function run({ quick, log }: BenchContext): Promise<Record<string, number>> {
  const population = samplePopulation();
  const one = plan(1);
  const all = plan(600);
  const check = await planImpact(all, population);
  if (check.flags.length !== 600 || check.flags.some((f) => f.shift !== 15))
    throw new Error("the 600 ramps did not each move 15%");
  const ones: number[] = [];
  for (let i = 0; i < 5; i++) ones.push(await time(() => planImpact(one, population)));
  log(`impact of 1 definition: ${ones.map((t) => t.toFixed(0)).join(", ")} ms`);
  const alls: number[] = [];
  for (let i = 0; i < (quick ? 1 : 3); i++) alls.push(await time(() => planImpact(all, population)));
  log(`impact of 600 definitions: ${alls.map((t) => (t / 1000).toFixed(2)).join(", ")} s`);
  const sampled = await time(() => planImpact(plan(60, true), samplePopulation(2_000)));
  log(`impact of 60 definitions, sampled by the SDK over 2,000 keys: ${(sampled / 1000).toFixed(2)} s`);
  return {
    impact_1_definition_ms: Math.round(median(ones)),
    impact_600_definitions_seconds: Number((median(alls) / 1000).toFixed(2)),
    impact_60_sampled_seconds: Number((sampled / 1000).toFixed(2)),
  };
}
