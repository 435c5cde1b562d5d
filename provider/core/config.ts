/**
 * Provider configuration and the process-wide API clients.
 *
 * Credentials and base URLs reach the provider through the dynamic provider's `configure`, which
 * the engine feeds with the whole stack config (ref pulumi-notes §4: keys arrive namespaced, secrets
 * decrypted, values as strings), with environment-variable fallbacks. Nothing here is captured by
 * the serialized provider (ref pulumi-notes §2-§3): the provider methods `require` this module at
 * call time, so the settings live only in the provider process.
 *
 * One OS process serves every dynamic resource of a deployment and calls arrive concurrently (ref
 * pulumi-notes §1), so clients are kept per base URL and key for the whole process: one rate
 * limiter and one keep-alive pool are shared by every resource.
 *
 * A credential set in the stack config without `--secret` is warned about from the program's
 * process, the only one that can tell ({@link warnPlaintextCredentials}), and kept out of the
 * stack's state by a provider of flagstack's own (`./config-provider.ts`).
 * @module
 */

import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type * as pulumi from "@pulumi/pulumi";
import YAML from "yaml";
import { z } from "zod";
import { AdminAuth } from "../../sdk/admin/auth";
import { AdminClient } from "../../sdk/admin/client";
import type { HttpCore } from "../../sdk/core/request";
import type { PlatformClient } from "../../sdk/platform/client";
import { door } from "./door";
import { dropLists } from "./list-reads";
import { platformClientClass } from "./platform-client-loader";
import { pulumiLog, pulumiRuntimeStore } from "./pulumi-runtime";

/** Each setting: its stack-config key and its environment-variable fallback. */
export const SETTINGS = {
  adminApiUrl: { key: "flagstack:adminApiUrl", env: "FLAGSTACK_ADMIN_API_URL" },
  adminApiKey: { key: "flagstack:adminApiKey", env: "FLAGSTACK_ADMIN_API_KEY" },
  adminAuth: { key: "flagstack:adminAuth", env: "FLAGSTACK_ADMIN_AUTH" },
  platformApiUrl: { key: "flagstack:platformApiUrl", env: "FLAGSTACK_PLATFORM_API_URL" },
  platformApiKey: { key: "flagstack:platformApiKey", env: "FLAGSTACK_PLATFORM_API_KEY" },
  accountId: { key: "flagstack:accountId", env: "FLAGSTACK_ACCOUNT_ID" },
  requestsPerSecond: { key: "flagstack:requestsPerSecond", env: "FLAGSTACK_REQUESTS_PER_SECOND" },
  maxRetries: { key: "flagstack:maxRetries", env: "FLAGSTACK_MAX_RETRIES" },
  changeTitle: { key: "flagstack:changeTitle", env: "FLAGSTACK_CHANGE_TITLE" },
  changeComment: { key: "flagstack:changeComment", env: "FLAGSTACK_CHANGE_COMMENT" },
} as const;

/** The name of one setting. */
export type SettingName = keyof typeof SETTINGS;

/** The settings' keys and variables, in order. */
const SETTING_LIST = Object.values(SETTINGS);

const optionalText = z
  .string()
  .transform((s) => s.trim())
  .pipe(z.string().min(1))
  .optional();
const optionalUrl = z.url({ protocol: /^https?$/, error: "must be an http(s) URL" }).optional();

/** The provider's settings, validated once they are read. */
export const ProviderSettings = z.object({
  adminApiUrl: optionalUrl,
  adminApiKey: optionalText,
  /**
   * How the admin key is sent: `bearer` or `x-api-key` (a Harness token); default by the key's
   * shape (`sdk/admin/auth.ts`).
   */
  adminAuth: AdminAuth.optional(),
  platformApiUrl: optionalUrl,
  platformApiKey: optionalText,
  accountId: optionalText,
  // "Infinity" (or "unlimited") turns the client-side limit off, as the SDK option does.
  requestsPerSecond: z
    .union([
      z.enum(["Infinity", "unlimited"]).transform(() => Number.POSITIVE_INFINITY),
      z.coerce.number().positive("must be a positive number, or Infinity for no limit"),
    ])
    .optional(),
  maxRetries: z.coerce.number().int("must be a whole number").min(0, "must be 0 or more").optional(),
  changeTitle: optionalText,
  changeComment: optionalText,
});
/** The provider's settings. */
export type ProviderSettings = z.output<typeof ProviderSettings>;

