/**
 * No credential in any error the SDK throws (issue 14, group 6): not in the message, stack, JSON,
 * `util.inspect` output, `body`, field errors or `cause` chain, whatever a server echoes back.
 *
 * A plain HTTP server on 127.0.0.1 answers each case with a scripted response that echoes
 * credentials in every way a careless server or proxy might: the client's key whole or cut, the
 * `Authorization` and `x-api-key` headers, a `Bearer` token that is not the client's, new SDK keys
 * in `apiTokens`, inside a 2xx body that fails validation (kept as `ValidationError.body`), a
 * non-JSON body, an HTML page. Each case counts the requests that reached the server.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { inspect } from "node:util";
import { Agent, type Dispatcher } from "undici";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { AdminClient, ApiError, EventsClient, PlatformClient, ValidationError } from "../../sdk";

const ADMIN_KEY = "adm-LEAKCANARY-4f1c9e2a7b3d5068a1f2e3d4c5b6a798";
const PLATFORM_KEY = "pat.acct_leak.LEAKCANARY9c8b7a6f5e4d.LEAKCANARY0a1b2c3d4e5f";
const SDK_KEY = "sdk-LEAKCANARY-0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e";
/** A token of somebody else that a server echoes: not the client's key, still a credential. */
const OTHER_TOKEN = "otherLEAKCANARYtoken0123456789abcdef";
/** Every credential above contains it: searching for it finds any of them, whole or cut. */
const CANARY = "LEAKCANARY";

type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void;
let server: Server;
let url: string;
let handler: Handler;
let received = 0;

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => {
      body += c.toString("utf8");
    });
    req.on("end", () => {
      received++;
      handler(req, res, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});
beforeEach(() => {
  received = 0;
});

const opts = () => ({ baseUrl: url, requestsPerSecond: Number.POSITIVE_INFINITY, maxRetries: 0 });
const admin = () => new AdminClient({ ...opts(), apiKey: ADMIN_KEY });
const platform = () => new PlatformClient({ ...opts(), apiKey: PLATFORM_KEY, accountId: "acct_leak" });
const events = () => new EventsClient({ ...opts(), sdkKey: SDK_KEY });

function reply(status: number, body: unknown, type = "application/json"): Handler {
  return (_req, res) => {
    res.writeHead(status, { "content-type": type });
    res.end(typeof body === "string" ? body : JSON.stringify(body));
  };
}

/** Every way an error may be shown, written or walked. */
function renderings(e: ApiError): Record<string, string> {
  const causes: string[] = [];
  for (let c: unknown = e.cause; c !== undefined && c !== null; c = (c as { cause?: unknown }).cause) {
    causes.push(inspect(c, { depth: 12, showHidden: true, getters: true }));
    if (!(c instanceof Error)) break;
  }
  return {
    message: e.message,
    stack: e.stack ?? "",
    string: String(e),
    json: JSON.stringify(e),
    inspect: inspect(e, { depth: 12, showHidden: true, getters: true }),
    body: JSON.stringify(e.body) ?? "",
    fieldErrors: JSON.stringify(e.fieldErrors),
    details: e.details ?? "",
    apiMessage: e.apiMessage,
    causes: causes.join("\n"),
  };
}

/** The error of `p`, checked to show no credential anywhere. */
async function cleanError(p: Promise<unknown>): Promise<ApiError> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(ApiError.isInstance(e), `expected an ApiError, got ${String(e)}`).toBe(true);
  for (const [where, text] of Object.entries(renderings(e as ApiError))) {
    const at = text.indexOf(CANARY);
    expect(at < 0 ? "" : text.slice(Math.max(0, at - 80), at + 40), `${where} shows a credential`).toBe("");
  }
  return e as ApiError;
}

