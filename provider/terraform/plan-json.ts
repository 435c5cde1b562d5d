/**
 * The JSON of a saved Terraform or OpenTofu plan (`tofu show -json <planfile>`), the parts
 * flagstack reads, as zod schemas (https://opentofu.org/docs/internals/json-format/), and a
 * resource's planned value with what is not known until apply marked: one reader of a plan for the
 * policy pack on a plan (`../../policy/plan.ts`) and `flagstack terraform recover` (`./recover.ts`).
 * @module
 */
import { z } from "zod";
import { setOwn } from "../../sdk/core/data-record";
import { isUnknown, UNKNOWN_VALUE } from "./msgpack";
import type { TfValue } from "./values";

/** A module's configuration: its resource blocks, and the modules it calls. */
export interface ModuleConfig {
  resources?: ResourceConfig[] | undefined;
  module_calls?: Record<string, { module?: ModuleConfig | undefined }> | undefined;
}

/** One resource block of the configuration: the attributes it sets are the keys of `expressions`. */
export const ResourceConfig = z.looseObject({
  address: z.string(),
  mode: z.string(),
  type: z.string(),
  name: z.string(),
  expressions: z.record(z.string(), z.unknown()).optional(),
});
export type ResourceConfig = z.output<typeof ResourceConfig>;

export const ModuleConfig: z.ZodType<ModuleConfig> = z.lazy(() =>
  z.looseObject({
    resources: z.array(ResourceConfig).optional(),
    module_calls: z.record(z.string(), z.looseObject({ module: ModuleConfig.optional() })).optional(),
  }),
);

/** An expression of the configuration: a constant, or what it refers to. */
export const PlanExpression = z.looseObject({
  constant_value: z.unknown().optional(),
  references: z.array(z.string()).optional(),
});
export type PlanExpression = z.output<typeof PlanExpression>;

/** A provider block of the configuration. */
export const ProviderConfig = z.looseObject({
  name: z.string().optional(),
  alias: z.string().optional(),
  expressions: z.record(z.string(), PlanExpression).optional(),
});

/** One planned change of one resource instance. */
export const ResourceChange = z.looseObject({
  /** The instance's address: `module.app.flagstack_flag.checkout["eu"]`. */
  address: z.string(),
  /** The module instance it is in (`module.app["eu"]`), absent in the root module. */
  module_address: z.string().optional(),
  mode: z.string(),
  type: z.string(),
  name: z.string(),
  /** Set for a deposed object (a replaced instance awaiting its delete). */
  deposed: z.string().optional(),
  change: z.looseObject({
    actions: z.array(z.string()),
    /** The prior value (the refreshed state); null when the plan creates the instance. */
    before: z.unknown().optional(),
    /** The planned value; null when the plan deletes the instance. Unknown members are left out. */
    after: z.unknown().optional(),
    /** The shape of `after` with `true` where a value is not known until apply. */
    after_unknown: z.unknown().optional(),
    /** Present when an `import` block imports the instance in this plan. */
    importing: z.looseObject({ id: z.string().optional() }).optional(),
  }),
});
export type ResourceChange = z.output<typeof ResourceChange>;

/** The JSON of a saved plan. */
export const TerraformPlan = z.looseObject({
  format_version: z.string(),
  terraform_version: z.string().optional(),
  resource_changes: z.array(ResourceChange, {
    error: (issue) =>
      issue.input === undefined
        ? "no resource_changes: give the JSON of a saved plan (tofu show -json <planfile>), not of a state"
        : undefined,
  }),
  /** The root module's variables, as the plan set them. */
  variables: z.record(z.string(), z.looseObject({ value: z.unknown().optional() })).optional(),
  configuration: z
    .looseObject({
      root_module: ModuleConfig.optional(),
      /** Each provider block: its arguments' expressions (a constant, or what they refer to). */
      provider_config: z.record(z.string(), ProviderConfig).optional(),
    })
    .optional(),
  errored: z.boolean().optional(),
});
export type TerraformPlan = z.output<typeof TerraformPlan>;

/** The plan's JSON, parsed and checked; an Error naming each field at fault (a state's JSON is not a plan). */
export function parsePlan(json: unknown): TerraformPlan {
  const parsed = TerraformPlan.safeParse(json);
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues.map((i) => `${z.core.toDotPath(i.path) || "(plan)"}: ${i.message}`);
  throw new Error(`not the JSON of a Terraform plan: ${issues.join("; ")}`);
}

/** A JSON object (not an array, not Terraform's unknown value). */
export const isPlanRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v) && !isUnknown(v);

/**
 * The Terraform form of a planned value: `after` with every value `after_unknown` marks as not
 * known yet (`true`) as the Terraform door's unknown value (the plan leaves those out of `after`
 * inside objects, and nulls them inside lists).
 */
export function plannedValue(after: unknown, unknown: unknown): TfValue {
  if (unknown === true) return UNKNOWN_VALUE;
  if (Array.isArray(unknown) && Array.isArray(after)) return after.map((v, i) => plannedValue(v, unknown[i]));
  if (isPlanRecord(unknown) && isPlanRecord(after)) {
    const out: Record<string, TfValue> = {};
    for (const key of new Set([...Object.keys(after), ...Object.keys(unknown)]))
      setOwn<TfValue>(out, key, plannedValue(after[key] ?? null, unknown[key]));
    return out;
  }
  return (after ?? null) as TfValue;
}
