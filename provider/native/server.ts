/**
 * The native provider `flagstack`: a Pulumi resource provider plugin served by the Node.js SDK's
 * provider server (`main(provider, args)` of `@pulumi/pulumi/provider`), for programs in every
 * Pulumi language. Each resource token `flagstack:index:<Type>` is dispatched to that kind's
 * `impl` (`./kinds.ts`), the same lifecycle verbs the dynamic resources use: `check`, `diff`,
 * `create`, `read`, `update` and `delete` are not implemented twice. Each function
 * `flagstack:index:get<Thing>` goes to the lookup a TypeScript program calls (`./functions.ts`).
 *
 * What the SDK's server does not do, a thin wrapper around its gRPC handlers does
 * ({@link wrapHandlers}); the SDK is used as published, not forked:
 * - `Configure`: the SDK's handler answers without passing the configuration on (its `Provider`
 *   interface has no `configure`). The wrapper reads the provider's inputs (`flagstack:adminApiUrl`,
 *   ...; the stack config for the default provider, the resource's inputs for an explicit one),
 *   feeds them to the kinds' `configure` (`provider/core/config.ts` `configureProvider`), and
 *   answers `acceptSecrets: false`, as the dynamic-provider host does: the engine then unwraps
 *   secret inputs before each call and marks as secret every output whose input of the same name
 *   was secret (sdk/go/common/resource/plugin/provider_plugin.go `annotateSecrets`), so secrets
 *   are mapped exactly as they are for the dynamic resources.
 * - `CheckConfig`: the SDK's handler is unimplemented; the wrapper checks each setting with the
 *   settings' zod schema and names the bad one.
 * - `Diff`: the SDK's handler passes on only `changes`, `replaces` and `deleteBeforeReplace`, so the
 *   engine learns that a resource changes but not which property (`pulumi preview --diff` and the
 *   JSON steps would name none). The wrapper answers the kind's `diff` with the changed inputs
 *   (`diffs`), a detailed diff (one entry per changed input: add, update or delete, and whether it
 *   replaces; {@link detailedDiff}) and the stable inputs.
 * - `Read`: the SDK's handler calls `req.getProperties().toJavaScript()` before the provider's
 *   `read` runs (`@pulumi/pulumi` 3.259.0 `provider/server.js` line 244, `Server.read`), and an
 *   import request (`pulumi import`) carries no properties, so it throws a TypeError. The wrapper
 *   gives such a request an empty property bag. And for an object that is gone the SDK answers an
 *   empty bag where the engine expects none (`pulumi import` would then say the provider cannot
 *   import, instead of that the object does not exist): the wrapper drops it.
 *
 * - `Check`: a kind's secret inputs (its `secretInputs`) come back as secrets
 *   ({@link markSecretInputs}), so the engine encrypts them in the state even when the program
 *   passed plain text; the schema marks them `secret` too.
 *
 * Each provider instance, default or explicit, is a process of its own (the engine starts one
 * plugin per provider resource: pkg/host/host.go `Provider`), so the process-wide settings of
 * `provider/core/config.ts` are per instance: two explicit providers with different accounts
 * in one program work.
 *
 * The server names no kind: what one kind does differently is data or a hook of that kind's
 * definition (its `impl`, `provider/core/resource.ts` `ResourceHandlers`; its entry of
 * `./kinds.ts`), read here the same way for every kind.
 *
 * Startup: the resource modules (zod schemas, SDK clients) load on the first call that needs
 * them, not before the server answers its first request (`GetPluginInfo`).
 * @module
 */
import { readFile } from "node:fs/promises";
import { dirname } from "node:path";
import type { dynamic } from "@pulumi/pulumi";
import type * as provproto from "@pulumi/pulumi/proto/provider_pb";
import type { CheckFailure, Provider } from "@pulumi/pulumi/provider";
import type * as structproto from "google-protobuf/google/protobuf/struct_pb";
import type { ProviderSettings as SettingsSchema } from "../core/config";
import { watchEngine } from "../core/host";
import { openListReadsForOperation } from "../core/list-reads";
import type { NativeKind } from "./kinds";