describe("bodies echoed back by a server", () => {
  it("a 200 whose body echoes the admin key and fails validation keeps no key in ValidationError.body", async () => {
    handler = (req, res) =>
      reply(200, {
        id: "g1",
        name: `echo ${req.headers.authorization}`,
        description: String(req.headers.authorization).slice(7),
        headers: { authorization: req.headers.authorization, "x-request": "r1" },
      })(req, res, "");
    const e = await cleanError(admin().groups.get("g1"));
    expect(e).toBeInstanceOf(ValidationError);
    expect(received).toBe(1);
    expect(e.message).toBe(
      'GET /internal/api/v2/groups/g1: 200 the response body does not match the expected shape: type: Invalid input: expected "group"',
    );
    expect(e.body).toEqual({
      id: "g1",
      name: "echo Bearer ***",
      description: "***",
      headers: { authorization: "***", "x-request": "r1" },
    });
  });

  it("a 200 with a body that is not JSON echoing the key keeps no key in ValidationError.body", async () => {
    handler = (req, res) =>
      reply(200, `<html>hello ${req.headers.authorization}</html>`, "text/html")(req, res, "");
    const e = await cleanError(admin().groups.get("g1"));
    expect(e).toBeInstanceOf(ValidationError);
    expect(e.body).toBe("<html>hello Bearer ***</html>");
    expect(received).toBe(1);
  });

  it("an environment create whose answer fails validation keeps none of the new SDK keys (apiTokens)", async () => {
    handler = reply(200, {
      id: "env1",
      name: "QA",
      apiTokens: [{ id: "k1", name: "server", type: "api_key", apiKeyType: "server_side", key: SDK_KEY }],
    });
    const e = await cleanError(admin().environments.create("ws1", { name: "QA" }));
    expect(e.message).toBe(
      "POST /internal/api/v2/environments/ws/ws1: 200 the response body does not match the expected shape: production: Invalid input: expected boolean, received undefined",
    );
    expect(e.body).toEqual({ id: "env1", name: "QA", apiTokens: "***" });
  });

  it("a 4xx echoing a cut key, a Bearer token that is not the client's and x-api-key values removes all of them", async () => {
    handler = (req, res) =>
      reply(400, {
        code: 400,
        message: `bad key ${String(req.headers.authorization).slice(11, 40)}; forwarded Authorization: Bearer ${OTHER_TOKEN}`,
        details: `x-api-key: ${PLATFORM_KEY}; token=${OTHER_TOKEN}`,
        transactionId: "t1",
      })(req, res, "");
    const e = await cleanError(admin().groups.get("g1"));
    expect(e.message).toBe(
      "GET /internal/api/v2/groups/g1: 400 bad key ***; forwarded Authorization: Bearer *** (x-api-key: ***; token=***) (transaction t1)",
    );
    expect(received).toBe(1);
  });

  it("a platform 2xx echoing x-api-key in its envelope keeps no key in ValidationError.body", async () => {
    handler = (req, res) =>
      reply(200, { status: "SUCCESS", data: { echo: req.headers["x-api-key"], token: "tok" } })(req, res, "");
    const e = await cleanError(platform().projects.get("p1"));
    expect(e).toBeInstanceOf(ValidationError);
    expect(e.body).toEqual({ status: "SUCCESS", data: { echo: "***", token: "***" } });
    expect(received).toBe(1);
  });

  it("an events 401 HTML page echoing the SDK key keeps it out of the message and body", async () => {
    handler = (req, res) =>
      reply(
        401,
        `<html><body><h1>Unauthorized</h1><p>key ${req.headers.authorization}</p></body></html>`,
        "text/html",
      )(req, res, "");
    const e = await cleanError(events().bulk([]));
    expect(e.message).toBe(
      "POST /api/events/bulk: 401 Unauthorized key Bearer *** (the events API takes a server-side or client-side SDK key, not an admin key: option sdkKey or FLAGSTACK_SDK_KEY)",
    );
    expect(received).toBe(1);
  });
});

/** A key the service makes (`POST /apiKeys` answers it once): the client never knew it. */
const NEW_KEY = "7s2kLEAKCANARYq9x1b3c5d7e9f0a2b4c6";
/** A text secret's value: prose with spaces, so no credential shape finds it, only the call's knowledge. */
const SECRET_TEXT = "correct horse LEAKCANARY battery staple";

const textSecret = (value: string) => ({
  type: "SecretText" as const,
  name: "db password",
  identifier: "db_pw",
  orgIdentifier: "default",
  spec: { secretManagerIdentifier: "harnessSecretManager", valueType: "Inline" as const, value },
});

