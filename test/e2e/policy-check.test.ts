/**
 * One pack, two doors (issue 34): the same objects declared by a Pulumi TypeScript program and by
 * an OpenTofu configuration get the same verdicts from the pack (`pulumi preview --policy-pack
 * policy/ --policy-pack-config`) and from `flagstack policy check` on the plan (`tofu plan -out`,
 * `tofu show -json`, `--config` the same file): every policy, its level and each message, the
 * resource it names (its logical name, the last part of the URN or of the address).
 *
 * The objects are data, written once ({@link Declared}) and rendered twice: as `spec.json` of
 * `test/e2e/programs/policy-check` and as HCL through the Terraform door's schema (each input by its
 * snake_case attribute). Four sets, each one preview and one plan:
 * - passing: an object set for every policy, all compliant: no verdict at either door;
 * - violating: the same objects, each breaking its policy (15 of the 16 policies; the stack
 *   policies run on the stack as a whole, so one set holds them all);
 * - refused: a definition that is not well formed: the provider's `check` refuses it, so the
 *   preview fails with `definition-well-formed` naming the same problems that `tofu plan` reports as
 *   errors (no plan file holds a definition the provider refuses);
 * - unknown: a definition whose comment is another resource's id, known only after apply: the
 *   policies that read it say they cannot run, at both doors.
 *
 * No `pulumi` or `tofu`, no build: the test fails, naming the way to get one, rather than skipping.
 */
