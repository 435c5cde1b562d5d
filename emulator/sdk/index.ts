/**
 * The endpoints the feature-flag SDK calls, under `/api` (ref wire §6): `/splitChanges`,
 * `/segmentChanges/{name}`, `/memberships/{key}` (the client-side SDK's), and 200s for what the SDK reports (impressions, impression counts,
 * telemetry, unique keys) so a real `@splitsoftware/splitio` client runs against the emulator
 * with `streamingEnabled: false` and every `urls.*` pointed at `<emu.url>/api`. `/v2/auth` answers
 * `{pushEnabled:false}` (the SDK then polls) and `/version` is a health check.
 * @module
 */
import { Hono } from "hono";
import type { AppEnv } from "../context";
import { emptyResponse } from "../http";
import { keyAuth } from "../middleware/auth";
import type { Store } from "../store";
import { membershipsRoutes } from "./memberships";
import { segmentChangesRoutes } from "./segment-changes";
import { splitChangesRoutes } from "./split-changes";

/** Counts of what SDKs reported, for tests (`GET /_emulator/sdk`). */
export interface SdkReports {
  impressionBatches: number;
  impressionCountBatches: number;
  telemetry: number;
}

/** Every SDK route, mounted under `/api` (the event import is mounted separately). */
export function sdkRoutes(store: Store, reports: SdkReports): Hono<AppEnv> {
  const app = new Hono<AppEnv>({ strict: false });

  app.get("/version", (c) => c.json({ version: "flagstack-emulator" }));
  // ref wire §6: only called with streaming on; this answer makes the SDK fall back to polling.
  app.get("/v2/auth", keyAuth(store, "sdk"), (c) => c.json({ pushEnabled: false, token: "" }));

  app.use("/splitChanges", keyAuth(store, "sdk"));
  app.use("/segmentChanges/*", keyAuth(store, "sdk"));
  app.use("/memberships/*", keyAuth(store, "sdk"));
  app.use("/testImpressions/*", keyAuth(store, "sdk"));
  app.use("/v1/*", keyAuth(store, "sdk"));
  app.route("/", splitChangesRoutes(store));
  app.route("/", segmentChangesRoutes(store));
  app.route("/", membershipsRoutes(store));

  app.post("/testImpressions/bulk", () => {
    reports.impressionBatches++;
    return emptyResponse(200);
  });
  app.post("/testImpressions/count", () => {
    reports.impressionCountBatches++;
    return emptyResponse(200);
  });
  for (const path of ["/v1/metrics/config", "/v1/metrics/usage", "/v1/keys/ss", "/v1/keys/cs"]) {
    app.post(path, () => {
      reports.telemetry++;
      return emptyResponse(200);
    });
  }
  return app;
}
