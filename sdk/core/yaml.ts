/**
 * The one reading of YAML text that a user or a server supplies (a service, input set or pipeline
 * YAML; the provider's check, the SDK's clients, the emulator's routes and the policy pack all read
 * it here), bounded so that no text can exhaust the process:
 * - size: at most {@link YAML_MAX_BYTES} of UTF-8, refused before parsing (parsing a 10 MB YAML
 *   took seconds and close to a gigabyte);
 * - aliases: at most {@link YAML_MAX_ALIASES} alias expansions when the document becomes a value
 *   (the `yaml` package's `maxAliasCount`), so a "billion laughs" document of nested aliases is
 *   refused instead of expanded;
 * - strict: one document, duplicate keys refused (as by the service, ref platform §6.2).
 * Every failure is a {@link YamlReadError} saying which bound or rule the text broke: `check`
 * turns it into a failure on the input that holds the YAML ({@link YamlReadError.about}), the
 * emulator into a 400 `INVALID_YAML_ERROR`, the SDK into a `ValidationError`.
 * @module
 */
import YAML, { type Document } from "yaml";

/**
 * Largest YAML read: 1 MiB of UTF-8. The reference documents no hard limit; it says requests over
 * 500,000 characters are throttled to one per 10 s (ref platform §9), so a YAML twice that size
 * is certainly a mistake (a generated file, a pasted log).
 */
export const YAML_MAX_BYTES = 1024 * 1024;

/**
 * Most alias expansions in one document (the `yaml` package's default, and its measure: each
 * alias counts the nodes it brings in). Real service and pipeline YAML uses none or a few.
 */
export const YAML_MAX_ALIASES = 100;

/** Which bound or rule a YAML text broke. */
export type YamlFailure = "size" | "aliases" | "syntax";

const BRAND: unique symbol = Symbol.for("flagstack.YamlReadError");

/** YAML text that was not read: too large, an alias bomb, or not valid (strict) YAML. */
export class YamlReadError extends Error {
  readonly [BRAND] = true;
  /** Which bound or rule the text broke. */
  readonly reason: YamlFailure;
  /** The problem without its subject (`is 2097152 bytes; ...`), for {@link YamlReadError.about}. */
  readonly detail: string;
  /** The parser's error code (`DUPLICATE_KEY`, `BAD_INDENT`, ...) of a syntax error. */
  readonly code: string | undefined;
  /** Where a syntax error is (1-based line and column), when the parser says. */
  readonly line: number | undefined;
  readonly col: number | undefined;

  constructor(
    reason: YamlFailure,
    detail: string,
    message: string,
    where: { code?: string; line?: number; col?: number } = {},
  ) {
    super(message);
    this.name = "YamlReadError";
    this.reason = reason;
    this.detail = detail;
    this.code = where.code;
    this.line = where.line;
    this.col = where.col;
  }

  /** The problem as a failure of the input `field` that holds the YAML: `yaml is 2097152 bytes; ...`. */
  about(field: string): string {
    return `${field} ${this.detail}`;
  }

  /** `instanceof` across the copies of this module that the dynamic-provider host loads. */
  static isInstance(e: unknown): e is YamlReadError {
    return typeof e === "object" && e !== null && (e as Record<symbol, unknown>)[BRAND] === true;
  }
}

/** YAML text read: its value, or why it was not read. */
export type YamlRead = { ok: true; value: unknown } | { ok: false; error: YamlReadError };

/** The size failure of `text`, or `undefined` when it is within {@link YAML_MAX_BYTES}. */
function sizeFailure(text: string): YamlReadError | undefined {
  // `length` counts UTF-16 units, never more than the UTF-8 bytes: a text longer than the limit is
  // refused without reading it.
  const bytes = text.length > YAML_MAX_BYTES ? undefined : Buffer.byteLength(text, "utf8");
  if (bytes !== undefined && bytes <= YAML_MAX_BYTES) return undefined;
  const size = bytes === undefined ? `at least ${text.length} bytes` : `${bytes} bytes`;
  const detail = `is ${size}; YAML is limited to ${YAML_MAX_BYTES} bytes (1 MiB) of UTF-8`;
  return new YamlReadError("size", detail, `the YAML ${detail}`);
}

const aliasFailure = (): YamlReadError => {
  const detail = `expands more than ${YAML_MAX_ALIASES} aliases; YAML is limited to ${YAML_MAX_ALIASES} alias expansions (a guard against alias bombs)`;
  return new YamlReadError("aliases", detail, `the YAML ${detail}`);
};

/** A syntax failure from the parser's message (its first line) and position. */
function syntaxFailure(message: string, where: { code?: string; line?: number; col?: number } = {}) {
  const first = message.split("\n")[0] ?? message;
  return new YamlReadError("syntax", `is not valid YAML: ${first}`, first, where);
}

/**
 * The parsed document of `text`, to edit and render again (aliases are kept, not expanded).
 * @throws YamlReadError when the text is too large or not valid YAML (duplicate keys included).
 */
export function yamlDocument(text: string): Document.Parsed {
  const tooLarge = sizeFailure(text);
  if (tooLarge) throw tooLarge;
  const doc = YAML.parseDocument(text, { uniqueKeys: true, prettyErrors: true });
  const first = doc.errors[0];
  if (first !== undefined) {
    const at = first.linePos?.[0];
    throw syntaxFailure(first.message, { code: first.code, line: at?.line, col: at?.col });
  }
  return doc;
}

/** Reads YAML text within the bounds (see the module comment): its value, or why not. */
export function loadYaml(text: string): YamlRead {
  let doc: Document.Parsed;
  try {
    doc = yamlDocument(text);
  } catch (e) {
    if (YamlReadError.isInstance(e)) return { ok: false, error: e };
    throw e;
  }
  try {
    return { ok: true, value: doc.toJS({ maxAliasCount: YAML_MAX_ALIASES }) };
  } catch (e) {
    // The `yaml` package refuses an expansion past `maxAliasCount` with this ReferenceError.
    if (e instanceof Error && /Excessive alias count/.test(e.message))
      return { ok: false, error: aliasFailure() };
    if (e instanceof Error) return { ok: false, error: syntaxFailure(e.message) };
    throw e;
  }
}

/**
 * Reads YAML text within the bounds.
 * @throws YamlReadError when it is too large, an alias bomb or not valid YAML.
 */
export function readYaml(text: string): unknown {
  const read = loadYaml(text);
  if (!read.ok) throw read.error;
  return read.value;
}
