/**
 * Multipart bodies in the HTTP core (`sdk/core/multipart.ts`, `request.ts`) against a scripted
 * server: the exact parts the server receives, the same bytes on a retry, the file part kept out
 * of an error whose answer echoes it, and a body that is not a form refused before sending.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { ValidationError } from "../../../sdk/core/errors";
import { resolveCommonOptions } from "../../../sdk/core/options";
import { closeSharedPools } from "../../../sdk/core/pool";
import { HttpCore } from "../../../sdk/core/request";
import { route } from "../../../sdk/core/route";
import { json, type ScriptedServer, scriptedServer } from "../helpers/scripted-server";

const KEY = "sentinel-key-7f3a9c1e5b";
const CONTENT = "-----BEGIN KEY-----\nMultipart-Sentinel-4b1d9e\n-----END KEY-----\n";

const Ok = z.object({ ok: z.boolean() });
const postFile = route("POST /files", Ok, { body: "multipart" });
const putFile = route("PUT /files/{id}", Ok, { body: "multipart" });

function makeCore(url: string): HttpCore {
  const options = resolveCommonOptions(
    { baseUrl: url, requestsPerSecond: Infinity, retryBaseDelayMs: 5, retryMaxDelayMs: 20, env: {} },
    KEY,
    {
      client: "TestClient",
      urlEnv: "T_URL",
      keyOption: "apiKey",
      keyEnv: "T_KEY",
      defaultRequestsPerSecond: 10,
    },
  );
  return new HttpCore({ options, auth: ["x-api-key", KEY], authHint: "check apiKey" });
}

function form(content: string | null): FormData {
  const f = new FormData();
  f.append("spec", JSON.stringify({ secret: { type: "SecretFile", identifier: "cert" } }));
  if (content !== null) f.append("file", new Blob([content], { type: "application/octet-stream" }), "cert");
  return f;
}

/** The parts of a raw multipart body: each part's header lines and its content. */
function parts(contentType: string | undefined, body: string): { headers: string[]; content: string }[] {
  const boundary = /boundary=(.+)$/.exec(contentType ?? "")?.[1];
  if (boundary === undefined) throw new Error(`no boundary in ${contentType}`);
  const chunks = body.split(`--${boundary}`);
  expect(chunks[0]).toBe("");
  expect(chunks.at(-1)).toBe("--\r\n");
  return chunks.slice(1, -1).map((chunk) => {
    const [head, ...rest] = chunk.slice(2, -2).split("\r\n\r\n");
    return { headers: head!.split("\r\n"), content: rest.join("\r\n\r\n") };
  });
}

let srv: ScriptedServer;
beforeAll(async () => {
  srv = await scriptedServer((_req, res) => json(res, 200, { ok: true }));
});
afterEach(() => {
  srv.requests.length = 0;
});
afterAll(async () => {
  await srv.close();
  await closeSharedPools();
});

describe("multipart bodies", () => {
  it("sends a FormData as multipart/form-data: the spec field, then the file part, with its length", async () => {
    srv.script((_req, res) => json(res, 200, { ok: true }));
    expect(await makeCore(srv.url).request(postFile, {}, { body: form(CONTENT), query: { a: "1" } })).toEqual(
      {
        ok: true,
      },
    );
    expect(srv.requests).toHaveLength(1);
    const r = srv.requests[0]!;
    expect([r.method, r.url, r.headers["x-api-key"], r.headers.accept]).toEqual([
      "POST",
      "/files?a=1",
      KEY,
      "application/json",
    ]);
    expect(r.headers["content-type"]).toMatch(/^multipart\/form-data; boundary=\S+$/);
    expect(Number(r.headers["content-length"])).toBe(Buffer.byteLength(r.body));
    expect(parts(r.headers["content-type"], r.body)).toEqual([
      {
        headers: ['Content-Disposition: form-data; name="spec"'],
        content: '{"secret":{"type":"SecretFile","identifier":"cert"}}',
      },
      {
        headers: [
          'Content-Disposition: form-data; name="file"; filename="cert"',
          "Content-Type: application/octet-stream",
        ],
        content: CONTENT,
      },
    ]);
  });

  it("sends a form without a file part as it is", async () => {
    await makeCore(srv.url).request(putFile, { id: "cert" }, { body: form(null) });
    const r = srv.requests[0]!;
    expect(parts(r.headers["content-type"], r.body).map((p) => p.headers[0])).toEqual([
      'Content-Disposition: form-data; name="spec"',
    ]);
  });

  it("resends the same bytes when an idempotent PUT is retried after a 503", async () => {
    srv.script((_req, res, _body, n) =>
      json(res, n === 0 ? 503 : 200, n === 0 ? { message: "down" } : { ok: true }),
    );
    expect(await makeCore(srv.url).request(putFile, { id: "cert" }, { body: form(CONTENT) })).toEqual({
      ok: true,
    });
    expect(srv.requests.map((r) => `${r.method} ${r.url}`)).toEqual(["PUT /files/cert", "PUT /files/cert"]);
    const [a, b] = srv.requests;
    expect([b!.headers["content-type"], b!.body]).toEqual([a!.headers["content-type"], a!.body]);
    expect(b!.body).toContain(CONTENT);
  });

  it("keeps the file part out of an error whose answer echoes it, whole or in part", async () => {
    srv.script((_req, res) =>
      json(res, 400, {
        status: "ERROR",
        code: "INVALID_REQUEST",
        message: `bad file: ${CONTENT}`,
        detail: CONTENT.slice(20, 45),
      }),
    );
    const err = await makeCore(srv.url)
      .request(postFile, {}, { body: form(CONTENT) })
      .catch((e: unknown) => e);
    // the answer is redacted as JSON text too, where the content is escaped (its newlines as `\n`):
    // the escaped form is searched for as well, so the whole echo goes as one
    expect(err).toMatchObject({ status: 400, message: "POST /files: 400 bad file: ***" });
    const everything = `${String(err)} ${JSON.stringify(err)} ${(err as Error).stack}`;
    expect(everything).not.toContain("Multipart-Sentinel");
    expect(everything).not.toContain(CONTENT.slice(20, 45));
  });

  it("refuses a body that is not a FormData before sending, naming the body", async () => {
    const err = await makeCore(srv.url)
      .request(postFile, {}, { body: { file: CONTENT } })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ValidationError);
    expect(err).toMatchObject({
      status: 0,
      fieldErrors: [{ field: "(body)", message: "a multipart route's body must be a FormData" }],
    });
    expect(JSON.stringify(err)).not.toContain("Multipart-Sentinel");
    expect(srv.requests).toHaveLength(0);
  });
});
