/**
 * CSV reader (csv-parse, streaming). The first row is the header and names the columns:
 * `eventTypeId,trafficTypeName,key,timestamp` are required, `value`, `properties` and
 * `environmentName` optional, in any order. Each row becomes a record object:
 * - an empty cell is an absent field (so a missing key is reported as "key is required");
 * - `value` becomes a number when the cell is a decimal number, else stays text and fails
 *   validation ("value must be a number");
 * - `properties` is a JSON object written as a string (`"{""plan"":""pro""}"`); invalid JSON
 *   rejects the row with a reason naming `properties`.
 * @module
 */

import { Readable } from "node:stream";
import { parse } from "csv-parse";
import { InputFormatError, type SourceChunk, type SourceItem } from "./source";

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
  const source = Readable.from(input, { objectMode: false });
  source.on("error", (e) => parser.destroy(e));
  source.pipe(parser);

  let header: string[] | undefined;
  let items: SourceItem[] = [];
  try {
    for await (const entry of parser as AsyncIterable<{
      record: string[];
      info: { lines: number; bytes: number };
    }>) {
      const { record: row, info } = entry;
      if (!header) {
        header = checkHeader(
          row.map((h) => h.trim()),
          info.lines,
        );
        continue;
      }
      items.push(toItem(header, row, info.lines));
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
