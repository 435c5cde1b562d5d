/**
 * Writes `dist/node10/`: the emitted declarations again, for programs compiled with TypeScript's
 * `moduleResolution: "node"` (node10), which `pulumi new typescript` wrote until 2026 and which
 * ignores package.json `exports`. package.json `types` and `typesVersions` point those programs
 * here; every other resolution mode follows `exports` to `dist/` and never reads this tree.
 *
 * Why a second tree: zod ships CommonJS declarations (`*.d.cts`) in which `v4/locales/index.d.cts`
 * re-exports `default` from modules declared with `export =`, which TypeScript accepts only under
 * `esModuleInterop` (TS1259, 63 errors in zod's own files). The classic template sets neither
 * `esModuleInterop` nor `skipLibCheck`, and any mention of zod in our declarations (`import { z }
 * from "zod"`, `import("zod").ZodString`, even `import type`) loads that file: no way of writing
 * the import in our sources avoids it. node10 resolves `zod/index.js` to zod's ES-module
 * declarations (`index.d.ts`, where the locales use `export default`), which need no flag; under
 * node16/nodenext/bundler that specifier is outside zod's `exports`, and there `esModuleInterop`
 * is implied or the `.d.cts` files are fine, so only this tree is rewritten. The types are the
 * same: zod publishes one set of declarations in both module formats.
 *
 * Usage: `node scripts/types-node10.mts` (Node runs it with its types stripped) after `tsc -p tsconfig.build.json` (`npm run build`).
 * The tree is written beside `dist/node10` and renamed into place, so a concurrent reader sees
 * the old tree or the new one.
 * @module
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const dist = join(root, "dist");
/** The tree's directory name under dist/ (package.json `types` and `typesVersions` name it). */
export const NODE10_DIR = "node10";

/** A zod module specifier in a declaration: `from "zod..."` or `import("zod...")`. */
const ZOD_SPECIFIER = /(\bfrom\s+|\bimport\s*\(\s*)(["'])(zod(?:\/[^"']*)?)\2/g;

/**
 * The node10 declaration text of one emitted file: each zod specifier names the ES-module
 * declaration file of the same entry (`zod` → `zod/index.js`, `zod/v4/core` →
 * `zod/v4/core/index.js`). Throws on a zod entry with no such file, so a new import fails the
 * build instead of shipping a tree that breaks the classic template.
 */
export function rewriteZodSpecifiers(text: string, zodDir: string, file = "<text>"): string {
  return text.replace(ZOD_SPECIFIER, (_match, lead: string, quote: string, specifier: string) => {
    const sub = specifier.slice("zod".length);
    if (sub.endsWith(".js")) return `${lead}${quote}${specifier}${quote}`;
    const declaration = join(zodDir, sub, "index.d.ts");
    if (!existsSync(declaration)) {
      throw new Error(`${file}: no ES-module declarations for "${specifier}" (looked for ${declaration})`);
    }
    return `${lead}${quote}${specifier}/index.js${quote}`;
  });
}

/** Every `.d.ts` under `dir`, as paths relative to it, skipping the node10 tree itself. */
function declarations(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith(".d.ts"))
    .map((e) => relative(dir, join(e.parentPath, e.name)))
    .filter((p) => !p.startsWith(`${NODE10_DIR}/`) && !p.startsWith("."));
}

/** Builds `dist/node10` from the declarations in `dist/`; returns the number of files written. */
export function buildNode10Types(): number {
  const zodDir = dirname(createRequire(join(root, "package.json")).resolve("zod/package.json"));
  const files = declarations(dist);
  if (files.length === 0)
    throw new Error("types-node10: no declarations in dist/ (run tsc -p tsconfig.build.json)");
  const staging = join(dist, `.${NODE10_DIR}-${process.pid}`);
  rmSync(staging, { recursive: true, force: true });
  for (const file of files) {
    const out = join(staging, file);
    mkdirSync(dirname(out), { recursive: true });
    writeFileSync(out, rewriteZodSpecifiers(readFileSync(join(dist, file), "utf8"), zodDir, file));
  }
  const target = join(dist, NODE10_DIR);
  const old = join(dist, `.${NODE10_DIR}-old-${process.pid}`);
  try {
    renameSync(target, old);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
  }
  try {
    renameSync(staging, target);
  } catch (e) {
    // Another build put its tree in place between the two renames: it was made from the same
    // dist/, so keep it.
    const code = (e as NodeJS.ErrnoException).code;
    if (code !== "ENOTEMPTY" && code !== "EEXIST") throw e;
    rmSync(staging, { recursive: true, force: true });
  }
  rmSync(old, { recursive: true, force: true });
  return files.length;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const count = buildNode10Types();
  console.log(`types-node10: wrote ${count} declaration files to dist/${NODE10_DIR}`);
}
