/**
 * The pipeline grammar, written once: what an identifier, a name, a duration, an expression and a
 * runtime input look like to the platform API (`../shared/spec/platform-api.md` §2 "Pipeline";
 * `../shared/reference/platform-api-behaviour.md`, cited "ref §N").
 *
 * Only decisions live here (patterns, word lists, predicates), never messages: the provider's
 * `check` explains a refusal in a program's terms, the emulator in the service's terms, and both
 * decide with these functions, so what one accepts the other accepts.
 * @module
 */
import { YAML_MAX_BYTES } from "../../core/yaml";

// ---------------------------------------------------------------------------------------------
// Identifiers (ref §3 `EntityIdentifierValidator`, newest version; ref §10 item 5)

/** Longest identifier: 128 characters (older service versions allowed 64, ref §3). */
export const IDENTIFIER_MAX_LENGTH = 128;
/** Entity identifiers: a letter or `_`, then letters, digits, `_` and `$`; no `-`, `.`, `/` or space. */
export const IDENTIFIER_PATTERN = /^[a-zA-Z_][0-9a-zA-Z_$]{0,127}$/;
/**
 * Words an identifier may not be (ref §3): the validator's list plus `status` and `liteEngineTask`,
 * which the docs add. Compared case-sensitively, as identifiers are (ref §3).
 */
export const RESERVED_IDENTIFIERS = [
  "or",
  "and",
  "eq",
  "ne",
  "lt",
  "gt",
  "le",
  "ge",
  "div",
  "mod",
  "not",
  "null",
  "true",
  "false",
  "new",
  "var",
  "return",
  "step",
  "parallel",
  "stepGroup",
  "org",
  "account",
  "class",
  "shellScriptProvisioner",
  "status",
  "liteEngineTask",
] as const;
const RESERVED = new Set<string>(RESERVED_IDENTIFIERS);

/** True for a reserved word ({@link RESERVED_IDENTIFIERS}). */
export const isReservedIdentifier = (value: string): boolean => RESERVED.has(value);

/** True when the service accepts `value` as an entity identifier: the pattern and not a reserved word. */
export const isIdentifier = (value: string): boolean =>
  IDENTIFIER_PATTERN.test(value) && !RESERVED.has(value);

/** The service's explanation of {@link IDENTIFIER_PATTERN} (ref §3), used by every identifier check. */
export const IDENTIFIER_RULE =
  "can be 128 characters long and can only contain alphanumeric, underscore and $ characters, and not start with a number or $";

/**
 * References to other entities (connectors, services, environments) may be scoped with `account.`
 * or `org.` (ref §3 `allowScoped`).
 */
export const SCOPED_REFERENCE_PATTERN = /^(?:(?:account|org)\.)?[a-zA-Z_][0-9a-zA-Z_$]{0,127}$/;

// ---------------------------------------------------------------------------------------------
// Names of pipelines, stages, steps and step groups

/** Longest pipeline, stage or step name: 128 characters (ref §3 pipeline FAQ, ref §10 item 5). */
export const NAME_MAX_LENGTH = 128;
/**
 * Names in pipeline YAML: letters, digits, `_`, `-`, `.` and whitespace, not starting with
 * whitespace, at most 128 characters. This is the pipeline YAML schema's pattern, not the
 * `NGEntityNameValidator` of projects and connectors (ref §3, which newer versions extend with `/`):
 * a pipeline's names are checked by schema validation of the YAML (ref §6.2). So `build/test` is no
 * pipeline, stage or step name, though it is a project name. The reference does not quote the
 * schema's pattern (its messages are undocumented, ref §12); the emulator has always answered
 * with this one.
 */
export const NAME_PATTERN = /^[a-zA-Z_0-9-.][-0-9a-zA-Z_\s.]{0,127}$/;
const NAME_CHARACTER = /^[-0-9a-zA-Z_\s.]$/u;

/** True when the service accepts `value` as a pipeline, stage, step or step group name. */
export const isName = (value: string): boolean => NAME_PATTERN.test(value);

/**
 * Why {@link isName} refuses `value` (`undefined` when it accepts it), for messages: the first
 * rule broken, in the order a reader fixes them.
 */
export function nameProblem(
  value: string,
): { kind: "empty" | "leading-space" | "too-long" } | { kind: "character"; character: string } | undefined {
  if (isName(value)) return undefined;
  if (value.trim() === "") return { kind: "empty" };
  const character = [...value].find((c) => !NAME_CHARACTER.test(c));
  if (character !== undefined) return { kind: "character", character };
  if (/^\s/.test(value)) return { kind: "leading-space" };
  return { kind: "too-long" };
}

// ---------------------------------------------------------------------------------------------
// Variable names

/** Pipeline, stage and service variable names: an identifier's characters, reserved words allowed. */
export const VARIABLE_NAME_PATTERN = /^[a-zA-Z_][0-9a-zA-Z_$]{0,127}$/;
/** Environment and output variables of a ShellScript step become shell variables: no `$`. */
export const SHELL_VARIABLE_NAME_PATTERN = /^[a-zA-Z_][0-9a-zA-Z_]{0,127}$/;

// ---------------------------------------------------------------------------------------------
// Expressions and runtime inputs (spec §2 "Pipeline", ref §7.2)

