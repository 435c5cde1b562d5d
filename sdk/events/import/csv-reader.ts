/**
 * CSV reader (csv-parse, streaming). The first row is the header and names the columns:
 * `eventTypeId,trafficTypeName,key,timestamp` are required, `value`, `properties` and
 * `environmentName` optional, in any order. Each row becomes a record object:
 * - an empty cell is an absent field (so a missing key is reported as "key is required");
 * - `value` becomes a number when the cell is a decimal number, else stays text and fails
 *   validation ("value must be a number");
 * - `properties` is a JSON object written as a string (`"{""plan"":""pro""}"`); invalid JSON
 *   rejects the row with a reason naming `properties`.
 *
 * csv-parse decodes the bytes itself, and like every decoder turns bytes that are not UTF-8 into
 * U+FFFD. So the bytes are checked on their way into the parser (see `utf8.ts`; a character cut
 * by a chunk boundary is checked with the next chunk), the offset of each bad byte is kept, and a
 * row whose bytes (from csv-parse's byte count at the end of the previous row to the one at its
 * own end) hold one is rejected, never imported with U+FFFD in place of the byte.
 * @module
 */

import { Readable } from "node:stream";
import { parse } from "csv-parse";
import { InputFormatError, type SourceChunk, type SourceItem } from "./source";
import { completeEnd, invalidUtf8Offsets, invalidUtf8Reason } from "./utf8";

/** Columns the header must have. */
export const CSV_REQUIRED_COLUMNS = ["eventTypeId", "trafficTypeName", "key", "timestamp"] as const;
/** Columns the header may have. */
export const CSV_OPTIONAL_COLUMNS = ["value", "properties", "environmentName"] as const;
const KNOWN = new Set<string>([...CSV_REQUIRED_COLUMNS, ...CSV_OPTIONAL_COLUMNS]);

