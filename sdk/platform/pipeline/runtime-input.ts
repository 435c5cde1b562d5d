/**
 * Typed runtime inputs: `<+input>` with the options the model understands, `.default(x)`,
 * `.allowedValues(a,b)`, `.regex(r)` and `.executionInput()` (ref §7.2). Any other `<+...>` text is
 * a plain string to the model and is kept verbatim. The syntax itself is in `grammar.ts`.
 * @module
 */
import { z } from "zod";
import { RUNTIME_INPUT } from "./grammar";

/**
 * The plain data of a runtime input. It is also the form a {@link RuntimeInput} takes after Pulumi
 * serializes resource inputs (own enumerable properties only), so both are accepted everywhere.
 */
export const RuntimeInputOptions = z.strictObject({
  /** Value offered when the pipeline runs: `.default(x)`. */
  default: z.union([z.string(), z.number().transform(String)]).optional(),
  /** The only values accepted at run time: `.allowedValues(a,b)`. */
  allowedValues: z
    .array(z.union([z.string(), z.number().transform(String)]))
    .min(1)
    .optional(),
  /** A regular expression the value must match: `.regex(r)`. */
  regex: z.string().min(1).optional(),
  /** Asked for while the pipeline runs instead of when it starts: `.executionInput()`. */
  executionInput: z.boolean().optional(),
});
/** Options of a runtime input, see {@link RuntimeInputOptions}. */
export type RuntimeInputOptions = z.output<typeof RuntimeInputOptions>;

