/**
 * The update rule every flagstack resource follows: **an update changes what the preview showed,
 * guarded by what Pulumi last recorded.**
 *
 * `pulumi preview` diffs the program against the *recorded* outputs (no API call), so the fields
 * it shows as changing are the fields whose desired value differs from the recorded one. An
 * update therefore:
 * 1. reads the live object (its `read` verb);
 * 2. for each field the preview showed as changing, compares the live value with the recorded
 *    one. Live equal to recorded: the field is written. Live already equal to desired: nothing to
 *    write for it. Anything else means someone changed that field since Pulumi recorded it; the
 *    update fails without writing anything and names the field with its recorded, live and
 *    desired values, and the fix (`pulumi refresh`, or `pulumi up --refresh`, after which the
 *    preview shows the real change);
 * 3. writes only the touched fields; every other field keeps its live value (a colleague's edit of
 *    a field this program did not change survives, and shows up in the next refresh).
 *
 * The write itself stays guarded against the moment between the read and the write: PATCH APIs
 * send `test` operations of the values read (`./patch.ts`); PUT APIs have no such guard on the
 * wire, so their window is the few milliseconds between the GET and the PUT.
 *
 * An object deleted outside Pulumi is not silently re-created by an update (the preview showed
 * an update, not a create): the update fails and says to refresh, after which `pulumi up`
 * creates it again. See DESIGN.md "Lifecycle policy".
 * @module
 */
import type * as pulumi from "@pulumi/pulumi";
import { containsUnknown, PROVIDER_KEY, SECRET_SHOWN } from "./check";
import { canonicalJson, changedFields, type DiffSpec, jsonEqual, sameByRule } from "./diff";
import { door } from "./door";
import { plain } from "./resource";

/** One field the preview showed as changing, with its three values. */
export interface FieldValues {
  field: string;
  recorded: unknown;
  live: unknown;
  desired: unknown;
}

/** How an update fails when the live object changed in a field it touches. */
export class ChangedSinceRecordedError extends Error {
  /** The fields whose live value is neither the recorded nor the desired one. */
  readonly fields: readonly FieldValues[];
  /** `secret`: the fields whose values are secrets, shown (and kept in `fields`) as `[secret]`. */
  constructor(describe: string, conflicts: readonly FieldValues[], secret: readonly string[] = []) {
    const fields = conflicts.map((f) =>
      secret.includes(f.field) ? { field: f.field, recorded: HIDDEN, live: HIDDEN, desired: HIDDEN } : f,
    );
    const lines = fields.flatMap(describeField);
    const words = door();
    super(
      `${describe} was changed outside ${words.tool} since its state was recorded, in ${
        fields.length === 1 ? "a field" : "fields"
      } this update changes:\n${lines.join("\n")}\nNothing was written. Run ${words.refresh} to record the live values ` +
        `(the next ${words.preview} then shows exactly what ${words.apply} will change), or ${words.applyRefreshing}.`,
    );
    this.name = "ChangedSinceRecordedError";
    this.fields = fields;
  }
}

/** How an update fails when the object is gone. */
export class GoneSinceRecordedError extends Error {
  constructor(describe: string) {
    const words = door();
    super(
      `${describe} was deleted outside ${words.tool} since its state was recorded; nothing was written. ` +
        `Run ${words.refresh} (it removes the object from the state) and ${words.apply} to create it again, or ${words.applyRefreshing}.`,
    );
    this.name = "GoneSinceRecordedError";
  }
}

/** A secret field's value in a refusal: shown as `[secret]`. */
const HIDDEN: unknown = Object.freeze({ toJSON: () => SECRET_SHOWN });

/** The longest value a message shows whole. */
const SHOWN = 160;

/** A value for a message: JSON (keys sorted, the same whichever way it came), cut at {@link SHOWN} characters. */
function show(value: unknown): string {
  if (value === HIDDEN) return SECRET_SHOWN;
  const text = value === undefined ? "(none)" : canonicalJson(value);
  return text.length > SHOWN ? `${text.slice(0, SHOWN - 3)}...` : text;
}

/** How many places inside one field a message names before it counts the rest. */
const PLACES = 5;

/**
 * The lines of a message for one field: its three values, or, when one is too long to show whole
 * (a pipeline, a rule list), each place inside it where the live value differs from the recorded
 * one (`pipeline.stages[0].execution.steps[0].script: recorded "echo hello", live ...`), so the
 * edit is visible rather than cut off.
 */
