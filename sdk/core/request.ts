/**
 * The one HTTP core of the SDK: every call of every client goes through {@link HttpCore.request}.
 *
 * Per call it expands the route (URL-encoded path parameters, query), waits for the base URL's
 * shared rate limiter, sends through the origin's shared keep-alive undici pool (or the
 * `dispatcher` option), always consumes the response body, validates a success body with the
 * route's zod schema, and turns everything else into a typed {@link ApiError}. Retries follow
 * `retry.ts`; the limiter is `rate-limiter.ts`. Bodies are JSON, YAML text, or a `FormData` sent as
 * `multipart/form-data` (`multipart.ts`: encoded once per call, its file parts redacted from the
 * call's errors as the credential is).
 *
 * Credentials live only in private fields and the request headers: they never appear in a URL, an
 * error message, an error's `body`, or `JSON.stringify` of an error or a client. Neither do the
 * secrets a call sends or receives: a route declares them in its schemas (`secret-fields.ts`: the
 * response's credential fields, such as a new API key's `key`, and with `RouteOptions.request` the
 * request body's, such as a text secret's `value`), and a call may name more values
 * ({@link CallInit.secrets}); every error of the call is built without them (`redact.ts`).
 * @module
 */
import type { IncomingHttpHeaders } from "node:http";
import { Readable } from "node:stream";
import { setTimeout as sleep } from "node:timers/promises";
import type { Dispatcher } from "undici";
import type { z } from "zod";
import { type ApiError, NetworkError, ValidationError } from "./errors";
import { dotPath, flattenIssues } from "./issues";
import { encodeMultipart, isFormData } from "./multipart";
import type { ResolvedOptions } from "./options";
import { sharedPool } from "./pool";
import { type Admission, type RateLimiter, sharedLimiter } from "./rate-limiter";
import { bodySecrets, redactText, usableSecrets } from "./redact";
import { errorFromResponse } from "./response-error";
import {
  backoffMs,
  classifyNetworkError,
  type HttpMethod,
  RETRY_DEFAULTS,
  type RetryPolicy,
  rateLimitWaitMs,
  retryAfterMs,
} from "./retry";
import { buildQuery, expandPath, type Query, type Route, type RouteParams } from "./route";
import { secretValues } from "./secret-fields";

export { dotPath } from "./issues";
export type { Query, Route, RouteParams } from "./route";
export { route } from "./route";

/** Per-call options. */
export interface CallInit {
  /** Query parameters; `undefined` values are left out. */
  query?: Query | undefined;
  /** JSON body (any value), the YAML text for a YAML route, or a `FormData` for a multipart route. */
  body?: unknown;
  /** Cancels the call, including waits for the limiter and between retries. */
  signal?: AbortSignal | undefined;
  /** Request headers beside the core's own (`If-Match` of an optimistic-locking update). */
  headers?: Readonly<Record<string, string>> | undefined;
  /** Told the headers of the success response (its `ETag`, say) before the body is returned. */
  onHeaders?: ((headers: IncomingHttpHeaders) => void) | undefined;
  /**
   * Values this call sends that are secrets, beside those its route's request schema declares:
   * removed, whole or in fragments, from every error of the call.
   */
  secrets?: readonly (string | undefined)[] | undefined;
}

/**
 * What a call's errors are built without: the client's key, the values the call sends as secrets,
 * and the names of the route's secret fields (given to every error the core builds for the call).
 */
interface CallSecrets {
  secrets: readonly string[];
  secretFields: readonly string[];
}

/** Told about every retry, for logs and tests. */
export interface RetryEvent {
  method: HttpMethod;
  /** Path and query; never credentials. */
  path: string;
  /** The attempt that failed (1 = the first). */
  attempt: number;
  /** Wait before the next attempt. */
  delayMs: number;
  /** `429`, `503`, `ECONNRESET`, ... */
  reason: string;
}

