/**
 * The plugin process Terraform and OpenTofu start: go-plugin's handshake and the gRPC server
 * (github.com/hashicorp/go-plugin `server.go` `Serve`, `docs/internals.md`):
 * 1. the client sets the magic cookie (`TF_PLUGIN_MAGIC_COOKIE`, OpenTofu
 *    `internal/plugin6/serve.go` `Handshake`) and the protocol versions it speaks
 *    (`PLUGIN_PROTOCOL_VERSIONS`, `5,6`); a process started without the cookie is not started by
 *    Terraform, and says so;
 * 2. with AutoMTLS the client passes its certificate (`PLUGIN_CLIENT_CERT`, PEM): the server makes
 *    its own (`./cert.ts`), requires the client's, and prints its DER;
 * 3. the server listens on 127.0.0.1, a free port (or within `PLUGIN_MIN_PORT`..`PLUGIN_MAX_PORT`),
 *    and prints one line on stdout: `1|6|tcp|127.0.0.1:<port>|grpc|<certificate>` (core protocol 1,
 *    plugin protocol 6, network, address, protocol, base64 DER without padding);
 * 4. it serves `tfplugin6.Provider` (`./server.ts`), the health check go-plugin pings, and
 *    `plugin.GRPCController.Shutdown`, after which it exits. Interrupts are ignored, as go-plugin's
 *    server does: Terraform forwards Ctrl-C to the process group and then calls `StopProvider`;
 * 5. it ends with the process that started it (`./parent-watch.ts`): `tofu` killed, the provider
 *    drops what it held for the run (`./held-deletes.ts`), names it on stderr and exits within
 *    about half a second, sending nothing more.
 *
 * Logs go to stderr as hclog JSON lines (`@level`, `@message`, `@timestamp`), which go-plugin reads
 * and Terraform shows under `TF_LOG` / `TF_LOG_PROVIDER`.
 * @module
 */
import { type DoorWords, TERRAFORM_WORDS, useDoor } from "../core/door";
import { carryOwnerGates } from "../core/gate-ledger";
import { openListReadsForOperation } from "../core/list-reads";
import { carryRateLimits } from "../core/rate-ledger";
import { serverCertificate } from "./cert";
import { GRPC_STATUS, type ServerTls, type UnaryHandler, UnaryServer } from "./grpc-server";
import { watchParent } from "./parent-watch";
import { loadServices } from "./protocol";
import { readSchemaAnswers, type SchemaAnswers } from "./schema-answer";
// Types only: the dispatch (and with it every kind, the SDK, zod and undici) loads on the first
// request that needs it, not for the schema every start answers first (`./schema-answer.ts`).
import type { TerraformProvider } from "./server";

/**
 * In the provider bundle, the two precomputed answers already encoded, as base64 (the bundler
 * encodes `provider-plugin/terraform-schema.json` with the protocol, `scripts/release-binary.mts`):
 * the command's first start sends them as they are instead of reading and encoding the file, about
 * 20 ms of a start OpenTofu waits for (issue 35). Not defined outside the bundle.
 */
declare const FLAGSTACK_SCHEMA_WIRE: { metadata: string; schema: string } | null | undefined;

/** The bundle's encoded answers ({@link FLAGSTACK_SCHEMA_WIRE}), or `undefined`. */
function schemaWire(): { metadata: Buffer; schema: Buffer } | undefined {
  // `null`: bundled without a build to encode them with.
  if (typeof FLAGSTACK_SCHEMA_WIRE === "undefined" || FLAGSTACK_SCHEMA_WIRE === null) return undefined;
  return {
    metadata: Buffer.from(FLAGSTACK_SCHEMA_WIRE.metadata, "base64"),
    schema: Buffer.from(FLAGSTACK_SCHEMA_WIRE.schema, "base64"),
  };
}