/** The marker of a secret value in a struct the engine sends (`rpc.js` `specialSigKey`). */
const SIG_KEY = "4dabf18193072939515e22adb298388d";
const SECRET_SIG = "1b47061264138c4ac30d75fd1eb44270";
/** The value the engine sends for an input not known yet (preview). */
const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";

/** The value with every secret wrapper replaced by the value it wraps. */
export function unwrapSecrets(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(unwrapSecrets);
  if (value !== null && typeof value === "object") {
    const record = value as Record<string, unknown>;
    if (record[SIG_KEY] === SECRET_SIG) return unwrapSecrets(record.value);
    return Object.fromEntries(Object.entries(record).map(([k, v]) => [k, unwrapSecrets(v)]));
  }
  return value;
}

/** The value as plain JSON: `undefined` members dropped (a protobuf `Struct` cannot carry them). */
const plain = <T>(value: T): T => (value === undefined ? value : (JSON.parse(JSON.stringify(value)) as T));

/**
 * The outputs with each of the kind's secret outputs (`secretOutputs`: keys the service shows once)
 * in the engine's secret wrapper, so the engine stores them encrypted, as the dynamic resource's
 * `additionalSecretOutputs` does (`provider/core/secret-outputs.ts`); the engine unmarshals a
 * provider's outputs keeping secrets.
 */
export function withSecrets(kind: Pick<NativeKind, "secretOutputs">, outs: Record<string, unknown>) {
  const out = plain(outs);
  for (const name of kind.secretOutputs ?? [])
    if (out[name] !== undefined) out[name] = { [SIG_KEY]: SECRET_SIG, value: out[name] };
  return out;
}

/**
 * The checked inputs with each of the kind's secret inputs (`secretInputs`: a secret's value) in the
 * engine's secret wrapper. The engine keeps the secrets a provider's `Check` answers (it unmarshals
 * the checked inputs keeping secrets: `provider_plugin.go` `Check`) and records those inputs, so a
 * YAML or Python program that passes plain text (no `fn::secret`) still gets them encrypted in the
 * state, as the TypeScript class's wrapping does (`provider/core/secret-inputs.ts`).
 */
export function markSecretInputs(kind: Pick<NativeKind, "secretInputs">, inputs: Record<string, unknown>) {
  const out = plain(inputs);
  for (const name of kind.secretInputs ?? [])
    if (out[name] !== undefined) out[name] = { [SIG_KEY]: SECRET_SIG, value: unwrapSecrets(out[name]) };
  return out;
}

// ---------------------------------------------------------------------------------------------
// Configuration

/**
 * The provider's configuration as `flagstack:<name>` → text, from a `Configure` or `CheckConfig`
 * request: the provider's inputs (`args`: `adminApiUrl`, ...; numbers and booleans from an explicit
 * provider become text, as stack config is), and the deprecated `variables`
 * (`flagstack:config:adminApiUrl`) where `args` lacks a key.
 */
export function configValues(
  args: Record<string, unknown> | undefined,
  variables: Iterable<[string, string]> = [],
): Map<string, string> {
  const values = new Map<string, string>();
  for (const [key, value] of variables) {
    const m = /^([^:]+):config:(.+)$/.exec(key);
    if (m) values.set(`${m[1]}:${m[2]}`, value);
  }
  for (const [key, raw] of Object.entries(args ?? {})) {
    const value = unwrapSecrets(raw);
    if (key === "version" || value === undefined || value === null) continue;
    values.set(`flagstack:${key}`, typeof value === "string" ? value : JSON.stringify(value));
  }
  return values;
}

/**
 * The check failures of a configuration: one per setting the settings' schema refuses, named as
 * the provider's input (`adminApiUrl`). Unknown values (a preview) are not judged.
 */
export function configFailures(
  settings: typeof SettingsSchema,
  settingKeys: Record<string, { key: string }>,
  values: ReadonlyMap<string, string>,
): CheckFailure[] {
  const raw: Record<string, string> = {};
  for (const [name, { key }] of Object.entries(settingKeys)) {
    const value = values.get(key);
    if (value !== undefined && value !== "" && !value.includes(UNKNOWN)) raw[name] = value;
  }
  const parsed = settings.safeParse(raw);
  if (parsed.success) return [];
  return parsed.error.issues.map((issue) => ({
    property: String(issue.path[0]),
    reason: `${settingKeys[String(issue.path[0])]?.key ?? String(issue.path[0])}: ${issue.message}`,
  }));
}

