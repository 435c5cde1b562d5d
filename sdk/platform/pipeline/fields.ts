/**
 * The leaf fields of the typed model and of the wire form, as zod schemas: names, durations,
 * booleans, references, texts and variable names, each accepting a runtime input where the
 * service does. Every decision comes from `grammar.ts`; the messages name the field as a program
 * writes it.
 * @module
 */
import { z } from "zod";
import { Identifier } from "../schemas";
import {
  containsExpression,
  isDurationValue,
  isExpression,
  NAME_MAX_LENGTH,
  nameProblem,
  SCOPED_REFERENCE_PATTERN,
  SHELL_VARIABLE_NAME_PATTERN,
  VARIABLE_NAME_PATTERN,
} from "./grammar";
import { RuntimeInput, runtimeInputText } from "./runtime-input";

const NOT_RUNTIME_INPUT = "__flagstack_not_a_runtime_input__";

/** A {@link RuntimeInput} (or its serialized form) in a model, normalised to its YAML text. */
const RuntimeInputValue = z
  .custom<RuntimeInput>((v) => v instanceof RuntimeInput || RuntimeInput.isInstance(v), {
    error: NOT_RUNTIME_INPUT,
  })
  .transform((v) => runtimeInputText(v.$input));

/**
 * A field that also accepts a {@link RuntimeInput}. The runtime input is normalised to its text, so
 * the model's output type stays `string` for it and a parsed YAML compares equal to the model.
 */
export function inputable<T extends z.ZodType>(base: T) {
  return z.union([base, RuntimeInputValue], {
    error: (iss) => {
      const branches = (iss as unknown as { errors?: z.core.$ZodIssue[][] }).errors ?? [];
      const branch = branches.find((b) => !b.some((i) => i.message === NOT_RUNTIME_INPUT));
      return branch?.[0]?.message ?? "invalid value";
    },
  });
}

/** `"/"`, or `"é" (U+00E9)` for a character outside printable ASCII, which may not show in a terminal. */
const characterLabel = (c: string): string =>
  /^[ -~]$/.test(c)
    ? JSON.stringify(c)
    : `${JSON.stringify(c)} (U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")})`;

/** Why a name is refused, in a program's terms (the decision is {@link nameProblem}'s). */
export function nameMessage(value: string): string | undefined {
  const problem = nameProblem(value);
  switch (problem?.kind) {
    case undefined:
      return undefined;
    case "empty":
      return "name cannot be empty.";
    case "too-long":
      return `name cannot be more than ${NAME_MAX_LENGTH} characters long.`;
    case "leading-space":
      return "name cannot start with a space.";
    case "character":
      return `name can only contain alphanumeric, space, hyphen, underscore and dot characters; ${characterLabel(problem.character)} is not allowed.`;
  }
}

/**
 * The name of a pipeline, stage, step or step group (grammar {@link nameProblem}): kept verbatim,
 * never trimmed, as the service compares names verbatim.
 */
export const PipelineName = z
  .string({ error: (iss) => (iss.input === undefined ? "name is required" : "name must be a string") })
  .superRefine((value, ctx) => {
    const message = nameMessage(value);
    if (message !== undefined) ctx.addIssue({ code: "custom", message });
  });

/**
 * The members a pipeline, a stage and a step start with, in the model and on the wire: name,
 * identifier and description.
 */
export const named = {
  name: PipelineName,
  identifier: Identifier,
  description: z.string().optional(),
};

const DURATION_MESSAGE = "must be a duration such as 10m, 1h30m, 30s or 1d, or a <+...> expression";
/** The message for a value that is no duration. */
export const durationMessage = (value: string): string => `${JSON.stringify(value)} ${DURATION_MESSAGE}`;

/** A duration string, an expression or a runtime input. */
export const Duration = inputable(
  z.string({ error: `timeout ${DURATION_MESSAGE}` }).refine(isDurationValue, {
    error: (iss) => durationMessage(String(iss.input)),
  }),
);

const FLAG_MESSAGE = "must be true, false or a <+...> expression";
/** A boolean, or an expression / runtime input giving one at run time. */
export const Flag = inputable(
  z.union([z.boolean(), z.string().refine(isExpression, FLAG_MESSAGE)], { error: FLAG_MESSAGE }),
);

/** A reference to another entity: an identifier, optionally `account.`/`org.` scoped, or an expression. */
export const entityRef = (what: string) =>
  inputable(
    z
      .string({ error: `${what} is required` })
      .min(1, `${what} cannot be empty`)
      .refine((v) => SCOPED_REFERENCE_PATTERN.test(v) || containsExpression(v), {
        error: `${what} must be an identifier, optionally prefixed with account. or org., or a <+...> expression`,
      }),
  );

/** A non-empty string, an expression or a runtime input. */
export const text = (what: string) =>
  inputable(z.string({ error: `${what} is required` }).min(1, `${what} cannot be empty`));

/** Variable names: letters, digits, `_` and `$`, not starting with a digit. */
export const VariableName = z
  .string({ error: "name is required" })
  .regex(
    VARIABLE_NAME_PATTERN,
    "variable name must start with a letter or _ and contain only letters, digits, _ and $",
  );

/** Names of a ShellScript step's environment and output variables. */
export const ShellVariableName = z
  .string({ error: "name is required" })
  .regex(SHELL_VARIABLE_NAME_PATTERN, "variable name must be a shell variable name (letters, digits and _)");
