/**
 * The pack's policies on a Terraform plan (`flagstack policy check <plan.json>`): the same cores
 * the pack's `validateResource` / `validateStack` wrap (`./common.ts`, {@link policyCores}), run on
 * the flagstack resources of the plan (`./plan.ts`), with the pack's config file in the format
 * `pulumi preview --policy-pack-config` takes ({@link readPolicyPackConfig}).
 *
 * As the Pulumi engine runs them: a resource policy on each resource, a stack policy once on every
 * resource; a policy `disabled` in the config is not run, `remediate` is `mandatory` (nothing is
 * remediated here); a policy that needs a value not known until apply cannot run on it and says so
 * as an advisory finding, as the engine says "can't run policy ... during preview". A mandatory
 * violation fails the check, an advisory one is a warning. Each violation names the resource by
 * its address (`flagstack_flag_definition.checkout_prod`); a stack policy's finding about no
 * resource (an expectation on a flag the plan has no definition of) names none.
 * @module
 */
import { z } from "zod";
import { snakeCase } from "../provider/terraform/schema";
import { type PolicyCore, type PolicyTarget, readConfig } from "./common";
import { type PlanRead, readPlan } from "./plan";
import { POLICY_PACK_NAME, policyCores } from "./policies";
import { isUnknownValueError, nameProps } from "./resources";

// ---------------------------------------------------------------------------------------------
// The config file

/** A policy's enforcement level in the config file (Pulumi's `apitype.EnforcementLevel`). */
export const EnforcementLevel = z.enum(["advisory", "mandatory", "remediate", "disabled"]);
export type EnforcementLevel = z.output<typeof EnforcementLevel>;

/**
 * The pack's config file, as `pulumi preview --policy-pack-config` reads it: by policy name, its
 * level (`"flag-naming": "mandatory"`) or its settings (`{"enforcementLevel": "...", ...settings}`);
 * `all` sets every policy's level, which a policy's own entry overrides. The levels are checked by
 * {@link readPolicyPackConfig}, which names the entry.
 */
export const PolicyPackConfigFile = z.record(
  z.string(),
  z.union([z.string(), z.looseObject({ enforcementLevel: z.string().optional() })], {
    error: (issue) =>
      `an entry is a policy's enforcement level or an object of its settings, not ${JSON.stringify(issue.input)}`,
  }),
);
export type PolicyPackConfigFile = z.output<typeof PolicyPackConfigFile>;

/** One policy as the config file sets it up: its level, and its settings (its zod config reads them). */
export interface PolicySetup {
  enforcementLevel: EnforcementLevel;
  settings: Record<string, unknown>;
}

/** What {@link readPolicyPackConfig} makes of a config file. */
export interface PolicyPackConfig {
  /** Each policy of the pack, by name. */
  policies: Map<string, PolicySetup>;
  /** Entries naming no policy of the pack (the engine ignores them too). */
  ignored: string[];
}

/**
 * The setup of every policy of `cores` from a config file's JSON (undefined: no file): defaults
 * first, then `all`'s level, then each policy's own entry; each policy's settings are then read
 * through its zod config, so a bad setting fails here, before any resource is read, naming the
 * policy and the field in zod's path format (`invalid config of policy flag-naming: pattern: ...`).
 */
export function readPolicyPackConfig(
  json: unknown,
  cores: readonly PolicyCore[] = policyCores,
): PolicyPackConfig {
  const parsed = PolicyPackConfigFile.safeParse(json ?? {});
  if (!parsed.success) {
    const issues = parsed.error.issues.map(
      (i) => `${i.path.map(String).join(".") || "(config)"}: ${i.message}`,
    );
    throw new Error(`invalid policy-pack config: ${issues.join("; ")}`);
  }
  const file = parsed.data;
  const levels = new Map<string, EnforcementLevel | undefined>();
  const bad: string[] = [];
  for (const [name, entry] of Object.entries(file)) {
    const given = typeof entry === "string" ? entry : entry.enforcementLevel;
    const level = EnforcementLevel.safeParse(given ?? "advisory");
    if (!level.success)
      bad.push(
        `${name}: ${JSON.stringify(given)} is not an enforcement level (${EnforcementLevel.options.join(", ")})`,
      );
    else levels.set(name, given === undefined ? undefined : level.data);
  }
  if (bad.length > 0) throw new Error(`invalid policy-pack config: ${bad.join("; ")}`);
  const all = levels.get("all");
  const policies = new Map<string, PolicySetup>();
  const errors: string[] = [];
  for (const core of cores) {
    const entry = file[core.name];
    const { enforcementLevel: _, ...settings } = typeof entry === "object" ? entry : {};
    const setup = {
      enforcementLevel: levels.get(core.name) ?? all ?? (core.enforcementLevel as EnforcementLevel),
      settings,
    };
    // The pack's own reading of a policy's settings, and its message.
    if (core.config)
      try {
        readConfig(core.name, core.config, { getConfig: <T extends object>() => settings as T });
      } catch (e) {
        errors.push((e as Error).message);
      }
    policies.set(core.name, setup);
  }
  if (errors.length > 0) throw new Error(errors.join("\n"));
  const ignored = Object.keys(file).filter((name) => name !== "all" && !policies.has(name));
  return { policies, ignored };
}

// ---------------------------------------------------------------------------------------------
// Running the policies

