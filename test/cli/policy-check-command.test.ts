/**
 * `flagstack policy check <plan.json>` (cli/policy-check-command.ts): the plan from a file or
 * standard input, `--config` and `--format`, the exit status (0: no mandatory violation, 1: one,
 * 2: the plan or the config cannot be read) and what is written where; the built command where
 * `@pulumi/*` is not installed (a Terraform-only install).
 */
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { runPolicyCheck } from "../../cli/policy-check-command";
import { fakeIo } from "./fake-io";
import { NO_PULUMI_HOOK } from "./no-pulumi";

/** A plan of one flag named against the naming pattern, untagged. */
const PLAN = JSON.stringify({
  format_version: "1.2",
  resource_changes: [
    {
      address: "flagstack_flag.bad",
      mode: "managed",
      type: "flagstack_flag",
      name: "bad",
      change: {
        actions: ["create"],
        after: { workspace: "Default", name: "Bad_Name" },
        after_unknown: { id: true },
      },
    },
  ],
});

const io = fakeIo;

const NAMING = 'flag name "Bad_Name" does not match the pattern ^[a-z][a-z0-9]*(-[a-z0-9]+)*$';
const TAGS = 'flag "Bad_Name" lacks the required tags "owner:*" (it has no tags)';

describe("flagstack policy check", () => {
  it("advisory findings only: printed, status 0", async () => {
    const { fake, written } = io({ "plan.json": PLAN });
    expect(await runPolicyCheck("plan.json", {}, fake)).toBe(0);
    expect(written).toEqual({
      out: [
        `[advisory] flag-naming  flagstack_flag.bad: ${NAMING}`,
        `[advisory] flag-required-tags  flagstack_flag.bad: ${TAGS}`,
        "flagstack-rollout-safety: 0 mandatory violations, 2 advisory findings on 1 flagstack resource of the plan",
        "",
      ].join("\n"),
      err: "",
    });
  });

  it("a mandatory violation (by the config): status 1; --format json; the plan from standard input", async () => {
    const { fake, written } = io(
      { "policy.json": JSON.stringify({ "flag-naming": "mandatory", "flag-required-tags": "disabled" }) },
      PLAN,
    );
    expect(await runPolicyCheck("-", { config: "policy.json", format: "json" }, fake)).toBe(1);
    expect(JSON.parse(written.out)).toEqual({
      policyPack: "flagstack-rollout-safety",
      resources: ["flagstack_flag.bad"],
      violations: [
        {
          policy: "flag-naming",
          enforcementLevel: "mandatory",
          severity: "low",
          address: "flagstack_flag.bad",
          message: NAMING,
        },
      ],
      notes: [],
      mandatory: 1,
      advisory: 0,
    });
    expect(written.err).toBe("");
  });

  it.each<[string, Record<string, string>, string, string | undefined, string]>([
    [
      "a plan that is not JSON (the binary plan file)",
      { tfplan: "PK\u0003\u0004..." },
      "tfplan",
      undefined,
      "flagstack policy check: tfplan is not JSON (Unexpected token 'P', \"PK\u0003\u0004...\" is not valid JSON): give the JSON of a saved plan, `tofu show -json <planfile>` (or `terraform show -json <planfile>`)\n",
    ],
    [
      "the JSON of a state",
      { "state.json": JSON.stringify({ format_version: "1.0", values: {} }) },
      "state.json",
      undefined,
      "flagstack policy check: not the JSON of a Terraform plan: resource_changes: no resource_changes: give the JSON of a saved plan (tofu show -json <planfile>), not of a state\n",
    ],
    [
      "a missing plan",
      {},
      "plan.json",
      undefined,
      "flagstack policy check: ENOENT: no such file or directory, open 'plan.json'\n",
    ],
    [
      "a config the policies refuse",
      { "plan.json": PLAN, "policy.json": JSON.stringify({ "segment-size-limit": { maxMembers: -1 } }) },
      "plan.json",
      "policy.json",
      "flagstack policy check: invalid config of policy segment-size-limit: maxMembers: Too small: expected number to be >=0\n",
    ],
  ])("%s: status 2, the reason on stderr, nothing on stdout", async (_, files, plan, config, err) => {
    const { fake, written } = io(files);
    expect(await runPolicyCheck(plan, { config }, fake)).toBe(2);
    expect(written).toEqual({ out: "", err });
  });
});

describe("the built command", () => {
  it("runs where @pulumi/* is not installed, loading none, with the exit status of its findings", async () => {
    const dir = mkdtempSync(join(tmpdir(), "flagstack-policy-check-"));
    try {
      writeFileSync(join(dir, "no-pulumi.cjs"), NO_PULUMI_HOOK);
      writeFileSync(join(dir, "plan.json"), PLAN);
      writeFileSync(join(dir, "policy.json"), JSON.stringify({ all: "mandatory" }));
      const cli = [
        join(__dirname, "..", "..", "bin", "flagstack.js"),
        "policy",
        "check",
        join(dir, "plan.json"),
      ];
      const hook = ["-r", join(dir, "no-pulumi.cjs")];
      const passed = await promisify(execFile)(process.execPath, [...hook, ...cli]);
      expect(passed.stderr).toBe("");
      expect(passed.stdout).toContain(`[advisory] flag-naming  flagstack_flag.bad: ${NAMING}\n`);
      const failed = await promisify(execFile)(process.execPath, [
        ...hook,
        ...cli,
        "--config",
        join(dir, "policy.json"),
      ]).then(
        () => undefined,
        (e: { code?: number; stdout?: string; stderr?: string }) => e,
      );
      expect([failed?.code, failed?.stderr]).toEqual([1, ""]);
      expect(failed?.stdout).toContain(`[mandatory] flag-naming  flagstack_flag.bad: ${NAMING}\n`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
