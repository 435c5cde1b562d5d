/**
 * Credential redaction for everything an error keeps: message, details, field errors, the response
 * body (parsed or raw) and the `cause` chain. {@link ApiError} runs it on every value it is built
 * from, so no error of the SDK can carry a key, whichever code path built it and whatever a server
 * echoed back.
 *
 * Three layers, because a server may echo more than the key it was sent:
 * 1. the client's own credentials (the secrets the core knows), whole or any fragment of at least
 *    {@link MIN_FRAGMENT} characters of them (a server may echo a cut key, and a long fragment is
 *    most of a key);
 * 2. credential-shaped text: `Bearer <token>` (and `Basic`), `x-api-key: <value>`,
 *    `apiKey=<value>`, `"token": "<value>"` and the like, where the value looks like a token (8 or
 *    more characters with a digit), and platform tokens (`pat.<account>.<id>.<secret>`, `sat.…`);
 * 3. in a parsed body, the value of any field named like a credential (`apiKey`, `token`,
 *    `password`, `authorization`, ...) and the environment's `apiTokens` (the admin API returns the
 *    new SDK keys there, ref admin §1.1);
 * 4. the fields a call's route declares secret (`secret-fields.ts`: a new API key's `key`, a text
 *    secret's `value`), names too generic to be credentials everywhere: in a parsed body their
 *    values, in text their `"name": "value"` (any value) and `name: value` / `name=value` forms
 *    (a token-shaped value).
 *
 * A body's structure also names secrets that its free text repeats without a name (a 500 of the
 * route that mints keys: `"message": "made key sdk-…"` beside `"details": "{\"key\": \"sdk-…\"}"`):
 * {@link bodySecrets} collects the values of the credential-named and declared fields of a body,
 * at any depth and inside the JSON texts its strings hold, which the error then removes as known
 * secrets (layer 1), whole or in fragments, wherever they appear.
 * @module
 */
import { inspect } from "node:util";

/** What replaces a credential. */
export const REDACTED = "***";

/** The shortest fragment of a known secret that is removed wherever it appears. */
export const MIN_FRAGMENT = 12;
/** Known secrets shorter than this are not searched for (no real key is; `"k"` in tests would garble text). */
const MIN_SECRET = 6;

// Field names whose values are credentials, compared lower-cased without "-" and "_".
const CREDENTIAL_FIELDS = new Set([
  "authorization",
  "proxyauthorization",
  "xapikey",
  "apikey",
  "apitoken",
  "apitokens",
  "accesstoken",
  "refreshtoken",
  "idtoken",
  "token",
  "secret",
  "clientsecret",
  "password",
  "passwd",
  "sdkkey",
  "adminkey",
  "adminapikey",
  "platformkey",
  "platformapikey",
  "cookie",
  "setcookie",
]);

// Credential-shaped values in free text: 8 or more token characters with at least one digit, so
// prose stays readable ("Bearer token required", "invalid token: expired").
const TOKEN_VALUE = String.raw`(?!\*\*\*)(?=[\w.~+/=-]*\d)[\w.~+/=-]{8,}`;
const AUTH_SCHEME = new RegExp(String.raw`\b(Bearer|Basic)(\s+)${TOKEN_VALUE}`, "gi");
// `name: value`, `name=value`, `"name": "value"` for credential-like names, in free text.
const NAMED_VALUE = new RegExp(
  String.raw`\b((?:x-api-key|api[-_]?key|api[-_]?token|access[-_]?token|refresh[-_]?token|sdk[-_]?key|admin[-_]?api[-_]?key|platform[-_]?api[-_]?key|authorization|token|secret|password)["']?\s*[:=]\s*["']?)(?!Bearer\b|Basic\b)${TOKEN_VALUE}`,
  "gi",
);
const PLATFORM_TOKEN = /\b(?:pat|sat)\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+/g;

