/**
 * After a killed `terraform apply` (or `tofu apply`): the objects the run made that the state does
 * not hold, found from nothing but the configuration, the state and the service, and written as
 * `import` blocks the next apply takes them into the state with (`flagstack terraform recover`,
 * `../../cli/terraform-recover-command.ts`).
 *
 * A killed apply (SIGKILL, an OOM, a CI timeout) leaves objects on the service that Terraform never
 * recorded: a create answered after Terraform's last state write, or sent by the provider in the
 * moment before it saw its parent gone (`./parent-watch.ts`); a killed `destroy` leaves the
 * definitions whose delete the provider held back for their flag's (`./held-deletes.ts`), already
 * out of the state. The next apply would create each again and fail on the duplicate. No file of
 * the killed run is needed (a CI runner is gone with it):
 * 1. the plan (`terraform plan -out` and `terraform show -json`, or a plan JSON given) lists every
 *    object the configuration declares that the state does not hold, as a create with its address
 *    (module path, `count` index, `for_each` key) and its planned attribute values;
 * 2. each one's attributes, snake_case (`./schema.ts`), become the kind's inputs (`./values.ts`),
 *    which the kind's `check` completes; the kind's `lookup` looks its natural key up on the service
 *    (one GET, no write), and the kind's import id (`../core/import-id.ts`) read by the kind's `read`,
 *    as `ImportResourceState` will read it, confirms the id;
 * 3. each object found is an `import` block, `to` its address, `id` its import id, in one file of
 *    the configuration ({@link RECOVERED_FILE}); the next apply imports them (reads, no write) and
 *    creates only what the service does not have.
 * An object that cannot be decided is reported, never guessed: an input of its natural key not
 * known until the apply (it names another object's output still to be made), inputs that do not
 * check, a kind whose objects the API cannot show again (an API key: `unseen`). Blocks of an
 * earlier run of the command whose objects the plan still imports are kept; once every one is in
 * the state, the file is removed. Nothing is written when nothing is missing.
 *
 * The provider's settings come from the plan: each argument of the `provider "flagstack"` block
 * that is a constant or one variable (`var.admin_api_url`), else its environment variable, as the
 * provider's own fallback.
 * @module
 */
import { execFile } from "node:child_process";
import {
  existsSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join, resolve } from "node:path";
import { promisify } from "node:util";
import { UNKNOWN } from "../core/check";
import { TERRAFORM_WORDS, useDoor } from "../core/door";
import { importIdOf, importIdParts } from "../core/import-id";
import { isUnknown } from "./msgpack";
import { plannedValue } from "./plan-json";
import type { TfResource } from "./schema";
import { type Catalog, configureKinds } from "./server";
import { blockType, type TfObject, type TfValue, toProvider } from "./values";

const run = promisify(execFile);

/** The file of the configuration the `import` blocks are written to. */
export const RECOVERED_FILE = "flagstack-recovered.tf";

// ---------------------------------------------------------------------------------------------
// The plan, as `terraform show -json <planfile>` writes it

/** An expression of the configuration: a constant, or what it refers to. */
export interface PlanExpression {
  constant_value?: unknown;
  references?: string[];
}

/** One resource instance's planned change. */
export interface PlanResourceChange {
  /** `module.a.flagstack_flag.f["k"]`. */
  address: string;
  mode?: string;
  type: string;
  change: {
    actions: string[];
    after?: unknown;
    after_unknown?: unknown;
    /** Present when an `import` block imports it in this plan. */
    importing?: { id?: string };
  };
}

/**
 * What this module reads of a plan JSON: a lenient view (every member optional) of
 * `./plan-json.ts`'s schema, since a plan without changes has no `resource_changes`.
 */
export interface PlanJson {
  format_version?: string;
  errored?: boolean;
  variables?: Record<string, { value?: unknown }>;
  resource_changes?: PlanResourceChange[];
  configuration?: {
    provider_config?: Record<
      string,
      { name?: string; alias?: string; expressions?: Record<string, PlanExpression> }
    >;
  };
}

// ---------------------------------------------------------------------------------------------
// What the configuration declares and the state does not hold

/** An object the plan creates: its address, resource type and inputs (provider form, before `check`). */
export interface Declared {
  address: string;
  /** `flagstack_flag`. */
  type: string;
  /** The planned inputs, camelCase; an input not known until the apply is left out. */
  inputs: Record<string, unknown>;
  /** The Terraform names of the inputs not known until the apply. */
  unknown: string[];
}

