/**
 * `dataRecord` (`sdk/core/data-record.ts`): a record of user keys keeps an own `__proto__` key of
 * its input as an ordinary member, in its place, checked by the value schema; `setOwn` assigns one.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { dataRecord, protoKeyPath, setOwn } from "../../../sdk/core/data-record";

const parsed = (text: string) => JSON.parse(text) as unknown;

describe("dataRecord", () => {
  it("keeps __proto__, constructor and prototype keys as own members, in input order, with the prototype untouched", () => {
    const out = dataRecord(z.string()).parse(
      parsed('{"a":"1","__proto__":"x","constructor":"y","prototype":"z"}'),
    );
    expect(Object.entries(out)).toEqual([
      ["a", "1"],
      ["__proto__", "x"],
      ["constructor", "y"],
      ["prototype", "z"],
    ]);
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(JSON.stringify(out)).toBe('{"a":"1","__proto__":"x","constructor":"y","prototype":"z"}');
  });

  it("keeps an object value under __proto__ as a member, not as the prototype", () => {
    const out = dataRecord(z.object({ n: z.number() })).parse(parsed('{"__proto__":{"n":1,"extra":2}}'));
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(JSON.stringify(out)).toBe('{"__proto__":{"n":1}}');
  });

  it("checks the __proto__ value with the value schema, naming it in the path", () => {
    const result = dataRecord(z.string()).safeParse(parsed('{"ok":"v","__proto__":7}'));
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((i) => [i.path, i.message])).toEqual([
      [["__proto__"], "Invalid input: expected string, received number"],
    ]);
  });

  it("keeps the key through wrappers and copies (default, optional, describe) and async parsing", async () => {
    const tags = dataRecord(z.string());
    const input = parsed('{"__proto__":"x"}');
    for (const schema of [tags.default({}), tags.optional(), tags.describe("tags"), tags.nullable()]) {
      expect(JSON.stringify(schema.parse(input))).toBe('{"__proto__":"x"}');
    }
    expect(JSON.stringify(await tags.parseAsync(input))).toBe('{"__proto__":"x"}');
    expect(JSON.stringify(z.object({ tags }).parse(parsed('{"tags":{"__proto__":"x"}}')))).toBe(
      '{"tags":{"__proto__":"x"}}',
    );
  });

  it("is a record to zod: same JSON Schema as z.record", () => {
    expect(z.toJSONSchema(dataRecord(z.string()))).toEqual(z.toJSONSchema(z.record(z.string(), z.string())));
  });

  it("z.record itself drops the key (why dataRecord exists)", () => {
    expect(JSON.stringify(z.record(z.string(), z.string()).parse(parsed('{"__proto__":"x"}')))).toBe("{}");
  });
});

describe("setOwn", () => {
  it("makes __proto__ an own member", () => {
    const o: Record<string, string> = {};
    setOwn(o, "__proto__", "x");
    setOwn(o, "b", "y");
    expect(Object.entries(o)).toEqual([
      ["__proto__", "x"],
      ["b", "y"],
    ]);
    expect(Object.getPrototypeOf(o)).toBe(Object.prototype);
  });
});

describe("protoKeyPath", () => {
  it("finds the first own __proto__ key in plain objects and arrays, and looks into nothing else", () => {
    expect(protoKeyPath(parsed('{"a":[{"b":1},{"c":{"__proto__":"x"}}]}'))).toEqual([
      "a",
      1,
      "c",
      "__proto__",
    ]);
    expect(protoKeyPath(parsed('{"constructor":"c","prototype":{"__proto__":{}}}'))).toEqual([
      "prototype",
      "__proto__",
    ]);
    expect(protoKeyPath(parsed('{"constructor":"c","prototype":"p"}'))).toBeUndefined();
    class Boxed {
      readonly inner = parsed('{"__proto__":"x"}');
    }
    expect(protoKeyPath({ boxed: new Boxed() })).toBeUndefined();
  });
});
