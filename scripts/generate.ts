/**
 * Writes what is derived from the list of kinds (`provider/kinds.ts`) into the files people read:
 * - `provider/index.ts`, the barrel: the lookups and the pipeline model, and every public name of
 *   each kind's module but its `impl` and `kind` (which the stored `__provider` text and the
 *   registries reach through the module itself), as `biome` formats it;
 * - the resource table of `README.md` (name, what, import id, replaces on, updates in place: each
 *   kind's `doc` and `importId`).
 * - the kinds' names in `provider/types.ts`, for tools that must not load the kinds;
 * - `package.json`'s exports (and `typesVersions` for the older resolution) of each kind's public
 *   path `flagstack/provider/<file>`, the path its stored `__provider` text requires, to its module
 *   `provider/<area>/<file>` (the modules lived at `provider/<file>` until they were split by API).
 * The README's part lives between a begin and an end marker, so the text around it stays
 * hand-written; the barrel and the package's maps are generated whole.
 * `npm run generate` writes them; `npm run generate -- --check` fails when one is not current, as
 * `test/scripts/generate.test.ts` does. (`npm run schema` writes the native package schema.)
 * @module
 */
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Kind } from "../provider/core/kind";
import { KIND_LIST } from "../provider/kinds";

/** The repository's root. */
export const ROOT = join(__dirname, "..");

/** One generated part of a file: between `begin` and `end` (the whole file without them), the text of `render`. */
export interface Generated {
  /** The file, from the repository's root. */
  file: string;
  begin?: string;
  end?: string;
  /** The generated text: the part between the markers, or the whole file given its text. */
  render(kinds: readonly Kind[], text: string): string;
}

/**
 * The public names a module's source exports (values, and types prefixed `type `), in order: not
 * `impl` and `kind`, nor a declaration whose TSDoc says `@internal` (a helper the module's tests and
 * its neighbours in `provider/` use, which is no part of the barrel).
 */
export function exportedNames(source: string): string[] {
  const names: string[] = [];
  const internal = (at: number) =>
    /\/\*\*(?:(?!\*\/)[\s\S])*@internal(?:(?!\*\/)[\s\S])*\*\/\s*$/.test(source.slice(0, at));
  const declared =
    /^export (?:declare )?(?:const|let|function|async function|class|abstract class|enum|(type|interface)) (\w+)/gm;
  for (const m of source.matchAll(declared)) {
    if (!internal(m.index)) names.push(m[1] ? `type ${m[2]}` : m[2]!);
  }
  for (const m of source.matchAll(/^export (type )?\{([^}]*)\}(?: from [^;]+)?;/gm)) {
    if (internal(m.index)) continue;
    for (const part of m[2]!.split(",")) {
      const name = part
        .trim()
        .split(/\s+as\s+/)
        .pop()
        ?.replace(/^type\s+/, "");
      if (!name) continue;
      names.push(m[1] || /^\s*type\s/.test(part) ? `type ${name}` : name);
    }
  }
  const values = new Set(names.filter((n) => !n.startsWith("type ")));
  // A name exported both as a value and a type (a zod schema and its type) is one value export.
  const unique = [...new Set(names)].filter((n) => !(n.startsWith("type ") && values.has(n.slice(5))));
  return unique.filter((n) => n !== "impl" && n !== "kind");
}

const byName = (a: string, b: string) => {
  const key = (n: string) => n.replace(/^type /, "");
  return key(a).localeCompare(key(b), "en", { sensitivity: "base" }) || key(a).localeCompare(key(b));
};

const INDEX_HEAD = `/**
 * The flagstack Pulumi resources and lookups. Generated from the list of kinds
 * (\`provider/kinds.ts\`) by \`npm run generate\` (\`scripts/generate.ts\`): do not edit.
 *
 * Each resource module also exports its \`impl\` (the lifecycle implementation its stored
 * provider text \`require\`s at call time) and its \`kind\` (its definition); those are reached
 * through \`flagstack/provider/<file>\`, not this barrel.
 * @module
 */

export * from "./lookups";
export * from "./pipeline-model";
export * from "./platform-lookups";
// Every type token (\`FLAG_TYPE\`, ...), the module name and \`typeName\`.
export * from "./types";
`;

/** \`text\` as \`biome\` formats and organizes it for \`file\` (the repository's settings). */
function biome(text: string, file: string): string {
  const bin = join(ROOT, "node_modules", ".bin", "biome");
  const run = spawnSync(bin, ["check", "--write", `--stdin-file-path=${file}`], {
    cwd: ROOT,
    input: text,
    encoding: "utf8",
  });
  if (run.status !== 0) throw new Error(`biome failed on the generated ${file}: ${run.stderr}`);
  return run.stdout;
}

