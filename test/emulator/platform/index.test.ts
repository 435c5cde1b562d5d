/**
 * The platform sub-app in the emulator (`emulator/platform/index.ts`): the state it keeps, when it
 * commits, the correlation id and keys it reads from the request and the store. In-process
 * (`app.request()`).
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { platformRoutes } from "../../../emulator/platform";
import { ApiKeySpec, emptyPlatformState, PlatformState } from "../../../emulator/store";
import { dockerConnector, inProcessPlatform, simplePipeline, startPlatform, successBody } from "./harness";

describe("emptyPlatformState", () => {
  it("seeds the account with the organization default and nothing else", () => {
    expect(emptyPlatformState("acc1", 1000)).toEqual({
      accountId: "acc1",
      organizations: {
        default: {
          identifier: "default",
          name: "default",
          createdAt: 1000,
          description: "Default Organization",
          tags: {},
          lastModifiedAt: 1000,
          version: 0,
        },
      },
      projects: {},
      connectors: {},
      pipelines: {},
    });
  });
});

describe("platformRoutes", () => {
  it("commits once per change and never for reads or refused requests", async () => {
    const p = await inProcessPlatform();
    expect(
      (await p.call("POST", "/ng/api/projects", { json: { project: { identifier: "a", name: "a" } } }))
        .status,
    ).toBe(200);
    expect(p.commits).toBe(1);
    expect(
      (await p.call("POST", "/ng/api/projects", { json: { project: { identifier: "a", name: "a" } } }))
        .status,
    ).toBe(400);
    expect((await p.call("GET", "/ng/api/projects/a")).status).toBe(200);
    expect((await p.call("GET", "/ng/api/projects")).status).toBe(200);
    expect(p.commits).toBe(1);
    expect(
      (await p.call("PUT", "/ng/api/projects/a", { json: { project: { identifier: "a", name: "b" } } }))
        .status,
    ).toBe(200);
    expect(
      (
        await p.call("POST", "/ng/api/connectors", {
          json: dockerConnector("c", { org: "default", project: "a" }),
        })
      ).status,
    ).toBe(200);
    const scope = { orgIdentifier: "default", projectIdentifier: "a" };
    expect(
      (await p.call("POST", "/pipeline/api/pipelines/v2", { yaml: simplePipeline("p", "a"), query: scope }))
        .status,
    ).toBe(200);
    expect((await p.call("DELETE", "/pipeline/api/pipelines/p", { query: scope })).status).toBe(200);
    expect((await p.call("DELETE", "/ng/api/connectors/c", { query: scope })).status).toBe(200);
    expect((await p.call("DELETE", "/ng/api/projects/a")).status).toBe(200);
    expect(p.commits).toBe(7);
  });

  it("puts the request's transaction id in every body as the correlation id", async () => {
    const p = await inProcessPlatform();
    const ok = await p.call("POST", "/ng/api/projects", {
      json: { project: { identifier: "a", name: "a" } },
    });
    const err = await p.call("GET", "/ng/api/projects/zzz");
    const denied = await p.call("GET", "/ng/api/projects/a", { key: null });
    const ids = [ok, err, denied].map((r) => r.headers.get("x-transaction-id"));
    expect([ok.body.correlationId, err.body.correlationId, denied.body.correlationId]).toEqual(ids);
    expect(new Set(ids).size).toBe(3);
    expect(ids.every((id) => /^[0-9a-z]{11}$/.test(id ?? ""))).toBe(true);
  });

  it("keeps plain JSON state that survives a round trip and matches the PlatformState schema", async () => {
    const p = await inProcessPlatform();
    await p.call("POST", "/ng/api/projects", {
      json: { project: { identifier: "Web", name: "Web", tags: { t: "" } } },
    });
    await p.call("POST", "/ng/api/connectors", {
      json: dockerConnector("reg", { org: "default", project: "Web" }),
    });
    await p.call("POST", "/ng/api/connectors", { json: dockerConnector("acct") });
    const scope = { orgIdentifier: "default", projectIdentifier: "Web" };
    await p.call("POST", "/pipeline/api/pipelines/v2", { yaml: simplePipeline("pipe", "Web"), query: scope });
    await p.call("DELETE", "/ng/api/connectors/acct");

    const file = p.store.toFile();
    const state = file.platform;
    const copy = JSON.parse(JSON.stringify(state));
    expect(PlatformState.parse(copy)).toEqual(state);
    expect(Object.keys(state.projects)).toEqual(["default/web"]);
    expect(Object.keys(state.connectors).sort()).toEqual(["-/-/acct", "default/Web/reg"]);
    expect(Object.keys(state.pipelines)).toEqual(["default/Web/pipe"]);
    // Connector delete is a soft delete (ref §5).
    expect(state.connectors["-/-/acct"]?.deleted).toBe(true);
    expect(state.pipelines["default/Web/pipe"]?.yaml).toBe(simplePipeline("pipe", "Web"));

    // A restarted emulator serves the same objects from the persisted copy.
    const dir = mkdtempSync(join(tmpdir(), "flagstack-platform-"));
    const statePath = join(dir, "state.json");
    writeFileSync(statePath, JSON.stringify(file));
    const restarted = await inProcessPlatform({ statePath });
    try {
      const read = await restarted.call("GET", "/pipeline/api/pipelines/pipe", { query: scope });
      expect(read.body.data.yamlPipeline).toBe(simplePipeline("pipe", "Web"));
      const project = await restarted.call("GET", "/ng/api/projects/web");
      expect(project.body).toEqual(
        successBody({
          project: state.projects["default/web"]?.project,
          createdAt: state.projects["default/web"]?.createdAt,
          lastModifiedAt: state.projects["default/web"]?.lastModifiedAt,
          isFavorite: false,
        }),
      );
    } finally {
      await restarted.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("reads the keys on every request, so keys added later work", async () => {
    const p = await inProcessPlatform();
    expect((await p.call("GET", "/ng/api/projects", { key: "pat.new.key" })).status).toBe(401);
    await p.addKey("pat.new.key");
    expect((await p.call("GET", "/ng/api/projects", { key: "pat.new.key" })).status).toBe(200);
  });

  it("serves only its own prefixes", async () => {
    const p = await inProcessPlatform();
    expect((await platformRoutes(p.store).request("/internal/api/v2/workspaces")).status).toBe(404);
  });
});

describe("ApiKeySpec", () => {
  it("accepts platform keys with organization and project restrictions", () => {
    expect(
      ApiKeySpec.parse({
        key: "pat.key.1",
        type: "platform",
        organizations: ["default"],
        projects: ["default/a", "b"],
      }),
    ).toEqual({
      key: "pat.key.1",
      type: "platform",
      organizations: ["default"],
      projects: ["default/a", "b"],
    });
    expect(ApiKeySpec.safeParse({ key: "pat.key.1", type: "owner" }).success).toBe(false);
  });
});

describe("PlatformState", () => {
  it("loads a state file written before organizations had descriptions, tags and versions", () => {
    const old = {
      accountId: "a",
      organizations: { default: { identifier: "default", name: "Default Organization", createdAt: 5 } },
      projects: {},
      connectors: {},
      pipelines: {},
    };
    expect(PlatformState.parse(old).organizations.default).toEqual({
      identifier: "default",
      name: "Default Organization",
      createdAt: 5,
      description: "",
      tags: {},
      version: 0,
    });
  });
});

describe("mounted in the emulator", () => {
  it("returns every platform object unchanged after a restart on the same state file", async () => {
    const dir = mkdtempSync(join(tmpdir(), "flagstack-platform-"));
    const statePath = join(dir, "state.json");
    try {
      const first = await startPlatform({
        statePath,
        accountId: "acc_restart",
        platformKey: "pat.acc_restart.key",
      });
      const scope = { orgIdentifier: "labs", projectIdentifier: "web" };
      await first.call("POST", "/ng/api/organizations", {
        json: { organization: { identifier: "labs", name: "Labs" } },
      });
      await first.call("POST", "/ng/api/projects", {
        query: { orgIdentifier: "labs" },
        json: { project: { identifier: "web", name: "Web", color: "#123456", tags: { a: "" } } },
      });
      await first.call("PUT", "/ng/api/projects/web", {
        query: { orgIdentifier: "labs" },
        json: { project: { identifier: "web", name: "Web 2" } },
      });
      await first.call("POST", "/ng/api/connectors", {
        json: dockerConnector("reg", { org: "labs", project: "web" }),
      });
      await first.call("POST", "/pipeline/api/pipelines/v2", {
        yaml: simplePipeline("pipe", "web", "labs"),
        query: scope,
      });
      const reads = async (call: typeof first.call) =>
        Promise.all([
          call("GET", "/ng/api/organizations/labs"),
          call("GET", "/ng/api/projects/web", { query: { orgIdentifier: "labs" } }),
          call("GET", "/ng/api/connectors/reg", { query: scope }),
          call("GET", "/pipeline/api/pipelines/pipe", { query: scope }),
        ]).then((rs) =>
          rs.map((r) => ({ status: r.status, etag: r.headers.get("etag"), data: r.body.data })),
        );
      const before = await reads(first.call);
      await first.emu.stop();

      const second = await startPlatform({
        statePath,
        accountId: "acc_restart",
        platformKey: "pat.acc_restart.key",
      });
      try {
        const after = await reads(second.call);
        expect(after).toEqual(before);
        expect(after.map((r) => r.status)).toEqual([200, 200, 200, 200]);
        expect(after[1]?.etag).toBe("W/1");
      } finally {
        await second.emu.stop();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
