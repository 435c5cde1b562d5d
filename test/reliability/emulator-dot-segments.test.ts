/**
 * `.` and `..` path segments are refused before routing (issue 14, group 5): a URL parser would
 * resolve them away, so `DELETE .../splits/ws/<ws>/victim/environments/..` reached the router as
 * `DELETE .../splits/ws/<ws>/victim` and deleted the whole flag. Every form (raw, `%2E`,
 * `%2e%2E`, `.%2e`, ...) now gets 400 with the API's error body naming the parameter the segment
 * stands in, and nothing is deleted.
 *
 * The requests go out through `node:http` with the path exactly as written: `fetch` would resolve
 * the dot segments on the client side before sending.
 */
import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Emulator } from "../../emulator";
import { type Call, definitionBody, start } from "../emulator/helpers";

let emu: Emulator;
let call: Call;
let ws: { id: string };
const TX = expect.stringMatching(/^[0-9a-z]{11}$/);
const problem = (raw: string) =>
  `"${raw}" is not allowed as a path segment: "." and ".." would be resolved against the path and the request would reach another resource`;

beforeAll(async () => {
  ({ emu, call, ws } = await start());
  const base = `/internal/api/v2/splits/ws/${ws.id}`;
  await call("POST", `${base}/trafficTypes/user`, { body: { name: "victim", description: "" } });
  await call("POST", `${base}/victim/environments/Production`, { body: definitionBody() });
  await call("POST", `/ng/api/projects?accountIdentifier=${emu.accountId}&orgIdentifier=default`, {
    key: null,
    headers: { "x-api-key": emu.platformKey },
    body: {
      project: {
        orgIdentifier: "default",
        identifier: "victim",
        name: "Victim",
        color: "#123456",
        modules: [],
        description: "",
        tags: {},
      },
    },
  });
});
afterAll(() => emu.stop());

/** Sends `method path` with the path exactly as given. */
function raw(
  method: string,
  path: string,
  headers: Record<string, string>,
  // biome-ignore lint/suspicious/noExplicitAny: the error bodies are compared whole.
): Promise<{ status: number; body: any }> {
  const { hostname, port } = new URL(emu.url);
  return new Promise((resolve, reject) => {
    const req = request({ host: hostname, port, method, path, headers }, (res) => {
      const parts: Buffer[] = [];
      res.on("data", (d: Buffer) => parts.push(d));
      res.on("end", () => {
        const text = Buffer.concat(parts).toString("utf8");
        resolve({ status: res.statusCode ?? 0, body: text === "" ? null : JSON.parse(text) });
      });
    });
    req.on("error", reject);
    req.end();
  });
}

const still = async () => {
  const base = `/internal/api/v2/splits/ws/${ws.id}`;
  expect((await call("GET", `${base}/victim`)).status).toBe(200);
  expect((await call("GET", `${base}/victim/environments/Production`)).body.defaultTreatment).toBe("off");
  const project = await call(
    "GET",
    `/ng/api/projects/victim?accountIdentifier=${emu.accountId}&orgIdentifier=default`,
    { key: null, headers: { "x-api-key": emu.platformKey } },
  );
  expect(project.body.data.project.identifier).toBe("victim");
};

describe("dot path segments", () => {
  it.each([[".."], ["%2E%2E"], ["%2e%2E"], [".%2e"], ["%2E."], ["."], ["%2e"]])(
    "a definition delete with environment %s gets 400 naming env, and nothing is deleted",
    async (segment) => {
      const r = await raw("DELETE", `/internal/api/v2/splits/ws/${ws.id}/victim/environments/${segment}`, {
        authorization: `Bearer ${emu.adminKey}`,
      });
      expect(r).toEqual({
        status: 400,
        body: { code: 400, message: `env: ${problem(segment)}`, details: "", transactionId: TX },
      });
      await still();
    },
  );

  it("a dot segment where no route has a parameter gets 400 naming the path, and nothing is deleted", async () => {
    // Resolved, this is DELETE .../splits/ws/<ws>/victim: the whole flag.
    const r = await raw("DELETE", `/internal/api/v2/splits/ws/${ws.id}/victim/%2e%2e/victim`, {
      authorization: `Bearer ${emu.adminKey}`,
    });
    expect(r).toEqual({
      status: 400,
      body: { code: 400, message: `path: ${problem("%2e%2e")}`, details: "", transactionId: TX },
    });
    await still();
  });

  it("a platform project delete with identifier %2e%2E gets 400 with a FailureDTO naming identifier", async () => {
    const r = await raw(
      "DELETE",
      `/ng/api/projects/%2e%2E?accountIdentifier=${emu.accountId}&orgIdentifier=default`,
      { "x-api-key": emu.platformKey },
    );
    expect(r).toEqual({
      status: 400,
      body: {
        status: "FAILURE",
        code: "INVALID_REQUEST",
        message: `identifier: ${problem("%2e%2E")}`,
        correlationId: TX,
        errors: [{ fieldId: "identifier", error: problem("%2e%2E") }],
      },
    });
    await still();
  });

  it("a platform path that would resolve to a project delete gets 400 naming the path, and the project stays", async () => {
    // Resolved, this is DELETE /ng/api/projects/victim.
    const r = await raw(
      "DELETE",
      `/ng/api/projects/victim/%2E%2E/victim?accountIdentifier=${emu.accountId}&orgIdentifier=default`,
      { "x-api-key": emu.platformKey },
    );
    expect(r).toEqual({
      status: 400,
      body: {
        status: "FAILURE",
        code: "INVALID_REQUEST",
        message: `path: ${problem("%2E%2E")}`,
        correlationId: TX,
        errors: [{ fieldId: "path", error: problem("%2E%2E") }],
      },
    });
    await still();
  });

  it("a backslash before a dot segment (a URL parser reads it as a slash) is refused before routing, and nothing is deleted", async () => {
    // The node adapter refuses a backslash in the path itself, with an empty 400.
    const r = await raw("DELETE", `/internal/api/v2/splits/ws/${ws.id}/victim/environments\\..`, {
      authorization: `Bearer ${emu.adminKey}`,
    });
    expect(r).toEqual({ status: 400, body: null });
    await still();
  });
});
