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
});