import { execFile } from "node:child_process";
import { existsSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import type { EngineEvent } from "@pulumi/pulumi/automation";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { policyCores } from "../../policy/policies";
import { KIND_LIST, KINDS } from "../../provider/kinds";
import { snakeCase } from "../../provider/terraform/schema";
import { type Declared, hclOf } from "./declared";
import { EngineStack, REPO_ROOT, writeJson } from "./harness";
import { PROVIDER_HCL, TofuDir } from "./tofu";

const run = promisify(execFile);
const POLICY_PACK = join(REPO_ROOT, "policy");

// ---------------------------------------------------------------------------------------------
// The objects, once

const scope = { org: "default", project: "payments" };

/** The config file both doors read. */
const CONFIG = {
  "segment-size-limit": { maxMembers: 3 },
  "pipeline-step-timeouts": { maxTimeout: "1h" },
  "targeting-assertions": {
    sampleSize: 2000,
    expectations: [
      { flag: "pc-checkout", environment: "Production", key: "qa-bot", treatment: "on" },
      { flag: "pc-checkout", environment: "Production", treatment: "on", maxPercent: 10 },
    ],
  },
};

/** A typed pipeline with one Deployment stage (the parts under test are parameters). */
const modelPipeline = (o: { environmentRef: string; rollback: boolean; timeout?: string }) => ({
  ...scope,
  pipeline: {
    name: "Rollout",
    identifier: "rollout",
    stages: [
      {
        type: "Deployment",
        name: "deploy",
        identifier: "deploy",
        service: { serviceRef: "checkout" },
        environment: { environmentRef: o.environmentRef },
        infrastructure: { connectorRef: "k8s", namespace: "checkout" },
        execution: {
          steps: [
            {
              type: "K8sRollingDeploy",
              name: "roll",
              identifier: "roll",
              ...(o.timeout ? { timeout: o.timeout } : {}),
            },
          ],
          ...(o.rollback
            ? { rollbackSteps: [{ type: "K8sRollingRollback", name: "undo", identifier: "undo" }] }
            : {}),
        },
        ...(o.rollback
          ? {
              failureStrategies: [
                { onFailure: { errors: ["AllErrors"], action: { type: "StageRollback" } } },
              ],
            }
          : {}),
      },
    ],
  },
});

/** A YAML pipeline of one Custom stage with one script step and a pipeline variable. */
const yamlScript = (o: { script: string; timeout: boolean; variable: string }) => `pipeline:
  name: Smoke
  identifier: smoke
  projectIdentifier: payments
  orgIdentifier: default
  variables:
    - name: api_token
      type: String
      value: ${JSON.stringify(o.variable)}
  stages:
    - stage:
        name: check
        identifier: check
        type: Custom
        spec:
          execution:
            steps:
              - step:
                  name: probe
                  identifier: probe
                  type: ShellScript
${o.timeout ? "                  timeout: 5m\n" : ""}                  spec:
                    shell: Bash
                    onDelegate: true
                    source:
                      type: Inline
                      spec:
                        script: ${JSON.stringify(o.script)}
                    environmentVariables: []
                    outputVariables: []
`;

/** A YAML pipeline deploying to the `live` environment with a runtime input, after an approval or not. */
const yamlShip = (approval: boolean) => `pipeline:
  name: Ship
  identifier: ship
  projectIdentifier: payments
  orgIdentifier: default
  stages:
${
  approval
    ? `    - stage:
        name: approve
        identifier: approve
        type: Approval
        spec:
          execution:
            steps:
              - step:
                  name: gate
                  identifier: gate
                  type: HarnessApproval
                  timeout: 30m
                  spec:
                    approvalMessage: Ship?
                    includePipelineExecutionHistory: true
                    approvers:
                      userGroups: [release]
                      minimumCount: 1
                      disallowPipelineExecutor: false
`
    : ""
}    - stage:
        name: deploy
        identifier: deploy
        type: Deployment
        spec:
          deploymentType: Kubernetes
          service:
            serviceRef: checkout
          environment:
            environmentRef: live
            deployToAll: false
            infrastructureDefinitions:
              - identifier: k8s
          execution:
            steps:
              - step:
                  name: roll
                  identifier: roll
                  type: K8sRollingDeploy
                  timeout: 10m
                  spec:
                    skipDryRun: false
            rollbackSteps:
              - step:
                  name: undo
                  identifier: undo
                  type: K8sRollingRollback
                  timeout: 10m
                  spec: {}
        failureStrategies:
          - onFailure:
              errors: [AllErrors]
              action:
                type: StageRollback
        variables:
          - name: replicas
            type: String
            value: <+input>
`;

/** Every policy's objects: compliant (`ok`) or each breaking its policy. */
function objects(ok: boolean): Declared[] {
  return [
    // production-ramp-guard, targeting-assertions (CONFIG)
    {
      kind: "Flag",
      name: "checkout",
      args: { workspace: "Default", name: "pc-checkout", tags: ["owner:payments"] },
    },
    {
      kind: "FlagDefinition",
      name: "checkout_prod",
      args: {
        workspace: "Default",
        flag: "pc-checkout",
        environment: "Production",
        treatments: [{ name: "on", ...(ok ? { keys: ["qa-bot"] } : {}) }, { name: "off" }],
        defaultTreatment: "off",
        baselineTreatment: "off",
        defaultRule: ok
          ? [{ treatment: "off", size: 100 }]
          : [
              { treatment: "on", size: 80 },
              { treatment: "off", size: 20 },
            ],
      },
    },
    // kill-switch-documented
    {
      kind: "FlagDefinition",
      name: "killed_prod",
      args: {
        workspace: "Default",
        flag: "pc-killed",
        environment: "Production",
        treatments: [{ name: "on" }, { name: "off" }],
        defaultTreatment: "off",
        killed: true,
        ...(ok ? { comment: "INC-7: errors on pay; restore after the fix" } : {}),
      },
    },
    // flag-naming, flag-required-tags
    {
      kind: "Flag",
      name: "naming",
      args: ok
        ? { workspace: "Default", name: "pc-naming", tags: ["owner:web", "tier:2"] }
        : { workspace: "Default", name: "PC_Naming", tags: ["tier:2"] },
    },
    // pipeline-deployment-rollback, pipeline-step-timeouts (model)
    {
      kind: "Pipeline",
      name: "rollout",
      args: modelPipeline(
        ok
          ? { environmentRef: "staging", rollback: true }
          : { environmentRef: "staging", rollback: false, timeout: "2h" },
      ),
    },
    // pipeline-no-literal-secrets, pipeline-step-timeouts (YAML), secrets-not-inline (a variable)
    {
      kind: "Pipeline",
      name: "smoke",
      args: {
        project: "payments",
        yaml: ok
          ? yamlScript({
              script:
                'export DB_PASSWORD=<+secrets.getValue("db_password")>\ncurl -fsS https://checkout.internal/health',
              timeout: true,
              variable: '<+secrets.getValue("api_token")>',
            })
          : yamlScript({
              script: "export DB_PASSWORD=hunter2hunter2\ncurl -fsS https://checkout.internal/health",
              timeout: false,
              variable: "tok-3f9a8b7c6d",
            }),
      },
    },
    // secrets-not-inline (a service)
    {
      kind: "Service",
      name: "checkout_svc",
      args: {
        ...scope,
        identifier: "checkout",
        name: "Checkout",
        kubernetes: {
          variables: [{ name: "db_password", type: "Secret", value: ok ? "org.db_pw" : "hunter 2" }],
        },
      },
    },
    // connector-no-anonymous-production
    {
      kind: "Project",
      name: "payments",
      args: { org: "default", identifier: "payments", name: "Payments", tags: { env: "production" } },
    },
    {
      kind: "Connector",
      name: "hub",
      args: {
        ...scope,
        identifier: "dockerhub",
        name: "Docker Hub",
        dockerRegistry: {
          url: "https://registry.hub.docker.com/v2/",
          providerType: "DockerHub",
          ...(ok
            ? { auth: { type: "UsernamePassword", username: "ci", passwordRef: "account.hub_pw" } }
            : {}),
        },
      },
    },
    // segment-size-limit (CONFIG: 3)
    {
      kind: "SegmentKeys",
      name: "beta_members",
      args: {
        workspace: "Default",
        environment: "Production",
        segment: "beta",
        keys: ok ? ["a", "b", "c"] : ["a", "b", "c", "d"],
      },
    },
    // production-requires-approvals
    {
      kind: "Environment",
      name: "prod_env",
      args: {
        workspace: "Default",
        name: "Live",
        production: true,
        ...(ok
          ? {
              changePermissions: {
                areApprovalsRequired: true,
                approvers: [{ type: "group", id: "release" }],
              },
            }
          : {}),
      },
    },
    // api-keys-scoped
    {
      kind: "ApiKey",
      name: "ci_admin",
      args: {
        name: "ci-admin",
        apiKeyType: "admin",
        workspace: "Default",
        roles: ["API_FEATURE_FLAG_EDITOR"],
        ...(ok ? { environments: ["Staging"] } : {}),
      },
    },
    // pipeline-approval-before-production, trigger-production-input-set
    {
      kind: "DeliveryEnvironment",
      name: "live",
      args: { ...scope, identifier: "live", name: "Live", type: "Production" },
    },
    { kind: "Pipeline", name: "ship", args: { project: "payments", yaml: yamlShip(ok) } },
    {
      kind: "Trigger",
      name: "nightly",
      args: {
        ...scope,
        pipelineIdentifier: "ship",
        identifier: "nightly",
        name: "Nightly",
        cron: { expression: "0 3 * * *" },
        ...(ok ? { inputSetRefs: ["defaults"] } : {}),
      },
    },
  ];
}

/** A definition the provider refuses: a rule's buckets sum to 60, the default rule's to 90. */
const REFUSED: Declared[] = [
  {
    kind: "FlagDefinition",
    name: "bad_def",
    args: {
      workspace: "Default",
      flag: "pc-bad",
      environment: "Production",
      treatments: [{ name: "on" }, { name: "off" }],
      defaultTreatment: "off",
      rules: [
        {
          condition: { matchers: [{ type: "IN_LIST_STRING", attribute: "plan", strings: ["enterprise"] }] },
          buckets: [{ treatment: "on", size: 60 }],
        },
      ],
      defaultRule: [
        { treatment: "on", size: 60 },
        { treatment: "off", size: 30 },
      ],
    },
  },
];

/** A killed production definition whose comment is known only after apply (its flag's id). */
const UNKNOWN: Declared[] = [
  {
    kind: "Flag",
    name: "checkout",
    args: { workspace: "Default", name: "pc-checkout", tags: ["owner:payments"] },
  },
  {
    kind: "FlagDefinition",
    name: "checkout_prod",
    args: {
      workspace: "Default",
      flag: "pc-checkout",
      environment: "Production",
      treatments: [{ name: "on" }, { name: "off" }],
      defaultTreatment: "off",
      killed: true,
      comment: { $ref: "checkout.id" },
    },
  },
];

// ---------------------------------------------------------------------------------------------
// Verdicts

/** One verdict, as both doors are compared: the policy, its level, the resource it names, the message. */
interface Verdict {
  policy: string;
  level: string;
  /** The logical name of the resource it names, when it names one the comparison can hold both doors to. */
  resource?: string | undefined;
  message: string;
}

/** Every policy of the pack, by name. */
const policyNames = policyCores.map((p) => p.name);

/** The stack policies: a finding about no resource names none at the Terraform door, some resource at the engine. */
const STACK_POLICIES = new Set(policyCores.filter((p) => p.scope === "stack").map((p) => p.name));

const byText = (a: Verdict, b: Verdict) => JSON.stringify(a).localeCompare(JSON.stringify(b));

/** A can't-run message, door-neutral: `unknown: comment`. */
const ENGINE_UNKNOWN =
  /^can't run policy '[^']+' from policy pack '[^']+' during preview: (?:\w+ )?value at \.(\S+) can't be known during preview$/;
const PLAN_UNKNOWN = /^can't run during the plan: the value of (\S+) is known only after apply$/;

function verdict(policy: string, level: string, resource: string | undefined, message: string): Verdict {
  const engine = ENGINE_UNKNOWN.exec(message);
  const plan = PLAN_UNKNOWN.exec(message);
  const unknown = engine ? snakeCase(engine[1]!) : plan?.[1];
  const text = unknown === undefined ? message : `unknown: ${unknown}`;
  // A stack policy that cannot run names no resource at the engine (it lands on some resource).
  const named =
    STACK_POLICIES.has(policy) && (unknown !== undefined || resource === undefined) ? undefined : resource;
  return {
    policy,
    level: level === "warning" ? "advisory" : level,
    ...(named ? { resource: named } : {}),
    message: text,
  };
}

// ---------------------------------------------------------------------------------------------

describe("the pack's verdicts are the same on a Pulumi preview and on an OpenTofu plan", () => {
  let s: EngineStack;
  let t: TofuDir;
  let config: string;

  beforeAll(async () => {
    s = await EngineStack.open({ program: "test/e2e/programs/policy-check" });
    config = writeJson(s.dir, "policy-config.json", CONFIG);
    t = TofuDir.open(s.emu);
    t.write(PROVIDER_HCL);
    const init = await t.tf(["init", "-input=false"]);
    expect(init.code, init.out).toBe(0);
  }, 120_000);
  afterAll(async () => {
    t?.close();
    await s?.close();
  });

  /** The pack's verdicts on a preview of the objects, and whether the preview passed. */
  async function preview(
    declared: Declared[],
  ): Promise<{ passed: boolean; verdicts: Verdict[]; out: string }> {
    await s.setSpec(declared);
    const events: EngineEvent[] = [];
    let passed = true;
    let out = "";
    try {
      out = (
        await s.preview({
          policyPacks: [POLICY_PACK],
          policyPackConfigs: [config],
          onEvent: (e) => events.push(e),
        })
      ).result.stdout;
    } catch (e) {
      passed = false;
      out = String(e);
    }
    const verdicts = events.flatMap((e) => {
      const p = e.policyEvent;
      if (!p) return [];
      const name = p.resourceUrn?.includes("flagstack:")
        ? p.resourceUrn.slice(p.resourceUrn.lastIndexOf("::") + 2)
        : undefined;
      // The engine's message is the policy's description, then the violation's.
      const lines = p.message.trimEnd().split("\n");
      const message = (lines.length > 1 ? lines.slice(1) : lines).join("\n");
      return [verdict(p.policyName, p.enforcementLevel, name, message)];
    });
    return { passed, verdicts: verdicts.sort(byText), out };
  }

  /** `tofu plan -out`, `tofu show -json`, `flagstack policy check --config --format json`. */
  async function planCheck(
    declared: Declared[],
  ): Promise<{ code: number; verdicts: Verdict[]; plan: { code: number; out: string } }> {
    t.write(`${PROVIDER_HCL}\n${hclOf(declared)}`);
    rmSync(join(t.dir, "tfplan"), { force: true });
    const plan = await t.tf(["plan", "-input=false", "-out", "tfplan"]);
    if (plan.code !== 0) return { code: -1, verdicts: [], plan };
    const { stdout } = await run(t.tofu, ["show", "-json", "tfplan"], {
      cwd: t.dir,
      env: t.env,
      maxBuffer: 1 << 28,
    });
    const planJson = join(t.dir, "plan.json");
    writeFileSync(planJson, stdout);
    let code = 0;
    let out: string;
    try {
      out = (
        await run(process.execPath, [
          join(REPO_ROOT, "bin", "flagstack.js"),
          "policy",
          "check",
          planJson,
          "--config",
          config,
          "--format",
          "json",
        ])
      ).stdout;
    } catch (e) {
      const err = e as { code?: number; stdout?: string; stderr?: string };
      code = err.code ?? -2;
      out = err.stdout ?? "";
      if (code !== 1) throw new Error(`policy check failed (${code}): ${err.stderr}`);
    }
    const check = JSON.parse(out) as {
      violations: { policy: string; enforcementLevel: string; address?: string; message: string }[];
    };
    const verdicts = check.violations.map((v) =>
      verdict(v.policy, v.enforcementLevel, v.address?.slice(v.address.lastIndexOf(".") + 1), v.message),
    );
    return { code, verdicts: verdicts.sort(byText), plan };
  }

  it("the objects are what the provider accepts, but the refused one (and a reference, the program's to resolve)", async () => {
    const check = (d: Declared) => KINDS[KIND_LIST.find((k) => k.name === d.kind)!.token]!.check({}, d.args);
    for (const d of [...objects(true), ...objects(false), ...UNKNOWN.slice(0, 1)])
      expect([d.name, (await check(d)).failures ?? []]).toEqual([d.name, []]);
    expect((await check(REFUSED[0]!)).failures).toEqual([
      { property: "rules[0].buckets", reason: "bucket sizes must sum to 100, got 60" },
      { property: "defaultRule", reason: "bucket sizes must sum to 100, got 90" },
    ]);
  });

  it("passing: no verdict at either door", async () => {
    const pulumi = await preview(objects(true));
    expect(pulumi.verdicts).toEqual([]);
    expect(pulumi.passed).toBe(true);
    const tofu = await planCheck(objects(true));
    expect(tofu.verdicts).toEqual([]);
    expect(tofu.code).toBe(0);
  });

  // max-traffic-shift needs a state before the change (every object here is created): its verdicts
  // at both doors are test/e2e/impact.test.ts's.
  it("violating: the same verdicts from both doors, every policy but definition-well-formed and max-traffic-shift", async () => {
    const pulumi = await preview(objects(false));
    const tofu = await planCheck(objects(false));
    expect(tofu.verdicts).toEqual(pulumi.verdicts);
    expect(new Set(tofu.verdicts.map((v) => v.policy))).toEqual(
      new Set(policyNames.filter((p) => p !== "definition-well-formed" && p !== "max-traffic-shift")),
    );
    expect(tofu.verdicts).toHaveLength(20);
    // Mandatory ones fail both: the preview, and the check with status 1.
    expect(pulumi.passed).toBe(false);
    expect(tofu.code).toBe(1);
    expect(tofu.verdicts.filter((v) => v.level === "advisory").map((v) => v.policy)).toEqual([
      "flag-naming",
      "flag-required-tags",
      "kill-switch-documented",
      "pipeline-step-timeouts",
      "pipeline-step-timeouts",
      "segment-size-limit",
    ]);
  });

  it("unknown until apply: the same policies cannot run, as advisory findings", async () => {
    const pulumi = await preview(UNKNOWN);
    const tofu = await planCheck(UNKNOWN);
    expect(tofu.verdicts).toEqual(pulumi.verdicts);
    expect(tofu.verdicts).toEqual([
      {
        policy: "definition-well-formed",
        level: "advisory",
        resource: "checkout_prod",
        message: "unknown: comment",
      },
      {
        policy: "kill-switch-documented",
        level: "advisory",
        resource: "checkout_prod",
        message: "unknown: comment",
      },
      { policy: "max-traffic-shift", level: "advisory", message: "unknown: comment" },
      { policy: "production-ramp-guard", level: "advisory", message: "unknown: comment" },
      { policy: "targeting-assertions", level: "advisory", message: "unknown: comment" },
    ]);
    expect(tofu.code).toBe(0);
  });

  it("refused: the pack's definition-well-formed problems are the errors of tofu plan, which writes no plan", async () => {
    const pulumi = await preview(REFUSED);
    expect(pulumi.passed).toBe(false);
    const label = 'flag "pc-bad" in environment "Production": ';
    const problems = pulumi.verdicts.map((v) => {
      expect([v.policy, v.level, v.resource, v.message.startsWith(label)]).toEqual([
        "definition-well-formed",
        "mandatory",
        "bad_def",
        true,
      ]);
      // The property in the Terraform door's words: `defaultRule` is `default_rule`.
      const problem = v.message.slice(label.length);
      const at = problem.indexOf(":");
      return `${problem.slice(0, at).replace(/^[A-Za-z]+/, (m) => snakeCase(m))}${problem.slice(at)}`;
    });
    const tofu = await planCheck(REFUSED);
    expect(tofu.code).toBe(-1);
    expect(tofu.plan.code).toBe(1);
    expect(existsSync(join(t.dir, "tfplan"))).toBe(false);
    const errors = [...tofu.plan.out.matchAll(/^Error: (.*)$/gm)].map((m) => m[1]);
    expect(errors.sort()).toEqual(problems.sort());
    expect(errors.sort()).toEqual([
      "default_rule: bucket sizes must sum to 100, got 90",
      "rules[0].buckets: bucket sizes must sum to 100, got 60",
    ]);
  });
});