/** A policy's finding on a plan. */
export const Violation = z.object({
  /** The policy's name: `production-ramp-guard`. */
  policy: z.string(),
  /** `mandatory` fails the check, `advisory` warns. */
  enforcementLevel: z.enum(["advisory", "mandatory"]),
  severity: z.enum(["low", "medium", "high", "critical"]).optional(),
  /** The resource's address, when the finding is about one: `flagstack_flag_definition.checkout_prod`. */
  address: z.string().optional(),
  /** The policy's message, in the pack's words. */
  message: z.string(),
});
export type Violation = z.output<typeof Violation>;

/**
 * The message of a policy that cannot run for a value not known until apply: the attribute by its
 * Terraform name (`traffic_allocation`) when the resource is known.
 */
function unknownMessage(e: Error & { props?: readonly PropertyKey[] }): string {
  const path = (e.props ?? []).map((p, i) => (i === 0 ? snakeCase(String(p)) : String(p))).join(".");
  return `can't run during the plan: the value of ${path || "an input"} is known only after apply`;
}

/**
 * Runs the policies on the resources of a plan and returns their findings in the pack's order
 * (each policy's in the order of the plan's resources). A policy's own failure (not an unknown
 * value) throws, naming the policy, as the engine fails a preview.
 */
export async function checkResources(
  resources: readonly PolicyTarget[],
  config: PolicyPackConfig = readPolicyPackConfig(undefined),
  cores: readonly PolicyCore[] = policyCores,
): Promise<Violation[]> {
  const targets = resources.map((r) => ({ ...r, props: nameProps({ ...r.props }, r.address) }));
  const found: Violation[] = [];
  for (const core of cores) {
    const setup = config.policies.get(core.name) ?? {
      enforcementLevel: core.enforcementLevel as EnforcementLevel,
      settings: {},
    };
    if (setup.enforcementLevel === "disabled") continue;
    const level = setup.enforcementLevel === "advisory" ? "advisory" : "mandatory";
    const violation = (message: string, address: string | undefined): Violation => ({
      policy: core.name,
      enforcementLevel: level,
      ...(core.severity ? { severity: core.severity } : {}),
      ...(address !== undefined ? { address } : {}),
      message,
    });
    const failed = (e: unknown, address: string | undefined): void => {
      if (!isUnknownValueError(e))
        throw new Error(`policy ${core.name} failed: ${(e as Error).message ?? e}`);
      const at = (e as { address?: string }).address ?? address;
      found.push({ ...violation(unknownMessage(e), at), enforcementLevel: "advisory" });
    };
    if (core.scope === "resource") {
      for (const r of targets) {
        try {
          await core.check(r, setup.settings, (message) => found.push(violation(message, r.address)));
        } catch (e) {
          failed(e, r.address);
        }
      }
    } else {
      try {
        await core.check(targets, setup.settings, (message, address) =>
          found.push(violation(message, address)),
        );
      } catch (e) {
        failed(e, undefined);
      }
    }
  }
  return found;
}

/** What {@link checkPlan} found. */
export interface PlanCheck {
  /** The pack's name. */
  policyPack: string;
  /** The addresses of the flagstack resources checked. */
  resources: string[];
  violations: Violation[];
  /** Notes that are no finding: config entries ignored, resource types this version does not know. */
  notes: string[];
}

/** The pack's policies on a plan's JSON (parsed), with a config file's JSON (parsed; undefined: none). */
export async function checkPlan(plan: unknown, configJson?: unknown): Promise<PlanCheck> {
  const config = readPolicyPackConfig(configJson);
  const read: PlanRead = readPlan(plan);
  const violations = await checkResources(read.resources, config);
  const notes = [
    ...config.ignored.map((n) => `the config names no policy of ${POLICY_PACK_NAME}: "${n}" is ignored`),
    ...read.unknownTypes.map(
      (t) => `resource type ${t} is not known to this version of flagstack: not checked`,
    ),
  ];
  return { policyPack: POLICY_PACK_NAME, resources: read.resources.map((r) => r.address), violations, notes };
}

/** True when a mandatory violation was found (the check fails). */
export const failsCheck = (check: PlanCheck): boolean =>
  check.violations.some((v) => v.enforcementLevel === "mandatory");

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/**
 * The findings as text: one line each, `[mandatory] production-ramp-guard
 * flagstack_flag_definition.checkout_prod: <message>`, then a summary line.
 */
export function formatText(check: PlanCheck): string {
  const lines = check.violations.map(
    (v) =>
      `[${v.enforcementLevel}] ${v.policy}  ${v.address === undefined ? "" : `${v.address}: `}${v.message}`,
  );
  for (const note of check.notes) lines.push(`note: ${note}`);
  const mandatory = check.violations.filter((v) => v.enforcementLevel === "mandatory").length;
  const advisory = check.violations.length - mandatory;
  lines.push(
    `${check.policyPack}: ${plural(mandatory, "mandatory violation")}, ${plural(advisory, "advisory finding")} on ${plural(check.resources.length, "flagstack resource")} of the plan`,
  );
  return `${lines.join("\n")}\n`;
}

/** The findings as JSON: `{policyPack, resources, violations, notes, mandatory, advisory}`. */
export function formatJson(check: PlanCheck): string {
  const mandatory = check.violations.filter((v) => v.enforcementLevel === "mandatory").length;
  return `${JSON.stringify({ ...check, mandatory, advisory: check.violations.length - mandatory }, null, 2)}\n`;
}
