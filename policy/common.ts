/**
 * Helpers shared by the policies: configuration from zod schemas (the JSON schema the engine
 * validates with and the defaults both come from one schema), production-environment matching
 * and message formatting.
 * @module
 */
import type {
  PolicyConfigSchema,
  PolicyResource,
  ReportViolation,
  ResourceValidationArgs,
  ResourceValidationPolicy,
  StackValidationArgs,
  StackValidationPolicy,
} from "@pulumi/policy";
import { z } from "zod";
import { type DefinitionView, isType } from "./resources";

/**
 * The `configSchema` of a policy, derived from its zod config schema (draft-07, as input: a field
 * with a default is optional). The pack's config file is validated against it by the engine.
 */
export function configSchemaOf(schema: z.ZodObject): PolicyConfigSchema {
  const json = z.toJSONSchema(schema, { target: "draft-7", io: "input" }) as {
    properties?: PolicyConfigSchema["properties"];
    required?: string[];
  };
  return { properties: json.properties ?? {}, ...(json.required?.length ? { required: json.required } : {}) };
}

/**
 * Reads a policy's config with its defaults applied. A bad config throws an error naming the
 * policy and the field, which the engine reports as a failure of that policy.
 */
export function readConfig<S extends z.ZodObject>(
  policy: string,
  schema: S,
  args: { getConfig<T extends object>(): T },
): z.output<S> {
  const parsed = schema.safeParse(args.getConfig<object>() ?? {});
  if (parsed.success) return parsed.data;
  // zod's own path format: `expectations[0]`, `segments["beta testers"]`.
  const issues = parsed.error.issues
    .map((i) => `${z.core.toDotPath(i.path) || "(config)"}: ${i.message}`)
    .join("; ");
  throw new Error(`invalid config of policy ${policy}: ${issues}`);
}

/** What a policy declares beside its check and its config. */
type PolicyInfo = Pick<ResourceValidationPolicy, "name" | "description" | "enforcementLevel" | "severity">;

/**
 * A resource policy with a zod config: its `configSchema` comes from `config`
 * ({@link configSchemaOf}), and `validate` runs for each resource `select` picks (undefined passes
 * it over) with the config read under the policy's name ({@link readConfig}) once picked, so a bad
 * config fails the policy only where it has something to check.
 */
export function resourcePolicy<S extends z.ZodObject, T>(
  info: PolicyInfo & {
    config: S;
    select(args: ResourceValidationArgs): T | undefined | Promise<T | undefined>;
  },
  validate: (target: T, config: z.output<S>, report: ReportViolation) => void | Promise<void>,
): ResourceValidationPolicy {
  const { config, select, ...policy } = info;
  return {
    ...policy,
    configSchema: configSchemaOf(config),
    validateResource: async (args, report) => {
      const target = await select(args);
      if (target === undefined) return;
      await validate(target, readConfig(policy.name, config, args), report);
    },
  };
}

/** A `select` of {@link resourcePolicy}: the props of the resources of one kind (a `TYPES` value). */
export const propsOf =
  (kind: string) =>
  (args: ResourceValidationArgs): Record<string, unknown> | undefined =>
    isType(args.type, kind) ? args.props : undefined;

/**
 * A stack policy with a zod config: its `configSchema` comes from `config` ({@link configSchemaOf}),
 * and `validate` gets the config read under the policy's name ({@link readConfig}).
 */
export function stackPolicy<S extends z.ZodObject>(
  info: PolicyInfo & { config: S },
  validate: (args: StackValidationArgs, config: z.output<S>, report: ReportViolation) => void | Promise<void>,
): StackValidationPolicy {
  const { config, ...policy } = info;
  return {
    ...policy,
    configSchema: configSchemaOf(config),
    validateStack: async (args, report) => validate(args, readConfig(policy.name, config, args), report),
  };
}

/** The views of the stack's resources of one kind (a `TYPES` value), read together. */
export function readAll<V>(
  resources: readonly PolicyResource[],
  kind: string,
  read: (props: Record<string, unknown>) => Promise<V>,
): Promise<V[]> {
  return Promise.all(resources.filter((r) => isType(r.type, kind)).map((r) => read(r.props)));
}

/** Each resource of one kind with its view, read one after the other, in the stack's order. */
export async function* eachOf<V>(
  resources: readonly PolicyResource[],
  kind: string,
  read: (props: Record<string, unknown>) => Promise<V>,
): AsyncGenerator<{ urn: string; view: V }> {
  for (const r of resources) if (isType(r.type, kind)) yield { urn: r.urn, view: await read(r.props) };
}

/** Environments treated as production when a policy's config does not say. */
export const DEFAULT_PRODUCTION_ENVIRONMENTS = ["Production"];

/** The `productionEnvironments` config field shared by the definition policies. */
export const ProductionEnvironments = z
  .array(z.string().min(1))
  .default(DEFAULT_PRODUCTION_ENVIRONMENTS)
  .describe("Environment names or ids that are production (compared without regard to case).");

/** True when a definition's environment (by name or id) is in the configured list. */
export function inEnvironments(
  view: Pick<DefinitionView, "environmentNames">,
  environments: readonly string[],
): boolean {
  const wanted = new Set(environments.map((e) => e.toLowerCase()));
  return view.environmentNames.some((n) => wanted.has(n.toLowerCase()));
}

/** Case-insensitive membership, for names users type into config (statuses, environments). */
export const includesName = (names: readonly string[], name: string | undefined): boolean =>
  name !== undefined && names.some((n) => n.toLowerCase() === name.toLowerCase());

/** `flag "new-checkout" in environment "Production"`: how messages name a definition. */
export function definitionLabel(view: Pick<DefinitionView, "flagName" | "environment">): string {
  return `flag "${view.flagName ?? "?"}" in environment "${view.environment ?? "?"}"`;
}

/** A percentage for messages: at most two decimals, no trailing zeros. */
export const percent = (n: number): string => `${Number(n.toFixed(2))}%`;
