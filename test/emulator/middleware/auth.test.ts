/**
 * Keys and scopes (spec §5; issue 3 "Keys and scopes"): admin keys (optionally restricted to
 * workspaces or environments: 403 elsewhere, and they only see their own users), SDK keys only for
 * the event import and SDK endpoints, platform keys only for the platform API.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Emulator } from "../../../emulator";
import { adminError, type Call, definitionBody, start } from "../helpers";

let emu: Emulator;
let call: Call;
let ws: { id: string; name: string };
let other: { id: string; name: string };
const WS_KEY = "ws-restricted-admin-key";
const ENV_KEY = "env-restricted-admin-key";

beforeAll(async () => {
  ({ emu, call, ws } = await start({
    keys: [{ key: ENV_KEY, type: "admin", environments: ["Staging"], workspaces: ["Default"] }],
  }));
  other = (await call("POST", "/internal/api/v2/workspaces", { body: { name: "Other" } })).body;
  await call("POST", `/internal/api/v2/environments/ws/${other.id}`, { body: { name: "Prod" } });
  await emu.addKey({ key: WS_KEY, type: "admin", workspaces: [other.id] });
});
afterAll(() => emu.stop());

describe("authentication", () => {
  it.each([
    ["no key", {}, 'Missing API key: send "Authorization: Bearer <ADMIN_API_KEY>"'],
    ["an unknown key", { authorization: "Bearer wrong-key-123" }, "Invalid API key"],
    [
      "a malformed header",
      { authorization: "Basic abc" },
      'Missing API key: send "Authorization: Bearer <ADMIN_API_KEY>"',
    ],
    ["the SDK key", "SDK", "This endpoint takes an Admin API key; the key given is an SDK key"],
    ["the platform key", "PLATFORM", "This endpoint takes an Admin API key; the key given is a platform key"],
  ])("refuses %s on the admin API with 401 and the error body", async (_what, headers, message) => {
    const h =
      headers === "SDK"
        ? { authorization: `Bearer ${emu.sdkKey}` }
        : headers === "PLATFORM"
          ? { authorization: `Bearer ${emu.platformKey}` }
          : headers;
    const r = await call("GET", "/internal/api/v2/workspaces", {
      key: null,
      headers: h as Record<string, string>,
    });
    expect(r.status).toBe(401);
    expect(r.body).toEqual(adminError(401, message));
  });

  it("accepts the admin key as a lowercase bearer or in x-api-key", async () => {
    expect(
      (
        await call("GET", "/internal/api/v2/workspaces", {
          key: null,
          headers: { authorization: `bearer ${emu.adminKey}` },
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await call("GET", "/internal/api/v2/workspaces", {
          key: null,
          headers: { "x-api-key": emu.adminKey },
        })
      ).status,
    ).toBe(200);
  });

  it("refuses the admin key on the platform API", async () => {
    const r = await call("GET", `/ng/api/projects?accountIdentifier=${emu.accountId}`, {
      key: null,
      headers: { "x-api-key": emu.adminKey },
    });
    expect(r.status).toBe(401);
  });
});

describe("a key restricted to a workspace", () => {
  it("lists only its workspace and gets 403 elsewhere", async () => {
    const list = await call("GET", "/internal/api/v2/workspaces", { key: WS_KEY });
    expect(list.body.objects.map((w: { name: string }) => w.name)).toEqual(["Other"]);
    for (const path of [
      `/internal/api/v2/environments/ws/${ws.id}`,
      `/internal/api/v2/splits/ws/${ws.id}`,
      `/internal/api/v2/rolloutStatuses?wsId=${ws.id}`,
    ]) {
      const r = await call("GET", path, { key: WS_KEY });
      expect(r.status).toBe(403);
      expect(r.body).toEqual(adminError(403, `The API key is not allowed to access workspace ${ws.id}`));
    }
    expect(
      (
        await call("POST", `/internal/api/v2/splits/ws/${other.id}/trafficTypes/user`, {
          key: WS_KEY,
          body: { name: "mine" },
        })
      ).status,
    ).toBe(200);
  });

  it("cannot make account-wide changes but reads groups", async () => {
    const ws2 = await call("POST", "/internal/api/v2/workspaces", { key: WS_KEY, body: { name: "Nope" } });
    expect(ws2.body).toEqual(
      adminError(
        403,
        "The API key is restricted to some workspaces or environments and cannot create workspaces",
      ),
    );
    const g = await call("POST", "/internal/api/v2/groups", { key: WS_KEY, body: { name: "Nope" } });
    expect(g.body).toEqual(
      adminError(
        403,
        "The API key is restricted to some workspaces or environments and cannot create groups",
      ),
    );
    expect((await call("GET", "/internal/api/v2/groups", { key: WS_KEY })).status).toBe(200);
  });

  it("sees only the users it invited (users invited by keys sharing its workspaces)", async () => {
    const mine = (
      await call("POST", "/internal/api/v2/users", {
        key: WS_KEY,
        body: { email: "mine@example.com", groups: [] },
      })
    ).body;
    const theirs = (
      await call("POST", "/internal/api/v2/users", { body: { email: "theirs@example.com", groups: [] } })
    ).body;
    const list = await call("GET", "/internal/api/v2/users", { key: WS_KEY });
    expect(list.body.data.map((u: { email: string }) => u.email)).toEqual(["mine@example.com"]);
    expect((await call("GET", `/internal/api/v2/users/${theirs.id}`, { key: WS_KEY })).body).toEqual(
      adminError(404, `Could not find user ${theirs.id}`),
    );
    expect((await call("DELETE", `/internal/api/v2/users/${theirs.id}`, { key: WS_KEY })).status).toBe(404);
    expect((await call("GET", `/internal/api/v2/users/${mine.id}`, { key: WS_KEY })).status).toBe(200);
    // The unrestricted key sees both.
    const all = await call("GET", "/internal/api/v2/users");
    expect(all.body.data.map((u: { email: string }) => u.email)).toEqual([
      "mine@example.com",
      "theirs@example.com",
    ]);
  });
});

describe("a key restricted to an environment", () => {
  it("lists and changes only that environment", async () => {
    await call("POST", `/internal/api/v2/splits/ws/${ws.id}/trafficTypes/user`, { body: { name: "scoped" } });
    const envs = await call("GET", `/internal/api/v2/environments/ws/${ws.id}`, { key: ENV_KEY });
    expect(envs.body.map((e: { name: string }) => e.name)).toEqual(["Staging"]);
    const prod = await call("POST", `/internal/api/v2/splits/ws/${ws.id}/scoped/environments/Production`, {
      key: ENV_KEY,
      body: definitionBody(),
    });
    expect(prod.status).toBe(403);
    expect(prod.body.message).toMatch(/^The API key is not allowed to access environment [0-9a-f-]{36}$/);
    const staging = await call("POST", `/internal/api/v2/splits/ws/${ws.id}/scoped/environments/Staging`, {
      key: ENV_KEY,
      body: definitionBody(),
    });
    expect(staging.status).toBe(200);
  });

  it("cannot delete a flag that is defined in an environment outside its scope", async () => {
    await call("POST", `/internal/api/v2/splits/ws/${ws.id}/scoped/environments/Production`, {
      body: definitionBody(),
    });
    const r = await call("DELETE", `/internal/api/v2/splits/ws/${ws.id}/scoped`, { key: ENV_KEY });
    expect(r.status).toBe(403);
    expect(r.body.message).toMatch(/where scoped is defined$/);
    expect((await call("GET", `/internal/api/v2/splits/ws/${ws.id}/scoped`)).status).toBe(200);
  });
});

describe("SDK keys", () => {
  it("each belong to one environment and open only the SDK endpoints and the event import", async () => {
    expect(Object.keys(emu.sdkKeys)).toEqual(["Production", "Staging"]);
    expect(emu.sdkKey).toBe(emu.sdkKeys.Production);
    expect((await call("GET", "/api/splitChanges?s=1.3&since=-1", { key: emu.sdkKeys.Staging })).status).toBe(
      200,
    );
    expect((await call("GET", "/internal/api/v2/workspaces", { key: emu.sdkKeys.Staging })).status).toBe(401);
  });

  it("can be given by option and added at run time", async () => {
    await emu.addKey({ key: "sdk-extra-staging-key", type: "sdk", environments: ["Staging"] });
    const ev = [{ eventTypeId: "e", trafficTypeName: "user", key: "k", timestamp: 1 }];
    expect((await call("POST", "/api/events/bulk", { key: "sdk-extra-staging-key", body: ev })).status).toBe(
      202,
    );
    expect(emu.events().at(-1)?.environmentName).toBe("Staging");
    expect(() => emu.addKey({ key: "short", type: "sdk" })).toThrow(
      "addKey: key: key must be at least 8 characters",
    );
    expect(() => emu.setFaults({ rate500: 3 })).toThrow(
      "setFaults: rate500: rate500 must be between 0 and 1",
    );
    expect(() => emu.setRateLimit({ requestsPerSecond: 0.5 })).toThrow(
      "setRateLimit: requestsPerSecond: requestsPerSecond must be a whole number",
    );
  });
});

describe("Harness mode (ref admin §4: migrated accounts send a Harness token in x-api-key)", () => {
  const asApiKey = (key: string) => ({ key: null, headers: { "x-api-key": key } });

  it("takes the Harness token (the platform key) in x-api-key on the admin API, v2 and v3", async () => {
    const list = await call("GET", "/internal/api/v2/workspaces", asApiKey(emu.platformKey));
    expect(list.status).toBe(200);
    expect(list.body.objects.map((w: { name: string }) => w.name)).toEqual(["Default", "Other"]);
    const sets = await call(
      "GET",
      `/internal/api/v3/flag-sets?workspace_id=${ws.id}`,
      asApiKey(emu.platformKey),
    );
    expect(sets.status).toBe(200);
    expect(sets.body).toEqual({ data: [], nextMarker: null, previousMarker: null, limit: 50, count: 0 });
  });

  it("takes each admin key in either header, with its own restrictions", async () => {
    const mine = await call("GET", `/internal/api/v2/environments/ws/${other.id}`, asApiKey(WS_KEY));
    expect(mine.status).toBe(200);
    const elsewhere = await call("GET", `/internal/api/v2/environments/ws/${ws.id}`, asApiKey(WS_KEY));
    expect(elsewhere.status).toBe(403);
    expect(elsewhere.body).toEqual(
      adminError(403, `The API key is not allowed to access workspace ${ws.id}`),
    );
  });

  it("refuses a Harness token sent as a Bearer key, and an SDK key in x-api-key", async () => {
    const bearer = await call("GET", "/internal/api/v2/workspaces", { key: emu.platformKey });
    expect(bearer.status).toBe(401);
    expect(bearer.body).toEqual(
      adminError(401, "This endpoint takes an Admin API key; the key given is a platform key"),
    );
    const sdk = await call("GET", "/internal/api/v2/workspaces", asApiKey(emu.sdkKey));
    expect(sdk.status).toBe(401);
    expect(sdk.body).toEqual(
      adminError(401, "This endpoint takes an Admin API key; the key given is an SDK key"),
    );
  });

  it("reads Authorization first when both headers are sent", async () => {
    const r = await call("GET", "/internal/api/v2/workspaces", {
      key: "wrong-key-123",
      headers: { "x-api-key": emu.platformKey },
    });
    expect(r.status).toBe(401);
    expect(r.body).toEqual(adminError(401, "Invalid API key"));
  });
});

describe("Harness token scopes (ref admin §4, §9.2): a token reaches the workspaces of the projects it was issued for", () => {
  const PROJECT_TOKEN = "pat.scoped.payments-only.0123456789";
  const ORG_TOKEN = "pat.scoped.acme-only.0123456789";
  const asToken = (key: string, body?: unknown) => ({ key: null, headers: { "x-api-key": key }, body });
  let h: Awaited<ReturnType<typeof start>>;
  const ws: Record<string, { id: string; name: string }> = {};
  const prod: Record<string, { id: string; name: string }> = {};
  const listed = async (key: string) =>
    (await h.call("GET", "/internal/api/v2/workspaces", asToken(key))).body.objects.map(
      (w: { name: string }) => w.name,
    );

  beforeAll(async () => {
    h = await start({
      keys: [
        { key: PROJECT_TOKEN, type: "platform", organizations: ["default"], projects: ["default/payments"] },
        { key: ORG_TOKEN, type: "platform", organizations: ["acme"] },
      ],
    });
    const platform = (path: string, body: unknown, org?: string) =>
      h.call(
        "POST",
        `${path}?accountIdentifier=${h.emu.accountId}${org ? `&orgIdentifier=${org}` : ""}`,
        asToken(h.emu.platformKey, body),
      );
    expect(
      (await platform("/ng/api/organizations", { organization: { identifier: "acme", name: "Acme" } }))
        .status,
    ).toBe(200);
    for (const [identifier, name, org] of [
      ["payments", "Payments", undefined],
      ["search", "Search", undefined],
      ["shop", "Shop", "acme"],
    ] as const) {
      expect((await platform("/ng/api/projects", { project: { identifier, name } }, org)).status).toBe(200);
    }
    // Each project is its workspace, found by the project's organization and identifier
    // (emulator/store/index.ts takeWorkspace).
    for (const [name, org, project] of [
      ["payments", "default", "payments"],
      ["Search", "default", "search"],
      ["shop", "acme", "shop"],
    ] as const) {
      const found = await h.call(
        "GET",
        `/internal/api/v2/workspaces?organizationIdentifier=${org}&projectIdentifier=${project}`,
      );
      expect(found.body.objects).toHaveLength(1);
      ws[name] = found.body.objects[0];
      prod[name] = (
        await h.call("POST", `/internal/api/v2/environments/ws/${ws[name]?.id}`, { body: { name: "Prod" } })
      ).body;
      await h.call("POST", `/internal/api/v2/splits/ws/${ws[name]?.id}/trafficTypes/user`, {
        body: { name: "theirs" },
      });
    }
  });
  afterAll(() => h.emu.stop());

  it("a project token: another project's workspace is refused, its rename and an unrestricted key too", async () => {
    const search = ws.Search as { id: string };
    const rename = await h.call(
      "PATCH",
      `/internal/api/v2/workspaces/${search.id}`,
      asToken(PROJECT_TOKEN, [{ op: "replace", path: "/name", value: "owned" }]),
    );
    expect(rename.status).toBe(403);
    expect(rename.body).toEqual(
      adminError(403, `The API key is not allowed to access workspace ${search.id}`),
    );
    const minted = await h.call(
      "POST",
      "/internal/api/v2/apiKeys",
      asToken(PROJECT_TOKEN, { name: "wider", apiKeyType: "admin" }),
    );
    expect(minted.status).toBe(403);
    expect(minted.body).toEqual(
      adminError(
        403,
        "The Harness token is restricted to project default/payments and cannot create an admin API key for every workspace: name a workspace or environments within its scope",
      ),
    );
    for (const [body, what] of [
      [
        { name: "w", apiKeyType: "admin", workspace: { type: "workspace", id: search.id } },
        `workspace ${search.id}`,
      ],
      [
        { name: "e", apiKeyType: "admin", environments: [{ type: "environment", id: prod.Search?.id }] },
        `environment ${prod.Search?.id}`,
      ],
      [
        {
          name: "s",
          apiKeyType: "server_side",
          environments: [{ type: "environment", id: prod.Search?.id }],
        },
        `environment ${prod.Search?.id}`,
      ],
    ] as const) {
      const r = await h.call("POST", "/internal/api/v2/apiKeys", asToken(PROJECT_TOKEN, body));
      expect(r.body).toEqual(
        adminError(
          403,
          `The Harness token is restricted to project default/payments and cannot create an API key for ${what}`,
        ),
      );
    }
    for (const [method, path, body] of [
      ["GET", `/internal/api/v2/splits/ws/${search.id}`, undefined],
      ["DELETE", `/internal/api/v2/splits/ws/${search.id}/theirs`, undefined],
      ["POST", `/internal/api/v2/splits/ws/${search.id}/trafficTypes/user`, { name: "intruder" }],
      ["GET", `/internal/api/v2/rolloutStatuses?wsId=${search.id}`, undefined],
      ["DELETE", `/internal/api/v2/workspaces/${search.id}`, undefined],
    ] as const) {
      const r = await h.call(method, path, asToken(PROJECT_TOKEN, body));
      expect([method, path, r.status]).toEqual([method, path, 403]);
    }
    expect(await listed(PROJECT_TOKEN)).toEqual(["Payments"]);
    const group = await h.call("POST", "/internal/api/v2/groups", asToken(PROJECT_TOKEN, { name: "g" }));
    expect(group.body).toEqual(
      adminError(403, "The Harness token is restricted to project default/payments and cannot create groups"),
    );
    expect((await h.call("GET", "/internal/api/v2/groups", asToken(PROJECT_TOKEN))).status).toBe(200);
    expect((await h.call("GET", `/internal/api/v2/workspaces/${search.id}`)).body.name).toBe("Search");
    expect((await h.call("GET", `/internal/api/v2/splits/ws/${search.id}/theirs`)).status).toBe(200);
  });

  it("a project token works in its own project's workspace and mints keys within it", async () => {
    const payments = ws.payments as { id: string };
    const flag = await h.call(
      "POST",
      `/internal/api/v2/splits/ws/${payments.id}/trafficTypes/user`,
      asToken(PROJECT_TOKEN, { name: "checkout" }),
    );
    expect(flag.status).toBe(200);
    // A rename keeps the workspace its project's: the link is an identity, not a name.
    const renamed = await h.call(
      "PATCH",
      `/internal/api/v2/workspaces/${payments.id}`,
      asToken(PROJECT_TOKEN, [{ op: "replace", path: "/name", value: "Elsewhere" }]),
    );
    expect(renamed.status).toBe(200);
    expect(renamed.body).toEqual({
      name: "Elsewhere",
      type: "workspace",
      id: payments.id,
      requiresTitleAndComments: false,
      organizationIdentifier: "default",
      projectIdentifier: "payments",
    });
    expect(await listed(PROJECT_TOKEN)).toEqual(["Elsewhere"]);
    const back = await h.call(
      "PATCH",
      `/internal/api/v2/workspaces/${payments.id}`,
      asToken(PROJECT_TOKEN, [{ op: "replace", path: "/name", value: "Payments" }]),
    );
    expect(back.body.name).toBe("Payments");
    const key = await h.call(
      "POST",
      "/internal/api/v2/apiKeys",
      asToken(PROJECT_TOKEN, {
        name: "mine",
        apiKeyType: "admin",
        workspace: { type: "workspace", id: payments.id },
      }),
    );
    expect(key.status).toBe(200);
    expect(key.body).toMatchObject({ name: "mine", apiKeyType: "admin", roles: [] });
    const minted = key.body.key as string;
    expect(
      (await h.call("GET", `/internal/api/v2/splits/ws/${payments.id}/checkout`, { key: minted })).status,
    ).toBe(200);
    expect(
      (await h.call("DELETE", `/internal/api/v2/splits/ws/${ws.Search?.id}/theirs`, { key: minted })).status,
    ).toBe(403);
    const sdk = await h.call(
      "POST",
      "/internal/api/v2/apiKeys",
      asToken(PROJECT_TOKEN, {
        name: "sdk",
        apiKeyType: "server_side",
        environments: [{ type: "environment", id: prod.payments?.id }],
      }),
    );
    expect(sdk.status).toBe(200);
    // It revokes what lies within its scope, and nothing wider.
    expect(
      (await h.call("DELETE", `/internal/api/v2/apiKeys/${key.body.id}`, asToken(PROJECT_TOKEN))).body,
    ).toBe(true);
    const wide = (
      await h.call("POST", "/internal/api/v2/apiKeys", { body: { name: "wide", apiKeyType: "admin" } })
    ).body;
    const revoke = await h.call("DELETE", `/internal/api/v2/apiKeys/${wide.id}`, asToken(PROJECT_TOKEN));
    expect(revoke.body).toEqual(
      adminError(
        403,
        `The Harness token is restricted to project default/payments and cannot revoke API key ${wide.id}, which reaches beyond it`,
      ),
    );
    expect((await h.call("GET", "/internal/api/v2/workspaces", { key: wide.key })).status).toBe(200);
  });

  it("an organization token reaches the workspaces of that organization's projects", async () => {
    expect(await listed(ORG_TOKEN)).toEqual(["Shop"]);
    const shop = ws.shop as { id: string };
    expect(
      (await h.call("GET", `/internal/api/v2/splits/ws/${shop.id}/theirs`, asToken(ORG_TOKEN))).status,
    ).toBe(200);
    const def = await h.call(
      "PATCH",
      `/internal/api/v2/workspaces/${h.ws.id}`,
      asToken(ORG_TOKEN, [{ op: "replace", path: "/name", value: "Mine" }]),
    );
    expect(def.body).toEqual(adminError(403, `The API key is not allowed to access workspace ${h.ws.id}`));
    const unrestricted = await h.call(
      "POST",
      "/internal/api/v2/apiKeys",
      asToken(ORG_TOKEN, { name: "wider", apiKeyType: "admin" }),
    );
    expect(unrestricted.body).toEqual(
      adminError(
        403,
        "The Harness token is restricted to organization acme and cannot create an admin API key for every workspace: name a workspace or environments within its scope",
      ),
    );
    const within = await h.call(
      "POST",
      "/internal/api/v2/apiKeys",
      asToken(ORG_TOKEN, {
        name: "shop key",
        apiKeyType: "admin",
        workspace: { type: "workspace", id: shop.id },
      }),
    );
    expect(within.status).toBe(200);
  });

  it("an account token acts on every workspace and mints unrestricted keys, as before", async () => {
    const all = (await h.call("GET", "/internal/api/v2/workspaces")).body.objects.map(
      (w: { name: string }) => w.name,
    );
    expect(all).toHaveLength(4);
    expect(await listed(h.emu.platformKey)).toEqual(all);
    const search = ws.Search as { id: string };
    const rename = await h.call(
      "PATCH",
      `/internal/api/v2/workspaces/${search.id}`,
      asToken(h.emu.platformKey, [{ op: "replace", path: "/requiresTitleAndComments", value: false }]),
    );
    expect(rename.status).toBe(200);
    const key = await h.call(
      "POST",
      "/internal/api/v2/apiKeys",
      asToken(h.emu.platformKey, { name: "all", apiKeyType: "admin" }),
    );
    expect(key.status).toBe(200);
    expect(
      (await h.call("POST", "/internal/api/v2/groups", asToken(h.emu.platformKey, { name: "account-group" })))
        .status,
    ).toBe(200);
  });
});
