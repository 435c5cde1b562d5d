/**
 * `flagstack terraform recover`: the one command to run after a `terraform apply` or `tofu apply`
 * (or `destroy`) was killed.
 *
 * ```
 * flagstack terraform recover [--dir DIR] [--tofu PATH | --terraform PATH | --plan FILE]
 *                             [--out FILE] [--dry-run] [-- PLAN_ARGS...]
 * ```
 * It needs nothing of the killed run, only the configuration, its state and the service: the plan
 * of the configuration in DIR (default: the current directory), run with `tofu` or `terraform`
 * (the one named, else the first on PATH, `tofu` before `terraform`; PLAN_ARGS go to its `plan`,
 * such as `-var-file=prod.tfvars`), or read from FILE (`terraform show -json <planfile>`), lists the
 * objects the configuration declares that the state does not hold; each one the service has (by its
 * natural key, the kind's look-up) becomes an `import` block with its address and import id in
 * DIR's `flagstack-recovered.tf` (`--out`), which the next `apply` imports with no write. It prints
 * what it found and wrote, and writes nothing when nothing is missing; once every block of an
 * earlier run is in the state, it removes the file. It exits 1 when an object could not be decided
 * (named, with why), after writing the blocks of the others. The logic is `provider/terraform/recover.ts`;
 * registering the command loads none of it.
 * @module
 */
import { readFileSync } from "node:fs";
import { basename, resolve } from "node:path";
import type { Command } from "commander";
import type { PlanJson, RecoverReport } from "../provider/terraform/recover";

/** The options commander hands to the action. */
export interface TerraformRecoverOptions {
  dir: string;
  plan?: string;
  tofu?: string;
  terraform?: string;
  out?: string;
  dryRun?: boolean;
}

/** Runs the recovery and prints what it found and did through `print`. */
export async function terraformRecover(
  options: TerraformRecoverOptions,
  planArgs: readonly string[] = [],
  print: (line: string) => void = (line) => process.stdout.write(`${line}\n`),
  env: NodeJS.ProcessEnv = process.env,
): Promise<RecoverReport> {
  if (options.tofu !== undefined && options.terraform !== undefined)
    throw new Error("give --tofu or --terraform, not both");
  if (options.plan !== undefined && (options.tofu ?? options.terraform) !== undefined)
    throw new Error("--plan reads a plan another run made: give it without --tofu or --terraform");
  if (options.plan !== undefined && planArgs.length > 0)
    throw new Error(
      `--plan reads a plan another run made: the plan arguments ${planArgs.join(" ")} do nothing`,
    );
  const [recover, { catalog }] = await Promise.all([
    import("../provider/terraform/recover.js"),
    import("../provider/terraform/server.js"),
  ]);
  const plan =
    options.plan === undefined
      ? undefined
      : (JSON.parse(readFileSync(resolve(options.plan), "utf8")) as PlanJson);
  const cli = options.tofu ?? options.terraform ?? (plan === undefined ? recover.findCli(env) : undefined);
  const report = await recover.recoverConfiguration({
    dir: options.dir,
    catalog: catalog(),
    env,
    log: print,
    planArgs,
    ...(plan === undefined ? {} : { plan }),
    ...(cli === undefined ? {} : { cli }),
    ...(options.out === undefined ? {} : { file: options.out }),
    ...(options.dryRun ? { dryRun: true } : {}),
  });
  const name = cli !== undefined && basename(cli).startsWith("tofu") ? "tofu" : "terraform";
  for (const line of recover.reportLines(report, name, options.out)) print(line);
  return report;
}

export function register(terraform: Command): void {
  terraform
    .command("recover")
    .description(
      "After a killed apply or destroy: write `import` blocks for the objects the configuration declares, " +
        "the service has and the state does not hold",
    )
    .argument("[plan-args...]", "arguments of the plan, after `--` (`-- -var-file=prod.tfvars`)")
    .option("--dir <dir>", "the configuration's directory", ".")
    .option("--tofu <path>", "run this OpenTofu CLI (default: tofu, else terraform, on PATH)")
    .option("--terraform <path>", "run this Terraform CLI")
    .option(
      "--plan <file>",
      "read this plan JSON (`terraform show -json <planfile>`) instead of running a plan",
    )
    .option(
      "--out <file>",
      "the file of import blocks in the configuration's directory",
      "flagstack-recovered.tf",
    )
    .option("--dry-run", "report only: write no file")
    .action(async (planArgs: string[], opts: TerraformRecoverOptions) => {
      const report = await terraformRecover(opts, planArgs);
      // An object it could not decide may still meet the next apply as a duplicate: not a clean run.
      if (report.findings.some((f) => f.status === "undecided")) process.exitCode = 1;
    });
}
