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
import { checked, type KindBed, plainJson, startKindBed, undefinedPaths } from "./kind-bed";
import { type Edit, kindsUnderTest } from "./samples";

const kinds = kindsUnderTest();

let bed: KindBed;
beforeAll(async () => {
  bed = await startKindBed();
});
afterAll(async () => {
  await bed?.stop();
});

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

  it("of another field: the colleague's value survives the program's change", async () => {
    const probe = await fresh();
    const fields = Object.keys(probe.edits);
    if (fields.length < 2) return;
    for (const [i, theirField] of fields.entries()) {
      const ourField = fields[(i + 1) % fields.length] as string;
      const obj = await fresh();
      const theirs = (obj.edits[theirField] as Edit)[0];
      const ours = (obj.edits[ourField] as Edit)[1];
      await impl.update(obj.id, obj.outs, await checked(name, { ...obj.inputs, [theirField]: theirs }));
      const news = await checked(name, { ...obj.inputs, [ourField]: ours });
      const { outs } = await impl.update(obj.id, obj.outs, news);
      expect({ theirField, ourField, undefined: undefinedPaths(outs) }).toEqual({
        theirField,
        ourField,
        undefined: [],
      });
      const blind = (f: string) => sample.writeOnly?.[f] || sample.keepsOutOfBand?.[f];
      if (blind(theirField) || blind(ourField)) continue;
      const both = await checked(name, { ...obj.inputs, [theirField]: theirs, [ourField]: ours });
      const read = await impl.read(obj.id, plainJson(outs));
      expect({
        theirField,
        ourField,
        diff: (await impl.diff(obj.id, plainJson(read.props), both)).changes,
      }).toEqual({
        theirField,
        ourField,
        diff: false,
      });
    }
  });

  it("seen by a refresh, then put back by the next up", async () => {
    const probe = await fresh();
    for (const field of Object.keys(probe.edits)) {
      if (sample.writeOnly?.[field] || sample.keepsOutOfBand?.[field]) continue;
      const obj = await fresh();
      const [theirs, ours] = obj.edits[field] as Edit;
      // A field of two values (a boolean) cannot drift away from the program's own change.
      if (jsonEqual(theirs, ours)) continue;
      // The program manages the field (an input left out is often not managed at all).
      const declared = await checked(name, { ...obj.inputs, [field]: ours });
      const managed = plainJson((await impl.update(obj.id, obj.outs, declared)).outs);
      await impl.update(obj.id, managed, await checked(name, { ...obj.inputs, [field]: theirs }));
      const props = plainJson((await impl.read(obj.id, managed)).props);
      expect({ field, drift: (await impl.diff(obj.id, props, declared)).changes }).toEqual({
        field,
        drift: true,
      });
      const { outs } = await impl.update(obj.id, props, declared);
      const read = await impl.read(obj.id, plainJson(outs));
      expect({ field, diff: (await impl.diff(obj.id, plainJson(read.props), declared)).changes }).toEqual({
        field,
        diff: false,
      });
    }
  });

  it("deleted outside Pulumi: the update refuses saying so and makes nothing; a refresh sees it gone", async () => {
    const obj = await fresh();
    const fields = Object.keys(obj.edits);
    await impl.delete(obj.id, obj.outs);
    if (sample.noRead) return;
    expect((await impl.read(obj.id, obj.outs)).id ?? "").toBe("");
    if (fields.length === 0) return;
    const [field] = fields as [string];
    const news = await checked(name, { ...obj.inputs, [field]: (obj.edits[field] as Edit)[1] });
    bed.proxy.reset();
    const refused = await impl.update(obj.id, obj.outs, news).then(
      () => "(no refusal)",
      (e: unknown) => (e instanceof Error ? e.message : String(e)),
    );
    expect(refused).toMatch(/deleted|gone|no longer exists|not found/i);
    // Nothing made again: no write the service accepted.
    expect(
      bed.proxy
        .writes()
        .filter((r) => r.status < 300)
        .map((r) => `${r.method} ${r.path}`),
    ).toEqual([]);
  });
});
