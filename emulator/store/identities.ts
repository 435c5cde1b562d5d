/**
 * Identities (ref admin §1.1 "identities"): the attribute values of one key of a traffic type in
 * an environment. Routes: `emulator/admin/identities.ts`.
 * @module
 */
import { z } from "zod";
import { dataRecord } from "../../sdk/core/data-record";
import { notFound } from "../errors";
import { Table } from "./table";

/** The attribute values of one key of a traffic type in an environment (ref admin §1.1 "identities"). */
export const IdentityRecord = z.object({
  trafficTypeId: z.string(),
  environmentId: z.string(),
  key: z.string(),
  /** By attribute id, a user's name ({@link dataRecord}: `__proto__` is kept). */
  values: dataRecord(z.unknown()),
});
/** An identity. */
export type IdentityRecord = z.output<typeof IdentityRecord>;

/** The identities per traffic type and environment. */
export class Identities extends Table<IdentityRecord> {
  constructor() {
    super((i) => `${i.trafficTypeId}/${i.environmentId}/${i.key}`);
  }

  /** One identity. */
  byKey(trafficTypeId: string, environmentId: string, key: string): IdentityRecord | undefined {
    return this.get(`${trafficTypeId}/${environmentId}/${key}`);
  }

  /** Sets an identity's values (all of them), creating it when needed. */
  save(i: IdentityRecord): IdentityRecord {
    return this.put(i);
  }

  /** Merges values into an identity, creating it when needed. */
  merge(i: IdentityRecord): IdentityRecord {
    const had = this.get(this.idOf(i));
    return this.put({ ...i, values: { ...(had?.values ?? {}), ...i.values } });
  }

  /** Removes an identity; 404 when there is none. */
  remove(trafficTypeId: string, environmentId: string, key: string): void {
    if (!this.drop(`${trafficTypeId}/${environmentId}/${key}`))
      throw notFound(`Could not find identity ${key}`);
  }

  /** What a deleted environment takes along: the identities kept there. */
  forgetEnvironment(environmentId: string): void {
    this.dropWhere((i) => i.environmentId === environmentId);
  }

  /** What a deleted traffic type takes along: its identities. */
  forgetTrafficType(trafficTypeId: string): void {
    this.dropWhere((i) => i.trafficTypeId === trafficTypeId);
  }
}
