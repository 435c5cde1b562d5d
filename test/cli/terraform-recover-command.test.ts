/**
 * `flagstack terraform recover` (cli/terraform-recover-command.ts) against the emulator: from a
 * plan JSON (`--plan`) it prints what it found and wrote and writes the `import` blocks into the
 * configuration's directory; nothing missing, nothing written; an object it cannot decide makes the
 * exit code 1; with a CLI named (`--tofu`) it runs that CLI's plan with the arguments after `--`;
 * options that contradict each other are refused before anything runs.
 */
import { execFile } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { terraformRecover } from "../../cli/terraform-recover-command";
import { type Emulator, startEmulator } from "../../emulator";
import { resetProvider } from "../../provider/core/config";
import { importBlocksText, type PlanJson } from "../../provider/terraform/recover";
import { AdminClient } from "../../sdk";

const run = promisify(execFile);
const ROOT = join(__dirname, "..", "..");
let emu: Emulator;
const dir = mkdtempSync(join(tmpdir(), "flagstack-tf-recover-cli-"));
const planFile = join(dir, "plan.json");
const out = join(dir, "flagstack-recovered.tf");

/** A plan whose provider block is `admin_api_url = "<the emulator>"` and whose creates are these flags. */
const plan = (flags: Record<string, string>, after: Record<string, unknown> = {}): PlanJson => ({
  format_version: "1.2",
  resource_changes: Object.entries(flags).map(([address, name]) => ({
    address,
    mode: "managed",
    type: "flagstack_flag",
    change: {
      actions: ["create"],
      after: { workspace: "Default", name, ...after },
      after_unknown: { id: true },
    },
  })),
  configuration: {
    provider_config: { flagstack: { expressions: { admin_api_url: { constant_value: emu.url } } } },
  },
});

beforeAll(async () => {
  emu = await startEmulator({ port: 0 });
  process.env.FLAGSTACK_ADMIN_API_KEY = emu.adminKey;
  const admin = new AdminClient({ baseUrl: emu.url, apiKey: emu.adminKey });
  const ws = (await admin.workspaces.getByName("Default")) as { id: string };
  await admin.flags.create(ws.id, "user", { name: "cli-made" });
});
afterEach(() => {
  rmSync(out, { force: true });
});
afterAll(async () => {
  delete process.env.FLAGSTACK_ADMIN_API_KEY;
  resetProvider();
  rmSync(dir, { recursive: true, force: true });
  await emu?.stop();
});

/** Runs the built `flagstack <args>` (bin/flagstack.js); the lines it printed and its exit code. */
async function flagstack(args: string[]): Promise<{ lines: string[]; code: number }> {
  let stdout: string;
  let code = 0;
  try {
    ({ stdout } = await run(process.execPath, [join(ROOT, "bin", "flagstack.js"), ...args], {
      env: { ...process.env, FLAGSTACK_ADMIN_API_KEY: emu.adminKey },
    }));
  } catch (e) {
    const err = e as { code?: number; stdout?: string; stderr?: string };
    code = err.code ?? 1;
    stdout = `${err.stdout ?? ""}${err.stderr ?? ""}`;
  }
  return { lines: stdout.split("\n").slice(0, -1), code };
}

