/**
 * A kind's import id filled from an object's inputs (provider/core/import-id.ts): each part the
 * input of its name, the identifier of the object it names or the member of the one object holding
 * it; an optional group kept only when its inputs are given; and for every kind of the list, the
 * same id from its example's inputs as given and as its `check` completes them (what
 * `flagstack terraform recover` reads).
 */
import { describe, expect, it } from "vitest";
import { importIdOf, importIdParts, importPartOf } from "../../../provider/core/import-id";
import { KIND_LIST } from "../../../provider/kinds";

describe("import ids from inputs", () => {
  it.each([
    ["<workspace>/<name>", { workspace: "Default", name: "checkout" }, "Default/checkout"],
    [
      "<workspace>/<flag>/<environment>",
      { workspace: "W", flag: "f", environment: "Production" },
      "W/f/Production",
    ],
    ["[<org>/[<project>/]]<identifier>", { org: "o", project: "p", identifier: "i" }, "o/p/i"],
    ["[<org>/[<project>/]]<identifier>", { org: "o", identifier: "i" }, "o/i"],
    ["[<org>/[<project>/]]<identifier>", { identifier: "i" }, "i"],
    [
      "<org>/<project>/<pipeline>/<identifier>",
      { org: "o", project: "p", pipelineIdentifier: "d", identifier: "n" },
      "o/p/d/n",
    ],
    ["<traffic type>/<name>", { trafficType: "user", name: "plan" }, "user/plan"],
    ["<identifier>", { pipeline: { identifier: "deploy" } }, "deploy"],
  ])("%s of %j → %s", (form, inputs, id) => {
    expect(importIdOf(form, inputs)).toBe(id);
  });

  it("a required part not given: no id", () => {
    expect(importIdOf("<workspace>/<name>", { name: "x" })).toBeUndefined();
    expect(importIdOf("<workspace>/<name>", { workspace: "", name: "x" })).toBeUndefined();
    expect(importIdOf("<workspace", { workspace: "W" })).toBeUndefined();
  });

  it("a part held by two object inputs is ambiguous: not given", () => {
    expect(importPartOf({ a: { identifier: "x" }, b: { identifier: "y" } }, "identifier")).toBeUndefined();
  });

  it("the parts of a form, as input names", () => {
    expect(importIdParts("[<org>/[<project>/]]<environment>/<identifier>")).toEqual([
      "org",
      "project",
      "environment",
      "identifier",
    ]);
    expect(importIdParts("<traffic type>/<name>")).toEqual(["trafficType", "name"]);
  });
});

describe("every kind's example", () => {
  const kinds = KIND_LIST.filter((k) => k.importId !== undefined && k.example !== undefined);
  it.each(kinds.map((k) => [k.name, k] as const))(
    "%s: one id from its inputs as given and as checked",
    async (_, kind) => {
      const form = kind.importId?.form as string;
      const given = importIdOf(form, kind.example?.inputs ?? {});
      const checked = await kind.impl.check({}, kind.example?.inputs ?? {});
      expect(checked.failures ?? []).toEqual([]);
      expect(given).toBeDefined();
      expect(importIdOf(form, checked.inputs as Record<string, unknown>)).toBe(given);
    },
  );
});
