/**
 * Updates guarded by the recorded state, on every kind of `provider/kinds.ts` (through its
 * sample) and every input that updates in place, directly and through the real gRPC
 * dynamic-provider host with each kind's `__provider` text (as the engine drives it: a result the
 * engine's `Struct` refuses, such as an `undefined`, fails there with "Unexpected struct type."):
 * - a colleague changed the field the program changes: the update fails naming the field with its
 *   recorded, live and desired values and writes nothing; a refresh then the next up apply the
 *   program's value;
 * - a colleague made exactly the program's change: the update writes nothing and returns outputs
 *   the engine stores, that a read then diffs as no change;
 * - the object was deleted outside Pulumi: the update fails saying so and writes nothing (it is
 *   not silently re-created), a refresh sees it gone, and the next up creates it again, leaving
 *   the emulator's stored records as they were before the deletion;
 * - a change outside Pulumi of what the program does not declare (the sample's `drifts`, such as
 *   a user deactivated): a refresh sees it and the next up puts it back.
 * `test/e2e/recorded-guard.test.ts` runs the first and third through the real engine.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { jsonEqual } from "../../provider/core/diff";
import { type Driver, MODES, type Mode, type ProviderHost, startProviderHost } from "../provider/harness";
import { Exercised } from "./coverage";
import {
  checked,
  type KindBed,
  kindDriver,
  names,
  plainJson,
  startKindBed,
  undefinedPaths,
} from "./kind-bed";
import { type Edit, type KindUnderTest, kindsUnderTest } from "./samples";

type Props = Record<string, unknown>;
const kinds = kindsUnderTest();
const exercised = new Exercised();

let bed: KindBed;
let host: ProviderHost;
beforeAll(async () => {
  bed = await startKindBed();
  host = await startProviderHost();
  await host.configure(bed.config);
});
afterAll(async () => {
  await host?.stop();
  await bed?.stop();
});

const messageOf = (e: unknown) => (e instanceof Error ? e.message : String(e));
const literal = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** The kind's driver in `mode`: its implementation, or the host with its `__provider` text. */
const driverOf = (kind: KindUnderTest, mode: Mode): Driver => kindDriver(kind, mode, host);

/** `METHOD path` of each write the service accepted since the proxy's last reset. */
const acceptedWrites = () =>
  bed.proxy
    .writes()
    .filter((r) => r.status < 300)
    .map((r) => `${r.method} ${r.path}`);

const TESTS = {
  refused: "a colleague's edit of the field the program changes",
  same: "a colleague's edit equal to the program's",
  deleted: "deleted outside Pulumi",
  drifts: "a change outside Pulumi of what the program does not declare",
} as const;

