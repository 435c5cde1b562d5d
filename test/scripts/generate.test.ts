import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ENTITY_PARTS } from "../../emulator/platform/entity-parts";
import { ENTITY_KINDS, ENTITY_PARENTS } from "../../emulator/store/entity-kinds";
import type { Kind } from "../../provider/core/kind";
import { KIND_LIST } from "../../provider/kinds";
import { exportedNames, GENERATED, ROOT, regenerate } from "../../scripts/generate";
import { PlatformClient } from "../../sdk/platform/client";
import { PLATFORM_PARTS } from "../../sdk/platform/parts";

describe("scripts/generate: what is derived from the list of kinds", () => {
  it.each(GENERATED.map((g) => [g.file, g]))(
    "%s is current (`npm run generate` to update it)",
    (file, part) => {
      const committed = readFileSync(join(ROOT, file), "utf8");
      expect(regenerate(part, committed, KIND_LIST)).toBe(committed);
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

describe("scripts/generate: the SDK's and the emulator's part lists, from the files present", () => {
  /** The first capture of `pattern` in each file of `dir` that has it, in file order. */
  const declared = (dir: string, pattern: RegExp) =>
    readdirSync(join(ROOT, dir))
      .filter((f) => f.endsWith(".ts"))
      .sort()
      .flatMap((f) => pattern.exec(readFileSync(join(ROOT, dir, f), "utf8"))?.[1] ?? []);

  it("the platform client has one typed member per part file of sdk/platform/", () => {
    const client = new PlatformClient({
      baseUrl: "http://127.0.0.1:1",
      apiKey: "k",
      accountId: "a",
      env: {},
    });
    const names = declared("sdk/platform", /^export const part = platformPart\("(\w+)"/m);
    expect(names.slice(0, 4)).toEqual(["environments", "environmentGroups", "infrastructures", "inputSets"]);
    expect(PLATFORM_PARTS.map((p) => p.name)).toEqual(names);
    // Typed: a member the parts do not declare is a compile error here, so this names two.
    expect([typeof client.environmentGroups.create, typeof client.triggers.list]).toEqual([
      "function",
      "function",
    ]);
    for (const p of PLATFORM_PARTS) {
      expect(typeof (client as unknown as Record<string, { create: unknown }>)[p.name]?.create, p.name).toBe(
        "function",
      );
    }
  });

  it("the emulator serves one part per file of emulator/platform/ that exports one, and the store keeps their kinds", () => {
    const kinds = declared(
      "emulator/platform",
      /^export const part = (?:entity\.)?entityPart\(\{\s*kind: "(\w+)"/m,
    );
    expect(ENTITY_PARTS.map((p) => p.kind)).toEqual(kinds);
    expect([...ENTITY_KINDS]).toEqual(kinds);
    expect(
      ENTITY_PARTS.filter((p) => p.kind === "environmentGroup" || p.kind === "infrastructure").map((p) => [
        p.kind,
        p.path,
        p.parent ?? null,
      ]),
    ).toEqual([
      ["environmentGroup", "/ng/api/environmentGroup", null],
      ["infrastructure", "/ng/api/infrastructures", "environment"],
    ]);
    expect(ENTITY_PARENTS).toEqual({
      infrastructure: "environment",
      inputSet: "pipeline",
      trigger: "pipeline",
    });
  });
});
