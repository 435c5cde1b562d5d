import { describe, expect, it } from "vitest";
import { type CommonOptions, ConfigurationError, resolveCommonOptions } from "../../../sdk/core/options";

const WHO = {
  client: "AdminClient",
  urlEnv: "FLAGSTACK_ADMIN_API_URL",
  keyOption: "apiKey",
  keyEnv: "FLAGSTACK_ADMIN_API_KEY",
  defaultRequestsPerSecond: 10,
};

describe("resolveCommonOptions", () => {
  it("applies defaults", () => {
    const o = resolveCommonOptions({ baseUrl: "http://127.0.0.1:1", env: {} }, "k", WHO);
    expect(o).toMatchObject({
      key: "k",
      requestsPerSecond: 10,
      burst: 10,
      maxConcurrent: 10,
      maxRetries: 5,
      timeoutMs: 30_000,
      retryBudgetMs: 120_000,
      retryBaseDelayMs: 250,
      retryMaxDelayMs: 20_000,
      dispatcher: undefined,
    });
    expect(o.baseUrl.href).toBe("http://127.0.0.1:1/");
  });

  it("bursts one second's budget by default (rounded up), 1 without a limit, and takes an explicit burst", () => {
    const burst = (o: Partial<CommonOptions>, env: Record<string, string> = {}) =>
      resolveCommonOptions({ baseUrl: "http://127.0.0.1:1", env, ...o }, "k", WHO).burst;
    expect(burst({ requestsPerSecond: 20 })).toBe(20);
    expect(burst({ requestsPerSecond: 2.5 })).toBe(3);
    expect(burst({ requestsPerSecond: 0.5 })).toBe(1);
    expect(burst({ requestsPerSecond: Infinity })).toBe(1);
    expect(burst({}, { FLAGSTACK_REQUESTS_PER_SECOND: "3" })).toBe(3);
    expect(burst({ requestsPerSecond: 20, burst: 1 })).toBe(1);
  });

  it("falls back to the environment, and explicit options win over it", () => {
    const env = {
      FLAGSTACK_ADMIN_API_URL: "http://env:1",
      FLAGSTACK_ADMIN_API_KEY: "envkey",
      FLAGSTACK_REQUESTS_PER_SECOND: "3",
    };
    expect(resolveCommonOptions({ env }, undefined, WHO)).toMatchObject({
      key: "envkey",
      requestsPerSecond: 3,
    });
    expect(resolveCommonOptions({ env }, undefined, WHO).baseUrl.origin).toBe("http://env:1");
    const explicit = resolveCommonOptions(
      { env, baseUrl: "http://opt:2", requestsPerSecond: 7 },
      "optkey",
      WHO,
    );
    expect(explicit).toMatchObject({ key: "optkey", requestsPerSecond: 7 });
    expect(explicit.baseUrl.origin).toBe("http://opt:2");
  });

  it("accepts Infinity requests per second (no client-side limit)", () => {
    expect(
      resolveCommonOptions({ baseUrl: "http://h", requestsPerSecond: Infinity, env: {} }, "k", WHO)
        .requestsPerSecond,
    ).toBe(Infinity);
  });

  it.each<[string, CommonOptions, unknown, Record<string, string>, string, string | undefined, string]>([
    [
      "no base URL",
      {},
      "k",
      {},
      "baseUrl",
      "FLAGSTACK_ADMIN_API_URL",
      "AdminClient: missing base URL: pass { baseUrl } or set FLAGSTACK_ADMIN_API_URL",
    ],
    [
      "no key",
      { baseUrl: "http://h" },
      undefined,
      {},
      "apiKey",
      "FLAGSTACK_ADMIN_API_KEY",
      "AdminClient: missing apiKey: pass { apiKey } or set FLAGSTACK_ADMIN_API_KEY",
    ],
    [
      "a blank key variable",
      { baseUrl: "http://h" },
      undefined,
      { FLAGSTACK_ADMIN_API_KEY: "  " },
      "apiKey",
      "FLAGSTACK_ADMIN_API_KEY",
      "AdminClient: missing apiKey: pass { apiKey } or set FLAGSTACK_ADMIN_API_KEY",
    ],
    [
      "an empty key",
      { baseUrl: "http://h" },
      "",
      {},
      "apiKey",
      "FLAGSTACK_ADMIN_API_KEY",
      "AdminClient: apiKey must be a non-empty string",
    ],
    [
      "a relative base URL",
      { baseUrl: "/x" },
      "k",
      {},
      "baseUrl",
      "FLAGSTACK_ADMIN_API_URL",
      'AdminClient: baseUrl must be an absolute http(s) URL, got "/x"',
    ],
    [
      "an ftp base URL",
      { baseUrl: "ftp://h" },
      "k",
      {},
      "baseUrl",
      "FLAGSTACK_ADMIN_API_URL",
      'AdminClient: baseUrl must be an absolute http(s) URL, got "ftp://h"',
    ],
    [
      "credentials in the URL",
      { baseUrl: "http://u:p@h" },
      "k",
      {},
      "baseUrl",
      "FLAGSTACK_ADMIN_API_URL",
      "AdminClient: baseUrl must not contain credentials; pass { apiKey } instead",
    ],
    [
      "a zero rate",
      { baseUrl: "http://h", requestsPerSecond: 0 },
      "k",
      {},
      "requestsPerSecond",
      undefined,
      "AdminClient: invalid option requestsPerSecond: requestsPerSecond must be a number greater than 0",
    ],
    [
      "a bad rate variable",
      { baseUrl: "http://h" },
      "k",
      { FLAGSTACK_REQUESTS_PER_SECOND: "fast" },
      "requestsPerSecond",
      "FLAGSTACK_REQUESTS_PER_SECOND",
      'AdminClient: FLAGSTACK_REQUESTS_PER_SECOND must be a number greater than 0, got "fast"',
    ],
    [
      "negative retries",
      { baseUrl: "http://h", maxRetries: -1 },
      "k",
      {},
      "maxRetries",
      undefined,
      "AdminClient: invalid option maxRetries: maxRetries must be a whole number >= 0",
    ],
    [
      "a fractional concurrency",
      { baseUrl: "http://h", maxConcurrent: 1.5 },
      "k",
      {},
      "maxConcurrent",
      undefined,
      "AdminClient: invalid option maxConcurrent: maxConcurrent must be a whole number > 0",
    ],
    [
      "a non-dispatcher",
      { baseUrl: "http://h", dispatcher: {} as never },
      "k",
      {},
      "dispatcher",
      undefined,
      "AdminClient: invalid option dispatcher: dispatcher must be an undici Dispatcher",
    ],
  ])("refuses %s, naming the option and variable", (_name, opts, key, env, option, envVar, message) => {
    let err: unknown;
    try {
      resolveCommonOptions({ ...opts, env }, key, WHO);
    } catch (e) {
      err = e;
    }
    expect(ConfigurationError.isInstance(err)).toBe(true);
    expect(err).toMatchObject({ name: "ConfigurationError", option, envVar, message });
  });
});
