/**
 * Two public Harness Go clients, unchanged, against the emulator (`harness-go/main.go`):
 * harness-go-sdk v0.8.24 (package nextgen: the pipeline list and the earlier raw-YAML create the
 * emulator once missed, with the v2 create, read, update and delete; and the access-control calls of
 * the Terraform provider's service account, API key, token, user group, role, resource group and
 * role assignment resources) and
 * harness-openapi-go-client v0.0.25 (the v1 pipeline and input set calls of today's Harness
 * Terraform provider, with the requests it sends). Each reports one JSON line per operation.
 *
 * The driver is built with `go` in a module made under the OS temp directory. The two client
 * modules come from the Go module proxy by version or, where the proxy does not serve them, from
 * checkouts named by `FLAGSTACK_HARNESS_GO_SDK_DIR` (harness/harness-go-sdk at tag v0.8.24) and
 * `FLAGSTACK_HARNESS_OPENAPI_DIR` (harness/harness-openapi-go-client); the test is skipped, saying
 * why, when there is no `go` or the modules cannot be had either way.
 */
import { execFile } from "node:child_process";
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Emulator, startEmulator } from "../../emulator";

const run = promisify(execFile);

let emu: Emulator;
let dir: string;
let driver: string | undefined;
let unavailable = "";

async function build(): Promise<void> {
  try {
    await run("go", ["version"]);
  } catch {
    unavailable = "no go on PATH";
    return;
  }
  dir = mkdtempSync(join(tmpdir(), "flagstack-harness-go-"));
  copyFileSync(join(__dirname, "harness-go", "main.go"), join(dir, "main.go"));
  const sdkDir = process.env.FLAGSTACK_HARNESS_GO_SDK_DIR;
  const openapiDir = process.env.FLAGSTACK_HARNESS_OPENAPI_DIR;
  writeFileSync(
    join(dir, "go.mod"),
    [
      "module flagstack/harness-go-clients",
      "",
      "go 1.24",
      "",
      "require (",
      "\tgithub.com/harness/harness-go-sdk v0.8.24",
      "\tgithub.com/harness/harness-openapi-go-client v0.0.25",
      ")",
      sdkDir ? `replace github.com/harness/harness-go-sdk => ${sdkDir}` : "",
      openapiDir ? `replace github.com/harness/harness-openapi-go-client => ${openapiDir}` : "",
      "",
    ].join("\n"),
  );
  const env = { ...process.env, GOFLAGS: "-mod=mod" };
  try {
    await run("go", ["mod", "tidy"], { cwd: dir, env, timeout: 600_000 });
    await run("go", ["build", "-o", "driver", "."], { cwd: dir, env, timeout: 600_000 });
    driver = join(dir, "driver");
  } catch (e) {
    const detail = String((e as { stderr?: string }).stderr ?? e).slice(0, 400);
    if (sdkDir && openapiDir) throw new Error(`the driver does not build: ${detail}`);
    unavailable = `the client modules are not available (set FLAGSTACK_HARNESS_GO_SDK_DIR and FLAGSTACK_HARNESS_OPENAPI_DIR): ${detail}`;
  }
}

beforeAll(async () => {
  await build();
  emu = await startEmulator({ port: 0 });
}, 1_200_000);
afterAll(async () => {
  await emu?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("the Harness Go clients against the emulator", () => {
  it("complete every pipeline, input set and access-control operation they are driven through (47 of 47)", async (ctx) => {
    if (driver === undefined) {
      console.warn(`harness-go: skipped: ${unavailable}`);
      ctx.skip();
      return;
    }
    const project = await fetch(`${emu.url}/ng/api/projects?accountIdentifier=${emu.accountId}`, {
      method: "POST",
      headers: { "x-api-key": emu.platformKey, "content-type": "application/json" },
      body: JSON.stringify({ project: { identifier: "goproj", name: "goproj" } }),
    });
    expect(project.status).toBe(200);
    // Asynchronous: the emulator answers the driver from this very process.
    const { stdout } = await run(driver, [], {
      env: {
        ...process.env,
        // The provider's default endpoint (`https://app.harness.io/gateway`, ref platform §11.1), host changed.
        HARNESS_ENDPOINT: `${emu.url}/gateway`,
        HARNESS_ACCOUNT_ID: emu.accountId,
        HARNESS_PLATFORM_API_KEY: emu.platformKey,
        PROJECT: "goproj",
      },
    });
    const lines = stdout
      .split("\n")
      .filter((l) => l.startsWith("{"))
      .map((l) => JSON.parse(l) as { op: string; ok: boolean; error?: string });
    expect(lines.filter((l) => !l.ok)).toEqual([]);
    expect(lines.map((l) => l.op)).toEqual([
      "PipelinesApi.PostPipeline",
      "PipelinesApi.PostPipelineV2",
      "PipelinesApi.GetPipeline",
      "PipelinesApi.GetPipelineList",
      "PipelinesApi.UpdatePipelineV2",
      "PipelinesApi.DeletePipeline go_legacy",
      "PipelinesApi.DeletePipeline go_v2",
      "v1 PipelinesApi.CreatePipeline",
      "v1 PipelinesApi.GetPipeline",
      "v1 PipelinesApi.UpdatePipeline",
      "v1 PipelinesApi.ListPipelines",
      "v1 InputSetsApi.CreateInputSet",
      "v1 InputSetsApi.GetInputSet",
      "v1 InputSetsApi.UpdateInputSet",
      "v1 InputSetsApi.ListInputSets",
      "v1 InputSetsApi.DeleteInputSet",
      "v1 InputSetsApi.GetInputSet (gone: 404)",
      "v1 PipelinesApi.DeletePipeline",
      "v1 PipelinesApi.GetPipeline (gone: 404)",
      "ServiceAccountApi.CreateServiceAccount",
      "ServiceAccountApi.GetAggregatedServiceAccount",
      "ServiceAccountApi.UpdateServiceAccount",
      "ApiKeyApi.CreateApiKey",
      "ApiKeyApi.GetAggregatedApiKey",
      "ApiKeyApi.UpdateApiKey",
      "TokenApi.CreateToken",
      "TokenApi.ListAggregatedTokens",
      "TokenApi.UpdateToken",
      "UserGroupApi.PostUserGroup",
      "UserGroupApi.GetUserGroup",
      "UserGroupApi.PutUserGroup",
      "RolesApi.PostRole",
      "RolesApi.GetRole",
      "RolesApi.PutRole",
      "HarnessResourceGroupApi.CreateResourceGroupV2",
      "HarnessResourceGroupApi.GetResourceGroupV2",
      "HarnessResourceGroupApi.UpdateResourceGroup1",
      "RoleAssignmentsApi.PostRoleAssignment",
      "RoleAssignmentsApi.GetRoleAssignment",
      "RoleAssignmentsApi.DeleteRoleAssignment",
      "RoleAssignmentsApi.GetRoleAssignment (gone: 404)",
      "HarnessResourceGroupApi.DeleteResourceGroupV2",
      "RolesApi.DeleteRole",
      "UserGroupApi.DeleteUserGroup",
      "TokenApi.DeleteToken",
      "ApiKeyApi.DeleteApiKey",
      "ServiceAccountApi.DeleteServiceAccount",
    ]);
  }, 120_000);
});
