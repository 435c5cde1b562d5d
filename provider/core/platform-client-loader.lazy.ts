/**
 * The provider bundle's `./platform-client-loader.ts` (`scripts/release-binary.mts` swaps it in):
 * the platform SDK loads with the first platform client (issue 35).
 * @module
 */
import type { PlatformClient } from "../../sdk/platform/client";

/** The `PlatformClient` class, its module loaded on the first call. */
export const platformClientClass = (): typeof PlatformClient =>
  (require("../../sdk/platform/client") as typeof import("../../sdk/platform/client")).PlatformClient;
