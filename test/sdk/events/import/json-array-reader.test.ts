import { describe, expect, it } from "vitest";
import { readJsonArray } from "../../../../sdk/events/import/json-array-reader";
import { InputFormatError } from "../../../../sdk/events/import/source";
import { chunksOf, collect } from "./helpers";

const text = `[
  {"a": "x,]}\\"{["},
  {"b": [1, {"c": 2}]}, 7, "s\\"",
  {"bad": tru},
  null, {"é": "ü"}
]
`;

describe("readJsonArray", () => {
  it.each([1, 2, 3, 5, 11, 4096])(
    "splits the array into records with their line, whatever the chunk size (%i)",
    async (size) => {
      expect(await collect(readJsonArray(chunksOf(text, size)))).toEqual([
        { line: 2, value: { a: 'x,]}"{[' } },
        { line: 3, value: { b: [1, { c: 2 }] } },
        { line: 3, value: 7 },
        { line: 3, value: 's"' },
        { line: 4, error: expect.stringMatching(/^invalid JSON: /), record: '{"bad": tru}' },
        { line: 5, value: null },
        { line: 5, value: { é: "ü" } },
      ]);
    },
  );

  it.each([
    ["", []],
    ["[]", []],
    [" [ ] \n", []],
    ["[1]", [{ line: 1, value: 1 }]],
    [
      "[1,2]",
      [
        { line: 1, value: 1 },
        { line: 1, value: 2 },
      ],
    ],
  ])("reads %j", async (input, expected) => {
    expect(await collect(readJsonArray(chunksOf(input, 1)))).toEqual(expected);
  });

  it.each([
    ['{"a":1}', "line 1: expected a JSON array ('['), found '{'"],
    ["[1,]", "line 1: trailing comma before ']'"],
    ["[,1]", "line 1: missing record before ','"],
    ['[{"a":1}\n{"b":2}]', "line 2: expected ',' or ']' after a record, found '{'"],
    ['[{"a":1}\xA0\n]', "line 1: expected ',' or ']' after a record, found byte 0xc2"],
    ["[1]\nx", "line 2: unexpected data after the end of the array"],
    ['[{"a":1},\n{"b":2}', "line 2: unexpected end of input: the JSON array is not closed with ']'"],
  ])("refuses the broken structure %j", async (input, message) => {
    const p = collect(readJsonArray(chunksOf(input, 3)));
    await expect(p).rejects.toBeInstanceOf(InputFormatError);
    await expect(p).rejects.toMatchObject({ message, line: Number(message.split(/[ :]/)[1]) });
  });

  it.each([1, 2, 3, 4096])(
    "rejects a record that is not UTF-8, naming the byte and its line, never decoding it to U+FFFD (chunk size %i)",
    async (size) => {
      const input = Buffer.concat([
        Buffer.from('[{"key":"é"},\n {"key":"a'),
        Buffer.from([0xff]),
        Buffer.from('b"},\n {\n  "key": "'),
        Buffer.from([0xe2, 0x82]), // a three-byte sequence cut short
        Buffer.from('"\n },\n {"key":"\uFFFD"}]'),
      ]);
      expect(await collect(readJsonArray(chunksOf(input, size)))).toEqual([
        { line: 1, value: { key: "é" } },
        {
          line: 2,
          error: "not valid UTF-8: byte 0xff at byte 10 of the record; the input must be UTF-8 encoded",
          record: '{"key":"a\\xffb"}',
        },
        {
          line: 3,
          error:
            "not valid UTF-8: byte 0xe2 at byte 13 of the record (line 4); the input must be UTF-8 encoded",
          record: '{\n  "key": "\\xe2\\x82"\n }',
        },
        { line: 6, value: { key: "\uFFFD" } },
      ]);
    },
  );
});
