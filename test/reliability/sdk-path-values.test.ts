/**
 * Path values that are dot segments, plain or in disguise, are refused by every client before the
 * rate limiter and before the socket (issue 14, group 1).
 *
 * `DELETE .../splits/ws/{ws}/victim/environments/..` is normalised by URL parsing into
 * `DELETE .../splits/ws/{ws}/victim`, the delete of the whole flag. Each case asserts the exact
 * ValidationError, that the limiter was never asked, and that no request reached the emulator
 * (its request log is reset before each case and read after it); the victims are still there.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { type Emulator, startEmulator } from "../../emulator";
import { AdminClient, EventsClient, PlatformClient, ValidationError } from "../../sdk";
import type { Workspace } from "../../sdk/admin/schemas";
import { ApiError } from "../../sdk/core/errors";
import { pathValueProblem, route } from "../../sdk/core/route";

let emu: Emulator;
let admin: AdminClient;
let platform: PlatformClient;
let events: EventsClient;
let ws: Workspace;

const DEF_ROUTE = "DELETE /internal/api/v2/splits/ws/{wsId}/{flag}/environments/{environment}";
const WHY = "URL normalisation would make the request name another object";

beforeAll(async () => {
  emu = await startEmulator({ port: 0 });
  const inf = Number.POSITIVE_INFINITY;
  admin = new AdminClient({ baseUrl: emu.url, apiKey: emu.adminKey, requestsPerSecond: inf });
  platform = new PlatformClient({
    baseUrl: emu.url,
    apiKey: emu.platformKey,
    accountId: emu.accountId,
    requestsPerSecond: inf,
  });
  events = new EventsClient({ baseUrl: emu.url, sdkKey: emu.sdkKey, requestsPerSecond: inf });
  ws = (await admin.workspaces.getByName("Default"))!;
  await admin.flags.create(ws.id, "user", { name: "victim" });
  await admin.definitions.create(ws.id, "victim", "Production", {
    treatments: [{ name: "on" }, { name: "off" }],
    defaultTreatment: "off",
    defaultRule: [{ treatment: "off", size: 100 }],
  });
  await platform.projects.create({ identifier: "victim_proj", name: "Victim" });
});
afterAll(async () => {
  await emu?.stop();
});
beforeEach(() => {
  emu.resetRequests();
});

/** The rejection of `call`, with the limiters of every client watched while it runs. */
async function refusal(call: () => Promise<unknown>): Promise<ValidationError> {
  const spies = [admin, platform, events].map((c) => vi.spyOn(c.core.limiter, "acquire"));
  try {
    const e = await call().then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(e).toBeInstanceOf(ValidationError);
    for (const spy of spies) expect(spy).not.toHaveBeenCalled();
    return e as ValidationError;
  } finally {
    for (const spy of spies) spy.mockRestore();
  }
}

/** Nothing reached the emulator, and the flag, its definition and the project are still there. */
async function nothingSent(): Promise<void> {
  expect(emu.requests()).toEqual([]);
  expect((await admin.flags.get(ws.id, "victim")).name).toBe("victim");
  expect((await admin.definitions.get(ws.id, "victim", "Production")).name).toBe("victim");
  expect((await platform.projects.get("victim_proj")).project.identifier).toBe("victim_proj");
}