/** What the plan holds for recovery: the objects it creates, and those an `import` block imports. */
export interface Planned {
  creates: Declared[];
  importing: { address: string; id: string }[];
}

/**
 * The objects of flagstack's resource types the plan creates (a create alone: a replacement's
 * object is in the state) and those it imports, with each create's planned inputs in the kinds'
 * form: a top-level input not known until the apply is left out and named in `unknown`, one deeper
 * inside is the kinds' unknown marker.
 */
export function plannedObjects(plan: PlanJson, cat: Catalog): Planned {
  const creates: Declared[] = [];
  const importing: Planned["importing"] = [];
  for (const rc of plan.resource_changes ?? []) {
    if ((rc.mode ?? "managed") !== "managed") continue;
    const r = cat.resources.get(rc.type);
    if (r === undefined) continue;
    if (rc.change.importing !== undefined) {
      importing.push({ address: rc.address, id: rc.change.importing.id ?? "" });
      continue;
    }
    if (rc.change.actions.length !== 1 || rc.change.actions[0] !== "create") continue;
    creates.push({
      address: rc.address,
      type: rc.type,
      ...plannedInputs(r, rc.change.after, rc.change.after_unknown),
    });
  }
  return { creates, importing };
}

/** The inputs of a planned create (see {@link plannedObjects}). */
function plannedInputs(
  r: TfResource,
  after: unknown,
  afterUnknown: unknown,
): { inputs: Record<string, unknown>; unknown: string[] } {
  const value = plannedValue(after, afterUnknown) as TfObject;
  const inputKeys = new Set(Object.keys(r.kind.resource.inputs.shape));
  const inputs: Record<string, unknown> = {};
  const unknown: string[] = [];
  for (const a of r.attributes) {
    if (!inputKeys.has(a.key)) continue;
    const v = value[a.name] ?? null;
    if (isUnknown(v)) {
      unknown.push(a.name);
      continue;
    }
    const converted = toProvider(v, a.type, UNKNOWN);
    if (converted !== undefined) inputs[a.key] = converted;
  }
  return { inputs, unknown };
}

// ---------------------------------------------------------------------------------------------
// The provider's settings

/**
 * The arguments of the `provider "<key>"` block the plan's configuration records that recover can
 * evaluate (Terraform names: `admin_api_url`): a constant, or one variable's value; `unresolved`,
 * the others (each falls back to its environment variable, as in the provider).
 */
export function providerArguments(
  plan: PlanJson,
  key = "flagstack",
): { values: Record<string, unknown>; unresolved: string[] } {
  const expressions = plan.configuration?.provider_config?.[key]?.expressions ?? {};
  const values: Record<string, unknown> = {};
  const unresolved: string[] = [];
  for (const [name, e] of Object.entries(expressions)) {
    if ("constant_value" in e) {
      values[name] = e.constant_value;
      continue;
    }
    const refs = e.references ?? [];
    const variable = refs.length === 1 && refs[0]?.startsWith("var.") ? refs[0].slice(4) : undefined;
    const given = variable === undefined ? undefined : plan.variables?.[variable];
    if (given !== undefined && given.value !== undefined && given.value !== null) values[name] = given.value;
    else unresolved.push(name);
  }
  return { values, unresolved };
}

/**
 * Configures every kind with the provider block's arguments (Terraform names), as
 * `ConfigureProvider` does (`./server.ts` `configureKinds`), and the process to speak the
 * Terraform door's words.
 */
export async function configureFromArguments(cat: Catalog, args: Record<string, unknown>): Promise<void> {
  useDoor(TERRAFORM_WORDS);
  const type = blockType(cat.config);
  const object: TfObject = {};
  for (const a of cat.config) object[a.name] = (args[a.name] ?? null) as TfValue;
  const record = (toProvider(object, type, undefined) ?? {}) as Record<string, unknown>;
  await configureKinds(new Map(Object.entries(record).map(([k, v]) => [`flagstack:${k}`, String(v)])));
}

// ---------------------------------------------------------------------------------------------
// Looking each one up

/** What was found of one object the plan creates. */
export type Finding =
  /** On the service: imported by its id. */
  | { address: string; type: string; status: "found"; id: string; createdAt?: number }
  /** Not on the service: the next apply creates it. */
  | { address: string; type: string; status: "absent" }
  /** Not decidable: why, and what to do. */
  | { address: string; type: string; status: "undecided"; reason: string };

/** How many look-ups run at once (the client's rate limit paces them further). */
const LOOKUPS_AT_ONCE = 8;

