/**
 * Test harness of the native provider: starts the plugin as the engine does (the
 * `provider-plugin/pulumi-resource-flagstack` executable with an engine address, reading the port
 * it prints) and calls its gRPC methods with the messages of the SDK's own protobuf copies. The
 * plugin serves the build in `dist/` (the vitest global setup builds it).
 * @module
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createRequire } from "node:module";
import { type AddressInfo, createServer as createNetServer } from "node:net";
import { join } from "node:path";
import type { Driver } from "../provider/harness";

/** The repository root. */
export const REPO = join(__dirname, "..", "..");
/** The plugin directory a program names in `plugins: providers: path`. */
export const PLUGIN_DIR = join(REPO, "provider-plugin");

// Messages must come from the copies of grpc-js and google-protobuf that @pulumi/pulumi uses.
const pulumiRequire = createRequire(require.resolve("@pulumi/pulumi/package.json"));
const grpc = pulumiRequire("@grpc/grpc-js") as typeof import("@grpc/grpc-js");
const structproto = pulumiRequire("google-protobuf/google/protobuf/struct_pb");
const emptyproto = pulumiRequire("google-protobuf/google/protobuf/empty_pb");
const provproto = pulumiRequire("./proto/provider_pb");
const provrpc = pulumiRequire("./proto/provider_grpc_pb");

type Props = Record<string, unknown>;

/** The engine's wrapper of a secret value in a struct (`rpc.js`: `specialSigKey`, `specialSecretSig`). */
export const secret = (value: unknown): Props => ({
  "4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270",
  value,
});

/** An error the plugin answered with: the gRPC status code and its text. */
export class PluginError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
    this.name = "PluginError";
  }
}

/** A running native plugin and its RPCs. */
export interface NativePlugin {
  /** Milliseconds from spawn to the port on stdout, and to the answer of the first request. */
  startup: { portMs: number; firstAnswerMs: number };
  /** The port the plugin printed, which the engine dials. */
  port: number;
  /** Everything the plugin wrote to stdout (the engine reads the port from its first line). */
  stdout(): string;
  getPluginInfo(): Promise<{ version: string }>;
  getSchema(): Promise<string>;
  checkConfig(news: Props): Promise<{ inputs: Props; failures: { property: string; reason: string }[] }>;
  /** `Configure` with the provider's inputs as `args` (what the engine sends). */
  configure(args: Props): Promise<{ acceptSecrets: boolean; supportsPreview: boolean }>;
  check(
    urn: string,
    olds: Props,
    news: Props,
  ): Promise<{ inputs: Props; failures: { property: string; reason: string }[] }>;
  diff(
    urn: string,
    id: string,
    olds: Props,
    news: Props,
  ): Promise<{ changes: number; replaces: string[]; deleteBeforeReplace: boolean }>;
  create(urn: string, props: Props): Promise<{ id: string; properties: Props }>;
  /** `Read`; `props` undefined sends none, as `pulumi import` does. */
  read(
    urn: string,
    id: string,
    props?: Props,
  ): Promise<{ id: string; properties: Props; inputs: Props | undefined }>;
  update(urn: string, id: string, olds: Props, news: Props): Promise<{ properties: Props }>;
  /** `Invoke` of a function (`flagstack:index:getWorkspace`, ...). */
  invoke(
    token: string,
    args: Props,
  ): Promise<{ outputs: Props; failures: { property: string; reason: string }[] }>;
  delete(urn: string, id: string, props: Props): Promise<void>;
  /** Everything the plugin wrote to stderr. */
  stderr(): string;
  /** Closes the stand-in engine endpoint, as a killed engine would leave it. */
  closeEngine(): Promise<void>;
  /** Resolves when the plugin's process ends, with its exit status (`null` when a signal ended it). */
  exited: Promise<number | null>;
  stop(): Promise<void>;
}

/** The URN of a native resource of `type` (`flagstack:index:Flag`) named `name`. */
export const urnOf = (type: string, name = "r"): string => `urn:pulumi:dev::shop::${type}::${name}`;

/** `DiffResponse.DiffChanges`: 0 unknown, 1 none, 2 some. */
export const DIFF = { UNKNOWN: 0, NONE: 1, SOME: 2 } as const;

const toStruct = (value: Props) => structproto.Struct.fromJavaScript(JSON.parse(JSON.stringify(value)));

/**
 * Starts the plugin executable (`env` added to this process's environment) and measures its
 * start: spawn → port printed → first request (`GetPluginInfo`) answered. The engine's address it
 * gets is a stand-in TCP listener that the test may close (the plugin dials it to notice the
 * engine's death).
 */
