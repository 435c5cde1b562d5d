/**
 * The samples of the kind-wide suites: every kind of `provider/kinds.ts` has one, each covers
 * every input that updates in place (edited, or left out with a reason), and each sample's object
 * goes through its kind's whole lifecycle against the emulator: check, create, a no-change diff,
 * a read equal to what create recorded, each edit applied in place, delete, a read that finds it
 * gone.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KINDS } from "../../provider/kinds";
import { typeName } from "../../provider/types";
import { checked, type KindBed, names, startKindBed, undefinedPaths } from "./kind-bed";
import { kindsUnderTest, SAMPLES, updatableInputs } from "./samples";

type Props = Record<string, unknown>;
const kinds = kindsUnderTest();

let bed: KindBed;
beforeAll(async () => {
  bed = await startKindBed();
});
afterAll(async () => {
  await bed?.stop();
});

describe("the samples", () => {
  it("cover exactly the kinds of provider/kinds.ts", () => {
    expect(Object.keys(SAMPLES).sort()).toEqual(Object.keys(KINDS).map(typeName).sort());
    expect(names(kinds)).toEqual(Object.keys(KINDS).map(typeName));
  });

  it.each(names(kinds))(
    "%s: every input that updates in place is edited or left out with a reason",
    async (name) => {
      const kind = kinds.find((k) => k.name === name);
      if (!kind) throw new Error(name);
      const inputs = await checked(name, await kind.sample.inputs(bed.ctx));
      const edited = Object.keys(await kind.sample.edits(bed.ctx, inputs));
      const left = Object.keys(kind.sample.notEdited ?? {});
      expect([...edited, ...left].sort()).toEqual(updatableInputs(kind).sort());
    },
  );
});

describe.each(names(kinds))("%s sample", (name) => {
  it("lives through check, create, diff, read, each edit, delete and a read of the gone object", async () => {
    const kind = kinds.find((k) => k.name === name);
    if (!kind) throw new Error(name);
    const { impl, sample } = kind;
    const inputs = await checked(name, await sample.inputs(bed.ctx));
    const edits = await sample.edits(bed.ctx, inputs);
    const created = await impl.create(inputs);
    expect(undefinedPaths(created.outs)).toEqual([]);
    let outs = created.outs as Props;
    expect(await impl.diff(created.id, outs, inputs)).toMatchObject({ changes: false });
    const read = await impl.read(created.id, outs);
    expect(read.id).toBe(created.id);
    for (const [field, [, value]] of Object.entries(edits)) {
      const news = await checked(name, { ...inputs, ...pick(outs, inputs), [field]: value });
      const diff = await impl.diff(created.id, outs, news);
      expect({ field, changes: diff.changes, replaces: diff.replaces ?? [] }).toEqual({
        field,
        changes: true,
        replaces: [],
      });
      const updated = await impl.update(created.id, outs, news);
      expect(undefinedPaths(updated.outs)).toEqual([]);
      outs = updated.outs as Props;
      expect({ field, diff: (await impl.diff(created.id, outs, news)).changes }).toEqual({
        field,
        diff: false,
      });
    }
    await impl.delete(created.id, outs);
    const gone = await impl.read(created.id, outs);
    expect(gone.id ?? "").toBe(sample.noRead ? created.id : "");
  });
});

/** The members of `outs` that are inputs of the program (the state's recorded inputs). */
function pick(outs: Props, inputs: Props): Props {
  return Object.fromEntries(Object.keys(inputs).map((k) => [k, outs[k] ?? inputs[k]]));
}
