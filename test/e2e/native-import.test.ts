/**
 * `pulumi import` through the native provider and the real engine, by each resource's natural id:
 * a flag (`<workspace>/<name>`), its definition in Production (`<workspace>/<flag>/<environment>`)
 * and a group (its name), all made outside Pulumi. The engine's import `Read` carries the id and
 * nothing else; the SDK's provider server would fail on it, the plugin's request wrapper lets it
 * through. Afterwards a YAML program that declares the same objects previews with nothing to change
 * and no request; `destroy` removes them; an id that names nothing fails the import.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clients, defaultWorkspaceId, flagNames, groupNames, projectIds, users } from "./fixtures";
import { EngineStack, REPO_ROOT } from "./harness";

const PLUGIN_DIR = join(REPO_ROOT, "provider-plugin");

/** A YAML program (outside the repository) declaring the objects the test imports. */
const PROGRAM = `name: native-import
runtime: yaml
plugins:
  providers:
    - name: flagstack
      path: ${PLUGIN_DIR}
resources:
  checkout:
    type: flagstack:index:Flag
    properties:
      workspace: Default
      name: imported-checkout
      description: made outside Pulumi
      tags: [payments]
  checkoutProduction:
    type: flagstack:index:FlagDefinition
    properties:
      workspace: Default
      flag: imported-checkout
      environment: Production
      treatments:
        - name: "on"
          keys: [qa-bot]
        - name: "off"
      defaultTreatment: "off"
      rules:
        - condition:
            matchers:
              - type: IN_LIST_STRING
                attribute: plan
                strings: [enterprise]
          buckets:
            - treatment: "on"
              size: 100
      defaultRule:
        - treatment: "off"
          size: 100
  reviewers:
    type: flagstack:index:Group
    properties:
      name: imported-reviewers
      description: reviews flag changes
`;

/**
 * Platform objects and an invitation, made by another stack of the same program (so their shapes
 * are what the program declares), then imported into an empty stack by natural id.
 */
const PLATFORM_PROGRAM = `name: native-import-platform
runtime: yaml
plugins:
  providers:
    - name: flagstack
      path: ${PLUGIN_DIR}
resources:
  payments:
    type: flagstack:index:Project
    properties:
      identifier: imported_payments
      name: Imported payments
      tags:
        team: payments
  registry:
    type: flagstack:index:Connector
    properties:
      org: default
      project: \${payments.identifier}
      identifier: registry
      name: Registry
      dockerRegistry:
        url: https://registry.example.test/v2
        providerType: DockerHub
  deploy:
    type: flagstack:index:Pipeline
    properties:
      project: \${payments.identifier}
      yaml: |
        pipeline:
          name: Deploy
          identifier: deploy
          orgIdentifier: default
          projectIdentifier: imported_payments
          stages:
            - stage:
                name: Say hello
                identifier: say_hello
                type: Custom
                spec:
                  execution:
                    steps:
                      - step:
                          type: ShellScript
                          name: Hello
                          identifier: hello
                          timeout: 10m
                          spec:
                            shell: Bash
                            onDelegate: true
                            source:
                              type: Inline
                              spec:
                                script: echo hello
  dana:
    type: flagstack:index:UserInvite
    properties:
      email: dana.imported@example.test
`;