/** How a client sets up its core. */
export interface CoreConfig {
  options: ResolvedOptions;
  /** The authentication header, e.g. `["authorization", "Bearer …"]` or `["x-api-key", "…"]`. */
  auth: readonly [name: string, value: string];
  /** Appended to 401/403 messages: which key is wrong and where it comes from. */
  authHint: string;
  /**
   * A path suffix of the base URL that the route templates already carry (`/internal/api/v2` for
   * the admin API), so both `https://host` and `https://host/internal/api/v2` work.
   */
  routePrefix?: string;
  /** Called before each retry (overrides the `onRetry` option). */
  onRetry?: ((e: RetryEvent) => void) | undefined;
}

type Failure = {
  ok: false;
  error: ApiError;
  retry: boolean;
  delayMs: number;
  pause: boolean;
  /** This attempt may have been applied (reached the server, or a 500/502/504 came back). */
  maybeApplied: boolean;
};
type Outcome = { ok: true; value: unknown } | Failure;

const JSON_TYPE = "application/json";
const YAML_TYPE = "application/yaml";
// 500/502/504 to a write: a server or gateway may have acted before failing (503 is a refusal).
const WRITE_MAYBE_APPLIED = new Set([500, 502, 504]);

/**
 * The HTTP core bound to one base URL and one credential. Clients hold one each; the connection
 * pool and the rate limiter behind it are shared process-wide per base URL.
 */
export class HttpCore {
  /** `http(s)://host:port` of the base URL. */
  readonly origin: string;
  readonly #basePath: string;
  readonly #dispatcher: Dispatcher;
  readonly #limiter: RateLimiter;
  readonly #policy: RetryPolicy;
  readonly #timeoutMs: number;
  /** The credential, for redaction: every error the core builds is given it (`sdk/core/redact.ts`). */
  readonly #secrets: readonly string[];
  readonly #authHint: string;
  readonly #baseUrlSource: string;
  readonly #onRetry: ((e: RetryEvent) => void) | undefined;
  readonly #plainHeaders: Record<string, string>;
  readonly #jsonHeaders: Record<string, string>;
  readonly #yamlHeaders: Record<string, string>;
  readonly #writeWatchers = new Set<() => void>();