describe("secrets the call sends or the service answers (issue 23 item 4)", () => {
  it("a new API key in a 200 that fails validation is kept out of ValidationError.body; the rest stays", async () => {
    handler = reply(200, { name: "ci", apiKeyType: "admin", roles: ["API_ALL_GRANTED"], key: NEW_KEY });
    const e = await cleanError(admin().apiKeys.create({ name: "ci", apiKeyType: "admin" }));
    expect(e).toBeInstanceOf(ValidationError);
    expect([e.status, e.message]).toEqual([
      200,
      "POST /internal/api/v2/apiKeys: 200 the response body does not match the expected shape: id: Invalid input: expected string, received undefined",
    ]);
    expect(e.body).toEqual({ name: "ci", apiKeyType: "admin", roles: ["API_ALL_GRANTED"], key: "***" });
    expect(received).toBe(1);
  });

  it("a 500 that echoes the new API key in its message, details and body keeps it nowhere", async () => {
    handler = reply(500, {
      code: 500,
      message: `api key created but not indexed: {"id":"k9","name":"ci","key":"${NEW_KEY}"}`,
      details: `key=${NEW_KEY}`,
      transactionId: "t500",
      created: { id: "k9", name: "ci", key: NEW_KEY },
    });
    const e = await cleanError(admin().apiKeys.create({ name: "ci", apiKeyType: "admin" }));
    expect([e.status, e.outcomeUnknown, e.transactionId]).toEqual([500, true, "t500"]);
    expect(e.message).toBe(
      'POST /internal/api/v2/apiKeys: 500 api key created but not indexed: {"id":"k9","name":"ci","key":"***"} (key=***) (transaction t500)',
    );
    expect((e.body as { created: unknown }).created).toEqual({ id: "k9", name: "ci", key: "***" });
    expect(received).toBe(1);
  });

  it("an environment's SDK keys echoed by a 500 to its create are kept out of the error", async () => {
    handler = reply(500, {
      code: 500,
      message: `environment QA created; tokens [{"id":"t1","key":"${SDK_KEY}"}] not indexed`,
      transactionId: "t501",
    });
    const e = await cleanError(admin().environments.create("ws1", { name: "QA" }));
    expect(e.message).toBe(
      'POST /internal/api/v2/environments/ws/ws1: 500 environment QA created; tokens [{"id":"t1","key":"***"}] not indexed (transaction t501)',
    );
  });

  it("a 400 that echoes a text Secret's value, whole, cut and in the request it quotes, keeps it nowhere", async () => {
    handler = (req, res, body) =>
      reply(400, {
        status: "ERROR",
        code: "INVALID_REQUEST",
        message: `Invalid request: value '${SECRET_TEXT}' is not allowed for ${req.method}`,
        detailedMessage: `near '${SECRET_TEXT.slice(4, 30)}'`,
        correlationId: "c400",
        request: JSON.parse(body),
      })(req, res, body);
    const e = await cleanError(platform().secrets.create(textSecret(SECRET_TEXT)));
    expect([e.status, e.code, e.correlationId]).toEqual([400, "INVALID_REQUEST", "c400"]);
    expect(e.message).toBe(
      "POST /ng/api/v2/secrets: 400 Invalid request: value '***' is not allowed for POST (near '***') (correlation c400)",
    );
    // the rest of the body stays (a member named `secret` is a credential's name: removed whole)
    expect(e.body).toEqual({
      status: "ERROR",
      code: "INVALID_REQUEST",
      message: "Invalid request: value '***' is not allowed for POST",
      detailedMessage: "near '***'",
      correlationId: "c400",
      request: { secret: "***" },
    });
    expect(received).toBe(1);
  });

  it("an update's 400 echoing a multi-line value inside a JSON text keeps none of it", async () => {
    const value = `-----BEGIN KEY-----\nMIIB "LEAKCANARY" 9c8b7a6f5e4d3c2b1a\n-----END KEY-----`;
    handler = reply(400, {
      status: "ERROR",
      code: "INVALID_REQUEST",
      message: `Invalid request: ${JSON.stringify({ value })}`,
      correlationId: "c401",
    });
    const e = await cleanError(platform().secrets.update(textSecret(value)));
    expect(e.message).toBe(
      'PUT /ng/api/v2/secrets/db_pw: 400 Invalid request: {"value":"***"} (correlation c401)',
    );
  });
});

describe("the cause chain", () => {
  it("a transport error whose message and fields hold the key is kept as a redacted copy", async () => {
    // A proxy agent that fails with the request's headers in its error, as some do.
    class LeakyProxyError extends Error {
      readonly code = "EPROXY";
      readonly headers: Record<string, string>;
      constructor(headers: Record<string, string>) {
        super(`proxy refused: authorization=${headers.authorization}`, {
          cause: new Error(`upstream saw ${headers.authorization}`),
        });
        this.name = "LeakyProxyError";
        this.headers = headers;
      }
    }
    const dispatcher = new Agent();
    const leaky = Object.assign(Object.create(dispatcher) as Dispatcher, {
      request: (o: Dispatcher.RequestOptions) => {
        received++;
        return Promise.reject(new LeakyProxyError(o.headers as Record<string, string>));
      },
    });
    const client = new AdminClient({ ...opts(), apiKey: ADMIN_KEY, dispatcher: leaky });
    const e = await cleanError(client.groups.get("g1"));
    expect(e.message).toBe(
      "GET /internal/api/v2/groups/g1: network error: proxy refused: authorization=Bearer ***",
    );
    const cause = e.cause as LeakyProxyError;
    expect(cause).toBeInstanceOf(LeakyProxyError);
    expect([cause.name, cause.code, cause.message]).toEqual([
      "LeakyProxyError",
      "EPROXY",
      "proxy refused: authorization=Bearer ***",
    ]);
    expect((cause.headers as Record<string, string>).authorization).toBe("***");
    expect((cause.cause as Error).message).toBe("upstream saw Bearer ***");
    expect(received).toBe(1);
    await dispatcher.close();
  });

  it("a clean transport error is kept as it is", async () => {
    const original = new Error("socket hang up");
    const dispatcher = new Agent();
    const failing = Object.assign(Object.create(dispatcher) as Dispatcher, {
      request: () => Promise.reject(original),
    });
    const client = new AdminClient({ ...opts(), apiKey: ADMIN_KEY, dispatcher: failing });
    const e = await cleanError(client.groups.get("g1"));
    expect(e.cause).toBe(original);
    await dispatcher.close();
  });
});
