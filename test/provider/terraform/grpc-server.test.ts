/**
 * The plugin's unary gRPC server on Node's HTTP/2, called by grpc-js's client (a gRPC
 * implementation none of it shares) and by hand-made HTTP/2 requests: answers, failures with
 * their status and percent-encoded message, methods it does not serve, and frames it refuses.
 */
import { connect } from "node:http2";
import * as grpc from "@grpc/grpc-js";
import { afterEach, describe, expect, it } from "vitest";
import { percentEncode, UnaryServer } from "../../../provider/terraform/grpc-server";
import { loadServices } from "../../../provider/terraform/protocol";

const services = loadServices();
let server: UnaryServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

type Client = grpc.Client & Record<string, (req: unknown, cb: (e: unknown, r: unknown) => void) => void>;
const call = <T>(client: Client, method: string, req: unknown = {}) =>
  new Promise<T>((resolve, reject) => client[method]?.(req, (e, r) => (e ? reject(e) : resolve(r as T))));
const clientOf = (def: grpc.ServiceDefinition, port: number) =>
  new (grpc.makeGenericClientConstructor(def, "x"))(
    `127.0.0.1:${port}`,
    grpc.credentials.createInsecure(),
  ) as unknown as Client;

/** One POST to `path` with `body` on a plain HTTP/2 connection: the status headers and trailers, merged. */
async function post(port: number, path: string, body: Buffer): Promise<Record<string, unknown>> {
  const session = connect(`http://127.0.0.1:${port}`);
  try {
    return await new Promise((resolve, reject) => {
      const req = session.request({ ":method": "POST", ":path": path, "content-type": "application/grpc" });
      const seen: Record<string, unknown> = {};
      req.on("response", (h) => Object.assign(seen, h));
      req.on("trailers", (h) => Object.assign(seen, h));
      req.on("data", () => {});
      req.on("end", () => resolve(seen));
      req.on("error", reject);
      req.end(body);
    });
  } finally {
    session.close();
  }
}

describe("UnaryServer", () => {
  it("answers a method with its handler's response, decoded and encoded by the service's messages", async () => {
    server = new UnaryServer();
    const seen: unknown[] = [];
    server.addService(services.provider, {
      ValidateResourceConfig: (req: never) => {
        seen.push(req);
        return { diagnostics: [{ severity: 1, summary: "name: bad", detail: "" }] };
      },
    });
    const port = await server.listen(0);
    const client = clientOf(services.provider, port);
    const answer = await call<{ diagnostics: { summary: string; severity: number }[] }>(
      client,
      "ValidateResourceConfig",
      { type_name: "flagstack_flag" },
    );
    expect(answer.diagnostics.map((d) => [d.severity, d.summary])).toEqual([[1, "name: bad"]]);
    expect((seen[0] as { type_name: string }).type_name).toBe("flagstack_flag");
    client.close();
  });

  it("a handler's failure is its status (INTERNAL unless it names one) with its message, non-ASCII kept", async () => {
    server = new UnaryServer();
    server.addService(services.provider, {
      StopProvider: () => {
        throw new Error("naïve 100% failure\nsecond line");
      },
      GetMetadata: () => {
        throw { code: 12, details: "not here" };
      },
    });
    const port = await server.listen(0);
    const client = clientOf(services.provider, port);
    await expect(call(client, "StopProvider")).rejects.toMatchObject({
      code: grpc.status.INTERNAL,
      details: "naïve 100% failure\nsecond line",
    });
    await expect(call(client, "GetMetadata")).rejects.toMatchObject({
      code: grpc.status.UNIMPLEMENTED,
      details: "not here",
    });
    client.close();
  });

  it("a method it does not serve is UNIMPLEMENTED (go-plugin's optional stdio service)", async () => {
    server = new UnaryServer();
    server.addService(services.health, { Check: () => ({ status: 1 }) });
    const port = await server.listen(0);
    const provider = clientOf(services.provider, port);
    await expect(call(provider, "GetMetadata")).rejects.toMatchObject({
      code: grpc.status.UNIMPLEMENTED,
      details: "unknown method /tfplugin6.Provider/GetMetadata",
    });
    provider.close();
    expect(await post(port, "/plugin.GRPCStdio/StreamStdio", Buffer.from([0, 0, 0, 0, 0]))).toMatchObject({
      ":status": 200,
      "grpc-status": "12",
      "grpc-message": "unknown method /plugin.GRPCStdio/StreamStdio",
    });
  });

  it("refuses a compressed message and a frame whose length is not the body's", async () => {
    server = new UnaryServer();
    server.addService(services.health, { Check: () => ({ status: 1 }) });
    const port = await server.listen(0);
    const path = "/grpc.health.v1.Health/Check";
    expect(await post(port, path, Buffer.from([1, 0, 0, 0, 0]))).toMatchObject({
      "grpc-status": "12",
      "grpc-message": "compressed messages are not supported",
    });
    expect(await post(port, path, Buffer.from([0, 0, 0, 0, 9, 1]))).toMatchObject({
      "grpc-status": "13",
      "grpc-message": "one length-prefixed message expected",
    });
    expect(await post(port, path, Buffer.from([0, 0, 0, 0, 0]))).toMatchObject({ "grpc-status": "0" });
  });

  it("percent-encodes grpc-message: bytes outside printable ASCII and % itself", () => {
    expect(percentEncode("naïve 100%\n")).toBe("na%C3%AFve 100%25%0A");
  });

  it("a method the service lacks is a programming error at registration", () => {
    expect(() => new UnaryServer().addService(services.health, { Nope: () => ({}) })).toThrow(
      "grpc: the service has no method Nope",
    );
  });
});