interface ProcessState {
  /** Values from `configure` (stack config); they win over the environment. */
  configured: Partial<Record<SettingName, string>>;
  clients: Map<string, unknown>;
}

// Kept on globalThis under a registered symbol so that two copies of this module in one process
// (the package's own source and its build, or a nested install) still share one client per URL.
const STATE_KEY = Symbol.for("flagstack.provider.state");

function processState(): ProcessState {
  const g = globalThis as unknown as Record<symbol, ProcessState | undefined>;
  let state = g[STATE_KEY];
  if (!state) {
    state = { configured: {}, clients: new Map() };
    g[STATE_KEY] = state;
  }
  return state;
}

/**
 * Reads the `flagstack:*` stack config. Called by every resource's `configure`; each call sees the
 * same whole stack config, so the last one wins harmlessly. Throws when a value is malformed,
 * naming the config key.
 */
export function configureProvider(
  config: pulumi.dynamic.Config | { get(key: string): string | undefined },
): void {
  const configured: Partial<Record<SettingName, string>> = {};
  for (const [name, { key }] of Object.entries(SETTINGS) as [SettingName, (typeof SETTINGS)[SettingName]][]) {
    const value = config.get(key);
    if (value !== undefined && value !== "") configured[name] = value;
  }
  parseSettings(configured, (name) => SETTINGS[name].key);
  processState().configured = configured;
}

/** Forgets the configured values and every client (tests, or a host that reconfigures). */
export function resetProvider(): void {
  const state = processState();
  state.configured = {};
  state.clients.clear();
}

function parseSettings(
  raw: Partial<Record<SettingName, string>>,
  source: (name: SettingName) => string,
): ProviderSettings {
  const parsed = ProviderSettings.safeParse(raw);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((i) => {
    const name = String(i.path[0]) as SettingName;
    return `${source(name)}: ${i.message}`;
  });
  throw new Error(`flagstack: invalid provider configuration: ${problems.join("; ")}`);
}

/** The last settings parsed, and what they were parsed from (the configured values, the variables' values). */
let lastSettings: { configured: object; env: string; settings: ProviderSettings } | undefined;

/**
 * The effective settings: stack config first, then the environment variables. Parsed once for
 * the same configured values and variables: every API call asks (a walk of 800 resources asked
 * thousands of times, 30 ms of a plan's provider CPU).
 */
export function providerSettings(env: NodeJS.ProcessEnv = process.env): ProviderSettings {
  const configured = processState().configured;
  let seen = "";
  for (const { env: envName } of SETTING_LIST) seen += `${env[envName] ?? ""}\u0000`;
  if (lastSettings?.configured === configured && lastSettings.env === seen) return lastSettings.settings;
  const settings = parseProviderSettings(configured, env);
  lastSettings = { configured, env: seen, settings };
  return settings;
}

/** The settings from `configured`, then `env`; throws naming the setting that is malformed. */
function parseProviderSettings(
  configured: Partial<Record<SettingName, string>>,
  env: NodeJS.ProcessEnv,
): ProviderSettings {
  const raw: Partial<Record<SettingName, string>> = {};
  const from: Partial<Record<SettingName, string>> = {};
  for (const [name, { key, env: envName }] of Object.entries(SETTINGS) as [
    SettingName,
    (typeof SETTINGS)[SettingName],
  ][]) {
    const configuredValue = configured[name];
    const envValue = env[envName];
    if (configuredValue !== undefined) {
      raw[name] = configuredValue;
      from[name] = key;
    } else if (envValue !== undefined && envValue !== "") {
      raw[name] = envValue;
      from[name] = envName;
    }
  }
  return parseSettings(raw, (name) => from[name] ?? SETTINGS[name].key);
}

