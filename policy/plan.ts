/**
 * A Terraform plan as the policies read it: the JSON of a saved plan (`tofu show -json <planfile>`,
 * `terraform show -json <planfile>`) turned into {@link PolicyTarget}s, each flagstack resource the
 * plan keeps with the inputs its kind's `check` reads, as the Pulumi engine hands the pack a
 * resource's inputs. The naming is the Terraform door's (`provider/terraform/schema.ts`: resource
 * type `flagstack_<kind>`, snake_case attributes; `provider/terraform/values.ts`: the Terraform form
 * of a value to the provider's), so an input reads here as the provider plans and applies it.
 *
 * Which inputs: the attributes the configuration sets (the plan's `configuration`, one entry per
 * resource block, its `expressions`), with their planned values (`after`). An input the
 * configuration leaves out is not given, as a Pulumi program that leaves it out gives none: the
 * provider's `check` applies its default, as it does when it plans (the plan's `after` shows that
 * default, or the service's value on an update, which the provider does not manage). Outputs that
 * are no input are read as planned when they are known (a stack policy reads a definition's
 * resolved environment name from them, as from a stack's outputs).
 *
 * Values not known until apply (`after_unknown`: a reference to another resource's computed
 * attribute) are the provider's `UNKNOWN` sentinel, which its `check` tolerates, exactly what the
 * pack's readers make of a value unknown during a Pulumi preview (`./resources.ts`): a policy that
 * needs one cannot run on that resource, and says so (`./plan-check.ts`).
 *
 * What is left out: data sources, resources the plan deletes (no `after`) and deposed objects;
 * resources of other providers; a `flagstack_` type this version does not know is listed in
 * {@link PlanRead}'s `unknownTypes`.
 * The plan's JSON is read by the Terraform door's reader of plans (`provider/terraform/plan-json.ts`,
 * which `flagstack terraform recover` reads with too).
 * @module
 */

import { UNKNOWN } from "../provider/core/check";
import type { Kind } from "../provider/core/kind";
import { KIND_LIST } from "../provider/kinds";
import { isUnknown } from "../provider/terraform/msgpack";
import {
  isPlanRecord,
  parsePlan,
  plannedValue,
  type ResourceChange,
  type ResourceConfig,
  type TerraformPlan,
} from "../provider/terraform/plan-json";
import {
  type PackageSchemaPart,
  readPackageSchema,
  resourceSchema,
  resourceTypeName,
  type TfResource,
} from "../provider/terraform/schema";
import { type TfValue, toProvider } from "../provider/terraform/values";
import { setOwn } from "../sdk/core/data-record";
import type { PolicyTarget } from "./common";
import type { ChangeTarget } from "./impact";

// ---------------------------------------------------------------------------------------------
// Reading

/** A flagstack resource of a plan, as the policies read it. */
export interface PlanResource extends PolicyTarget {
  /** The kind (`FlagDefinition`) its type names. */
  kind: Kind;
  /** The Terraform resource type: `flagstack_flag_definition`. */
  typeName: string;
  /** The plan's actions for it: `["create"]`, `["update"]`, `["no-op"]`, `["delete", "create"]`. */
  actions: string[];
  /** The inputs (Terraform names) whose value, or part of it, is not known until apply. */
  unknown: string[];
}

/** What {@link readPlan} finds in a plan. */
export interface PlanRead {
  /** The flagstack resources the plan keeps, in the plan's order. */
  resources: PlanResource[];
  /** `flagstack_` resource types this version of flagstack does not know (a newer provider's). */
  unknownTypes: string[];
}

/** The kinds by Terraform resource type: `flagstack_flag` → Flag. */
const KIND_BY_TYPE: ReadonlyMap<string, Kind> = new Map(KIND_LIST.map((k) => [resourceTypeName(k.name), k]));

const isRecord = isPlanRecord;

/** The value with every Terraform unknown, also inside a `dynamic` attribute's value, as the provider's sentinel. */
function withSentinel(value: unknown): unknown {
  if (isUnknown(value)) return UNKNOWN;
  if (Array.isArray(value)) return value.map(withSentinel);
  if (isRecord(value)) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) setOwn(out, k, withSentinel(v));
    return out;
  }
  return value;
}

/** True when a Terraform value is, or holds, a value not known yet. */
const holdsUnknown = (value: unknown): boolean =>
  isUnknown(value) ||
  (Array.isArray(value)
    ? value.some(holdsUnknown)
    : isRecord(value) && Object.values(value).some(holdsUnknown));

/**
 * The module names of a module instance's address, its instance keys set aside (the configuration
 * has one block for every instance): `module.app["eu"].module.flags[0]` → `["app", "flags"]`.
 */
