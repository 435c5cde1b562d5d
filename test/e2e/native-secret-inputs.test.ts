/**
 * Secret inputs of the native provider through the real engine: a YAML program declares a platform
 * `Secret` whose `value` is plain text (no `fn::secret`). The plugin's Check answers that input as
 * a secret, so after `up` neither `pulumi stack export` nor any file of the backend holds the text
 * in clear, in the inputs or in the outputs; the service got it; `destroy` removes the secret.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EngineStack, REPO_ROOT } from "./harness";

const PLUGIN_DIR = join(REPO_ROOT, "provider-plugin");
const SENTINEL = "sentinel-7f3c9e1a-plain-yaml-secret";

const program = `name: secret-inputs
runtime: yaml
plugins:
  providers:
    - name: flagstack
      path: ${PLUGIN_DIR}
resources:
  dockerPassword:
    type: flagstack:index:Secret
    properties:
      identifier: docker_pw
      name: Docker password
      value: ${SENTINEL}
outputs:
  ref: \${dockerPassword.ref}
`;

describe("native provider: a plain secret input from YAML", () => {
  let s: EngineStack;
  let source: string;

  beforeAll(async () => {
    source = mkdtempSync(join(tmpdir(), "flagstack-native-secret-inputs-"));
    writeFileSync(join(source, "Pulumi.yaml"), program);
    s = await EngineStack.open({ program: source });
  });

  afterAll(async () => {
    await s?.close();
    if (source) rmSync(source, { recursive: true, force: true });
  });

  it("stores the value encrypted, in the inputs and the outputs", async () => {
    const up = await s.up();
    expect(up.result.summary.resourceChanges).toEqual({ create: 2 });
    expect(await s.outputs()).toEqual({ ref: "account.docker_pw" });
    // The service got the value: one create carrying it.
    const creates = up.requests.filter((r) => r.method === "POST" && r.path.startsWith("/ng/api/v2/secrets"));
    expect(creates.length).toBe(1);

    const exported = await s.exportText();
    expect(exported).not.toContain(SENTINEL);
    expect(s.backendText()).not.toContain(SENTINEL);
    const state = JSON.parse(exported) as {
      deployment: { resources: { type: string; inputs?: Record<string, unknown> }[] };
    };
    const secret = state.deployment.resources.find((r) => r.type === "flagstack:index:Secret");
    expect(secret?.inputs?.value).toEqual({
      "4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270",
      ciphertext: expect.any(String),
    });

    const preview = await s.preview();
    expect(preview.result.changeSummary).toEqual({ same: 2 });
    const destroy = await s.destroy();
    expect(destroy.result.summary.resourceChanges).toEqual({ delete: 2 });
  }, 300_000);
});
