/** Shared helpers of the event import tests. */
import type { SourceChunk, SourceItem } from "../../../../sdk/events/import/source";

/** Yields `text` as Buffers of `size` bytes, to exercise every chunk boundary. */
export async function* chunksOf(text: string | Buffer, size: number): AsyncGenerator<Buffer> {
  const buf = typeof text === "string" ? Buffer.from(text) : text;
  for (let i = 0; i < buf.length; i += size) yield buf.subarray(i, i + size);
}

/** Runs a reader to the end and returns every item. */
export async function collect(gen: AsyncGenerator<SourceChunk>): Promise<SourceItem[]> {
  const out: SourceItem[] = [];
  for await (const c of gen) out.push(...c.items);
  return out;
}

/** A valid event with a distinct key. */
export function event(i: number, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    eventTypeId: "page_view",
    trafficTypeName: "user",
    key: `user-${i}`,
    timestamp: 1_700_000_000_000 + i,
    ...extra,
  };
}

/** One line of a generated NDJSON fixture and what the importer must make of it. */
export type FixtureLine =
  | { kind: "valid"; text: string; record: Record<string, unknown> }
  | { kind: "invalid"; text: string; reason: string | RegExp; record: unknown }
  | { kind: "blank"; text: string };

const INVALID: ((i: number, prefix: string) => FixtureLine)[] = [
  (i) => {
    const r = { eventTypeId: "checkout", trafficTypeName: "user", timestamp: 1_700_000_000_000 + i };
    return { kind: "invalid", text: JSON.stringify(r), reason: "key is required", record: r };
  },
  (i, p) => {
    const r = {
      eventTypeId: "checkout",
      trafficTypeName: "user",
      key: `${p}-bad-${i}`,
      timestamp: "yesterday",
    };
    return {
      kind: "invalid",
      text: JSON.stringify(r),
      reason: "timestamp must be epoch milliseconds (digits only)",
      record: r,
    };
  },
  (i, p) => {
    const r = {
      eventTypeId: "checkout",
      trafficTypeName: "user",
      key: `${p}-bad-${i}`,
      timestamp: 1,
      value: "12",
    };
    return { kind: "invalid", text: JSON.stringify(r), reason: "value must be a number", record: r };
  },
  (i, p) => ({
    kind: "invalid",
    text: `{"eventTypeId":"checkout","key":"${p}-bad-${i}"`,
    reason: /^invalid JSON: /,
    record: `{"eventTypeId":"checkout","key":"${p}-bad-${i}"`,
  }),
  (i, p) => {
    const r = {
      eventTypeId: "bad type!",
      trafficTypeName: "user",
      key: `${p}-bad-${i}`,
      timestamp: 1,
      properties: [1],
    };
    return {
      kind: "invalid",
      text: JSON.stringify(r),
      reason:
        "eventTypeId must start with a letter or digit, use only letters, digits, '-', '_', '.', ':' and be at most 80 characters; properties must be an object",
      record: r,
    };
  },
  () => ({ kind: "blank", text: "" }),
];

/**
 * `n` lines: valid events with keys `<prefix>-<i>` (timestamps alternately numbers and digit
 * strings, some with value and properties), and every `every`-th line one of the invalid cases.
 */
export function fixture(prefix: string, n: number, every = 37): FixtureLine[] {
  const lines: FixtureLine[] = [];
  for (let i = 0; i < n; i++) {
    if (i % every === every - 1) {
      lines.push(INVALID[Math.floor(i / every) % INVALID.length]!(i, prefix));
      continue;
    }
    const r: Record<string, unknown> = {
      eventTypeId: i % 3 === 0 ? "checkout" : "page_view",
      trafficTypeName: i % 5 === 0 ? "account" : "user",
      key: `${prefix}-${i}`,
      timestamp: i % 2 === 0 ? 1_700_000_000_000 + i : String(1_700_000_000_000 + i),
    };
    if (i % 4 === 0) r.value = i / 4;
    if (i % 6 === 0) r.properties = { plan: i % 12 === 0 ? "pro" : "free", n: i, nested: { ok: true } };
    lines.push({ kind: "valid", text: JSON.stringify(r), record: r });
  }
  return lines;
}

/** The NDJSON text of a fixture. */
export const ndjsonOf = (lines: FixtureLine[]): string => `${lines.map((l) => l.text).join("\n")}\n`;

/** A valid record as the service stores it (timestamp a number). */
export function stored(r: Record<string, unknown>): Record<string, unknown> {
  return { ...r, timestamp: Number(r.timestamp) };
}

/** The rejects a fixture must produce, as `{line, reason, record}` (reason may be a matcher). */
export function expectedRejects(lines: FixtureLine[]): { line: number; reason: unknown; record: unknown }[] {
  const out: { line: number; reason: unknown; record: unknown }[] = [];
  lines.forEach((l, i) => {
    if (l.kind === "invalid") out.push({ line: i + 1, reason: l.reason, record: l.record });
  });
  return out;
}
