/**
 * `POST /apiKeys` with the body the Harness Go SDK sends for the Harness provider's
 * `harness_fme_api_key` (`harness/split/api_keys.go` `KeyRequest`: `roles` and `workspace` without
 * `omitempty`, so `null` when unset), and the key it makes working on the SDK endpoints.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Emulator } from "../../../emulator";
import { type Call, start } from "../helpers";

let emu: Emulator;
let call: Call;
let env: Record<string, { id: string; name: string }>;

beforeAll(async () => {
  ({ emu, call, env } = await start());
});
afterAll(() => emu.stop());

describe("POST /apiKeys", () => {
  it("takes null roles and workspace, as the Harness Go SDK sends them, and makes a working server-side key", async () => {
    const r = await call("POST", "/internal/api/v2/apiKeys", {
      key: null,
      headers: { "x-api-key": emu.platformKey },
      body: {
        name: "server",
        apiKeyType: "server_side",
        roles: null,
        environments: [{ type: "environment", id: env.Staging?.id }],
        workspace: null,
      },
    });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      id: expect.any(String),
      name: "server",
      type: "api_key",
      apiKeyType: "server_side",
      key: expect.any(String),
      roles: [],
    });
    const sdk = await fetch(`${emu.url}/api/splitChanges?since=-1`, {
      headers: { authorization: `Bearer ${r.body.key}` },
    });
    expect(sdk.status).toBe(200);
    expect((await call("DELETE", `/internal/api/v2/apiKeys/${r.body.id}`)).body).toBe(true);
  });
});