export function modulePath(moduleAddress: string | undefined): string[] {
  const names: string[] = [];
  const re = /module\.([^.[\]]+)(?:\[(?:"(?:[^"\\]|\\.)*"|\d+)\])?(?:\.|$)/y;
  let at = 0;
  while (moduleAddress !== undefined && at < moduleAddress.length) {
    re.lastIndex = at;
    const m = re.exec(moduleAddress);
    if (m === null) throw new Error(`not a module address: ${moduleAddress}`);
    names.push(m[1]!);
    at = re.lastIndex;
  }
  return names;
}

/** The configuration block of a resource change, or undefined when the plan holds none for it. */
function configOf(plan: TerraformPlan, rc: ResourceChange): ResourceConfig | undefined {
  let module = plan.configuration?.root_module;
  for (const name of modulePath(rc.module_address)) module = module?.module_calls?.[name]?.module;
  return module?.resources?.find((r) => r.mode === rc.mode && r.type === rc.type && r.name === rc.name);
}

/** Reads the flagstack resources of a plan's JSON (parsed); throws naming what is not a plan. */
export function readPlan(json: unknown, schema: PackageSchemaPart = readPackageSchema()): PlanRead {
  const plan = parsePlan(json);
  const schemas = new Map<string, TfResource>();
  const resources: PlanResource[] = [];
  const unknownTypes = new Set<string>();
  for (const rc of plan.resource_changes) {
    if (rc.mode !== "managed" || rc.deposed !== undefined || !isRecord(rc.change.after)) continue;
    if (!rc.type.startsWith("flagstack_")) continue;
    const kind = KIND_BY_TYPE.get(rc.type);
    if (kind === undefined) {
      unknownTypes.add(rc.type);
      continue;
    }
    let tf = schemas.get(rc.type);
    if (tf === undefined) {
      tf = resourceSchema(kind, schema);
      schemas.set(rc.type, tf);
    }
    const read = planResource(rc, tf, configOf(plan, rc));
    resources.push({ ...read, before: priorProps(rc, tf, read.props) });
  }
  return { resources, unknownTypes: [...unknownTypes] };
}

/** One resource change as the policies read it (see the module's comment). */
export function planResource(
  rc: ResourceChange,
  tf: TfResource,
  config: ResourceConfig | undefined,
): PlanResource {
  const after = rc.change.after as Record<string, unknown>;
  const afterUnknown = isRecord(rc.change.after_unknown) ? rc.change.after_unknown : {};
  const inputs = new Set(Object.keys(tf.kind.resource.inputs.shape));
  const set = config === undefined ? undefined : new Set(Object.keys(config.expressions ?? {}));
  const props: Record<string, unknown> = {};
  const unknown: string[] = [];
  for (const a of tf.attributes) {
    if (a.name === "id") continue;
    const value = plannedValue(after[a.name] ?? null, afterUnknown[a.name]);
    const isInput = inputs.has(a.key);
    if (isInput) {
      // What the configuration leaves out is not given (its check default applies). Without the
      // configuration, an input decided by the apply as a whole is taken as left out.
      if (set !== undefined ? !set.has(a.name) : a.computed && isUnknown(value)) continue;
      if (holdsUnknown(value)) unknown.push(a.name);
    } else if (holdsUnknown(value)) continue;
    const provider = withSentinel(toProvider(value, a.type, UNKNOWN));
    if (provider !== undefined) props[a.key] = provider;
  }
  return {
    type: tf.kind.token,
    props,
    address: rc.address,
    kind: tf.kind,
    typeName: tf.typeName,
    actions: rc.change.actions,
    unknown,
  };
}

/**
 * A resource's props before the change: its prior state (`change.before`, every attribute known)
 * read as outputs are; the planned props when the plan leaves it as it is (it serves the same on
 * both sides); null when the plan creates it.
 */
function priorProps(
  rc: ResourceChange,
  tf: TfResource,
  planned: Record<string, unknown> | undefined,
): Record<string, unknown> | null {
  const actions = rc.change.actions;
  if (actions.length === 1 && (actions[0] === "no-op" || actions[0] === "read") && planned) return planned;
  const before = rc.change.before;
  if (!isRecord(before)) return null;
  const props: Record<string, unknown> = {};
  for (const a of tf.attributes) {
    const value = before[a.name];
    if (a.name === "id" || value === undefined || value === null) continue;
    const provider = toProvider(value as TfValue, a.type, UNKNOWN);
    if (provider !== undefined) props[a.key] = provider;
  }
  return props;
}

/**
 * Every flagstack resource of a plan on both sides, for measuring who a change reaches
 * (`./impact.ts`): `before` from the prior state (the plan's `change.before`, every attribute known,
 * read as outputs are), `after` as {@link planResource} reads it; a resource the plan creates has no
 * `before`, one it deletes no `after`. Unchanged resources are included: their definitions and
 * segments are what the changed ones evaluate with.
 */
export function readPlanChanges(
  json: unknown,
  schema: PackageSchemaPart = readPackageSchema(),
): ChangeTarget[] {
  const plan = parsePlan(json);
  const out: ChangeTarget[] = [];
  for (const rc of plan.resource_changes) {
    if (rc.mode !== "managed" || rc.deposed !== undefined) continue;
    const kind = KIND_BY_TYPE.get(rc.type);
    if (kind === undefined) continue;
    const tf = resourceSchema(kind, schema);
    const after = isRecord(rc.change.after) ? planResource(rc, tf, configOf(plan, rc)).props : undefined;
    out.push({
      address: rc.address,
      type: kind.token,
      before: priorProps(rc, tf, after) ?? undefined,
      after,
    });
  }
  return out;
}