/**
 * Where a base URL setting came from, for connection errors: the stack config key or the
 * environment variable. The engine configures the provider of `pulumi refresh` and
 * `pulumi destroy` from the config *recorded at the last `pulumi up`* (standard Pulumi behaviour
 * for default providers), so after `pulumi config set flagstack:adminApiUrl <new>` those commands
 * still dial the old URL. When the stack's config file (`Pulumi.<stack>.yaml` in the working
 * directory, which is the program's) now holds another plain value, the text says so and how to
 * switch.
 */
export function urlSource(
  name: "adminApiUrl" | "platformApiUrl",
  value: string,
  env: NodeJS.ProcessEnv = process.env,
  cwd: string = process.cwd(),
): string {
  const { key, env: envName } = SETTINGS[name];
  if (processState().configured[name] === undefined) return `the environment variable ${envName}`;
  const current = stackFileValue(key, env, cwd);
  if (current === undefined || current === value) return `the stack config ${key}`;
  return (
    `the stack config ${key} as recorded at the last \`pulumi up\`; the stack's config now says ${current}: ` +
    "run `pulumi refresh --run-program` or `pulumi destroy --run-program` to use it, or `pulumi up` first"
  );
}

/**
 * A plain value of the stack's config file for `key`, if the file is there and holds one. The
 * engine starts the provider in the program's directory but does not tell it the stack's name
 * (it sets `PULUMI_NODEJS_PROJECT` only), so the file is `Pulumi.<PULUMI_NODEJS_STACK>.yaml` when
 * that is set, else the directory's only `Pulumi.<stack>.yaml`; with several stacks and no name,
 * nothing is claimed.
 */
function stackFileValue(key: string, env: NodeJS.ProcessEnv, cwd: string): string | undefined {
  try {
    const stacks = readdirSync(cwd).filter((f) => /^Pulumi\.[^.]+\.ya?ml$/.test(f));
    const file = env.PULUMI_NODEJS_STACK
      ? stacks.find((f) => f.startsWith(`Pulumi.${env.PULUMI_NODEJS_STACK}.`))
      : stacks.length === 1
        ? stacks[0]
        : undefined;
    if (file === undefined) return undefined;
    const text = readFileSync(join(cwd, file), "utf8");
    const value = (YAML.parse(text) as { config?: Record<string, unknown> } | null)?.config?.[key];
    return typeof value === "string" ? value : undefined;
  } catch {
    return undefined;
  }
}

function missing(name: SettingName, what: string): Error {
  const { key, env } = SETTINGS[name];
  return new Error(
    `flagstack: no ${what} configured: ${door().setting(key, name.endsWith("Key"))} or set ${env}`,
  );
}

/**
 * The admin API client for the effective settings; one per base URL and key for the whole
 * process, so every resource shares its rate limiter.
 */
export function adminClient(settings: ProviderSettings = providerSettings()): AdminClient {
  if (!settings.adminApiUrl) throw missing("adminApiUrl", "admin API URL");
  if (!settings.adminApiKey) throw missing("adminApiKey", "admin API key");
  const { adminApiUrl: baseUrl, adminApiKey: apiKey, adminAuth } = settings;
  return cachedClient(`admin\n${baseUrl}\n${apiKey}\n${adminAuth ?? ""}`, () => {
    return new AdminClient({
      baseUrl,
      baseUrlSource: urlSource("adminApiUrl", baseUrl),
      apiKey,
      ...(adminAuth !== undefined ? { adminAuth } : {}),
      ...pacing(settings),
    });
  });
}

/** The platform API client for the effective settings; one per base URL, key and account. */
export function platformClient(settings: ProviderSettings = providerSettings()): PlatformClient {
  if (!settings.platformApiUrl) throw missing("platformApiUrl", "platform API URL");
  if (!settings.platformApiKey) throw missing("platformApiKey", "platform API key");
  if (!settings.accountId) throw missing("accountId", "platform account id");
  const { platformApiUrl: baseUrl, platformApiKey: apiKey, accountId } = settings;
  return cachedClient(`platform\n${baseUrl}\n${apiKey}\n${accountId}`, () => {
    // In the provider bundle, the platform SDK loads here (`./platform-client-loader.lazy.ts`).
    const PlatformClient = platformClientClass();
    return new PlatformClient({
      baseUrl,
      baseUrlSource: urlSource("platformApiUrl", baseUrl),
      apiKey,
      accountId,
      ...pacing(settings),
    });
  });
}

