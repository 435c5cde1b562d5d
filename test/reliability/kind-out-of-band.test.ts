/**
 * Out-of-band edits, on every kind of `provider/kinds.ts` and every input that updates in place
 * (through each kind's sample): a colleague changes the field after `pulumi up` recorded it, then
 * the program changes the same field.
 * - To another value: the update is refused with a message naming the field, and writes nothing
 *   (or, where the sample says the kind keeps such edits, the program's change lands on top).
 * - To the program's own value: the update has nothing to write, sends no write, and returns plain
 *   JSON outputs (no `undefined`, which the engine refuses) that diff as no change.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { jsonEqual } from "../../provider/core/diff";
import { checked, type KindBed, startKindBed, undefinedPaths } from "./kind-bed";
import { kindsUnderTest } from "./samples";

type Props = Record<string, unknown>;
const kinds = kindsUnderTest();

let bed: KindBed;
beforeAll(async () => {
  bed = await startKindBed();
});
afterAll(async () => {
  await bed?.stop();
});

const plainJson = (v: unknown) => JSON.parse(JSON.stringify(v)) as Props;

describe.each(kinds.map((k) => k.name))("%s: an out-of-band edit of each field", (name) => {
  const kind = kinds.find((k) => k.name === name);
  if (!kind) throw new Error(name);
  const { impl, sample } = kind;

  /** A new object of the sample, with the edits made for it. */
  const fresh = async () => {
    const inputs = await checked(name, await sample.inputs(bed.ctx));
    const made = await impl.create(inputs);
    const edits = await sample.edits(bed.ctx, inputs);
    return { id: made.id, outs: plainJson(made.outs), inputs, edits };
  };

  it("to another value than the program's: refused naming the field, nothing written", async () => {
    const probe = await fresh();
    const fields = Object.entries(probe.edits).filter(([, [a, b]]) => !jsonEqual(a, b));
    for (const [field] of fields) {
      const obj = await fresh();
      const [theirs, ours] = obj.edits[field] as readonly [unknown, unknown];
      await impl.update(obj.id, obj.outs, await checked(name, { ...obj.inputs, [field]: theirs }));
      const news = await checked(name, { ...obj.inputs, [field]: ours });
      bed.proxy.reset();
      if (sample.keepsOutOfBand?.[field] || sample.writeOnly?.[field]) {
        const { outs } = await impl.update(obj.id, obj.outs, news);
        expect(undefinedPaths(outs)).toEqual([]);
        continue;
      }
      const refused = await impl.update(obj.id, obj.outs, news).then(
        () => "(no refusal)",
        (e: unknown) => (e instanceof Error ? e.message : String(e)),
      );
      expect({ field, named: refused.includes(field) ? true : refused }).toEqual({ field, named: true });
      expect({ field, writes: bed.proxy.writes().map((r) => `${r.method} ${r.path}`) }).toEqual({
        field,
        writes: [],
      });
    }
  });

  it("to the program's own value: nothing written, plain outputs, no change after", async () => {
    const probe = await fresh();
    for (const field of Object.keys(probe.edits)) {
      const obj = await fresh();
      const [, ours] = obj.edits[field] as readonly [unknown, unknown];
      const news = await checked(name, { ...obj.inputs, [field]: ours });
      await impl.update(obj.id, obj.outs, news);
      bed.proxy.reset();
      const { outs } = await impl.update(obj.id, obj.outs, news);
      expect({ field, undefined: undefinedPaths(outs) }).toEqual({ field, undefined: [] });
      // A field the update sets blindly (idempotent set operations, a value the API never shows)
      // may be written again; any other is not.
      if (!sample.keepsOutOfBand?.[field] && !sample.writeOnly?.[field]) {
        expect({ field, writes: bed.proxy.writes().map((r) => `${r.method} ${r.path}`) }).toEqual({
          field,
          writes: [],
        });
      }
      const read = await impl.read(obj.id, plainJson(outs));
      expect({ field, diff: (await impl.diff(obj.id, plainJson(read.props), news)).changes }).toEqual({
        field,
        diff: false,
      });
    }
  });
});
