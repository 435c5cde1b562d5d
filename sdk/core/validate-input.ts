/**
 * Validation of request bodies before anything is sent: bad input fails with a
 * {@link ValidationError} (status 0, zero requests) naming each field at fault.
 * @module
 */
import type { z } from "zod";
import { ValidationError } from "./errors";
import { dotPath, flattenIssues } from "./issues";
import type { Route } from "./route";

/**
 * Parses `value` with `schema` and returns the parsed (normalised, defaults applied) value.
 * @param r The route the value is for (its method and path appear in the message).
 * @param prefix Prepended to every field path (e.g. `records` gives `records[3].timestamp`).
 * @throws ValidationError listing every issue as `{field, message}`.
 */
export function parseInput<S extends z.ZodType>(
  schema: S,
  value: unknown,
  r: Route,
  what: string,
  prefix = "",
): z.output<S> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  throw invalidInput(r, what, flattenIssues(parsed.error.issues), prefix);
}

/** Builds the ValidationError for input problems given as `{path, message}`. */
export function invalidInput(
  r: Route,
  what: string,
  problems: { path: readonly PropertyKey[]; message: string }[],
  prefix = "",
): ValidationError {
  return new ValidationError({
    status: 0,
    method: r.method,
    url: r.template,
    message: `invalid ${what}`,
    fieldErrors: problems.map((p) => {
      const path = dotPath(p.path);
      const field = prefix
        ? path.startsWith("[")
          ? prefix + path
          : path
            ? `${prefix}.${path}`
            : prefix
        : path || what;
      return { field, message: p.message };
    }),
  });
}
