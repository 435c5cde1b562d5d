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

  it.each([1, 2, 3, 4096])(
    "rejects a line that is not UTF-8, naming the byte, never decoding it to U+FFFD (chunk size %i)",
    async (size) => {
      const input = Buffer.concat([
        Buffer.from('{"key":"é"}\n{"key":"a'),
        Buffer.from([0xff]),
        Buffer.from('b"}\n{"key":"'),
        Buffer.from([0xc3]), // a lead byte without its continuation
        Buffer.from('"}\n{"key":"'),
        Buffer.from([0xc0, 0xaf]), // an overlong "/"
        Buffer.from('"}\n{"key":"'),
        Buffer.from([0xed, 0xa0, 0x80]), // a UTF-16 surrogate
        Buffer.from('"}\n{"key":"\uFFFD"}\n'), // a genuine U+FFFD is text like any other
      ]);
      const reason = (byte: string, at: number) =>
        `not valid UTF-8: byte 0x${byte} at byte ${at} of the line; the input must be UTF-8 encoded`;
      expect(await collect(readNdjson(chunksOf(input, size)))).toEqual([
        { line: 1, value: { key: "é" } },
        { line: 2, error: reason("ff", 10), record: '{"key":"a\\xffb"}' },
        { line: 3, error: reason("c3", 9), record: '{"key":"\\xc3"}' },
        { line: 4, error: reason("c0", 9), record: '{"key":"\\xc0\\xaf"}' },
        { line: 5, error: reason("ed", 9), record: '{"key":"\\xed\\xa0\\x80"}' },
        { line: 6, value: { key: "\uFFFD" } },
      ]);
    },
  );
});
