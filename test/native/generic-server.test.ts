/**
 * The native provider's generic parts name no kind (issue 24: "no generic part names a particular
 * kind"): what one kind does differently is data or a hook of its own definition, so the server,
 * the schema and docs generators work the same for every kind of the list (`provider/native/kinds.ts`)
 * and load no resource module before a call needs one. `kinds.ts` and `functions.ts` are the lists
 * themselves and are not checked.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { NATIVE_KINDS } from "../../provider/native/kinds";
import { REPO } from "./harness";

const PROVIDER = join(REPO, "provider");
const NAMES = NATIVE_KINDS.map((k) => k.name);
const MODULES = NATIVE_KINDS.map((k) => k.module);

/** The kind names a text holds as words (`Flag`, not `flagstack` nor `FlagSet` for `Flag`). */
const namesIn = (text: string): string[] => NAMES.filter((n) => new RegExp(`\\b${n}\\b`).test(text));

/** What the code of a module names: its identifiers, its string literals and the modules it loads. */
function codeOf(file: string): { words: string[]; loads: string[] } {
  const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
  const words: string[] = [];
  const loads: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isIdentifier(node)) words.push(node.text);
    if (ts.isStringLiteralLike(node)) {
      words.push(node.text);
      // A relative module an import, `import("...")` type or `require("...")` names.
      if (node.text.startsWith(".")) loads.push(relative(PROVIDER, resolve(dirname(file), node.text)));
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return { words, loads };
}

describe("native provider: the generic parts name no kind", () => {
  it("server.ts, its comments included, names no kind of the list", () => {
    const text = readFileSync(join(PROVIDER, "native", "server.ts"), "utf8");
    expect(namesIn(text)).toEqual([]);
  });

  it.each(["server", "schema", "docs", "generate"])(
    "%s.ts: no identifier or string of its code is a kind, no kind module is loaded",
    (name) => {
      const { words, loads } = codeOf(join(PROVIDER, "native", `${name}.ts`));
      expect(words.filter((w) => NAMES.includes(w))).toEqual([]);
      expect(loads.filter((m) => MODULES.includes(m))).toEqual([]);
    },
  );

  it("the built server loads no resource module when it loads (the kinds come with the first call)", () => {
    // A process of its own: a fresh module cache, as the plugin starts (provider-plugin/index.js).
    const script = `
      require(${JSON.stringify(join(REPO, "dist", "provider", "native", "server.js"))});
      process.stdout.write(JSON.stringify(Object.keys(require.cache)));
    `;
    const loaded = JSON.parse(
      execFileSync(process.execPath, ["-e", script], { encoding: "utf8" }),
    ) as string[];
    const dist = join(REPO, "dist", "provider");
    const modules = loaded
      .filter((f) => f.startsWith(dist))
      .map((f) => relative(dist, f).replace(/\.js$/, ""));
    // It did load the server (the check below looks at the right files).
    expect(modules).toContain("native/server");
    expect(modules.filter((m) => MODULES.includes(m) || m === "native/kinds")).toEqual([]);
  });
});