/** The client options both clients take from the settings: rate and retries. */
function pacing(settings: ProviderSettings): { requestsPerSecond?: number; maxRetries?: number } {
  return {
    ...(settings.requestsPerSecond !== undefined ? { requestsPerSecond: settings.requestsPerSecond } : {}),
    ...(settings.maxRetries !== undefined ? { maxRetries: settings.maxRetries } : {}),
  };
}

/** Each cached client's identity ({@link clientIdentity}). */
const identities = new WeakMap<object, string>();

/**
 * The identity of a client the settings made: a hash of its base URL, key and account, the same
 * for the same settings in every process and naming none of them (the owner gate's reads are
 * handed to the next process under it, `./gate-ledger.ts`). `undefined` for a client made
 * elsewhere.
 */
export function clientIdentity(client: object): string | undefined {
  return identities.get(client);
}

/** The process's one client for `key`, made by `make` the first time. */
function cachedClient<T>(key: string, make: () => T): T {
  const clients = processState().clients;
  let client = clients.get(key) as T | undefined;
  if (client === undefined) {
    client = make();
    identities.set(client as object, createHash("sha256").update(key).digest("hex").slice(0, 32));
    // Every write through the client drops the lists that reads share (`./list-reads.ts`).
    (client as { core?: HttpCore }).core?.watchWrites(dropLists);
    clients.set(key, client);
  }
  return client;
}

/** How long a memoised lookup is trusted: a deployment, not a long-lived program. */
export const MEMO_TTL_MS = 5 * 60_000;

interface MemoEntry {
  at: number;
  value: Promise<unknown>;
}

const memoTables = new WeakMap<object, Map<string, MemoEntry>>();

/**
 * Memoises a read-mostly lookup (workspaces, environments, traffic types, rollout statuses,
 * groups) per client for {@link MEMO_TTL_MS}: a deployment of many resources in one workspace
 * resolves the workspace once, and concurrent callers share one request. A rejected promise is
 * not kept; callers that miss a name {@link forget} the entry and load it once more.
 */
export function memo<T>(
  client: object,
  key: string,
  load: () => Promise<T>,
  now: number = Date.now(),
): Promise<T> {
  let perClient = memoTables.get(client);
  if (!perClient) {
    perClient = new Map();
    memoTables.set(client, perClient);
  }
  const hit = perClient.get(key);
  if (hit && now - hit.at < MEMO_TTL_MS) return hit.value as Promise<T>;
  const pending = load();
  const entry = { at: now, value: pending };
  perClient.set(key, entry);
  pending.catch(() => {
    if (perClient.get(key) === entry) perClient.delete(key);
  });
  return pending;
}

/** When the memoised lookup `key` of `client` was loaded (ms since the epoch), if it is held. */
export function memoLoadedAt(client: object, key: string): number | undefined {
  return memoTables.get(client)?.get(key)?.at;
}

/** Drops a memoised lookup, so the next call loads it again (a name was not found in it). */
export function forget(client: object, key: string): void {
  memoTables.get(client)?.delete(key);
}

// ---------------------------------------------------------------------------------------------
// Credentials set in plain text

/** The config keys that hold credentials: each belongs in the stack config as a secret. */
export const CREDENTIAL_CONFIG_KEYS = [
  "flagstack:adminApiKey",
  "flagstack:sdkKey",
  "flagstack:platformApiKey",
] as const;

/** Config key that accepts plain-text credentials without a warning (`true`), e.g. a local emulator's keys. */
export const ALLOW_PLAINTEXT_KEYS = "flagstack:allowPlaintextKeys";

// Where a Pulumi program finds its config: the Node.js language host sets both variables for the
// program process (pulumi-language-nodejs main.go: `PULUMI_CONFIG` from constructConfig, with keys
// as `<ns>:config:<name>`; `PULUMI_CONFIG_SECRET_KEYS` from constructConfigSecretKeys, the keys
// set with --secret), and @pulumi/pulumi's runtime/config.js reads the same two (`configEnvKey`,
// `configSecretKeysEnvKey`, `isConfigSecret`).
const CONFIG_ENV = "PULUMI_CONFIG";
const SECRET_KEYS_ENV = "PULUMI_CONFIG_SECRET_KEYS";

