/**
 * The attributes of traffic types (ref admin §1.1 "attributes", §9.1): the schema of what an
 * identity may carry, by traffic type and attribute id. Routes: `emulator/admin/traffic-type-attribute.ts`.
 * @module
 */
import { z } from "zod";
import { conflict } from "../errors";
import type { TrafficTypeRecord } from "./records";
import { Table } from "./table";

/** An attribute of a traffic type (ref admin §1.1 "attributes", §9.1). */
export const AttributeRecord = z.object({
  trafficTypeId: z.string(),
  id: z.string(),
  displayName: z.string().nullable(),
  description: z.string().nullable(),
  dataType: z.string().nullable(),
  isSearchable: z.boolean(),
  suggestedValues: z.array(z.string()),
});
/** An attribute of a traffic type. */
export type AttributeRecord = z.output<typeof AttributeRecord>;

/** The attributes of every traffic type, by traffic type and attribute id. */
export class Attributes extends Table<AttributeRecord> {
  constructor() {
    super((a) => `${a.trafficTypeId}/${a.id}`);
  }

  /** One attribute of a traffic type. */
  byId(trafficTypeId: string, id: string): AttributeRecord | undefined {
    return this.get(`${trafficTypeId}/${id}`);
  }

  /** Adds an attribute; 409 when the traffic type has one with its id (inferred). */
  create(tt: TrafficTypeRecord, a: Omit<AttributeRecord, "trafficTypeId">): AttributeRecord {
    if (this.byId(tt.id, a.id))
      throw conflict(`Attribute with id ${a.id} already exists in traffic type ${tt.name}`);
    return this.put({ ...a, trafficTypeId: tt.id });
  }

  /** Replaces an attribute's fields (its id and traffic type stay). */
  update(a: AttributeRecord, next: Omit<AttributeRecord, "trafficTypeId" | "id">): AttributeRecord {
    return this.put({ ...a, ...next });
  }

  /** Removes an attribute. */
  remove(a: AttributeRecord): void {
    this.drop(this.idOf(a));
  }

  /** What a deleted traffic type takes along: its attributes. */
  forgetTrafficType(trafficTypeId: string): void {
    this.dropWhere((a) => a.trafficTypeId === trafficTypeId);
  }
}
