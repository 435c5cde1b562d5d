/**
 * Removes from dist/ what the compiler emitted for sources that no longer exist. `tsc` never
 * deletes old outputs, and a stale `dist/emulator/store.js` left by a source turned into
 * `emulator/store/index.ts` would shadow the new module (`require("./store")` finds the file
 * first). Run after every build (`npm run build`, and the tests' global setup).
 */
import { existsSync, readdirSync, rmSync } from "node:fs";
import { join, relative } from "node:path";

const root = join(import.meta.dirname, "..");
const dist = join(root, "dist");
const EMITTED = /\.(d\.ts|d\.ts\.map|js|js\.map)$/;

function prune(dir: string): void {
  if (!existsSync(dir)) return;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      // the declarations for node10 resolution and the provider's bundle are no compiler output
      if (path !== join(dist, "node10") && path !== join(dist, "bundle")) prune(path);
      continue;
    }
    if (!EMITTED.test(entry.name)) continue;
    const source = join(root, relative(dist, path)).replace(EMITTED, "");
    if (![".ts", ".mts", ".tsx"].some((ext) => existsSync(source + ext))) rmSync(path);
  }
}

prune(dist);