// ---------------------------------------------------------------------------------------------
// The provider: a dispatch by type token

type Kinds = typeof import("./kinds");
type Functions = typeof import("./functions");

let functionsModule: Functions | undefined;
/** The functions, loaded on the first invoke. */
function functions(): Functions {
  functionsModule ??= require("./functions") as Functions;
  return functionsModule;
}

let kindsModule: Kinds | undefined;
/** The kinds, loaded on first use: most of the process's start-up cost, kept off the first answer. */
function kinds(): Kinds {
  if (kindsModule === undefined) {
    kindsModule = require("./kinds") as Kinds;
    // The provider binary keeps V8's code cache of a start that loaded the kinds (`scripts/sea-main.cjs`).
    (globalThis as Record<symbol, unknown>)[Symbol.for("flagstack.binary.dispatch")] = true;
  }
  return kindsModule;
}

/** The resource type of a URN: `urn:pulumi:<stack>::<project>::<parent$...$type>::<name>`. */
export function urnType(urn: string): string {
  const qualified = urn.split("::")[2] ?? "";
  return qualified.slice(qualified.lastIndexOf("$") + 1);
}

function kindOf(urn: string): NativeKind {
  const type = urnType(urn);
  const kind = kinds().NATIVE_KINDS_BY_TOKEN.get(type);
  if (kind === undefined) {
    const known = kinds().NATIVE_KINDS.map((k) => k.token);
    throw new Error(`flagstack: unknown resource type ${type}; this provider serves ${known.join(", ")}`);
  }
  return kind;
}

/** What {@link nativeProvider} serves beside the kinds. */
export interface NativeProviderOptions {
  /** The provider's version (semver): the package's. */
  version: string;
  /** The package schema's JSON text, read when the engine asks. */
  schema: () => Promise<string>;
}

