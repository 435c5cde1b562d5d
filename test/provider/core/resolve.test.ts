/**
 * Resolution of a program's workspace reference against the emulator: by name, by id, and for an
 * account under Harness by `<org>/<project>` (admin ref §1.2, `GET /workspaces?
 * organizationIdentifier=&projectIdentifier=`), with the exact query sent and the exact message
 * when nothing matches.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Emulator, startEmulator } from "../../../emulator";
import { NotFoundByName, resolveWorkspace } from "../../../provider/core/resolve";
import { AdminClient } from "../../../sdk/admin/client";
import { PlatformClient } from "../../../sdk/platform/client";

let emu: Emulator;
let admin: AdminClient;
let platform: PlatformClient;

beforeAll(async () => {
  emu = await startEmulator({ port: 0 });
  admin = new AdminClient({ baseUrl: emu.url, apiKey: emu.adminKey, requestsPerSecond: Infinity, env: {} });
  platform = new PlatformClient({
    baseUrl: emu.url,
    apiKey: emu.platformKey,
    accountId: emu.accountId,
    requestsPerSecond: Infinity,
    env: {},
  });
  await platform.projects.create({ identifier: "payments", name: "Payments" });
  await platform.projects.create({ identifier: "search", name: "Search" });
  await admin.workspaces.create({ name: "Payments", requiresTitleAndComments: false });
});
afterAll(async () => {
  await emu?.stop();
});

describe("resolveWorkspace", () => {
  it("finds a workspace by name and by id", async () => {
    const ws = await resolveWorkspace(admin, "Payments");
    expect(ws.name).toBe("Payments");
    expect((await resolveWorkspace(admin, ws.id)).name).toBe("Payments");
  });

  it("finds the workspace of a Harness organization and project, asking the service with both identifiers", async () => {
    const expected = await admin.workspaces.getByName("Payments");
    emu.resetRequests();
    const ws = await resolveWorkspace(
      new AdminClient({ baseUrl: emu.url, apiKey: emu.adminKey, env: {} }),
      "default/payments",
    );
    expect(ws).toEqual(expected);
    const harness = emu.requests().filter((r) => r.query.includes("organizationIdentifier"));
    expect(harness.map((r) => `${r.method} ${r.path}?${r.query}`)).toEqual([
      "GET /internal/api/v2/workspaces?offset=0&limit=100&organizationIdentifier=default&projectIdentifier=payments",
    ]);
  });

  it("fails naming both readings when neither a workspace nor a Harness project's workspace matches", async () => {
    const wanted = "default/search"; // the project exists, no workspace is linked to it
    const failure = await resolveWorkspace(admin, wanted).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(NotFoundByName);
    expect((failure as Error).message).toBe(
      'workspace "default/search" not found (nor a workspace of Harness organization "default" and project "search"); valid workspaces: "Default", "Payments"',
    );
  });

  it("the emulator refuses one Harness identifier without the other", async () => {
    const res = await fetch(`${emu.url}/internal/api/v2/workspaces?organizationIdentifier=default`, {
      headers: { authorization: `Bearer ${emu.adminKey}` },
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { message: string }).message).toBe(
      "organizationIdentifier and projectIdentifier must be given together",
    );
  });
});
