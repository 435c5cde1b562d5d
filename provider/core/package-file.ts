/**
 * The package's own data files (`provider-plugin/schema.json`, `provider-plugin/terraform-schema.json`,
 * `package.json`), read by the doors at run time: from the copies the process carries when it is
 * the provider binary (its single-executable assets, given by `../binary.ts`), else from the
 * package, the first such file above the module's directory (the source tree or a build).
 * @module
 */
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";

// On globalThis under a registered symbol, as `./door.ts` keeps its door: a second copy of this
// module in one process sees the same files.
const FILES_KEY = Symbol.for("flagstack.provider.packageFiles");
type Carried = Record<string, () => string | undefined>;

/** Makes {@link readPackageFile} answer `path` (relative to the package, `/`-separated) from `files`. */
export function usePackageFiles(files: Carried): void {
  (globalThis as unknown as Record<symbol, Carried | undefined>)[FILES_KEY] = files;
}

/**
 * The text of the package's file `path` (`provider-plugin/schema.json`): the carried copy, else the
 * first `<dir>/<path>` for `dir` from `from` up to the root; `undefined` when there is none.
 */
export function readPackageFile(path: string, from: string): string | undefined {
  const carried = (globalThis as unknown as Record<symbol, Carried | undefined>)[FILES_KEY]?.[path]?.();
  if (carried !== undefined) return carried;
  for (let dir = from; ; dir = dirname(dir)) {
    try {
      return readFileSync(join(dir, ...path.split("/")), "utf8");
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
    }
    if (dirname(dir) === dir) return undefined;
  }
}
