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
 * - the parts of the SDK's platform and admin clients (`sdk/platform/parts.ts`, `sdk/admin/parts.ts`:
 *   every file of `sdk/platform/` or `sdk/admin/` that exports a `part`; the admin one also lists
 *   the client's members with each part's TSDoc), the emulator's v2 entity parts (`emulator/platform/entity-parts.ts`: every file
 *   of `emulator/platform/` that exports a `part = entityPart({...})`) and the store's kinds of v2
 *   entities with the parent each lives under (`emulator/store/entity-kinds.ts`, read from those
 *   parts' `kind` and `parent`), so a new part is its file alone.
 * - each kind's reference section of `docs/flag-resources.md` and `docs/platform-resources.md`,
 *   and the Terraform Registry's pages under `docs/terraform/` (`./kind-docs.ts`), from the kinds'
 *   definitions and the package schema (run `npm run schema` first when a schema or its TSDoc
 *   changed).
 * The README's part lives between a begin and an end marker, so the text around it stays
 * hand-written (as the docs pages' text around each kind's section does); the barrel, the
 * package's maps and the Terraform pages are generated whole.
 * `npm run generate` writes them; `npm run generate -- --check` fails when one is not current, as
 * `test/scripts/generate.test.ts` does. (`npm run schema` writes the native package schema.)
 * @module
 */
import { spawnSync } from "node:child_process";

import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { Kind } from "../provider/core/kind";
import { kindSections, terraformPages } from "./kind-docs";

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
  /**
   * Rendered from the files present, not the list of kinds (which loads the SDK and the emulator
   * whose part lists these are, so they are written first and without it).
   */
  fromFiles?: true;
}

/**
 * The list of kinds, loaded when first needed: the SDK client it imports needs the generated part
 * lists, which a run writes before it (a part file added or removed is then no missing import).
 */
const kindList = (): readonly Kind[] =>
  (require("../provider/kinds") as typeof import("../provider/kinds")).KIND_LIST;

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

/** The files of `dir` (from the root) whose source matches `marker`, without `.ts`, sorted. */
function filesWith(dir: string, marker: RegExp): { file: string; source: string }[] {
  return readdirSync(join(ROOT, dir))
    .filter((f) => f.endsWith(".ts"))
    .sort()
    .map((f) => ({ file: f.slice(0, -3), source: readFileSync(join(ROOT, dir, f), "utf8") }))
    .filter((f) => marker.test(f.source));
}

const camel = (file: string) => file.replace(/-(\w)/g, (_, c: string) => c.toUpperCase());

const GENERATED_NOTE = (what: string) => `/**
 * ${what}
 * Generated by \`npm run generate\` (\`scripts/generate.ts\`) from the files present: do not edit.
 * @module
 */
`;

/** A client's parts: each file of `sdk/<dir>/` that exports one (made by `factory`), its member's name and its one-line TSDoc. */
function clientParts(
  dir: "admin" | "platform",
  factory: string,
): { file: string; name: string; doc: string }[] {
  return filesWith(`sdk/${dir}`, new RegExp(`^export const part = ${factory}\\(`, "m")).map(
    ({ file, source }) => {
      const m = new RegExp(`^(\\/\\*\\*.*\\*\\/)\\nexport const part = ${factory}\\("(\\w+)"`, "m").exec(
        source,
      );
      if (m?.[1] === undefined || m[2] === undefined)
        throw new Error(
          `sdk/${dir}/${file}.ts: its part needs a one-line TSDoc, the client member's, and a name`,
        );
      return { file, name: m[2], doc: m[1] };
    },
  );
}

/**
 * `sdk/<dir>/parts.ts`: every part of a client, and the members they give it, each with its part's
 * TSDoc (which a member typed through a mapped type would lose).
 */
function sdkClientParts(dir: "admin" | "platform", factory: string, client: string): string {
  const parts = clientParts(dir, factory);
  const upper = dir.toUpperCase();
  const type = `${dir[0]?.toUpperCase()}${dir.slice(1)}Parts`;
  const imports = parts.map((p) => `import { part as ${camel(p.file)} } from "./${p.file}";\n`).join("");
  const members = parts.map((p) => `  ${p.doc}\n  readonly ${p.name}: PartApi<typeof ${camel(p.file)}>;\n`);
  return biome(
    `${GENERATED_NOTE(`The parts of the ${dir} client: the files of \`sdk/${dir}/\` that export a \`part\`.`)}import type { PartApi } from "../core/parts";
${imports}
/** Every part of the ${dir} client (\`${client}\` has one member per part). */
export const ${upper}_PARTS = [${parts.map((p) => camel(p.file)).join(", ")}] as const;