/** The runtime-input token: the value is asked for when the pipeline runs. */
export const RUNTIME_INPUT = "<+input>";
/**
 * A runtime input as the service reads it: `<+input>` followed by method calls such as
 * `.default(x)`, `.allowedValues(a,b)`, `.selectOneFrom(a,b)`, `.regex(r)`, `.executionInput()`
 * (ref §7.2). The typed model understands a subset (`runtime-input.ts`).
 */
export const RUNTIME_INPUT_PATTERN = /^<\+input>(\.[A-Za-z]+\(.*\))*$/;

/** True for a string the service reads as a runtime input (surrounding whitespace ignored). */
export const isRuntimeInputText = (value: unknown): value is string =>
  typeof value === "string" && RUNTIME_INPUT_PATTERN.test(value.trim());

/** Every `<+...>` expression token in a text, e.g. to blank expressions out before matching it. */
export const EXPRESSION_TOKENS = /<\+[^>]*>/g;

/** True when a value is one whole `<+...>` expression (`<+pipeline.name>`, `<+input>`). */
export const isExpression = (value: string): boolean => /^<\+[\s\S]+>$/.test(value);

/**
 * True when a value holds an expression anywhere (`release-<+INFRA_KEY>`, `<+input>.default(10m)`):
 * the service evaluates it at run time, so typed fields such as timeouts accept it as is (ref §7.2).
 */
export const containsExpression = (value: string): boolean => /<\+.+>/.test(value);

// ---------------------------------------------------------------------------------------------
// Durations (spec §2 "Step fields": "a number followed by m"; ref §7.1 `timeout: 10m`)

/** Milliseconds of each duration unit, largest first: the order parts must come in. */
export const DURATION_UNITS = {
  w: 604_800_000,
  d: 86_400_000,
  h: 3_600_000,
  m: 60_000,
  s: 1000,
  ms: 1,
} as const;

// Each unit at most once, largest first, whitespace allowed between parts (`1h 30m`); `m(?!s)`
// keeps the minutes from taking the `m` of `ms`.
const DURATION = /^(?:(\d+)w\s*)?(?:(\d+)d\s*)?(?:(\d+)h\s*)?(?:(\d+)m(?!s)\s*)?(?:(\d+)s\s*)?(?:(\d+)ms)?$/;

/**
 * Milliseconds of a duration such as `10m`, `1h30m`, `1h 30m`, `1w 2d` or `500ms` (surrounding
 * whitespace ignored); `undefined` when the text is no duration. Zero is a duration here; see
 * {@link isDuration}.
 */
export function durationMs(text: string): number | undefined {
  const trimmed = text.trim();
  const m = trimmed === "" ? null : DURATION.exec(trimmed);
  if (m === null) return undefined;
  const factors = Object.values(DURATION_UNITS);
  return m.slice(1).reduce((total, n, i) => (n === undefined ? total : total + Number(n) * factors[i]!), 0);
}

/** True for a non-zero duration such as `10m`, `1h30m`, `30s`, `1d` or `1h 30m`. */
export function isDuration(text: string): boolean {
  const ms = durationMs(text);
  return ms !== undefined && ms > 0;
}

/** True for what a timeout field takes: a non-zero duration, or a value holding an expression. */
export const isDurationValue = (value: string): boolean => isDuration(value) || containsExpression(value);

/**
 * Step timeout the typed model gives a step that has none. Readers of a model (the policy pack)
 * use it too: a model step always deploys with a timeout.
 */
export const DEFAULT_STEP_TIMEOUT = "10m";

// ---------------------------------------------------------------------------------------------
// Enumerations the service checks in any pipeline

/** Shells of a ShellScript step: the service validates `shell` against this enumeration (ref §7.1). */
export const SHELLS = ["Bash", "PowerShell"] as const;
/** Where a ShellScript step's script comes from: written inline, or a file in the file store. */
export const SCRIPT_SOURCE_TYPES = ["Inline", "Harness"] as const;

// CI and approval enumerations. The spec is silent about CI and Approval stages; the shapes are
// the public Harness docs' (harness/developer-hub `docs/platform/approvals/adding-harness-approval-stages.md`,
// CI pipeline samples with `type: CI`, `cloneCodebase`, `platform {os, arch}`, `runtime {type: Cloud}`
// or `infrastructure {type: KubernetesDirect}`) and the service's `Approvers` bean
// (io.harness.steps.approval.step.harness.beans: userGroups, minimumCount, disallowPipelineExecutor).

/** Shells of a CI `Run` step. */
export const CI_SHELLS = ["Sh", "Bash", "Powershell", "Pwsh", "Python"] as const;
/** Operating systems of a CI stage's Cloud runtime (`platform.os`). */
export const CI_OS = ["Linux", "MacOS", "Windows"] as const;
/** Architectures of a CI stage's Cloud runtime (`platform.arch`). */
export const CI_ARCH = ["Amd64", "Arm64"] as const;
/**
 * Timeout the typed model gives a HarnessApproval step that has none: one day, the default of the
 * step in the Harness docs (an approver needs time to see it).
 */
export const DEFAULT_APPROVAL_TIMEOUT = "1d";

// ---------------------------------------------------------------------------------------------
// Size

/**
 * Largest pipeline YAML `check` reads: 1 MiB of UTF-8, the bound of every YAML read
 * (`sdk/core/yaml.ts` `YAML_MAX_BYTES`, which says why), checked before parsing.
 */
export const PIPELINE_YAML_MAX_BYTES = YAML_MAX_BYTES;
