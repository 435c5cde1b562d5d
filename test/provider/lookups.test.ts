import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Emulator, startEmulator } from "../../emulator";
import {
  getEnvironment,
  getGroup,
  getRolloutStatus,
  getTrafficType,
  getUsers,
  getWorkspace,
  type LookupOptions,
} from "../../provider/lookups";
import { AdminClient, type Workspace } from "../../sdk";

let emu: Emulator;
let admin: AdminClient;
let opts: LookupOptions;
let ws: Workspace;

beforeAll(async () => {
  emu = await startEmulator({ port: 0 });
  admin = new AdminClient({
    baseUrl: emu.url,
    apiKey: emu.adminKey,
    requestsPerSecond: Number.POSITIVE_INFINITY,
  });
  opts = { adminApiUrl: emu.url, adminApiKey: emu.adminKey };
  ws = (await admin.workspaces.getByName("Default")) as Workspace;
});
afterAll(async () => {
  await emu?.stop();
});

describe("lookups", () => {
  it("getWorkspace by name and by id", async () => {
    expect(await getWorkspace({ name: "Default" }, opts)).toEqual(ws);
    expect(await getWorkspace({ name: ws.id }, opts)).toEqual(ws);
  });

  it("getEnvironment, getTrafficType, getRolloutStatus by name", async () => {
    expect(await getEnvironment({ workspace: "Default", name: "Production" }, opts)).toMatchObject({
      name: "Production",
      production: true,
    });
    expect(await getTrafficType({ workspace: "Default", name: "account" }, opts)).toMatchObject({
      name: "account",
      id: expect.any(String),
    });
    expect(await getRolloutStatus({ workspace: "Default", name: "Ramping" }, opts)).toMatchObject({
      name: "Ramping",
      description: expect.any(String),
    });
  });

  it("lists the valid names when a name is unknown", async () => {
    await expect(getEnvironment({ workspace: "Default", name: "Prod" }, opts)).rejects.toThrow(
      'environment "Prod" not found in workspace "Default"; valid environments: "Production", "Staging"',
    );
    await expect(getWorkspace({ name: "Nope" }, opts)).rejects.toThrow(
      'workspace "Nope" not found; valid workspaces: "Default"',
    );
    await expect(getGroup({ name: "nobody" }, opts)).rejects.toThrow('group "nobody" not found;');
  });

  it("names a bad argument", async () => {
    await expect(getEnvironment({ workspace: "", name: "Production" }, opts)).rejects.toThrow(
      "getEnvironment: workspace: must not be empty",
    );
    await expect(getUsers({ status: "GONE" as "ACTIVE" }, opts)).rejects.toThrow("getUsers: status: ");
  });

  it("getGroup and getUsers (all pages, by status and by group name)", async () => {
    const group = await admin.groups.create({ name: "lookup-team", description: "d" });
    expect(await getGroup({ name: "lookup-team" }, opts)).toEqual(group);
    const invited = [];
    // More than the largest page (200), so the lookups must follow the markers.
    for (let i = 0; i < 205; i++) {
      invited.push(
        await admin.users.invite({
          email: `u${i}@example.com`,
          groups: i % 3 === 0 ? [{ id: group.id, type: "group" }] : [],
        }),
      );
    }
    await emu.acceptInvitation(invited[0]?.id as string);
    emu.resetRequests();
    const pending = await getUsers({ status: "PENDING" }, opts);
    expect(emu.requests().filter((r) => r.path === "/internal/api/v2/users").length).toBe(2);
    expect(pending.map((u) => u.email).sort()).toEqual(
      invited
        .slice(1)
        .map((u) => u.email)
        .sort(),
    );
    const inGroup = await getUsers({ group: "lookup-team" }, opts);
    expect(inGroup.map((u) => u.id).sort()).toEqual(
      invited
        .filter((_, i) => i % 3 === 0)
        .map((u) => u.id)
        .sort(),
    );
  });

  it("reads credentials from the environment when no options are given", async () => {
    process.env.FLAGSTACK_ADMIN_API_URL = emu.url;
    process.env.FLAGSTACK_ADMIN_API_KEY = emu.adminKey;
    try {
      expect((await getWorkspace({ name: "Default" })).id).toBe(ws.id);
    } finally {
      delete process.env.FLAGSTACK_ADMIN_API_URL;
      delete process.env.FLAGSTACK_ADMIN_API_KEY;
    }
  });
});
