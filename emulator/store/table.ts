/**
 * What every part of the store is built on: a {@link Table} of records by id (private map,
 * insertion order kept, as the lists of the real APIs are) and the account's {@link ChangeClock}.
 * @module
 */
import { randomInt } from "node:crypto";

/**
 * Records of one kind by id. Reads are public; only the store part that extends it adds, changes
 * or removes records (its domain methods keep its indexes and rules with each change).
 */
export class Table<R> {
  readonly #rows = new Map<string, R>();

  /** @param idOf - the record's key in the table */
  constructor(protected readonly idOf: (r: R) => string) {}

  /** The record with this id. */
  get(id: string): R | undefined {
    return this.#rows.get(id);
  }

  /** Every record, in the order they were added. */
  list(): R[] {
    return [...this.#rows.values()];
  }

  /** The first record that matches. */
  find(match: (r: R) => boolean): R | undefined {
    for (const r of this.#rows.values()) if (match(r)) return r;
    return undefined;
  }

  /** The records whose fields equal these, in the order they were added. */
  where(fields: Partial<R>): R[] {
    const pairs = Object.entries(fields) as [keyof R, unknown][];
    return this.list().filter((r) => pairs.every(([k, v]) => r[k] === v));
  }

  /** Adds a record, or replaces the one with its id (keeping its place). */
  protected put(r: R): R {
    this.#rows.set(this.idOf(r), r);
    return r;
  }

  /** Removes a record; true when there was one. */
  protected drop(id: string): boolean {
    return this.#rows.delete(id);
  }

  /** Removes every record that matches (what a deleted owner takes along). */
  protected dropWhere(match: (r: R) => boolean): void {
    for (const r of this.list()) if (match(r)) this.drop(this.idOf(r));
  }

  /** Replaces every record (a state file loaded, or rolled back to). */
  restore(records: Iterable<R>): void {
    this.#rows.clear();
    for (const r of records) this.put(r);
  }

  /** Every record, for the state file. */
  dump(): R[] {
    return this.list();
  }
}

/** The inner map of a two-level map, created on demand. */
export function inner<K, K2, V>(outer: Map<K, Map<K2, V>>, key: K): Map<K2, V> {
  let m = outer.get(key);
  if (!m) {
    m = new Map();
    outer.set(key, m);
  }
  return m;
}

/** Every value of a two-level map. */
export const flatValues = <V>(outer: Map<unknown, Map<unknown, V>>): V[] =>
  [...outer.values()].flatMap((m) => [...m.values()]);

/** The account's SDK change numbers: strictly increasing, close to the clock (sdk-wire-format §2.5). */
export class ChangeClock {
  /** The last number given. */
  value = 0;

  /** The next change number. */
  next(): number {
    this.value = Math.max(Date.now(), this.value + 1);
    return this.value;
  }
}

/** A random signed 32-bit integer (SDK seeds). */
export const randomInt32 = (): number => randomInt(-(2 ** 31), 2 ** 31);
