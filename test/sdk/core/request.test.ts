import { inspect } from "node:util";
import { Pool } from "undici";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { apiKeyEndpoints } from "../../../sdk/admin/api-key";
import {
  ApiError,
  ConflictError,
  NetworkError,
  NotFoundError,
  RateLimitError,
  ValidationError,
} from "../../../sdk/core/errors";
import { type CommonOptions, resolveCommonOptions } from "../../../sdk/core/options";
import { closeSharedPools } from "../../../sdk/core/pool";
import { type CoreConfig, HttpCore, type RetryEvent } from "../../../sdk/core/request";
import { route } from "../../../sdk/core/route";
import { secretField } from "../../../sdk/core/secret-fields";
import { freePort, json, type ScriptedServer, scriptedServer } from "../helpers/scripted-server";

const KEY = "sentinel-key-7f3a9c1e5b";
const realSetTimeout = setTimeout;
/** Real time for the sockets while the timers are fake. */
const sleepReal = (ms: number) => new Promise((resolve) => realSetTimeout(resolve, ms));

const Item = z.looseObject({ id: z.string(), n: z.number() });
const getItem = route("GET /items/{id}", Item);
const listItems = route("GET /items", z.object({ items: z.array(Item) }));
const putItem = route("PUT /items/{id}", Item);
const postItem = route("POST /items", Item);
const patchItem = route("PATCH /items/{id}", Item);
const deleteItem = route("DELETE /items/{id}", z.literal(true), { emptyBody: true });
const deleteGone = route("DELETE /gone/{id}", z.literal(true), { goneOnRetry: true });
const postYaml = route("POST /pipelines", z.object({ ok: z.boolean() }), { body: "yaml" });
const patchDef = route("PATCH /defs/{id}", Item, {
  emptyBadRequest: "the workspace requires a title and comment for definition changes",
});
const getNoEmpty = route("GET /strict", Item);

function makeCore(url: string, extra: CommonOptions = {}, cfg: Partial<CoreConfig> = {}): HttpCore {
  const options = resolveCommonOptions(
    {
      baseUrl: url,
      requestsPerSecond: Infinity,
      retryBaseDelayMs: 5,
      retryMaxDelayMs: 20,
      env: {},
      ...extra,
    },
    KEY,
    {
      client: "TestClient",
      urlEnv: "T_URL",
      keyOption: "apiKey",
      keyEnv: "T_KEY",
      defaultRequestsPerSecond: 10,
    },
  );
  return new HttpCore({
    options,
    auth: ["authorization", `Bearer ${KEY}`],
    authHint: "check apiKey",
    ...cfg,
  });
}

let srv: ScriptedServer;
beforeAll(async () => {
  srv = await scriptedServer((_req, res) => json(res, 200, {}));
});
afterEach(() => {
  srv.requests.length = 0;
});
afterAll(async () => {
  await srv.close();
  await closeSharedPools();
});

