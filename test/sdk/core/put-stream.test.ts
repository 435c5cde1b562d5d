/**
 * `HttpCore.putStream` (a file sent to the address an answer gave, as a large segment's upload to
 * its `transactionMetadata.url`) against a scripted server on another origin than the API's: the
 * exact bytes and headers received, no credential sent, the body streamed afresh on a retry, and
 * an error that shows neither the key nor the address's query (its signature).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { ApiError, ValidationError } from "../../../sdk/core/errors";
import { resolveCommonOptions } from "../../../sdk/core/options";
import { closeSharedPools } from "../../../sdk/core/pool";
import { HttpCore } from "../../../sdk/core/request";
import { json, type ScriptedServer, scriptedServer } from "../helpers/scripted-server";

const KEY = "sentinel-key-7f3a9c1e5b";
const SIGNATURE = "X-Signature=plainsignaturevalue";

/** A core whose API is elsewhere (port 9, nothing listens): the upload address is the only origin used. */
function makeCore(): HttpCore {
  const options = resolveCommonOptions(
    {
      baseUrl: "http://127.0.0.1:9",
      requestsPerSecond: Infinity,
      retryBaseDelayMs: 5,
      retryMaxDelayMs: 20,
      env: {},
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
  return new HttpCore({ options, auth: ["x-api-key", KEY], authHint: "check apiKey" });
}

/** A file of `n` chunks `line-<i>\n`, and how many times its stream was made. */
function file(n: number) {
  const made = { count: 0 };
  const text = Array.from({ length: n }, (_, i) => `line-${i}\n`).join("");
  return {
    made,
    text,
    file: {
      length: Buffer.byteLength(text),
      contentType: "text/csv",
      async *chunks() {
        made.count++;
        for (let i = 0; i < n; i++) yield Buffer.from(`line-${i}\n`);
      },
    },
  };
}

let srv: ScriptedServer;
beforeAll(async () => {
  srv = await scriptedServer((_req, res) => {
    res.writeHead(200);
    res.end();
  });
});
afterEach(() => {
  srv.requests.length = 0;
});
afterAll(async () => {
  await srv.close();
  await closeSharedPools();
});

describe("HttpCore.putStream", () => {
  it("PUTs the streamed bytes with their length and the given Host, and no credential", async () => {
    const { file: f, text } = file(3);
    const status = await makeCore().putStream(`${srv.url}/uploads/t1?${SIGNATURE}`, f, {
      headers: { host: new URL(srv.url).host },
    });
    expect(status).toBe(200);
    expect(srv.requests).toHaveLength(1);
    const [r] = srv.requests;
    expect(r).toMatchObject({ method: "PUT", url: `/uploads/t1?${SIGNATURE}`, body: text });
    expect(r!.headers["content-length"]).toBe(String(Buffer.byteLength(text)));
    expect(r!.headers["content-type"]).toBe("text/csv");
    expect(r!.headers.host).toBe(new URL(srv.url).host);
    expect(r!.headers["x-api-key"]).toBeUndefined();
    expect(r!.headers.authorization).toBeUndefined();
  });

  it("streams the body afresh for a retry after a 503", async () => {
    srv.script((_req, res, _body, n) => {
      if (n === 0) json(res, 503, { message: "busy" });
      else {
        res.writeHead(200);
        res.end();
      }
    });
    const { file: f, text, made } = file(1000);
    expect(await makeCore().putStream(`${srv.url}/uploads/t2`, f)).toBe(200);
    expect(srv.requests.map((r) => r.body === text)).toEqual([true, true]);
    expect(made.count).toBe(2);
  });

  it("an answered failure is a typed error showing neither the key nor the address's query", async () => {
    srv.script((_req, res) =>
      json(res, 403, { message: `signature plainsignaturevalue expired for ${KEY}` }),
    );
    const e = await makeCore()
      .putStream(`${srv.url}/uploads/t3?${SIGNATURE}`, file(1).file)
      .catch((x: unknown) => x);
    expect(ApiError.isInstance(e)).toBe(true);
    expect((e as ApiError).status).toBe(403);
    expect((e as ApiError).url).toBe(`${srv.url}/uploads/t3`);
    const shown = JSON.stringify(e) + String((e as Error).message);
    expect(shown).not.toContain("plainsignaturevalue");
    expect(shown).not.toContain(KEY);
    expect(srv.requests).toHaveLength(1);
  });

  it("refuses an address that is not http(s), before sending", async () => {
    const e = await makeCore()
      .putStream("ftp://example.invalid/x", file(1).file)
      .catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ValidationError);
    expect((e as ValidationError).fieldErrors).toEqual([
      { field: "transactionMetadata.url", message: "must be an http(s) URL" },
    ]);
  });
});
