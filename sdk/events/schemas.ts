/**
 * Zod schema of one tracking event for the bulk import (spec §2 "Event record", §4 "Event import").
 * Limits the service and the SDK enforce come from `../shared/reference/admin-api-behaviour.md` §6:
 * event type ids match `^[a-zA-Z0-9][-_.:a-zA-Z0-9]{0,79}$`, at most 300 properties, at most 32 KB
 * per event.
 * @module
 */
import { z } from "zod";
import { dataRecord } from "../core/data-record";

export const EVENT_TYPE_ID_PATTERN = /^[a-zA-Z0-9][-_.:a-zA-Z0-9]{0,79}$/;
export const MAX_EVENT_PROPERTIES = 300;
export const MAX_EVENT_BYTES = 32 * 1024;
/** Keys longer than this are refused by the SDK's key validation. */
export const MAX_KEY_LENGTH = 250;

/** Epoch milliseconds, accepted as a number or as a string of digits (the spec's sample shape). */
export const EpochMillis = z.union([
  z.number().int("timestamp must be whole epoch milliseconds").nonnegative("timestamp must not be negative"),
  z
    .string()
    .regex(/^\d{1,16}$/, "timestamp must be epoch milliseconds (digits only)")
    .transform(Number),
]);

export const EventRecord = z
  .object({
    eventTypeId: z
      .string({ error: "eventTypeId is required" })
      .regex(
        EVENT_TYPE_ID_PATTERN,
        "eventTypeId must start with a letter or digit, use only letters, digits, '-', '_', '.', ':' and be at most 80 characters",
      ),
    trafficTypeName: z
      .string({ error: "trafficTypeName is required" })
      .min(1, "trafficTypeName must not be empty"),
    key: z
      .string({ error: "key is required" })
      .min(1, "key must not be empty")
      .max(MAX_KEY_LENGTH, `key must be at most ${MAX_KEY_LENGTH} characters`),
    timestamp: EpochMillis,
    value: z
      .number({ error: "value must be a number" })
      .finite("value must be a finite number")
      .nullable()
      .optional(),
    // Property names are user data: `dataRecord` keeps a `__proto__` key (`sdk/core/data-record.ts`).
    properties: dataRecord(z.unknown(), { error: "properties must be an object" })
      .refine((p) => Object.keys(p).length <= MAX_EVENT_PROPERTIES, {
        message: `properties may hold at most ${MAX_EVENT_PROPERTIES} keys`,
      })
      .nullable()
      .optional(),
    environmentName: z.string().optional(),
  })
  .refine((e) => Buffer.byteLength(JSON.stringify(e)) <= MAX_EVENT_BYTES, {
    message: `an event must be at most ${MAX_EVENT_BYTES} bytes`,
  });
export type EventRecordInput = z.input<typeof EventRecord>;
export type EventRecord = z.output<typeof EventRecord>;

export const EventBatch = z.array(EventRecord);
