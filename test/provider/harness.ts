/**
 * Test harness: drives a flagstack provider the way the Pulumi engine does, through the real
 * `@pulumi/pulumi/cmd/dynamic-provider` gRPC host (ref pulumi-notes §6.3), with each resource's
 * `__provider` text as the engine stores it.
 *
 * The host runs in its own process with cwd = the repo, so the text's
 * `require("flagstack/provider/<file>")` loads the build in `dist/` (run `npm run build` first).
 * @module
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createServer } from "node:http";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import { createServer as createNetServer } from "node:net";
import { join } from "node:path";
import * as pulumi from "@pulumi/pulumi";
import requireFromString from "require-from-string";

/** The repo root (where `node_modules/flagstack` links back to). */
export const REPO = join(__dirname, "..", "..");

// Messages must come from the copies of grpc-js and google-protobuf that @pulumi/pulumi uses.
const pulumiRequire = createRequire(require.resolve("@pulumi/pulumi/package.json"));
const grpc = pulumiRequire("@grpc/grpc-js") as typeof import("@grpc/grpc-js");
const structproto = pulumiRequire("google-protobuf/google/protobuf/struct_pb");
const statusproto = pulumiRequire("./proto/status_pb");
const provproto = pulumiRequire("./proto/provider_pb");
const provrpc = pulumiRequire("./proto/provider_grpc_pb");

type Props = Record<string, unknown>;

/** The text `pulumi.runtime.serializeFunction` makes of a provider object (as `dynamic.Resource` does). */
export async function serializeProvider(
  provider: object,
): Promise<{ text: string; containsSecrets: boolean }> {
  const sf = await pulumi.runtime.serializeFunction(() => provider, { allowSecrets: true });
  return { text: sf.text, containsSecrets: sf.containsSecrets };
}

/** Loads a serialized provider the way the host does (`requireFromString(text).handler()`). */
export function loadSerializedProvider(text: string): pulumi.dynamic.ResourceProvider {
  return (
    requireFromString(text, join(REPO, "provider-from-state.js")) as {
      handler: () => pulumi.dynamic.ResourceProvider;
    }
  ).handler();
}

/** A gRPC error from the host, with the `ErrorResourceInitFailed` details when there were any. */
export class HostError extends Error {
  constructor(
    message: string,
    readonly initFailed?: { id: string; properties: Props; reasons: string[] },
  ) {
    super(message);
    this.name = "HostError";
  }
}

function toStruct(value: Props) {
  return structproto.Struct.fromJavaScript(JSON.parse(JSON.stringify(value)));
}

function fromStruct(s: { toJavaScript(): Props } | undefined): Props | undefined {
  return s ? s.toJavaScript() : undefined;
}

function hostError(err: {
  message?: string;
  details?: string;
  metadata?: { get(k: string): unknown[] };
}): HostError {
  const raw = err.metadata?.get("grpc-status-details-bin")?.[0] as Buffer | undefined;
  let initFailed: HostError["initFailed"];
  if (raw) {
    const status = statusproto.Status.deserializeBinary(new Uint8Array(raw));
    for (const any of status.getDetailsList()) {
      const detail = provproto.ErrorResourceInitFailed.deserializeBinary(any.getValue_asU8());
      initFailed = {
        id: detail.getId(),
        properties: fromStruct(detail.getProperties()) ?? {},
        reasons: detail.getReasonsList(),
      };
    }
  }
  return new HostError(err.details ?? err.message ?? String(err), initFailed);
}

/** A running dynamic-provider host and typed calls of its RPCs. */
export interface ProviderHost {
  /** Sends the gRPC `Configure` with the whole stack config (`flagstack:adminApiUrl`, ...). */
  configure(config: Record<string, string>): Promise<void>;
  check(
    olds: Props,
    news: Props,
  ): Promise<{ inputs: Props; failures: { property: string; reason: string }[] }>;
  diff(
    id: string,
    olds: Props,
    news: Props,
  ): Promise<{ changes: number; replaces: string[]; deleteBeforeReplace: boolean }>;
  create(props: Props): Promise<{ id: string; properties: Props }>;
  read(
    id: string,
    props: Props,
    inputs?: Props,
  ): Promise<{ id: string; properties: Props; inputs: Props | undefined }>;
  update(id: string, olds: Props, news: Props): Promise<{ properties: Props }>;
  delete(id: string, props: Props): Promise<void>;
  /** Everything the host wrote to stderr so far. */
  stderr(): string;
  /** Closes the stand-in engine endpoint, as a killed engine would leave it. */
  closeEngine(): Promise<void>;
  /** Resolves with the host's exit code when its process ends. */
  exited: Promise<number | null>;
  stop(): Promise<void>;
}