/** The secrets worth searching for: non-empty, long enough, longest first. */
export function usableSecrets(secrets: readonly (string | undefined)[]): string[] {
  return [
    ...new Set(secrets.filter((s): s is string => typeof s === "string" && s.length >= MIN_SECRET)),
  ].sort((a, b) => b.length - a.length);
}

/** What one redaction removes beyond the credential shapes and names every redaction knows. */
interface Rules {
  /** Known secret values (whole or in fragments). */
  secrets: readonly string[];
  /** Declared secret field names, normalised as {@link normalName} does. */
  fields: ReadonlySet<string>;
  /** Their `"name": "value"` and `name: token` forms in text; none without declared fields. */
  patterns: readonly RegExp[];
}

const normalName = (name: string) => name.toLowerCase().replace(/[-_]/g, "");
const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

const NO_FIELDS: ReadonlySet<string> = new Set();
const compiledFields = new Map<string, Omit<Rules, "secrets">>();

/** The text forms of a declared field's value, for field names `names` (a regex alternation). */
function fieldPatterns(names: string): RegExp[] {
  const name = String.raw`((?<![\w-])(?:${names})`;
  return [
    // `"key": "..."` (JSON): any value, escapes included
    new RegExp(String.raw`${name}"\s*:\s*")(?!\*\*\*")(?:[^"\\]|\\.)+`, "gi"),
    // `\"key\": \"...\"` (a JSON text inside a JSON string): up to the escaped closing quote
    new RegExp(String.raw`${name}\\"\s*:\s*\\")(?!\*\*\*\\")(?:[^"\\]|\\(?!"))+`, "gi"),
    // `'key': '...'`
    new RegExp(String.raw`${name}'\s*:\s*')(?!\*\*\*')[^']+`, "gi"),
    // `key: value`, `key=value`: a token-shaped value, so that prose stays readable
    new RegExp(String.raw`${name}\s*[:=]\s*)${TOKEN_VALUE}`, "gi"),
  ];
}

function rulesOf(secrets: readonly string[], fields: readonly string[]): Rules {
  if (fields.length === 0) return { secrets, fields: NO_FIELDS, patterns: [] };
  const key = fields.join("\n");
  let compiled = compiledFields.get(key);
  if (compiled === undefined) {
    compiled = {
      fields: new Set(fields.map(normalName)),
      patterns: fieldPatterns(fields.map(escapeRegExp).join("|")),
    };
    if (compiledFields.size > 256) compiledFields.clear();
    compiledFields.set(key, compiled);
  }
  return { secrets, ...compiled };
}

/**
 * Removes credentials (see the module comment) from a piece of text: the known `secrets`, the
 * credential shapes, and the `fields` a route declares secret.
 */
export function redactText(
  text: string,
  secrets: readonly string[] = [],
  fields: readonly string[] = [],
): string {
  return redact(text, rulesOf(secrets, fields));
}

function redact(text: string, rules: Rules): string {
  let out = text;
  for (const secret of rules.secrets) out = removeSecret(out, secret);
  out = out
    .replace(AUTH_SCHEME, `$1$2${REDACTED}`)
    .replace(NAMED_VALUE, `$1${REDACTED}`)
    .replace(PLATFORM_TOKEN, REDACTED);
  for (const pattern of rules.patterns) out = out.replace(pattern, `$1${REDACTED}`);
  return out;
}

