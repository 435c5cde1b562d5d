/**
 * The emulator's HTTP server: one hono app on one port, on Node's `http` server.
 *
 * Middleware order (outermost first): the front proxy's path (a `//` or `/gateway/...` path is
 * served again as the APIs see it) → request log → transaction id → path guard (`.`/`..`
 * segments, read from the raw target before routing) → faults → rate limit → body limit (reads
 * the body, counting bytes) → commit gate (holds a response until what it shows is on disk),
 * then the routes: `/_emulator` (control), `/internal/api/v2` (admin), `/internal/api/v3` and
 * `/api/v3` (admin flag sets), `/api/events` (event
 * import), `/api/*` (SDK), and the platform API (`/ng/api`, `/pipeline/api`, `/authz/api`, `/resourcegroup/api`, ...) from
 * `emulator/platform`. One `onError` renders every error in the body of the request's API
 * (`http.ts` `renderError`).
 * @module
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { getRequestListener } from "@hono/node-server";
import { Hono } from "hono";
import { ADMIN_BASE, ADMIN_V3_BASE, ADMIN_V3_PUBLIC_BASE, adminRoutes, adminV3Routes } from "./admin";
import type { AppEnv } from "./context";
import { type ControlDeps, controlRoutes } from "./control";
import { EmulatorError, notFound, StateWriteError, unavailable } from "./errors";
import { eventRoutes } from "./events/bulk";
import { EventStore } from "./events/event-store";
import { renderError } from "./http";
import { bodyLimit } from "./middleware/body-limit";
import { commitGate } from "./middleware/commit-gate";
import { FaultController, faults } from "./middleware/faults";
import { frontProxy } from "./middleware/front-proxy";
import { pathGuard } from "./middleware/path-guard";
import { RateLimiter, rateLimit } from "./middleware/rate-limit";
import { RequestLog, requestLog } from "./middleware/request-log";
import { transactionId } from "./middleware/transaction-id";
import { platformRoutes } from "./platform";
import { resourceNotFound } from "./platform/errors";
import { sdkRoutes } from "./sdk";

/** What the app is built from: the store, and the rest (each made fresh when left out). */
export type AppDeps = Pick<ControlDeps, "store"> & Partial<ControlDeps>;

/**
 * Builds the hono app (usable in-process with `app.request()`).
 * @example
 * const store = await Store.open({ accountId: "acct" });
 * const res = await createApp({ store }).request("/_emulator/health");
 */
export function createApp(appDeps: AppDeps): Hono<AppEnv> {
  const deps: ControlDeps = {
    events: new EventStore(),
    requestLog: new RequestLog(),
    faults: new FaultController(),
    rateLimiter: new RateLimiter(null),
    sdkReports: { impressionBatches: 0, impressionCountBatches: 0, telemetry: 0 },
    ...appDeps,
  };
  const { store } = deps;
  const app = new Hono<AppEnv>({ strict: false });

  // First: a path with `//` or a leading `/gateway` is served again as the APIs see it (`front-proxy.ts`).
  app.use(
    "*",
    frontProxy(() => app),
  );
  app.use("*", requestLog(deps.requestLog));
  app.use("*", transactionId());
  app.use(
    "*",
    pathGuard(() => app.routes),
  );
  app.use("*", faults(deps.faults));
  app.use("*", rateLimit(deps.rateLimiter));
  app.use("*", bodyLimit());
  app.use("*", commitGate(store));

  app.route("/_emulator", controlRoutes(deps));
  app.route(ADMIN_BASE, adminRoutes(store));
  app.route(ADMIN_V3_BASE, adminV3Routes(store));
  // Before the SDK's `/api` routes, which would otherwise claim `/api/v3/...`.
  app.route(ADMIN_V3_PUBLIC_BASE, adminV3Routes(store));
  app.route("/api", eventRoutes(store, deps.events));
  app.route("/api", sdkRoutes(store, deps.sdkReports));

  app.route("/", platformRoutes(store));

  app.notFound((c) => {
    const message = `HTTP 404 Not Found: no route for ${c.req.method} ${c.req.path}`;
    // ref platform §2: an unknown route is a FailureDTO RESOURCE_NOT_FOUND_EXCEPTION with HTTP 400.
    return renderError(c, c.get("api") === "platform" ? resourceNotFound(message) : notFound(message));
  });

  app.onError((err, c) => {
    if (err instanceof EmulatorError) return renderError(c, err);
    // The state file refused the change, which was rolled back: a 503 refusal, never a 500.
    if (err instanceof StateWriteError) return renderError(c, unavailable(err.message, err));
    console.error(`flagstack emulator: ${c.req.method} ${c.req.path} failed:`, err);
    const detail = (err as Error).message ?? String(err);
    // Each API's wording of an unexpected failure (the platform's: WingsExceptionMapperV2, ref §2).
    const message =
      c.get("api") === "platform"
        ? `Oops, something went wrong on our end: ${detail}`
        : `Internal error: ${detail}`;
    return renderError(c, new EmulatorError(500, message, { cause: err }));
  });

  return app;
}

/** A listening server and how to stop it. */
export interface Listening {
  server: Server;
  port: number;
  close: () => Promise<void>;
}

/** Serves the app on `host:port` (port 0 picks a free one). */
export function listen(app: Hono<AppEnv>, port: number, host: string): Promise<Listening> {
  const listener = getRequestListener(app.fetch);
  const server = createServer((req, res) => {
    // A dropped connection (injected fault) destroys the socket; writing to it afterwards only
    // raises errors nobody is waiting for.
    res.on("error", () => undefined);
    void listener(req, res);
  });
  server.keepAliveTimeout = 5_000;
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      const addr = server.address() as AddressInfo;
      resolve({
        server,
        port: addr.port,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}