describe("flagstack terraform recover --plan", () => {
  it("prints what it found and wrote; the blocks in the configuration's directory", async () => {
    writeFileSync(
      planFile,
      JSON.stringify(plan({ 'flagstack_flag.f["made"]': "cli-made", "flagstack_flag.g[0]": "cli-new" })),
    );
    const { lines, code } = await flagstack(["terraform", "recover", "--plan", planFile, "--dir", dir]);
    expect(code).toBe(0);
    expect(lines).toHaveLength(3);
    expect(lines[0]).toBe(
      "2 object(s) the configuration declares are not in the state: 1 on the service, 1 not, 0 undecided",
    );
    expect(lines[1]).toMatch(
      /^ {2}found flagstack_flag\.f\["made"\]: Default\/cli-made \(created \d{4}-\d\d-\d\dT/,
    );
    expect(lines[2]).toBe(
      `wrote 1 import block(s) to ${out}; \`terraform apply\` imports them and creates the 1 object(s) not on the service`,
    );
    expect(readFileSync(out, "utf8")).toBe(
      importBlocksText([{ address: 'flagstack_flag.f["made"]', id: "Default/cli-made" }]),
    );
  });

  it("nothing missing on the service: writes nothing", async () => {
    writeFileSync(planFile, JSON.stringify(plan({ "flagstack_flag.g[0]": "cli-new" })));
    expect(await flagstack(["terraform", "recover", "--plan", planFile, "--dir", dir])).toEqual({
      lines: [
        "1 object(s) the configuration declares are not in the state: 0 on the service, 1 not, 0 undecided",
        "nothing to recover: wrote nothing",
      ],
      code: 0,
    });
    expect(existsSync(out)).toBe(false);
  });

  it("an object it cannot decide: named, and the exit code 1", async () => {
    writeFileSync(planFile, JSON.stringify(plan({ "flagstack_flag.bad": "9 bad" })));
    expect(await flagstack(["terraform", "recover", "--plan", planFile, "--dir", dir])).toEqual({
      lines: [
        "1 object(s) the configuration declares are not in the state: 0 on the service, 0 not, 1 undecided",
        "  undecided flagstack_flag.bad: its planned inputs do not check: name: name must start with a letter and use only letters, digits, '-' and '_'",
        "nothing to recover: wrote nothing",
        "1 object(s) undecided: if `terraform apply` then reports one as existing, run the recovery again",
      ],
      code: 1,
    });
  });

  it("--out names the file; --dry-run writes none", async () => {
    writeFileSync(planFile, JSON.stringify(plan({ "flagstack_flag.m": "cli-made" })));
    const { lines } = await flagstack([
      "terraform",
      "recover",
      "--plan",
      planFile,
      "--dir",
      dir,
      "--out",
      "r.tf",
      "--dry-run",
    ]);
    expect(lines.at(-1)).toBe("dry run: r.tf not written");
    expect(existsSync(join(dir, "r.tf"))).toBe(false);
    await flagstack(["terraform", "recover", "--plan", planFile, "--dir", dir, "--out", "r.tf"]);
    expect(readFileSync(join(dir, "r.tf"), "utf8")).toBe(
      importBlocksText([{ address: "flagstack_flag.m", id: "Default/cli-made" }]),
    );
  });
});

describe("flagstack terraform recover --tofu PATH -- PLAN_ARGS", () => {
  it("runs that CLI's plan with the arguments, then reads the plan it shows", async () => {
    const args = join(dir, "args.txt");
    const shown = join(dir, "shown.json");
    writeFileSync(shown, JSON.stringify(plan({ "flagstack_flag.t": "cli-made" })));
    const tofu = join(dir, "my-tofu");
    writeFileSync(
      tofu,
      `#!/bin/sh\necho "$@" >> ${JSON.stringify(args)}\n[ "$1" = show ] && cat ${JSON.stringify(shown)}\nexit 0\n`,
    );
    chmodSync(tofu, 0o755);
    const { lines } = await flagstack([
      "terraform",
      "recover",
      "--dir",
      dir,
      "--tofu",
      tofu,
      "--",
      "-var-file=prod.tfvars",
    ]);
    expect(lines[0]).toBe(`running \`${tofu} plan\` in ${dir}`);
    expect(lines.at(-1)).toBe(
      `wrote 1 import block(s) to ${out}; \`terraform apply\` imports them and creates the 0 object(s) not on the service`,
    );
    const [planArgs] = readFileSync(args, "utf8").split("\n") as [string];
    expect(planArgs).toMatch(/^plan -input=false -json -out=\S+ -var-file=prod\.tfvars$/);
  });
});

describe("contradicting options", () => {
  it.each([
    [{ tofu: "a", terraform: "b" }, [], "give --tofu or --terraform, not both"],
    [
      { plan: "p.json", tofu: "a" },
      [],
      "--plan reads a plan another run made: give it without --tofu or --terraform",
    ],
    [
      { plan: "p.json" },
      ["-var=x=1"],
      "--plan reads a plan another run made: the plan arguments -var=x=1 do nothing",
    ],
  ])("%j %j: %s", async (options, planArgs, message) => {
    await expect(terraformRecover({ dir, ...options }, planArgs, () => {})).rejects.toThrow(message);
  });
});
