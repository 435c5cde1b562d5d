/**
 * The platform API's client class, for `./config.ts`'s `platformClient`. The provider bundle swaps
 * this module for `./platform-client-loader.lazy.ts`, which loads the platform SDK with the first
 * platform client: a start that manages flags only does not build its schemas (issue 35).
 * @module
 */
import { PlatformClient } from "../../sdk/platform/client";

/** The `PlatformClient` class. */
export const platformClientClass = (): typeof PlatformClient => PlatformClient;