describe("native provider: pulumi import by natural id", () => {
  let s: EngineStack;
  let programSource: string;

  beforeAll(async () => {
    programSource = mkdtempSync(join(tmpdir(), "flagstack-native-import-"));
    writeFileSync(join(programSource, "Pulumi.yaml"), PROGRAM);
    s = await EngineStack.open({ program: programSource });
  });

  afterAll(async () => {
    await s?.close();
    rmSync(programSource, { recursive: true, force: true });
  });

  it("imports a Flag, a FlagDefinition and a Group; the program then has nothing to change", async () => {
    const { admin } = clients(s.emu);
    const ws = await defaultWorkspaceId(admin);
    const flag = await admin.flags.create(ws, "user", {
      name: "imported-checkout",
      description: "made outside Pulumi",
    });
    await admin.flags.patch(ws, "imported-checkout", [
      { op: "replace", path: "/tags", value: [{ name: "payments" }] },
    ]);
    const def = await admin.definitions.create(ws, "imported-checkout", "Production", {
      treatments: [{ name: "on", keys: ["qa-bot"] }, { name: "off" }],
      defaultTreatment: "off",
      trafficAllocation: 100,
      rules: [
        {
          buckets: [{ treatment: "on", size: 100 }],
          condition: {
            combiner: "AND",
            matchers: [{ type: "IN_LIST_STRING", attribute: "plan", strings: ["enterprise"] }],
          },
        },
      ],
      defaultRule: [{ treatment: "off", size: 100 }],
    });
    const group = await admin.groups.create({
      name: "imported-reviewers",
      description: "reviews flag changes",
    });

    await s.cli([
      "import",
      "flagstack:index:Flag",
      "checkout",
      "Default/imported-checkout",
      "--yes",
      "--protect=false",
    ]);
    await s.cli([
      "import",
      "flagstack:index:FlagDefinition",
      "checkoutProduction",
      "Default/imported-checkout/Production",
      "--yes",
      "--protect=false",
    ]);
    await s.cli([
      "import",
      "flagstack:index:Group",
      "reviewers",
      "imported-reviewers",
      "--yes",
      "--protect=false",
    ]);

    const resources = await s.resources();
    const byName = new Map(resources.map((r) => [r.urn.slice(r.urn.lastIndexOf("::") + 2), r]));
    // The state holds the service's ids, as after a create.
    expect(byName.get("checkout")?.id).toBe(flag.id);
    expect(byName.get("checkoutProduction")?.id).toBe(`${def.id}:${def.environment.id}`);
    expect(byName.get("reviewers")?.id).toBe(group.id);
    expect(byName.get("checkout")?.outputs).toEqual({
      workspace: "Default",
      trafficType: "user",
      name: "imported-checkout",
      description: "made outside Pulumi",
      tags: ["payments"],
      rolloutStatus: "Pre-Production",
      owners: [],
      adopt: false,
      flagId: flag.id,
      creationTime: flag.creationTime,
      rolloutStatusId: flag.rolloutStatus.id,
      rolloutStatusTimestamp: flag.rolloutStatusTimestamp,
      workspaceId: ws,
      workspaceName: "Default",
      trafficTypeId: flag.trafficType.id,
    });
    expect(byName.get("reviewers")?.outputs).toEqual({
      name: "imported-reviewers",
      description: "reviews flag changes",
      adopt: false,
      groupId: group.id,
    });

    const preview = await s.preview();
    expect(preview.result.changeSummary).toEqual({ same: 4 });
    expect(preview.requests).toEqual([]);

    await s.destroy();
    expect(await flagNames(admin)).toEqual([]);
    expect(await groupNames(admin)).toEqual([]);
  });

  it("an id that names nothing fails the import and records nothing", async () => {
    await expect(
      s.cli(["import", "flagstack:index:Flag", "ghost", "Default/no-such-flag", "--yes"]),
    ).rejects.toThrow("resource 'Default/no-such-flag' does not exist");
    expect((await s.resources()).filter((r) => r.type === "flagstack:index:Flag")).toEqual([]);
  });
});

describe("native provider: pulumi import of the platform resources and an invitation", () => {
  let maker: EngineStack;
  let s: EngineStack;
  let programSource: string;

  beforeAll(async () => {
    programSource = mkdtempSync(join(tmpdir(), "flagstack-native-import-platform-"));
    writeFileSync(join(programSource, "Pulumi.yaml"), PLATFORM_PROGRAM);
    maker = await EngineStack.open({ program: programSource, stackName: "maker" });
    s = await EngineStack.open({ program: programSource, stackName: "importer", sharedEmulator: maker.emu });
  });

  afterAll(async () => {
    await s?.close();
    await maker?.close();
    rmSync(programSource, { recursive: true, force: true });
  });

  it("imports a Project, a Connector, a Pipeline and a UserInvite; the program then has nothing to change", async () => {
    expect((await maker.up()).result.summary.resourceChanges).toEqual({ create: 5 });
    const made = new Map((await maker.resources()).map((r) => [r.urn.slice(r.urn.lastIndexOf("::") + 2), r]));

    const imports: [string, string, string][] = [
      ["flagstack:index:Project", "payments", "default/imported_payments"],
      ["flagstack:index:Connector", "registry", "default/imported_payments/registry"],
      ["flagstack:index:Pipeline", "deploy", "default/imported_payments/deploy"],
      ["flagstack:index:UserInvite", "dana", "dana.imported@example.test"],
    ];
    for (const [type, name, id] of imports) {
      await s.cli(["import", type, name, id, "--yes", "--protect=false"]);
    }
    const imported = new Map((await s.resources()).map((r) => [r.urn.slice(r.urn.lastIndexOf("::") + 2), r]));
    // The same ids as the stack that created them recorded.
    for (const [, name] of imports) expect(imported.get(name)?.id).toBe(made.get(name)?.id);

    const preview = await s.preview();
    expect(preview.result.changeSummary).toEqual({ same: 5 });
    expect(preview.requests).toEqual([]);

    await s.destroy();
    const { admin, platform } = clients(s.emu);
    expect(await projectIds(platform)).toEqual([]);
    expect(await users(admin)).toEqual([]);
  });
});
