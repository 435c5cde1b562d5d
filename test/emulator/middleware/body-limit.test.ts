/**
 * Body limits (issue 14): the limit of each API, a declared `Content-Length` above it refused
 * before the body is read, and the in-process path (`app.request()` with a streamed body).
 * Chunked 200 MB bodies against a real server are in `test/reliability/emulator-body-limits.test.ts`.
 */
import { request } from "node:http";
import { Hono } from "hono";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Emulator } from "../../../emulator";
import type { AppEnv } from "../../../emulator/context";
import { BODY_LIMITS, bodyLimit } from "../../../emulator/middleware/body-limit";
import { adminError, start } from "../helpers";

let emu: Emulator;
beforeAll(async () => {
  ({ emu } = await start());
});
afterAll(() => emu.stop());

/** Sends headers declaring `declared` bytes and only a few of them; resolves with the answer. */
function declaredOnly(path: string, declared: number, headers: Record<string, string>) {
  const { hostname, port } = new URL(emu.url);
  // biome-ignore lint/suspicious/noExplicitAny: the error body is compared whole.
  return new Promise<{ status: number; body: any }>((resolve, reject) => {
    const req = request(
      {
        host: hostname,
        port,
        method: "POST",
        path,
        headers: { ...headers, "content-length": String(declared) },
      },
      (res) => {
        const parts: Buffer[] = [];
        res.on("data", (d: Buffer) => parts.push(d));
        res.on("end", () => {
          resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(parts).toString("utf8")) });
          req.destroy();
        });
      },
    );
    req.on("error", (e) => reject(e));
    req.write("{");
  });
}

describe("body limits", () => {
  it("are 10 MiB for the admin API, 32 MiB for events and SDK routes, 5 MiB for the platform, 1 MiB for control routes", () => {
    expect(BODY_LIMITS).toEqual({
      admin: 10_485_760,
      events: 33_554_432,
      sdk: 33_554_432,
      platform: 5_242_880,
      emulator: 1_048_576,
    });
  });

  it("refuses a declared Content-Length above the admin limit before reading the body", async () => {
    const r = await declaredOnly("/internal/api/v2/groups", 20 * 1024 * 1024, {
      authorization: `Bearer ${emu.adminKey}`,
      "content-type": "application/json",
    });
    expect(r).toEqual({
      status: 413,
      body: adminError(413, "body: at most 10485760 bytes per request, got 20971520"),
    });
  });

  it("refuses a declared Content-Length above the platform limit with a FailureDTO naming the body", async () => {
    const r = await declaredOnly(`/ng/api/projects?accountIdentifier=${emu.accountId}`, 6 * 1024 * 1024, {
      "x-api-key": emu.platformKey,
      "content-type": "application/json",
    });
    const message = "body: at most 5242880 bytes per request, got 6291456";
    expect(r).toEqual({
      status: 413,
      body: {
        status: "FAILURE",
        code: "INVALID_REQUEST",
        message,
        correlationId: expect.stringMatching(/^[0-9a-z]{11}$/),
        errors: [{ fieldId: "body", error: message }],
      },
    });
  });

  describe("in process (app.request with a streamed body)", () => {
    const app = new Hono<AppEnv>();
    app.use("*", async (c, next) => {
      c.set("api", "admin");
      c.set("transactionId", "txinprocess");
      await next();
    });
    app.use("*", bodyLimit({ admin: 10, events: 10, sdk: 10, platform: 10, emulator: 10 }));
    app.post("/echo", async (c) => c.text(await c.req.text()));
    const streamed = (text: string) =>
      app.request("/echo", {
        method: "POST",
        body: new ReadableStream({
          start(controller) {
            for (const ch of text) controller.enqueue(new TextEncoder().encode(ch));
            controller.close();
          },
        }),
        duplex: "half",
      } as RequestInit);

    it("hands a body within the limit to the route", async () => {
      const r = await streamed("0123456789");
      expect(r.status).toBe(200);
      expect(await r.text()).toBe("0123456789");
    });

    it("stops a body at the first byte past the limit with 413", async () => {
      const r = await streamed("0123456789X");
      expect(r.status).toBe(413);
      expect(await r.json()).toEqual({
        code: 413,
        message: "body: at most 10 bytes per request, got more (a chunked body, stopped there)",
        details: "",
        transactionId: "txinprocess",
      });
    });
  });
});
