/**
 * The pipeline grammar (sdk/platform/pipeline/grammar.ts): identifiers, names, durations,
 * expressions and runtime inputs, decided once for the provider, the emulator and the policy pack.
 */
import { describe, expect, it } from "vitest";
import {
  containsExpression,
  DEFAULT_STEP_TIMEOUT,
  durationMs,
  IDENTIFIER_PATTERN,
  isDuration,
  isDurationValue,
  isExpression,
  isIdentifier,
  isName,
  isRuntimeInputText,
  NAME_PATTERN,
  nameMessage,
  nameProblem,
  PIPELINE_YAML_MAX_BYTES,
  RESERVED_IDENTIFIERS,
} from "../../../../sdk/platform/pipeline";
import * as schemas from "../../../../sdk/platform/schemas";

describe("identifiers", () => {
  it.each(["a", "_", "A1", "a_b", "a$b", "_$", "x".repeat(128), "Step", "STATUS", "stepGroup1"])(
    "accepts %j",
    (id) => {
      expect(isIdentifier(id)).toBe(true);
    },
  );
  it.each([
    "",
    "1a",
    "$a",
    "a-b",
    "a.b",
    "a/b",
    "build/test",
    "a b",
    "é",
    "x".repeat(129),
    "<+input>",
    ...RESERVED_IDENTIFIERS,
  ])("refuses %j", (id) => {
    expect(isIdentifier(id)).toBe(false);
  });

  it("is the SDK schemas' identifier grammar too (one pattern, one word list)", () => {
    expect(schemas.IDENTIFIER_PATTERN).toBe(IDENTIFIER_PATTERN);
    expect(schemas.RESERVED_IDENTIFIERS).toBe(RESERVED_IDENTIFIERS);
    expect(schemas.Identifier.safeParse("build/test").error?.issues.map((i) => i.message)).toEqual([
      "identifier can be 128 characters long and can only contain alphanumeric, underscore and $ characters, and not start with a number or $",
    ]);
    expect(schemas.Identifier.safeParse("status").error?.issues.map((i) => i.message)).toEqual([
      "status is a keyword, so cannot be used",
    ]);
  });
});

describe("names of pipelines, stages and steps", () => {
  it("is the pattern the emulator has always answered with", () => {
    expect(NAME_PATTERN.source).toBe("^[a-zA-Z_0-9-.][-0-9a-zA-Z_\\s.]{0,127}$");
  });

  it.each([
    "Deploy checkout",
    "a",
    "1st stage",
    "-x",
    ".x",
    "v1.2",
    "trailing ",
    "two\nlines",
    "tab\there",
    "true",
    "null",
    "n".repeat(128),
  ])("accepts %j", (name) => {
    expect(isName(name)).toBe(true);
    expect(nameProblem(name)).toBeUndefined();
    expect(nameMessage(name)).toBeUndefined();
  });

  it.each<[string, string]>([
    [
      "build/test",
      'name can only contain alphanumeric, space, hyphen, underscore and dot characters; "/" is not allowed.',
    ],
    ["", "name cannot be empty."],
    ["   ", "name cannot be empty."],
    [" leading", "name cannot start with a space."],
    ["n".repeat(129), "name cannot be more than 128 characters long."],
    [
      "café",
      'name can only contain alphanumeric, space, hyphen, underscore and dot characters; "é" (U+00E9) is not allowed.',
    ],
    [
      "rocket 🚀",
      'name can only contain alphanumeric, space, hyphen, underscore and dot characters; "🚀" (U+1F680) is not allowed.',
    ],
    [
      "a:b",
      'name can only contain alphanumeric, space, hyphen, underscore and dot characters; ":" is not allowed.',
    ],
    [
      "<+input>",
      'name can only contain alphanumeric, space, hyphen, underscore and dot characters; "<" is not allowed.',
    ],
  ])("refuses %j: %s", (name, message) => {
    expect(isName(name)).toBe(false);
    expect(nameMessage(name)).toBe(message);
  });
});

describe("durations", () => {
  it.each<[string, number]>([
    ["10m", 600_000],
    ["1h30m", 5_400_000],
    ["1h 30m", 5_400_000],
    [" 10m ", 600_000],
    ["30s", 30_000],
    ["500ms", 500],
    ["1d", 86_400_000],
    ["1w2d", 9 * 86_400_000],
    ["1w 2d 3h 4m 5s 6ms", 788_645_006],
    ["0m", 0],
  ])("durationMs(%j) = %d", (text, ms) => {
    expect(durationMs(text)).toBe(ms);
  });

  it.each(["", "10", "m", "10 minutes", "1m1h", "10m10m", "1.5h", "-1m", "10M", "1 h", "1h30"])(
    "%j is no duration",
    (text) => {
      expect(durationMs(text)).toBeUndefined();
      expect(isDuration(text)).toBe(false);
    },
  );

  it("refuses zero, and takes an expression wherever a timeout goes", () => {
    expect(isDuration("0m")).toBe(false);
    expect(isDuration("0h0m")).toBe(false);
    expect(isDurationValue("0m")).toBe(false);
    expect(isDurationValue("<+input>")).toBe(true);
    expect(isDurationValue("<+input>.default(10m)")).toBe(true);
    expect(isDurationValue("<+pipeline.variables.timeout>")).toBe(true);
    expect(isDurationValue("soon")).toBe(false);
  });

  it("gives model steps a 10m timeout by default", () => {
    expect(DEFAULT_STEP_TIMEOUT).toBe("10m");
    expect(isDuration(DEFAULT_STEP_TIMEOUT)).toBe(true);
  });
});

describe("expressions and runtime inputs", () => {
  it.each<[string, boolean, boolean, boolean]>([
    // text, isExpression (whole value), containsExpression, isRuntimeInputText
    ["<+input>", true, true, true],
    [" <+input> ", false, true, true],
    ["<+input>.default(a).allowedValues(a,b)", false, true, true],
    ["<+input>.selectOneFrom(a,b)", false, true, true],
    ["<+pipeline.name>", true, true, false],
    ["release-<+INFRA_KEY>", false, true, false],
    ["<+>", false, false, false],
    ["<+", false, false, false],
    ["plain", false, false, false],
  ])("%j", (text, whole, contains, runtimeInput) => {
    expect(isExpression(text)).toBe(whole);
    expect(containsExpression(text)).toBe(contains);
    expect(isRuntimeInputText(text)).toBe(runtimeInput);
  });
});

describe("size", () => {
  it("bounds check at 1 MiB", () => {
    expect(PIPELINE_YAML_MAX_BYTES).toBe(1_048_576);
  });
});
