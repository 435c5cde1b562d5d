import { describe, expect, it } from "vitest";
import { z } from "zod";
import { expandPath, pathValueProblem, route } from "../../../sdk/core/route";
import { secretField } from "../../../sdk/core/secret-fields";

const WHY = "URL normalisation would make the request name another object";

describe("pathValueProblem", () => {
  it.each([
    [".", `"." is not a valid path value (a dot segment: ${WHY})`],
    ["..", `".." is not a valid path value (a dot segment: ${WHY})`],
    ["%2e", `"%2e" is not a valid path value (it decodes to ".", a dot segment: ${WHY})`],
    ["%2E%2e", `"%2E%2e" is not a valid path value (it decodes to "..", a dot segment: ${WHY})`],
    ["%25%32%65.", `"%25%32%65." is not a valid path value (it decodes to "..", a dot segment: ${WHY})`],
    ["a\\..", `"a\\\\.." is not a valid path value (it holds the dot segment "..": ${WHY})`],
    ["x%2f..", `"x%2f.." is not a valid path value (it holds the dot segment ".." once decoded: ${WHY})`],
  ])("refuses %j", (value, message) => {
    expect(pathValueProblem(value)).toBe(message);
  });

  it.each(["...", "a.b", ".env", "..a", "%", "%zz", "%2e%2e%2e", "100%25", "v1.2.3"])(
    "accepts %j",
    (value) => {
      expect(pathValueProblem(value)).toBeUndefined();
    },
  );
});

describe("expandPath", () => {
  const r = route("GET /a/{first}/b/{second}", z.unknown());
  it("encodes the values, or names the first parameter at fault", () => {
    expect(expandPath(r, { first: "x y", second: "a.b" })).toBe("/a/x%20y/b/a.b");
    expect(expandPath(r, { first: "", second: ".." })).toEqual({
      param: "first",
      message: "first must be a non-empty string",
    });
    expect(expandPath(r, { first: "x", second: "%2E" })).toEqual({
      param: "second",
      message: `"%2E" is not a valid path value (it decodes to ".", a dot segment: ${WHY})`,
    });
  });
});

describe("route: secret fields", () => {
  it("takes the response schema's secret field names, and the request schema's paths and names", () => {
    const Answer = z.object({ id: z.string(), key: secretField(z.string()) });
    const Sent = z.object({ spec: z.object({ value: secretField(z.string()).optional() }) });
    const r = route("POST /keys", Answer, { request: Sent });
    expect([r.secretFields, r.secretRequestPaths]).toEqual([["key", "value"], [["spec", "value"]]]);
    const plain = route("GET /items/{id}", z.object({ id: z.string() }));
    expect([plain.secretFields, plain.secretRequestPaths]).toEqual([[], []]);
  });
});
