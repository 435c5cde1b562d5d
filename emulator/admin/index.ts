/**
 * The admin API under `/internal/api/v2` (spec `feature-flag-admin-api.md`), one module per
 * spec section, all behind the admin-key middleware.
 * @module
 */
import { Hono } from "hono";
import type { AppEnv } from "../context";
import { keyAuth } from "../middleware/auth";
import type { Store } from "../store";
import { apiKeyRoutes } from "./api-keys";
import { definitionRoutes } from "./definitions";
import { environmentRoutes } from "./environments";
import { flagRoutes } from "./flags";
import { groupRoutes } from "./groups";
import { rolloutStatusRoutes } from "./rollout-statuses";
import { segmentRoutes } from "./segments";
import { trafficTypeRoutes } from "./traffic-types";
import { userRoutes } from "./users";
import { workspaceRoutes } from "./workspaces";

/** Base path of the admin API (spec §9). */
export const ADMIN_BASE = "/internal/api/v2";

/** Every admin route, relative to {@link ADMIN_BASE}. */
export function adminRoutes(store: Store): Hono<AppEnv> {
  const app = new Hono<AppEnv>({ strict: false });
  app.use("*", keyAuth(store, "admin"));
  app.route("/", workspaceRoutes(store));
  app.route("/", environmentRoutes(store));
  app.route("/", rolloutStatusRoutes(store));
  app.route("/", trafficTypeRoutes(store));
  // Definitions first: their paths are longer versions of the flag paths.
  app.route("/", definitionRoutes(store));
  app.route("/", flagRoutes(store));
  app.route("/", segmentRoutes(store));
  app.route("/", userRoutes(store));
  app.route("/", groupRoutes(store));
  app.route("/", apiKeyRoutes(store));
  return app;
}
