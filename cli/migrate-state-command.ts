/**
 * `flagstack migrate-state`: moves a stack made with the TypeScript dynamic resources onto the
 * native provider's tokens, in the stack's state only: no request reaches the services and no
 * object is replaced.
 *
 * ```
 * flagstack migrate-state [--stack NAME] [--cwd DIR] [--dry-run]
 * ```
 * 1. `pulumi stack export` (secrets stay encrypted: nothing here reads them);
 * 2. each resource of a flagstack dynamic type (`pulumi-nodejs:dynamic/flagstack:<Type>`) gets the
 *    native type `flagstack:index:<Type>`, in its type and its URN, and in every URN that names it
 *    (parents, dependencies, property dependencies, `deletedWith`, aliases); `__provider` (the
 *    dynamic provider's loader text) leaves its inputs and outputs, which are otherwise exactly what
 *    the native provider records (both run the same `impl`); its provider reference stays the
 *    dynamic-provider host's default provider;
 * 3. `pulumi stack import` of the result.
 * Then the native program (the same resources under the same logical names, in YAML, Python, ...)
 * previews as unchanged. Its first `pulumi up` moves each resource to the `flagstack` provider:
 * the engine replaces a resource whose provider changed only when the new provider's DiffConfig
 * asks for it (pkg/resource/deploy/step_generator.go `providerChanged`), and for a provider that
 * does not implement DiffConfig, as this one does not, it asks for none
 * (sdk/go/common/resource/plugin/provider_plugin.go `DiffConfig`: "returning DiffUnknown with no
 * replaces"); the provider's Diff compares the recorded outputs with the program, finds them
 * equal, and nothing is written. The dynamic-provider host's default provider, then unused, leaves
 * the state.
 *
 * A stack with pending operations (a killed `pulumi up`) is refused: run `flagstack recover` first.
 * @module
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Command } from "commander";
import * as TYPES from "../provider/types";
import { pulumi } from "./pulumi";

/** The options commander hands to the action. */
export interface MigrateStateOptions {
  stack?: string;
  cwd: string;
  dryRun?: boolean;
}

/** A resource of an exported deployment (the members this command reads or rewrites). */
export interface StateResource {
  urn: string;
  type: string;
  inputs?: Record<string, unknown>;
  outputs?: Record<string, unknown>;
  parent?: string;
  dependencies?: string[];
  propertyDependencies?: Record<string, string[]>;
  deletedWith?: string;
  aliases?: string[];
  [member: string]: unknown;
}

/** An exported deployment (`pulumi stack export`'s `deployment`). */
export interface StateDeployment {
  resources?: StateResource[];
  pending_operations?: unknown[];
  [member: string]: unknown;
}

/**
 * The native token of each flagstack dynamic token: `pulumi-nodejs:dynamic/flagstack:Flag` →
 * `flagstack:index:Flag`. Read from the token constants (`provider/types.ts`, which imports
 * nothing), not from `provider/kinds.ts`: loading the command loads no resource module and so no
 * `@pulumi/pulumi` (cli/index.ts); a test checks both name the same tokens.
 */
export const NATIVE_TOKENS: ReadonlyMap<string, string> = new Map(
  TYPES.KIND_NAMES.map((name) => [
    `pulumi-nodejs:dynamic/${TYPES.MODULE}:${name}`,
    `flagstack:index:${name}`,
  ]),
);

/**
 * The URN with every flagstack dynamic type in its qualified type (`parent$...$type`) replaced by
 * the native one: `urn:pulumi:<stack>::<project>::<qualified type>::<name>`.
 */
export function migrateUrn(urn: string): string {
  const parts = urn.split("::");
  if (parts.length < 4) return urn;
  parts[2] = (parts[2] as string)
    .split("$")
    .map((t) => NATIVE_TOKENS.get(t) ?? t)
    .join("$");
  return parts.join("::");
}

/** Without `__provider`: the dynamic provider's loader text, which the native provider has no use for. */
function withoutLoader(props: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  if (props === undefined) return undefined;
  const { __provider: _, ...rest } = props;
  return rest;
}

