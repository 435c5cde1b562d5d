/**
 * What the platform resources (Project, Connector, Pipeline) and their lookups share: the
 * process-wide platform client, scope inputs and resource ids.
 *
 * Required at call time by the resources' provider methods, like every provider module.
 * @module
 */
import { z } from "zod";
import type { PlatformClient } from "../../sdk/platform/client";
import { DEFAULT_ORG, Identifier } from "../../sdk/platform/schemas";
import { type ProviderSettings, platformClient, providerSettings } from "./config";

/** The process-wide platform client for the provider's settings (`flagstack:platformApi*`). */
export function platformApi(settings: ProviderSettings = providerSettings()): PlatformClient {
  return platformClient(settings);
}

/** An organization identifier input; the platform's default organization when absent (ref §4). */
export const OrgInput = Identifier.default(DEFAULT_ORG);

/** `adopt: true` takes over an existing object with the same identifier instead of failing. */
export const AdoptInput = z.boolean({ error: "adopt must be true or false" }).default(false);

/** Splits a resource id written `a/b/c` into exactly `parts` non-empty pieces, or fails clearly. */
export function splitId(id: string, parts: number, shape: string): string[] {
  const pieces = id.split("/");
  if (pieces.length !== parts || pieces.some((p) => p === "")) {
    throw new Error(`invalid id ${JSON.stringify(id)}: expected ${shape}`);
  }
  return pieces;
}