const NUMBER = /^[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?$/;
const ITEMS_PER_CHUNK = 512;

/** Reads CSV with a header row; see the module comment. */
export async function* readCsv(input: AsyncIterable<Buffer>): AsyncGenerator<SourceChunk, void, undefined> {
  const parser = parse({
    bom: true,
    info: true,
    relax_column_count: true,
    skip_empty_lines: true,
    max_record_size: 1024 * 1024,
  });
  const bad: BadByte[] = [];
  let nextBad = 0;
  const source = Readable.from(checkUtf8(input, bad), { objectMode: false });
  source.on("error", (e) => parser.destroy(e));
  source.pipe(parser);

  let header: string[] | undefined;
  let items: SourceItem[] = [];
  // Where the current row's bytes start (the end of the previous row, BOM included).
  let rowStart = 0;
  try {
    for await (const entry of parser as AsyncIterable<{
      record: string[];
      info: { lines: number; bytes: number };
    }>) {
      const { record: row, info } = entry;
      // The first bad byte inside this row's bytes, if any (the checker runs ahead of the parser).
      let badByte: BadByte | undefined;
      while (nextBad < bad.length && bad[nextBad]!.offset < info.bytes) {
        const b = bad[nextBad++]!;
        if (b.offset >= rowStart) badByte ??= b;
      }
      // Forget the offsets passed, so an input full of bad bytes does not pile them up.
      if (nextBad > 4096) {
        bad.splice(0, nextBad);
        nextBad = 0;
      }
      const start = rowStart;
      rowStart = info.bytes;
      if (badByte && !header) {
        throw new InputFormatError(
          `the CSV header is ${invalidUtf8Reason(badByte.byte, badByte.offset - start, "header")}`,
          info.lines,
        );
      }
      if (badByte) {
        items.push(invalidRow(header!, row, info.lines, badByte, start));
      } else if (!header) {
        header = checkHeader(
          row.map((h) => h.trim()),
          info.lines,
        );
        continue;
      } else {
        items.push(toItem(header, row, info.lines));
      }
      if (items.length >= ITEMS_PER_CHUNK) {
        yield { items, bytesRead: info.bytes };
        items = [];
      }
    }
  } catch (e) {
    if (e instanceof InputFormatError) throw e;
    const err = e as Error & { code?: string; lines?: number };
    // csv-parse errors carry the line; e.g. an unclosed quote cannot be recovered from.
    if (typeof err.code === "string" && err.code.startsWith("CSV_")) {
      throw new InputFormatError(`invalid CSV: ${err.message}`, err.lines ?? 0);
    }
    throw e;
  } finally {
    source.destroy();
  }
  yield { items, bytesRead: parser.info.bytes };
}

/** A byte that is not UTF-8, at `offset` bytes from the start of the input. */
interface BadByte {
  offset: number;
  byte: number;
}

/**
 * Passes the input through unchanged, appending to `bad` the offset of each run of bytes that is
 * not UTF-8 before the parser gets them. The bytes of a character cut by the end of a chunk are
 * checked with the next chunk; an input that ends inside a character ends on a bad byte.
 */
async function* checkUtf8(input: AsyncIterable<Buffer>, bad: BadByte[]): AsyncGenerator<Buffer> {
  let offset = 0;
  let carry: Buffer | undefined;
  for await (const raw of input) {
    const chunk = typeof raw === "string" ? Buffer.from(raw) : raw;
    const buf = carry ? Buffer.concat([carry, chunk]) : chunk;
    const base = offset - (carry?.length ?? 0);
    const end = completeEnd(buf);
    for (const at of invalidUtf8Offsets(buf, 0, end)) bad.push({ offset: base + at, byte: buf[at]! });
    carry = end < buf.length ? Buffer.from(buf.subarray(end)) : undefined;
    offset += chunk.length;
    yield chunk;
  }
  if (carry) bad.push({ offset: offset - carry.length, byte: carry[0]! });
}

/** The reject of a row holding bytes that are not UTF-8, naming the first column that has one. */
function invalidRow(header: string[], row: string[], line: number, b: BadByte, rowStart: number): SourceItem {
  const raw: Record<string, string> = {};
  for (let i = 0; i < header.length && i < row.length; i++) raw[header[i]!] = row[i]!;
  // The decoder put U+FFFD where the bad bytes were: that names the column (a genuine U+FFFD
  // before it would name an earlier one; the byte offset stays exact).
  const column = header.find((_, i) => row[i]?.includes("\uFFFD"));
  const reason = invalidUtf8Reason(b.byte, b.offset - rowStart, "row");
  return { line, error: column ? `${column}: ${reason}` : reason, record: raw };
}

function checkHeader(header: string[], line: number): string[] {
  const unknown = header.filter((h) => !KNOWN.has(h));
  if (unknown.length > 0) {
    throw new InputFormatError(
      `the CSV header has unknown column${unknown.length > 1 ? "s" : ""} ${unknown.map((u) => JSON.stringify(u)).join(", ")}; ` +
        `expected ${[...CSV_REQUIRED_COLUMNS, ...CSV_OPTIONAL_COLUMNS].join(",")}`,
      line,
    );
  }
  const missing = CSV_REQUIRED_COLUMNS.filter((c) => !header.includes(c));
  if (missing.length > 0) {
    throw new InputFormatError(
      `the CSV header lacks the column${missing.length > 1 ? "s" : ""} ${missing.join(", ")}`,
      line,
    );
  }
  const dup = header.find((h, i) => header.indexOf(h) !== i);
  if (dup) throw new InputFormatError(`the CSV header names the column ${dup} twice`, line);
  return header;
}

function toItem(header: string[], row: string[], line: number): SourceItem {
  const raw: Record<string, string> = {};
  for (let i = 0; i < header.length && i < row.length; i++) raw[header[i]!] = row[i]!;
  if (row.length !== header.length) {
    return { line, error: `the row has ${row.length} fields, the header ${header.length}`, record: row };
  }
  const value: Record<string, unknown> = {};
  for (let i = 0; i < header.length; i++) {
    const col = header[i]!;
    const cell = row[i]!;
    if (cell === "") continue;
    if (col === "value") {
      const t = cell.trim();
      value.value = NUMBER.test(t) ? Number(t) : cell;
    } else if (col === "properties") {
      try {
        value.properties = JSON.parse(cell);
      } catch (e) {
        return { line, error: `properties: not valid JSON (${(e as Error).message})`, record: raw };
      }
    } else {
      value[col] = cell;
    }
  }
  return { line, value };
}
