/**
 * Lost responses, on every kind of `provider/kinds.ts` (through its sample): the answer to each
 * write of a create, of an update and of a delete is lost after the service acted on it (the
 * connection drops). Whatever the provider answers, running the step again as `pulumi up` would
 * (the same create, the same update from the same recorded state, the same delete) converges:
 * - a create leaves exactly what an uninterrupted create leaves (no duplicate, no orphan: the
 *   emulator's stored records change by the same counts), and answers the object's id;
 * - an update ends with the object as the program declares it (a no-change diff after a read);
 * - a delete ends with the object gone and every record the create made removed.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  censusDelta,
  checked,
  createAsEngine,
  type KindBed,
  names,
  startKindBed,
  undefinedPaths,
} from "./kind-bed";
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

/** Runs `step`, and once more if it failed (the user's next `pulumi up`); the second must succeed. */
async function twice<T>(step: () => Promise<T>): Promise<{ result: T; failedOnce: string | undefined }> {
  try {
    return { result: await step(), failedOnce: undefined };
  } catch (e) {
    return { result: await step(), failedOnce: e instanceof Error ? e.message : String(e) };
  }
}

/** How many writes `step` sends through the proxy. */
async function writesOf(step: () => Promise<unknown>): Promise<number> {
  bed.proxy.reset();
  await step();
  return bed.proxy.writes().length;
}

describe.each(names(kinds))("%s: a lost answer to each write", (name) => {
  const kind = kinds.find((k) => k.name === name);
  if (!kind) throw new Error(name);
  const { impl, sample } = kind;

  it("of its create: one object, as an uninterrupted create leaves it", async () => {
    // An uninterrupted create: its writes and what it adds to the store.
    const cleanInputs = await checked(name, await sample.inputs(bed.ctx));
    const before = await bed.census();
    let cleanId = "";
    const writes = await writesOf(async () => {
      cleanId = (await impl.create(cleanInputs)).id;
    });
    const expected = censusDelta(before, await bed.census());
    expect(writes).toBeGreaterThan(0);
    expect(cleanId).not.toBe("");
    for (let n = 0; n < writes; n++) {
      const inputs = await checked(name, await sample.inputs(bed.ctx));
      const start = await bed.census();
      bed.proxy.onWrite(0 + n, { lose: true });
      if (sample.lostCreateRefused) {
        // The API cannot find it: the create refuses, saying what to do; nothing else is made.
        await expect(impl.create(inputs)).rejects.toThrow(sample.lostCreateRefused);
        expect({ write: n, delta: censusDelta(start, await bed.census()) }).toEqual({
          write: n,
          delta: expected,
        });
        continue;
      }
      const result = await createAsEngine(impl, inputs);
      expect({ write: n, delta: censusDelta(start, await bed.census()) }).toEqual({
        write: n,
        delta: expected,
      });
      expect(undefinedPaths(result.outs)).toEqual([]);
      const read = await impl.read(result.id, JSON.parse(JSON.stringify(result.outs)));
      expect({ write: n, id: read.id }).toEqual({ write: n, id: result.id });
    }
  });

  /** A new object of the sample: its id, outputs, and the inputs its state records. */
  const fresh = async () => {
    const recorded = await checked(name, await sample.inputs(bed.ctx));
    const made = await impl.create(recorded);
    return { id: made.id, outs: JSON.parse(JSON.stringify(made.outs)) as Props, recorded };
  };

  it("of its update: the object as declared", async () => {
    const probe = await fresh();
    /** The program's next inputs: every edit's second value (edits are made per object). */
    const changed = async (recorded: Props) => {
      const edits = Object.entries(await sample.edits(bed.ctx, recorded));
      return edits.length === 0
        ? undefined
        : checked(name, { ...recorded, ...Object.fromEntries(edits.map(([f, [, b]]) => [f, b])) });
    };
    const probeNews = await changed(probe.recorded);
    // A kind whose every input replaces has no update to attack (the samples' coverage test
    // checks that no updatable input is left out).
    if (probeNews === undefined) return;
    const writes = await writesOf(() => impl.update(probe.id, probe.outs, probeNews));
    expect(writes).toBeGreaterThan(0);
    for (let n = 0; n < writes; n++) {
      const obj = await fresh();
      const news = (await changed(obj.recorded)) as Props;
      bed.proxy.onWrite(n, { lose: true });
      const { result } = await twice(() => impl.update(obj.id, obj.outs, news));
      expect(undefinedPaths(result.outs)).toEqual([]);
      const read = await impl.read(obj.id, JSON.parse(JSON.stringify(result.outs)));
      const live = JSON.parse(JSON.stringify(read.props)) as Props;
      expect({ write: n, diff: (await impl.diff(obj.id, live, news)).changes }).toEqual({
        write: n,
        diff: false,
      });
    }
  });

  it("of its delete: the object gone, every record it made removed", async () => {
    // An owner's first delete in a process also reads which environments require approvals (dry
    // runs, once per process: `ownerDeleteGate`): the writes counted are those of every later one.
    const warm = await fresh();
    await impl.delete(warm.id, warm.outs);
    const probe = await fresh();
    const writes = await writesOf(() => impl.delete(probe.id, probe.outs));
    expect(writes).toBeGreaterThan(0);
    for (let n = 0; n < writes; n++) {
      const inputs = await checked(name, await sample.inputs(bed.ctx));
      const start = await bed.census();
      const made = await impl.create(inputs);
      const outs = JSON.parse(JSON.stringify(made.outs)) as Props;
      bed.proxy.onWrite(n, { lose: true });
      await twice(() => impl.delete(made.id, outs));
      if (!sample.noRead) {
        expect({ write: n, id: (await impl.read(made.id, outs)).id ?? "" }).toEqual({ write: n, id: "" });
      }
      expect({ write: n, left: censusDelta(start, await bed.census()) }).toEqual({ write: n, left: {} });
    }
  });
});
