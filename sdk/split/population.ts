/**
 * The population a change is measured over (`./impact.ts`): a deterministic key sample by default,
 * or real keys with attributes from a file, so that attribute rules are judged on real traffic.
 *
 * File formats, chosen by the file's extension:
 * - JSON lines (`.jsonl`, `.ndjson`): one `{"key": "...", "attributes": {...}}` per line (attributes
 *   optional; values as the SDK takes them: strings, numbers, booleans, lists);
 * - CSV (`.csv`): a header row naming the columns, one of them `key`; every other column is an
 *   attribute, its value a number when it reads as one, `true`/`false` as a boolean, else text; an
 *   empty cell sets no attribute.
 * A key listed twice keeps its last attributes.
 * @module
 */
import { readFileSync } from "node:fs";
import { basename } from "node:path";
import { parse } from "csv-parse/sync";
import { z } from "zod";
import { setOwn } from "../core/data-record";
import { Attributes, sampleKeys } from "./evaluate";
import type { Population } from "./impact";

/** The default sample: `key-0` … `key-9999`. */
export const DEFAULT_SAMPLE_SIZE = 10_000;

const count = (n: number) => n.toLocaleString("en-US");

/** A deterministic sample of `size` keys `${prefix}0` … (see `sampleKeys`). */
export function samplePopulation(size = DEFAULT_SAMPLE_SIZE, prefix = "key-"): Population {
  return { keys: sampleKeys(size, prefix), label: `${count(size)} sampled keys` };
}

const Line = z.strictObject({
  key: z.string().min(1, "key must not be empty").max(250, "key must be at most 250 characters"),
  attributes: Attributes.optional(),
});

/** A cell of a CSV file as an attribute value. */
function cellValue(cell: string): string | number | boolean {
  if (cell === "true" || cell === "false") return cell === "true";
  const n = Number(cell);
  return cell.trim() !== "" && Number.isFinite(n) ? n : cell;
}

/**
 * Reads a population file (see the module's comment).
 * @throws Error naming the file, the line and the field of the first bad entry.
 */
export function readPopulationFile(path: string): Population {
  const text = readFileSync(path, "utf8");
  const attributes = new Map<string, Attributes>();
  const name = basename(path);
  if (/\.(jsonl|ndjson)$/i.test(path)) {
    text.split(/\r?\n/).forEach((raw, i) => {
      if (raw.trim() === "") return;
      let json: unknown;
      try {
        json = JSON.parse(raw);
      } catch (e) {
        throw new Error(`${name} line ${i + 1}: not JSON (${(e as Error).message})`);
      }
      const parsed = Line.safeParse(json);
      if (!parsed.success) {
        const issue = parsed.error.issues[0]!;
        throw new Error(
          `${name} line ${i + 1}: ${z.core.toDotPath(issue.path) || "(line)"}: ${issue.message}`,
        );
      }
      attributes.set(parsed.data.key, parsed.data.attributes ?? {});
    });
  } else if (/\.csv$/i.test(path)) {
    const rows = parse(text, { columns: true, skip_empty_lines: true, bom: true }) as Record<
      string,
      string
    >[];
    rows.forEach((row, i) => {
      const key = row.key;
      if (key === undefined) throw new Error(`${name}: the header names no "key" column`);
      if (key === "" || key.length > 250)
        throw new Error(`${name} row ${i + 2}: key must be 1 to 250 characters`);
      const attrs: Attributes = {};
      for (const [column, cell] of Object.entries(row)) {
        if (column !== "key" && cell !== "") setOwn(attrs, column, cellValue(cell));
      }
      attributes.set(key, attrs);
    });
  } else {
    throw new Error(`${name}: a population file is .csv, .jsonl or .ndjson`);
  }
  const withAttributes = [...attributes.values()].some((a) => Object.keys(a).length > 0);
  return {
    keys: [...attributes.keys()],
    attributes: withAttributes ? attributes : undefined,
    label: `${count(attributes.size)} keys of ${name}`,
  };
}
