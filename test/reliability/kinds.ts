/**
 * Every flagstack resource kind of the one list (`provider/kinds.ts`, through
 * `provider/native/kinds.ts`) with its implementation and its `__provider` text, and the drivers
 * of all of them for one mode (direct calls, or the real gRPC host), so a reliability test can
 * drive any resource the way the engine does. Nothing here names a kind: a kind added to the list
 * is here too.
 */
import type { Emulator } from "../../emulator";
import { configureProvider, resetProvider } from "../../provider/core/config";
import { providerText } from "../../provider/core/resource";
import { NATIVE_KINDS } from "../../provider/native/kinds";
import type * as types from "../../provider/types";
import {
  type Driver,
  directDriver,
  hostDriver,
  type Impl,
  type Mode,
  type ProviderHost,
} from "../provider/harness";

/** The type name of a dynamic token: `pulumi-nodejs:dynamic/flagstack:Flag` → `Flag`. */
type TypeNameOf<T> = T extends `pulumi-nodejs:dynamic/flagstack:${infer N}` ? N : never;

/** The name of a kind (`Flag`, `FlagDefinition`, ...): every type token of `provider/types.ts`. */
export type Kind = TypeNameOf<(typeof types)[keyof typeof types]>;

/** Every kind of the list: implementation and `__provider` text, by name. */
export const KINDS = Object.fromEntries(
  NATIVE_KINDS.map((k) => [k.name, { impl: k.impl as unknown as Impl, provider: providerText(k.file) }]),
) as Readonly<Record<Kind, { impl: Impl; provider: string }>>;

/** Every kind, in the list's order. */
export const KIND_NAMES = NATIVE_KINDS.map((k) => k.name) as Kind[];

/**
 * The stack config for an emulator (what `pulumi config` holds), with a client-side rate high
 * enough not to pace a local emulator unless the test says otherwise.
 */
export function stackConfig(emu: Emulator, extra: Record<string, string> = {}): Record<string, string> {
  return {
    "flagstack:adminApiUrl": emu.url,
    "flagstack:adminApiKey": emu.adminKey,
    "flagstack:platformApiUrl": emu.url,
    "flagstack:platformApiKey": emu.platformKey,
    "flagstack:accountId": emu.accountId,
    "flagstack:requestsPerSecond": "1000",
    ...extra,
  };
}

/** Points this process's provider settings at `config`, as the host's `Configure` does in its process. */
export function configureDirect(config: Record<string, string>): void {
  resetProvider();
  configureProvider({ get: (k) => config[k] });
}

/** A driver per kind, by name: `d.Flag`, or `d[kind.name]` for a name read from the list. */
export type Drivers = Record<Kind, Driver> & Readonly<Record<string, Driver>>;

/** A driver per kind: direct calls of the implementations, or the host with each `__provider` text. */
export async function drivers(mode: Mode, host?: ProviderHost): Promise<Drivers> {
  const out = {} as Record<Kind, Driver>;
  for (const kind of KIND_NAMES) {
    const { impl, provider } = KINDS[kind];
    if (mode === "direct") out[kind] = directDriver(impl);
    else {
      if (!host) throw new Error("the gRPC host mode needs a host");
      out[kind] = hostDriver(host, provider);
    }
  }
  return out;
}