  constructor(config: CoreConfig) {
    const o = config.options;
    this.origin = o.baseUrl.origin;
    let basePath = o.baseUrl.pathname.replace(/\/+$/, "");
    if (config.routePrefix && basePath.endsWith(config.routePrefix)) {
      basePath = basePath.slice(0, -config.routePrefix.length);
    }
    this.#basePath = basePath;
    this.#dispatcher = o.dispatcher ?? sharedPool(this.origin);
    this.#limiter = sharedLimiter(`${this.origin}${basePath}`, {
      requestsPerSecond: o.requestsPerSecond,
      burst: o.burst,
      maxConcurrent: o.maxConcurrent,
    });
    this.#policy = {
      ...RETRY_DEFAULTS,
      maxRetries: o.maxRetries,
      budgetMs: o.retryBudgetMs,
      baseDelayMs: o.retryBaseDelayMs,
      maxDelayMs: o.retryMaxDelayMs,
    };
    this.#timeoutMs = o.timeoutMs;
    this.#secrets = usableSecrets([o.key]);
    this.#authHint = config.authHint;
    this.#baseUrlSource = o.baseUrlSource;
    this.#onRetry = config.onRetry ?? o.onRetry;
    const base = { [config.auth[0]]: config.auth[1], accept: JSON_TYPE, "user-agent": o.userAgent };
    this.#plainHeaders = base;
    this.#jsonHeaders = { ...base, "content-type": JSON_TYPE };
    this.#yamlHeaders = { ...base, "content-type": YAML_TYPE };
  }

  /** The rate limiter this core admits requests through (shared with other clients). */
  get limiter(): RateLimiter {
    return this.#limiter;
  }

  /** The retry policy in force (a copy). */
  get retryPolicy(): RetryPolicy {
    return { ...this.#policy };
  }

  /**
   * Calls `watcher` when a call other than a GET or a dry run (`?dry_run=true`) starts and again
   * when it settles (answered or failed), whatever its route: the provider drops the lists its reads share on every write
   * (`provider/core/list-reads.ts`). Returns the function that stops watching.
   */
  watchWrites(watcher: () => void): () => void {
    this.#writeWatchers.add(watcher);
    return () => {
      this.#writeWatchers.delete(watcher);
    };
  }

  #wrote(): void {
    for (const watcher of this.#writeWatchers) watcher();
  }

  /**
   * Sends one call and returns its validated success body.
   * @throws NotFoundError, ConflictError, RateLimitError, ValidationError, NetworkError, ApiError
   * @example
   * const flag = await core.request(adminEndpoints.flags.get, { wsId, flag: "checkout" });
   */
  async request<R extends string, S extends z.ZodType>(
    r: Route<R, S>,
    params: RouteParams<R>,
    init?: CallInit,
  ): Promise<z.output<S>> {
    // A GET, a read-only POST (the pipeline list) and a dry run (`?dry_run=true`, the admin API's
    // environment PATCH) change nothing: they keep the lists.
    const reads = r.readsOnly || init?.query?.dry_run === "true";
    if (reads || this.#writeWatchers.size === 0) return this.#call(r, params, init);
    this.#wrote();
    try {
      return await this.#call(r, params, init);
    } finally {
      this.#wrote();
    }
  }

  async #call<R extends string, S extends z.ZodType>(
    r: Route<R, S>,
    params: RouteParams<R>,
    init?: CallInit,
  ): Promise<z.output<S>> {
    const method = r.method;
    const expanded = expandPath(r, params as Readonly<Record<string, string>>);
    if (typeof expanded !== "string") {
      throw new ValidationError({
        status: 0,
        method,
        url: this.origin + this.#basePath + r.template,
        message: "invalid path parameter",
        fieldErrors: [{ field: expanded.param, message: expanded.message }],
        secrets: this.#secrets,
        secretFields: r.secretFields,
      });
    }
    const path = this.#basePath + expanded + buildQuery(init?.query);
    let body: string | Uint8Array | undefined;
    let headers = this.#plainHeaders;
    // The credential, the secrets the call sends (the request schema's secret fields, the call's
    // own `secrets`, and for a multipart call its file parts): what this call's errors never show.
    let secrets = this.#secrets;
    const sent = [...secretValues(r.secretRequestPaths ?? [], init?.body), ...(init?.secrets ?? [])];
    if (sent.length > 0) secrets = usableSecrets([...secrets, ...withEscapes(sent)]);
    if (init?.body !== undefined) {
      if (r.body === "multipart") {
        if (!isFormData(init.body)) {
          throw new ValidationError({
            status: 0,
            method,
            url: this.origin + path,
            message: "invalid request body",
            fieldErrors: [{ field: "(body)", message: "a multipart route's body must be a FormData" }],
            secrets,
            secretFields: r.secretFields,
          });
        }
        const form = await encodeMultipart(init.body, secrets);
        body = form.bytes;
        secrets = usableSecrets(withEscapes(form.secrets));
        headers = { ...this.#plainHeaders, "content-type": form.contentType };
      } else if (r.body === "yaml") {
        body = String(init.body);
        headers = this.#yamlHeaders;
      } else {
        body = JSON.stringify(init.body);
        headers = this.#jsonHeaders;
      }
    }
    if (init?.headers !== undefined) headers = { ...headers, ...init.headers };
    const cs: CallSecrets = { secrets, secretFields: r.secretFields ?? [] };
    const signal = init?.signal;
    const limiter = this.#limiter;
    let started = 0;
    let maybeApplied = false;

    for (let attempt = 1; ; attempt++) {
      const wait = limiter.acquire(attempt > 1, signal);
      let admission: Admission;
      if (wait === undefined) admission = limiter.admission;
      else {
        try {
          admission = await wait;
        } catch (err) {
          // aborted while queued: this attempt was never sent, and a retried one failed harmlessly
          throw this.#networkError(method, path, err, true, attempt - 1, true, cs);
        }
      }
      if (attempt === 1) started = performance.now();

      let res: Dispatcher.ResponseData;
      try {
        res = await this.#dispatcher.request({
          origin: this.origin,
          path,
          method,
          headers,
          body,
          headersTimeout: this.#timeoutMs,
          bodyTimeout: this.#timeoutMs,
          signal,
        });
        // When it reached the server, at the latest: the limiter's window counts it from then.
        limiter.answered(admission, performance.now());
      } catch (err) {
        limiter.release();
        const failure = this.#transportOutcome(method, path, err, r.idempotent, attempt, signal, cs);
        maybeApplied ||= failure.maybeApplied;
        if (!(await this.#shouldRetry(failure, attempt, started, method, path, signal, cs)))
          throw failure.error;
        continue;
      }

      let outcome: Outcome;
      try {
        outcome = await this.#readResponse(r, res, method, path, attempt, cs);
      } catch (err) {
        // the body broke off: the request was certainly sent
        outcome = this.#transportOutcome(method, path, err, r.idempotent, attempt, signal, cs);
      } finally {
        limiter.release();
      }
      if (outcome.ok) {
        init?.onHeaders?.(res.headers);
        return outcome.value as z.output<S>;
      }
      // A DELETE retried after an attempt that may have deleted the object: gone is success.
      if (maybeApplied && r.hasGoneOnRetry && outcome.error.kind === "not-found")
        return r.goneOnRetry as z.output<S>;
      maybeApplied ||= outcome.maybeApplied;
      if (!(await this.#shouldRetry(outcome, attempt, started, method, path, signal, cs)))
        throw outcome.error;
    }
  }

  async #readResponse(
    r: Route,
    res: Dispatcher.ResponseData,
    method: HttpMethod,
    path: string,
    attempt: number,
    cs: CallSecrets,
  ): Promise<Outcome> {
    const status = res.statusCode;
    if (status >= 200 && status < 300) {
      let text = "";
      if (status === 204 || status === 205) await res.body.dump();
      else text = await res.body.text();
      return this.#parseSuccess(r, status, res.headers, text, method, path, attempt, cs);
    }
    // Redacted before anything is taken from it: a message cut at 200 characters could keep a
    // fragment of a key too short to be recognised afterwards. What its structure names secret (a
    // new key in a `details` JSON string) goes from its free text too (`bodySecrets`).
    const raw = await res.body.text();
    const answered = withBodySecrets(cs, raw);
    const text = redactText(raw, answered.secrets, answered.secretFields);
    const idempotent = r.idempotent;
    const advised = status === 429 ? rateLimitWaitMs(res.headers) : retryAfterMs(res.headers);
    const retryable = status === 429 || (idempotent && this.#policy.retryStatuses.includes(status));
    const error = errorFromResponse({
      status,
      headers: res.headers,
      text,
      method,
      url: this.origin + path,
      emptyBadRequest: r.emptyBadRequest,
      authHint: this.#authHint,
      attempts: attempt,
      outcomeUnknown: !idempotent && WRITE_MAYBE_APPLIED.has(status),
      retryAfterMs: advised,
      ...answered,
    });
    return {
      ok: false,
      error,
      retry: retryable,
      delayMs: advised ?? backoffMs(attempt - 1, this.#policy),
      pause: status === 429,
      maybeApplied: WRITE_MAYBE_APPLIED.has(status),
    };
  }

  #parseSuccess(
    r: Route,
    status: number,
    headers: IncomingHttpHeaders,
    text: string,
    method: HttpMethod,
    path: string,
    attempt: number,
    cs: CallSecrets,
  ): Outcome {
    const body = this.#successBody(r, text, cs);
    if ("value" in body) return { ok: true, value: body.value };
    const tx = headers["x-transaction-id"];
    return {
      ok: false,
      retry: false,
      delayMs: 0,
      pause: false,
      maybeApplied: false,
      error: new ValidationError({
        status,
        method,
        url: this.origin + path,
        ...body,
        attempts: attempt,
        transactionId: Array.isArray(tx) ? tx[0] : tx,
        ...cs,
      }),
    };
  }

  /** A success body's value as the route's schema parses it, or what is wrong with the body. */
  #successBody(
    r: Route,
    text: string,
    cs: CallSecrets,
  ):
    | { value: unknown }
    | { message: string; fieldErrors: { field: string; message: string }[]; body: unknown } {
    let value: unknown;
    if (text.length === 0) {
      if (!r.hasEmptyBody) return { message: "the response body is empty", fieldErrors: [], body: undefined };
      value = r.emptyBody;
    } else {
      try {
        value = JSON.parse(text);
      } catch {
        const body = redactText(text, cs.secrets, cs.secretFields).slice(0, 500);
        return { message: "the response body is not JSON", fieldErrors: [], body };
      }
    }
    const parsed = r.schema.safeParse(value);
    if (parsed.success) return { value: parsed.data };
    const fieldErrors = flattenIssues(parsed.error.issues).map((i) => ({
      field: dotPath(i.path) || "(body)",
      message: i.message,
    }));
    return { message: "the response body does not match the expected shape", fieldErrors, body: value };
  }

  #transportOutcome(
    method: HttpMethod,
    path: string,
    err: unknown,
    idempotent: boolean,
    attempt: number,
    signal: AbortSignal | undefined,
    cs: CallSecrets,
    shownUrl?: string,
  ): Failure {
    const aborted = signal?.aborted === true;
    const failure = classifyNetworkError(err, idempotent, aborted);
    return {
      ok: false,
      error: this.#networkError(method, path, err, idempotent, attempt, aborted, cs, shownUrl),
      retry: failure.retryable,
      delayMs: backoffMs(attempt - 1, this.#policy),
      pause: false,
      maybeApplied: failure.reachedServer,
    };
  }

  #networkError(
    method: HttpMethod,
    path: string,
    err: unknown,
    idempotent: boolean,
    attempts: number,
    aborted: boolean,
    cs: CallSecrets,
    shownUrl?: string,
  ): NetworkError {
    const failure = classifyNetworkError(err, idempotent, aborted);
    let message = `network error: ${failure.reason}`;
    if (failure.outcomeUnknown) {
      message += aborted
        ? "; the request may have reached the server, so its outcome is unknown"
        : "; the request may have reached the server, so its outcome is unknown and it was not retried";
    } else if (!failure.reachedServer && shownUrl === undefined) {
      // Nothing answered at this address: say where the address came from (a stale URL is the
      // usual cause; for the Pulumi provider, the config recorded at the last `pulumi up`).
      message += ` (base URL ${this.origin} from ${this.#baseUrlSource})`;
    }
    return new NetworkError({
      status: 0,
      method,
      url: shownUrl ?? this.origin + path,
      message,
      cause: err,
      ...cs,
      attempts,
      outcomeUnknown: failure.outcomeUnknown,
      errorCode: failure.code,
    });
  }

  async #shouldRetry(
    outcome: Failure,
    attempt: number,
    started: number,
    method: HttpMethod,
    path: string,
    signal: AbortSignal | undefined,
    cs: CallSecrets,
  ): Promise<boolean> {
    const delayMs = outcome.delayMs;
    // A 429 holds back every request to this base URL, whether or not this one is retried.
    if (outcome.pause) this.#limiter.pause(delayMs);
    if (!outcome.retry || attempt > this.#policy.maxRetries) return false;
    if (performance.now() + delayMs - started > this.#policy.budgetMs) return false;
    const e = outcome.error;
    this.#onRetry?.({
      method,
      path,
      attempt,
      delayMs,
      reason: e.status ? String(e.status) : ((e as NetworkError).errorCode ?? "network"),
    });
    // After a 429 the retry waits out the pause in the limiter's queue (at its head).
    if (!outcome.pause && delayMs > 0) {
      try {
        await sleep(delayMs, undefined, { signal });
      } catch (err) {
        throw this.#networkError(method, path, err, true, attempt, true, cs);
      }
    }
    return true;
  }

  /**
   * Sends a file to an address a call's answer gave (a large segment's change request answers
   * `transactionMetadata.url`, a presigned address on the real service: splitapiclient 3.5.9
   * `large_segment_definition_microclient.py` `upload_file` PUTs the file there with the answer's
   * `Host` header and nothing else). That address carries its own credential, so the client's key
   * is never sent with it, nor the address's query (the signature) shown in an error. The body is
   * streamed from `chunks`, made afresh for each attempt, with its `Content-Length` given (a
   * presigned PUT refuses a chunked body); the address is not the API's, so the API's rate limiter
   * does not admit it. Retried as a PUT is: on connection errors and 500/502/503/504.
   * @returns the answer's status (2xx)
   * @throws ValidationError for an address that is not http(s); ApiError subclasses for the answer.
   */
  async putStream(
    url: string,
    file: { length: number; chunks: () => AsyncIterable<Uint8Array>; contentType: string },
    init: { headers?: Readonly<Record<string, string>>; signal?: AbortSignal | undefined } = {},
  ): Promise<number> {
    const method = "PUT" as const;
    let target: URL | undefined;
    try {
      target = new URL(url);
    } catch {
      target = undefined;
    }
    const shown = target ? target.origin + target.pathname : "(upload address)";
    const cs: CallSecrets = {
      secrets: usableSecrets([
        ...this.#secrets,
        target?.search.slice(1),
        ...(target?.searchParams.values() ?? []),
      ]),
      secretFields: [],
    };
    if (!target || (target.protocol !== "http:" && target.protocol !== "https:")) {
      throw new ValidationError({
        status: 0,
        method,
        url: shown,
        message: "invalid upload address",
        fieldErrors: [{ field: "transactionMetadata.url", message: "must be an http(s) URL" }],
        ...cs,
      });
    }
    const origin = target.origin;
    const path = target.pathname + target.search;
    const dispatcher = origin === this.origin ? this.#dispatcher : sharedPool(origin);
    const headers: Record<string, string> = {
      "user-agent": this.#plainHeaders["user-agent"] ?? "flagstack",
      "content-type": file.contentType,
      "content-length": String(file.length),
      ...init.headers,
    };
    const signal = init.signal;
    const r = { idempotent: true } as const;
    let started = 0;
    this.#wrote();
    try {
      for (let attempt = 1; ; attempt++) {
        if (attempt === 1) started = performance.now();
        let outcome: Failure | undefined;
        try {
          const res = await dispatcher.request({
            origin,
            path,
            method,
            headers,
            body: Readable.from(file.chunks(), { objectMode: false }),
            headersTimeout: this.#timeoutMs,
            bodyTimeout: this.#timeoutMs,
            signal,
          });
          const status = res.statusCode;
          if (status >= 200 && status < 300) {
            await res.body.dump();
            return status;
          }
          const raw = await res.body.text();
          const answered = withBodySecrets(cs, raw);
          const text = redactText(raw, answered.secrets, answered.secretFields);
          const error = errorFromResponse({
            status,
            headers: res.headers,
            text,
            method,
            url: shown,
            attempts: attempt,
            outcomeUnknown: false,
            ...answered,
          });
          outcome = {
            ok: false,
            error,
            retry: this.#policy.retryStatuses.includes(status),
            delayMs: backoffMs(attempt - 1, this.#policy),
            pause: false,
            maybeApplied: WRITE_MAYBE_APPLIED.has(status),
          };
        } catch (err) {
          outcome = this.#transportOutcome(method, path, err, r.idempotent, attempt, signal, cs, shown);
        }
        if (!(await this.#shouldRetry(outcome, attempt, started, method, target.pathname, signal, cs)))
          throw outcome.error;
      }
    } finally {
      this.#wrote();
    }
  }

  /** Keeps the credential out of `JSON.stringify(client)`. */
  toJSON(): Record<string, unknown> {
    return { origin: this.origin, basePath: this.#basePath };
  }
}

/**
 * A call's secrets with those an answer's body names by its structure (`redact.ts`
 * `bodySecrets`: the values of its credential-named and declared secret fields, also inside the
 * JSON texts its strings hold), so that its free text repeating them is redacted too.
 */
function withBodySecrets(cs: CallSecrets, text: string): CallSecrets {
  const named = bodySecrets(text, cs.secretFields);
  return named.length === 0 ? cs : { ...cs, secrets: usableSecrets([...cs.secrets, ...named]) };
}

/**
 * Each value, and its JSON-escaped form when that differs (a value with a newline or a quote is
 * echoed that way inside a JSON text): both are searched for in the call's error answers.
 */
function withEscapes(values: readonly (string | undefined)[]): string[] {
  const out: string[] = [];
  for (const v of values) {
    if (v === undefined) continue;
    out.push(v);
    const escaped = JSON.stringify(v).slice(1, -1);
    if (escaped !== v) out.push(escaped);
  }
  return out;
}
