/**
 * The emulator's HTTP server: one hono app on one port, on Node's `http` server.
 *
 * Middleware order (outermost first): request log → transaction id → path guard (`.`/`..`
 * segments, read from the raw target before routing) → faults → rate limit → body limit (reads
 * the body, counting bytes) → commit gate (holds a response until what it shows is on disk),
 * then the routes: `/_emulator` (control), `/internal/api/v2` (admin), `/api/events` (event
 * import), `/api/*` (SDK), and the platform API (`/ng/api`, `/pipeline/api`, ...) from
 * `emulator/platform`. One `onError` renders the admin error body; the platform routes render
 * their own.
 * @module
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { getRequestListener } from "@hono/node-server";
import { Hono } from "hono";
import { ADMIN_BASE, adminRoutes } from "./admin";
import type { AppEnv } from "./context";
import { type ControlDeps, controlRoutes } from "./control";
import {
  EmulatorHttpError,
  jsonResponse,
  platformErrorBody,
  renderAdminError,
  StateWriteError,
} from "./errors";
import { eventRoutes } from "./events/bulk";
import { bodyLimit } from "./middleware/body-limit";
import { commitGate, stateFailureResponse } from "./middleware/commit-gate";
import { faults } from "./middleware/faults";
import { pathGuard } from "./middleware/path-guard";
import { rateLimit } from "./middleware/rate-limit";
import { requestLog } from "./middleware/request-log";
import { transactionId } from "./middleware/transaction-id";
import { platformRoutes } from "./platform";
import { sdkRoutes } from "./sdk";

/** Everything the app is built from. */
export type AppDeps = ControlDeps;

/** Builds the hono app (usable in-process with `app.request()`). */
export function createApp(deps: AppDeps): Hono<AppEnv> {
  const { store } = deps;
  const app = new Hono<AppEnv>({ strict: false });
  const correlation = new AsyncLocalStorage<string>();

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
  app.route("/api", eventRoutes(store, deps.events));
  app.route("/api", sdkRoutes(store, deps.sdkReports));

  app.use("*", (c, next) =>
    c.get("api") === "platform" ? correlation.run(c.get("transactionId"), next) : next(),
  );
  app.route(
    "/",
    platformRoutes({
      state: () => store.platform,
      commit: () => store.commit(),
      accountId: store.accountId,
      keys: () => [...store.keys.values()],
      correlationId: () => correlation.getStore() ?? "",
    }),
  );

  app.notFound((c) => {
    const message = `HTTP 404 Not Found: no route for ${c.req.method} ${c.req.path}`;
    if (c.get("api") === "platform") {
      // ref platform §2: an unknown route is a FailureDTO RESOURCE_NOT_FOUND_EXCEPTION with HTTP 400.
      return jsonResponse(
        {
          status: "FAILURE",
          code: "RESOURCE_NOT_FOUND_EXCEPTION",
          message,
          correlationId: c.get("transactionId"),
          errors: [],
        },
        400,
      );
    }
    return renderAdminError(new EmulatorHttpError(404, message), c.get("transactionId"));
  });

  app.onError((err, c) => {
    const txId = c.get("transactionId") ?? "";
    if (err instanceof StateWriteError) return stateFailureResponse(c, err);
    if (err instanceof EmulatorHttpError) {
      if (c.get("api") === "platform" && !err.empty) {
        return jsonResponse(platformErrorBody(err.status, err.message, txId), err.status, err.headers);
      }
      return renderAdminError(err, txId);
    }
    console.error(`flagstack emulator: ${c.req.method} ${c.req.path} failed:`, err);
    const message = `Internal error: ${(err as Error).message ?? String(err)}`;
    return c.get("api") === "platform"
      ? jsonResponse(platformErrorBody(500, message, txId), 500)
      : renderAdminError(new EmulatorHttpError(500, message), txId);
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
