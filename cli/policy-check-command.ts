/**
 * `flagstack policy check <plan.json>`: the rollout-safety policies on a Terraform or OpenTofu
 * plan, the pack's own code (`policy/plan-check.ts`) on the plan's flagstack resources.
 *
 * ```
 * tofu plan -out tfplan && tofu show -json tfplan > plan.json
 * flagstack policy check plan.json [--config policy-config.json] [--format text|json]
 * tofu show -json tfplan | flagstack policy check -
 * ```
 * Exit status: 0 when no mandatory policy is violated (advisory findings are printed as
 * warnings), 1 when one is, 2 when the plan or the config cannot be read. Registered by
 * `./policy-command.ts`, which loads this module only when the command runs (it loads the kinds).
 * @module
 */
import { checkPlan, failsCheck, formatJson, formatText } from "../policy/plan-check";
import { type CommandIo, processIo } from "./command-io";

/** Exit status of a check whose plan or config cannot be read. */
export const UNREADABLE = 2;

/** What `policy check` takes besides the plan. */
export interface PolicyCheckOptions {
  /** The pack's config file, in the format `pulumi preview --policy-pack-config` takes. */
  config?: string | undefined;
  /** `text` (default) or `json`. */
  format?: "text" | "json" | undefined;
}

/** Where the command reads and writes (the process's by default; a test's buffers). */
export type PolicyCheckIo = CommandIo;

/** JSON text of a file, or an error naming the file and what to give instead. */
function parseJson(text: string, what: string, hint: string): unknown {
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new Error(`${what} is not JSON (${(e as Error).message})${hint}`);
  }
}

/** Runs the check and returns the exit status; the findings on `out`, a failure to read on `err`. */
export async function runPolicyCheck(
  plan: string,
  options: PolicyCheckOptions = {},
  io: PolicyCheckIo = processIo,
): Promise<number> {
  const format = options.format ?? "text";
  let check: Awaited<ReturnType<typeof checkPlan>>;
  try {
    const planName = plan === "-" ? "standard input" : plan;
    const planJson = parseJson(
      plan === "-" ? io.readStdin() : io.readFile(plan),
      planName,
      ": give the JSON of a saved plan, `tofu show -json <planfile>` (or `terraform show -json <planfile>`)",
    );
    const config =
      options.config === undefined ? undefined : parseJson(io.readFile(options.config), options.config, "");
    check = await checkPlan(planJson, config);
  } catch (e) {
    io.err(`flagstack policy check: ${(e as Error).message}\n`);
    return UNREADABLE;
  }
  io.out(format === "json" ? formatJson(check) : formatText(check));
  return failsCheck(check) ? 1 : 0;
}
