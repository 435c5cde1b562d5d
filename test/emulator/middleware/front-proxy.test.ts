/**
 * The front proxy's path (`emulator/middleware/front-proxy.ts`): repeated slashes are one (Split's
 * Python admin client in Harness mode sends `//ng/api/projects`), a leading `/gateway` is dropped
 * (the Harness Terraform provider's default endpoint ends in `/gateway`).
 */
import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Emulator, startEmulator } from "../../../emulator";

let emu: Emulator;
beforeAll(async () => {
  emu = await startEmulator({ port: 0 });
});
afterAll(() => emu.stop());

describe("the front proxy's path", () => {
  it("serves //ng/api/projects as /ng/api/projects, body and query kept, logged once with the merged path", async () => {
    emu.resetRequests();
    const headers = { "x-api-key": emu.platformKey, "content-type": "application/json" };
    const query = `accountIdentifier=${emu.accountId}&orgIdentifier=default`;
    const created = await fetch(`${emu.url}///ng/api//projects?${query}`, {
      method: "POST",
      headers,
      body: JSON.stringify({ project: { identifier: "slashes", name: "Slashes" } }),
    });
    expect(created.status).toBe(200);
    expect(
      ((await created.json()) as { data: { project: { identifier: string } } }).data.project.identifier,
    ).toBe("slashes");
    const read = await fetch(`${emu.url}//ng/api/projects/slashes?${query}`, { headers });
    expect(read.status).toBe(200);
    expect(emu.requests().map((r) => `${r.method} ${r.path} ${r.query} ${r.status}`)).toEqual([
      `POST /ng/api/projects ${query} 200`,
      `GET /ng/api/projects/slashes ${query} 200`,
    ]);
  });

  it("serves /gateway/v1/... and /gateway/ng/api/... as the provider's default endpoint sends them", async () => {
    const headers = { "x-api-key": emu.platformKey, "Harness-Account": emu.accountId };
    const v1 = await fetch(`${emu.url}/gateway/v1/orgs/default/projects/slashes/pipelines`, { headers });
    expect([v1.status, await v1.json()]).toEqual([200, []]);
    const ng = await fetch(`${emu.url}/gateway/ng/api/projects/slashes?accountIdentifier=${emu.accountId}`, {
      headers,
    });
    expect(ng.status).toBe(200);
    const elsewhere = await fetch(`${emu.url}/gatewayx/ng/api/projects?accountIdentifier=${emu.accountId}`, {
      headers,
    });
    // No route: the platform's 400 RESOURCE_NOT_FOUND_EXCEPTION naming the path as sent.
    expect([elsewhere.status, ((await elsewhere.json()) as { message: string }).message]).toEqual([
      400,
      "HTTP 404 Not Found: no route for GET /gatewayx/ng/api/projects",
    ]);
  });

  it("serves /fme/internal/api/v2/... as the Harness provider's FME endpoint sends it", async () => {
    const headers = { "x-api-key": emu.platformKey };
    const direct = await fetch(`${emu.url}/internal/api/v2/workspaces`, { headers });
    const fme = await fetch(`${emu.url}/fme/internal/api/v2/workspaces`, { headers });
    expect(fme.status).toBe(200);
    expect(await fme.json()).toEqual(await direct.json());
    const elsewhere = await fetch(`${emu.url}/fmex/internal/api/v2/workspaces`, { headers });
    expect([elsewhere.status, ((await elsewhere.json()) as { message: string }).message]).toEqual([
      400,
      "HTTP 404 Not Found: no route for GET /fmex/internal/api/v2/workspaces",
    ]);
  });

  it("keeps refusing a dot segment behind doubled slashes (the raw target, as sent)", async () => {
    // fetch would resolve the `..` itself; node:http sends the path as given.
    const { hostname, port } = new URL(emu.url);
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(
        {
          host: hostname,
          port,
          method: "GET",
          path: `//ng/api//projects/..?accountIdentifier=${emu.accountId}`,
          headers: { "x-api-key": emu.platformKey },
        },
        (res) => {
          res.resume();
          res.on("end", () => resolve(res.statusCode ?? 0));
        },
      );
      req.on("error", reject);
      req.end();
    });
    // 400 naming the segment, where a resolved `/ng/api` would have been served otherwise.
    expect(status).toBe(400);
  });
});
