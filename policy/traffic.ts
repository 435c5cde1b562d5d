/**
 * max-traffic-shift: a change to a production definition moves at most a configured share of its
 * traffic (keys whose treatment changes between two treatments), as measured by who-a-change-
 * reaches (`./impact.ts`, `sdk/split/impact.ts`) over the configured population; optionally at most
 * a number of the keys targeting names.
 *
 * Where the state before the change comes from: a Terraform plan holds it (`flagstack policy
 * check`); the Pulumi engine hands a policy none, so in a preview the pack reads each production
 * definition as the service serves it now (`./live.ts`), with the provider's settings from the
 * policy's environment (`FLAGSTACK_ADMIN_API_URL`, `FLAGSTACK_ADMIN_API_KEY`).
 * @module
 */
import { z } from "zod";
import { readPopulationFile, samplePopulation } from "../sdk/split/population";
import { inEnvironments, ProductionEnvironments, percent, stackPolicy } from "./common";
import { type ChangeTarget, overLimit, planImpact, shareText, splitDefinitions } from "./impact";
import { withLiveBefore } from "./live";

/** The settings of max-traffic-shift, also read by `flagstack impact --config`. */
export const TrafficShiftConfig = z.object({
  maxShiftPercent: z
    .number()
    .min(0)
    .max(100)
    .default(10)
    .describe("The largest share of traffic (percent) one change may move in a production environment."),
  maxNamedKeys: z
    .number()
    .int()
    .min(0)
    .optional()
    .describe(
      "The most keys named by targeting (targets, segment members) one change may move (default: no limit).",
    ),
  productionEnvironments: ProductionEnvironments,
  sampleSize: z
    .number()
    .int()
    .min(1)
    .max(1_000_000)
    .default(10_000)
    .describe("Keys sampled when no keysFile is given."),
  keyPrefix: z.string().default("key-").describe("Prefix of the sampled keys."),
  keysFile: z
    .string()
    .min(1)
    .optional()
    .describe(
      "A file of real keys (.csv with a key column, or .jsonl of {key, attributes}) to measure over instead of a sample.",
    ),
});
export type TrafficShiftConfig = z.output<typeof TrafficShiftConfig>;

/** The population the settings name. */
export const populationOf = (c: TrafficShiftConfig) =>
  c.keysFile !== undefined ? readPopulationFile(c.keysFile) : samplePopulation(c.sampleSize, c.keyPrefix);

export const maxTrafficShift = stackPolicy(
  {
    name: "max-traffic-shift",
    description:
      "A change to a production flag definition moves at most maxShiftPercent of its traffic to another treatment (and at most maxNamedKeys targeted keys), as the real feature-flag SDK evaluates it before and after.",
    enforcementLevel: "mandatory",
    severity: "high",
    config: TrafficShiftConfig,
  },
  async (resources, config, report) => {
    const production = (_: string, view: Parameters<typeof inEnvironments>[0]) =>
      inEnvironments(view, config.productionEnvironments);
    // A FlagDefinitions is measured per environment, each read live like a FlagDefinition.
    const targets: ChangeTarget[] = splitDefinitions(
      resources.map((r) => ({
        address: r.address,
        type: r.type,
        before: r.before === null ? undefined : r.before,
        after: r.props,
        beforeKnown: r.before !== undefined,
      })),
      true,
    );
    const impact = await planImpact(await withLiveBefore(targets, production), populationOf(config), {
      only: production,
      throwUnknown: true,
    });
    for (const f of overLimit(impact, () => config.maxShiftPercent)) {
      const moves = f.transitions
        .filter((t) => t.from !== "control" && t.to !== "control")
        .map((t) => `${t.from} → ${t.to} ${shareText(t.share, t.error)}`)
        .join(", ");
      report(
        `flag "${f.flag}" in environment "${f.environment}" (${f.change}) moves ${shareText(f.shift, f.shiftError)} of its traffic (${moves}; ${f.method}, over ${f.basis}), more than maxShiftPercent ${percent(config.maxShiftPercent)}`,
        f.address,
      );
    }
    if (config.maxNamedKeys !== undefined) {
      for (const f of impact.flags.filter((x) => x.moved.length > config.maxNamedKeys!)) {
        const some = f.moved
          .slice(0, 5)
          .map((m) => `${m.key} ${m.from} → ${m.to}`)
          .join(", ");
        report(
          `flag "${f.flag}" in environment "${f.environment}" (${f.change}) moves ${f.moved.length} of the keys targeting names (${some}${f.moved.length > 5 ? ", ..." : ""}), more than maxNamedKeys ${config.maxNamedKeys}`,
          f.address,
        );
      }
    }
  },
);
