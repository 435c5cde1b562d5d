/**
 * Behavioural checks of what a kind promises the engine, for the kinds' own tests:
 * - {@link diffOfEachChange}: which inputs replace. Each input is changed alone (with what a valid
 *   program must change along with it), checked by the kind's `check` and diffed against the
 *   recorded outputs; the test compares the result, one row per input, with its literal table of
 *   a replace naming the input ({@link replaces}), an update in place ({@link UPDATE}) or no
 *   change ({@link NO_CHANGE}).
 * - {@link registrationOf}: what a resource class registers with the engine (type token and
 *   `__provider` text), through `pulumi.runtime.setMocks`.
 * @module
 */
import * as pulumi from "@pulumi/pulumi";
import { expect } from "vitest";

type Props = Record<string, unknown>;

/** What {@link diffOfEachChange} reports for one input. */
export interface DiffOutcome {
  changes: boolean;
  replaces: string[];
}

/** The diff replaces the resource, naming `field` alone. */
export const replaces = (field: string): DiffOutcome => ({ changes: true, replaces: [field] });
/** The diff is an update in place. */
export const UPDATE: DiffOutcome = { changes: true, replaces: [] };
/** The diff sees nothing to do (an input the program keeps to itself). */
export const NO_CHANGE: DiffOutcome = { changes: false, replaces: [] };
/** A row for an input that takes one value only, so no change of it can be written. */
export const ONE_VALUE = "takes one value only";

/** The verbs {@link diffOfEachChange} calls. */
interface Diffing {
  check(olds: never, news: never): Promise<{ inputs?: unknown; failures?: unknown[] }>;
  diff(id: string, olds: never, news: never): Promise<{ changes?: boolean; replaces?: string[] }>;
}

/**
 * For each row of `changes` (input name → the inputs it changes; {@link ONE_VALUE} for an input
 * with a single allowed value), the diff of `olds` against `inputs` with that change, checked.
 * Fails unless the rows name every input of `schema`, and unless each changed program passes
 * `check`.
 */
export async function diffOfEachChange(
  impl: Diffing,
  schema: { shape: object },
  id: string,
  olds: Props,
  inputs: Props,
  changes: Record<string, Props | typeof ONE_VALUE>,
): Promise<Record<string, DiffOutcome | typeof ONE_VALUE>> {
  expect(Object.keys(changes).sort(), "a row for every input").toEqual(Object.keys(schema.shape).sort());
  const out: Record<string, DiffOutcome | typeof ONE_VALUE> = {};
  for (const [field, change] of Object.entries(changes)) {
    if (change === ONE_VALUE) {
      out[field] = ONE_VALUE;
      continue;
    }
    const checked = await impl.check({} as never, { ...inputs, ...change } as never);
    expect(checked.failures ?? [], `check of the program changing ${field}`).toEqual([]);
    const d = await impl.diff(id, olds as never, checked.inputs as never);
    out[field] = { changes: d.changes ?? false, replaces: d.replaces ?? [] };
  }
  return out;
}

/** The inputs whose change alone replaces, in the table's order: what the kind's replace list must say. */
export const replacing = (table: Record<string, DiffOutcome | typeof ONE_VALUE>): string[] =>
  Object.entries(table)
    .filter(([, o]) => o !== ONE_VALUE && o.replaces.length > 0)
    .map(([field]) => field);

/** A resource class as `resourceClass` makes it. */
type ResourceClass = new (name: string, args: never) => pulumi.CustomResource;

/**
 * What `new cls(name, args)` registers with the engine: its type token and the `__provider` text
 * among its inputs (through `pulumi.runtime.setMocks`, which this replaces for the test file).
 */
export async function registrationOf(
  cls: ResourceClass,
  args: Props,
): Promise<{ type: string; name: string; provider: unknown }> {
  const registered: pulumi.runtime.MockResourceArgs[] = [];
  await pulumi.runtime.setMocks(
    {
      newResource: (a) => {
        registered.push(a);
        return { id: `${a.name}-id`, state: a.inputs };
      },
      call: () => ({}),
    },
    "shop",
    "dev",
  );
  const resource = new cls("r", args as never);
  await new Promise((resolve) => resource.urn.apply(resolve));
  expect(registered).toHaveLength(1);
  const [r] = registered;
  return { type: r!.type, name: r!.name, provider: (r!.inputs as Props).__provider };
}
