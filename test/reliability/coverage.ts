/**
 * What a kind-wide suite exercised: each test body records its kind when it has run its attack to
 * the end (a kind whose sample declares an exception records it with the exception's reason), and
 * the suite's last test asserts that every test exercised exactly the kinds of the list, so a kind
 * that a suite skips (an early return, a filter, a sample that makes nothing to attack) fails it.
 * @module
 */
import { expect } from "vitest";

/** Kinds exercised, per test (its title without the kind). */
export class Exercised {
  private readonly seen = new Map<string, Set<string>>();
  /** The exceptions taken: `test: kind: reason`. */
  readonly exceptions: string[] = [];

  /** Records that `test` ran to its end on `kind` (with the sample's declared `exception`, if any). */
  ran(test: string, kind: string, exception?: string): void {
    const kinds = this.seen.get(test) ?? new Set<string>();
    kinds.add(kind);
    this.seen.set(test, kinds);
    if (exception !== undefined) this.exceptions.push(`${test}: ${kind}: ${exception}`);
  }

  /** Asserts that each of `tests` exercised exactly `kinds` (in any order). */
  expectEvery(tests: readonly string[], kinds: readonly string[]): void {
    const want = [...kinds].sort();
    for (const test of tests) {
      expect({ test, kinds: [...(this.seen.get(test) ?? [])].sort() }).toEqual({ test, kinds: want });
    }
  }
}