describe.each(MODES)("(%s)", (mode) => {
  describe.each(names(kinds))("%s: updates guarded by the recorded state", (name) => {
    const kind = kinds.find((k) => k.name === name);
    if (!kind) throw new Error(name);
    const { impl, sample } = kind;
    const test = (what: string) => `${what} (${mode})`;
    /** Kept by the update rather than refused, or never shown by the API. */
    const blind = (field: string) => Boolean(sample.keepsOutOfBand?.[field] || sample.writeOnly?.[field]);

    /** A new object of the sample, created through the driver, with the edits made for it. */
    const fresh = async (d: Driver) => {
      const inputs = await checked(name, await sample.inputs(bed.ctx));
      const made = await d.create(inputs);
      const edits = await sample.edits(bed.ctx, inputs);
      return { id: made.id, outs: plainJson(made.outs), inputs, edits };
    };

    it(`${TESTS.refused}: refused naming it with its recorded, live and desired values, nothing written; a refresh then the next up apply the program's`, async () => {
      const d = driverOf(kind, mode);
      const probe = await fresh(d);
      const fields = Object.entries(probe.edits)
        .filter(([f, [a, b]]) => !jsonEqual(a, b) && !blind(f))
        .map(([f]) => f);
      for (const field of fields) {
        const obj = await fresh(d);
        const [theirs, ours] = obj.edits[field] as Edit;
        // The colleague, outside this program.
        await impl.update(obj.id, obj.outs, await checked(name, { ...obj.inputs, [field]: theirs }));
        const news = await checked(name, { ...obj.inputs, [field]: ours });
        bed.proxy.reset();
        const refused = await d.update(obj.id, obj.outs, news).then(
          () => "(no refusal)",
          (e: unknown) => messageOf(e),
        );
        const line = new RegExp(`^ {2}${literal(field)}[.[:].*recorded .*, live .*, desired `, "m");
        expect({
          field,
          changed: refused.includes("was changed outside Pulumi since its state was recorded"),
          line: line.test(refused),
          nothingWritten: refused.includes("Nothing was written. Run `pulumi refresh`"),
        }).toEqual({ field, changed: true, line: true, nothingWritten: true });
        expect({ field, writes: bed.proxy.writes().map((r) => `${r.method} ${r.path}`) }).toEqual({
          field,
          writes: [],
        });
        // `pulumi refresh`, then `pulumi up`.
        const read = await d.read(obj.id, obj.outs);
        expect({ field, id: read.id }).toEqual({ field, id: obj.id });
        const refreshed = plainJson(read.props);
        expect({ field, changes: (await d.diff(obj.id, refreshed, news)).changes }).toEqual({
          field,
          changes: true,
        });
        const { outs } = await d.update(obj.id, refreshed, news);
        const after = plainJson((await d.read(obj.id, plainJson(outs))).props);
        expect({ field, changes: (await d.diff(obj.id, after, news)).changes }).toEqual({
          field,
          changes: false,
        });
      }
      exercised.ran(test(TESTS.refused), name);
    });

    it(`${TESTS.same}: nothing written, outputs the engine stores, no change after`, async () => {
      const d = driverOf(kind, mode);
      const probe = await fresh(d);
      for (const field of Object.keys(probe.edits)) {
        const obj = await fresh(d);
        const [, ours] = obj.edits[field] as Edit;
        const news = await checked(name, { ...obj.inputs, [field]: ours });
        await impl.update(obj.id, obj.outs, news);
        bed.proxy.reset();
        const result = await d.update(obj.id, obj.outs, news).then(
          (r) => r.outs,
          (e: unknown) => `failed: ${messageOf(e)}`,
        );
        expect({ field, result: typeof result === "string" ? result : "outputs" }).toEqual({
          field,
          result: "outputs",
        });
        const outs = result as Props;
        expect({ field, undefined: undefinedPaths(outs) }).toEqual({ field, undefined: [] });
        // A field the update sets blindly (idempotent set operations, a value the API never
        // shows) may be written again; any other is not.
        if (!blind(field)) {
          expect({ field, writes: bed.proxy.writes().map((r) => `${r.method} ${r.path}`) }).toEqual({
            field,
            writes: [],
          });
        }
        const read = await d.read(obj.id, plainJson(outs));
        expect({ field, changes: (await d.diff(obj.id, plainJson(read.props), news)).changes }).toEqual({
          field,
          changes: false,
        });
      }
      exercised.ran(test(TESTS.same), name);
    });

    it(`${TESTS.deleted}: the update refuses and writes nothing; a refresh sees it gone; the next up creates it again, the stored records as before`, async () => {
      const d = driverOf(kind, mode);
      const obj = await fresh(d);
      const before = await bed.census();
      // Outside this program: what the kind's own delete sends.
      await impl.delete(obj.id, obj.outs);
      if (sample.noRead) {
        exercised.ran(test(TESTS.deleted), name, sample.noRead);
        return;
      }
      const [field] = Object.keys(obj.edits);
      const news =
        field === undefined
          ? obj.inputs
          : await checked(name, { ...obj.inputs, [field]: (obj.edits[field] as Edit)[1] });
      if (field !== undefined) {
        bed.proxy.reset();
        const refused = await d.update(obj.id, obj.outs, news).then(
          () => "(no refusal)",
          (e: unknown) => messageOf(e),
        );
        expect(refused).toContain(
          "was deleted outside Pulumi since its state was recorded; nothing was written",
        );
        expect(acceptedWrites()).toEqual([]);
      }
      // `pulumi refresh` drops it from the state; `pulumi up` of the same program creates it.
      expect((await d.read(obj.id, obj.outs)).id ?? "").toBe("");
      const again = await d.create(obj.inputs);
      expect(undefinedPaths(again.outs)).toEqual([]);
      expect(await bed.census()).toEqual(before);
      const read = await d.read(again.id, again.outs);
      expect((await d.diff(again.id, plainJson(read.props), obj.inputs)).changes).toBe(false);
      exercised.ran(test(TESTS.deleted), name);
    });

    it(`${TESTS.drifts}: seen by a refresh, put back by the next up`, async () => {
      const d = driverOf(kind, mode);
      for (const [label, drift] of Object.entries(sample.drifts ?? {})) {
        const obj = await fresh(d);
        await drift.settle?.(bed.ctx, obj);
        const settled = plainJson((await d.read(obj.id, obj.outs)).props);
        await drift.change(bed.ctx, { id: obj.id, outs: settled });
        const drifted = plainJson((await d.read(obj.id, settled)).props);
        const moved = Object.keys({ ...settled, ...drifted }).filter(
          (k) => !jsonEqual(settled[k], drifted[k]),
        );
        expect({ label, seen: moved.length > 0 }).toEqual({ label, seen: true });
        expect({ label, changes: (await d.diff(obj.id, drifted, obj.inputs)).changes }).toEqual({
          label,
          changes: true,
        });
        const { outs } = await d.update(obj.id, drifted, obj.inputs);
        const after = plainJson((await d.read(obj.id, plainJson(outs))).props);
        expect({ label, back: Object.fromEntries(moved.map((k) => [k, after[k]])) }).toEqual({
          label,
          back: Object.fromEntries(moved.map((k) => [k, settled[k]])),
        });
        expect({ label, changes: (await d.diff(obj.id, after, obj.inputs)).changes }).toEqual({
          label,
          changes: false,
        });
      }
      exercised.ran(test(TESTS.drifts), name);
    });
  });

  it("every kind of the list went through every case", () => {
    exercised.expectEvery(
      Object.values(TESTS).map((t) => `${t} (${mode})`),
      names(kinds),
    );
  });
});
