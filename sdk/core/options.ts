/**
 * Options shared by every client, their environment-variable fallbacks and their validation.
 *
 * Each client names its own base-URL and key variables (for example `FLAGSTACK_ADMIN_API_URL` and
 * `FLAGSTACK_ADMIN_API_KEY`); `FLAGSTACK_REQUESTS_PER_SECOND` applies to all of them. An explicit
 * option always wins over the environment. A missing or malformed value fails at construction with
 * a {@link ConfigurationError} naming both the option and the variable, never at the first call.
 * @module
 */
import type { Dispatcher } from "undici";
import { z } from "zod";
import type { RetryEvent } from "./request";

const CONFIG_BRAND: unique symbol = Symbol.for("flagstack.ConfigurationError");

/** A client option is missing or invalid. `option` names it; `envVar` the variable it falls back to. */
export class ConfigurationError extends Error {
  readonly [CONFIG_BRAND] = true;
  /** The option at fault, e.g. `apiKey`. */
  readonly option: string;
  /** The environment variable the option falls back to, when it has one. */
  readonly envVar: string | undefined;

  constructor(option: string, envVar: string | undefined, message: string) {
    super(message);
    this.name = "ConfigurationError";
    this.option = option;
    this.envVar = envVar;
  }

  /** True for a ConfigurationError from any copy of this module. */
  static isInstance(e: unknown): e is ConfigurationError {
    return typeof e === "object" && e !== null && (e as Record<symbol, unknown>)[CONFIG_BRAND] === true;
  }
}

/** Environment variable shared by all clients for the client-side rate limit. */
export const REQUESTS_PER_SECOND_ENV = "FLAGSTACK_REQUESTS_PER_SECOND";

// `Infinity` is accepted on purpose (no client-side limit, e.g. for benchmarks against a local
// emulator), which z.number() refuses, hence the custom checks.
const positive = (what: string) =>
  z.custom<number>(
    (v) => typeof v === "number" && v > 0 && !Number.isNaN(v),
    `${what} must be a number greater than 0`,
  );
const nonNegativeInt = (what: string) =>
  z.custom<number>(
    (v) => typeof v === "number" && Number.isInteger(v) && v >= 0,
    `${what} must be a whole number >= 0`,
  );
const positiveInt = (what: string) =>
  z.custom<number>(
    (v) => typeof v === "number" && Number.isInteger(v) && v > 0,
    `${what} must be a whole number > 0`,
  );

/**
 * Options every client accepts (the key option differs per client and is added by each one).
 * Times are in milliseconds.
 */
export const CommonOptions = z.object({
  /** Base URL of the API; a path prefix such as `/gateway` is kept. */
  baseUrl: z.string().optional(),
  /**
   * Client-side limit shared by every request to the same base URL (token bucket). Default 10 for
   * the admin and events APIs, 5 for the platform API; `FLAGSTACK_REQUESTS_PER_SECOND` overrides the
   * default. `Infinity` disables it.
   */
  requestsPerSecond: positive("requestsPerSecond").optional(),
  /**
   * Requests allowed back to back before the rate applies. Default: one second's budget
   * (`requestsPerSecond`, rounded up), which a server counting requests per second accepts after an
   * idle second; the window cap keeps any 1.02 s to that many, and a 429 turns bursting off
   * (`./rate-limiter.ts`). 1 spaces every request.
   */
  burst: positiveInt("burst").optional(),
  /** Requests in flight at once through one limiter (default 10). */
  maxConcurrent: positiveInt("maxConcurrent").optional(),
  /** Retries after the first attempt (default 5). 0 disables retrying. */
  maxRetries: nonNegativeInt("maxRetries").optional(),
  /** Per attempt: time to wait for the response headers, then between body chunks (default 30 s). */
  timeoutMs: positive("timeoutMs").optional(),
  /** Total time a call may spend from its first attempt, waits included, before it stops retrying (default 120 s). */
  retryBudgetMs: positive("retryBudgetMs").optional(),
  /** First backoff ceiling; attempt n waits a random time in [0, min(max, base * 2^n)] (default 250). */
  retryBaseDelayMs: positive("retryBaseDelayMs").optional(),
  /** Largest backoff between two attempts (default 20 s). */
  retryMaxDelayMs: positive("retryMaxDelayMs").optional(),
  /**
   * An undici dispatcher to send through instead of the shared keep-alive pool of the base URL
   * (a recording or mock dispatcher in tests, a proxy agent, ...).
   */
  dispatcher: z
    .custom<Dispatcher>(
      (v) => typeof v === "object" && v !== null && typeof (v as Dispatcher).request === "function",
      "dispatcher must be an undici Dispatcher",
    )
    .optional(),
  /** Called before every retry (method, path, attempt, wait, reason), e.g. to log it. */
  onRetry: z
    .custom<(e: RetryEvent) => void>((v) => typeof v === "function", "onRetry must be a function")
    .optional(),
  /** `User-Agent` header (default `flagstack/<version>`). */
  userAgent: z.string().optional(),
  /**
   * Where the base URL came from, in words, appended to connection errors so that a stale URL can
   * be traced (the Pulumi provider passes e.g. "stack config flagstack:adminApiUrl"). Default: the
   * option, or the environment variable it fell back to.
   */
  baseUrlSource: z.string().optional(),
  /** Where the environment fallbacks are read from (default `process.env`). */
  env: z.record(z.string(), z.string().optional()).optional(),
});
/** Options every client accepts; see {@link CommonOptions}. */
export type CommonOptions = z.input<typeof CommonOptions>;