/** Terraform's and OpenTofu's handshake cookie (OpenTofu `internal/plugin6/serve.go`). */
export const MAGIC_COOKIE_KEY = "TF_PLUGIN_MAGIC_COOKIE";
export const MAGIC_COOKIE_VALUE = "d602bf8f470bc67ca7faa0386276bbdd4330efaf76d1a219cb4d6991ca9872b2";

/** The plugin protocol this server speaks. */
export const PROTOCOL_VERSION = 6;

/** The handshake line go-plugin's client reads from the plugin's stdout. */
export function handshakeLine(port: number, certDer?: Buffer): string {
  const cert = certDer ? certDer.toString("base64").replace(/=+$/, "") : "";
  return `1|${PROTOCOL_VERSION}|tcp|127.0.0.1:${port}|grpc|${cert}`;
}

/** Why this process may not serve: no cookie, or a client that does not speak protocol 6. */
export function handshakeRefusal(env: NodeJS.ProcessEnv): string | undefined {
  if (env[MAGIC_COOKIE_KEY] !== MAGIC_COOKIE_VALUE)
    return "This binary is a plugin. These are not meant to be executed directly.\nPlease execute the program that consumes these plugins, which will\nload any plugins automatically (terraform or tofu, with this provider installed from its mirror, or by `npx flagstack terraform install`; run `<binary> help` for its commands).";
  const versions = (env.PLUGIN_PROTOCOL_VERSIONS ?? "").split(",").map((v) => v.trim());
  if (env.PLUGIN_PROTOCOL_VERSIONS && !versions.includes(String(PROTOCOL_VERSION)))
    return `flagstack speaks plugin protocol ${PROTOCOL_VERSION}; the client offered ${env.PLUGIN_PROTOCOL_VERSIONS} (Terraform 1.0+ or OpenTofu speak it)`;
  return undefined;
}

let debugOn: boolean | undefined;
/**
 * Whether Terraform shows debug lines (`TF_LOG` or `TF_LOG_PROVIDER` set), read once: the process's
 * environment is fixed by Terraform at its start, and each request asks (a read of `process.env` is
 * a call into the C++ side, paid per request otherwise).
 */
const debugLogs = (): boolean => {
  debugOn ??= Boolean(process.env.TF_LOG || process.env.TF_LOG_PROVIDER);
  return debugOn;
};

/** An hclog JSON line on stderr (go-plugin relays it to Terraform's log). */
export function log(level: "trace" | "debug" | "info" | "warn" | "error", message: string): void {
  if ((level === "trace" || level === "debug") && !debugLogs()) return;
  process.stderr.write(
    `${JSON.stringify({ "@level": level, "@message": `flagstack: ${message}`, "@module": "flagstack", "@timestamp": new Date().toISOString() })}\n`,
  );
}