/** What {@link migrateDeployment} did: the URNs moved, old → new. */
export interface MigrateReport {
  migrated: { from: string; to: string }[];
}

/**
 * The deployment with every flagstack dynamic resource on its native token (see the module notes).
 * Throws, changing nothing, when the state has pending operations or a migrated URN is taken.
 */
export function migrateDeployment(deployment: StateDeployment): {
  deployment: StateDeployment;
  report: MigrateReport;
} {
  if ((deployment.pending_operations ?? []).length > 0) {
    throw new Error(
      "the stack has pending operations (an interrupted `pulumi up`): run `flagstack recover` first",
    );
  }
  const resources = deployment.resources ?? [];
  const existing = new Set(resources.map((r) => r.urn));
  const migrated: MigrateReport["migrated"] = [];
  const out = resources.map((r): StateResource => {
    const native = NATIVE_TOKENS.get(r.type);
    const urn = migrateUrn(r.urn);
    if (urn !== r.urn) {
      if (existing.has(urn)) throw new Error(`cannot migrate ${r.urn}: the state already has ${urn}`);
      migrated.push({ from: r.urn, to: urn });
    }
    const next: StateResource = { ...r, urn };
    if (native !== undefined) {
      next.type = native;
      if (r.inputs !== undefined) next.inputs = withoutLoader(r.inputs);
      if (r.outputs !== undefined) next.outputs = withoutLoader(r.outputs);
    }
    if (r.parent !== undefined) next.parent = migrateUrn(r.parent);
    if (r.dependencies !== undefined) next.dependencies = r.dependencies.map(migrateUrn);
    if (r.propertyDependencies !== undefined) {
      next.propertyDependencies = Object.fromEntries(
        Object.entries(r.propertyDependencies).map(([k, urns]) => [k, urns.map(migrateUrn)]),
      );
    }
    if (r.deletedWith !== undefined) next.deletedWith = migrateUrn(r.deletedWith);
    if (r.aliases !== undefined) next.aliases = r.aliases.map(migrateUrn);
    return next;
  });
  return { deployment: { ...deployment, resources: out }, report: { migrated } };
}

/** The action: see the module notes. */
export async function migrateState(
  options: MigrateStateOptions,
  log: (line: string) => void = console.log,
): Promise<MigrateReport> {
  const exported = JSON.parse(await pulumi(options, ["stack", "export"])) as {
    version: number;
    deployment: StateDeployment;
  };
  const { deployment, report } = migrateDeployment(exported.deployment);
  for (const { from, to } of report.migrated) log(`${from} → ${to}`);
  if (report.migrated.length === 0) {
    log("no flagstack dynamic resource in the stack: nothing to migrate");
    return report;
  }
  if (options.dryRun) {
    log(`dry run: ${report.migrated.length} resources would move; the state was not changed`);
    return report;
  }
  const dir = mkdtempSync(join(tmpdir(), "flagstack-migrate-"));
  try {
    const file = join(dir, "state.json");
    writeFileSync(file, JSON.stringify({ ...exported, deployment }), { mode: 0o600 });
    await pulumi(options, ["stack", "import", "--file", file]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  log(
    `migrated ${report.migrated.length} resources to the native flagstack provider's tokens; ` +
      "`pulumi preview` of the native program shows no change, and its next `pulumi up` moves them to the flagstack provider without a write",
  );
  return report;
}

/** Registers `flagstack migrate-state`. */
export function register(program: Command): void {
  program
    .command("migrate-state")
    .description(
      "move a stack made with the dynamic resources onto the native provider's tokens (flagstack:index:<Type>), in the state only",
    )
    .option("-s, --stack <name>", "the stack (default: the selected stack)")
    .option("-C, --cwd <dir>", "the Pulumi project directory", process.cwd())
    .option("--dry-run", "list the resources that would move and change nothing")
    .action(async (opts: MigrateStateOptions) => {
      await migrateState(opts);
    });
}
