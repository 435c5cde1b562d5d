/**
 * sdk/split/population: the default sample, and real keys read from JSON lines or CSV, typed as the
 * SDK takes attributes; a bad entry names the file, the line and the field.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readPopulationFile, samplePopulation } from "../../../sdk/split/population";

const dir = mkdtempSync(join(tmpdir(), "flagstack-population-"));
const file = (name: string, text: string) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};

describe("population", () => {
  it("samples key-0 … by default", () => {
    const p = samplePopulation(3, "u-");
    expect(p).toEqual({ keys: ["u-0", "u-1", "u-2"], label: "3 sampled keys" });
    expect(samplePopulation().label).toBe("10,000 sampled keys");
  });

  it("reads JSON lines: keys with attributes, blank lines skipped, the last entry of a key kept", () => {
    const p = readPopulationFile(
      file(
        "keys.jsonl",
        '{"key":"ana","attributes":{"plan":"enterprise","seats":40,"beta":true,"tags":["a","b"]}}\n\n{"key":"ben"}\n{"key":"ana","attributes":{"plan":"free"}}\n',
      ),
    );
    expect(p.keys).toEqual(["ana", "ben"]);
    expect(p.label).toBe("2 keys of keys.jsonl");
    expect(Object.fromEntries(p.attributes!)).toEqual({ ana: { plan: "free" }, ben: {} });
  });

  it("reads CSV: numbers, booleans and text; an empty cell sets nothing", () => {
    const p = readPopulationFile(
      file("keys.csv", "key,plan,seats,beta\nana,enterprise,40,true\nben,,7,false\n"),
    );
    expect(Object.fromEntries(p.attributes!)).toEqual({
      ana: { plan: "enterprise", seats: 40, beta: true },
      ben: { seats: 7, beta: false },
    });
  });

  it("keys without attributes: no attribute map (the bucket rule applies)", () => {
    expect(readPopulationFile(file("plain.csv", "key\na\nb\n")).attributes).toBeUndefined();
  });

  it("names the file, the line and the field of a bad entry", () => {
    expect(() => readPopulationFile(file("bad.jsonl", '{"key":"a"}\n{"key":""}\n'))).toThrow(
      "bad.jsonl line 2: key: key must not be empty",
    );
    expect(() => readPopulationFile(file("bad2.jsonl", '{"key":"a","attributes":{"x":{"y":1}}}\n'))).toThrow(
      /^bad2\.jsonl line 1: attributes\.x: /,
    );
    expect(() => readPopulationFile(file("bad3.jsonl", "{nope\n"))).toThrow(/^bad3\.jsonl line 1: not JSON/);
    expect(() => readPopulationFile(file("bad.csv", "id,plan\na,b\n"))).toThrow(
      'bad.csv: the header names no "key" column',
    );
    expect(() => readPopulationFile(file("keys.txt", "a\n"))).toThrow(
      "keys.txt: a population file is .csv, .jsonl or .ndjson",
    );
  });
});