/** `flagstack:config:adminApiKey` (the language host's form) → `flagstack:adminApiKey`. */
const cleanKey = (key: string) => key.replace(/^([^:]+):config:/, "$1:");

function parseJson(text: string | undefined): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Where a program's config is read: the two variables of {@link plaintextCredentialKeys}. */
export type ConfigSource = Readonly<Record<string, string | undefined>>;

/**
 * The program's config as the Pulumi runtime holds it (`@pulumi/pulumi/runtime/state` `getStore()`:
 * the two variables, from the environment in a program the CLI runs, from the run's request in an
 * Automation API inline program, which has neither in its environment); the process's environment
 * when `@pulumi/pulumi` is not installed.
 */
export function programConfigSource(): ConfigSource {
  return runtimeStore()?.config ?? process.env;
}

/**
 * What identifies the current program run: the Pulumi runtime's store (one per run, also for the
 * Automation API's inline programs), else the process's environment.
 */
export function programRun(): object {
  return runtimeStore() ?? process.env;
}

/** The Pulumi runtime's store of the current program run, if `@pulumi/pulumi` is installed. */
function runtimeStore(): { config: ConfigSource } | undefined {
  return pulumiRuntimeStore<{ config: ConfigSource }>();
}

/** A program's stack config: each value by its `namespace:name` key, and the keys set as secrets. */
export interface ProgramConfig {
  values: ReadonlyMap<string, string>;
  secret: ReadonlySet<string>;
}

/** The stack config that `source` (a program's environment or runtime store) holds; empty outside a program. */
export function programConfig(source: ConfigSource = programConfigSource()): ProgramConfig {
  const config = parseJson(source[CONFIG_ENV]);
  const values = new Map<string, string>();
  if (typeof config === "object" && config !== null) {
    for (const [k, v] of Object.entries(config)) if (typeof v === "string") values.set(cleanKey(k), v);
  }
  const secretList = parseJson(source[SECRET_KEYS_ENV]);
  const secret = new Set(Array.isArray(secretList) ? secretList.map((k) => cleanKey(String(k))) : []);
  return { values, secret };
}

/**
 * The credential keys ({@link CREDENTIAL_CONFIG_KEYS}) that the program's stack config sets
 * without `--secret`, in that order; `[]` outside a Pulumi program, when every credential is a
 * secret, or when `flagstack:allowPlaintextKeys` is `true`.
 *
 * Such a value sits unencrypted in `Pulumi.<stack>.yaml`. The engine passes the whole stack config
 * to the dynamic provider, and stores it as the inputs of the default `pulumi-nodejs` provider,
 * encrypted only where the config value is a secret (pkg resource/deploy/target.go
 * `GetPackageConfig`: `property.New(v).WithSecret(c.Secure())`), so flagstack's resources then
 * take a provider of their own whose inputs hold the key as a secret (`./config-provider.ts`).
 *
 * Only the program's process can tell: the provider's `configure` receives every value already
 * unwrapped (the dynamic-provider host's `configure` RPC, @pulumi/pulumi 3.259.0
 * cmd/dynamic-provider/index.js: `config[k] = rpc.unwrapRpcSecret(v)`, before `Config` is built),
 * and the provider process's `PULUMI_CONFIG` holds the `pulumi-nodejs` namespace only (pkg
 * host/host.go `Provider`), with no `PULUMI_CONFIG_SECRET_KEYS`.
 */
export function plaintextCredentialKeys(source: ConfigSource = programConfigSource()): string[] {
  const { values, secret } = programConfig(source);
  if ((values.get(ALLOW_PLAINTEXT_KEYS) ?? "").trim().toLowerCase() === "true") return [];
  return CREDENTIAL_CONFIG_KEYS.filter((key) => {
    const v = values.get(key);
    return v !== undefined && v !== "" && !secret.has(key);
  });
}

