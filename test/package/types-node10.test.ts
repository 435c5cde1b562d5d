/**
 * scripts/types-node10.mts: the declarations for `moduleResolution: node` name zod's ES-module
 * declaration files, which compile without `esModuleInterop` (zod's `.d.cts` locales do not).
 * The whole rewritten tree is type-checked with the classic template's options by
 * test/e2e/package.test.ts; this pins the rewrite itself.
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { NODE10_DIR, rewriteZodSpecifiers } from "../../scripts/types-node10.mjs";

const REPO = join(__dirname, "..", "..");
const ZOD = dirname(require.resolve("zod/package.json", { paths: [REPO] }));

describe("rewriteZodSpecifiers", () => {
  it("points every zod entry at its ES-module declarations, in imports, re-exports and import types", () => {
    const text = [
      'import { z } from "zod";',
      "import type * as core from 'zod/v4/core';",
      'export { ZodType } from "zod";',
      'export declare const s: import("zod").ZodObject<{}, import("zod/v4/core").$strict>;',
    ].join("\n");
    expect(rewriteZodSpecifiers(text, ZOD)).toBe(
      [
        'import { z } from "zod/index.js";',
        "import type * as core from 'zod/v4/core/index.js';",
        'export { ZodType } from "zod/index.js";',
        'export declare const s: import("zod/index.js").ZodObject<{}, import("zod/v4/core/index.js").$strict>;',
      ].join("\n"),
    );
  });

  it("leaves other packages and already rewritten specifiers alone", () => {
    const text = [
      'import { x } from "zod-to-json-schema";',
      'import { y } from "zod/index.js";',
      'import * as pulumi from "@pulumi/pulumi";',
      'import { z } from "./zod";',
    ].join("\n");
    expect(rewriteZodSpecifiers(text, ZOD)).toBe(text);
  });

  it("refuses a zod entry with no ES-module declarations, naming the file", () => {
    expect(() => rewriteZodSpecifiers('import { z } from "zod/nowhere";', ZOD, "sdk/x.d.ts")).toThrow(
      `sdk/x.d.ts: no ES-module declarations for "zod/nowhere" (looked for ${join(ZOD, "nowhere", "index.d.ts")})`,
    );
  });

  it("leaves no bare zod specifier in any declaration the build emits", () => {
    const dist = join(REPO, "dist");
    const files = readdirSync(dist, { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile() && e.name.endsWith(".d.ts"))
      .map((e) => relative(dist, join(e.parentPath, e.name)))
      .filter((p) => !p.startsWith(`${NODE10_DIR}/`) && !p.startsWith("."));
    expect(files.length).toBeGreaterThan(100);
    const specifiers = new Set<string>();
    for (const file of files) {
      const out = rewriteZodSpecifiers(readFileSync(join(dist, file), "utf8"), ZOD, file);
      for (const m of out.matchAll(/(?:\bfrom\s+|\bimport\s*\(\s*)["'](zod[^"']*)["']/g))
        specifiers.add(m[1]!);
    }
    expect([...specifiers].sort()).toEqual(["zod/index.js", "zod/v4/core/index.js"]);
  });
});
