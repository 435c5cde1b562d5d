/**
 * Conformance: spec §2 "Environment" (bare array list), §4 "Projects and environments"; ref admin
 * §1.1-1.2 (create with API tokens, no GET of one environment, PATCH, delete blocked by keys).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Emulator } from "../../../emulator";
import { adminError, type Call, definitionBody, start } from "../helpers";

const UUID = expect.stringMatching(/^[0-9a-f-]{36}$/);
let emu: Emulator;
let call: Call;
let ws: { id: string; name: string };
let env: Record<string, { id: string; name: string; production: boolean }>;

beforeAll(async () => {
  ({ emu, call, ws, env } = await start());
});
afterAll(() => emu.stop());

describe("GET /environments/ws/{ws}", () => {
  it("is a JSON array at the root with the seeded Production and Staging", async () => {
    const r = await call("GET", `/internal/api/v2/environments/ws/${ws.id}`);
    expect(r.status).toBe(200);
    expect(r.body).toEqual([
      { name: "Production", id: UUID, production: true },
      { name: "Staging", id: UUID, production: false },
    ]);
  });

  it("404s an unknown workspace", async () => {
    const r = await call("GET", "/internal/api/v2/environments/ws/unknown");
    expect(r.status).toBe(404);
    expect(r.body).toEqual(adminError(404, "Could not find workspace unknown"));
  });

  it("has no read of one environment (405, ref admin §1.2)", async () => {
    const r = await call("GET", `/internal/api/v2/environments/ws/${ws.id}/${env.Production?.id}`);
    expect(r.status).toBe(405);
    expect(r.body).toEqual(
      adminError(405, "HTTP 405 Method Not Allowed: environments are read by listing them"),
    );
  });
});

describe("POST, PATCH, DELETE", () => {
  it("creates an environment with a server-side and a client-side SDK key that work on the SDK endpoints", async () => {
    const r = await call("POST", `/internal/api/v2/environments/ws/${ws.id}`, {
      body: { name: "QA", production: false },
    });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      name: "QA",
      id: UUID,
      production: false,
      apiTokens: [
        {
          id: UUID,
          name: "QA server-side",
          type: "api_key",
          apiKeyType: "server_side",
          key: expect.stringMatching(/^sdk-/),
        },
        {
          id: UUID,
          name: "QA client-side",
          type: "api_key",
          apiKeyType: "client_side",
          key: expect.stringMatching(/^sdk-/),
        },
      ],
    });
    const sdk = await call("GET", "/api/splitChanges?s=1.3&since=-1", { key: r.body.apiTokens[0].key });
    expect(sdk.status).toBe(200);
    expect(sdk.body.ff).toEqual({ d: [], s: -1, t: -1 });
  });

  it.each([
    [{ name: "QA" }, 409, "Environment with name QA already exists in workspace Default", ""],
    [
      { name: "" },
      400,
      "name: name must not be empty",
      "name: name must not be empty; name: name must start with a letter or digit and use only letters, digits, ' ', '-' and '_'",
    ],
    [{ name: "x", production: "yes" }, 400, "production: production must be a boolean", ""],
  ])("refuses %j", async (body, status, message, details) => {
    const r = await call("POST", `/internal/api/v2/environments/ws/${ws.id}`, { body });
    expect(r.status).toBe(status);
    expect(r.body).toEqual(adminError(status, message, details));
  });

  it("patches name and production (a boolean or the strings true/false)", async () => {
    const created = (
      await call("POST", `/internal/api/v2/environments/ws/${ws.id}`, { body: { name: "Dev" } })
    ).body;
    const r = await call("PATCH", `/internal/api/v2/environments/ws/${ws.id}/Dev`, {
      body: [
        { op: "replace", path: "/name", value: "Dev2" },
        { op: "replace", path: "/production", value: "true" },
      ],
    });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ name: "Dev2", id: created.id, production: true });
  });

  it("refuses to delete an environment while its API keys exist, then deletes it and returns true", async () => {
    const created = (
      await call("POST", `/internal/api/v2/environments/ws/${ws.id}`, { body: { name: "Tmp" } })
    ).body;
    const ids = created.apiTokens.map((t: { id: string }) => t.id);
    const refused = await call("DELETE", `/internal/api/v2/environments/ws/${ws.id}/${created.id}`);
    expect(refused.status).toBe(409);
    expect(refused.body).toEqual(
      adminError(
        409,
        `Environment Tmp still has API keys (${ids.join(", ")}); revoke them with DELETE /apiKeys/{id} first`,
      ),
    );
    for (const id of ids) expect((await call("DELETE", `/internal/api/v2/apiKeys/${id}`)).body).toBe(true);
    const r = await call("DELETE", `/internal/api/v2/environments/ws/${ws.id}/${created.id}`);
    expect(r.status).toBe(200);
    expect(r.text).toBe("true");
    const list = await call("GET", `/internal/api/v2/environments/ws/${ws.id}`);
    expect(list.body.map((e: { name: string }) => e.name)).not.toContain("Tmp");
  });
});

describe("change permissions (ref admin §1.2, §9.2)", () => {
  it("are patched with the environment, and requiring approvals gates direct writes", async () => {
    const envs = (await call("GET", `/internal/api/v2/environments/ws/${ws.id}`)).body as {
      id: string;
      name: string;
    }[];
    const staging = envs.find((e) => e.name === "Staging");
    const on = await call("PATCH", `/internal/api/v2/environments/ws/${ws.id}/Staging`, {
      body: [{ op: "add", path: "/changePermissions/areApprovalsRequired", value: true }],
    });
    expect(on.status).toBe(200);
    expect(on.body).toEqual({
      name: "Staging",
      id: staging?.id,
      production: false,
      changePermissions: { areApprovalsRequired: true },
    });
    await call("POST", `/internal/api/v2/splits/ws/${ws.id}/trafficTypes/user`, {
      body: { name: "cp_flag" },
    });
    const path = `/internal/api/v2/splits/ws/${ws.id}/cp_flag/environments/Staging`;
    const refused = await call("POST", path, { body: definitionBody() });
    expect(refused.status).toBe(403);
    const off = await call("PATCH", `/internal/api/v2/environments/ws/${ws.id}/Staging`, {
      body: [{ op: "replace", path: "/changePermissions/areApprovalsRequired", value: false }],
    });
    expect(off.body.changePermissions).toEqual({ areApprovalsRequired: false });
    expect((await call("POST", path, { body: definitionBody() })).status).toBe(200);
  });
});