/** A unary handler for a (possibly async) method of the provider: logs its time under `TF_LOG`, its failure always. */
function unary(name: string, run: (request: never) => unknown): UnaryHandler {
  return async (request: never) => {
    const started = performance.now();
    const typeName = (request as { type_name?: string }).type_name;
    try {
      const response = await run(request);
      if (debugLogs())
        log(
          "debug",
          `${name}${typeName ? ` ${typeName}` : ""} ${(performance.now() - started).toFixed(1)} ms`,
        );
      return response;
    } catch (e) {
      log("error", `${name}: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
      throw { code: GRPC_STATUS.INTERNAL, details: e instanceof Error ? e.message : String(e) };
    }
  };
}

/**
 * The Provider service's handlers, by RPC name. `answers` (the precomputed schema, read on the
 * first request that needs it) answers `GetMetadata` and `GetProviderSchema` without loading the
 * dispatch; `provider` is asked for only by the requests that need it. A start after a command's
 * first is asked for no schema (`get_provider_schema_optional`, `./server.ts`), so it reads none.
 */
export function providerHandlers(
  provider: () => TerraformProvider,
  answers: () => SchemaAnswers | undefined = () => undefined,
  wire: { metadata: Buffer; schema: Buffer } | undefined = undefined,
): Record<string, UnaryHandler> {
  const methods: Record<string, (p: TerraformProvider, req: never) => unknown> = {
    GetMetadata: (p) => p.getMetadata(),
    GetProviderSchema: (p) => p.getProviderSchema(),
    ValidateProviderConfig: (p, req) => p.validateProviderConfig(req),
    ValidateResourceConfig: (p, req) => p.validateResourceConfig(req),
    ValidateDataResourceConfig: (p, req) => p.validateDataResourceConfig(req),
    ReadDataSource: (p, req) => p.readDataSource(req),
    UpgradeResourceState: (p, req) => p.upgradeResourceState(req),
    ConfigureProvider: (p, req) => p.configureProvider(req),
    ReadResource: (p, req) => p.readResource(req),
    PlanResourceChange: (p, req) => p.planResourceChange(req),
    ApplyResourceChange: (p, req) => p.applyResourceChange(req),
    ImportResourceState: (p, req) => p.importResourceState(req),
    StopProvider: (p) => p.stopProvider(),
  };
  let read: { answers: SchemaAnswers | undefined } | undefined;
  const precomputed = () => {
    read ??= { answers: answers() };
    return read.answers;
  };
  const schema: Record<string, (req: never) => unknown> = {
    GetMetadata: (req) => wire?.metadata ?? precomputed()?.metadata ?? methods.GetMetadata?.(provider(), req),
    GetProviderSchema: (req) =>
      wire?.schema ?? precomputed()?.schema ?? methods.GetProviderSchema?.(provider(), req),
  };
  return Object.fromEntries(
    Object.entries(methods).map(([name, f]) => [
      name,
      unary(name, schema[name] ?? ((req) => f(provider(), req))),
    ]),
  );
}

/** What {@link serve} returns: the port, a way to stop (tests), and a way to drop what the run left. */
export interface Served {
  port: number;
  line: string;
  stop(): Promise<void>;
  /** Forgets the deletes held for the run, sending none (`./held-deletes.ts`); what they were. */
  dropHeld(): string[];
}

/**
 * Starts the plugin server and prints the handshake line. `onShutdown` runs when the client calls
 * `GRPCController.Shutdown` (the launcher exits there).
 */
export async function serve(
  env: NodeJS.ProcessEnv = process.env,
  out: (line: string) => void = (line) => process.stdout.write(`${line}\n`),
  onShutdown: () => void = () => setImmediate(() => process.exit(0)),
): Promise<Served> {
  const refusal = handshakeRefusal(env);
  if (refusal !== undefined) throw new Error(refusal);
  const services = loadServices();
  let provider: TerraformProvider | undefined;
  const get = (): TerraformProvider => {
    if (provider === undefined) {
      const { catalog, TerraformProvider } = require("./server") as typeof import("./server");
      provider = new TerraformProvider(catalog());
      // The provider binary keeps V8's code cache of a start that loaded the dispatch (`scripts/sea-main.cjs`).
      (globalThis as Record<symbol, unknown>)[Symbol.for("flagstack.binary.dispatch")] = true;
    }
    return provider;
  };
  const server = new UnaryServer();
  server.addService(
    services.provider,
    providerHandlers(get, () => readSchemaAnswers(), schemaWire()),
  );
  server.addService(services.health, { Check: () => ({ status: 1 }) });
  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= server.close();
    return stopping;
  };
  server.addService(services.controller, {
    // The deletes held back for an owner not deleted in this run are sent before the answer,
    // which go-plugin waits for (`./held-deletes.ts`); the server stops after it.
    Shutdown: async () => {
      log("debug", "shutdown requested");
      const failures = (await provider?.finish()) ?? [];
      for (const f of failures) log("error", `a delete held for its owner's failed: ${f}`);
      setImmediate(() => void stop().then(onShutdown));
      return {};
    },
  });
  const clientCert = env.PLUGIN_CLIENT_CERT;
  const cert = clientCert ? serverCertificate() : undefined;
  const tls =
    cert && clientCert
      ? { clientCertPem: clientCert, certPem: cert.certPem, keyPem: cert.keyPem }
      : undefined;
  const port = await bindPort(server, tls, env);
  const line = handshakeLine(port, cert?.der);
  out(line);
  return { port, line, stop, dropHeld: () => provider?.held.drop() ?? [] };
}

