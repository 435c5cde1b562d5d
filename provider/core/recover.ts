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
 * - the state already holds a resource of its URN: a later run (an `up` retried before
 *   `recover`) created and recorded it (its recorded inputs are the pending create's, or differ
 *   in no input that replaces); the pending operation is dropped (never a second resource of one
 *   URN, which `pulumi stack import` refuses). Where an input that replaces differs, the pending
 *   create is a create-before-delete replacement's: settled as below, and if its object is
 *   adopted, the recorded one is marked for deletion (`delete: true`, as the engine records a
 *   replacement whose create succeeded), so the next `up` deletes it;
 * - nothing on the service has that key: the create never happened; the pending operation is
 *   dropped, and the next `up` creates the object. Unless the kind's look-up cannot see its
 *   objects ({@link AnyHandlers.unseen}: API keys, which the API cannot list): then nothing tells
 *   whether the create made one, and the report says so as `unknown`, with what the operator
 *   must revoke, and still drops it (so too beside a later run's recorded object of its URN);
 * - an object has that key and was created after the update before the interrupted one ended
 *   (`notBefore`, per pending create: the interrupted run started after that; updates retried
 *   after the kill carry the pending create over and do not count): it is the interrupted run's
 *   own object. It is adopted as `adopt: true` would (which also finishes a create that was cut
 *   between its steps, such as a flag created but not yet tagged), or by the kind's own
 *   {@link AnyHandlers.recover} where adopting alone would lose what the create answered once
 *   (an environment's SDK keys), and recorded in the state with its id and outputs; what that
 *   verb could not recover (SDK keys whose answer was lost) it returns as a note, reported as
 *   `unknown`;
 * - an object has that key but is older: someone else made it. It is left alone and the pending
 *   operation kept, and the report says so (the next `up` then reports the duplicate, and
 *   `adopt: true` is the deliberate way to take it over).
 * Kinds whose API reports no creation time (groups, users, pipelines) are taken as the
 * interrupted run's own when their natural key matches.
 *
 * **Secrets.** The engine records a secret input (a `Secret`'s `value`) as a secret: in
 * `pulumi stack export` an object `{"4dabf…": "1b47…", "ciphertext": …}`, and with `--show-secrets`
 * the same object with `"plaintext"` (the value's JSON). The inputs are checked and used with each
 * plaintext secret revealed ({@link revealSecrets}); the state written back keeps the recorded
 * inputs as they were, and each output that the engine stores as a secret (one whose input is a
 * secret, or one the resource names in `additionalSecretOutputs`) is written as a plaintext
 * secret object ({@link asSecret}), which `pulumi stack import` encrypts.
 * @module
 */

import { PROVIDER_KEY, withoutProvider } from "./check";
import type { AnyHandlers } from "./kind";
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
  /** A resource a replacement replaced, to be deleted by the next update. */
  delete?: boolean;
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
  /** Already in the state's resources (a later run recorded it): dropped from the pending operations. */
  recorded: string[];
  /** Left pending: an object with the key exists but is not the interrupted run's. */
  kept: { urn: string; reason: string }[];
  /**
   * What recover cannot know, each with what the operator must do: a pending create of a kind
   * whose look-up cannot see its objects ({@link AnyHandlers.unseen}: dropped from the pending
   * operations), or what an adopted object's create answered once and no read shows (the note of
   * {@link AnyHandlers.recover}: the object is in {@link recovered} too).
   */
  unknown: { urn: string; reason: string }[];
}

/** What {@link settlePendingCreates} needs besides the state. */
export interface RecoverOptions {
  /** The implementation of each kind, by type token. */
  kinds: Readonly<Record<string, AnyHandlers>>;
  /**
   * Epoch milliseconds before which an object cannot be the interrupted run's: when the update
   * before the interrupted one ended, for all pending creates or for each by URN.
   */
  notBefore: number | ((urn: string) => number);
  /**
   * The same state exported with `--show-secrets`: the pending creates' inputs are read from it,
   * with their secrets revealed. Without it, a pending create whose inputs hold an encrypted
   * secret is kept (its inputs cannot be checked).
   */
  revealed?: Deployment;
  /** The time written into recovered resources' `created` / `modified`. */
  now?: () => Date;
}

/** The member that marks a secret in a state file (`sig.Key` of the engine's `resource` package). */
export const SECRET_SIG_KEY = "4dabf18193072939515e22adb298388d";
/** Its value for a secret (`sig.Secret`). */
export const SECRET_SIG = "1b47061264138c4ac30d75fd1eb44270";

/** A secret as a state file holds it: its `plaintext` (the value's JSON) or its `ciphertext`. */
export type StateSecret = { [SECRET_SIG_KEY]: typeof SECRET_SIG; plaintext?: string; ciphertext?: string };

/** Whether a state value is a secret object. */
export function isStateSecret(v: unknown): v is StateSecret {
  return (
    typeof v === "object" &&
    v !== null &&
    !Array.isArray(v) &&
    (v as Record<string, unknown>)[SECRET_SIG_KEY] === SECRET_SIG
  );
}

/** A value as a plaintext secret object, which `pulumi stack import` stores encrypted. */
export function asSecret(value: unknown): StateSecret {
  return { [SECRET_SIG_KEY]: SECRET_SIG, plaintext: JSON.stringify(value) };
}

/**
 * A state value with every plaintext secret replaced by its value, as the engine hands inputs to a
 * provider; `encrypted` lists the paths of secrets that are still ciphertext (left as they are).
 */
export function revealSecrets(value: unknown, path = ""): { value: unknown; encrypted: string[] } {
  const encrypted: string[] = [];
  const walk = (v: unknown, at: string): unknown => {
    if (isStateSecret(v)) {
      if (typeof v.plaintext === "string") return walk(JSON.parse(v.plaintext), at);
      encrypted.push(at || "(the value)");
      return v;
    }
    if (Array.isArray(v)) return v.map((x, i) => walk(x, `${at}[${i}]`));
    if (typeof v === "object" && v !== null)
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x, at ? `${at}.${k}` : k)]));
    return v;
  };
  return { value: walk(value, path), encrypted };
}