/** Looks each declared object up on the service by its natural key (the kinds must be configured). */
export async function lookUp(declared: readonly Declared[], cat: Catalog): Promise<Finding[]> {
  const findings: Finding[] = new Array(declared.length);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < declared.length; i = next++) {
      const d = declared[i] as Declared;
      findings[i] = await lookUpOne(d, cat.resources.get(d.type) as TfResource);
    }
  };
  await Promise.all(Array.from({ length: Math.min(LOOKUPS_AT_ONCE, declared.length) }, worker));
  return findings;
}

async function lookUpOne(d: Declared, r: TfResource): Promise<Finding> {
  const at = { address: d.address, type: d.type };
  const undecided = (reason: string): Finding => ({ ...at, status: "undecided", reason });
  const impl = r.kind.impl;
  const form = r.kind.importId?.form;
  const checked = await impl.check({}, d.inputs);
  if (checked.failures && checked.failures.length > 0) {
    // The inputs at fault that the plan does not know yet (they name an output still to be made).
    const failing = new Set(checked.failures.map((f) => /^[^.[]*/.exec(f.property)?.[0] ?? ""));
    const notKnown = r.attributes.filter((a) => d.unknown.includes(a.name) && failing.has(a.key));
    const unknown =
      notKnown.length > 0 ? ` (not known until the apply: ${notKnown.map((a) => a.name).join(", ")})` : "";
    return undecided(
      `its planned inputs do not check${unknown}: ${checked.failures.map((f) => `${f.property}: ${f.reason}`).join("; ")}`,
    );
  }
  const inputs = checked.inputs as Record<string, unknown>;
  if (form === undefined) {
    return undecided(
      impl.unseen
        ? impl.unseen(inputs)
        : `${d.type} cannot be imported: the API does not show it again; if the killed run made it, delete it on the service`,
    );
  }
  // An input of the natural key that names an object still to be made: its value is not known yet.
  const parts = importIdParts(form);
  const unknownKey = r.attributes.filter(
    (a) =>
      d.unknown.includes(a.name) &&
      (parts.includes(a.key) ||
        parts.some((p) => a.key === `${p}Identifier`) ||
        (a.type.kind === "object" && a.type.attributes.some((x) => parts.includes(x.key)))),
  );
  const id = importIdOf(form, inputs) ?? importIdOf(form, d.inputs);
  if (unknownKey.length > 0 || id === undefined || id.includes(UNKNOWN)) {
    const names = unknownKey.map((a) => a.name);
    return undecided(
      `its natural key (${form}) is not known until the apply${names.length > 0 ? `: ${names.join(", ")}` : ""}; run the recovery again once the objects it names are in the state`,
    );
  }
  try {
    const found = await impl.lookup(inputs);
    if (found === undefined) return { ...at, status: "absent" };
    // The id as the import will read it (`ImportResourceState`: the kind's read by import id).
    const read = await impl.read(id, {});
    if (!read.id)
      return undecided(
        `it is on the service, but its import id ${JSON.stringify(id)} reads nothing; import it by hand (the import id has the form ${form})`,
      );
    return {
      ...at,
      status: "found",
      id,
      ...(found.createdAt === undefined ? {} : { createdAt: found.createdAt }),
    };
  } catch (e) {
    return undecided(`looking it up failed: ${e instanceof Error ? e.message : String(e)}`);
  }
}

// ---------------------------------------------------------------------------------------------
// The file of import blocks

/** An HCL string literal (template sequences escaped). */
export const hclString = (s: string): string =>
  JSON.stringify(s)
    .replaceAll("${", () => "$${")
    .replaceAll("%{", () => "%%{");

/** The text of {@link RECOVERED_FILE}: one `import` block per object, in the order given. */
export function importBlocksText(blocks: readonly { address: string; id: string }[]): string {
  const head = [
    "# Written by `npx flagstack terraform recover`: objects this configuration declares that the",
    "# service has and the state did not hold (left by a killed `terraform apply` or `destroy`).",
    "# The next `terraform apply` imports them; `npx flagstack terraform recover` removes this file once",
    "# every one is in the state.",
  ];
  const body = blocks.map((b) => `\nimport {\n  to = ${b.address}\n  id = ${hclString(b.id)}\n}\n`);
  return `${head.join("\n")}\n${body.join("")}`;
}

/** The `import` blocks of a file this module wrote (`to`, and `id` as a string literal). */
export function parseImportBlocks(text: string): { address: string; id: string }[] {
  const blocks: { address: string; id: string }[] = [];
  for (const m of text.matchAll(/^import \{\n {2}to = (.+)\n {2}id = ("(?:[^"\\]|\\.)*")\n\}$/gm)) {
    const literal = (m[2] as string).replaceAll("$${", () => "${").replaceAll("%%{", () => "%{");
    blocks.push({ address: m[1] as string, id: JSON.parse(literal) as string });
  }
  return blocks;
}

// ---------------------------------------------------------------------------------------------
// Running the plan

/** The Terraform or OpenTofu CLI on `PATH`: `tofu` first, then `terraform`. */
export function findCli(env: NodeJS.ProcessEnv = process.env): string | undefined {
  for (const name of ["tofu", "terraform"]) {
    for (const dir of (env.PATH ?? "").split(delimiter)) {
      if (dir && existsSync(join(dir, name))) return join(dir, name);
    }
  }
  return undefined;
}

/** A diagnostic of a `plan -json` run, as one line. */
function diagnosticLine(line: string): string | undefined {
  try {
    const m = JSON.parse(line) as {
      type?: string;
      diagnostic?: { severity?: string; summary?: string; detail?: string; address?: string };
    };
    if (m.type !== "diagnostic" || m.diagnostic === undefined) return undefined;
    const d = m.diagnostic;
    const at = d.address ? ` (${d.address})` : "";
    return `${d.severity ?? "error"}${at}: ${d.summary ?? ""}${d.detail ? `: ${d.detail}` : ""}`;
  } catch {
    return undefined;
  }
}

/**
 * The plan of the configuration in `dir`: `<cli> plan -input=false -json -out=<temporary file>
 * <planArgs>` (its warnings and errors reported through `log`), then `<cli> show -json` of it; the
 * plan file is removed.
 */
export async function runPlan(options: {
  cli: string;
  dir: string;
  planArgs?: readonly string[];
  env?: NodeJS.ProcessEnv;
  log?: (line: string) => void;
}): Promise<PlanJson> {
  const log = options.log ?? (() => {});
  const tmp = mkdtempSync(join(tmpdir(), "flagstack-recover-"));
  const planFile = join(tmp, "recover.tfplan");
  const exec = { cwd: options.dir, env: options.env ?? process.env, maxBuffer: 1024 * 1024 * 1024 };
  try {
    let out: string;
    let failed: unknown;
    try {
      out = (
        await run(
          options.cli,
          ["plan", "-input=false", "-json", `-out=${planFile}`, ...(options.planArgs ?? [])],
          exec,
        )
      ).stdout;
    } catch (e) {
      failed = e;
      out = (e as { stdout?: string }).stdout ?? "";
    }
    const diagnostics = out.split("\n").flatMap((l) => diagnosticLine(l) ?? []);
    for (const d of diagnostics) log(`${options.cli} plan: ${d}`);
    if (failed !== undefined) {
      const stderr = ((failed as { stderr?: string }).stderr ?? "").trim();
      throw new Error(
        `\`${options.cli} plan\` failed in ${options.dir}${diagnostics.length === 0 && stderr ? `: ${stderr}` : ""}`,
      );
    }
    const shown = await run(options.cli, ["show", "-json", planFile], exec);
    return JSON.parse(shown.stdout) as PlanJson;
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------------------------------------
// The whole recovery

/** What {@link recoverConfiguration} needs. */
export interface RecoverOptions {
  /** The configuration's directory (where the plan runs and the file is written). */
  dir: string;
  /** A plan JSON (`terraform show -json <planfile>`) to read instead of running the plan. */
  plan?: PlanJson;
  /** The Terraform or OpenTofu CLI that runs the plan; by default {@link findCli}'s. */
  cli?: string;
  /** More arguments of the plan (`-var-file=prod.tfvars`). */
  planArgs?: readonly string[];
  /** The file's name in `dir`; {@link RECOVERED_FILE} by default. */
  file?: string;
  /** Report only: no file written or removed. */
  dryRun?: boolean;
  env?: NodeJS.ProcessEnv;
  log?: (line: string) => void;
  /** The resource types served (the provider's catalog). */
  catalog: Catalog;
}

/** What {@link recoverConfiguration} found and did. */
export interface RecoverReport {
  /** Each object the plan creates, as found on the service. */
  findings: Finding[];
  /** The `import` blocks of an earlier run of the command that the plan still imports (kept). */
  pending: { address: string; id: string }[];
  /** The file written (its path), if one was. */
  written?: string;
  /** The earlier file removed (every block of it in the state), if it was. */
  removed?: string;
}

/**
 * Finds every object the configuration declares, the state does not hold and the service has, and
 * writes their `import` blocks into `dir`'s {@link RECOVERED_FILE} (see the module notes). Serves
 * the Terraform door's words.
 */
export async function recoverConfiguration(options: RecoverOptions): Promise<RecoverReport> {
  useDoor(TERRAFORM_WORDS);
  const log = options.log ?? (() => {});
  const dir = resolve(options.dir);
  const file = join(dir, options.file ?? RECOVERED_FILE);
  let plan = options.plan;
  if (plan === undefined) {
    const cli = options.cli ?? findCli(options.env);
    if (cli === undefined)
      throw new Error(
        "neither `tofu` nor `terraform` is on PATH: name one with --tofu PATH or --terraform PATH, or give a plan with --plan FILE",
      );
    log(`running \`${cli} plan\` in ${dir}`);
    plan = await runPlan({
      cli,
      dir,
      ...(options.planArgs ? { planArgs: options.planArgs } : {}),
      ...(options.env ? { env: options.env } : {}),
      log,
    });
  }
  if (plan.errored)
    throw new Error("the plan is errored (it did not complete): fix what it reported and run again");
  const { creates, importing } = plannedObjects(plan, options.catalog);
  const earlier = existsSync(file) ? parseImportBlocks(readFileSync(file, "utf8")) : [];
  const importingNow = new Set(importing.map((i) => i.address));
  const pending = earlier.filter((b) => importingNow.has(b.address));
  let findings: Finding[] = [];
  if (creates.length > 0) {
    const { values, unresolved } = providerArguments(plan);
    for (const name of unresolved)
      log(
        `the provider block's ${name} is an expression recover does not evaluate: its environment variable is used`,
      );
    await configureFromArguments(options.catalog, values);
    findings = await lookUp(creates, options.catalog);
  }
  const found = findings.filter((f): f is Extract<Finding, { status: "found" }> => f.status === "found");
  const report: RecoverReport = { findings, pending };
  const blocks = [...pending, ...found.map((f) => ({ address: f.address, id: f.id }))];
  if (found.length > 0) {
    if (!options.dryRun) {
      // Whole or not at all (a temporary file renamed): a kill mid-write leaves no half a block
      // for the next plan to refuse.
      const temporary = `${file}.${process.pid}.tmp`;
      writeFileSync(temporary, importBlocksText(blocks));
      renameSync(temporary, file);
      report.written = file;
    }
  } else if (earlier.length > 0 && pending.length === 0 && existsSync(file)) {
    if (!options.dryRun) {
      unlinkSync(file);
      report.removed = file;
    }
  }
  return report;
}

/** The lines that tell what {@link recoverConfiguration} found and did. */
export function reportLines(
  report: RecoverReport,
  cliName = "terraform",
  fileName = RECOVERED_FILE,
): string[] {
  const lines: string[] = [];
  const by = (status: Finding["status"]) => report.findings.filter((f) => f.status === status);
  const found = by("found") as Extract<Finding, { status: "found" }>[];
  const absent = by("absent");
  const undecided = by("undecided") as Extract<Finding, { status: "undecided" }>[];
  lines.push(
    report.findings.length === 0
      ? "every object the configuration declares is in the state"
      : `${report.findings.length} object(s) the configuration declares are not in the state: ` +
          `${found.length} on the service, ${absent.length} not, ${undecided.length} undecided`,
  );
  for (const f of found) {
    const created = f.createdAt === undefined ? "" : ` (created ${new Date(f.createdAt).toISOString()})`;
    lines.push(`  found ${f.address}: ${f.id}${created}`);
  }
  for (const f of undecided) lines.push(`  undecided ${f.address}: ${f.reason}`);
  if (report.pending.length > 0)
    lines.push(`${report.pending.length} import block(s) of an earlier recovery not yet applied: kept`);
  if (report.written)
    lines.push(
      `wrote ${found.length + report.pending.length} import block(s) to ${report.written}; ` +
        `\`${cliName} apply\` imports them and creates the ${absent.length} object(s) not on the service`,
    );
  else if (found.length > 0) lines.push(`dry run: ${fileName} not written`);
  if (report.removed) lines.push(`every import block of ${report.removed} is in the state: removed it`);
  if (found.length === 0 && !report.removed) lines.push("nothing to recover: wrote nothing");
  if (undecided.length > 0)
    lines.push(
      `${undecided.length} object(s) undecided: if \`${cliName} apply\` then reports one as existing, run the recovery again`,
    );
  return lines;
}