export async function startNativePlugin(env: Record<string, string> = {}): Promise<NativePlugin> {
  const engine = createNetServer((socket) => socket.destroy());
  await new Promise<void>((resolve) => engine.listen(0, "127.0.0.1", resolve));
  const enginePort = (engine.address() as AddressInfo).port;
  const closeEngine = () => new Promise<void>((resolve) => engine.close(() => resolve()));
  const started = process.hrtime.bigint();
  const ms = () => Number(process.hrtime.bigint() - started) / 1e6;
  const child: ChildProcess = spawn(
    join(PLUGIN_DIR, "pulumi-resource-flagstack"),
    [`127.0.0.1:${enginePort}`],
    {
      cwd: REPO,
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let stderr = "";
  child.stderr?.on("data", (d: Buffer) => {
    stderr += d.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  let out = "";
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout?.on("data", (d: Buffer) => {
      out += d.toString();
      const m = /^(\d+)\s*$/m.exec(out);
      if (m) resolve(Number(m[1]));
    });
    child.once("exit", (code) => reject(new Error(`plugin exited with ${code}: ${stderr}`)));
  });
  const portMs = ms();
  const client = new provrpc.ResourceProviderClient(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
  const call = <Res>(method: string, req: unknown): Promise<Res> =>
    new Promise((resolve, reject) => {
      client[method](req, (err: { code: number; details?: string; message: string } | null, res: Res) =>
        err ? reject(new PluginError(err.code, err.details ?? err.message)) : resolve(res),
      );
    });
  type StructLike = { toJavaScript(): Props } | undefined;
  const failuresOf = (res: { getFailuresList(): { getProperty(): string; getReason(): string }[] }) =>
    res.getFailuresList().map((f) => ({ property: f.getProperty(), reason: f.getReason() }));

  const plugin: Omit<NativePlugin, "startup"> = {
    port,
    stdout: () => out,
    async getPluginInfo() {
      const res = await call<{ getVersion(): string }>("getPluginInfo", new emptyproto.Empty());
      return { version: res.getVersion() };
    },
    async getSchema() {
      const res = await call<{ getSchema(): string }>("getSchema", new provproto.GetSchemaRequest());
      return res.getSchema();
    },
    async checkConfig(news) {
      const req = new provproto.CheckRequest();
      req.setUrn("urn:pulumi:dev::shop::pulumi:providers:flagstack::default");
      req.setOlds(toStruct({}));
      req.setNews(toStruct(news));
      const res = await call<{ getInputs(): StructLike } & Parameters<typeof failuresOf>[0]>(
        "checkConfig",
        req,
      );
      return { inputs: res.getInputs()?.toJavaScript() ?? {}, failures: failuresOf(res) };
    },
    async configure(args) {
      const req = new provproto.ConfigureRequest();
      req.setArgs(toStruct(args));
      req.setAcceptsecrets(true);
      const res = await call<{ getAcceptsecrets(): boolean; getSupportspreview(): boolean }>(
        "configure",
        req,
      );
      return { acceptSecrets: res.getAcceptsecrets(), supportsPreview: res.getSupportspreview() };
    },
    async check(urn, olds, news) {
      const req = new provproto.CheckRequest();
      req.setUrn(urn);
      req.setOlds(toStruct(olds));
      req.setNews(toStruct(news));
      const res = await call<{ getInputs(): StructLike } & Parameters<typeof failuresOf>[0]>("check", req);
      return { inputs: res.getInputs()?.toJavaScript() ?? {}, failures: failuresOf(res) };
    },
    async diff(urn, id, olds, news) {
      const req = new provproto.DiffRequest();
      req.setUrn(urn);
      req.setId(id);
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
    async create(urn, props) {
      const req = new provproto.CreateRequest();
      req.setUrn(urn);
      req.setProperties(toStruct(props));
      const res = await call<{ getId(): string; getProperties(): StructLike }>("create", req);
      return { id: res.getId(), properties: res.getProperties()?.toJavaScript() ?? {} };
    },
    async read(urn, id, props) {
      const req = new provproto.ReadRequest();
      req.setUrn(urn);
      req.setId(id);
      if (props !== undefined) req.setProperties(toStruct(props));
      const res = await call<{ getId(): string; getProperties(): StructLike; getInputs(): StructLike }>(
        "read",
        req,
      );
      return {
        id: res.getId(),
        properties: res.getProperties()?.toJavaScript() ?? {},
        inputs: res.getInputs()?.toJavaScript(),
      };
    },
    async update(urn, id, olds, news) {
      const req = new provproto.UpdateRequest();
      req.setUrn(urn);
      req.setId(id);
      req.setOlds(toStruct(olds));
      req.setNews(toStruct(news));
      const res = await call<{ getProperties(): StructLike }>("update", req);
      return { properties: res.getProperties()?.toJavaScript() ?? {} };
    },
    async invoke(token, args) {
      const req = new provproto.InvokeRequest();
      req.setTok(token);
      req.setArgs(toStruct(args));
      const res = await call<{ getReturn(): StructLike } & Parameters<typeof failuresOf>[0]>("invoke", req);
      return { outputs: res.getReturn()?.toJavaScript() ?? {}, failures: failuresOf(res) };
    },
    async delete(urn, id, props) {
      const req = new provproto.DeleteRequest();
      req.setUrn(urn);
      req.setId(id);
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
  await plugin.getPluginInfo();
  return { ...plugin, startup: { portMs, firstAnswerMs: ms() } };
}

/** A lifecycle {@link Driver} of one native resource type, through the plugin. */
export function nativeDriver(plugin: NativePlugin, type: string): Driver {
  const urn = urnOf(type);
  return {
    check: (olds, news) => plugin.check(urn, olds, news),
    async diff(id, olds, news) {
      const r = await plugin.diff(urn, id, olds, news);
      return {
        changes: r.changes === DIFF.SOME,
        replaces: r.replaces,
        deleteBeforeReplace: r.deleteBeforeReplace,
      };
    },
    async create(inputs) {
      const r = await plugin.create(urn, inputs);
      return { id: r.id, outs: r.properties };
    },
    async read(id, props) {
      const r = await plugin.read(urn, id, props);
      return { id: r.id || undefined, props: r.id ? r.properties : undefined, inputs: r.inputs };
    },
    async update(id, olds, news) {
      const r = await plugin.update(urn, id, olds, news);
      return { outs: r.properties };
    },
    delete: (id, props) => plugin.delete(urn, id, props),
  };
}
