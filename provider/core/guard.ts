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
import { containsUnknown } from "./check";
import { changedFields, type DiffSpec, jsonEqual } from "./diff";
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
  constructor(describe: string, fields: readonly FieldValues[]) {
    const lines = fields.map(
      (f) => `  ${f.field}: recorded ${show(f.recorded)}, live ${show(f.live)}, desired ${show(f.desired)}`,
    );
    super(
      `${describe} was changed outside Pulumi since its state was recorded, in ${
        fields.length === 1 ? "a field" : "fields"
      } this update changes:\n${lines.join("\n")}\nNothing was written. Run \`pulumi refresh\` to record the live values ` +
        "(the next `pulumi preview` then shows exactly what `pulumi up` will change), or `pulumi up --refresh`.",
    );
    this.name = "ChangedSinceRecordedError";
    this.fields = fields;
  }
}

/** How an update fails when the object is gone. */
export class GoneSinceRecordedError extends Error {
  constructor(describe: string) {
    super(
      `${describe} was deleted outside Pulumi since its state was recorded; nothing was written. ` +
        "Run `pulumi refresh` (it removes the object from the state) and `pulumi up` to create it again, or `pulumi up --refresh`.",
    );
    this.name = "GoneSinceRecordedError";
  }
}

/** A value for a message: JSON, cut at 160 characters. */
function show(value: unknown): string {
  const text = value === undefined ? "(none)" : JSON.stringify(value);
  return text.length > 160 ? `${text.slice(0, 157)}...` : text;
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
  const rule = spec.rules?.[field];
  if (rule?.equals) return rule.equals(a, b, props);
  if (rule?.normalize) return jsonEqual(rule.normalize(a), rule.normalize(b));
  return jsonEqual(a, b);
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
  if (conflicts.length > 0) throw new ChangedSinceRecordedError(describe, conflicts);
  return write;
}

/** What {@link guardedUpdate} needs from a resource. */
export interface GuardedUpdateSpec<K extends string, Outputs> {
  /** The object, for messages: `flag "checkout" in workspace "Default"`. */
  describe: string;
  /** The resource's diff spec: its fields and their equality rules. */
  spec: DiffSpec<K>;
  /** The recorded outputs (the engine's `olds`). */
  recorded: Outputs;
  /** The checked inputs (the engine's `news`), in the shape the diff spec compares. */
  desired: object;
  /**
   * The outputs in the shape the diff spec compares, when that is not the outputs themselves
   * (a pipeline compares its rendered YAML). Default: the outputs.
   */
  view?: (outs: Outputs) => object;
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
   * engine cannot carry `undefined`).
   */
  write: (fields: K[], live: Outputs) => Promise<Outputs>;
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
  const fields = fieldsToWrite(
    u.describe,
    u.spec,
    view(recorded) as Record<string, unknown>,
    u.desired as Record<string, unknown>,
    view(live) as Record<string, unknown>,
  );
  return { outs: plain(await u.write(fields, live)) };
}

/** The members `fields` of `values` (for a full-replace write: these desired, the rest live). */
export function pickFields<T extends object>(values: T, fields: readonly string[]): Partial<T> {
  const out: Partial<T> = {};
  for (const field of fields)
    if (field in values) (out as Record<string, unknown>)[field] = (values as Record<string, unknown>)[field];
  return out;
}
