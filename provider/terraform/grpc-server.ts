/**
 * The gRPC server the plugin serves on: unary methods over Node's own HTTP/2, as gRPC frames them
 * (grpc/grpc `doc/PROTOCOL-HTTP2.md`): a request is a POST to `/<service>/<method>` whose body is
 * one length-prefixed message (a flag byte, 0 for uncompressed, and a 4-byte big-endian length); the
 * answer is `:status 200`, `content-type: application/grpc`, one length-prefixed message and the
 * trailers `grpc-status` (0) and, on a failure, `grpc-message` (percent-encoded); a failure before
 * any message is a trailers-only answer. Unknown methods answer `UNIMPLEMENTED` (12), as
 * go-plugin's client expects of a plugin without its optional stdio and broker services.
 *
 * Every method Terraform and OpenTofu call on a provider is unary, and each `plan` of 800
 * resources makes about 3,000 of them: per call this does the HTTP/2 work and the message's
 * (de)serialization and nothing else (issue 26, `tofu_plan_unchanged_seconds`; grpc-js's server,
 * with its interceptors, deadlines and channelz bookkeeping, took about twice the CPU per call).
 * TLS with a required client certificate is Node's (`tls`, as grpc-js uses it): go-plugin's AutoMTLS.
 * @module
 */
import {
  createSecureServer,
  createServer,
  type Http2Server,
  type Http2Session,
  type IncomingHttpHeaders,
  type ServerHttp2Stream,
} from "node:http2";
import type { AddressInfo } from "node:net";
import type { ServiceDefinition } from "./protocol";

/** gRPC status codes this server answers (`google.rpc.Code`). */
export const GRPC_STATUS = { OK: 0, UNIMPLEMENTED: 12, INTERNAL: 13 } as const;

/** A failure a handler may throw to answer another status than `INTERNAL`. */
export interface GrpcFailure {
  code?: number;
  details?: string;
}

/**
 * A unary method's handler: the decoded request in, the response out: a plain object, or the
 * message already encoded (a `Buffer`, sent as it is).
 */
export type UnaryHandler = (request: never) => unknown;

interface Method {
  decode: (bytes: Buffer) => unknown;
  encode: (value: object) => Buffer;
  handler: UnaryHandler;
}

/** TLS with a client certificate required (go-plugin's AutoMTLS). */
export interface ServerTls {
  /** The certificate (PEM) a client must present, trusted as its own authority. */
  clientCertPem: string;
  certPem: string;
  keyPem: string;
}

/** The largest message accepted, as Terraform's own limit (256 MiB). */
const MAX_MESSAGE = 256 * 1024 * 1024;

/** `grpc-message`'s percent-encoding: bytes outside printable ASCII, and `%`, as `%XX`. */
export function percentEncode(text: string): string {
  let out = "";
  for (const byte of Buffer.from(text, "utf8")) {
    out +=
      byte >= 0x20 && byte <= 0x7e && byte !== 0x25
        ? String.fromCharCode(byte)
        : `%${byte.toString(16).toUpperCase().padStart(2, "0")}`;
  }
  return out;
}

/** The length-prefixed frame of one uncompressed message. */
function frame(message: Buffer): Buffer {
  const out = Buffer.allocUnsafe(5 + message.length);
  out[0] = 0;
  out.writeUInt32BE(message.length, 1);
  message.copy(out, 5);
  return out;
}

/** A server of unary gRPC methods (see the module notes). */
export class UnaryServer {
  private readonly methods = new Map<string, Method>();
  private readonly sessions = new Set<Http2Session>();
  private server: Http2Server | undefined;

  /** Serves `handlers` for the methods of `service` that have one; the others answer `UNIMPLEMENTED`. */
  addService(service: ServiceDefinition, handlers: Record<string, UnaryHandler>): void {
    for (const [name, handler] of Object.entries(handlers)) {
      const m = service[name];
      if (m === undefined) throw new Error(`grpc: the service has no method ${name}`);
      this.methods.set(m.path, {
        decode: m.requestDeserialize as (bytes: Buffer) => unknown,
        encode: m.responseSerialize as (value: object) => Buffer,
        handler,
      });
    }
  }

