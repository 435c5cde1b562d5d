/**
 * Every flagstack resource kind with its implementation and its serialized-provider object, and
 * the drivers of all of them for one mode (direct calls, or the real gRPC host), so a reliability
 * test can drive any resource the way the engine does.
 */
import type { Emulator } from "../../emulator";
import { impl as connectorImpl, connectorProvider } from "../../provider/connector";
import { configureProvider, resetProvider } from "../../provider/core/config";
import { impl as flagImpl, flagProvider } from "../../provider/flag";
import { impl as flagDefinitionImpl, flagDefinitionProvider } from "../../provider/flag-definition";
import { impl as groupImpl, groupProvider } from "../../provider/group";
import { impl as pipelineImpl, pipelineProvider } from "../../provider/pipeline";
import { impl as projectImpl, projectProvider } from "../../provider/project";
import { impl as userInviteImpl, userInviteProvider } from "../../provider/user-invite";
import {
  type Driver,
  directDriver,
  hostDriver,
  type Impl,
  type Mode,
  type ProviderHost,
  serializeProvider,
} from "../provider/harness";

/** The seven resource kinds: implementation and provider object. */
export const KINDS = {
  Flag: { impl: flagImpl as unknown as Impl, provider: flagProvider as object },
  FlagDefinition: { impl: flagDefinitionImpl as unknown as Impl, provider: flagDefinitionProvider as object },
  Group: { impl: groupImpl as unknown as Impl, provider: groupProvider as object },
  UserInvite: { impl: userInviteImpl as unknown as Impl, provider: userInviteProvider as object },
  Project: { impl: projectImpl as unknown as Impl, provider: projectProvider as object },
  Connector: { impl: connectorImpl as unknown as Impl, provider: connectorProvider as object },
  Pipeline: { impl: pipelineImpl as unknown as Impl, provider: pipelineProvider as object },
} as const;

/** One of {@link KINDS}. */
export type Kind = keyof typeof KINDS;
/** Every kind, in a fixed order. */
export const KIND_NAMES = Object.keys(KINDS) as Kind[];

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

/** A driver per kind: direct calls of the implementations, or the host with each serialized provider. */
export async function drivers(mode: Mode, host?: ProviderHost): Promise<Record<Kind, Driver>> {
  const out = {} as Record<Kind, Driver>;
  for (const kind of KIND_NAMES) {
    const { impl, provider } = KINDS[kind];
    if (mode === "direct") out[kind] = directDriver(impl);
    else {
      if (!host) throw new Error("the gRPC host mode needs a host");
      out[kind] = hostDriver(host, (await serializeProvider(provider)).text);
    }
  }
  return out;
}
