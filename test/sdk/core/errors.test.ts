import { describe, expect, it, vi } from "vitest";
import {
  ApiError,
  ConflictError,
  isNetworkError,
  isNotFound,
  isOutcomeUnknown,
  NetworkError,
  NotFoundError,
  RateLimitError,
  redactUrl,
  ValidationError,
} from "../../../sdk/core/errors";

const base = {
  status: 404,
  method: "GET",
  url: "http://h:1/internal/api/v2/users/u1?x=1",
  message: "Could not find user u1",
};

describe("ApiError", () => {
  it("formats a terminal-friendly message from the path, status, message and transaction", () => {
    expect(new NotFoundError({ ...base, transactionId: "22f0rxo8uno" }).message).toBe(
      "GET /internal/api/v2/users/u1: 404 Could not find user u1 (transaction 22f0rxo8uno)",
    );
    expect(
      new ApiError({ ...base, status: 400, details: "d", correlationId: "c", attempts: 3 }).message,
    ).toBe(
      "GET /internal/api/v2/users/u1: 400 Could not find user u1 (d) (correlation c) [after 3 attempts]",
    );
    expect(
      new NetworkError({ ...base, status: 0, message: "network error: connection refused" }).message,
    ).toBe("GET /internal/api/v2/users/u1: network error: connection refused");
  });

  it.each([
    [new NotFoundError(base), NotFoundError, "not-found"],
    [new ConflictError(base), ConflictError, "conflict"],
    [new RateLimitError({ ...base, retryAfterMs: 5 }), RateLimitError, "rate-limited"],
    [new ValidationError(base), ValidationError, "validation"],
    [new NetworkError(base), NetworkError, "network"],
  ])("%o is an ApiError and its own class, not another", (err, cls, kind) => {
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toBeInstanceOf(cls);
    expect(err.kind).toBe(kind);
    for (const other of [NotFoundError, ConflictError, RateLimitError, ValidationError, NetworkError]) {
      if (other !== cls) expect(err).not.toBeInstanceOf(other);
    }
  });

  it("is recognised across two copies of the module (the brand, not the prototype)", async () => {
    vi.resetModules();
    const second = await import("../../../sdk/core/errors.js");
    expect(second.NotFoundError).not.toBe(NotFoundError);
    const e = new second.NotFoundError(base);
    expect(e).toBeInstanceOf(NotFoundError);
    expect(e).toBeInstanceOf(ApiError);
    expect(e).not.toBeInstanceOf(ConflictError);
    expect(ApiError.isInstance(e)).toBe(true);
    expect(isNotFound(e)).toBe(true);
    expect(new NotFoundError(base)).toBeInstanceOf(second.ApiError);
  });

  it("JSON carries the fields, not the body or the cause", () => {
    const e = new NetworkError({
      ...base,
      status: 0,
      body: { secret: 1 },
      cause: new Error("x"),
      outcomeUnknown: true,
      errorCode: "ECONNRESET",
    });
    expect(JSON.parse(JSON.stringify(e))).toEqual({
      name: "NetworkError",
      kind: "network",
      message: "GET /internal/api/v2/users/u1: Could not find user u1",
      status: 0,
      method: "GET",
      url: "http://h:1/internal/api/v2/users/u1?x=1",
      fieldErrors: [],
      outcomeUnknown: true,
      attempts: 1,
      errorCode: "ECONNRESET",
    });
    expect(isOutcomeUnknown(e)).toBe(true);
    expect(isNetworkError(e)).toBe(true);
    expect(isOutcomeUnknown(new Error("plain"))).toBe(false);
  });

  it("removes from every text the secrets its body and details name by their structure", () => {
    const NEW = "sdk-0f9e8d7c6b5a49382716";
    const e = new ApiError({
      status: 500,
      method: "POST",
      url: "http://h:1/internal/api/v2/apiKeys",
      message: `made ${NEW}, then failed`,
      details: JSON.stringify({ id: "k1", key: NEW }),
      body: { message: `made ${NEW}, then failed`, answer: { key: NEW, note: `cut ${NEW.slice(2, 18)}` } },
      secretFields: ["key"],
    });
    expect(e.message).toBe(
      'POST /internal/api/v2/apiKeys: 500 made ***, then failed ({"id":"k1","key":"***"})',
    );
    expect(e.body).toEqual({ message: "made ***, then failed", answer: { key: "***", note: "cut ***" } });
    expect(JSON.stringify(e)).not.toContain(NEW.slice(4, 16));
  });

  it.each([
    ["http://user:pw@h/x", "http://h/x"],
    ["http://h/x?api_key=abc&y=1", "http://h/x?api_key=***&y=1"],
    ["http://h/x?token=abc", "http://h/x?token=***"],
  ])("redactUrl(%s) = %s", (url, want) => {
    expect(redactUrl(url)).toBe(want);
  });
});
