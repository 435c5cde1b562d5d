/**
 * The shared `check` of every flagstack resource: validate the inputs with the resource's zod
 * schema, without any API call, and report one `{property, reason}` failure per problem.
 *
 * ref pulumi-notes §5.1: the returned `inputs` replace the program's inputs for every later call,
 * so defaults and normalisation happen here; `check` must tolerate absent `olds` (create) and the
 * unknown sentinel during preview (§1). Validation failures are data, never exceptions
 * (style-anchors §8 item 4).
 * @module
 */
import type * as pulumi from "@pulumi/pulumi";
import type { z } from "zod";
import { dotPath } from "../../sdk/core/issues";
import { secretPaths, secretValues } from "../../sdk/core/secret-fields";

/** The property under which the engine stores the serialized provider (ref pulumi-notes §1). */
export const PROVIDER_KEY = "__provider";

/**
 * The value the engine puts in place of an input that is not known yet during preview
 * (`runtime/rpc.js` `unknownValue`, ref pulumi-notes §1).
 */
export const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";

/** A path into a JSON document: object keys and array indexes. */
export type JsonPath = readonly (string | number)[];

/** One problem found by a whole-document rule, with the path of the field at fault. */
export interface InputProblem {
  path: JsonPath;
  message: string;
}

/** True when `value` is, or contains, the unknown sentinel. */
export function containsUnknown(value: unknown): boolean {
  if (value === UNKNOWN) return true;
  if (Array.isArray(value)) return value.some(containsUnknown);
  if (value !== null && typeof value === "object") return Object.values(value).some(containsUnknown);
  return false;
}

/** The paths at which `value` holds the unknown sentinel. */
export function unknownPaths(value: unknown, at: (string | number)[] = []): JsonPath[] {
  if (value === UNKNOWN) return [at];
  if (Array.isArray(value)) return value.flatMap((v, i) => unknownPaths(v, [...at, i]));
  if (value !== null && typeof value === "object") {
    return Object.entries(value).flatMap(([k, v]) => unknownPaths(v, [...at, k]));
  }
  return [];
}

/** Formats a path the way a user writes it in a program: `rules[0].buckets`, `tags["my key"]`. */
export { dotPath };

/** Removes the engine's `__provider` from a property bag (a copy; the input is not changed). */
export function withoutProvider<T extends object>(props: T | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = { ...(props ?? {}) };
  delete out[PROVIDER_KEY];
  return out;
}

/** Maps zod issues to Pulumi check failures: one per issue, one per unrecognized key. */
export function issuesToFailures(
  issues: readonly z.core.$ZodIssue[],
  prefix: JsonPath = [],
): pulumi.dynamic.CheckFailure[] {
  const failures: pulumi.dynamic.CheckFailure[] = [];
  for (const issue of issues) {
    const path = [...prefix, ...issue.path];
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys) {
        failures.push({ property: dotPath([...path, key]), reason: `unknown property "${key}"` });
      }
      continue;
    }
    failures.push({ property: dotPath(path), reason: issue.message });
  }
  return failures;
}

/** Maps whole-document problems to Pulumi check failures. */
export function problemsToFailures(problems: readonly InputProblem[]): pulumi.dynamic.CheckFailure[] {
  return problems.map((p) => ({ property: dotPath(p.path), reason: p.message }));
}

/** What a resource tells {@link checkInputs}. */
export interface CheckSpec<S extends z.ZodObject> {
  /** The resource's input schema: a (strict) zod object whose keys are the inputs. */
  schema: S;
  /**
   * Fills values that depend on other fields (a default rule from the default treatment). Runs
   * only when every field parsed and no value is unknown.
   */
  complete?: (inputs: z.output<S>) => z.output<S>;
  /**
   * Whole-document rules no single field can check (bucket sums, known treatment names). Runs
   * only when every field parsed and no value is unknown.
   */
  validate?: (inputs: z.output<S>) => readonly InputProblem[];
}

