/**
 * Every flagstack resource kind with its implementation and its serialized-provider object, and
 * the drivers of all of them for one mode (direct calls, or the real gRPC host), so a reliability
 * test can drive any resource the way the engine does.
 */
import type { Emulator } from "../../emulator";
import { impl as connectorImpl, connectorProviderText } from "../../provider/connector";
import { configureProvider, resetProvider } from "../../provider/core/config";
import { impl as flagImpl, flagProviderText } from "../../provider/flag";
import { impl as flagDefinitionImpl, flagDefinitionProviderText } from "../../provider/flag-definition";
import { impl as groupImpl, groupProviderText } from "../../provider/group";
import { impl as pipelineImpl, pipelineProviderText } from "../../provider/pipeline";
import { impl as projectImpl, projectProviderText } from "../../provider/project";
import { impl as userInviteImpl, userInviteProviderText } from "../../provider/user-invite";
import {
  type Driver,
  directDriver,
  hostDriver,
  type Impl,
  type Mode,
  type ProviderHost,
} from "../provider/harness";

/** The seven resource kinds: implementation and `__provider` text. */
export const KINDS = {
  Flag: { impl: flagImpl as unknown as Impl, provider: flagProviderText },
  FlagDefinition: { impl: flagDefinitionImpl as unknown as Impl, provider: flagDefinitionProviderText },
  Group: { impl: groupImpl as unknown as Impl, provider: groupProviderText },
  UserInvite: { impl: userInviteImpl as unknown as Impl, provider: userInviteProviderText },
  Project: { impl: projectImpl as unknown as Impl, provider: projectProviderText },
  Connector: { impl: connectorImpl as unknown as Impl, provider: connectorProviderText },
  Pipeline: { impl: pipelineImpl as unknown as Impl, provider: pipelineProviderText },
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

/** A driver per kind: direct calls of the implementations, or the host with each `__provider` text. */
export async function drivers(mode: Mode, host?: ProviderHost): Promise<Record<Kind, Driver>> {
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