/** What a client tells {@link resolveCommonOptions} about itself. */
export interface ClientIdentity {
  /** Class name, used in messages (`AdminClient`). */
  client: string;
  /** Environment variable of the base URL. */
  urlEnv: string;
  /** Name of the key option (`apiKey`, `sdkKey`). */
  keyOption: string;
  /** Environment variable of the key. */
  keyEnv: string;
  /** Default requests per second when neither the option nor the variable is set. */
  defaultRequestsPerSecond: number;
}

/** Options after validation and fallbacks, as the HTTP core consumes them. */
export interface ResolvedOptions {
  baseUrl: URL;
  key: string;
  requestsPerSecond: number;
  burst: number;
  maxConcurrent: number;
  maxRetries: number;
  timeoutMs: number;
  retryBudgetMs: number;
  retryBaseDelayMs: number;
  retryMaxDelayMs: number;
  dispatcher: Dispatcher | undefined;
  onRetry: ((e: RetryEvent) => void) | undefined;
  userAgent: string;
  env: Record<string, string | undefined>;
  /** See {@link CommonOptions.baseUrlSource}. */
  baseUrlSource: string;
}

/** Defaults of {@link CommonOptions}, in one place. */
export const DEFAULTS = {
  maxConcurrent: 10,
  maxRetries: 5,
  timeoutMs: 30_000,
  retryBudgetMs: 120_000,
  retryBaseDelayMs: 250,
  retryMaxDelayMs: 20_000,
} as const satisfies Partial<ResolvedOptions>;

/** The burst when none is given: one second's budget, rounded up (1 without a limit). */
const defaultBurst = (requestsPerSecond: number): number =>
  Number.isFinite(requestsPerSecond) ? Math.max(1, Math.ceil(requestsPerSecond)) : 1;

/** Package version for the User-Agent; read once. */
function packageVersion(): string {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return (require("../../package.json") as { version: string }).version;
  } catch {
    try {
      return (require("../../../package.json") as { version: string }).version;
    } catch {
      return "0";
    }
  }
}
const USER_AGENT = `flagstack/${packageVersion()}`;

/**
 * Options parsed by their zod schema, defaults applied.
 * @param caller Who takes them, the start of the message: `AdminClient`, `importEvents`.
 * @throws ConfigurationError naming the first option at fault (`options` for the whole object).
 */
export function parseOptions<S extends z.ZodType>(schema: S, input: unknown, caller: string): z.output<S> {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const option = issue.path.map(String).join(".") || "options";
  throw new ConfigurationError(option, undefined, `${caller}: invalid option ${option}: ${issue.message}`);
}

/**
 * Validates the options shared by all clients and applies the environment fallbacks.
 * @param input What the caller passed (may be undefined).
 * @param keyValue The key option's value as passed (its name is `who.keyOption`).
 * @throws ConfigurationError naming the option (and the environment variable) at fault.
 */