/** The warning for {@link plaintextCredentialKeys}, naming the keys (never their values), or `undefined`. */
export function plaintextCredentialWarning(source: ConfigSource = programConfigSource()): string | undefined {
  const keys = plaintextCredentialKeys(source);
  if (keys.length === 0) return undefined;
  const listed = keys.join(", ");
  const one = keys.length === 1;
  const fix = keys.map((k) => `\`pulumi config set --secret ${k} <value>\``).join(", ");
  return (
    `flagstack: ${listed} ${one ? "is" : "are"} set in the stack config in plain text (without --secret), ` +
    `so ${one ? "it is" : "they are"} stored unencrypted in Pulumi.<stack>.yaml and in each update's record ` +
    `of the config; flagstack's resources keep ` +
    `${one ? "it" : "them"} out of the stack's state by taking the provider ${CONFIG_PROVIDER_NAME}, which holds ` +
    `the flagstack config with the keys encrypted. Run ${fix}, or set ${ALLOW_PLAINTEXT_KEYS} to true to ` +
    "accept plain-text keys"
  );
}

/** The name of the provider that holds the flagstack config with plain-text keys encrypted (`./config-provider.ts`). */
export const CONFIG_PROVIDER_NAME = "flagstack-config";

/** The program runs (their runtime stores, or the sources given) already warned. */
const warned = new WeakSet<object>();

/**
 * Warns, once per program run, when the program's stack config holds a credential in plain text
 * ({@link plaintextCredentialWarning}): through the Pulumi engine's log (`@pulumi/pulumi/log`
 * `warn`: a `warning:` diagnostic of the update, as `pulumi up` and `preview` print them), or on
 * stderr when `@pulumi/pulumi` is not installed. Returns the warning, or `undefined`.
 *
 * A warning, not a refusal: by the time a program runs, the value is already in
 * `Pulumi.<stack>.yaml`, so refusing would undo nothing; it would only break stacks that work
 * today (stacks of a local emulator with throwaway keys, CI stacks) on upgrade. The state's copy
 * is kept encrypted meanwhile (`./config-provider.ts`). `flagstack:allowPlaintextKeys: true`
 * silences it.
 *
 * Called when this module loads in a program's process (every resource class imports it), and
 * when the program declares a flagstack resource (`./config-provider.ts`): the same run warns once.
 */
export function warnPlaintextCredentials(
  source?: ConfigSource,
  warn: (message: string) => unknown = engineWarn,
): string | undefined {
  const run: object = source ?? programRun();
  if (warned.has(run)) return undefined;
  const message = plaintextCredentialWarning(source ?? programConfigSource());
  if (message === undefined) return undefined;
  warned.add(run);
  warn(message);
  return message;
}

function engineWarn(message: string): void {
  const log = pulumiLog();
  if (log) void log.warn(message);
  else process.stderr.write(`warning: ${message}\n`);
}

// In a Pulumi program (the only process that knows which config values are secrets, see
// plaintextCredentialKeys) this module is loaded while the program declares its resources; in the
// provider process and in tests PULUMI_CONFIG holds no flagstack credential, so nothing happens.
if (process.env[CONFIG_ENV]) warnPlaintextCredentials();

/**
 * The stack the provider runs for, as `project/stack` (set by the engine; ref pulumi-notes §4); under
 * the Terraform door, the configuration's directory (`./door.ts`).
 */
export function stackLabel(env: NodeJS.ProcessEnv = process.env): string {
  return door().origin(env).short;
}

/**
 * The title and comment sent with a change of a flag definition when the resource gives none:
 * `flagstack:changeTitle` / `flagstack:changeComment`, else a default naming the stack and the
 * operation (ref admin §2: workspaces may require both on every definition change).
 */
export function changeNote(
  operation: string,
  subject: string,
  settings: ProviderSettings = providerSettings(),
): {
  title: string;
  comment: string;
} {
  const words = door();
  const origin = words.origin(process.env);
  return {
    title: settings.changeTitle ?? `${words.apply.replaceAll("`", "")}: ${origin.short}`,
    comment: settings.changeComment ?? `${operation} of ${subject} by flagstack (${origin.long})`,
  };
}
