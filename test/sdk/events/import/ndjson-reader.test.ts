import { describe, expect, it } from "vitest";
import { readNdjson } from "../../../../sdk/events/import/ndjson-reader";
import { MAX_RECORD_TEXT_BYTES } from "../../../../sdk/events/import/source";
import { chunksOf, collect } from "./helpers";

const text = '{"a":1}\n\n  {"b":"é"}\r\n{bad\n[1]\n{"c":3}';

describe("readNdjson", () => {
  it.each([1, 2, 3, 5, 7, 64, 4096])(
    "reads every line with its number, whatever the chunk size (%i)",
    async (size) => {
      expect(await collect(readNdjson(chunksOf(text, size)))).toEqual([
        { line: 1, value: { a: 1 } },
        { line: 3, value: { b: "é" } },
        { line: 4, error: expect.stringMatching(/^invalid JSON: /), record: "{bad" },
        { line: 5, value: [1] },
        { line: 6, value: { c: 3 } },
      ]);
    },
  );

  it("skips a byte-order mark and reports bytes read", async () => {
    const input = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"a":1}\n')]);
    const chunks = [];
    for await (const c of readNdjson(chunksOf(input, 4))) chunks.push(c);
    expect(chunks.flatMap((c) => c.items)).toEqual([{ line: 1, value: { a: 1 } }]);
    expect(chunks.at(-1)!.bytesRead).toBe(input.length);
  });

  it("refuses an over-long line without buffering it, and goes on with the next", async () => {
    const long = `{"k":"${"x".repeat(MAX_RECORD_TEXT_BYTES + 10)}"}`;
    const items = await collect(readNdjson(chunksOf(`${long}\n{"ok":true}\n`, 65536)));
    expect(items).toHaveLength(2);
    expect(items[0]).toMatchObject({
      line: 1,
      error: `record is longer than ${MAX_RECORD_TEXT_BYTES} bytes (an event may be at most 32768); is a newline missing?`,
    });
    expect(items[1]).toEqual({ line: 2, value: { ok: true } });
  });

  it("reads nothing from an empty input", async () => {
    expect(await collect(readNdjson(chunksOf("", 4)))).toEqual([]);
  });
});
