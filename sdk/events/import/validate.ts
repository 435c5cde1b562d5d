/**
 * Validation of one read record against the SDK's `EventRecord` schema (spec §2 "Event record";
 * limits from ref admin-api-behaviour §6), and the reason text written to the rejects file.
 * @module
 */
import type { z } from "zod";
import { EventRecord } from "../schemas";
import type { SourceItem } from "./source";

/** A record that passed validation, with its wire form (timestamp normalised to a number). */
export interface ValidRecord {
  ok: true;
  line: number;
  record: EventRecord;
  /** `JSON.stringify(record)`: what is sent, and what batch sizes and hashes are computed from. */
  json: string;
}

/** A record that is refused, as written to the rejects file. */
export interface RejectedRecord {
  ok: false;
  line: number;
  /** Why, naming the field: `timestamp: timestamp must be epoch milliseconds (digits only)`. */
  reason: string;
  /** The record as read (for unreadable input, the raw text). */
  record: unknown;
}

/** Validates one item read from the input. */
export function validateItem(item: SourceItem): ValidRecord | RejectedRecord {
  if ("error" in item) return { ok: false, line: item.line, reason: item.error, record: item.record };
  const v = item.value;
  if (typeof v !== "object" || v === null || Array.isArray(v)) {
    const what = v === null ? "null" : Array.isArray(v) ? "an array" : `a ${typeof v}`;
    return { ok: false, line: item.line, reason: `record must be a JSON object, not ${what}`, record: v };
  }
  const r = EventRecord.safeParse(v);
  if (!r.success) return { ok: false, line: item.line, reason: describeIssues(r.error), record: v };
  return { ok: true, line: item.line, record: r.data, json: JSON.stringify(r.data) };
}

/**
 * One line naming each failing field: `value: value must be a number; key: key is required`.
 * The field is not repeated when the schema's message already starts with it.
 */
export function describeIssues(error: z.ZodError): string {
  return error.issues.map((issue) => describeIssue(issue, issue.path)).join("; ");
}

function describeIssue(issue: z.core.$ZodIssue, path: readonly PropertyKey[]): string {
  const field = path.map(String).join(".");
  let message = issue.message;
  if (issue.code === "invalid_union") {
    // A union (timestamp: number | digit string) says only "Invalid input"; the branch whose type
    // matched the value has the useful message.
    // (`.int()` reports a fraction as invalid_type with expected "int": that branch did match.)
    const matched = (i: z.core.$ZodIssue) => i.code !== "invalid_type" || i.expected === "int";
    const branch = issue.errors.find((issues) => issues.length > 0 && issues.every(matched));
    if (branch) return branch.map((i) => describeIssue(i, [...path, ...i.path])).join("; ");
    if (field === "timestamp")
      message = "timestamp must be epoch milliseconds, as a number or a string of digits";
  }
  if (!field || message.startsWith(`${field} `)) return message;
  return `${field}: ${message}`;
}
