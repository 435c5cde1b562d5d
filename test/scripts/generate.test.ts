import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Kind } from "../../provider/core/kind";
import { KIND_LIST } from "../../provider/kinds";
import { exportedNames, GENERATED, ROOT, regenerate } from "../../scripts/generate";

describe("scripts/generate: what is derived from the list of kinds", () => {
  it.each(GENERATED.map((g) => [g.file, g]))(
    "%s is current (`npm run generate` to update it)",
    (file, part) => {
      const committed = readFileSync(join(ROOT, file), "utf8");
      expect(regenerate(part, committed)).toBe(committed);
    },
  );

  it("the README table has one row per kind, in the list's order, with its import id", () => {
    const readme = readFileSync(join(ROOT, "README.md"), "utf8");
    const rows = [...readme.matchAll(/^\| `(\w+)` \| .* \| (`[^`]+` \(`[^`]+`\)|none) \|/gm)];
    expect(rows.map((r) => r[1])).toEqual(KIND_LIST.map((k) => k.name));
    expect(rows.find((r) => r[1] === "Flag")?.[2]).toBe("`<workspace>/<name>` (`Default/new-checkout`)");
    expect(rows.find((r) => r[1] === "ApiKey")?.[2]).toBe("none");
  });

  it("a kind added to the list gets its row and its module's exports without another edit", () => {
    const readme = GENERATED.find((g) => g.file === "README.md")!;
    const flag = KIND_LIST.find((k) => k.name === "Flag")!;
    const extra: Kind = {
      ...flag,
      name: "Thing",
      doc: { what: "a thing | with a bar", replaces: "name", updates: "" },
      importId: { form: "<name>", example: "t1" },
    };
    const text = regenerate(readme, readFileSync(join(ROOT, "README.md"), "utf8"), [...KIND_LIST, extra]);
    expect(text).toContain("| `Thing` | a thing \\| with a bar | `<name>` (`t1`) | name |  |\n");
  });

  it("exportedNames: values, types, re-exports; a schema and its type once; never impl, kind or @internal", () => {
    const source = [
      "export const FooInputs = z.object({});",
      "export type FooInputs = z.output<typeof FooInputs>;",
      "export type FooArgs = ResourceArgs<FooInputs>;",
      "export interface FooOptions {}",
      "export function fooYaml() {}",
      "export async function later() {}",
      "export const impl = {};",
      "export const kind = defineKind({});",
      'export { a, b as c, type D } from "./x";',
      'export type { E } from "./y";',
      "  export const indented = 1;",
      "/**\n * A helper of the module's neighbours.\n * @internal\n */",
      "export function hidden() {}",
      "/** @internal */",
      'export { alsoHidden } from "./z";',
      "/** Public, after an internal one. */",
      "export const shown = 1;",
    ].join("\n");
    expect(exportedNames(source)).toEqual([
      "FooInputs",
      "type FooArgs",
      "type FooOptions",
      "fooYaml",
      "later",
      "shown",
      "a",
      "c",
      "type D",
      "type E",
    ]);
  });
});