describe("dot segments in path values", () => {
  it("a definition delete with environment '..' is refused before any request", async () => {
    const e = await refusal(() => admin.definitions.delete(ws.id, "victim", ".."));
    expect(e.message).toBe(
      `${DEF_ROUTE}: invalid path parameter: environment: ".." is not a valid path value (a dot segment: ${WHY})`,
    );
    expect(e.status).toBe(0);
    expect(e.fieldErrors).toEqual([
      { field: "environment", message: `".." is not a valid path value (a dot segment: ${WHY})` },
    ]);
    expect(e.outcomeUnknown).toBe(false);
    await nothingSent();
  });

  it.each([
    [".", "a dot segment"],
    ["%2E", 'it decodes to ".", a dot segment'],
    ["%2e%2E", 'it decodes to "..", a dot segment'],
    [".%2e", 'it decodes to "..", a dot segment'],
    ["%2E.", 'it decodes to "..", a dot segment'],
    ["%252e%252E", 'it decodes to "..", a dot segment'],
    ["../Production", 'it holds the dot segment ".."'],
    ["Production/.", 'it holds the dot segment "."'],
    ["..%2FProduction", 'it holds the dot segment ".." once decoded'],
    ["%2e%2e%5cProduction", 'it holds the dot segment ".." once decoded'],
  ])("a definition delete with environment %j is refused before any request", async (value, why) => {
    const e = await refusal(() => admin.definitions.delete(ws.id, "victim", value));
    const problem = `${JSON.stringify(value)} is not a valid path value (${why}: ${WHY})`;
    expect(e.message).toBe(`${DEF_ROUTE}: invalid path parameter: environment: ${problem}`);
    expect(e.fieldErrors).toEqual([{ field: "environment", message: problem }]);
    await nothingSent();
  });

  const dots = `".." is not a valid path value (a dot segment: ${WHY})`;
  it.each<[string, () => Promise<unknown>, string]>([
    [
      "admin flags.get",
      () => admin.flags.get(ws.id, ".."),
      "GET /internal/api/v2/splits/ws/{wsId}/{flag}: invalid path parameter: flag",
    ],
    [
      "admin flags.delete",
      () => admin.flags.delete("..", "victim"),
      "DELETE /internal/api/v2/splits/ws/{wsId}/{flag}: invalid path parameter: wsId",
    ],
    [
      "admin definitions.kill",
      () => admin.definitions.kill(ws.id, "..", "Production"),
      "PUT /internal/api/v2/splits/ws/{wsId}/{flag}/environments/{environment}/kill: invalid path parameter: flag",
    ],
    [
      "admin definitions.patch",
      () => admin.definitions.patch(ws.id, "victim", "..", [{ op: "replace", path: "/killed", value: true }]),
      "PATCH /internal/api/v2/splits/ws/{wsId}/{flag}/environments/{environment}: invalid path parameter: environment",
    ],
    [
      "admin users.delete",
      () => admin.users.delete(".."),
      "DELETE /internal/api/v2/users/{userId}: invalid path parameter: userId",
    ],
    [
      "admin groups.delete",
      () => admin.groups.delete(".."),
      "DELETE /internal/api/v2/groups/{groupId}: invalid path parameter: groupId",
    ],
    [
      "platform projects.delete",
      () => platform.projects.delete(".."),
      "DELETE /ng/api/projects/{identifier}: invalid path parameter: identifier",
    ],
    [
      "platform connectors.delete",
      () => platform.connectors.delete("..", { org: "default", project: "victim_proj" }),
      "DELETE /ng/api/connectors/{identifier}: invalid path parameter: identifier",
    ],
    [
      "platform pipelines.delete",
      () => platform.pipelines.delete("..", { org: "default", project: "victim_proj" }),
      "DELETE /pipeline/api/pipelines/{identifier}: invalid path parameter: identifier",
    ],
    [
      // the events API has no path parameters today; its core refuses like the others
      "events core",
      () => events.core.request(route("DELETE /api/events/{batch}", z.unknown()), { batch: ".." }),
      "DELETE /api/events/{batch}: invalid path parameter: batch",
    ],
  ])("%s with '..' is refused before any request", async (_label, call, prefix) => {
    const e = await refusal(call);
    expect(e.message).toBe(`${prefix}: ${dots}`);
    await nothingSent();
  });

  it("values with dots that are no dot segment are sent, encoded", async () => {
    for (const value of ["...", "v1.2", ".hidden", "a..b", "100%", "%2e%2e%2e"]) {
      const e = await admin.flags.get(ws.id, value).then(
        () => undefined,
        (err: unknown) => err,
      );
      expect(ApiError.isInstance(e) && e.status).toBe(404);
      expect(pathValueProblem(value)).toBeUndefined();
    }
    expect(emu.requests().map((r) => r.path)).toEqual(
      ["...", "v1.2", ".hidden", "a..b", "100%25", "%252e%252e%252e"].map(
        (p) => `/internal/api/v2/splits/ws/${ws.id}/${p}`,
      ),
    );
  });
});
