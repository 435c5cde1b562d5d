/**
 * The samples of the kind-wide suites: every kind of `provider/kinds.ts` has one, each covers
 * every input that updates in place (edited, or left out with a reason), and each sample's object
 * goes through its kind's whole lifecycle against the emulator: check, create, a no-change diff,
 * a read equal to what create recorded, each edit applied in place, delete, a read that finds it
 * gone.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KIND_LIST, KINDS } from "../../provider/kinds";
import { typeName } from "../../provider/types";
import { checked, type KindBed, names, startKindBed, undefinedPaths } from "./kind-bed";
import { kindsUnderTest, SAMPLES, sampleOf, updatableInputs } from "./samples";

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
  it("cover exactly the kinds of provider/kinds.ts, and add to kinds of the list only", () => {
    expect(names(kinds)).toEqual(Object.keys(KINDS).map(typeName));
    expect(Object.keys(SAMPLES).filter((k) => !names(kinds).includes(k))).toEqual([]);
  });

  it("a kind with no entry here is made from its definition's example, its edits derived from its schema", async () => {
    const native = kinds.find((k) => k.name === "FlagDefinition")!;
    const sample = sampleOf(native, {});
    const inputs = await sample.inputs(bed.ctx);
    // The example's inputs, with the Flag it names made first (by the Flag's own sample).
    const flag = bed.made().at(-1)!;
    expect(flag.kind).toBe("Flag");
    expect(flag.inputs.name).toMatch(/^new-checkout_\d{3}$/);
    expect(inputs).toEqual({
      ...KIND_LIST.find((k) => k.name === "FlagDefinition")!.example!.inputs,
      flag: flag.outs.name,
    });
    expect(await sample.edits(bed.ctx, await checked("FlagDefinition", inputs))).toEqual({
      // A number in bounds, a list of strings, a boolean flipped, each taken by the kind's check; no
      // string for the treatments (a default must be one of them: a rule the schema cannot show).
      trafficAllocation: [50, 80],
      flagSets: [["by a colleague"], ["by the program"]],
      killed: [true, true],
    });
  });

  it("the unique inputs of an example are made unique per object, an e-mail before its @", async () => {
    const native = kinds.find((k) => k.name === "UserInvite")!;
    const [a, b] = [await sampleOf(native, {}).inputs(bed.ctx), await sampleOf(native, {}).inputs(bed.ctx)];
    expect(a.email).toMatch(/^dev_\d{3}@example\.test$/);
    expect(b.email).toMatch(/^dev_\d{3}@example\.test$/);
    expect(a.email).not.toBe(b.email);
    expect({ ...a, email: "" }).toEqual({ email: "", groups: [] });
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
