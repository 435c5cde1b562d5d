import { describe, expect, it } from "vitest";
import { regexProblem } from "../../../sdk/split/regex-safety";

const BACKTRACKS = "which can backtrack catastrophically (exponential time on a non-matching value)";
const nested = (pattern: string, part: string, inner: string) =>
  `string is not a safe regular expression: ${pattern}: nested quantifiers: ${JSON.stringify(part)} repeats ${JSON.stringify(inner)} with nothing to mark where one repetition ends, ${BACKTRACKS}`;
const pair = (pattern: string, part: string, a: string, b: string) =>
  `string is not a safe regular expression: ${pattern}: nested quantifiers: ${JSON.stringify(part)} repeats ${JSON.stringify(a)} and ${JSON.stringify(b)} with nothing between them that marks where one ends, ${BACKTRACKS}`;
const alternatives = (pattern: string, part: string, a: string, b: string) =>
  `string is not a safe regular expression: ${pattern}: alternatives ${JSON.stringify(a)} and ${JSON.stringify(b)} of the repeated ${JSON.stringify(part)} can match the same text, ${BACKTRACKS}`;

describe("regexProblem", () => {
  it.each([
    ["([a-z", "string is not a valid regular expression: ([a-z"],
    ["a**", "string is not a valid regular expression: a**"],
    ["(a+)+", nested("(a+)+", "(a+)+", "a+")],
    ["(a*)*", nested("(a*)*", "(a*)*", "a*")],
    ["(.*)*", nested("(.*)*", "(.*)*", ".*")],
    ["(?:a{1,30}){1,30}", nested("(?:a{1,30}){1,30}", "(?:a{1,30}){1,30}", "a{1,30}")],
    ["^(\\w+\\s?)*$", nested("^(\\w+\\s?)*$", "(\\w+\\s?)*", "\\w+")],
    ["(a+a)+", nested("(a+a)+", "(a+a)+", "a+")],
    ["(.*,)*", nested("(.*,)*", "(.*,)*", ".*")],
    ["(a+|b+)+", nested("(a+|b+)+", "(a+|b+)+", "a+")],
    ["(?=(a+)+)", nested("(?=(a+)+)", "(a+)+", "a+")],
    ["(x+x+)+y", pair("(x+x+)+y", "(x+x+)+", "x+", "x+")],
    ["^(\\s*,\\s*)+$", pair("^(\\s*,\\s*)+$", "(\\s*,\\s*)+", "\\s*", "\\s*")],
    ["([ab]+c[bc]+)+", pair("([ab]+c[bc]+)+", "([ab]+c[bc]+)+", "[bc]+", "[ab]+")],
    ["(a|a)*", alternatives("(a|a)*", "(a|a)*", "a", "a")],
    ["(a|a){30}", alternatives("(a|a){30}", "(a|a){30}", "a", "a")],
    ["(\\w|\\d)+", alternatives("(\\w|\\d)+", "(\\w|\\d)+", "\\w", "\\d")],
    ["(a|aa)*", alternatives("(a|aa)*", "(a|aa)*", "a", "aa")],
    ["((a|[a-c])b)*", alternatives("((a|[a-c])b)*", "((a|[a-c])b)*", "a", "[a-c]")],
  ])("refuses %s", (pattern, message) => {
    expect(regexProblem(pattern)).toBe(message);
  });

  it.each([
    "^[a-z0-9._%+-]+@example\\.com$",
    "^([a-z0-9-]+\\.)+example\\.com$",
    "^(\\d{1,3}\\.){3}\\d{1,3}$",
    "(\\d+,)*\\d+",
    "(\\d{3}-)+",
    "(a+b)+",
    "(a+x+)+",
    "((a|b)c+)+",
    "(ab?)+",
    "(a|b|c)+",
    "(foo|far)+",
    "^(a|ab)*c$",
    "(a|)*",
    "a*a*",
    ".*beta.*",
    "^user-[0-9]+$",
    "\\bcheckout\\b",
    "(?<n>a)\\k<n>",
  ])("accepts %s", (pattern) => {
    expect(regexProblem(pattern)).toBeUndefined();
  });
});