function describeField(f: FieldValues): string[] {
  const line = (name: string, at: readonly (string | number)[]) =>
    `  ${name}: recorded ${show(valueAt(f.recorded, at))}, live ${show(valueAt(f.live, at))}, desired ${show(valueAt(f.desired, at))}`;
  const long = [f.recorded, f.live, f.desired].some(
    (v) => v !== undefined && canonicalJson(v).length > SHOWN,
  );
  const places = long ? differences(f.recorded, f.live) : [];
  if (places.length === 0 || (places.length === 1 && places[0]!.length === 0)) return [line(f.field, [])];
  const lines = places.slice(0, PLACES).map((at) => line(`${f.field}${pathText(at)}`, at));
  if (places.length > PLACES) lines.push(`  (${places.length - PLACES} more differences in ${f.field})`);
  return lines;
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === "object" && !Array.isArray(v);

/**
 * The innermost places where `a` and `b` differ as JSON: members of two objects and elements of
 * two arrays of one length are compared one by one; any other difference is its own place.
 */
function differences(a: unknown, b: unknown, at: (string | number)[] = []): (string | number)[][] {
  if (jsonEqual(a, b)) return [];
  if (Array.isArray(a) && Array.isArray(b) && a.length === b.length)
    return a.flatMap((x, i) => differences(x, b[i], [...at, i]));
  if (isRecord(a) && isRecord(b)) {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
    return keys.flatMap((k) => differences(a[k], b[k], [...at, k]));
  }
  return [at];
}

/** The value at a place (see {@link differences}), `undefined` where there is none. */
function valueAt(value: unknown, at: readonly (string | number)[]): unknown {
  let v = value;
  for (const step of at) {
    if (typeof step === "number" ? !Array.isArray(v) : !isRecord(v)) return undefined;
    v = Object.hasOwn(v as object, step) ? (v as Record<string | number, unknown>)[step] : undefined;
  }
  return v;
}

/** A place as a path after a field's name: `[0].script`, `["a b"]`. */
function pathText(at: readonly (string | number)[]): string {
  return at
    .map((step) =>
      typeof step === "number"
        ? `[${step}]`
        : /^[A-Za-z_$][\w$]*$/.test(step)
          ? `.${step}`
          : `[${JSON.stringify(step)}]`,
    )
    .join("");
}

/** Whether `a` (an output-shaped value) and `b` mean the same for `field`, by the diff's own rules. */
function same<K extends string>(
  spec: DiffSpec<K>,
  field: K,
  a: unknown,
  b: unknown,
  props: Record<string, unknown>,
): boolean {
  if (containsUnknown(b)) return false;
  // By the rule alone: `b` is a desired value the program gave, or the recorded one, where "none"
  // is a value (a field the program leaves out never reaches here: it shows as no change).
  return sameByRule(spec.rules?.[field], a, b, props);
}

/**
 * The fields an update writes: those the preview showed as changing (desired differs from
 * recorded) and that are not already live as desired. Throws {@link ChangedSinceRecordedError}
 * when a field the preview showed as changing is live neither as recorded nor as desired.
 */
export function fieldsToWrite<K extends string>(
  describe: string,
  spec: DiffSpec<K>,
  recorded: Record<string, unknown>,
  desired: Record<string, unknown>,
  live: Record<string, unknown>,
): K[] {
  const { write, conflicts } = compareFields(spec, recorded, desired, live);
  if (conflicts.length > 0) throw new ChangedSinceRecordedError(describe, conflicts, spec.secret);
  return write;
}

/** {@link fieldsToWrite}'s comparison: the fields to write, and those live neither as recorded nor as desired. */
function compareFields<K extends string>(
  spec: DiffSpec<K>,
  recorded: Record<string, unknown>,
  desired: Record<string, unknown>,
  live: Record<string, unknown>,
): { write: K[]; conflicts: FieldValues[] } {
  const write: K[] = [];
  const conflicts: FieldValues[] = [];
  for (const field of changedFields(spec, recorded, desired)) {
    if (spec.replaceOnChange.includes(field)) continue;
    if (same(spec, field, live[field], desired[field], live)) continue;
    if (same(spec, field, live[field], recorded[field], live)) write.push(field);
    else
      conflicts.push({
        field,
        recorded: recorded[field],
        live: live[field],
        desired: desired[field],
      });
  }
  return { write, conflicts };
}

/**
 * The conflicts in the program's terms. A diff field that the `view` derives, and the outputs do
 * not hold (a kind's YAML document compared as one `content`), is named by the inputs the kind's
 * read parsed from the live object (`ReadResult.inputs`, the outputs holding them too): each input
 * outside the diff's own fields whose live value differs from the recorded one, with its
 * recorded, live and desired values (`variables: recorded [...], live [...], desired [...]`). The
 * derived field itself is named only when no input shows the difference.
 */
function inInputTerms(
  conflicts: readonly FieldValues[],
  spec: DiffSpec,
  outputs: { recorded: Record<string, unknown>; live: Record<string, unknown> },
  liveInputs: Record<string, unknown> | undefined,
  desired: Record<string, unknown>,
): FieldValues[] {
  const { recorded, live } = outputs;
  const derived = (field: string) => !Object.hasOwn(recorded, field) && !Object.hasOwn(live, field);
  const inputs = [...new Set([...Object.keys(liveInputs ?? {}), ...Object.keys(desired)])].filter(
    (k) => k !== PROVIDER_KEY && !spec.fields.includes(k),
  );
  const named: FieldValues[] = [];
  const add = (f: FieldValues) => {
    if (!named.some((n) => n.field === f.field)) named.push(f);
  };
  for (const conflict of conflicts) {
    const differing = derived(conflict.field) ? inputs.filter((k) => !jsonEqual(recorded[k], live[k])) : [];
    if (differing.length === 0) add(conflict);
    for (const k of differing) add({ field: k, recorded: recorded[k], live: live[k], desired: desired[k] });
  }
  return named;
}

/** The outcome of {@link byInputs}: the merged inputs and the fields to write, or the inputs in conflict. */
type ByInputs<K> = { merged: Record<string, unknown>; write: K[] } | { conflicts: FieldValues[] };

/**
 * A conflict over derived fields (a YAML document), decided input by input as the guard decides
 * fields, when the kind can render inputs (`derive`) and the live document is exactly what its
 * inputs render to (nothing in it that the inputs do not hold, which a write from inputs would
 * lose). An input the program changes (desired differs from recorded) must be live as recorded
 * or as desired, else it is in conflict; an input the program leaves as recorded takes its live
 * value, so a colleague's edit of another part of the document survives the write. `undefined`
 * when the conflict cannot be decided so (the refusal stands): a conflict on a field of the
 * diff's own, no `derive`, a document given whole by the program (its source input, such as
 * `yaml`, desired), or a live document its inputs do not render.
 */
function byInputs<K extends string>(
  u: Pick<GuardedUpdateSpec<K, unknown>, "spec" | "desired" | "derive">,
  found: { write: K[]; conflicts: readonly FieldValues[] },
  outputs: { recorded: Record<string, unknown>; live: Record<string, unknown> },
  views: { recorded: Record<string, unknown>; live: Record<string, unknown> },
  liveInputs: Record<string, unknown> | undefined,
): ByInputs<K> | undefined {
  const { recorded, live } = outputs;
  const desired = u.desired as Record<string, unknown>;
  const derived = (field: string) => !Object.hasOwn(recorded, field) && !Object.hasOwn(live, field);
  if (u.derive === undefined || found.conflicts.some((c) => !derived(c.field))) return undefined;
  const fields = found.conflicts.map((c) => c.field as K);
  // The members a derived field is made from as a whole (a `yaml` output, also an input).
  const sources = Object.keys(recorded).filter((k) =>
    fields.some((f) => jsonEqual(recorded[k], views.recorded[f])),
  );
  if (sources.some((k) => desired[k] !== undefined)) return undefined;
  const keys = [...new Set([...Object.keys(liveInputs ?? {}), ...Object.keys(desired)])].filter(
    (k) => k !== PROVIDER_KEY && !sources.includes(k) && !(fields as string[]).includes(k),
  );
  const eq = (k: string, a: unknown, b: unknown) =>
    containsUnknown(b) ? false : sameByRule(u.spec.rules?.[k as K], a, b, views.live);
  const liveOnly = Object.fromEntries(keys.map((k) => [k, live[k]]));
  const rendered = u.derive(liveOnly) as Record<string, unknown>;
  if (fields.some((f) => !same(u.spec, f, views.live[f], rendered[f], views.live))) return undefined;
  const merged: Record<string, unknown> = {};
  const conflicts: FieldValues[] = [];
  for (const k of keys) {
    const ours = !eq(k, recorded[k], desired[k]);
    if (ours && !eq(k, recorded[k], live[k]) && !eq(k, live[k], desired[k]))
      conflicts.push({ field: k, recorded: recorded[k], live: live[k], desired: desired[k] });
    merged[k] = ours ? desired[k] : live[k];
  }
  if (conflicts.length > 0) return { conflicts };
  const target = u.derive(merged) as Record<string, unknown>;
  const write = [
    ...found.write,
    ...fields.filter((f) => !same(u.spec, f, views.live[f], target[f], views.live)),
  ];
  return { merged, write };
}

/** What {@link guardedUpdate} needs from a resource. */
export interface GuardedUpdateSpec<K extends string, Outputs> {
  /** The object, for messages: `flag "checkout" in workspace "Default"`. */
  describe: string;
  /** The resource's diff spec: its fields and their equality rules. */
  spec: DiffSpec<K>;
  /** The recorded outputs (the engine's `olds`). */
  recorded: Outputs;
  /**
   * The checked inputs (the engine's `news`), in the shape the diff spec compares; where that
   * shape derives a field (`view`), with the inputs beside it: a refusal names the inputs.
   */
  desired: object;
  /**
   * The outputs in the shape the diff spec compares, when that is not the outputs themselves
   * (a pipeline compares its rendered YAML). Default: the outputs. A refusal over a field the view
   * derives (one the outputs do not hold) names instead the inputs the `read` parsed whose live
   * value differs from the recorded one.
   */
  view?: (outs: Outputs) => object;
  /**
   * The kind's `desired` of a set of inputs (its own view of the program's inputs). Given, a
   * conflict over a derived field (a YAML document compared whole) is decided input by input
   * (see {@link byInputs}): a colleague's edit of an input the program does not change is kept,
   * and `write` gets the merged inputs.
   */
  derive?: (inputs: Record<string, unknown>) => object;
  /** Reads the live object: the resource's own `read` verb. */
  read: () => Promise<pulumi.dynamic.ReadResult<Outputs>>;
  /**
   * Whether the live object replaces the recorded state as the base of the guard, asked once the
   * live object is read: true when a change request this resource recorded as pending was applied
   * since (`./change-request.ts` `recordedRequest`), so that the live values are the program's own
   * change, not a colleague's. Default: never.
   */
  rebase?: () => Promise<boolean>;
  /**
   * Writes the `fields` (possibly none) from `desired` onto the live object and returns the new
   * outputs; every other field keeps its `live` value. What it returns is made plain JSON (the
   * engine cannot carry `undefined`). `merged`: the inputs to write instead of the program's, when
   * the update kept a colleague's edit of inputs the program does not change (see `derive`).
   */
  write: (fields: K[], live: Outputs, merged?: Record<string, unknown>) => Promise<Outputs>;
}

/** Runs an update by the rule of this module: read, compare with the recorded state, write the touched fields. */
export async function guardedUpdate<K extends string, Outputs>(
  u: GuardedUpdateSpec<K, Outputs>,
): Promise<pulumi.dynamic.UpdateResult<Outputs>> {
  const found = await u.read();
  if (found.id === undefined || found.props === undefined) throw new GoneSinceRecordedError(u.describe);
  const live = found.props;
  const view = u.view ?? ((outs: Outputs) => outs as object);
  const recorded = (await u.rebase?.()) ? live : u.recorded;
  const desired = u.desired as Record<string, unknown>;
  const views = {
    recorded: view(recorded) as Record<string, unknown>,
    live: view(live) as Record<string, unknown>,
  };
  const compared = compareFields(u.spec, views.recorded, desired, views.live);
  if (compared.conflicts.length === 0) return { outs: plain(await u.write(compared.write, live)) };
  const outputs = { recorded: recorded as Record<string, unknown>, live: live as Record<string, unknown> };
  const liveInputs = found.inputs as Record<string, unknown> | undefined;
  const decided = u.view ? byInputs(u, compared, outputs, views, liveInputs) : undefined;
  if (decided && "merged" in decided)
    return { outs: plain(await u.write(decided.write, live, decided.merged)) };
  const named = decided
    ? decided.conflicts
    : u.view
      ? inInputTerms(compared.conflicts, u.spec, outputs, liveInputs, desired)
      : compared.conflicts;
  throw new ChangedSinceRecordedError(u.describe, named, u.spec.secret);
}

/** The members `fields` of `values` (for a full-replace write: these desired, the rest live). */
export function pickFields<T extends object>(values: T, fields: readonly string[]): Partial<T> {
  const out: Partial<T> = {};
  for (const field of fields)
    if (field in values) (out as Record<string, unknown>)[field] = (values as Record<string, unknown>)[field];
  return out;
}
