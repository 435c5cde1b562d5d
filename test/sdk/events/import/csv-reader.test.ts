import { describe, expect, it } from "vitest";
import { readCsv } from "../../../../sdk/events/import/csv-reader";
import { InputFormatError } from "../../../../sdk/events/import/source";
import { chunksOf, collect } from "./helpers";

const HEADER = "eventTypeId,trafficTypeName,key,timestamp,value,properties";

describe("readCsv", () => {
  it.each([1, 7, 4096])("turns rows into records (chunk size %i)", async (size) => {
    const text = [
      HEADER,
      'checkout,user,u1,1700000000000,12.5,"{""plan"":""pro""}"',
      "page_view,user,u2,1700000000001,,",
      "",
      "page_view,user,,1700000000002,abc,",
      'x,user,u3,1700000000003,1,"{bad"',
      "x,user,u4",
      '"multi\nline",user,u5,1,,',
    ].join("\n");
    expect(await collect(readCsv(chunksOf(text, size)))).toEqual([
      {
        line: 2,
        value: {
          eventTypeId: "checkout",
          trafficTypeName: "user",
          key: "u1",
          timestamp: "1700000000000",
          value: 12.5,
          properties: { plan: "pro" },
        },
      },
      {
        line: 3,
        value: { eventTypeId: "page_view", trafficTypeName: "user", key: "u2", timestamp: "1700000000001" },
      },
      {
        line: 5,
        value: {
          eventTypeId: "page_view",
          trafficTypeName: "user",
          timestamp: "1700000000002",
          value: "abc",
        },
      },
      {
        line: 6,
        error: expect.stringMatching(/^properties: not valid JSON \(/),
        record: {
          eventTypeId: "x",
          trafficTypeName: "user",
          key: "u3",
          timestamp: "1700000000003",
          value: "1",
          properties: "{bad",
        },
      },
      { line: 7, error: "the row has 3 fields, the header 6", record: ["x", "user", "u4"] },
      { line: 9, value: { eventTypeId: "multi\nline", trafficTypeName: "user", key: "u5", timestamp: "1" } },
    ]);
  });

  it("takes the columns in any order, value and properties optional", async () => {
    const text = "timestamp,key,trafficTypeName,eventTypeId\n5,k,account,e\n";
    expect(await collect(readCsv(chunksOf(text, 3)))).toEqual([
      { line: 2, value: { timestamp: "5", key: "k", trafficTypeName: "account", eventTypeId: "e" } },
    ]);
  });

  it.each([
    [
      "eventTypeId,trafficTypeName,key,timestamp,colour\n",
      'line 1: the CSV header has unknown column "colour"; expected eventTypeId,trafficTypeName,key,timestamp,value,properties,environmentName',
    ],
    ["eventTypeId,key,value\n", "line 1: the CSV header lacks the columns trafficTypeName, timestamp"],
    ["eventTypeId,trafficTypeName,key,timestamp,key\n", "line 1: the CSV header names the column key twice"],
  ])("refuses the header %j", async (text, message) => {
    const p = collect(readCsv(chunksOf(text, 5)));
    await expect(p).rejects.toBeInstanceOf(InputFormatError);
    await expect(p).rejects.toMatchObject({ message });
  });

  it("stops on a quote that never closes, naming the line", async () => {
    const p = collect(readCsv(chunksOf(`${HEADER}\na,user,k,1,,\n"b,user,k,1,,\n`, 8)));
    await expect(p).rejects.toBeInstanceOf(InputFormatError);
    await expect(p).rejects.toMatchObject({
      message: expect.stringMatching(/^line \d+: invalid CSV: .*quote/i),
    });
  });

  it.each([1, 2, 3, 4096])(
    "rejects a row that is not UTF-8, naming the column and the byte, never decoding it to U+FFFD (chunk size %i)",
    async (size) => {
      const input = Buffer.concat([
        Buffer.from("\uFEFFeventTypeId,trafficTypeName,key,timestamp\nview,user,é,1\nview,user,a"),
        Buffer.from([0xff]),
        Buffer.from('b,2\nview,"us\ner",b,3\nview,"u'),
        Buffer.from([0xe9]), // Latin-1 "é"
        Buffer.from('\nser",c,4\nview,user,\uFFFD,5\nview,user,'),
        Buffer.from([0xf0, 0x9f, 0x98]), // a four-byte sequence cut short by the end of the input
      ]);
      const reason = (byte: string, at: number) =>
        `not valid UTF-8: byte 0x${byte} at byte ${at} of the row; the input must be UTF-8 encoded`;
      const row = (eventTypeId: string, trafficTypeName: string, key: string, timestamp: string) => ({
        eventTypeId,
        trafficTypeName,
        key,
        timestamp,
      });
      expect(await collect(readCsv(chunksOf(input, size)))).toEqual([
        { line: 2, value: row("view", "user", "é", "1") },
        { line: 3, error: `key: ${reason("ff", 12)}`, record: row("view", "user", "a\uFFFDb", "2") },
        { line: 5, value: row("view", "us\ner", "b", "3") },
        {
          line: 7,
          error: `trafficTypeName: ${reason("e9", 8)}`,
          record: row("view", "u\uFFFD\nser", "c", "4"),
        },
        { line: 8, value: row("view", "user", "\uFFFD", "5") },
        {
          line: 9,
          error: `key: ${reason("f0", 11)}`,
          record: { eventTypeId: "view", trafficTypeName: "user", key: "\uFFFD" },
        },
      ]);
    },
  );

  it("refuses a header that is not UTF-8", async () => {
    const input = Buffer.concat([
      Buffer.from("eventTypeId,trafficTypeName,k"),
      Buffer.from([0xff]),
      Buffer.from("ey,timestamp\nv,u,k,1\n"),
    ]);
    await expect(collect(readCsv(chunksOf(input, 5)))).rejects.toMatchObject({
      message:
        "line 1: the CSV header is not valid UTF-8: byte 0xff at byte 30 of the header; the input must be UTF-8 encoded",
    });
  });
});
