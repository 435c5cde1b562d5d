/**
 * Types shared by the emulator's server, middleware and route modules: the hono environment and
 * the API a request belongs to.
 * @module
 */
import type { HttpBindings } from "@hono/node-server";
import type { KeyRecord } from "./store";

/** The APIs the emulator serves, as recorded in the request log. */
export const APIS = ["admin", "events", "sdk", "platform", "emulator"] as const;
/** One of {@link APIS}. */
export type Api = (typeof APIS)[number];

/** Which API a path belongs to. Control routes live under `/_emulator`, never under an API prefix. */
export function apiOf(path: string): Api {
  // Flag sets are also served under the public host's `/api/v3` (ref admin §1.1).
  if (path.startsWith("/internal/api/") || path.startsWith("/api/v3/") || path === "/api/v3") return "admin";
  if (path === "/api/events/bulk" || path.startsWith("/api/events/") || path === "/api/events")
    return "events";
  if (path.startsWith("/api/")) return "sdk";
  if (path.startsWith("/_emulator")) return "emulator";
  return "platform";
}

/** What the emulator did to a request instead of (or after) serving it. */
export const FAULT_KINDS = ["rate-limit", "429", "500", "503", "drop", "drop-after"] as const;
/** One of {@link FAULT_KINDS}. */
export type FaultKind = (typeof FAULT_KINDS)[number];

/** The hono environment of every emulator route. */
export interface AppEnv {
  Bindings: HttpBindings;
  Variables: {
    /** Set by the transaction-id middleware; echoed in error bodies and the `X-Transaction-Id` header. */
    transactionId: string;
    /** Set by the request-log middleware. */
    api: Api;
    /** The authenticated key, set by the auth middleware. */
    key: KeyRecord;
    /** Set by the faults and rate-limit middleware when they answered instead of the route. */
    fault: FaultKind | undefined;
  };
}