/** The barrel \`provider/index.ts\`: the lookups, the pipeline model, and every kind's module. */
function indexFile(kinds: readonly Kind[]): string {
  const modules = [...new Set(kinds.map((k) => k.module))].sort();
  const kindExports = modules.map((module) => {
    const names = exportedNames(readFileSync(join(ROOT, "provider", `${module}.ts`), "utf8")).sort(byName);
    return `export {\n${names.map((n) => `  ${n},\n`).join("")}} from "./${module}";\n`;
  });
  return biome(INDEX_HEAD + kindExports.join(""), "provider/index.ts");
}

const cell = (text: string) => text.replaceAll("|", "\\|");

/** The README's resource table. */
function resourceTable(kinds: readonly Kind[]): string {
  const rows = kinds.map((k) => {
    const id = k.importId ? `\`${k.importId.form}\` (\`${k.importId.example}\`)` : "none";
    return `| \`${k.name}\` | ${cell(k.doc.what)} | ${id} | ${cell(k.doc.replaces)} | ${cell(k.doc.updates)} |\n`;
  });
  return `| resource | what | import id | replaces on | updates in place |\n|---|---|---|---|---|\n${rows.join("")}`;
}

/** A JSON object with `entries` placed before the key `before` (replacing keys of the same name). */
function withEntriesBefore(
  object: Record<string, unknown>,
  before: string,
  entries: Record<string, unknown>,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(object)) {
    if (key in entries) continue;
    if (key === before) Object.assign(out, entries);
    out[key] = value;
  }
  return out;
}

/** `package.json` with each kind's public path mapped to its module (exports and typesVersions). */
function packageMaps(kinds: readonly Kind[], text: string): string {
  const pkg = JSON.parse(text) as {
    exports: Record<string, unknown>;
    typesVersions: { "*": Record<string, unknown> };
  };
  const sorted = [...kinds].sort((a, b) => a.file.localeCompare(b.file));
  pkg.exports = withEntriesBefore(
    pkg.exports,
    "./provider/*",
    Object.fromEntries(sorted.map((k) => [`./provider/${k.file}`, `./dist/provider/${k.module}.js`])),
  );
  pkg.typesVersions["*"] = withEntriesBefore(
    pkg.typesVersions["*"],
    "provider/*",
    Object.fromEntries(sorted.map((k) => [`provider/${k.file}`, [`dist/node10/provider/${k.module}.d.ts`]])),
  );
  return `${JSON.stringify(pkg, null, 2)}\n`;
}

/** The names of the kinds, for `provider/types.ts` (which imports nothing). */
const kindNames = (kinds: readonly Kind[]): string =>
  `export const KIND_NAMES = [\n${kinds.map((k) => `  "${k.name}",\n`).join("")}] as const;\n`;

/** Every generated part. */
export const GENERATED: readonly Generated[] = [
  {
    file: "provider/types.ts",
    begin: "// <generated: the kinds' names, `npm run generate`>\n",
    end: "// </generated>\n",
    render: kindNames,
  },
  {
    file: "provider/index.ts",
    render: indexFile,
  },
  {
    file: "package.json",
    render: packageMaps,
  },
  {
    file: "README.md",
    begin: "<!-- generated: the kinds' table, `npm run generate` -->\n",
    end: "<!-- end of the generated table -->\n",
    render: resourceTable,
  },
];

/** The file's text with its generated part rendered from `kinds`. */
export function regenerate(part: Generated, text: string, kinds: readonly Kind[] = KIND_LIST): string {
  if (part.begin === undefined || part.end === undefined) return part.render(kinds, text);
  const from = text.indexOf(part.begin);
  const to = text.indexOf(part.end, from);
  if (from < 0 || to < 0)
    throw new Error(`${part.file}: no generated part (${part.begin.trim()} ... ${part.end.trim()})`);
  return text.slice(0, from + part.begin.length) + part.render(kinds, text) + text.slice(to);
}

if (require.main === module) {
  const check = process.argv.includes("--check");
  let stale = 0;
  for (const part of GENERATED) {
    const path = join(ROOT, part.file);
    const text = readFileSync(path, "utf8");
    const next = regenerate(part, text);
    if (next === text) continue;
    if (check) {
      process.stderr.write(`${part.file} is not current: run \`npm run generate\`\n`);
      stale++;
    } else {
      writeFileSync(path, next);
      process.stdout.write(`wrote ${part.file}\n`);
    }
  }
  if (stale > 0) process.exit(1);
}
