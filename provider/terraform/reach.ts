/**
 * Who a change reaches, in the plan itself: `PlanResourceChange` of a flag definition that changes
 * answers a warning saying the share of its traffic the change moves and the individual targets
 * that move (`sdk/split/impact.ts`, the same computation as `flagstack impact`), so `tofu plan`
 * shows it beside the diff. Said only where it is exact and needs nothing the provider does not
 * have at plan time (it sends no request): a definition whose rules read neither the key itself nor
 * another flag. Segment members and dependent flags are measured by `flagstack impact` on the saved
 * plan, which the detail names. A definition that moves nothing gets no warning, so an unchanged
 * or cosmetic plan stays quiet.
 * @module
 */

import type { FlagToEvaluate } from "../../sdk/split/evaluate";
import { measureImpact } from "../../sdk/split/impact";
import { samplePopulation } from "../../sdk/split/population";
import { desiredDoc, FlagDefinitionInputs } from "../flags/flag-definition";
import { definitionsByEnvironment } from "../flags/flag-definitions";

/** The sample the warning's counts are over (its shares are exact). */
const POPULATION = samplePopulation(2_000);

const INPUT_KEYS = Object.keys(FlagDefinitionInputs.shape);

/** A definition's document from its recorded outputs or its checked inputs, or undefined. */
function flagOf(props: Record<string, unknown>): FlagToEvaluate | undefined {
  const picked: Record<string, unknown> = {};
  for (const k of INPUT_KEYS) if (props[k] !== undefined && props[k] !== null) picked[k] = props[k];
  // What a treatment serves does not depend on its configurations (text in the outputs).
  if (Array.isArray(picked.treatments))
    picked.treatments = picked.treatments.map((t) => {
      const { configurations: _, ...rest } = t as Record<string, unknown>;
      return rest;
    });
  const parsed = FlagDefinitionInputs.safeParse(picked);
  if (!parsed.success) return undefined;
  const i = parsed.data;
  return {
    flagName: i.flag,
    environment: i.environment,
    trafficTypeName: "user",
    definition: { ...(desiredDoc(i) as unknown as FlagToEvaluate["definition"]), killed: i.killed },
  };
}

const percent = (n: number) => `${Number(n.toFixed(2))}%`;

/**
 * The warning for a flag definition's planned update, from its recorded outputs (`olds`) to its
 * checked inputs (`news`); undefined when nothing moves or the shift is not exact at plan time.
 */
export async function reachWarning(
  olds: Record<string, unknown>,
  news: Record<string, unknown>,
): Promise<{ summary: string; detail: string } | undefined> {
  const before = flagOf(olds);
  const after = flagOf(news);
  if (before === undefined || after === undefined || before.flagName !== after.flagName) return undefined;
  const [r] = await measureImpact(
    {
      environment: after.environment ?? "",
      before: { flags: [before], segments: {} },
      after: { flags: [after], segments: {} },
      flags: [{ name: after.flagName, change: "updated" }],
    },
    POPULATION,
  );
  if (r === undefined || r.method !== "exact" || (r.transitions.length === 0 && r.moved.length === 0))
    return undefined;
  const moves = r.transitions.map((t) => `${t.from} → ${t.to} ${percent(t.share)}`).join(", ");
  const targets = r.moved.filter((m) => m.labels?.[0] === "whitelisted" || m.labels?.[1] === "whitelisted");
  return {
    summary: `flag "${r.flag}" in environment "${r.environment}": this change moves ${percent(r.shift)} of its traffic`,
    detail: [
      moves
        ? `${moves}, exact: counted over ${r.basis}, whatever seeds the service picked.`
        : "No share of its traffic moves.",
      targets.length > 0
        ? `Individual targets that move: ${targets.map((m) => `${m.key} ${m.from} → ${m.to}`).join(", ")}.`
        : "",
      "Segment members, and flags that depend on this one, are measured on the saved plan: `tofu show -json <planfile> > plan.json`, then `npx flagstack impact plan.json`.",
    ]
      .filter((line) => line !== "")
      .join("\n"),
  };
}

/**
 * The warnings for a planned update of a flag's definitions in several environments
 * (`flagstack_flag_definitions`): one per environment whose definition changes and moves traffic,
 * each environment's recorded definition paired with the program's by its key, or by the
 * environment's id or name the state recorded under another key.
 */
export async function reachWarnings(
  olds: Record<string, unknown>,
  news: Record<string, unknown>,
): Promise<{ summary: string; detail: string }[]> {
  if (olds.definitions === undefined) {
    const one = await reachWarning(olds, news);
    return one === undefined ? [] : [one];
  }
  const before = [...definitionsByEnvironment(olds)];
  const pairs = [...definitionsByEnvironment(news)].flatMap(([key, after]) => {
    const old =
      before.find(([k]) => k === key) ??
      before.find(([, b]) => b.environmentId === key || b.environmentName === key);
    return old === undefined ? [] : [[old[1], after] as const];
  });
  const warnings = await Promise.all(pairs.map(([b, a]) => reachWarning(b, a)));
  return warnings.filter((w) => w !== undefined);
}
