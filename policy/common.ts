/**
 * Helpers shared by the policies: each policy's door-independent core ({@link PolicyCore}: its check
 * on {@link PolicyTarget}s, which the pack's `validateResource` / `validateStack` wrap and the
 * Terraform plan checker calls), configuration from zod schemas (the JSON schema the engine
 * validates with and the defaults both come from one schema), production-environment matching
 * and message formatting.
 * @module
 */
import type { PolicyConfigSchema, ResourceValidationPolicy, StackValidationPolicy } from "@pulumi/policy";
import { z } from "zod";
import { type DefinitionView, holdsDefinitions, isType, readDefinitions } from "./resources";

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

/**
 * A resource as the policies read it, from either door: its type token, its props (the checked
 * inputs the engine hands a policy, or the inputs read from a Terraform plan, a value not known yet
 * as the provider's `UNKNOWN` sentinel) and how its door names it.
 */
export interface PolicyTarget {
  /** The type token, of either Pulumi family (`pulumi-nodejs:dynamic/flagstack:Flag`, `flagstack:index:Flag`). */
  type: string;
  /** The resource's props: the engine's (which throw for a value unknown during a preview) or plain data. */
  props: Record<string, unknown>;
  /** How its door names it: the URN in a Pulumi stack, the address in a Terraform plan. */
  address: string;
  /**
   * Its props before the change, where the door knows them: a Terraform plan's prior state (null:
   * the plan creates it). Undefined in a Pulumi stack, whose engine hands a policy no prior state.
   */
  before?: Record<string, unknown> | null | undefined;
}

/** How a policy's check reports a violation: its message, and the resource it is about when a stack policy names one. */
export type Report = (message: string, address?: string) => void;

/** What a policy declares beside its check: name, description, level, severity, and its zod config. */
export interface PolicyInfo
  extends Pick<ResourceValidationPolicy, "name" | "description" | "enforcementLevel" | "severity"> {
  /** The settings of the policy-pack config under the policy's name (none: no settings). */
  config?: z.ZodObject | undefined;
}

/**
 * A policy's door-independent core: what it checks, run on {@link PolicyTarget}s with the raw
 * settings of the policy-pack config under its name (read through its zod `config`, defaults
 * applied: {@link readConfig}). The pack's `validateResource` / `validateStack` wrap it
 * ({@link resourcePolicy}, {@link stackPolicy}), and the Terraform plan checker (`./plan-check.ts`)
 * calls it on the resources of a plan.
 */
export type PolicyCore = ResourcePolicyCore | StackPolicyCore;

/** The core of a resource policy: run on each resource, it reports about that resource. */
export interface ResourcePolicyCore extends PolicyInfo {
  scope: "resource";
  check(resource: PolicyTarget, settings: object, report: (message: string) => void): Promise<void>;
}

/** The core of a stack policy: run once on every resource, it reports naming the resource when there is one. */
export interface StackPolicyCore extends PolicyInfo {
  scope: "stack";
  check(resources: readonly PolicyTarget[], settings: object, report: Report): Promise<void>;
}

/** A resource policy of the pack, with the core it wraps. */
export type FlagstackResourcePolicy = ResourceValidationPolicy & { readonly core: ResourcePolicyCore };
/** A stack policy of the pack, with the core it wraps. */
export type FlagstackStackPolicy = StackValidationPolicy & { readonly core: StackPolicyCore };
/** A policy of the pack, with the core it wraps. */
export type FlagstackPolicy = FlagstackResourcePolicy | FlagstackStackPolicy;

/** The fields of the `@pulumi/policy` policy of a core: its info, and the JSON schema of its config. */
function pulumiInfo(info: PolicyInfo) {
  const { config, ...policy } = info;
  return { ...policy, ...(config ? { configSchema: configSchemaOf(config) } : {}) };
}

/** The settings read through a policy's config schema, or `{}` when it has none. */
const settingsOf = <S extends z.ZodObject | undefined>(
  info: PolicyInfo & { config?: S },
  settings: object,
): S extends z.ZodObject ? z.output<S> : Record<string, never> =>
  (info.config
    ? readConfig(info.name, info.config, { getConfig: <T extends object>() => settings as T })
    : {}) as S extends z.ZodObject ? z.output<S> : Record<string, never>;