export function resolveCommonOptions(
  input: CommonOptions | undefined,
  keyValue: unknown,
  who: ClientIdentity,
): ResolvedOptions {
  const o = parseOptions(CommonOptions, input ?? {}, who.client);
  const env = o.env ?? process.env;

  const rawUrl = o.baseUrl ?? nonEmpty(env[who.urlEnv]);
  if (rawUrl === undefined) {
    throw new ConfigurationError(
      "baseUrl",
      who.urlEnv,
      `${who.client}: missing base URL: pass { baseUrl } or set ${who.urlEnv}`,
    );
  }
  let baseUrl: URL;
  try {
    baseUrl = new URL(rawUrl);
  } catch {
    throw new ConfigurationError(
      "baseUrl",
      who.urlEnv,
      `${who.client}: baseUrl must be an absolute http(s) URL, got ${shownUrl(rawUrl)}`,
    );
  }
  if (baseUrl.protocol !== "http:" && baseUrl.protocol !== "https:") {
    throw new ConfigurationError(
      "baseUrl",
      who.urlEnv,
      `${who.client}: baseUrl must be an absolute http(s) URL, got ${shownUrl(rawUrl)}`,
    );
  }
  if (baseUrl.username || baseUrl.password) {
    // credentials in the URL would leak into every error message and log line
    throw new ConfigurationError(
      "baseUrl",
      who.urlEnv,
      `${who.client}: baseUrl must not contain credentials; pass { ${who.keyOption} } instead`,
    );
  }

  if (keyValue !== undefined && (typeof keyValue !== "string" || keyValue.length === 0)) {
    throw new ConfigurationError(
      who.keyOption,
      who.keyEnv,
      `${who.client}: ${who.keyOption} must be a non-empty string`,
    );
  }
  const key = (keyValue as string | undefined) ?? nonEmpty(env[who.keyEnv]);
  if (key === undefined) {
    throw new ConfigurationError(
      who.keyOption,
      who.keyEnv,
      `${who.client}: missing ${who.keyOption}: pass { ${who.keyOption} } or set ${who.keyEnv}`,
    );
  }
  if (/[\r\n]/.test(key)) {
    throw new ConfigurationError(
      who.keyOption,
      who.keyEnv,
      `${who.client}: ${who.keyOption} must not contain line breaks`,
    );
  }

  let requestsPerSecond = o.requestsPerSecond;
  if (requestsPerSecond === undefined) {
    const fromEnv = nonEmpty(env[REQUESTS_PER_SECOND_ENV]);
    if (fromEnv !== undefined) {
      const n = Number(fromEnv);
      if (!(n > 0)) {
        throw new ConfigurationError(
          "requestsPerSecond",
          REQUESTS_PER_SECOND_ENV,
          `${who.client}: ${REQUESTS_PER_SECOND_ENV} must be a number greater than 0, got "${fromEnv}"`,
        );
      }
      requestsPerSecond = n;
    }
  }

  const rate = requestsPerSecond ?? who.defaultRequestsPerSecond;
  return {
    baseUrl,
    key,
    requestsPerSecond: rate,
    burst: o.burst ?? defaultBurst(rate),
    maxConcurrent: o.maxConcurrent ?? DEFAULTS.maxConcurrent,
    maxRetries: o.maxRetries ?? DEFAULTS.maxRetries,
    timeoutMs: o.timeoutMs ?? DEFAULTS.timeoutMs,
    retryBudgetMs: o.retryBudgetMs ?? DEFAULTS.retryBudgetMs,
    retryBaseDelayMs: o.retryBaseDelayMs ?? DEFAULTS.retryBaseDelayMs,
    retryMaxDelayMs: o.retryMaxDelayMs ?? DEFAULTS.retryMaxDelayMs,
    dispatcher: o.dispatcher,
    onRetry: o.onRetry,
    userAgent: o.userAgent ?? USER_AGENT,
    env,
    baseUrlSource:
      o.baseUrlSource ??
      (o.baseUrl !== undefined ? "the baseUrl option" : `the environment variable ${who.urlEnv}`),
  };
}

/**
 * A rejected base URL as a message shows it: quoted, unless it holds credentials or a key-like
 * token (16 or more letters and digits in a row), as when a key was pasted where the URL belongs
 * or the two variables were swapped; the message would then leak the key.
 */
function shownUrl(raw: string): string {
  if (/[A-Za-z0-9]{16,}/.test(raw) || /\/\/[^/?#]*@/.test(raw)) {
    return "a value that is not shown because it looks like it holds a key";
  }
  return `"${raw}"`;
}

function nonEmpty(v: string | undefined): string | undefined {
  return v === undefined || v.trim() === "" ? undefined : v.trim();
}