/** The chained methods of a runtime input that the model understands (ref §7.2). */
const INPUT_METHODS = ["default", "allowedValues", "regex", "executionInput"] as const;
const METHOD_START = /^\.(default|allowedValues|regex|executionInput)\(/;

// Commas inside one allowed value are escaped as \'v1,v2\' (ref §7.2).
const quoteInputArg = (v: string): string => (v.includes(",") ? `\\'${v}\\'` : v);

/**
 * A runtime input: a field whose value is asked for when the pipeline runs. Build one with
 * {@link runtimeInput}; it renders as `<+input>` followed by its options.
 *
 * Immutable: each option method returns a new value.
 */
export class RuntimeInput {
  /** The options; the only enumerable property, so the value survives Pulumi's serialization. */
  readonly $input: Readonly<RuntimeInputOptions>;

  constructor(options: z.input<typeof RuntimeInputOptions> = {}) {
    this.$input = Object.freeze(RuntimeInputOptions.parse(options));
    Object.freeze(this);
  }

  /** `.default(value)`: the value offered when the pipeline runs. */
  default(value: string | number): RuntimeInput {
    return new RuntimeInput({ ...this.$input, default: String(value) });
  }

  /** `.allowedValues(a, b, ...)`: the only values accepted. */
  allowedValues(...values: (string | number)[]): RuntimeInput {
    return new RuntimeInput({ ...this.$input, allowedValues: values.map(String) });
  }

  /** `.regex(pattern)`: the value must match the pattern. */
  regex(pattern: string): RuntimeInput {
    return new RuntimeInput({ ...this.$input, regex: pattern });
  }

  /** `.executionInput()`: asked for while the pipeline runs, not when it starts. */
  executionInput(): RuntimeInput {
    return new RuntimeInput({ ...this.$input, executionInput: true });
  }

  /** The YAML text, e.g. `<+input>.default(dev).allowedValues(dev,prod)`. */
  toString(): string {
    return runtimeInputText(this.$input);
  }

  /** True for a {@link RuntimeInput} or its serialized form `{ $input: {...} }`. */
  static isInstance(value: unknown): value is RuntimeInput {
    if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
    const keys = Object.keys(value);
    return (
      keys.length === 1 &&
      keys[0] === "$input" &&
      RuntimeInputOptions.safeParse((value as RuntimeInput).$input).success
    );
  }

  /**
   * Reads `<+input>...` text back; `undefined` when the text is not a runtime input this model
   * understands (such text is then kept verbatim as an expression).
   */
  static parse(text: string): RuntimeInput | undefined {
    const options = parseRuntimeInputText(text);
    return options === undefined ? undefined : new RuntimeInput(options);
  }
}

/**
 * A runtime input: renders as `<+input>`. Chain `.default(x)`, `.allowedValues(a, b)`,
 * `.regex(r)` or `.executionInput()` for the variants.
 * @example
 * ```ts
 * namespace: runtimeInput().default("dev").allowedValues("dev", "prod")
 * // renders: namespace: <+input>.default(dev).allowedValues(dev,prod)
 * ```
 */
export function runtimeInput(): RuntimeInput {
  return new RuntimeInput();
}

/** Renders runtime-input options in the canonical method order. */
export function runtimeInputText(options: RuntimeInputOptions): string {
  let out = RUNTIME_INPUT;
  if (options.default !== undefined) out += `.default(${quoteInputArg(options.default)})`;
  if (options.allowedValues !== undefined)
    out += `.allowedValues(${options.allowedValues.map(quoteInputArg).join(",")})`;
  if (options.regex !== undefined) out += `.regex(${options.regex})`;
  if (options.executionInput) out += ".executionInput()";
  return out;
}

function splitInputArgs(args: string): string[] {
  const out: string[] = [];
  let i = 0;
  while (i <= args.length) {
    if (args.startsWith("\\'", i)) {
      const end = args.indexOf("\\'", i + 2);
      if (end < 0) return [...out, args.slice(i)];
      out.push(args.slice(i + 2, end));
      i = end + 2;
      if (args[i] === ",") i++;
      else break;
      continue;
    }
    const comma = args.indexOf(",", i);
    if (comma < 0) {
      out.push(args.slice(i));
      break;
    }
    out.push(args.slice(i, comma));
    i = comma + 1;
  }
  return out;
}

/** Parses `<+input>` followed by known methods; `undefined` for anything else. */
export function parseRuntimeInputText(text: string): RuntimeInputOptions | undefined {
  if (!text.startsWith(RUNTIME_INPUT)) return undefined;
  const options: RuntimeInputOptions = {};
  let rest = text.slice(RUNTIME_INPUT.length);
  while (rest.length > 0) {
    const m = METHOD_START.exec(rest);
    if (!m) return undefined;
    const method = m[1] as (typeof INPUT_METHODS)[number];
    rest = rest.slice(m[0].length);
    // An argument ends at the first ")" followed by the end or by another known method.
    let close = -1;
    for (let i = rest.indexOf(")"); i >= 0; i = rest.indexOf(")", i + 1)) {
      const after = rest.slice(i + 1);
      if (after === "" || METHOD_START.test(after)) {
        close = i;
        break;
      }
    }
    if (close < 0) return undefined;
    const arg = rest.slice(0, close);
    rest = rest.slice(close + 1);
    if (options[method] !== undefined) return undefined;
    switch (method) {
      case "default": {
        const [value, ...more] = splitInputArgs(arg);
        if (value === undefined || more.length > 0) return undefined;
        options.default = value;
        break;
      }
      case "allowedValues":
        if (arg === "") return undefined;
        options.allowedValues = splitInputArgs(arg);
        break;
      case "regex":
        if (arg === "") return undefined;
        options.regex = arg;
        break;
      case "executionInput":
        if (arg !== "") return undefined;
        options.executionInput = true;
        break;
    }
  }
  return options;
}

/**
 * Canonical text of a runtime input (`<+input>.allowedValues(a).default(x)` becomes
 * `<+input>.default(x).allowedValues(a)`); any other string is returned unchanged.
 */
export function canonicalRuntimeInput(text: string): string {
  const options = parseRuntimeInputText(text);
  return options === undefined ? text : runtimeInputText(options);
}