/** Replaces every occurrence of `secret`, and of any fragment of it of {@link MIN_FRAGMENT}+ characters. */
function removeSecret(text: string, secret: string): string {
  if (text.length < Math.min(secret.length, MIN_FRAGMENT)) return text;
  if (secret.length < MIN_FRAGMENT) return text.includes(secret) ? text.replaceAll(secret, REDACTED) : text;
  // Ranges of the text covered by some fragment; overlapping fragments merge into the whole echo.
  const ranges: [number, number][] = [];
  for (let i = 0; i + MIN_FRAGMENT <= secret.length; i++) {
    const fragment = secret.slice(i, i + MIN_FRAGMENT);
    for (let at = text.indexOf(fragment); at >= 0; at = text.indexOf(fragment, at + 1)) {
      ranges.push([at, at + MIN_FRAGMENT]);
    }
  }
  if (ranges.length === 0) return text;
  ranges.sort((a, b) => a[0] - b[0]);
  let out = "";
  let last = 0;
  let [start, end] = ranges[0]!;
  for (const [s, e] of ranges) {
    if (s <= end) end = Math.max(end, e);
    else {
      out += text.slice(last, start) + REDACTED;
      last = end;
      start = s;
      end = e;
    }
  }
  return out + text.slice(last, start) + REDACTED + text.slice(end);
}

/** The shortest value of a credential-named or declared field that {@link bodySecrets} collects. */
const MIN_BODY_SECRET = 8;

/**
 * The secrets a body names by its structure, to be removed wherever its text repeats them: the
 * string values (of at least 8 characters; an authorization value's token without its scheme) of
 * its credential-named fields and of the `fields`
 * declared secret, at any depth, also inside JSON texts held by its strings (a `details` string
 * with the answer the service could not send), each with its JSON-escaped form when that differs.
 * `body` is a parsed body, or a text, parsed when it looks like JSON.
 */
export function bodySecrets(body: unknown, fields: readonly string[] = []): string[] {
  const rules = rulesOf([], fields);
  const out = new Set<string>();
  const add = (value: string) => {
    // An authorization value's credential is its token: the scheme stays readable in text.
    const v = value.replace(/^(?:Bearer|Basic)\s+/i, "");
    if (v.length < MIN_BODY_SECRET || v === REDACTED) return;
    out.add(v);
    const escaped = JSON.stringify(v).slice(1, -1);
    if (escaped !== v) out.add(escaped);
  };
  const visit = (value: unknown, depth: number, named: boolean): void => {
    if (depth >= MAX_DEPTH) return;
    if (typeof value === "string") {
      if (named) add(value);
      const nested = jsonIn(value);
      if (nested !== undefined) visit(nested, depth + 1, false);
      return;
    }
    if (typeof value !== "object" || value === null) return;
    if (Array.isArray(value)) {
      for (const item of value) visit(item, depth + 1, named);
      return;
    }
    for (const [k, v] of Object.entries(value)) visit(v, depth + 1, isCredentialField(k, rules));
  };
  visit(body, 0, false);
  return [...out];
}

/**
 * The longest text {@link bodySecrets} parses as JSON: an error answer's message and details are
 * small, and a larger body (a proxy's HTML page, a dump) is not parsed twice over for them.
 */
const MAX_JSON_TEXT = 1 << 20;

/** The value of a text that looks like a JSON object or array, else `undefined`. */
function jsonIn(text: string): unknown {
  if (text.length > MAX_JSON_TEXT) return undefined;
  const t = text.trim();
  if (!((t.startsWith("{") && t.endsWith("}")) || (t.startsWith("[") && t.endsWith("]")))) return undefined;
  try {
    return JSON.parse(t);
  } catch {
    return undefined;
  }
}

/** True when `text` holds something {@link redactText} would remove. */
export function holdsCredential(
  text: string,
  secrets: readonly string[] = [],
  fields: readonly string[] = [],
): boolean {
  return holds(text, rulesOf(secrets, fields));
}

function holds(text: string, rules: Rules): boolean {
  return redact(text, rules) !== text;
}

function isCredentialField(name: string, rules: Rules): boolean {
  const n = normalName(name);
  return CREDENTIAL_FIELDS.has(n) || rules.fields.has(n);
}

const MAX_DEPTH = 32;

/**
 * A copy of a value (a parsed JSON body, a raw text, field errors) with every credential removed:
 * strings through {@link redactText}, credential-named fields and the declared `fields` replaced
 * by {@link REDACTED}, at every level. Cycles and depth beyond 32 levels become `"[...]"`. The
 * value itself is never changed.
 */
