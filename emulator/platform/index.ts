/**
 * The emulated platform API (`../shared/spec/platform-api.md`): projects, connectors and YAML
 * pipelines under `/ng/api/**` and `/pipeline/api/**`, as one hono sub-app that the emulator's
 * server mounts at `/`.
 *
 * Where the spec says "not shown", behaviour follows `../shared/reference/platform-api-behaviour.md`
 * (cited as `ref §N`).
 * @module
 */
import { Hono } from "hono";
import { z } from "zod";
import type { PlatformState } from "./state.js";

export { emptyPlatformState, PlatformState } from "./state.js";

/**
 * An API key known to the emulator. Only `platform` keys are accepted by the platform API; the
 * optional lists restrict a key to some organizations and projects (a project entry is either
 * `"<org>/<project>"` or a bare `"<project>"` matching that project in any organization).
 */
export const ApiKey = z.object({
  key: z.string().min(1),
  type: z.enum(["admin", "sdk", "platform"]),
  workspaces: z.array(z.string()).optional(),
  environments: z.array(z.string()).optional(),
  organizations: z.array(z.string()).optional(),
  projects: z.array(z.string()).optional(),
});
/** An API key known to the emulator (see the {@link ApiKey} schema). */
export type ApiKey = z.infer<typeof ApiKey>;

/** What the platform routes need from the emulator's core. */
export interface PlatformDeps {
  /** The live, mutable state; routes change it in place and then call {@link PlatformDeps.commit}. */
  state: () => PlatformState;
  /** Persists the state (atomically, when the emulator has a state file). */
  commit: () => Promise<void>;
  /** The one account this emulator serves; `accountIdentifier` must equal it. */
  accountId: string;
  /** Every key currently known (admin, SDK and platform). */
  keys: () => ApiKey[];
  /** The correlation id of the request being handled, echoed in every body. */
  correlationId: () => string;
}

/**
 * Builds the platform API sub-app. Every route carries its full path, so mount it at the root:
 * `app.route("/", platformRoutes(deps))`.
 */
export function platformRoutes(_deps: PlatformDeps): Hono {
  const app = new Hono();
  return app;
}
