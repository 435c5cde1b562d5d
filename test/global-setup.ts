/**
 * Vitest global setup: compiles the package (`tsc -p tsconfig.build.json`, incremental) before
 * any test runs. The tests that go through the real dynamic-provider host, and the end-to-end
 * tests, load the provider from the built `dist/` (a resource's `__provider` text requires
 * `flagstack/provider/<file>`, which resolves there), so without this a source change made after
 * the last build would be tested in direct mode only, and the host's half would pass on the old
 * code. Incremental: with nothing changed it takes about a second.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export default function setup(): () => void {
  const root = join(__dirname, "..");
  // What environment creates note for `flagstack recover` (provider/core/created-journal.ts)
  // goes to a directory of this run, not ~/.flagstack; the workers inherit the variable.
  const journal = mkdtempSync(join(tmpdir(), "flagstack-journal-"));
  process.env.FLAGSTACK_JOURNAL_DIR ||= journal;
  try {
    execFileSync(
      process.execPath,
      [join(root, "node_modules", "typescript", "bin", "tsc"), "-p", "tsconfig.build.json"],
      {
        cwd: root,
        stdio: ["ignore", "ignore", "inherit"],
      },
    );
  } catch {
    // tsc still emits when the code has type errors (exit status 2); those are reported by the
    // typecheck that scripts/test.sh counts as a suite of its own, so the tests run on what was emitted.
    console.warn("test/global-setup: the build reported type errors (run `npm run typecheck`)");
  }
  // What tsc emitted for sources since deleted would shadow their replacements (scripts/prune-dist.mts).
  execFileSync(process.execPath, [join(root, "scripts", "prune-dist.mts")], { cwd: root, stdio: "inherit" });
  // The provider's bundle, which the Terraform launcher and the plugin directory run (`npm run build` makes it too).
  execFileSync(process.execPath, [join(root, "scripts", "bundle.mts")], { cwd: root, stdio: "inherit" });
  // `require("flagstack/provider/...")` from the repository resolves through this link (scripts/setup.sh makes it too).
  const link = join(root, "node_modules", "flagstack");
  if (!existsSync(link)) symlinkSync("..", link, "dir");
  return () => rmSync(journal, { recursive: true, force: true });
}
