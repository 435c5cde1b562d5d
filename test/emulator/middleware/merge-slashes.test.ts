/**
 * Repeated slashes in a path are one (`emulator/middleware/merge-slashes.ts`): Split's Python admin
 * client in Harness mode sends `//ng/api/projects` (its default base URL ends in `/`).
 */
import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Emulator, startEmulator } from "../../../emulator";

let emu: Emulator;
beforeAll(async () => {
  emu = await startEmulator({ port: 0 });
});
afterAll(() => emu.stop());

describe("merged slashes", () => {
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