/**
 * The outputs the engine stores as secrets: those of a secret input's name, and those the
 * resource names in `additionalSecretOutputs`, each wrapped with {@link asSecret}.
 */
export function secretOutputs(
  resource: StateResource,
  outputs: Record<string, unknown>,
): Record<string, unknown> {
  const names = new Set<string>(
    Array.isArray(resource.additionalSecretOutputs) ? (resource.additionalSecretOutputs as string[]) : [],
  );
  for (const [k, v] of Object.entries(resource.inputs ?? {})) if (isStateSecret(v)) names.add(k);
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(outputs)) out[k] = names.has(k) && v !== undefined ? asSecret(v) : v;
  return out;
}

/**
 * Settles every pending create of a flagstack type in `deployment` (see the module notes) and
 * returns the new deployment, the input left unchanged, with what was done.
 */
export async function settlePendingCreates(
  deployment: Deployment,
  options: RecoverOptions,
): Promise<{ deployment: Deployment; report: RecoverReport }> {
  const report: RecoverReport = { recovered: [], cleared: [], recorded: [], kept: [], unknown: [] };
  const pending: NonNullable<Deployment["pending_operations"]> = [];
  const recovered: StateResource[] = [];
  /** Resources of the state replaced by a recovered one (a create-before-delete replacement): marked for deletion. */
  const replaced = new Set<string>();
  const now = (options.now ?? (() => new Date()))().toISOString();
  const inState = new Map(
    (deployment.resources ?? []).filter((r) => !r.delete).map((r) => [r.urn, r] as const),
  );
  const revealedState = new Map((options.revealed?.resources ?? []).map((r) => [r.urn, r] as const));
  const handled = new Set<string>();
  const notBefore =
    typeof options.notBefore === "number" ? () => options.notBefore as number : options.notBefore;
  const revealedInputs = new Map(
    (options.revealed?.pending_operations ?? [])
      .filter((op) => op.type === "creating")
      .map((op) => [op.resource.urn, op.resource.inputs] as const),
  );
  for (const op of deployment.pending_operations ?? []) {
    const impl = options.kinds[op.resource.type];
    /**
     * A kind whose look-up cannot see its objects, recorded by a later run: the interrupted create
     * may still have made one beside the recorded one.
     */
    const unseenBeside = (urn: string, inputs: unknown, recordedId: string | undefined) => {
      if (impl?.unseen) report.unknown.push({ urn, reason: impl.unseen(inputs, recordedId) });
    };
    if (op.type !== "creating" || impl === undefined) {
      pending.push(op);
      continue;
    }
    const urn = op.resource.urn;
    // One pending create per URN is settled; a second one of the same URN is the same resource.
    if (handled.has(urn)) continue;
    handled.add(urn);
    const recordedInputs = revealedInputs.get(urn) ?? op.resource.inputs;
    const existing = inState.get(urn);
    const existingRevealed = revealedState.get(urn) ?? existing;
    // A later run (an `up` retried before `recover`) created and recorded it: never a second resource of one URN.
    if (existing !== undefined && sameInputs(existingRevealed?.inputs, recordedInputs)) {
      report.recorded.push(urn);
      unseenBeside(urn, revealSecrets(withoutProvider(recordedInputs)).value, existing.id);
      continue;
    }
    const { value: revealed, encrypted } = revealSecrets(withoutProvider(recordedInputs));
    if (encrypted.length > 0) {
      pending.push(op);
      report.kept.push({
        urn,
        reason: `its recorded inputs hold encrypted secrets (${encrypted.join(", ")}): read the state with \`pulumi stack export --show-secrets\` (the stack's passphrase or secrets provider)`,
      });
      continue;
    }
    const checked = await impl.check({}, revealed as Record<string, unknown>);
    if (checked.failures && checked.failures.length > 0) {
      pending.push(op);
      report.kept.push({
        urn,
        reason: `its recorded inputs do not check: ${checked.failures.map((f) => `${f.property}: ${f.reason}`).join("; ")}`,
      });
      continue;
    }
    const inputs = checked.inputs as Record<string, unknown>;
    // The state holds the URN with other inputs: a later update recorded it from a changed
    // program (the same object: no input that replaces differs), or the pending create is a
    // create-before-delete replacement's (it replaces the recorded object).
    if (existing !== undefined) {
      const olds = revealSecrets(withoutProvider(existingRevealed?.outputs)).value;
      const diff = await impl.diff(existing.id ?? "", olds, inputs);
      if ((diff.replaces ?? []).length === 0) {
        report.recorded.push(urn);
        unseenBeside(urn, inputs, existing.id);
        continue;
      }
    }
    const found = await impl.lookup(inputs);
    const older = found?.createdAt !== undefined && found.createdAt < notBefore(urn);
    // A kind whose look-up cannot see its objects: not found (or found only from an earlier run)
    // says nothing about what the interrupted create made.
    if (impl.unseen && (found === undefined || older)) {
      report.unknown.push({ urn, reason: impl.unseen(inputs) });
      continue;
    }
    if (found === undefined) {
      report.cleared.push(urn);
      continue;
    }
    if (older) {
      pending.push(op);
      report.kept.push({
        urn,
        reason: `an object with its name exists, created ${new Date(found.createdAt as number).toISOString()}, before the interrupted update; set \`adopt: true\` to take it over`,
      });
      continue;
    }
    const { id, outs, note } = impl.recover
      ? await impl.recover(inputs)
      : { ...(await impl.create({ ...inputs, adopt: true })), note: undefined };
    // The state's resource of this URN is the object a create-before-delete replacement replaces:
    // marked for deletion, as the engine records it once the replacement's create succeeded.
    if (existing !== undefined) replaced.add(urn);
    recovered.push({
      ...op.resource,
      id,
      outputs: {
        ...secretOutputs(op.resource, plain(outs as Record<string, unknown>)),
        adopt: inputs.adopt,
        [PROVIDER_KEY]: op.resource.inputs?.[PROVIDER_KEY],
      },
      created: now,
      modified: now,
    });
    report.recovered.push({ urn, id });
    if (note !== undefined) report.unknown.push({ urn, reason: note });
  }
  const kept = (deployment.resources ?? []).map((r) =>
    replaced.has(r.urn) && !r.delete ? { ...r, delete: true } : r,
  );
  const next: Deployment = { ...deployment, resources: [...kept, ...dependencyOrder(recovered)] };
  if (pending.length > 0) next.pending_operations = pending;
  else delete next.pending_operations;
  return { deployment: next, report };
}

/**
 * Whether two recorded inputs are the same, `__provider` aside, secrets compared by their
 * revealed values (a secret still encrypted in either is taken as equal: each encryption differs).
 */
function sameInputs(a: Record<string, unknown> | undefined, b: Record<string, unknown> | undefined): boolean {
  const canonical = (v: Record<string, unknown> | undefined) =>
    JSON.stringify(sorted(revealSecrets(withoutProvider(v)).value));
  return canonical(a) === canonical(b);
}

/** A JSON value with object members sorted, each secret still encrypted as one marker. */
function sorted(v: unknown): unknown {
  if (isStateSecret(v)) return SECRET_SIG;
  if (Array.isArray(v)) return v.map(sorted);
  if (typeof v === "object" && v !== null)
    return Object.fromEntries(
      Object.keys(v)
        .sort()
        .map((k) => [k, sorted((v as Record<string, unknown>)[k])]),
    );
  return v;
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
