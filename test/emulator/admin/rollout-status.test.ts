/**
 * Conformance: spec §2 "Rollout status" (a JSON array, Pre-Production, Ramping, Experimenting,
 * and more), §4 `GET /rolloutStatuses?wsId=`.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Emulator } from "../../../emulator";
import { adminError, type Call, start } from "../helpers";

let emu: Emulator;
let call: Call;
let ws: { id: string; name: string };

beforeAll(async () => {
  ({ emu, call, ws } = await start());
});
afterAll(() => emu.stop());

describe("GET /rolloutStatuses?wsId=", () => {
  it("returns a JSON array of {id, name, description} starting with the three statuses the spec names", async () => {
    const r = await call("GET", `/internal/api/v2/rolloutStatuses?wsId=${ws.id}`);
    expect(r.status).toBe(200);
    expect(Array.isArray(r.body)).toBe(true);
    expect(r.body.map((s: { name: string }) => s.name)).toEqual([
      "Pre-Production",
      "Ramping",
      "Experimenting",
      "Ramped",
      "Killed",
      "Ready to Remove",
      "Removed",
    ]);
    for (const s of r.body) {
      expect(Object.keys(s).sort()).toEqual(["description", "id", "name"]);
      expect(s.description).not.toBe("");
    }
  });

  it("needs wsId (400) naming an existing workspace (404)", async () => {
    const none = await call("GET", "/internal/api/v2/rolloutStatuses");
    expect(none.status).toBe(400);
    expect(none.body).toEqual(adminError(400, "wsId: the workspace id query parameter is required"));
    const unknown = await call("GET", "/internal/api/v2/rolloutStatuses?wsId=nope");
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual(adminError(404, "Could not find workspace nope"));
  });
});