describe("requests and success bodies", () => {
  it("sends a GET with the auth, accept and user-agent headers and validates the body", async () => {
    srv.script((_req, res) => json(res, 200, { id: "a", n: 1, extra: "kept" }));
    const item = await makeCore(srv.url).request(getItem, { id: "a" });
    expect(item).toEqual({ id: "a", n: 1, extra: "kept" });
    expect(srv.requests).toHaveLength(1);
    const r = srv.requests[0]!;
    expect(r.method).toBe("GET");
    expect(r.url).toBe("/items/a");
    expect(r.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(r.headers.accept).toBe("application/json");
    expect(r.headers["user-agent"]).toMatch(/^flagstack\/\d+\.\d+\.\d+$/);
    expect(r.headers["content-type"]).toBeUndefined();
    expect(r.body).toBe("");
  });

  it("URL-encodes path parameters and serializes the query (arrays repeat, undefined dropped)", async () => {
    srv.script((_req, res) => json(res, 200, { id: "x", n: 0 }));
    await makeCore(srv.url).request(
      getItem,
      { id: "a b/c?d#e%" },
      { query: { tag: ["t 1", "t2"], skip: undefined, nil: null, limit: 5, on: true } },
    );
    expect(srv.requests[0]!.url).toBe("/items/a%20b%2Fc%3Fd%23e%25?tag=t%201&tag=t2&limit=5&on=true");
  });

  it("keeps the base URL's path prefix, and strips a route prefix the templates already carry", async () => {
    srv.script((_req, res) => json(res, 200, { id: "x", n: 0 }));
    await makeCore(`${srv.url}/gateway/`).request(getItem, { id: "a" });
    await makeCore(`${srv.url}/internal/api/v2`, {}, { routePrefix: "/internal/api/v2" }).request(getItem, {
      id: "b",
    });
    expect(srv.requests.map((r) => r.url)).toEqual(["/gateway/items/a", "/items/b"]);
  });

  it("refuses an empty path parameter before sending, naming it", async () => {
    const p = makeCore(srv.url).request(getItem, { id: "" });
    await expect(p).rejects.toBeInstanceOf(ValidationError);
    await expect(p).rejects.toMatchObject({
      status: 0,
      message: "GET /items/{id}: invalid path parameter: id: id must be a non-empty string",
      fieldErrors: [{ field: "id", message: "id must be a non-empty string" }],
    });
    expect(srv.requests).toHaveLength(0);
  });

  it("sends JSON bodies with application/json", async () => {
    srv.script((_req, res, body) => json(res, 201, { ...JSON.parse(body), id: "new" }));
    const out = await makeCore(srv.url).request(postItem, {}, { body: { n: 7 } });
    expect(out).toEqual({ id: "new", n: 7 });
    expect(srv.requests[0]!.headers["content-type"]).toBe("application/json");
    expect(srv.requests[0]!.body).toBe('{"n":7}');
  });

  it("sends YAML bodies verbatim with application/yaml", async () => {
    srv.script((_req, res) => json(res, 200, { ok: true }));
    const yaml = "pipeline:\n  name: p\n  identifier: p\n";
    await makeCore(srv.url).request(postYaml, {}, { body: yaml });
    expect(srv.requests[0]!.headers["content-type"]).toBe("application/yaml");
    expect(srv.requests[0]!.body).toBe(yaml);
  });

  it.each([
    ["a literal true body", (res: import("node:http").ServerResponse) => json(res, 200, true)],
    ["a 204", (res: import("node:http").ServerResponse) => res.writeHead(204).end()],
    [
      "an empty 200",
      (res: import("node:http").ServerResponse) => res.writeHead(200, { "content-length": "0" }).end(),
    ],
  ])("accepts %s for a route whose empty body means true", async (_name, answer) => {
    srv.script((_req, res) => answer(res));
    await expect(makeCore(srv.url).request(deleteItem, { id: "a" })).resolves.toBe(true);
  });

  it("reports an empty success body as a ValidationError where one is not expected", async () => {
    srv.script((_req, res) => res.writeHead(200, { "content-length": "0" }).end());
    await expect(makeCore(srv.url).request(getNoEmpty, {})).rejects.toMatchObject({
      kind: "validation",
      status: 200,
      message: "GET /strict: 200 the response body is empty",
    });
  });

  it("reports a body that fails its schema as a ValidationError with the zod issues as field errors", async () => {
    srv.script((_req, res) =>
      json(res, 200, {
        items: [
          { id: "a", n: 1 },
          { id: 2, n: "x" },
        ],
      }),
    );
    const p = makeCore(srv.url).request(listItems, {});
    await expect(p).rejects.toBeInstanceOf(ValidationError);
    await expect(p).rejects.toMatchObject({
      status: 200,
      fieldErrors: [
        { field: "items[1].id", message: "Invalid input: expected string, received number" },
        { field: "items[1].n", message: "Invalid input: expected number, received string" },
      ],
      message:
        "GET /items: 200 the response body does not match the expected shape: items[1].id: Invalid input: expected string, received number; items[1].n: Invalid input: expected number, received string",
    });
  });

  it("reports a non-JSON success body as a ValidationError", async () => {
    srv.script((_req, res) => res.writeHead(200, { "content-type": "text/html" }).end("<html>hi</html>"));
    await expect(makeCore(srv.url).request(getItem, { id: "a" })).rejects.toMatchObject({
      kind: "validation",
      message: "GET /items/a: 200 the response body is not JSON",
      body: "<html>hi</html>",
    });
  });

  it("always consumes response bodies: 60 calls through a one-connection pool finish", async () => {
    const big = "x".repeat(200_000);
    srv.script((_req, res, _b, n) =>
      n % 2 ? json(res, 404, { code: 404, message: big }) : json(res, 200, { id: big, n }),
    );
    const pool = new Pool(srv.url, { connections: 1 });
    const core = makeCore(srv.url, { dispatcher: pool, maxRetries: 0 });
    for (let i = 0; i < 60; i++) {
      const p = core.request(getItem, { id: String(i) });
      if (i % 2) await expect(p).rejects.toBeInstanceOf(NotFoundError);
      else await expect(p).resolves.toMatchObject({ n: i });
    }
    await pool.close();
  });
});

describe("error bodies become typed errors", () => {
  it("reads the admin error body {code, message, details, transactionId}", async () => {
    srv.script((_req, res) =>
      json(res, 400, {
        code: 400,
        message:
          "Active users cannot be deleted from your org. You can use a PUT request to deactivate the user",
        details: "",
        transactionId: "22f0rxo8uno",
      }),
    );
    const p = makeCore(srv.url).request(deleteItem, { id: "u1" });
    await expect(p).rejects.toBeInstanceOf(ApiError);
    await expect(p).rejects.toMatchObject({
      kind: "api",
      status: 400,
      code: 400,
      details: undefined,
      transactionId: "22f0rxo8uno",
      method: "DELETE",
      url: `${srv.url}/items/u1`,
      apiMessage:
        "Active users cannot be deleted from your org. You can use a PUT request to deactivate the user",
      message:
        "DELETE /items/u1: 400 Active users cannot be deleted from your org. You can use a PUT request to deactivate the user (transaction 22f0rxo8uno)",
    });
  });

  it("takes the transaction id from a header when the body has none, and shows details", async () => {
    srv.script((_req, res) =>
      json(
        res,
        403,
        { code: 403, message: "Forbidden", details: "role API_FEATURE_FLAG_VIEWER" },
        { "x-transaction-id": "tx-9" },
      ),
    );
    await expect(makeCore(srv.url).request(getItem, { id: "a" })).rejects.toMatchObject({
      status: 403,
      transactionId: "tx-9",
      message: "GET /items/a: 403 Forbidden (check apiKey) (role API_FEATURE_FLAG_VIEWER) (transaction tx-9)",
    });
  });

  it("explains the empty-body 400 of a workspace that requires a title and comment", async () => {
    srv.script((_req, res) => res.writeHead(400, { "content-length": "0" }).end());
    await expect(makeCore(srv.url).request(patchDef, { id: "d" }, { body: [] })).rejects.toMatchObject({
      kind: "api",
      status: 400,
      message: "PATCH /defs/d: 400 the workspace requires a title and comment for definition changes",
    });
  });

  it("says an empty 400 elsewhere is empty", async () => {
    srv.script((_req, res) => res.writeHead(400, { "content-length": "0" }).end());
    await expect(makeCore(srv.url).request(postItem, {}, { body: {} })).rejects.toMatchObject({
      message: "POST /items: 400 Bad Request (empty response body)",
    });
  });

  it("adds the key hint to a 401", async () => {
    srv.script((_req, res) =>
      json(res, 401, { code: 401, message: "Unauthorized", details: "", transactionId: "t1" }),
    );
    await expect(makeCore(srv.url).request(getItem, { id: "a" })).rejects.toMatchObject({
      status: 401,
      message: "GET /items/a: 401 Unauthorized (check apiKey) (transaction t1)",
    });
  });

  const failure = (code: string, message: string, errors: unknown[] = []) => ({
    status: "FAILURE",
    code,
    message,
    correlationId: "corr-1",
    errors,
  });
  const errorDto = (code: string, message: string) => ({
    status: "ERROR",
    code,
    message,
    correlationId: "corr-2",
    detailedMessage: null,
    responseMessages: [{ code, level: "ERROR", message }],
  });

  it.each([
    [
      404,
      errorDto("ENTITY_NOT_FOUND", "Project with orgIdentifier [default] and identifier [p] not found"),
      NotFoundError,
      "not-found",
    ],
    [
      400,
      failure(
        "RESOURCE_NOT_FOUND_EXCEPTION",
        "Connector with identifier [c] in project [p], org [o] not found",
      ),
      NotFoundError,
      "not-found",
    ],
    [
      400,
      errorDto(
        "INVALID_REQUEST",
        "No connector exists with the identifier c in account a, organisation o, project p",
      ),
      NotFoundError,
      "not-found",
    ],
    [
      400,
      errorDto(
        "DUPLICATE_FIELD",
        "A project with identifier [p] and orgIdentifier [default] is already present",
      ),
      ConflictError,
      "conflict",
    ],
    [
      400,
      errorDto(
        "INVALID_REQUEST",
        "The connector with identifier c already exists in the account a, org o, project p",
      ),
      ConflictError,
      "conflict",
    ],
    [
      409,
      { code: 409, message: "Group name already exists", details: "", transactionId: "t" },
      ConflictError,
      "conflict",
    ],
    [400, errorDto("INVALID_REQUEST", "Value mismatch, previous: a current: b"), ApiError, "api"],
  ])("maps %i %j to the right class", async (status, body, cls, kind) => {
    srv.script((_req, res) => json(res, status, body));
    const p = makeCore(srv.url).request(getItem, { id: "a" });
    await expect(p).rejects.toBeInstanceOf(cls);
    await expect(p).rejects.toMatchObject({
      kind,
      status,
      message: expect.stringContaining(`GET /items/a: ${status} ${(body as { message: string }).message}`),
    });
  });

  it("turns a platform FAILURE body's errors[] into field errors with the correlation id", async () => {
    srv.script((_req, res) =>
      json(
        res,
        400,
        failure("INVALID_REQUEST", "Invalid request: identifier cannot be empty", [
          { fieldId: "identifier", error: "cannot be empty" },
          { fieldId: "name", error: "cannot be empty." },
        ]),
      ),
    );
    await expect(makeCore(srv.url).request(postItem, {}, { body: {} })).rejects.toMatchObject({
      kind: "api",
      code: "INVALID_REQUEST",
      correlationId: "corr-1",
      fieldErrors: [
        { field: "identifier", message: "cannot be empty" },
        { field: "name", message: "cannot be empty." },
      ],
      message:
        "POST /items: 400 Invalid request: identifier cannot be empty: identifier: cannot be empty; name: cannot be empty. (correlation corr-1)",
    });
  });

  it("reads one line of an HTML error page (an edge proxy's 429)", async () => {
    srv.script((_req, res) =>
      res
        .writeHead(429, { "content-type": "text/html" })
        .end("<html><head><style>p{}</style></head><body><h1>Too many</h1> requests</body></html>"),
    );
    const p = makeCore(srv.url, { maxRetries: 0 }).request(getItem, { id: "a" });
    await expect(p).rejects.toBeInstanceOf(RateLimitError);
    await expect(p).rejects.toMatchObject({ status: 429, message: "GET /items/a: 429 Too many requests" });
  });
});

describe("credentials never leak", () => {
  it("redacts the key from messages, bodies, JSON and inspection even when the server echoes it", async () => {
    srv.script((req, res) =>
      json(res, 401, {
        code: 401,
        message: `bad key ${req.headers.authorization}`,
        details: `${req.headers.authorization}`,
        transactionId: "t",
      }),
    );
    const core = makeCore(srv.url);
    const err = await core.request(getItem, { id: "a" }).then(
      () => undefined,
      (e: unknown) => e as ApiError,
    );
    expect(err).toBeInstanceOf(ApiError);
    expect(err!.message).toBe(
      "GET /items/a: 401 bad key Bearer *** (check apiKey) (Bearer ***) (transaction t)",
    );
    for (const text of [
      err!.message,
      JSON.stringify(err),
      inspect(err, { depth: 10 }),
      JSON.stringify(err!.body),
      JSON.stringify(core),
      inspect(core, { depth: 10 }),
    ]) {
      expect(text).not.toContain(KEY);
    }
  });

  it("keeps the secrets a route's schemas declare, and a call's own, out of its errors", async () => {
    const VALUE = "correct horse battery staple";
    const Sent = z.object({ name: z.string(), spec: z.object({ value: secretField(z.string()) }) });
    const Answer = z.object({ id: z.string(), token: z.string(), pin: secretField(z.string()) });
    const postSecret = route("POST /secrets", Answer, { request: Sent });
    expect([postSecret.secretRequestPaths, postSecret.secretFields]).toEqual([
      [["spec", "value"]],
      ["pin", "value"],
    ]);
    srv.script((_req, res, body) =>
      json(res, 400, {
        code: 400,
        message: `refused ${VALUE.slice(2, 20)} and ${JSON.parse(body).extra}`,
        details: `"pin": "1234"`,
        echo: { ...JSON.parse(body), pin: "1234" },
      }),
    );
    const err = (await makeCore(srv.url)
      .request(
        postSecret,
        {},
        {
          body: { name: "db", spec: { value: VALUE }, extra: "other-secret-1" },
          secrets: ["other-secret-1", undefined],
        },
      )
      .catch((e: unknown) => e)) as ApiError;
    expect(err.message).toBe('POST /secrets: 400 refused *** and *** ("pin": "***")');
    expect(err.body).toEqual({
      code: 400,
      message: "refused *** and ***",
      details: '"pin": "***"',
      echo: { name: "db", spec: { value: "***" }, extra: "***", pin: "***" },
    });
    for (const text of [JSON.stringify(err), inspect(err, { depth: 10 }), String(err)]) {
      expect(text).not.toContain("horse");
      expect(text).not.toContain("other-secret");
      expect(text).not.toContain("1234");
    }
    // a 2xx that fails validation: the answer's secret field is not kept in the error's body
    srv.script((_req, res) => json(res, 200, { id: "s1", pin: "98765" }));
    const bad = (await makeCore(srv.url)
      .request(postSecret, {}, { body: { name: "db", spec: { value: VALUE } } })
      .catch((e: unknown) => e)) as ApiError;
    expect(bad).toBeInstanceOf(ValidationError);
    expect(bad.body).toEqual({ id: "s1", pin: "***" });
  });

  it("keeps a new API key out of a 500 to the route that mints it: in the message, a JSON details string and the body's fields", async () => {
    const NEW = "sdk-3b1f6e0c-9d2a-47f8-b5e4-c1a09d8e7f6a";
    srv.script((_req, res) =>
      json(res, 500, {
        code: 500,
        message: `made key ${NEW} for checkout-server (${NEW.slice(4, 26)}...) but could not record it`,
        details: JSON.stringify({ id: "k-1", name: "checkout-server", apiKey: { key: NEW } }),
        answer: { id: "k-1", key: NEW },
        transactionId: "t",
      }),
    );
    const err = (await makeCore(srv.url)
      .request(apiKeyEndpoints.create, {}, { body: { name: "checkout-server", apiKeyType: "server_side" } })
      .catch((e: unknown) => e)) as ApiError;
    expect(err).toBeInstanceOf(ApiError);
    expect(err.outcomeUnknown).toBe(true);
    expect(err.message).toBe(
      "POST /internal/api/v2/apiKeys: 500 made key *** for checkout-server (***...) but could not record it " +
        '({"id":"k-1","name":"checkout-server","apiKey":{"key":"***"}}) (transaction t)',
    );
    expect(err.body).toEqual({
      code: 500,
      message: "made key *** for checkout-server (***...) but could not record it",
      details: '{"id":"k-1","name":"checkout-server","apiKey":{"key":"***"}}',
      answer: { id: "k-1", key: "***" },
      transactionId: "t",
    });
    const fragments = Array.from({ length: NEW.length - 11 }, (_, i) => NEW.slice(i, i + 12));
    for (const text of [
      err.message,
      err.apiMessage,
      String(err.details),
      JSON.stringify(err.body),
      JSON.stringify(err),
      inspect(err, { depth: 10, showHidden: true }),
      String(err.stack),
      String(err.cause),
    ]) {
      expect(fragments.filter((f) => text.includes(f))).toEqual([]);
    }
  });

  it("keeps the key out of network errors", async () => {
    const core = makeCore(`http://127.0.0.1:${await freePort()}`, { maxRetries: 0 });
    const err = await core.request(getItem, { id: "a" }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NetworkError);
    expect(JSON.stringify(err)).not.toContain(KEY);
    expect(inspect(err, { depth: 10 })).not.toContain(KEY);
  });
});

describe("retries", () => {
  const events: RetryEvent[] = [];
  const core = (extra: CommonOptions = {}) => makeCore(srv.url, extra, { onRetry: (e) => events.push(e) });
  afterEach(() => {
    events.length = 0;
  });

  it.each([429, 500, 502, 503, 504])("retries a GET after %i and succeeds", async (status) => {
    srv.script((_req, res, _b, n) =>
      n < 2 ? json(res, status, { code: status, message: "busy" }) : json(res, 200, { id: "a", n }),
    );
    await expect(core().request(getItem, { id: "a" })).resolves.toEqual({ id: "a", n: 2 });
    expect(srv.requests).toHaveLength(3);
    expect(events.map((e) => [e.attempt, e.reason])).toEqual([
      [1, String(status)],
      [2, String(status)],
    ]);
  });

  it("retries PUT and DELETE after a reset (socket destroyed) and succeeds", async () => {
    srv.script((req, res, _b, n) =>
      n % 2 === 0
        ? req.socket.destroy()
        : req.method === "DELETE"
          ? json(res, 200, true)
          : json(res, 200, { id: "a", n }),
    );
    await expect(core().request(putItem, { id: "a" }, { body: { n: 1 } })).resolves.toEqual({
      id: "a",
      n: 1,
    });
    await expect(core().request(deleteItem, { id: "a" })).resolves.toBe(true);
    expect(srv.requests.map((r) => r.method)).toEqual(["PUT", "PUT", "DELETE", "DELETE"]);
    expect(events.map((e) => e.reason)).toEqual(["UND_ERR_SOCKET", "UND_ERR_SOCKET"]);
  });

  it("a DELETE retried after a lost response that finds the object gone returns the gone value", async () => {
    srv.script((req, res, _b, n) =>
      n === 0 ? req.socket.destroy() : json(res, 404, { code: 404, message: "no such item" }),
    );
    await expect(core().request(deleteGone, { id: "a" })).resolves.toBe(true);
    expect(srv.requests).toHaveLength(2);
  });

  it.each([
    ["on the first attempt", (_n: number) => 404],
    ["after a 503 (which deleted nothing)", (n: number) => (n === 0 ? 503 : 404)],
  ])("a DELETE's not-found %s is still a NotFoundError", async (_name, statusOf) => {
    srv.script((_req, res, _b, n) => json(res, statusOf(n), { code: statusOf(n), message: "no such item" }));
    await expect(core().request(deleteGone, { id: "a" })).rejects.toBeInstanceOf(NotFoundError);
  });

  it("retries a read-only POST (a list with a filter body) after a reset and a 503, as a GET", async () => {
    const listByPost = route("POST /items/list", z.object({ items: z.array(Item) }), { readOnly: true });
    srv.script((req, res, _b, n) =>
      n === 0
        ? req.socket.destroy()
        : n === 1
          ? json(res, 503, { code: 503, message: "busy" })
          : json(res, 200, { items: [] }),
    );
    await expect(core().request(listByPost, {}, { body: { filterType: "x" } })).resolves.toEqual({
      items: [],
    });
    expect(srv.requests.map((r) => `${r.method} ${r.url}`)).toEqual([
      "POST /items/list",
      "POST /items/list",
      "POST /items/list",
    ]);
    expect(events.map((e) => e.reason)).toEqual(["UND_ERR_SOCKET", "503"]);
  });

  it("tells its write watchers of a POST, but not of a read-only POST (a list that keeps the lists)", async () => {
    const listByPost = route("POST /items/list", z.object({ items: z.array(Item) }), { readOnly: true });
    srv.script((_req, res) => json(res, 200, { items: [] }));
    const c = core();
    const seen: string[] = [];
    const stop = c.watchWrites(() => seen.push("write"));
    try {
      await c.request(listByPost, {}, { body: { filterType: "x" } });
      expect(seen).toEqual([]);
      srv.script((_req, res) => json(res, 200, { id: "i1", n: 1 }));
      await c.request(postItem, {}, { body: { n: 1 } }).catch(() => undefined);
      expect(seen).toEqual(["write", "write"]);
    } finally {
      stop();
    }
  });

  it("never retries a POST whose connection was reset after sending: outcome unknown", async () => {
    srv.script((req) => req.socket.destroy());
    const p = core().request(postItem, {}, { body: { n: 1 } });
    await expect(p).rejects.toBeInstanceOf(NetworkError);
    await expect(p).rejects.toMatchObject({
      status: 0,
      outcomeUnknown: true,
      errorCode: "UND_ERR_SOCKET",
      attempts: 1,
      message:
        "POST /items: network error: connection closed by the server; the request may have reached the server, so its outcome is unknown and it was not retried",
    });
    expect(srv.requests).toHaveLength(1);
  });

  it("never retries a PATCH after a reset either", async () => {
    srv.script((req) => req.socket.destroy());
    await expect(core().request(patchItem, { id: "a" }, { body: [] })).rejects.toMatchObject({
      kind: "network",
      outcomeUnknown: true,
    });
    expect(srv.requests).toHaveLength(1);
  });

  it("retries a POST after a 429: the API refused it before acting", async () => {
    srv.script((_req, res, _b, n) =>
      n === 0
        ? json(res, 429, { code: 429, message: "slow down" }, { "retry-after": "0" })
        : json(res, 201, { id: "a", n }),
    );
    await expect(core().request(postItem, {}, { body: { n: 1 } })).resolves.toEqual({ id: "a", n: 1 });
    expect(srv.requests.map((r) => r.body)).toEqual(['{"n":1}', '{"n":1}']);
  });

  it.each([
    [503, false],
    [502, true],
    [500, true],
    [504, true],
  ])("does not retry a POST after %i (outcomeUnknown %s)", async (status, unknown) => {
    srv.script((_req, res) => json(res, status, { code: status, message: "oops" }));
    await expect(core().request(postItem, {}, { body: {} })).rejects.toMatchObject({
      kind: "api",
      status,
      outcomeUnknown: unknown,
      attempts: 1,
    });
    expect(srv.requests).toHaveLength(1);
  });

  it("retries a POST whose connection was refused (nothing was sent)", async () => {
    const port = await freePort();
    let late: Promise<ScriptedServer> | undefined;
    const refused: RetryEvent[] = [];
    const c = makeCore(
      `http://127.0.0.1:${port}`,
      { retryBaseDelayMs: 50 },
      {
        onRetry: (e) => {
          refused.push(e);
          // the port starts listening once the first attempt has been refused
          late ??= scriptedServer(
            (_req, res, body) => json(res, 201, { ...JSON.parse(body), id: "late" }),
            port,
          );
        },
      },
    );
    await expect(c.request(postItem, {}, { body: { n: 3 } })).resolves.toEqual({ id: "late", n: 3 });
    expect(refused[0]).toMatchObject({ method: "POST", path: "/items", attempt: 1, reason: "ECONNREFUSED" });
    const s = await late!;
    expect(s.requests.map((r) => r.body)).toEqual(['{"n":3}']);
    await s.close();
  });

  it("gives up after maxRetries with the attempt count in the message", async () => {
    srv.script((_req, res) => json(res, 503, { code: 503, message: "down" }));
    const p = core({ maxRetries: 2 }).request(getItem, { id: "a" });
    await expect(p).rejects.toMatchObject({
      status: 503,
      attempts: 3,
      message: "GET /items/a: 503 down [after 3 attempts]",
    });
    expect(srv.requests).toHaveLength(3);
  });

  it("maxRetries 0 disables retrying", async () => {
    srv.script((_req, res) => json(res, 503, { code: 503, message: "down" }));
    await expect(core({ maxRetries: 0 }).request(getItem, { id: "a" })).rejects.toMatchObject({
      status: 503,
      attempts: 1,
    });
    expect(srv.requests).toHaveLength(1);
  });

  it("waits the larger of X-RateLimit-Reset-Seconds-Org and -IP on a 429", async () => {
    srv.script((_req, res, _b, n) =>
      n === 0
        ? json(
            res,
            429,
            { code: 429, message: "rate limited" },
            {
              "x-ratelimit-reset-seconds-org": "0.15",
              "x-ratelimit-reset-seconds-ip": "0.4",
              "retry-after": "5",
            },
          )
        : json(res, 200, { id: "a", n }),
    );
    await core().request(getItem, { id: "a" });
    const gap = srv.requests[1]!.at - srv.requests[0]!.at;
    expect(gap).toBeGreaterThanOrEqual(395);
    expect(gap).toBeLessThan(1500);
    expect(events.map((e) => e.delayMs)).toEqual([400]);
  });

  it("falls back to Retry-After when the reset headers are zero", async () => {
    srv.script((_req, res, _b, n) =>
      n === 0
        ? json(
            res,
            429,
            { code: 429, message: "rate limited" },
            { "x-ratelimit-reset-seconds-org": "0", "x-ratelimit-reset-seconds-ip": "0", "retry-after": "1" },
          )
        : json(res, 200, { id: "a", n }),
    );
    await core().request(getItem, { id: "a" });
    expect(events.map((e) => e.delayMs)).toEqual([1000]);
    expect(srv.requests[1]!.at - srv.requests[0]!.at).toBeGreaterThanOrEqual(995);
  });

  it("stops when the advised wait exceeds the retry budget, reporting the wait", async () => {
    srv.script((_req, res) =>
      json(res, 429, { code: 429, message: "rate limited" }, { "x-ratelimit-reset-seconds-org": "30" }),
    );
    // its own base path, hence its own limiter: the 30 s pause must not hold up the other tests
    const p = makeCore(`${srv.url}/budget`, { retryBudgetMs: 1000 }).request(getItem, { id: "a" });
    await expect(p).rejects.toBeInstanceOf(RateLimitError);
    await expect(p).rejects.toMatchObject({
      retryAfterMs: 30_000,
      attempts: 1,
      message: "GET /budget/items/a: 429 rate limited",
    });
    expect(srv.requests).toHaveLength(1);
  });

  it("pauses every request to the base URL on a 429 for the time it advises, not only the one that got it", async () => {
    // The pause is the limiter's clock (setTimeout, performance.now()): faked, so the test says
    // exactly when the requests go; the sockets stay real.
    const realNow = performance.now();
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "performance"] });
    try {
      // The origin's shared limiters keep times of performance.now(): the fake clock goes on from the real one.
      vi.advanceTimersByTime(Math.ceil(realNow));
      const t0 = performance.now();
      const c1 = core();
      const c2 = makeCore(srv.url, { maxConcurrent: 3 }); // another client, other settings, same origin
      srv.script((_req, res, _b, n) => {
        if (n === 0)
          json(res, 429, { code: 429, message: "rate limited" }, { "x-ratelimit-reset-seconds-ip": "0.3" });
        else json(res, 200, { id: "a", n });
      });
      const first = c1.request(getItem, { id: "a" });
      // The 429 is back (the retry is announced): the origin is paused for 300 ms from now.
      for (let i = 0; i < 500 && events.length === 0; i++) await sleepReal(10);
      expect(events.map((e) => `${e.method} ${e.reason} ${e.delayMs}`)).toEqual(["GET 429 300"]);
      const second = c2.request(getItem, { id: "b" });
      await vi.advanceTimersByTimeAsync(299);
      await sleepReal(100);
      expect(srv.requests.map((r) => [r.url, r.at - t0])).toEqual([["/items/a", 0]]);
      await vi.advanceTimersByTimeAsync(1);
      await Promise.all([first, second]);
      expect(srv.requests.map((r) => [r.url, r.at - t0]).sort()).toEqual([
        ["/items/a", 0],
        ["/items/a", 300],
        ["/items/b", 300],
      ]);
    } finally {
      vi.useRealTimers();
    }
  });

  it("times out a request that gets no answer; a GET is retried, a POST is not", async () => {
    srv.script((_req, res, _b, n) => (n === 0 ? undefined : json(res, 200, { id: "a", n })));
    await expect(core({ timeoutMs: 150 }).request(getItem, { id: "a" })).resolves.toEqual({ id: "a", n: 1 });
    expect(events.map((e) => e.reason)).toEqual(["UND_ERR_HEADERS_TIMEOUT"]);
    srv.requests.length = 0;
    srv.script(() => undefined);
    await expect(core({ timeoutMs: 150 }).request(postItem, {}, { body: {} })).rejects.toMatchObject({
      kind: "network",
      errorCode: "UND_ERR_HEADERS_TIMEOUT",
      outcomeUnknown: true,
      message:
        "POST /items: network error: timed out waiting for the response; the request may have reached the server, so its outcome is unknown and it was not retried",
    });
    expect(srv.requests).toHaveLength(1);
  });

  it("an aborted call fails with a NetworkError and is not retried", async () => {
    srv.script(() => undefined);
    const ac = new AbortController();
    const p = core().request(getItem, { id: "a" }, { signal: ac.signal });
    setTimeout(() => ac.abort(), 50);
    await expect(p).rejects.toMatchObject({
      kind: "network",
      message: "GET /items/a: network error: aborted",
    });
  });
});
