/**
 * Request body limits, held as the bytes stream in, for every route of every API.
 *
 * A declared `Content-Length` above the limit is refused at once; one within it is left to the
 * routes (Node's HTTP parser never delivers more than the declared length). A body without one
 * (`Transfer-Encoding: chunked`, or a stream handed to `app.request()`) is read here, counting
 * bytes, and the read stops at the first byte past the limit: the client gets 413 with its API's
 * error body (`errors.ts` `payloadTooLarge`), and the rest of the body is never held in memory
 * (the node adapter discards what still arrives, then closes the connection). A chunked body
 * within the limit is handed to the routes from memory.
 * @module
 */
import type { IncomingMessage } from "node:http";
import type { MiddlewareHandler } from "hono";
import type { Api, AppEnv } from "../context";
import { payloadTooLarge } from "../errors";
import { MAX_EVENTS_BODY_BYTES } from "../events/bulk";
import { renderError } from "../http";

const MiB = 1024 * 1024;

/**
 * Largest request body of each API, in bytes. Neither spec shows a limit, so these are the
 * emulator's choices, each well above the largest legitimate body:
 * - admin: a segment key upload carries at most 10,000 keys (ref admin §1.1, [PM]) of at most
 *   250 characters, about 2.5 MB of JSON; 10 MiB leaves room for escaped or non-ASCII keys and
 *   for definitions with many individually targeted keys;
 * - events, and the SDK routes beside them (the same events host serves the SDK's impression and
 *   telemetry posts): 32 MiB, {@link MAX_EVENTS_BODY_BYTES};
 * - platform: ref platform §9 names "payloads larger than 500,000 characters" as a rate-limit
 *   class of the real service, so such bodies (large pipeline YAML) are legitimate; 5 MiB is ten
 *   times that size;
 * - the control routes under `/_emulator` take small JSON settings: 1 MiB.
 */
export const BODY_LIMITS = {
  admin: 10 * MiB,
  events: MAX_EVENTS_BODY_BYTES,
  sdk: MAX_EVENTS_BODY_BYTES,
  platform: 5 * MiB,
  emulator: 1 * MiB,
} as const satisfies Record<Api, number>;

/** The read went past the limit. */
const TOO_LARGE = Symbol("too large");

/** Reads a Node request body, stopping (and pausing the stream) past `limit` bytes. */
function readIncoming(incoming: IncomingMessage, limit: number): Promise<Buffer | typeof TOO_LARGE> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const finish = (err: Error | undefined, value?: Buffer | typeof TOO_LARGE) => {
      if (settled) return;
      settled = true;
      incoming.off("data", onData);
      incoming.off("end", onEnd);
      incoming.off("error", onError);
      incoming.off("close", onClose);
      if (err) reject(err);
      else resolve(value as Buffer | typeof TOO_LARGE);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        // Stop reading: what was read is dropped, the rest stays in the socket until the adapter
        // discards it after the response.
        incoming.pause();
        chunks.length = 0;
        finish(undefined, TOO_LARGE);
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => finish(undefined, Buffer.concat(chunks, size));
    const onError = (e: Error) => finish(e);
    const onClose = () => finish(new Error("the client closed the connection before the body was complete"));
    incoming.on("data", onData);
    incoming.on("end", onEnd);
    incoming.on("error", onError);
    incoming.on("close", onClose);
  });
}

/** Reads a web request body (in-process `app.request()`), stopping past `limit` bytes. */
async function readWeb(body: ReadableStream<Uint8Array>, limit: number): Promise<Buffer | typeof TOO_LARGE> {
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return Buffer.concat(chunks, size);
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => undefined);
      return TOO_LARGE;
    }
    chunks.push(value);
  }
}

/**
 * Enforces {@link BODY_LIMITS} (or `limits`) on every request with a body, and hands a body
 * without a declared length that stayed within its limit to the routes from memory.
 */
export function bodyLimit(limits: Record<Api, number> = BODY_LIMITS): MiddlewareHandler<AppEnv> {
  return async function bodyLimitMiddleware(c, next) {
    const method = c.req.method;
    if (method === "GET" || method === "HEAD" || method === "OPTIONS") return next();
    const limit = limits[c.get("api")];
    const declared = c.req.header("content-length");
    const chunked = c.req.header("transfer-encoding") !== undefined;
    if (!chunked && declared !== undefined) {
      const length = Number(declared);
      if (length <= limit) return next();
      return renderError(c, payloadTooLarge(`body: at most ${limit} bytes per request, got ${length}`));
    }
    const incoming = c.env?.incoming;
    const raw = c.req.raw;
    let body: Buffer | typeof TOO_LARGE;
    if (incoming) {
      // HTTP/1.1: without Content-Length or Transfer-Encoding there is no body.
      if (!chunked) return next();
      body = await readIncoming(incoming, limit);
    } else if (raw.body) {
      body = await readWeb(raw.body, limit);
    } else {
      return next();
    }
    if (body === TOO_LARGE) {
      const message = `body: at most ${limit} bytes per request, got more (a chunked body, stopped there)`;
      return renderError(c, payloadTooLarge(message));
    }
    c.req.raw = new Request(raw, { body });
    return next();
  };
}
