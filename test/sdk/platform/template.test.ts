/**
 * platform.templates against the emulator: the v1 template calls by scope, exact data (a version
 * with its label, type and stable flag), the stable version read without a label, a YAML that names
 * another version refused, 404 for a version that does not exist, a delete's 204.
 */
import { describe, expect, it } from "vitest";
import { isNotFound } from "../../../sdk/core/errors";
import { usePlatformBed } from "./entity-bed";

const bed = usePlatformBed();
const at = { org: "default", project: "payments" };
const yaml = (version: string, command: string) =>
  [
    "template:",
    "  name: Deploy stage",
    "  identifier: deploy_stage",
    `  versionLabel: "${version}"`,
    "  type: Stage",
    "  orgIdentifier: default",
    "  projectIdentifier: payments",
    "  tags: {}",
    "  spec:",
    "    type: Custom",
    "    spec:",
    "      execution:",
    "        steps:",
    "          - step:",
    "              type: ShellScript",
    "              name: Run",
    "              identifier: run",
    "              spec:",
    "                shell: Bash",
    `                source: { type: Inline, spec: { script: ${JSON.stringify(command)} } }`,
    "",
  ].join("\n");

describe("platform.templates", () => {
  it("creates versions, reads one and the stable one, updates, lists and deletes", async () => {
    const v1 = await bed.platform.templates.create({ template_yaml: yaml("1", "echo one") }, at);
    expect(v1).toEqual({
      account: bed.emu.accountId,
      org: "default",
      project: "payments",
      identifier: "deploy_stage",
      name: "Deploy stage",
      description: "",
      tags: {},
      yaml: yaml("1", "echo one"),
      version_label: "1",
      entity_type: "Stage",
      child_type: "Custom",
      scope: "project",
      version: 0,
      updated: expect.any(Number),
      store_type: "INLINE",
      stable_template: true,
    });
    const v2 = await bed.platform.templates.create({ template_yaml: yaml("2", "echo two") }, at);
    expect(v2.stable_template).toBe(false);
    expect((await bed.platform.templates.get("deploy_stage", undefined, at)).template.version_label).toBe(
      "1",
    );
    await bed.platform.templates.create({ template_yaml: yaml("3", "echo three"), is_stable: true }, at);
    expect((await bed.platform.templates.get("deploy_stage", undefined, at)).template.version_label).toBe(
      "3",
    );
    const updated = await bed.platform.templates.update(
      "deploy_stage",
      "2",
      { template_yaml: yaml("2", "echo 2") },
      at,
    );
    expect([updated.yaml, updated.version]).toEqual([yaml("2", "echo 2"), 1]);
    await expect(
      bed.platform.templates.update("deploy_stage", "2", { template_yaml: yaml("1", "echo x") }, at),
    ).rejects.toMatchObject({
      status: 400,
      message: expect.stringContaining("Expected Template versionLabel in YAML to be [2], but was [1]"),
    });
    expect((await bed.platform.templates.list(at)).map((t) => t.version_label)).toEqual(["3", "2", "1"]);
    expect(await bed.platform.templates.delete("deploy_stage", "2", at)).toBe(true);
    const gone = await bed.platform.templates.get("deploy_stage", "2", at).catch((e: unknown) => e);
    expect([isNotFound(gone), (gone as Error).message]).toEqual([
      true,
      expect.stringContaining(
        "Template with the given Identifier: deploy_stage and versionLabel: 2 does not exist",
      ),
    ]);
    expect(bed.seen().map((s) => s.split("?")[0])).toEqual([
      "POST /v1/orgs/default/projects/payments/templates 201",
      "POST /v1/orgs/default/projects/payments/templates 201",
      "GET /v1/orgs/default/projects/payments/templates/deploy_stage 200",
      "POST /v1/orgs/default/projects/payments/templates 201",
      "GET /v1/orgs/default/projects/payments/templates/deploy_stage 200",
      "PUT /v1/orgs/default/projects/payments/templates/deploy_stage/versions/2 200",
      "PUT /v1/orgs/default/projects/payments/templates/deploy_stage/versions/2 400",
      "GET /v1/orgs/default/projects/payments/templates",
      "DELETE /v1/orgs/default/projects/payments/templates/deploy_stage/versions/2 204",
      "GET /v1/orgs/default/projects/payments/templates/deploy_stage/versions/2 404",
    ]);
  });

  it("refuses a version that exists, and a YAML of another scope", async () => {
    await bed.platform.templates.create({ template_yaml: yaml("7", "echo") }, at);
    await expect(
      bed.platform.templates.create({ template_yaml: yaml("7", "echo") }, at),
    ).rejects.toMatchObject({
      status: 400,
      code: "DUPLICATE_FIELD",
    });
    await expect(
      bed.platform.templates.create({ template_yaml: yaml("5", "echo") }, { org: "default" }),
    ).rejects.toMatchObject({
      status: 400,
      message: expect.stringContaining(
        "Expected Template projectIdentifier in YAML to be [], but was [payments]",
      ),
    });
  });
});
