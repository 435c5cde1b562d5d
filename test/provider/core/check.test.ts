import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  checkInputs,
  containsUnknown,
  dotPath,
  PROVIDER_KEY,
  UNKNOWN,
  unknownPaths,
} from "../../../provider/core/check";

const Inputs = z.strictObject({
  name: z.string().min(1, "name must not be empty"),
  size: z.number().int().default(100),
  tags: z.array(z.string()).default([]),
  rules: z.array(z.object({ buckets: z.array(z.object({ size: z.number() })) })).default([]),
});
const spec = {
  schema: Inputs,
  validate: (i: z.output<typeof Inputs>) =>
    i.rules.flatMap((r, n) => {
      const sum = r.buckets.reduce((s, b) => s + b.size, 0);
      return sum === 100
        ? []
        : [{ path: ["rules", n, "buckets"], message: `bucket sizes must sum to 100, got ${sum}` }];
    }),
};

describe("dotPath", () => {
  it.each([
    [[], ""],
    [["name"], "name"],
    [["rules", 0, "buckets"], "rules[0].buckets"],
    [["tags", "my key"], 'tags["my key"]'],
    [["treatments", 2, "keys", 0], "treatments[2].keys[0]"],
  ] as const)("%j -> %s", (path, expected) => {
    expect(dotPath(path)).toBe(expected);
  });
});

describe("unknown values", () => {
  it("finds the sentinel anywhere", () => {
    expect(containsUnknown({ a: [1, { b: UNKNOWN }] })).toBe(true);
    expect(containsUnknown({ a: [1, { b: "x" }] })).toBe(false);
    expect(unknownPaths({ a: [1, { b: UNKNOWN }], c: UNKNOWN })).toEqual([["a", 1, "b"], ["c"]]);
  });
});

describe("checkInputs", () => {
  it("returns the parsed inputs without __provider, defaults applied", () => {
    expect(checkInputs(spec, { name: "a", [PROVIDER_KEY]: "code" })).toEqual({
      inputs: { name: "a", size: 100, tags: [], rules: [] },
    });
  });

  it("returns one failure per issue, named by dot path", () => {
    const result = checkInputs(spec, { name: "", size: 1.5, tags: ["x", 2], typo: true });
    expect(result.failures).toEqual([
      { property: "name", reason: "name must not be empty" },
      { property: "size", reason: "Invalid input: expected int, received number" },
      { property: "tags[1]", reason: "Invalid input: expected string, received number" },
      { property: "typo", reason: 'unknown property "typo"' },
    ]);
  });

  it("runs whole-document rules once the fields parse", () => {
    const result = checkInputs(spec, { name: "a", rules: [{ buckets: [{ size: 50 }] }] });
    expect(result.failures).toEqual([
      { property: "rules[0].buckets", reason: "bucket sizes must sum to 100, got 50" },
    ]);
  });

  it("tolerates unknown values: parses the known fields, keeps the unknown ones, skips document rules", () => {
    const result = checkInputs(spec, {
      name: UNKNOWN,
      rules: [{ buckets: [{ size: UNKNOWN }] }],
      [PROVIDER_KEY]: UNKNOWN,
    });
    expect(result).toEqual({
      inputs: { name: UNKNOWN, size: 100, tags: [], rules: [{ buckets: [{ size: UNKNOWN }] }] },
    });
  });

  it("still reports bad known fields when others are unknown", () => {
    const result = checkInputs(spec, { name: UNKNOWN, size: "big", other: 1 });
    expect(result.failures).toEqual([
      { property: "other", reason: 'unknown property "other"' },
      { property: "size", reason: "Invalid input: expected number, received string" },
    ]);
  });

  it("never throws on garbage", () => {
    expect(checkInputs(spec, undefined).failures?.[0]?.property).toBe("name");
  });
});