/** `DiffResponse.DiffChanges`: 0 unknown, 1 none, 2 some. */
export const DIFF = { UNKNOWN: 0, NONE: 1, SOME: 2 } as const;

/**
 * Starts `node node_modules/@pulumi/pulumi/cmd/dynamic-provider/index.js <engine>`, reads its port
 * from stdout and connects. The host itself never calls the engine, but flagstack's provider
 * dials the address to notice the engine's death (provider/core/host.ts): the stand-in engine is
 * a TCP listener on 127.0.0.1 that the test may close (`closeEngine`).
 */
export async function startProviderHost(env: Record<string, string> = {}): Promise<ProviderHost> {
  const script = join(REPO, "node_modules", "@pulumi", "pulumi", "cmd", "dynamic-provider", "index.js");
  const engine = createNetServer((socket) => socket.destroy());
  await new Promise<void>((resolve) => engine.listen(0, "127.0.0.1", resolve));
  const enginePort = (engine.address() as AddressInfo).port;
  const closeEngine = () => new Promise<void>((resolve) => engine.close(() => resolve()));
  const child: ChildProcess = spawn(process.execPath, [script, `127.0.0.1:${enginePort}`], {
    cwd: REPO,
    // This host serves many operations, the engine's one each: reads share no list unless a test
    // turns them on (`provider/core/list-reads.ts`).
    env: {
      ...process.env,
      PULUMI_NODEJS_PROJECT: "shop",
      PULUMI_NODEJS_STACK: "dev",
      FLAGSTACK_LIST_READS: "off",
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  let stderr = "";
  child.stderr?.on("data", (d: Buffer) => {
    stderr += d.toString();
  });
  const port = await new Promise<number>((resolve, reject) => {
    let out = "";
    child.stdout?.on("data", (d: Buffer) => {
      out += d.toString();
      const m = /^(\d+)\s*$/m.exec(out);
      if (m) resolve(Number(m[1]));
    });
    child.once("exit", (code) => reject(new Error(`dynamic-provider host exited with ${code}: ${stderr}`)));
  });
  const client = new provrpc.ResourceProviderClient(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
  const call = <Res>(method: string, req: unknown): Promise<Res> =>
    new Promise((resolve, reject) => {
      client[method](req, (err: Parameters<typeof hostError>[0] | null, res: Res) =>
        err ? reject(hostError(err)) : resolve(res),
      );
    });
  const urn = "urn:pulumi:dev::shop::pulumi-nodejs:dynamic/flagstack:Test::t";

  return {
    async configure(config) {
      const req = new provproto.ConfigureRequest();
      req.setArgs(toStruct(config));
      req.setAcceptsecrets(true);
      await call("configure", req);
    },
    async check(olds, news) {
      const req = new provproto.CheckRequest();
      req.setUrn(urn);
      req.setOlds(toStruct(olds));
      req.setNews(toStruct(news));
      const res = await call<{
        getInputs(): { toJavaScript(): Props };
        getFailuresList(): { getProperty(): string; getReason(): string }[];
      }>("check", req);
      return {
        inputs: fromStruct(res.getInputs()) ?? {},
        failures: res.getFailuresList().map((f) => ({ property: f.getProperty(), reason: f.getReason() })),
      };
    },
    async diff(id, olds, news) {
      const req = new provproto.DiffRequest();
      req.setId(id);
      req.setUrn(urn);
      req.setOlds(toStruct(olds));
      req.setNews(toStruct(news));
      const res = await call<{
        getChanges(): number;
        getReplacesList(): string[];
        getDeletebeforereplace(): boolean;
      }>("diff", req);
      return {
        changes: res.getChanges(),
        replaces: res.getReplacesList(),
        deleteBeforeReplace: res.getDeletebeforereplace(),
      };
    },
    async create(props) {
      const req = new provproto.CreateRequest();
      req.setUrn(urn);
      req.setProperties(toStruct(props));
      const res = await call<{ getId(): string; getProperties(): { toJavaScript(): Props } }>("create", req);
      return { id: res.getId(), properties: fromStruct(res.getProperties()) ?? {} };
    },
    async read(id, props, inputs) {
      const req = new provproto.ReadRequest();
      req.setId(id);
      req.setUrn(urn);
      req.setProperties(toStruct(props));
      if (inputs) req.setInputs(toStruct(inputs));
      const res = await call<{
        getId(): string;
        getProperties(): { toJavaScript(): Props };
        getInputs(): { toJavaScript(): Props } | undefined;
      }>("read", req);
      return {
        id: res.getId(),
        properties: fromStruct(res.getProperties()) ?? {},
        inputs: fromStruct(res.getInputs()),
      };
    },
    async update(id, olds, news) {
      const req = new provproto.UpdateRequest();
      req.setId(id);
      req.setUrn(urn);
      req.setOlds(toStruct(olds));
      req.setNews(toStruct(news));
      const res = await call<{ getProperties(): { toJavaScript(): Props } }>("update", req);
      return { properties: fromStruct(res.getProperties()) ?? {} };
    },
    async delete(id, props) {
      const req = new provproto.DeleteRequest();
      req.setId(id);
      req.setUrn(urn);
      req.setProperties(toStruct(props));
      await call("delete", req);
    },
    stderr: () => stderr,
    closeEngine,
    exited,
    async stop() {
      client.close();
      if (child.exitCode === null && child.signalCode === null) {
        child.kill("SIGTERM");
        await exited;
      }
      if (engine.listening) await closeEngine();
    },
  };
}

/**
 * A provider as the engine sees it: every call goes through the gRPC host with `__provider` set to
 * the serialized text; results come back without `__provider`. The same shape as calling the
 * implementation directly, so one lifecycle test body runs both ways.
 */
export interface Driver {
  check(
    olds: Props,
    news: Props,
  ): Promise<{ inputs: Props; failures: { property: string; reason: string }[] }>;
  diff(
    id: string,
    olds: Props,
    news: Props,
  ): Promise<{ changes: boolean; replaces: string[]; deleteBeforeReplace: boolean }>;
  create(inputs: Props): Promise<{ id: string; outs: Props }>;
  read(
    id: string,
    props: Props,
  ): Promise<{ id: string | undefined; props: Props | undefined; inputs: Props | undefined }>;
  update(id: string, olds: Props, news: Props): Promise<{ outs: Props }>;
  delete(id: string, props: Props): Promise<void>;
}

function strip(p: Props | undefined): Props | undefined {
  if (!p) return p;
  const { __provider: _, ...rest } = p;
  return rest;
}

/** A {@link Driver} that calls a provider's implementation object directly. */
export function directDriver(impl: {
  check(o: Props, n: Props): Promise<pulumi.dynamic.CheckResult>;
  diff(id: string, o: never, n: never): Promise<pulumi.dynamic.DiffResult>;
  create(i: never): Promise<pulumi.dynamic.CreateResult>;
  read(id: string, p: never): Promise<pulumi.dynamic.ReadResult>;
  update(id: string, o: never, n: never): Promise<pulumi.dynamic.UpdateResult>;
  delete(id: string, p: never): Promise<void>;
}): Driver {
  return {
    async check(olds, news) {
      const r = await impl.check(olds, news);
      return { inputs: (r.inputs ?? {}) as Props, failures: [...(r.failures ?? [])] };
    },
    async diff(id, olds, news) {
      const r = await impl.diff(id, olds as never, news as never);
      return {
        changes: r.changes === true,
        replaces: [...(r.replaces ?? [])],
        deleteBeforeReplace: r.deleteBeforeReplace === true,
      };
    },
    async create(inputs) {
      const r = await impl.create(inputs as never);
      return { id: r.id, outs: JSON.parse(JSON.stringify(r.outs ?? {})) as Props };
    },
    async read(id, props) {
      const r = await impl.read(id, props as never);
      return {
        id: r.id || undefined,
        props: r.props as Props | undefined,
        inputs: r.inputs as Props | undefined,
      };
    },
    async update(id, olds, news) {
      const r = await impl.update(id, olds as never, news as never);
      return { outs: JSON.parse(JSON.stringify(r.outs ?? {})) as Props };
    },
    delete: (id, props) => impl.delete(id, props as never),
  };
}

/** A {@link Driver} that goes through the gRPC host with the serialized provider. */
export function hostDriver(host: ProviderHost, providerText: string): Driver {
  const withProvider = (p: Props) => ({ ...p, __provider: providerText });
  return {
    async check(olds, news) {
      const r = await host.check(Object.keys(olds).length ? withProvider(olds) : {}, withProvider(news));
      return { inputs: strip(r.inputs) ?? {}, failures: r.failures };
    },
    async diff(id, olds, news) {
      const r = await host.diff(id, withProvider(olds), withProvider(news));
      return {
        changes: r.changes === DIFF.SOME,
        replaces: r.replaces,
        deleteBeforeReplace: r.deleteBeforeReplace,
      };
    },
    async create(inputs) {
      const r = await host.create(withProvider(inputs));
      return { id: r.id, outs: strip(r.properties) ?? {} };
    },
    async read(id, props) {
      const r = await host.read(id, withProvider(props));
      return {
        id: r.id || undefined,
        props: r.id ? strip(r.properties) : undefined,
        inputs: strip(r.inputs),
      };
    },
    async update(id, olds, news) {
      const r = await host.update(id, withProvider(olds), withProvider(news));
      return { outs: strip(r.properties) ?? {} };
    },
    delete: (id, props) => host.delete(id, withProvider(props)),
  };
}

/** One request that went through a {@link RecordingProxy}, with its parsed JSON body. */
export interface ProxiedRequest {
  method: string;
  path: string;
  /** The query string without `?`, decoded into pairs. */
  query: Record<string, string>;
  body: unknown;
  status: number;
}

/** A pass-through HTTP proxy in front of the emulator that records request bodies. */
export interface RecordingProxy {
  url: string;
  requests(): ProxiedRequest[];
  /** Requests that change something (not GET). */
  writes(): ProxiedRequest[];
  reset(): void;
  /**
   * Acts once on the next request matching `method` and `path`: `after` runs once the service has
   * answered and before the answer is passed on (a concurrent edit slipped in between a read and a
   * write); `lose` drops the connection instead of answering (a response lost after the service
   * acted on the request).
   */
  once(
    match: { method: string; path: RegExp },
    action: { after?: () => Promise<void>; lose?: boolean },
  ): void;
  /**
   * Acts once on the `n`-th request that changes something (not GET, counted from 0 from now), as
   * {@link once} does; `respond` replaces the service's answer by the one it returns, given the
   * service's status and body text, the request's body text and its path. {@link reset} drops
   * those pending.
   */
  onWrite(
    n: number,
    action: {
      lose?: boolean;
      respond?: (
        upstream: { status: number; text: string },
        request: string,
        path: string,
      ) => { status: number; text: string };
    },
  ): void;
  stop(): Promise<void>;
}

/**
 * Starts a proxy on 127.0.0.1:0 forwarding to `target`. The emulator's own request log has no
 * bodies; tests that assert the exact JSON Patch sent point the provider at this proxy.
 */
export async function startRecordingProxy(target: string): Promise<RecordingProxy> {
  let log: ProxiedRequest[] = [];
  const hooks: {
    match: { method: string; path: RegExp };
    action: { after?: () => Promise<void>; lose?: boolean };
  }[] = [];
  let writeHooks: {
    n: number;
    action: Parameters<RecordingProxy["onWrite"]>[1];
  }[] = [];
  let writesSeen = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", async () => {
      const raw = Buffer.concat(chunks).toString();
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers))
        if (typeof v === "string" && k !== "host" && k !== "connection") headers[k] = v;
      try {
        const upstream = await fetch(new URL(req.url ?? "/", target), {
          method: req.method ?? "GET",
          headers,
          ...(raw.length > 0 ? { body: raw } : {}),
        });
        const text = await upstream.text();
        const u = new URL(req.url ?? "/", "http://x");
        log.push({
          method: req.method ?? "GET",
          path: u.pathname,
          query: Object.fromEntries(u.searchParams),
          // JSON bodies parsed; others (the platform API's YAML pipelines) kept as text.
          body:
            raw.length === 0
              ? undefined
              : /json/.test(req.headers["content-type"] ?? "")
                ? JSON.parse(raw)
                : raw,
          status: upstream.status,
        });
        const hookAt = hooks.findIndex(
          (h) => h.match.method === (req.method ?? "GET") && h.match.path.test(u.pathname),
        );
        if (hookAt >= 0) {
          const [hook] = hooks.splice(hookAt, 1);
          if (hook?.action.after) await hook.action.after();
          if (hook?.action.lose) {
            req.socket.destroy();
            return;
          }
        }
        let answer = { status: upstream.status, text };
        if ((req.method ?? "GET") !== "GET") {
          const index = writesSeen++;
          const writeHook = writeHooks.find((h) => h.n === index);
          if (writeHook) {
            writeHooks = writeHooks.filter((h) => h !== writeHook);
            if (writeHook.action.lose) {
              req.socket.destroy();
              return;
            }
            if (writeHook.action.respond) answer = writeHook.action.respond(answer, raw, u.pathname);
          }
        }
        const out: Record<string, string> = {};
        upstream.headers.forEach((v, k) => {
          if (
            k !== "content-length" &&
            k !== "transfer-encoding" &&
            k !== "connection" &&
            k !== "content-encoding"
          )
            out[k] = v;
        });
        res.writeHead(answer.status, out);
        res.end(answer.text);
      } catch (e) {
        res.writeHead(502);
        res.end(String(e));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests: () => log.slice(),
    writes: () => log.filter((r) => r.method !== "GET"),
    reset: () => {
      log = [];
      writeHooks = [];
    },
    once: (match, action) => {
      hooks.push({ match, action });
    },
    onWrite: (n, action) => {
      writeHooks.push({ n: writesSeen + n, action });
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The two ways every lifecycle test runs. */
export const MODES = ["direct", "gRPC host"] as const;
/** One of {@link MODES}. */
export type Mode = (typeof MODES)[number];

/** An implementation object as a resource file exports it. */
export type Impl = Parameters<typeof directDriver>[0];