/**
 * Validates `news` (minus `__provider`) against `spec.schema`. Never throws, never calls an API.
 *
 * - All values known: returns the *parsed* inputs (defaults applied, values normalised) and one
 *   failure per zod issue or whole-document problem, with the field's dot path as `property`.
 * - Some values unknown (preview with values from resources not yet created): each top-level field
 *   without an unknown is parsed on its own (so its default applies and a bad value is still
 *   reported); a field holding an unknown is passed through as is; whole-document rules are skipped
 *   because they cannot be decided yet.
 *
 * No failure shows the value of a secret input (a field the schema marks with `secretField`,
 * `sdk/core/secret-fields.ts`: a `Secret`'s value or file content): wherever a reason quotes it,
 * it reads `[secret]`.
 */
export function checkInputs<S extends z.ZodObject>(
  spec: CheckSpec<S>,
  news: Record<string, unknown> | undefined,
): pulumi.dynamic.CheckResult<z.output<S>> {
  const raw = withoutProvider(news);
  const result = checkRaw(spec, raw);
  if (!result.failures?.length) return result;
  const secrets = secretValues(secretPaths(spec.schema), raw).filter((v) => v.length >= MIN_HIDDEN);
  if (secrets.length === 0) return result;
  return { ...result, failures: result.failures.map((f) => ({ ...f, reason: hide(f.reason, secrets) })) };
}

/** What a message shows in place of a secret input's value. */
export const SECRET_SHOWN = "[secret]";

/** Secret values shorter than this are not searched for in reasons (they would garble the text). */
const MIN_HIDDEN = 4;

/** `text` with every occurrence of each of `secrets` (longest first), and of its JSON form, hidden. */
function hide(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of [...secrets].sort((a, b) => b.length - a.length)) {
    out = out.replaceAll(JSON.stringify(secret), SECRET_SHOWN).replaceAll(secret, SECRET_SHOWN);
  }
  return out;
}

function checkRaw<S extends z.ZodObject>(
  spec: CheckSpec<S>,
  raw: Record<string, unknown>,
): pulumi.dynamic.CheckResult<z.output<S>> {
  if (!containsUnknown(raw)) {
    const parsed = spec.schema.safeParse(raw);
    if (!parsed.success) {
      return { inputs: raw as z.output<S>, failures: issuesToFailures(parsed.error.issues) };
    }
    const inputs = spec.complete ? spec.complete(parsed.data) : parsed.data;
    const problems = spec.validate?.(inputs) ?? [];
    return problems.length === 0 ? { inputs } : { inputs, failures: problemsToFailures(problems) };
  }
  const shape = spec.schema.shape as Record<string, z.ZodType>;
  const inputs: Record<string, unknown> = {};
  const failures: pulumi.dynamic.CheckFailure[] = [];
  for (const key of Object.keys(raw)) {
    if (!(key in shape)) failures.push({ property: dotPath([key]), reason: `unknown property "${key}"` });
  }
  for (const [key, fieldSchema] of Object.entries(shape)) {
    const value = raw[key];
    if (containsUnknown(value)) {
      inputs[key] = value;
      continue;
    }
    const parsed = fieldSchema.safeParse(value);
    if (parsed.success) {
      if (parsed.data !== undefined) inputs[key] = parsed.data;
    } else {
      inputs[key] = value;
      failures.push(...issuesToFailures(parsed.error.issues, [key]));
    }
  }
  return failures.length === 0
    ? { inputs: inputs as z.output<S> }
    : { inputs: inputs as z.output<S>, failures };
}

/** A resource's `check` verb: {@link checkInputs} by its spec (the old inputs play no part). */
export function checkWith<S extends z.ZodObject>(
  spec: CheckSpec<S>,
): (
  olds: Record<string, unknown>,
  news: Record<string, unknown>,
) => Promise<pulumi.dynamic.CheckResult<z.output<S>>> {
  return async (_olds, news) => checkInputs(spec, news);
}
