/**
 * The emulated platform API (`../shared/spec/platform-api.md`): organizations, projects,
 * connectors and YAML pipelines under `/ng/api/**` and `/pipeline/api/**`, as one hono sub-app
 * that the emulator's server mounts at `/`. One file per section: `organization.ts`,
 * `project.ts`, `connector.ts`, `pipeline.ts` (YAML checks in `pipeline-yaml.ts`), and the v2
 * entities (`service.ts`, `delivery-environment.ts`, `environment-group.ts`, ...: each exports its
 * `part`, a table row for `entity-routes.ts`, which `npm run generate` lists in `entity-parts.ts`); `errors.ts`
 * and `http.ts` hold what only this API needs. Keys are checked by `middleware/auth.ts`, errors
 * rendered by the server's one `onError`.
 *
 * Where the spec says "not shown", behaviour follows `../shared/reference/platform-api-behaviour.md`
 * (cited as `ref §N`).
 * @module
 */
import { Hono } from "hono";
import { cors } from "hono/cors";
import type { AppEnv } from "../context";
import { keyAuth } from "../middleware/auth";
import type { Store } from "../store";
import { accessControlRoutes } from "./access-control";
import { connectorRoutes } from "./connector";
import { ENTITY_PARTS } from "./entity-parts";
import { entityRoutes } from "./entity-routes";
import { resourceNotFound } from "./errors";
import { organizationRoutes } from "./organization";
import { pipelineRoutes } from "./pipeline";
import { projectRoutes } from "./project";
import { v1Routes } from "./v1";

/** The API's path prefixes. */
export const PLATFORM_PREFIXES = ["/ng/api", "/pipeline/api"] as const;

/**
 * Jersey answers a known path with another method through its javax exception mappers: 400
 * FailureDTO RESOURCE_NOT_FOUND_EXCEPTION, never 405 (ref §2, `NotAllowedExceptionMapper`). Each
 * path of the section's router gets a handler for any method, after the path's own methods, so
 * the router reaches it exactly when no method of a known path matched.
 */
function refusingOtherMethods(section: Hono<AppEnv>): Hono<AppEnv> {
  for (const path of new Set(section.routes.map((r) => r.path))) {
    section.all(path, () => {
      throw resourceNotFound("HTTP 405 Method Not Allowed");
    });
  }
  return section;
}

/**
 * Builds the platform API sub-app. Every route carries its full path, so mount it at the root:
 * `app.route("/", platformRoutes(store))`.
 */
export function platformRoutes(store: Store): Hono<AppEnv> {
  const app = new Hono<AppEnv>();

  for (const prefix of PLATFORM_PREFIXES) {
    // spec §5.5: cross-origin requests are supported; each still needs its x-api-key.
    app.use(
      `${prefix}/*`,
      cors({
        origin: "*",
        allowMethods: ["GET", "POST", "PUT", "DELETE"],
        allowHeaders: ["x-api-key", "content-type", "if-match", "if-none-match"],
        exposeHeaders: ["ETag"],
      }),
    );
    app.use(`${prefix}/*`, keyAuth(store, "platform"));
  }

  app.route("/ng/api/organizations", refusingOtherMethods(organizationRoutes(store)));
  app.route("/ng/api/projects", refusingOtherMethods(projectRoutes(store)));
  app.route("/ng/api/connectors", refusingOtherMethods(connectorRoutes(store)));
  app.route("/pipeline/api/pipelines", refusingOtherMethods(pipelineRoutes(store)));
  // The v2 entities: one CRUD shape, one part each (`entity-routes.ts`), listed by `npm run generate`.
  for (const part of ENTITY_PARTS) {
    const section = "serve" in part ? part.serve(store) : entityRoutes(store, part.spec(store));
    app.route(part.path, refusingOtherMethods(section));
  }

  app.route("/", accessControlRoutes(store)); // issue 27: service accounts, keys, users, roles (`access-control.ts`)
  // The v1 API of today's Terraform provider (ref §6.1), over the same store (`v1.ts`).
  app.route("/", v1Routes(store));

  // An unknown path, likewise: 400 FailureDTO RESOURCE_NOT_FOUND_EXCEPTION, never 404 (ref §2).
  for (const prefix of PLATFORM_PREFIXES) {
    app.all(`${prefix}/*`, () => {
      throw resourceNotFound("HTTP 404 Not Found");
    });
  }
  return app;
}
