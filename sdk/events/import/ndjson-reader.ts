/**
 * NDJSON reader: one JSON value per line. Blank lines are skipped (they still count for line
 * numbers); a `\r` before the newline and a UTF-8 byte-order mark at the start are ignored. A line
 * that is not UTF-8 is rejected (see `utf8.ts`), never decoded with U+FFFD in its place.
 * @module
 */
import { MAX_RECORD_TEXT_BYTES, type SourceChunk, type SourceItem } from "./source";
import { firstInvalidUtf8, invalidUtf8Reason, showBytes } from "./utf8";

const NL = 0x0a;

/** Reads newline-delimited JSON; see the module comment. */
export async function* readNdjson(
  input: AsyncIterable<Buffer>,
): AsyncGenerator<SourceChunk, void, undefined> {
  let line = 0;
  let bytesRead = 0;
  // The start of a line that continues in the next chunk (never more than MAX_RECORD_TEXT_BYTES).
  let carry: Buffer[] = [];
  let carryBytes = 0;
  // True while skipping the rest of an over-long line.
  let skipping = false;
  let first = true;

  for await (const raw of input) {
    let chunk = typeof raw === "string" ? Buffer.from(raw) : raw;
    if (first) {
      first = false;
      if (chunk[0] === 0xef && chunk[1] === 0xbb && chunk[2] === 0xbf) chunk = chunk.subarray(3);
    }
    bytesRead += raw.length;
    const items: SourceItem[] = [];
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(NL, start);
      if (nl < 0) break;
      line++;
      if (skipping) {
        skipping = false;
      } else if (carryBytes > 0) {
        carry.push(chunk.subarray(start, nl));
        pushLine(items, line, Buffer.concat(carry));
        carry = [];
        carryBytes = 0;
      } else {
        pushLine(items, line, chunk.subarray(start, nl));
      }
      start = nl + 1;
    }
    if (start < chunk.length && !skipping) {
      const rest = chunk.subarray(start);
      if (carryBytes + rest.length > MAX_RECORD_TEXT_BYTES) {
        items.push(tooLong(line + 1, Buffer.concat([...carry, rest])));
        carry = [];
        carryBytes = 0;
        skipping = true;
      } else {
        // Copy, so that the carried bytes do not pin the whole read buffer.
        carry.push(Buffer.from(rest));
        carryBytes += rest.length;
      }
    }
    yield { items, bytesRead };
  }
  if (carryBytes > 0) {
    const items: SourceItem[] = [];
    pushLine(items, line + 1, Buffer.concat(carry));
    yield { items, bytesRead };
  }
}

function tooLong(line: number, head: Buffer): SourceItem {
  return {
    line,
    error: `record is longer than ${MAX_RECORD_TEXT_BYTES} bytes (an event may be at most 32768); is a newline missing?`,
    record: `${head.toString("utf8", 0, 200)}...`,
  };
}

function pushLine(items: SourceItem[], line: number, buf: Buffer): void {
  if (buf.length > MAX_RECORD_TEXT_BYTES) {
    items.push(tooLong(line, buf));
    return;
  }
  let end = buf.length;
  if (end > 0 && buf[end - 1] === 0x0d) end--;
  let s = 0;
  while (s < end && (buf[s] === 0x20 || buf[s] === 0x09)) s++;
  if (s === end) return;
  const bad = firstInvalidUtf8(buf, s, end);
  if (bad >= 0) {
    const bytes = buf.subarray(s, end);
    items.push({ line, error: invalidUtf8Reason(bytes[bad]!, bad, "line"), record: showBytes(bytes) });
    return;
  }
  const text = buf.toString("utf8", s, end);
  try {
    items.push({ line, value: JSON.parse(text) });
  } catch (e) {
    items.push({ line, error: `invalid JSON: ${(e as Error).message}`, record: text });
  }
}
