/**
 * The Terraform door's start-up (issue 26): OpenTofu and Terraform start the provider several times
 * per command (three for a `plan`: the schema, the validate walk, the plan walk), so each start is
 * paid each time.
 *
 * Figures (medians of `runs` starts: 7, quick 3), each start as OpenTofu makes it: the launcher
 * `bin/terraform-provider-flagstack` spawned with the magic cookie and a client certificate
 * (AutoMTLS), timed from spawn:
 * - `tofu_provider_handshake_ms`: until the handshake line is on stdout;
 * - `tofu_provider_start_ms` (goal ≤ 500 ms): until `GetProviderSchema` has answered over mTLS,
 *   the first request of every start.
 * The machine's load average is logged beside them (a shared machine's load inflates wall time).
 *
 * Needs the build (`dist/`): the launcher runs the compiled provider.
 * @module
 */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import * as grpc from "@grpc/grpc-js";
import { serverCertificate } from "../provider/terraform/cert";
import { MAGIC_COOKIE_KEY, MAGIC_COOKIE_VALUE } from "../provider/terraform/plugin";
import { loadServices } from "../provider/terraform/protocol";
import { REPO_ROOT } from "../test/e2e/harness";
import type { BenchContext } from "./run";

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

/** One start: spawn → handshake line → GetProviderSchema answered; the child is killed after. */
async function start(): Promise<{ handshake: number; schema: number }> {
  const client = serverCertificate();
  const started = performance.now();
  const child = spawn(process.execPath, [join(REPO_ROOT, "bin", "terraform-provider-flagstack")], {
    env: {
      ...process.env,
      [MAGIC_COOKIE_KEY]: MAGIC_COOKIE_VALUE,
      PLUGIN_PROTOCOL_VERSIONS: "5,6",
      PLUGIN_CLIENT_CERT: client.certPem,
    },
    stdio: ["pipe", "pipe", "inherit"],
  });
  try {
    const line = await new Promise<string>((resolve, reject) => {
      let text = "";
      child.stdout.on("data", (d: Buffer) => {
        text += String(d);
        if (text.includes("\n")) resolve(text.trim());
      });
      child.once("exit", (code) => reject(new Error(`the provider exited (${code}) before its handshake`)));
    });
    const handshake = performance.now() - started;
    const [, , , address, , cert] = line.split("|");
    const serverPem = `-----BEGIN CERTIFICATE-----\n${Buffer.from(cert as string, "base64").toString("base64")}\n-----END CERTIFICATE-----\n`;
    const Provider = grpc.makeGenericClientConstructor(loadServices().provider, "Provider");
    const c = new Provider(
      address as string,
      grpc.credentials.createSsl(
        Buffer.from(serverPem),
        Buffer.from(client.keyPem),
        Buffer.from(client.certPem),
      ),
      { "grpc.ssl_target_name_override": "localhost" },
    ) as unknown as Record<string, (req: unknown, cb: (e: unknown) => void) => void> & grpc.Client;
    await new Promise<void>((resolve, reject) =>
      c.GetProviderSchema?.({}, (e) => (e ? reject(e) : resolve())),
    );
    const schema = performance.now() - started;
    c.close();
    return { handshake, schema };
  } finally {
    child.kill();
  }
}

export async function run({ quick, log }: BenchContext): Promise<Record<string, number>> {
  const runs = quick ? 3 : 7;
  const handshakes: number[] = [];
  const schemas: number[] = [];
  for (let i = 0; i < runs; i++) {
    const r = await start();
    handshakes.push(r.handshake);
    schemas.push(r.schema);
  }
  log(
    `terraform: provider start ${schemas.map((x) => x.toFixed(0)).join(", ")} ms; load ${readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ")}`,
  );
  return {
    tofu_provider_handshake_ms: Math.round(median(handshakes)),
    tofu_provider_start_ms: Math.round(median(schemas)),
  };
}
