/**
 * The provider bundle's `./native-functions-loader.ts` (`scripts/release-binary.mts` swaps it in):
 * the lookups load when a data source is first asked for (issue 35).
 * @module
 */
import type { NativeFunction } from "../native/functions";

/** The lookups, their module loaded on the first call. */
export const nativeFunctions = (): readonly NativeFunction[] =>
  (require("../native/functions") as typeof import("../native/functions")).NATIVE_FUNCTIONS;
