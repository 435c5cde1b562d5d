/**
 * The admin API under `/internal/api/v2` (spec `feature-flag-admin-api.md`), one module per
 * spec section, all behind the admin-key middleware.
 * @module
 */
import { Hono } from "hono";
import type { AppEnv } from "../context";
import { keyAuth } from "../middleware/auth";
import type { Store } from "../store";
import { apiKeyRoutes } from "./api-key";
import { changeRequestRoutes, largeSegmentUploadRoutes } from "./change-requests";
import { environmentRoutes } from "./environment";
import { flagRoutes } from "./flag";
import { definitionRoutes } from "./flag-definition";
import { flagSetRoutes } from "./flag-set";
import { groupRoutes } from "./group";
import { identityRoutes } from "./identities";
import { restrictionRoutes } from "./restriction";
import { rolloutStatusRoutes } from "./rollout-status";
import { segmentRoutes } from "./segment";
import { kindSegmentRoutes } from "./segment-kinds";
import { trafficTypeRoutes } from "./traffic-type";
import { attributeRoutes } from "./traffic-type-attribute";
import { userRoutes } from "./user";
import { workspaceRoutes } from "./workspace";

/** Base path of the admin API (spec §9). */
export const ADMIN_BASE = "/internal/api/v2";

/** Every admin route, relative to {@link ADMIN_BASE}. */
export function adminRoutes(store: Store): Hono<AppEnv> {
  const app = new Hono<AppEnv>({ strict: false });
  // A large segment's file goes to the upload address its change request gave, which carries its
  // own credential (a presigned address on the real service): no admin key.
  app.route("/", largeSegmentUploadRoutes(store));
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
  app.route("/", attributeRoutes(store));
  app.route("/", identityRoutes(store));
  app.route("/", kindSegmentRoutes(store, "large"));
  app.route("/", kindSegmentRoutes(store, "rule-based"));
  app.route("/", changeRequestRoutes(store));
  app.route("/", restrictionRoutes(store));
  return app;
}

/** Base path of the admin API's v3 part (ref admin §1.1 "flag sets"). */
export const ADMIN_V3_BASE = "/internal/api/v3";

/**
 * The same v3 routes under the public path: splitapiclient 3.5.9's default v3 base URL is the
 * public host + `/api/v3` (`main/sync_apiclient.py` `BASE_PROD_URL_V3`), and the davidji99
 * Terraform provider hard-codes `.../api/v3/flag-sets` (`api/flag_sets.go`; ref admin §1.1).
 */
export const ADMIN_V3_PUBLIC_BASE = "/api/v3";

/**
 * The v3 routes (flag sets), relative to {@link ADMIN_V3_BASE} and {@link ADMIN_V3_PUBLIC_BASE}
 * (one store: a flag set made under one path is read under the other), behind the same admin-key
 * check.
 */
export function adminV3Routes(store: Store): Hono<AppEnv> {
  const app = new Hono<AppEnv>({ strict: false });
  app.use("*", keyAuth(store, "admin"));
  app.route("/", flagSetRoutes(store));
  return app;
}
