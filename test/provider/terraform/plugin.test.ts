/**
 * go-plugin's handshake as Terraform and OpenTofu drive it: the magic cookie and protocol check,
 * the handshake line, AutoMTLS (the client's certificate required, the server's certificate in
 * the line, valid for `localhost`), the health check, the provider service, and the controller's
 * Shutdown; and the end of a provider whose parent (`tofu`) is killed: what it held dropped and
 * named on stderr, the process gone within a second.
 */
import { spawn } from "node:child_process";
import { X509Certificate } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import * as grpc from "@grpc/grpc-js";
import { afterEach, describe, expect, it, vi } from "vitest";
import { serverCertificate } from "../../../provider/terraform/cert";
import { pidAlive } from "../../../provider/terraform/parent-watch";
import {
  endOrphan,
  handshakeLine,
  handshakeRefusal,
  MAGIC_COOKIE_KEY,
  MAGIC_COOKIE_VALUE,
  orphanMessage,
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

describe("a provider whose parent is gone", () => {
  it("names what it dropped", () => {
    expect(orphanMessage(4242, [])).toBe(
      "the process that started this provider (pid 4242) is gone, and with it the run: exiting; no delete was held",
    );
    expect(orphanMessage(4242, ["flagstack_flag_definition f1:e1"])).toBe(
      "the process that started this provider (pid 4242) is gone, and with it the run: exiting; 1 held delete dropped, not sent (the object may still exist on the service, out of the state: `npx flagstack terraform recover` writes the import blocks of those the configuration still declares; delete the others on the service): flagstack_flag_definition f1:e1",
    );
    expect(orphanMessage(7, ["flagstack_flag_definition f1:e1", "flagstack_flag_definition f2:e1"])).toBe(
      "the process that started this provider (pid 7) is gone, and with it the run: exiting; 2 held deletes dropped, not sent (the objects may still exist on the service, out of the state: `npx flagstack terraform recover` writes the import blocks of those the configuration still declares; delete the others on the service): flagstack_flag_definition f1:e1, flagstack_flag_definition f2:e1",
    );
  });

  it("drops what the run held, says so in one hclog line on stderr, exits with status 1", () => {
    const written: string[] = [];
    const write = vi.spyOn(process.stderr, "write").mockImplementation((chunk) => {
      written.push(String(chunk));
      return true;
    });
    const exits: number[] = [];
    let dropped = 0;
    try {
      endOrphan(
        4242,
        {
          dropHeld: () => {
            dropped++;
            return ["flagstack_flag_definition f1:e1"];
          },
        },
        (code) => exits.push(code),
      );
    } finally {
      write.mockRestore();
    }
    expect([dropped, exits, written.length]).toEqual([1, [1], 1]);
    const line = JSON.parse(written[0] as string) as Record<string, string>;
    expect({ ...line, "@timestamp": typeof line["@timestamp"] }).toEqual({
      "@level": "warn",
      "@message": `flagstack: ${orphanMessage(4242, ["flagstack_flag_definition f1:e1"])}`,
      "@module": "flagstack",
      "@timestamp": "string",
    });
  });
});

const ROOT = join(__dirname, "..", "..", "..");
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** Whether `pid` runs: a zombie (exited, not yet reaped by its new parent) does not. */
const running = (pid: number): boolean => {
  if (!pidAlive(pid)) return false;
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return process.platform !== "linux";
  }
};

describe.skipIf(process.platform === "win32")("main(), started by a process that is then killed", () => {
  it("serves while its parent runs, and exits within a second of its parent's SIGKILL, naming it", async () => {
    // The "tofu": starts main() as go-plugin does (the cookie in the environment, stdout and stderr
    // the parent's), prints the provider's pid, and is killed.
    const middle = spawn(
      process.execPath,
      [
        "-e",
        `const c = require("node:child_process").spawn(process.execPath, ["--import", "tsx", "-e", process.env.MAIN_CODE], { stdio: ["ignore", "inherit", "inherit"] });
         process.stdout.write("pid " + c.pid + "\\n");
         setInterval(() => {}, 1000);`,
      ],
      {
        cwd: ROOT,
        env: {
          ...process.env,
          ...COOKIE,
          MAIN_CODE: `require(${JSON.stringify(join(ROOT, "provider/terraform/plugin.ts"))}).main()`,
        },
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let out = "";
    let err = "";
    middle.stdout.on("data", (d) => {
      out += d;
    });
    middle.stderr.on("data", (d) => {
      err += d;
    });
    for (let i = 0; i < 400 && !out.includes("|grpc|"); i++) await sleep(50);
    const pid = Number(/^pid (\d+)$/m.exec(out)?.[1]);
    expect(out).toMatch(/^1\|6\|tcp\|127\.0\.0\.1:\d+\|grpc\|$/m);
    await sleep(1200);
    expect(running(pid)).toBe(true);

    const killed = performance.now();
    middle.kill("SIGKILL");
    while (running(pid) && performance.now() - killed < 5000) await sleep(20);
    const goneAfter = performance.now() - killed;
    if (running(pid)) process.kill(pid, "SIGKILL");
    for (let i = 0; i < 50 && !err.includes("is gone"); i++) await sleep(20);
    expect(goneAfter).toBeLessThan(1000);
    const lines = err
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Record<string, string>);
    expect(lines.map((l) => [l["@level"], l["@message"]])).toEqual([
      ["warn", `flagstack: ${orphanMessage(middle.pid as number, [])}`],
    ]);
  }, 30_000);
});
