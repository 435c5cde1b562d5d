/**
 * go-plugin's handshake as Terraform and OpenTofu drive it: the magic cookie and protocol check,
 * the handshake line, AutoMTLS (the client's certificate required, the server's certificate in
 * the line, valid for `localhost`), the health check, the provider service, and the controller's
 * Shutdown.
 */
import { X509Certificate } from "node:crypto";
import * as grpc from "@grpc/grpc-js";
import { afterEach, describe, expect, it } from "vitest";
import { serverCertificate } from "../../../provider/terraform/cert";
import {
  handshakeLine,
  handshakeRefusal,
  MAGIC_COOKIE_KEY,
  MAGIC_COOKIE_VALUE,
  type Served,
  serve,
} from "../../../provider/terraform/plugin";
import { loadServices } from "../../../provider/terraform/protocol";

const COOKIE = { [MAGIC_COOKIE_KEY]: MAGIC_COOKIE_VALUE, PLUGIN_PROTOCOL_VERSIONS: "5,6" };
let served: Served | undefined;
afterEach(async () => {
  await served?.stop();
  served = undefined;
});

type Client = grpc.Client & Record<string, (req: unknown, cb: (e: unknown, r: unknown) => void) => void>;
const call = <T>(client: Client, method: string, req: unknown = {}) =>
  new Promise<T>((resolve, reject) => client[method]?.(req, (e, r) => (e ? reject(e) : resolve(r as T))));
const services = loadServices();
const clientOf = (
  def: grpc.ServiceDefinition,
  address: string,
  creds: grpc.ChannelCredentials,
  options = {},
) => new (grpc.makeGenericClientConstructor(def, "x"))(address, creds, options) as unknown as Client;

describe("the handshake", () => {
  it("refuses to run without Terraform's magic cookie, or for a client without protocol 6", () => {
    expect(handshakeRefusal({})).toMatch(
      /^This binary is a plugin\. These are not meant to be executed directly\./,
    );
    expect(handshakeRefusal({ ...COOKIE, PLUGIN_PROTOCOL_VERSIONS: "4,5" })).toBe(
      "flagstack speaks plugin protocol 6; the client offered 4,5 (Terraform 1.0+ or OpenTofu speak it)",
    );
    expect(handshakeRefusal(COOKIE)).toBeUndefined();
  });

  it("the line: core protocol 1, plugin protocol 6, tcp on 127.0.0.1, grpc, the DER as unpadded base64", () => {
    expect(handshakeLine(4242)).toBe("1|6|tcp|127.0.0.1:4242|grpc|");
    expect(handshakeLine(4242, Buffer.from([1, 2, 3, 4]))).toBe("1|6|tcp|127.0.0.1:4242|grpc|AQIDBA");
  });

  it("without a client certificate: plain gRPC, the health check and the provider answer", async () => {
    const lines: string[] = [];
    served = await serve(
      COOKIE,
      (l) => lines.push(l),
      () => {},
    );
    expect(lines).toEqual([`1|6|tcp|127.0.0.1:${served.port}|grpc|`]);
    const address = `127.0.0.1:${served.port}`;
    const health = clientOf(services.health, address, grpc.credentials.createInsecure());
    expect(await call(health, "Check", { service: "plugin" })).toEqual({ status: 1 });
    const provider = clientOf(services.provider, address, grpc.credentials.createInsecure());
    const meta = await call<{ resources: { type_name: string }[] }>(provider, "GetMetadata");
    expect(meta.resources.slice(0, 2)).toEqual([
      { type_name: "flagstack_environment" },
      { type_name: "flagstack_traffic_type" },
    ]);
    health.close();
    provider.close();
  });

  it("binds within PLUGIN_MIN_PORT..PLUGIN_MAX_PORT when the client sets them", async () => {
    const min = 20000 + Math.floor(Math.random() * 20000);
    served = await serve(
      { ...COOKIE, PLUGIN_MIN_PORT: String(min), PLUGIN_MAX_PORT: String(min + 20) },
      () => {},
      () => {},
    );
    expect(served.port >= min && served.port <= min + 20, String(served.port)).toBe(true);
  });

  it("AutoMTLS: the client's certificate is required; the server's, valid for localhost, is in the line", async () => {
    const client = serverCertificate();
    const lines: string[] = [];
    let shutdown = 0;
    served = await serve(
      { ...COOKIE, PLUGIN_CLIENT_CERT: client.certPem },
      (l) => lines.push(l),
      () => {
        shutdown += 1;
      },
    );
    const der = Buffer.from((lines[0] as string).split("|")[5] as string, "base64");
    const cert = new X509Certificate(der);
    expect([
      cert.subject.split("\n").at(-1),
      cert.subjectAltName,
      cert.ca,
      cert.checkHost("localhost"),
    ]).toEqual(["CN=localhost", "DNS:localhost", true, "localhost"]);
    const address = `127.0.0.1:${served.port}`;
    const options = { "grpc.ssl_target_name_override": "localhost" };
    const mtls = grpc.credentials.createSsl(
      Buffer.from(cert.toString()),
      Buffer.from(client.keyPem),
      Buffer.from(client.certPem),
    );
    const health = clientOf(services.health, address, mtls, options);
    expect(await call(health, "Check", { service: "plugin" })).toEqual({ status: 1 });
    // Without the client's certificate the TLS handshake fails.
    const anonymous = clientOf(
      services.health,
      address,
      grpc.credentials.createSsl(Buffer.from(cert.toString())),
      {
        ...options,
        "grpc.initial_reconnect_backoff_ms": 50,
      },
    );
    await expect(call(anonymous, "Check", { service: "plugin" })).rejects.toMatchObject({
      code: grpc.status.UNAVAILABLE,
    });
    const controller = clientOf(services.controller, address, mtls, options);
    expect(await call(controller, "Shutdown")).toEqual({});
    await new Promise((r) => setTimeout(r, 100));
    expect(shutdown).toBe(1);
    for (const c of [health, anonymous, controller]) c.close();
  });
});
