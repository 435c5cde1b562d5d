/**
 * Settling the creates of a killed `pulumi up` (what `flagstack recover` does to a stack's state).
 *
 * The engine writes a *pending operation* into the state before it asks the provider to create
 * a resource, and replaces it with the resource when the provider answers. When `pulumi up` is
 * killed (SIGKILL, OOM, a CI timeout) between the two, the state keeps the pending create: the
 * URN, the type and the checked inputs, but no id. The object may or may not exist on the
 * service; the next `up` creates it again and fails on the duplicate, and the engine's own fix
 * (`pulumi refresh`, interactive only) asks a person for each object's id.
 *
 * The pending create is a sound marker: it records that this stack asked for exactly this natural
 * key (flag name, group name, project identifier, ...). For each one of a flagstack type:
 * - nothing on the service has that key: the create never happened; the pending operation is
 *   dropped, and the next `up` creates the object;
 * - an object has that key and was created after the stack's last completed update ended
 *   (`notBefore`; the interrupted run started after that): it is the interrupted run's own
 *   object. It is adopted exactly as `adopt: true` would (which also finishes a create that was
 *   cut between its steps, such as a flag created but not yet tagged), and recorded in the state
 *   with its id and outputs;
 * - an object has that key but is older: someone else made it. It is left alone and the pending
 *   operation kept, and the report says so (the next `up` then reports the duplicate, and
 *   `adopt: true` is the deliberate way to take it over).
 * Kinds whose API reports no creation time (groups, users, pipelines) are taken as the
 * interrupted run's own when their natural key matches.
 * @module
 */

import type { AnyHandlers } from "../kinds";
import { PROVIDER_KEY, withoutProvider } from "./check";
import { plain } from "./resource";

/** One resource of a state file (`pulumi stack export`), in the members this module reads or writes. */
export interface StateResource {
  urn: string;
  type: string;
  id?: string;
  custom?: boolean;
  inputs?: Record<string, unknown>;
  outputs?: Record<string, unknown>;
  dependencies?: string[];
  parent?: string;
  [member: string]: unknown;
}

/** The `deployment` of a state file. */
export interface Deployment {
  resources?: StateResource[];
  pending_operations?: { resource: StateResource; type: string }[];
  [member: string]: unknown;
}

/** What {@link settlePendingCreates} did, by URN. */
export interface RecoverReport {
  /** Created by the interrupted run and now in the state. */
  recovered: { urn: string; id: string }[];
  /** Never created: dropped from the pending operations. */
  cleared: string[];
  /** Left pending: an object with the key exists but is not the interrupted run's. */
  kept: { urn: string; reason: string }[];
}

/** What {@link settlePendingCreates} needs besides the state. */
export interface RecoverOptions {
  /** The implementation of each kind, by type token. */
  kinds: Readonly<Record<string, AnyHandlers>>;
  /** Epoch milliseconds before which an object cannot be the interrupted run's (the last completed update's end). */
  notBefore: number;
  /** The time written into recovered resources' `created` / `modified`. */
  now?: () => Date;
}

/**
 * Settles every pending create of a flagstack type in `deployment` (see the module notes) and
 * returns the new deployment, the input left unchanged, with what was done.
 */
export async function settlePendingCreates(
  deployment: Deployment,
  options: RecoverOptions,
): Promise<{ deployment: Deployment; report: RecoverReport }> {
  const report: RecoverReport = { recovered: [], cleared: [], kept: [] };
  const pending: NonNullable<Deployment["pending_operations"]> = [];
  const recovered: StateResource[] = [];
  const now = (options.now ?? (() => new Date()))().toISOString();
  for (const op of deployment.pending_operations ?? []) {
    const impl = options.kinds[op.resource.type];
    if (op.type !== "creating" || impl === undefined) {
      pending.push(op);
      continue;
    }
    const urn = op.resource.urn;
    const checked = await impl.check({}, withoutProvider(op.resource.inputs));
    if (checked.failures && checked.failures.length > 0) {
      pending.push(op);
      report.kept.push({
        urn,
        reason: `its recorded inputs do not check: ${checked.failures.map((f) => `${f.property}: ${f.reason}`).join("; ")}`,
      });
      continue;
    }
    const inputs = checked.inputs as Record<string, unknown>;
    const found = await impl.lookup(inputs);
    if (found === undefined) {
      report.cleared.push(urn);
      continue;
    }
    if (found.createdAt !== undefined && found.createdAt < options.notBefore) {
      pending.push(op);
      report.kept.push({
        urn,
        reason: `an object with its name exists, created ${new Date(found.createdAt).toISOString()}, before the interrupted update; set \`adopt: true\` to take it over`,
      });
      continue;
    }
    const { id, outs } = await impl.create({ ...inputs, adopt: true });
    recovered.push({
      ...op.resource,
      id,
      outputs: {
        ...plain(outs as Record<string, unknown>),
        adopt: inputs.adopt,
        [PROVIDER_KEY]: op.resource.inputs?.[PROVIDER_KEY],
      },
      created: now,
      modified: now,
    });
    report.recovered.push({ urn, id });
  }
  const next: Deployment = {
    ...deployment,
    resources: [...(deployment.resources ?? []), ...dependencyOrder(recovered)],
  };
  if (pending.length > 0) next.pending_operations = pending;
  else delete next.pending_operations;
  return { deployment: next, report };
}

/** The resources ordered so that each comes after those of them it depends on (as the state requires). */
function dependencyOrder(resources: StateResource[]): StateResource[] {
  const byUrn = new Map(resources.map((r) => [r.urn, r]));
  const out: StateResource[] = [];
  const placed = new Set<string>();
  const place = (r: StateResource) => {
    if (placed.has(r.urn)) return;
    placed.add(r.urn);
    for (const dep of [...(r.dependencies ?? []), ...(r.parent ? [r.parent] : [])]) {
      const other = byUrn.get(dep);
      if (other) place(other);
    }
    out.push(r);
  };
  for (const r of resources) place(r);
  return out;
}