export function redactValue(
  value: unknown,
  secrets: readonly string[] = [],
  fields: readonly string[] = [],
): unknown {
  return copy(value, rulesOf(secrets, fields), 0, new WeakSet());
}

function copy(value: unknown, secrets: Rules, depth: number, seen: WeakSet<object>): unknown {
  if (typeof value === "string") return redact(value, secrets);
  if (typeof value !== "object" || value === null) return value;
  if (value instanceof Error) return redactError(value, secrets, depth, seen);
  if (seen.has(value) || depth >= MAX_DEPTH) return "[...]";
  seen.add(value);
  try {
    if (Array.isArray(value)) return value.map((v) => copy(v, secrets, depth + 1, seen));
    const proto = Object.getPrototypeOf(value);
    if (proto !== Object.prototype && proto !== null) {
      // Not plain data (a Buffer, a socket's details, a class instance): kept as it is when its
      // inspection shows no credential, else replaced whole, since it cannot be copied faithfully.
      return holds(inspect(value, { depth: 6, showHidden: true }), secrets)
        ? `[${proto?.constructor?.name ?? "object"} removed: it held a credential]`
        : value;
    }
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      out[k] =
        isCredentialField(k, secrets) && v !== null && v !== undefined && v !== ""
          ? REDACTED
          : copy(v, secrets, depth + 1, seen);
    }
    return out;
  } finally {
    seen.delete(value);
  }
}

/**
 * An error of the `cause` chain: the original when nothing in it (message, stack, own properties,
 * its own cause) holds a credential, so `cause` stays the transport's error for whoever inspects
 * it; else a copy with the same prototype (so `instanceof` and `name` still work) whose every own
 * property is redacted.
 */
export function redactCause(
  cause: unknown,
  secrets: readonly string[] = [],
  fields: readonly string[] = [],
): unknown {
  return copy(cause, rulesOf(secrets, fields), 0, new WeakSet());
}

function redactError(e: Error, secrets: Rules, depth: number, seen: WeakSet<object>): unknown {
  if (seen.has(e) || depth >= MAX_DEPTH) return "[...]";
  if (!errorHoldsCredential(e, secrets, 0, new WeakSet())) return e;
  seen.add(e);
  try {
    const clean = Object.create(Object.getPrototypeOf(e)) as Error;
    for (const key of Reflect.ownKeys(e)) {
      const d = Object.getOwnPropertyDescriptor(e, key)!;
      // accessors (V8's `stack` may be one) are read once and kept as plain values
      const v = "value" in d ? d.value : (e as unknown as Record<PropertyKey, unknown>)[key];
      Object.defineProperty(clean, key, {
        value: copy(v, secrets, depth + 1, seen),
        enumerable: d.enumerable ?? false,
        writable: true,
        configurable: true,
      });
    }
    return clean;
  } finally {
    seen.delete(e);
  }
}

function errorHoldsCredential(e: Error, secrets: Rules, depth: number, seen: WeakSet<object>): boolean {
  if (seen.has(e) || depth > 8) return false;
  seen.add(e);
  if (holds(`${e.message}\n${e.stack ?? ""}`, secrets)) return true;
  for (const key of Reflect.ownKeys(e)) {
    const v = (e as unknown as Record<PropertyKey, unknown>)[key];
    if (v instanceof Error) {
      if (errorHoldsCredential(v, secrets, depth + 1, seen)) return true;
    } else if (typeof v === "string") {
      if (holds(v, secrets) || (typeof key === "string" && isCredentialField(key, secrets) && v !== ""))
        return true;
    } else if (typeof v === "object" && v !== null) {
      if (holds(inspect(v, { depth: 6, showHidden: true }), secrets)) return true;
    }
  }
  return false;
}
