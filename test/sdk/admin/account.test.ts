/**
 * The admin client's account skeleton against the emulator: workspaces (find, patch, delete after
 * their traffic types), environments (create with change permissions and their SDK keys, dry-run
 * and real patches, delete refused while keys exist), traffic types (create, delete), attributes
 * (create, list, patch, delete) and API keys (create, revoke): exact requests and answers.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Emulator, startEmulator } from "../../../emulator";
import { AdminClient } from "../../../sdk/admin/client";
import { type Recorder, recordingDispatcher } from "../helpers/recording-dispatcher";

let emu: Emulator;
let rec: Recorder;
let admin: AdminClient;
const V2 = "/internal/api/v2";

beforeAll(async () => {
  emu = await startEmulator({ port: 0 });
  rec = recordingDispatcher();
  admin = new AdminClient({
    baseUrl: emu.url,
    apiKey: emu.adminKey,
    requestsPerSecond: Infinity,
    dispatcher: rec.dispatcher,
  });
});
afterAll(async () => {
  await emu?.stop();
});

const sent = () => rec.sent.map((r) => `${r.method} ${r.path}`);

describe("the account skeleton", () => {
  it("makes, changes and removes a workspace with an environment, traffic type, attribute and key", async () => {
    const ws = await admin.workspaces.create({ name: "Skeleton", requiresTitleAndComments: false });
    expect(await admin.workspaces.find(ws.id)).toEqual(ws);
    expect(await admin.workspaces.find("Skeleton")).toEqual(ws);
    expect(
      await admin.workspaces.patch(ws.id, [
        { op: "replace", path: "/requiresTitleAndComments", value: true },
      ]),
    ).toEqual({ ...ws, requiresTitleAndComments: true });

    const approver = await admin.groups.create({ name: "skeleton-approvers", description: "" });
    const permissions = {
      areApprovalsRequired: true,
      approvers: [{ id: approver.id, type: "group" as const }],
    };
    const env = await admin.environments.create(ws.id, {
      name: "Staging",
      production: false,
      changePermissions: permissions,
    });
    expect(env).toMatchObject({ name: "Staging", production: false, changePermissions: permissions });
    expect(env.apiTokens?.map((t) => t.apiKeyType).sort()).toEqual(["client_side", "server_side"]);

    rec.sent.length = 0;
    const dry = await admin.environments.patch(ws.id, env.id, [], { dryRun: true });
    expect(dry).toEqual({ id: env.id, name: "Staging", production: false, changePermissions: permissions });
    expect(sent()).toEqual([`PATCH ${V2}/environments/ws/${ws.id}/${env.id}?dry_run=true`]);
    const renamed = await admin.environments.patch(ws.id, env.id, [
      { op: "replace", path: "/name", value: "Stage" },
    ]);
    expect(renamed.name).toBe("Stage");

    const tt = await admin.trafficTypes.create(ws.id, { name: "account" });
    expect(tt).toMatchObject({ name: "account" });
    const attr = await admin.attributes.create(ws.id, tt.id, {
      id: "plan",
      displayName: "Plan",
      dataType: "STRING",
      suggestedValues: ["free"],
    });
    expect(await admin.attributes.list(ws.id, tt.id)).toEqual([attr]);
    const patched = await admin.attributes.patch(ws.id, tt.id, "plan", [
      { op: "replace", path: "/description", value: "billing plan" },
    ]);
    expect(patched).toEqual({ ...attr, description: "billing plan" });

    const key = await admin.apiKeys.create({
      name: "stage-server",
      apiKeyType: "server_side",
      environments: [{ type: "environment", id: env.id }],
      workspace: { type: "workspace", id: ws.id },
    });
    expect(key).toMatchObject({ name: "stage-server", apiKeyType: "server_side", key: expect.any(String) });

    await expect(admin.environments.delete(ws.id, env.id)).rejects.toMatchObject({ status: 409 });
    rec.sent.length = 0;
    for (const id of [key.id, ...(env.apiTokens ?? []).map((t) => t.id)]) await admin.apiKeys.revoke(id);
    expect(await admin.environments.delete(ws.id, env.id)).toBe(true);
    expect(await admin.attributes.delete(ws.id, tt.id, "plan")).toBe(true);
    await expect(admin.workspaces.delete(ws.id)).rejects.toMatchObject({ status: 409 });
    for (const t of await admin.trafficTypes.list(ws.id)) await admin.trafficTypes.delete(t.id);
    expect(await admin.workspaces.delete(ws.id)).toBe(true);
    const tokens = (env.apiTokens ?? []).map((t) => `DELETE ${V2}/apiKeys/${t.id}`);
    expect(sent().slice(0, 5)).toEqual([
      `DELETE ${V2}/apiKeys/${key.id}`,
      ...tokens,
      `DELETE ${V2}/environments/ws/${ws.id}/${env.id}`,
      `DELETE ${V2}/schema/ws/${ws.id}/trafficTypes/${tt.id}/plan`,
    ]);
    expect(await admin.workspaces.find(ws.id)).toBeUndefined();
  });

  it("checks bodies before sending: an API key's type and name, a traffic type's name", async () => {
    rec.sent.length = 0;
    await expect(admin.apiKeys.create({ name: "", apiKeyType: "root" as never })).rejects.toMatchObject({
      fieldErrors: [
        { field: "name", message: "name must not be empty" },
        { field: "apiKeyType", message: 'apiKeyType must be one of "admin", "server_side", "client_side"' },
      ],
    });
    await expect(admin.trafficTypes.create("ws", { name: "has space" })).rejects.toMatchObject({ status: 0 });
    expect(rec.sent).toEqual([]);
  });
});