/**
 * A resource policy with an optional zod config: `validate` runs for each resource `select` picks
 * (undefined passes it over) with the config read under the policy's name ({@link readConfig}) once
 * picked, so a bad config fails the policy only where it has something to check. Returns the
 * pack's policy (`configSchema` from `config`, {@link configSchemaOf}) carrying its core.
 */
export function resourcePolicy<S extends z.ZodObject | undefined, T>(
  info: PolicyInfo & {
    config?: S;
    select(resource: PolicyTarget): T | undefined | Promise<T | undefined>;
  },
  validate: (
    target: T,
    config: S extends z.ZodObject ? z.output<S> : Record<string, never>,
    report: (message: string) => void,
  ) => void | Promise<void>,
): FlagstackResourcePolicy {
  const { select, ...rest } = info;
  const core: ResourcePolicyCore = {
    ...rest,
    scope: "resource",
    check: async (resource, settings, report) => {
      const target = await select(resource);
      if (target === undefined) return;
      await validate(target, settingsOf(rest, settings), report);
    },
  };
  return {
    ...pulumiInfo(rest),
    validateResource: (args, report) =>
      core.check({ type: args.type, props: args.props, address: args.urn }, args.getConfig(), (m) =>
        report(m),
      ),
    core,
  };
}

/** A `select` of {@link resourcePolicy}: the props of the resources of one kind (a `TYPES` value). */
export const propsOf =
  (kind: string) =>
  (resource: PolicyTarget): Record<string, unknown> | undefined =>
    isType(resource.type, kind) ? resource.props : undefined;

/**
 * A stack policy with an optional zod config: `validate` gets every resource and the config read
 * under the policy's name ({@link readConfig}). Returns the pack's policy (`configSchema` from
 * `config`, {@link configSchemaOf}) carrying its core; a report naming a resource names it by its
 * URN for the engine.
 */
export function stackPolicy<S extends z.ZodObject | undefined>(
  info: PolicyInfo & { config?: S },
  validate: (
    resources: readonly PolicyTarget[],
    config: S extends z.ZodObject ? z.output<S> : Record<string, never>,
    report: Report,
  ) => void | Promise<void>,
): FlagstackStackPolicy {
  const core: StackPolicyCore = {
    ...info,
    scope: "stack",
    check: async (resources, settings, report) => validate(resources, settingsOf(info, settings), report),
  };
  return {
    ...pulumiInfo(info),
    validateStack: (args, report) =>
      core.check(
        args.resources.map((r) => ({ type: r.type, props: r.props, address: r.urn })),
        args.getConfig(),
        (message, address) => report(message, address),
      ),
    core,
  };
}

/** The views of the stack's resources of one kind (a `TYPES` value), read together. */
export function readAll<V>(
  resources: readonly PolicyTarget[],
  kind: string,
  read: (props: Record<string, unknown>) => Promise<V>,
): Promise<V[]> {
  return Promise.all(resources.filter((r) => isType(r.type, kind)).map((r) => read(r.props)));
}

/** Each resource of one kind with its view, read one after the other, in the stack's order. */
export async function* eachOf<V>(
  resources: readonly PolicyTarget[],
  kind: string,
  read: (props: Record<string, unknown>) => Promise<V>,
): AsyncGenerator<{ address: string; view: V }> {
  for (const r of resources)
    if (isType(r.type, kind)) yield { address: r.address, view: await read(r.props) };
}

/**
 * Each flag definition of the stack with the address of the resource holding it, in the stack's
 * order: a FlagDefinition's, and each environment's of a FlagDefinitions ({@link readDefinitions}).
 */
export async function* eachDefinition(
  resources: readonly PolicyTarget[],
): AsyncGenerator<{ address: string; view: DefinitionView }> {
  for (const r of resources) for (const view of await readDefinitions(r)) yield { address: r.address, view };
}

/** A `select` of {@link resourcePolicy}: a resource holding flag definitions (one, or one per environment). */
export const definitionHolder = (resource: PolicyTarget): PolicyTarget | undefined =>
  holdsDefinitions(resource.type) ? resource : undefined;

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
