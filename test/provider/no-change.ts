/**
 * The lifecycle tests' "no change" assertion: the same inputs diff as no change, and deciding so
 * sends no request (diff reads nothing).
 * @module
 */
import { expect } from "vitest";
import type { Driver } from "./harness";
import type { Testbed } from "./testbed";

type Props = Record<string, unknown>;

/** Asserts that `p.diff(id, outs, inputs)` is no change, and that no request reached the emulator. */
export async function expectNoChange(
  bed: Testbed,
  p: Driver,
  id: string,
  outs: Props,
  inputs: Props,
): Promise<void> {
  bed.reset();
  expect(await p.diff(id, outs, inputs)).toEqual({
    changes: false,
    replaces: [],
    deleteBeforeReplace: false,
  });
  expect(bed.emu.requests()).toEqual([]);
}
