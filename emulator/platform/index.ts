/**
 * The emulated platform API (`../shared/spec/platform-api.md`): organizations, projects,
 * connectors and YAML pipelines under `/ng/api/**` and `/pipeline/api/**`, as one hono sub-app
 * that the emulator's server mounts at `/`. One file per section: `organizations.ts`,
 * `projects.ts`, `connectors.ts`, `pipelines.ts` (YAML checks in `pipeline-yaml.ts`); `auth.ts`,
 * `errors.ts` and `http.ts` are shared.
 *
 * Where the spec says "not shown", behaviour follows `../shared/reference/platform-api-behaviour.md`
 * (cited as `ref §N`).
 * @module
 */
import { type Context, Hono } from "hono";
import { cors } from "hono/cors";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { z } from "zod";
import { platformErrorBody, StateWriteError } from "../errors.js";
import { platformAuth } from "./auth.js";
import { connectorRoutes } from "./connectors.js";
import { errorDto, PlatformError, renderError, resourceNotFound } from "./errors.js";
import { organizationRoutes } from "./organizations.js";
import { pipelineRoutes } from "./pipelines.js";
import { projectRoutes } from "./projects.js";
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

/** Routes and the methods each accepts, for telling an unknown path from a wrong method. */
const KNOWN_ROUTES: { pattern: RegExp; methods: string[] }[] = [
  { pattern: /^\/ng\/api\/projects$/, methods: ["GET", "POST"] },
  { pattern: /^\/ng\/api\/projects\/[^/]+$/, methods: ["GET", "PUT", "DELETE"] },
  { pattern: /^\/ng\/api\/organizations$/, methods: ["GET", "POST"] },
  { pattern: /^\/ng\/api\/organizations\/[^/]+$/, methods: ["GET", "PUT", "DELETE"] },
  { pattern: /^\/ng\/api\/connectors$/, methods: ["GET", "POST", "PUT"] },
  { pattern: /^\/ng\/api\/connectors\/[^/]+$/, methods: ["GET", "DELETE"] },
  { pattern: /^\/pipeline\/api\/pipelines\/v2$/, methods: ["POST"] },
  { pattern: /^\/pipeline\/api\/pipelines\/v2\/[^/]+$/, methods: ["PUT"] },
  { pattern: /^\/pipeline\/api\/pipelines\/[^/]+$/, methods: ["GET", "DELETE"] },
];

/**
 * Builds the platform API sub-app. Every route carries its full path, so mount it at the root:
 * `app.route("/", platformRoutes(deps))`.
 *
 * @example
 * const app = new Hono();
 * app.route("/", platformRoutes({ state: () => state, commit: async () => {}, accountId: "acc",
 *   keys: () => [{ key: "pat.acc.x", type: "platform" }], correlationId: () => crypto.randomUUID() }));
 */
export function platformRoutes(deps: PlatformDeps): Hono {
  const app = new Hono();

  app.onError((err, c) => {
    const correlationId = deps.correlationId();
    // The state file refused the change, which was rolled back: a 503 refusal in the ErrorDTO
    // shape (as the server's injected 503s), never the 500 of an unknown error.
    if (err instanceof StateWriteError)
      return c.json(platformErrorBody(503, err.message, correlationId), 503);
    if (err instanceof PlatformError) {
      return c.json(renderError(err, correlationId), err.status as ContentfulStatusCode);
    }
    return c.json(
      errorDto("UNKNOWN_ERROR", `Oops, something went wrong on our end: ${err.message}`, correlationId),
      500,
    );
  });

  for (const prefix of ["/ng/api/*", "/pipeline/api/*"]) {
    // spec §5.5: cross-origin requests are supported; each still needs its x-api-key.
    app.use(
      prefix,
      cors({
        origin: "*",
        allowMethods: ["GET", "POST", "PUT", "DELETE"],
        allowHeaders: ["x-api-key", "content-type", "if-match", "if-none-match"],
        exposeHeaders: ["ETag"],
      }),
    );
    app.use(prefix, platformAuth(deps));
  }

  app.route("/ng/api/organizations", organizationRoutes(deps));
  app.route("/ng/api/projects", projectRoutes(deps));
  app.route("/ng/api/connectors", connectorRoutes(deps));
  app.route("/pipeline/api/pipelines", pipelineRoutes(deps));

  // Jersey answers an unknown path or method through its javax exception mappers: 400 FailureDTO
  // RESOURCE_NOT_FOUND_EXCEPTION, never 404 or 405 (ref §2).
  const unmatched = (c: Context) => {
    const known = KNOWN_ROUTES.find((r) => r.pattern.test(c.req.path));
    throw resourceNotFound(known ? "HTTP 405 Method Not Allowed" : "HTTP 404 Not Found");
  };
  app.all("/ng/api/*", unmatched);
  app.all("/pipeline/api/*", unmatched);

  return app;
}
