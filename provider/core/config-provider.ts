/**
 * Keeps a credential set in the stack config without `--secret` out of the stack's state.
 *
 * A dynamic resource's default provider (`pulumi:providers:pulumi-nodejs::default`) is made by the
 * engine, with the whole stack config as its inputs, each value encrypted only where the config
 * value is a secret (pkg resource/deploy/target.go `GetPackageConfig`), and the state keeps those
 * inputs: a `pulumi config set flagstack:adminApiKey <key>` would put the key there in plain text.
 * No program can change what the engine gives its default provider. So when the program's config
 * holds such a key (`plaintextCredentialKeys`, `./config.ts`), every flagstack resource that is
 * not given a `pulumi-nodejs` provider by its options or its parent takes an explicit one instead,
 * `pulumi:providers:pulumi-nodejs::flagstack-config` (one per program run), whose inputs are the
 * `flagstack:*` config with the credentials, and any value set as a secret, wrapped as Pulumi
 * secrets: the engine configures the same dynamic-provider host with them (the host unwraps them,
 * `configure` reads them as before) and stores them encrypted. The default provider is then not
 * made for flagstack's resources at all.
 *
 * Moving a stack's resources between the default provider and this one replaces nothing: the
 * dynamic-provider host does not implement `DiffConfig`, and the engine replaces a resource whose
 * provider changed only when the new provider's `DiffConfig` asks for it (pkg/resource/deploy
 * step_generator.go `providerChanged`; sdk/go/common/resource/plugin/provider_plugin.go
 * `DiffConfig`: "returning DiffUnknown with no replaces"). Once the keys are secrets (or
 * `flagstack:allowPlaintextKeys` is `true`), the resources go back to the default provider the
 * same way, and this one leaves the state.
 *
 * The first resource also gets the warning of `warnPlaintextCredentials` out, once per run: an
 * Automation API inline program has no `PULUMI_CONFIG` in its environment for the module-load
 * check to see.
 * @module
 */
import type * as pulumi from "@pulumi/pulumi";
import {
  CONFIG_PROVIDER_NAME,
  CREDENTIAL_CONFIG_KEYS,
  plaintextCredentialKeys,
  programConfig,
  programConfigSource,
  programRun,
  warnPlaintextCredentials,
} from "./config";
import { pulumiOutput, pulumiResource } from "./pulumi-runtime";

/** The package of the dynamic-provider host, which serves every flagstack resource. */
const DYNAMIC_PACKAGE = "pulumi-nodejs";

/**
 * The explicit dynamic-provider host provider holding the flagstack config: a `ProviderResource`
 * of the dynamic-provider host's package, made only in a Pulumi program (`./pulumi-runtime.ts`).
 */
function configProvider(name: string, inputs: Record<string, pulumi.Input<string>>): pulumi.ProviderResource {
  const { ProviderResource } = pulumiResource();
  class ConfigProvider extends ProviderResource {
    constructor() {
      super(DYNAMIC_PACKAGE, name, inputs);
    }
  }
  return new ConfigProvider();
}

const perRun = new WeakMap<object, pulumi.ProviderResource>();

/** The last config asked about and its answer: a program declares its resources under one config. */
let last: { config: string | undefined; secret: string | undefined; plain: boolean } | undefined;

/** Whether the config holds a credential in plain text ({@link plaintextCredentialKeys}), memoised. */
function holdsPlaintextKey(source: ReturnType<typeof programConfigSource>): boolean {
  const config = source.PULUMI_CONFIG;
  const secret = source.PULUMI_CONFIG_SECRET_KEYS;
  if (last === undefined || last.config !== config || last.secret !== secret) {
    last = { config, secret, plain: plaintextCredentialKeys(source).length > 0 };
  }
  return last.plain;
}

/** The inputs of {@link ConfigProvider}: every `flagstack:*` value, credentials and secrets wrapped as secrets. */
export function configProviderInputs(
  source = programConfigSource(),
): Record<string, string | pulumi.Output<string>> {
  const { values, secret: secretKeys } = programConfig(source);
  const credentials: ReadonlySet<string> = new Set(CREDENTIAL_CONFIG_KEYS);
  const { secret } = pulumiOutput();
  const inputs: Record<string, string | pulumi.Output<string>> = {};
  for (const [key, value] of values) {
    if (!key.startsWith("flagstack:")) continue;
    inputs[key] = credentials.has(key) || secretKeys.has(key) ? secret(value) : value;
  }
  return inputs;
}

/** Whether the options (or the parent they name) already choose a provider for `type`. */
function choosesProvider(type: string, opts: pulumi.CustomResourceOptions | undefined): boolean {
  if (opts === undefined) return false;
  return opts.provider !== undefined || opts.parent?.getProvider(type) !== undefined;
}

/**
 * The options a flagstack resource of `type` registers with: `opts` as they are, or, when the
 * program's config holds a credential in plain text and nothing chose a provider, with `provider`
 * set to the run's {@link ConfigProvider}. Warns once per run (see the module comment).
 */
export function withConfigProvider(
  type: string,
  opts: pulumi.CustomResourceOptions | undefined,
): pulumi.CustomResourceOptions | undefined {
  const source = programConfigSource();
  if (!holdsPlaintextKey(source)) return opts;
  warnPlaintextCredentials();
  if (choosesProvider(type, opts)) return opts;
  const run = programRun();
  let provider = perRun.get(run);
  if (provider === undefined) {
    provider = configProvider(CONFIG_PROVIDER_NAME, configProviderInputs(source));
    perRun.set(run, provider);
  }
  return { ...opts, provider };
}