  /** Listens on 127.0.0.1:`port` (0: a free one), with TLS when given; resolves to the port. */
  listen(port: number, tls?: ServerTls): Promise<number> {
    const options = { maxSessionMemory: MAX_MESSAGE / (1024 * 1024) };
    const server = tls
      ? createSecureServer({
          ...options,
          key: tls.keyPem,
          cert: tls.certPem,
          ca: [tls.clientCertPem],
          requestCert: true,
          rejectUnauthorized: true,
          ALPNProtocols: ["h2"],
        })
      : createServer(options);
    server.on("session", (session: Http2Session) => {
      this.sessions.add(session);
      session.on("close", () => this.sessions.delete(session));
      session.on("error", () => {});
    });
    server.on("stream", (stream, headers) => this.onStream(stream, headers));
    return new Promise((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, "127.0.0.1", () => {
        server.off("error", reject);
        this.server = server;
        resolve((server.address() as AddressInfo).port);
      });
    });
  }

  /** Stops: no new connection, the open ones closed once their calls end (destroyed after `graceMs`). */
  close(graceMs = 2000): Promise<void> {
    const server = this.server;
    if (server === undefined) return Promise.resolve();
    this.server = undefined;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        for (const s of this.sessions) s.destroy();
        resolve();
      }, graceMs);
      timer.unref();
      server.close(() => {
        clearTimeout(timer);
        resolve();
      });
      for (const s of this.sessions) s.close();
    });
  }

  private onStream(stream: ServerHttp2Stream, headers: IncomingHttpHeaders): void {
    stream.on("error", () => {});
    const method = this.methods.get(String(headers[":path"]));
    if (method === undefined) {
      this.fail(stream, GRPC_STATUS.UNIMPLEMENTED, `unknown method ${String(headers[":path"])}`);
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    stream.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_MESSAGE + 5) {
        this.fail(stream, GRPC_STATUS.INTERNAL, "the message is larger than 256 MiB");
        return;
      }
      chunks.push(chunk);
    });
    stream.on("end", () => {
      if (stream.headersSent) return;
      const body = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks);
      if (body.length < 5 || body[0] !== 0 || body.readUInt32BE(1) !== body.length - 5) {
        this.fail(
          stream,
          body[0] === 1 ? GRPC_STATUS.UNIMPLEMENTED : GRPC_STATUS.INTERNAL,
          body[0] === 1 ? "compressed messages are not supported" : "one length-prefixed message expected",
        );
        return;
      }
      void this.answer(stream, method, body.subarray(5));
    });
  }

  private async answer(stream: ServerHttp2Stream, method: Method, message: Buffer): Promise<void> {
    let out: Buffer;
    try {
      const answer = await method.handler(method.decode(message) as never);
      out = Buffer.isBuffer(answer) ? answer : method.encode(answer as object);
    } catch (e) {
      const f = e as GrpcFailure & Error;
      this.fail(stream, f.code ?? GRPC_STATUS.INTERNAL, f.details ?? f.message ?? String(e));
      return;
    }
    if (stream.destroyed || stream.closed) return;
    stream.respond({ ":status": 200, "content-type": "application/grpc" }, { waitForTrailers: true });
    stream.once("wantTrailers", () => stream.sendTrailers({ "grpc-status": String(GRPC_STATUS.OK) }));
    stream.end(frame(out));
  }

  /** A trailers-only answer with `code` and `message`. */
  private fail(stream: ServerHttp2Stream, code: number, message: string): void {
    if (stream.destroyed || stream.closed || stream.headersSent) return;
    stream.respond(
      {
        ":status": 200,
        "content-type": "application/grpc",
        "grpc-status": String(code),
        "grpc-message": percentEncode(message),
      },
      { endStream: true },
    );
  }
}