/** The members of \`${client}\` its parts give it, each documented by its part's TSDoc. */
export interface ${type} {\n${members.join("")}}
`,
    `sdk/${dir}/parts.ts`,
  );
}

/** The emulator's v2 entity parts: file, kind and the parent kind each lives under. */
function emulatorEntityParts(): { file: string; kind: string; parent: string | undefined }[] {
  return filesWith("emulator/platform", /^export const part = (?:entity\.)?entityPart\(/m).map(
    ({ file, source }) => {
      const body =
        /^export const part = (?:entity\.)?entityPart\(\{([\s\S]*?)^\}\);/m.exec(source)?.[1] ?? "";
      const kind = /\bkind: "(\w+)"/.exec(body)?.[1];
      if (kind === undefined) throw new Error(`emulator/platform/${file}.ts: its part names no kind`);
      return { file, kind, parent: /\bparent: "(\w+)"/.exec(body)?.[1] };
    },
  );
}

/** `emulator/platform/entity-parts.ts`: every v2 entity part of the emulator. */
function emulatorPartsFile(): string {
  const parts = emulatorEntityParts();
  const imports = parts.map((p) => `import { part as ${camel(p.file)} } from "./${p.file}";\n`).join("");
  return biome(
    `${GENERATED_NOTE("The emulator's v2 entities: the files of `emulator/platform/` that export a `part`.")}${imports}
/** Every v2 entity part: its store kind, base path and table row. */
export const ENTITY_PARTS = [${parts.map((p) => camel(p.file)).join(", ")}] as const;
`,
    "emulator/platform/entity-parts.ts",
  );
}

/** `emulator/store/entity-kinds.ts`: the store's kinds of v2 entities and their parents. */
function storeEntityKinds(): string {
  const parts = emulatorEntityParts();
  const parents = parts.filter((p) => p.parent !== undefined).map((p) => `  ${p.kind}: "${p.parent}",\n`);
  return biome(
    `${GENERATED_NOTE("The store's v2 entity kinds: each emulator part's `kind` and `parent` (`emulator/platform/`).")}
/** The v2 entity kinds. */
export const ENTITY_KINDS = [${parts.map((p) => `"${p.kind}"`).join(", ")}] as const;

/** The kind whose entity each kind lives under (\`pipeline\`: the platform part's pipelines); a deletion takes its children. */
export const ENTITY_PARENTS = {\n${parents.join("")}} as const;
`,
    "emulator/store/entity-kinds.ts",
  );
}

/** Every generated part. */
export const GENERATED: readonly Generated[] = [
  {
    file: "sdk/platform/parts.ts",
    render: () => sdkClientParts("platform", "platformPart", "PlatformClient"),
    fromFiles: true,
  },
  {
    file: "sdk/admin/parts.ts",
    render: () => sdkClientParts("admin", "adminPart", "AdminClient"),
    fromFiles: true,
  },
  { file: "emulator/platform/entity-parts.ts", render: emulatorPartsFile, fromFiles: true },
  { file: "emulator/store/entity-kinds.ts", render: storeEntityKinds, fromFiles: true },
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
  ...(["flags", "platform"] as const).map((area) => {
    const file = `docs/${area === "flags" ? "flag" : "platform"}-resources.md`;
    return {
      file,
      render: (kinds: readonly Kind[], text: string) =>
        kindSections(
          kinds.filter((k) => k.area === area),
          kinds,
          text,
          file,
        ),
    };
  }),
  ...terraformParts(),
];

/**
 * The Terraform Registry's pages, one part per file (`./kind-docs.ts`), each rendered from the
 * kinds given: the resource pages are named by the kinds' module files (one name stem per kind,
 * `flag-definition.ts` → `flag_definition.md`), so the list of parts needs no kind loaded.
 */
function terraformParts(): Generated[] {
  const modules = ["flags", "platform"].flatMap((area) =>
    readdirSync(join(ROOT, "provider", area))
      .filter(
        (f) =>
          f.endsWith(".ts") &&
          /^export const kind = defineKind\(/m.test(readFileSync(join(ROOT, "provider", area, f), "utf8")),
      )
      .map((f) => `docs/terraform/resources/${f.slice(0, -3).replaceAll("-", "_")}.md`),
  );
  const files = [...new Set([...terraformPages([]).keys(), ...modules])].sort();
  return files.map((file) => ({
    file,
    render: (kinds: readonly Kind[]) => {
      const page = terraformPages(kinds).get(file);
      if (page === undefined) throw new Error(`${file}: no kind or lookup of that name`);
      return page();
    },
  }));
}

/** The committed text of a generated file (empty when it does not exist yet). */
export const committedText = (file: string): string => {
  const path = join(ROOT, file);
  return existsSync(path) ? readFileSync(path, "utf8") : "";
};

/** The file's text with its generated part rendered from `kinds`. */
export function regenerate(part: Generated, text: string, given?: readonly Kind[]): string {
  const kinds = part.fromFiles ? [] : (given ?? kindList());
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
    const text = committedText(part.file);
    const next = regenerate(part, text);
    if (next === text) continue;
    if (check) {
      process.stderr.write(`${part.file} is not current: run \`npm run generate\`\n`);
      stale++;
    } else {
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, next);
      process.stdout.write(`wrote ${part.file}\n`);
    }
  }
  if (stale > 0) process.exit(1);
}
