/**
 * Resolution of a program's workspace reference against the emulator: by name, by id, and for an
 * account under Harness by `<org>/<project>` (admin ref §1.2, `GET /workspaces?
 * organizationIdentifier=&projectIdentifier=`), with the exact query sent and the exact message
 * when nothing matches. A Harness project is its FME workspace (issue 38): each project made here
 * brings its own, named like the project (`Name (org)` when the name is taken).
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
  await platform.organizations.create({ identifier: "other", name: "Other" });
  await platform.projects.create({ identifier: "payments", name: "Payments" });
  await platform.projects.create({ identifier: "payments", name: "Payments" }, { org: "other" });
});
afterAll(async () => {
  await emu?.stop();
});

/** A fresh client: nothing memoised, so the requests it sends are all there is to see. */
const freshAdmin = () =>
  new AdminClient({ baseUrl: emu.url, apiKey: emu.adminKey, requestsPerSecond: Infinity, env: {} });

describe("resolveWorkspace", () => {
  it("finds a project's workspace by name and by id", async () => {
    const ws = await resolveWorkspace(admin, "Payments");
    expect(ws).toEqual({
      id: ws.id,
      name: "Payments",
      type: "workspace",
      requiresTitleAndComments: false,
      organizationIdentifier: "default",
      projectIdentifier: "payments",
    });
    expect(await resolveWorkspace(admin, ws.id)).toEqual(ws);
  });

  it("finds the workspace of a Harness organization and project, asking the service with both identifiers", async () => {
    const expected = await admin.workspaces.getByName("Payments (other)");
    expect(expected).toMatchObject({ organizationIdentifier: "other", projectIdentifier: "payments" });
    emu.resetRequests();
    const ws = await resolveWorkspace(freshAdmin(), "other/payments");
    expect(ws).toEqual(expected);
    const harness = emu.requests().filter((r) => r.query.includes("organizationIdentifier"));
    expect(harness.map((r) => `${r.method} ${r.path}?${r.query}`)).toEqual([
      "GET /internal/api/v2/workspaces?offset=0&limit=100&organizationIdentifier=other&projectIdentifier=payments",
    ]);
  });

  it("reads one project's reference apart from another's of the same name in another organization", async () => {
    const client = freshAdmin();
    const mine = await resolveWorkspace(client, "default/payments");
    const theirs = await resolveWorkspace(client, "other/payments");
    expect([mine.name, mine.organizationIdentifier, theirs.name, theirs.organizationIdentifier]).toEqual([
      "Payments",
      "default",
      "Payments (other)",
      "other",
    ]);
    expect(mine.id).not.toBe(theirs.id);
  });

  it("fails naming both readings when neither a workspace nor a Harness project's workspace matches", async () => {
    const wanted = "default/search"; // no such project, so no workspace is it
    const failure = await resolveWorkspace(admin, wanted).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(NotFoundByName);
    expect((failure as Error).message).toBe(
      'workspace "default/search" not found (nor a workspace of Harness organization "default" and project "search"); valid workspaces: "Default", "Payments", "Payments (other)"',
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