/** The provider object given to the SDK's server: each verb goes to the kind's `impl`. */
export function nativeProvider(options: NativeProviderOptions): Provider {
  return {
    version: options.version,
    getSchema: options.schema,
    async check(urn, olds, news) {
      const kind = kindOf(urn);
      const result = await kind.impl.check(olds ?? {}, news ?? {});
      const inputs = result.inputs === undefined ? undefined : markSecretInputs(kind, result.inputs);
      return { inputs, ...(result.failures ? { failures: result.failures } : {}) };
    },
    async diff(id, urn, olds, news) {
      return kindOf(urn).impl.diff(id, olds ?? {}, news ?? {});
    },
    async create(urn, inputs) {
      const kind = kindOf(urn);
      const result = await kind.impl.create(inputs ?? {});
      return { id: result.id, outs: withSecrets(kind, result.outs ?? {}) };
    },
    async read(id, urn, props) {
      const kind = kindOf(urn);
      const result = await kind.impl.read(id, props ?? {});
      // No id: the object is gone (the engine removes it from the state on refresh).
      return {
        id: result.id ?? "",
        props: withSecrets(kind, result.props ?? {}),
        ...(result.inputs !== undefined ? { inputs: plain(result.inputs) } : {}),
      };
    },
    async update(id, urn, olds, news) {
      const kind = kindOf(urn);
      const result = await kind.impl.update(id, olds ?? {}, news ?? {});
      return { outs: withSecrets(kind, result.outs ?? {}) };
    },
    async delete(id, urn, props) {
      await kindOf(urn).impl.delete(id, props ?? {});
    },
    async invoke(token, args) {
      const fn = functions().NATIVE_FUNCTIONS_BY_TOKEN.get(token);
      if (fn === undefined) {
        const known = functions().NATIVE_FUNCTIONS.map((f) => f.token);
        throw new Error(`flagstack: unknown function ${token}; this provider serves ${known.join(", ")}`);
      }
      return { outputs: plain(await fn.run(args ?? {})) };
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Detailed diffs

/**
 * Inputs no kind's `diff` compares: they say how a change is made (adopt, change titles, the change
 * request of a gated environment and whether to wait for it), not what.
 */
const UNCOMPARED = new Set(["adopt", "title", "comment", "changeRequest", "waitForApproval"]);

/** The kind of one property's change, as the engine's `PropertyDiff.Kind` numbers it. */
export const PropertyDiffKind = {
  ADD: 0,
  ADD_REPLACE: 1,
  DELETE: 2,
  DELETE_REPLACE: 3,
  UPDATE: 4,
  UPDATE_REPLACE: 5,
} as const;
type PropertyDiffKind = (typeof PropertyDiffKind)[keyof typeof PropertyDiffKind];

/** What a kind's `diff` answers. */
type KindDiff = dynamic.DiffResult;

/** What the detailed diff reads of a kind: its inputs schema and its `impl`'s diff hooks. */
type DiffedKind = Pick<NativeKind, "inputs"> & {
  impl: Pick<NativeKind["impl"], "diffFields" | "replaceReasons">;
};

/**
 * The fields a kind's `diff` compares, each with the inputs it stands for: the kind's own
 * `diffFields` (each field with the ones of its inputs the new inputs give), or else each of its
 * inputs by name (all but {@link UNCOMPARED}).
 */
export function comparedFields(kind: DiffedKind, news: Record<string, unknown>): Map<string, string[]> {
  const declared = kind.impl.diffFields;
  if (declared !== undefined) {
    return new Map(Object.entries(declared).map(([field, inputs]) => [field, given(inputs, news)]));
  }
  const fields = new Map<string, string[]>();
  for (const key of Object.keys(kind.inputs.shape)) if (!UNCOMPARED.has(key)) fields.set(key, [key]);
  return fields;
}

/** The keys the new inputs give a value to, or all of them when none has one. */
function given(keys: readonly string[], news: Record<string, unknown>): string[] {
  const present = keys.filter((k) => news[k] !== undefined);
  return present.length > 0 ? present : [...keys];
}

/**
 * The inputs behind a reason to replace that is none of the kind's fields: those of the kind's
 * `replaceReasons` entry the new inputs give, or else the input of the reason's name.
 */
function replaceReasonInputs(kind: DiffedKind, reason: string, news: Record<string, unknown>): string[] {
  const reasons = kind.impl.replaceReasons;
  const inputs = reasons !== undefined && Object.hasOwn(reasons, reason) ? reasons[reason] : undefined;
  return inputs === undefined ? [reason] : given(inputs, news);
}

/**
 * The engine's detailed diff of a kind's `diff` answer, by input: each input whose field changed
 * (is not among the answer's `stables`) or is a reason to replace, as an addition (no old value),
 * a deletion (no new value) or an update, replacing when its field is in `replaces`. The old values
 * are the recorded outputs, not the old inputs (`inputDiff: false`). Empty when the answer shows
 * no change, or names no field (then the engine shows its own comparison of the inputs).
 */
export function detailedDiff(
  kind: DiffedKind,
  olds: Record<string, unknown>,
  news: Record<string, unknown>,
  result: KindDiff,
): Map<string, PropertyDiffKind> {
  const out = new Map<string, PropertyDiffKind>();
  if (result.changes !== true || result.stables === undefined) return out;
  const stables = new Set(result.stables);
  const replaces = new Set(result.replaces ?? []);
  const fields = comparedFields(kind, news);
  const changed = new Map<string, string[]>();
  for (const [field, inputs] of fields) if (!stables.has(field)) changed.set(field, inputs);
  for (const reason of replaces)
    changed.set(reason, fields.get(reason) ?? replaceReasonInputs(kind, reason, news));
  for (const [field, inputs] of changed) {
    const replace = replaces.has(field);
    for (const key of inputs) {
      const change: PropertyDiffKind =
        news[key] === undefined
          ? PropertyDiffKind.DELETE
          : olds[key] === undefined
            ? PropertyDiffKind.ADD
            : PropertyDiffKind.UPDATE;
      // The replacing kind is the plain one + 1. Two fields read from one input (`diffFields`):
      // a replacement wins.
      const kindOfChange = (replace ? change + 1 : change) as PropertyDiffKind;
      const current = out.get(key);
      if (current === undefined || replace) out.set(key, kindOfChange);
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// The request wrapper around the SDK's gRPC handlers

/** A gRPC unary call of the provider service, as grpc-js hands it to a handler. */
interface UnaryCall<Req> {
  request: Req;
}
type Callback = (error: unknown, response?: unknown) => void;
// biome-ignore lint/suspicious/noExplicitAny: the SDK server's handlers take each RPC's own request type.
type Handler = (call: UnaryCall<any>, callback: Callback) => unknown;

// The modules a bundle of the provider (the provider binary, `../binary.ts`) carries in place of
// resolving them at run time: the bundler cannot follow a `require.resolve` with `paths`.
const BUNDLED_SDK_MODULES = Symbol.for("flagstack.native.sdkModules");

/** The SDK's own copy of a module its server uses (it has a nested google-protobuf, for one). */
function sdkModule<T>(name: string): T {
  const bundled = (globalThis as { [BUNDLED_SDK_MODULES]?: Record<string, () => unknown> })[
    BUNDLED_SDK_MODULES
  ];
  if (bundled?.[name]) return bundled[name]() as T;
  const sdkDir = dirname(require.resolve("@pulumi/pulumi/package.json"));
  return require(require.resolve(name, { paths: [sdkDir] })) as T;
}

/**
 * The SDK server's handlers with `Configure`, `CheckConfig`, `Diff` and `Read` wrapped as the
 * module notes say; every other handler is the SDK's.
 */
export function wrapHandlers(handlers: Record<string, Handler>): Record<string, Handler> {
  const proto = sdkModule<typeof provproto>("@pulumi/pulumi/proto/provider_pb");
  const { Struct } = sdkModule<typeof structproto>("google-protobuf/google/protobuf/struct_pb");
  const read = handlers.read;
  // The SDK's handlers are methods of its Server class: the wrapper inherits them, so each one
  // that is not wrapped is the SDK's, called with the wrapper as `this` (grpc-js binds them).
  return Object.assign(Object.create(handlers) as Record<string, Handler>, {
    diff(call: UnaryCall<provproto.DiffRequest>, callback: Callback) {
      (async () => {
        const req = call.request;
        const olds = (req.getOlds()?.toJavaScript() ?? {}) as Record<string, unknown>;
        const news = (req.getNews()?.toJavaScript() ?? {}) as Record<string, unknown>;
        const kind = kindOf(req.getUrn());
        const result = (await kind.impl.diff(req.getId(), olds, news)) as KindDiff;
        const { DiffChanges } = proto.DiffResponse;
        const resp = new proto.DiffResponse().setChanges(
          result.changes === true
            ? DiffChanges.DIFF_SOME
            : result.changes === false
              ? DiffChanges.DIFF_NONE
              : DiffChanges.DIFF_UNKNOWN,
        );
        if (result.replaces && result.replaces.length > 0) resp.setReplacesList(result.replaces);
        if (result.deleteBeforeReplace) resp.setDeletebeforereplace(true);
        const detailed = detailedDiff(kind, olds, news, result);
        if (detailed.size > 0) {
          resp.setDiffsList([...detailed.keys()]);
          const map = resp.getDetaileddiffMap();
          for (const [key, change] of detailed) {
            map.set(key, new proto.PropertyDiff().setKind(change).setInputdiff(false));
          }
          resp.setHasdetaileddiff(true);
        }
        return resp;
      })().then(
        (resp) => callback(null, resp),
        (e) => callback(e),
      );
    },
    read(this: unknown, call: UnaryCall<provproto.ReadRequest>, callback: Callback) {
      // An import's Read has only the id: the SDK would call toJavaScript() on the missing bag.
      if (call.request.getProperties() === undefined) call.request.setProperties(new Struct());
      // Gone (no id): the SDK answers an empty property bag, which `pulumi import` takes for a
      // provider that cannot import; no bag at all is the engine's "does not exist" (a refresh
      // only looks at the id).
      const answer: Callback = (error, response) => {
        const resp = response as provproto.ReadResponse | undefined;
        if (resp && resp.getId() === "") resp.clearProperties();
        callback(error, response);
      };
      return read?.call(this, call, answer);
    },
    checkConfig(call: UnaryCall<provproto.CheckRequest>, callback: Callback) {
      try {
        const news = call.request.getNews();
        const values = configValues(news?.toJavaScript() as Record<string, unknown> | undefined);
        const { ProviderSettings, SETTINGS } = require("../core/config") as typeof import("../core/config");
        const resp = new proto.CheckResponse();
        if (news) resp.setInputs(news);
        resp.setFailuresList(
          configFailures(ProviderSettings, SETTINGS, values).map((f) =>
            new proto.CheckFailure().setProperty(f.property).setReason(f.reason),
          ),
        );
        callback(null, resp);
      } catch (e) {
        callback(e);
      }
    },
    configure(call: UnaryCall<provproto.ConfigureRequest>, callback: Callback) {
      (async () => {
        const values = configValues(
          call.request.getArgs()?.toJavaScript() as Record<string, unknown> | undefined,
          call.request.getVariablesMap().getEntryList(),
        );
        const config = {
          get: (key: string) => values.get(key),
          require(key: string): string {
            const value = values.get(key);
            if (value === undefined) throw new Error(`flagstack: missing required configuration ${key}`);
            return value;
          },
        };
        // Every kind's configure (today the one all share: provider/core/resource.ts).
        for (const configure of new Set(kinds().NATIVE_KINDS.map((k) => k.impl.configure))) {
          await configure({ config });
        }
        return new proto.ConfigureResponse()
          .setAcceptsecrets(false)
          .setAcceptresources(false)
          .setAcceptoutputs(false)
          .setSupportspreview(false);
      })().then(
        (resp) => callback(null, resp),
        (e) => callback(e),
      );
    },
  });
}

/**
 * Runs `start` (which calls the SDK's `main`) with the SDK server's handlers wrapped: `main`
 * registers them with `grpc.Server#addService`, the one place they can be reached without
 * forking the SDK, so that method is wrapped for that one call.
 */
export async function withWrappedHandlers(start: () => Promise<void>): Promise<void> {
  const grpc = sdkModule<{ Server: { prototype: { addService(service: unknown, impl: object): void } } }>(
    "@grpc/grpc-js",
  );
  const proto = grpc.Server.prototype;
  const addService = proto.addService;
  proto.addService = function (this: unknown, service: unknown, implementation: object) {
    proto.addService = addService;
    return addService.call(this, service, wrapHandlers(implementation as Record<string, Handler>));
  };
  try {
    await start();
  } finally {
    proto.addService = addService;
  }
}

/**
 * Gives a bundle's own copies of the modules {@link sdkModule} resolves from `@pulumi/pulumi`'s
 * directory (the provider binary, whose bundler resolved them from there).
 */
export function useBundledSdkModules(modules: Record<string, () => unknown>): void {
  (globalThis as { [BUNDLED_SDK_MODULES]?: Record<string, () => unknown> })[BUNDLED_SDK_MODULES] = modules;
}

/** What the plugin's entry point passes to {@link serve}. */
export interface ServeOptions {
  /** The committed package schema (`provider-plugin/schema.json`), or its text (the provider binary carries it). */
  schemaFile: string | { text: string };
  /** The package version. */
  version: string;
}

/**
 * Serves the native provider: binds 127.0.0.1:0 and prints the port, as the engine expects of a
 * plugin. `args` are the plugin's command-line arguments (the engine's address first).
 */
export async function serve(args: readonly string[], options: ServeOptions): Promise<void> {
  const { main } = require("@pulumi/pulumi/provider") as typeof import("@pulumi/pulumi/provider");
  const provider = nativeProvider({
    version: options.version,
    schema: async () => {
      const file = options.schemaFile;
      return typeof file === "string" ? readFile(file, "utf8") : file.text;
    },
  });
  await withWrappedHandlers(() => main(provider, [...args]));
  const engine = engineArgument(args);
  // Ends with the engine, like the dynamic-provider host (`provider/core/host.ts`, whose watcher
  // recognises that host by its script path, hence the argv in that host's shape).
  if (engine !== undefined) watchEngine([process.execPath, "/cmd/dynamic-provider", engine]);
  // The plugin serves one engine operation: its reads may share lists (`../core/list-reads.ts`).
  if (engine !== undefined) openListReadsForOperation();
}

/** The engine's address among a plugin's arguments (the flags the engine adds skipped). */
export function engineArgument(args: readonly string[]): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (arg === "--tracing") i++;
    else if (arg !== "--logtostderr" && !arg.startsWith("-v=")) return arg;
  }
  return undefined;
}
