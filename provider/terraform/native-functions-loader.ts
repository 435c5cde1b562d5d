/**
 * The native provider's functions (the lookups), for the Terraform door's data sources
 * (`./server.ts`). The provider bundle swaps this module for
 * `./native-functions-loader.lazy.ts`, which loads them when a data source is first asked for: they
 * reach every area's SDK (issue 35).
 * @module
 */
import { NATIVE_FUNCTIONS, type NativeFunction } from "../native/functions";

/** The lookups. */
export const nativeFunctions = (): readonly NativeFunction[] => NATIVE_FUNCTIONS;