/** Listens on 127.0.0.1, a free port, within `PLUGIN_MIN_PORT`..`PLUGIN_MAX_PORT` when the client sets them. */
async function bindPort(
  server: UnaryServer,
  tls: ServerTls | undefined,
  env: NodeJS.ProcessEnv,
): Promise<number> {
  const min = Number(env.PLUGIN_MIN_PORT ?? 0);
  const max = Number(env.PLUGIN_MAX_PORT ?? 0);
  if (!(min > 0 && max >= min)) return server.listen(0, tls);
  for (let port = min; port <= max; port++) {
    try {
      return await server.listen(port, tls);
    } catch {
      // taken: the next one
    }
  }
  throw new Error(`no free port in PLUGIN_MIN_PORT..PLUGIN_MAX_PORT (${min}..${max})`);
}

/**
 * The last line of a provider whose parent is gone (`tofu` killed, `./parent-watch.ts`): what it
 * held and dropped, so a user reading the provider's log knows which objects may still exist.
 */
export function orphanMessage(parent: number, dropped: readonly string[]): string {
  const what =
    dropped.length === 0
      ? "no delete was held"
      : `${dropped.length} held delete${dropped.length === 1 ? "" : "s"} dropped, not sent (the object${dropped.length === 1 ? "" : "s"} may still exist on the service, out of the state: \`npx flagstack terraform recover\` writes the import blocks of those the configuration still declares; delete the others on the service): ${dropped.join(", ")}`;
  return `the process that started this provider (pid ${parent}) is gone, and with it the run: exiting; ${what}`;
}

/**
 * Ends an orphaned provider: drops what the run held (an orphan sends nothing: no run records or
 * reports it), says so on stderr and exits with status 1.
 */
export function endOrphan(
  parent: number,
  served: Pick<Served, "dropHeld"> | undefined,
  exit: (code: number) => void = (code) => process.exit(code),
): void {
  // Nobody may read stderr any more (its reader was the parent): a failed write must not throw.
  process.stderr.on("error", () => {});
  log("warn", orphanMessage(parent, served?.dropHeld() ?? []));
  exit(1);
}

/**
 * The launcher's entry point: serve, exit when shut down, ignore interrupts, and end with the
 * process that started it (`./parent-watch.ts`), whichever comes first.
 */
export async function main(words: DoorWords = TERRAFORM_WORDS): Promise<void> {
  process.on("SIGINT", () => log("debug", "interrupt ignored: Terraform stops the provider itself"));
  const refusal = handshakeRefusal(process.env);
  if (refusal !== undefined) {
    process.stderr.write(`${refusal}\n`);
    process.exitCode = 1;
    return;
  }
  // Watched from the start: `tofu` killed before the handshake ends this process too.
  let served: Served | undefined;
  watchParent((parent) => endOrphan(parent, served));
  // Messages name `terraform apply`, not `pulumi up`; change requests name the configuration.
  useDoor(words);
  // The process serves one command's walk (OpenTofu starts a provider per graph walk and stops it
  // after): its reads may share lists (`../core/list-reads.ts`, DESIGN.md "Reads that share a list").
  openListReadsForOperation();
  // One command is several processes in a row: each goes on from the last one's rate limit
  // (`../core/rate-ledger.ts`), so that its first burst counts the requests just sent.
  carryRateLimits();
  // And from what its owner gate read: a destroy's plan reads it, and its apply starts with the
  // deletes (`../core/gate-ledger.ts`).
  carryOwnerGates();
  served = await serve();
}
