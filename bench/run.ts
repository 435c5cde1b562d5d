/**
 * `npm run bench [-- --quick] [-- --only name]`: runs every `bench/*.bench.ts` module and writes
 * `bench/results/latest.json` (one flat object of named numbers, plus the Node version, CPU and
 * commit it ran on) and a readable table. A quick run, or one limited to the modules whose file
 * names start with `name`, writes `bench/results/partial.json` instead.
 *
 * A bench module exports `run(ctx: BenchContext): Promise<Record<string, number>>`. Each figure that
 * has a baseline is measured in the same run and reported as a ratio.
 */
import { execSync } from "node:child_process";
import { mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { cpus } from "node:os";
import { join } from "node:path";

export interface BenchContext {
  /** Smaller sizes so that the whole run takes under two minutes. */
  quick: boolean;
  log: (msg: string) => void;
}
export type BenchModule = { run: (ctx: BenchContext) => Promise<Record<string, number>> };

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const quick = args.includes("--quick");
  const onlyAt = args.indexOf("--only");
  const only = onlyAt >= 0 ? args[onlyAt + 1] : undefined;
  const dir = __dirname;
  const files = readdirSync(dir)
    .filter((f) => f.endsWith(".bench.ts"))
    .filter((f) => !only || f.startsWith(only))
    .sort();
  const results: Record<string, number | string> = {};
  const log = (msg: string) => console.error(`bench: ${msg}`);
  for (const f of files) {
    const started = Date.now();
    log(`${f}${quick ? " (quick)" : ""}`);
    const mod = (await import(join(dir, f))) as BenchModule;
    const figures = await mod.run({ quick, log });
    Object.assign(results, figures);
    log(`${f} done in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  }
  let commit = "unknown";
  try {
    commit = execSync("git rev-parse --short HEAD", { cwd: dir, encoding: "utf8" }).trim();
  } catch {
    // not a git checkout
  }
  const out = {
    ...results,
    quick: quick ? 1 : 0,
    node: process.version,
    cpu: cpus()[0]?.model ?? "unknown",
    cores: cpus().length,
    commit,
    date: new Date().toISOString(),
  };
  // Only a full run of every module replaces the committed figures; a quick or partial run goes
  // to a file git ignores.
  const name = quick || only ? "partial.json" : "latest.json";
  mkdirSync(join(dir, "results"), { recursive: true });
  writeFileSync(join(dir, "results", name), `${JSON.stringify(out, null, 2)}\n`);
  log(`figures written to bench/results/${name}`);
  const width = Math.max(...Object.keys(out).map((k) => k.length));
  console.log(`${"figure".padEnd(width)}  value`);
  for (const [k, v] of Object.entries(out)) {
    console.log(`${k.padEnd(width)}  ${typeof v === "number" ? Number(v.toPrecision(6)) : v}`);
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
