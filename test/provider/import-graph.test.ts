/**
 * `provider/` is a layered house (issue 24, "A house you can read"): no resource module imports
 * another resource module (what two kinds share lives in `provider/core/` or the SDK; the one
 * exception is a kind made of another kind's objects, {@link MADE_OF}), and no
 * import goes from a lower floor to a higher one. Floors, low to high:
 *
 * 0. `sdk/` (the only part outside `provider/` that a provider file may import)
 * 1. `provider/core/`
 * 2. the resource modules (a `provider/flags/<x>.ts` or `provider/platform/<x>.ts` that ends with
 *    `export const kind = defineKind(...)`) and their shared non-kind modules (`types.ts`,
 *    `pipeline-model.ts`)
 * 3. `provider/kinds.ts`, the list of kinds
 * 4. the doors and what users call: `provider/index.ts`, `provider/lookups.ts`,
 *    `provider/platform-lookups.ts`, and every other folder of `provider/` (`native/`, ...)
 *
 * The graph is read from the sources with the TypeScript parser: every static `import` (`import
 * type` included) and `export ... from` statement of every `.ts` file under `provider/`; an
 * import in a template string (the docs generator writes some) or a `require(...)` is not one.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { KIND_LIST } from "../../provider/kinds";

const REPO = join(__dirname, "..", "..");
const PROVIDER = join(REPO, "provider");

/** Every `.ts` source under `provider/`, relative to the repository (`provider/core/kind.ts`). */
function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    // `__schema-docs__.ts` is the docs generator's scratch file (`provider/native/docs.ts`), there
    // only while a schema test runs.
    if (!entry.name.endsWith(".ts") || entry.name.endsWith(".d.ts") || /^__.*__\.ts$/.test(entry.name))
      return [];
    return [relative(REPO, path)];
  });
}

/** The file a relative specifier names (`./x` is `x.ts` or `x/index.ts`), relative to the repository. */
function resolveSpecifier(from: string, specifier: string): string {
  const base = relative(REPO, resolve(REPO, dirname(from), specifier));
  const found = [`${base}.ts`, join(base, "index.ts")].find((candidate) => existsSync(join(REPO, candidate)));
  // A specifier that names no source stays as written: the test of resolution below names it.
  return found ?? base;
}

interface Source {
  file: string;
  /** The files its static import and export-from statements name, one entry per statement. */
  imports: string[];
  /** Ends with `export const kind = defineKind(...)`. */
  isKind: boolean;
}

function readSource(file: string): Source {
  const text = readFileSync(join(REPO, file), "utf8");
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const imports: string[] = [];
  for (const statement of source.statements) {
    const specifier =
      (ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement)) &&
      statement.moduleSpecifier !== undefined &&
      ts.isStringLiteral(statement.moduleSpecifier)
        ? statement.moduleSpecifier.text
        : undefined;
    // A package (`zod`, `@pulumi/pulumi`, `node:fs`) is no file of the repository.
    if (specifier?.startsWith(".")) imports.push(resolveSpecifier(file, specifier));
  }
  const last = source.statements[source.statements.length - 1];
  const isKind =
    PARTS.includes(dirname(file)) &&
    last !== undefined &&
    ts.isVariableStatement(last) &&
    (last.modifiers ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword) &&
    last.declarationList.declarations.length === 1 &&
    ts.isIdentifier(last.declarationList.declarations[0]!.name) &&
    last.declarationList.declarations[0]!.name.text === "kind" &&
    (() => {
      const init = last.declarationList.declarations[0]!.initializer;
      return (
        init !== undefined &&
        ts.isCallExpression(init) &&
        ts.isIdentifier(init.expression) &&
        init.expression.text === "defineKind"
      );
    })();
  return { file, imports, isKind };
}

/** The folders of the resource modules: the feature-flag kinds and the delivery platform's. */
const PARTS = ["provider/flags", "provider/platform"];

const FILES = sources(PROVIDER).sort();
const GRAPH = FILES.map(readSource);
const KINDS = new Set(GRAPH.filter((s) => s.isKind).map((s) => s.file));

/** The floor of a file; `undefined` for a file outside `sdk/` and `provider/` (no floor of the house). */
function floorOf(file: string): number | undefined {
  if (file.startsWith("sdk/")) return 0;
  if (file.startsWith("provider/core/")) return 1;
  if (PARTS.includes(dirname(file))) return 2;
  if (file.startsWith("provider/") && dirname(file) !== "provider") return 4;
  if (["provider/index.ts", "provider/lookups.ts", "provider/platform-lookups.ts"].includes(file)) return 4;
  if (file === "provider/kinds.ts") return 3;
  if (dirname(file) === "provider") return 2;
  return undefined;
}

/**
 * The kinds made of another kind's objects, whose every verb is that kind's once per part: a
 * flag's definitions in several environments (`FlagDefinitions`) are `FlagDefinition`s. Such a
 * kind imports the kind it is made of (one implementation of a definition), and nothing else does.
 */
const MADE_OF = ["provider/flags/flag-definitions.ts -> provider/flags/flag-definition.ts"];

/** Every import as an arrow, one per statement. */
const ARROWS = GRAPH.flatMap((s) => s.imports.map((to) => ({ from: s.file, to })));
const arrowText = (a: { from: string; to: string }) => `${a.from} -> ${a.to}`;

describe("provider/ import graph", () => {
  it("finds the resource modules, exactly the list of kinds' modules, each on the resource floor", () => {
    expect([...KINDS].sort()).toEqual(KIND_LIST.map((k) => `provider/${k.module}.ts`).sort());
    expect([...KINDS].filter((f) => floorOf(f) !== 2)).toEqual([]);
  });

  it("every import names a source file of the repository", () => {
    expect(ARROWS.filter((a) => !a.to.endsWith(".ts")).map(arrowText)).toEqual([]);
  });

  it("no resource module imports another resource module, but a kind made of another kind's objects", () => {
    const offending = ARROWS.filter((a) => KINDS.has(a.from) && KINDS.has(a.to))
      .map(arrowText)
      .filter((a) => !MADE_OF.includes(a));
    expect(offending).toEqual([]);
  });

  it("no import goes from a lower floor to a higher one, nor out of provider/ except to sdk/", () => {
    const offending = ARROWS.filter((a) => {
      const from = floorOf(a.from);
      const to = floorOf(a.to);
      return from === undefined || to === undefined || to > from;
    }).map((a) => `${arrowText(a)} (floor ${floorOf(a.from)} -> ${floorOf(a.to) ?? "outside"})`);
    expect(offending).toEqual([]);
  });

  it("reads the whole of provider/: every resource module imports core, and every file has a floor", () => {
    // Counted when the moves of issue 24 landed: 65 files and 505 imports (401 inside provider/,
    // 104 to sdk/); before them, 64 files and 501 imports, of which 7 went from a resource module to
    // another and 2 back up a floor. The counts move with every file, so the test asserts what they show.
    expect(FILES.filter((f) => floorOf(f) === undefined)).toEqual([]);
    const withoutCore = [...KINDS].filter(
      (f) => !ARROWS.some((a) => a.from === f && a.to.startsWith("provider/core/")),
    );
    expect(withoutCore).toEqual([]);
  });
});
