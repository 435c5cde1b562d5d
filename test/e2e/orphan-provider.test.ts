/**
 * A killed OpenTofu or Pulumi leaves no flagstack provider behind (issue 37: "A killed OpenTofu
 * leaves flagstack's provider running forever; the Go peer's exits at once"). Each round starts a
 * run whose provider is slowed by its own request rate (`requests_per_second`,
 * `flagstack:requestsPerSecond`: 36 flags at 10 requests a second, so its requests wait in the
 * provider's queue), SIGKILLs `tofu apply`, `tofu plan` or `pulumi up` (the native provider, from a
 * YAML program) at a moment drawn from the round's seed after the run's first request to the
 * services, and then requires:
 * - no provider process of the run left 5 s after the kill (`terraform-provider-flagstack`, the
 *   native plugin's `provider-plugin/index.js`; provider/terraform/parent-watch.ts);
 * - no request from it reaching the emulator later than 1 s after the kill.
 * The provider binary of the release (`npm run release`), installed from its mirror, is killed the
 * same way in `tofu apply`: it runs the same `main()` as the Node launcher.
 * The seeds are fixed, so a round's kill moment is the same on every run; `FLAGSTACK_ORPHAN_SEEDS`
 * (comma-separated) replays others. Each round prints how long after the kill the processes were
 * gone and when the last request arrived.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Emulator, startEmulator } from "../../emulator";
import { mulberry32 } from "../../emulator/middleware/faults";
import { apiRequests, EngineStack, pulumiCli, REPO_ROOT } from "./harness";
import { PROVIDER_HCL, releaseBinaries, TofuDir } from "./tofu";

const SEEDS = (process.env.FLAGSTACK_ORPHAN_SEEDS ?? "37,1337,424242").split(",").map(Number);
/** Flags per run, and the provider's request rate: a run's creates or reads take 4 s or more. */
const FLAGS = 36;
const RPS = 10;
/** The kill comes 0..MAX_DELAY_MS after the run's first request, drawn from the seed. */
const MAX_DELAY_MS = 2500;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The kill's delay of a round: the seed's `draw`th number (0 for `tofu apply`, 1 `tofu plan`, 2 `pulumi up`). */
function killDelay(seed: number, draw: number): number {
  const random = mulberry32(seed);
  for (let i = 0; i < draw; i++) random();
  return Math.floor(random() * MAX_DELAY_MS);
}

/**
 * The running processes (Linux: from /proc) whose command line has `command` and whose
 * environment has `marker` (the run's own directory, so other runs on the machine are not
 * counted); a zombie, exited and not yet reaped by its new parent, does not run.
 */
function processes(command: string, marker: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (!readFileSync(`/proc/${entry}/cmdline`, "utf8").includes(command)) continue;
      if (!readFileSync(`/proc/${entry}/environ`, "utf8").split("\0").includes(marker)) continue;
      if (/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${entry}/stat`, "utf8"))) continue;
      pids.push(Number(entry));
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  return pids;
}

/** What one killed run showed. */
interface Killed {
  delay: number;
  /** Provider processes of the run at the kill. */
  atKill: number;
  /** How long after the kill the last of them was gone. */
  goneMs: number;
  /** The last request's arrival after the kill (ms), if any came after it. */
  lastRequestMs: number | undefined;
  /** Requests that arrived later than 1 s after the kill. */
  late: string[];
}

/**
 * Starts a run, SIGKILLs it `delay` ms after its first request to the services, and measures
 * when its provider processes (`providers()`) were gone and when its last request arrived.
 */
async function killRun(
  emu: Emulator,
  start: () => ChildProcess,
  providers: () => number[],
  delay: number,
): Promise<Killed> {
  const before = emu.requests().length;
  const sent = () => apiRequests(emu.requests().slice(before));
  const child = start();
  let ended = false;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve())).then(() => {
    ended = true;
  });
  while (!ended && sent().length === 0) await sleep(10);
  expect(ended ? "the run ended before any request" : "the run reached the services").toBe(
    "the run reached the services",
  );
  const finished = await Promise.race([exited.then(() => true), sleep(delay).then(() => false)]);
  // The run must still be going: a kill after its end shows nothing.
  expect(finished ? "the run ended before the kill" : "killed while running").toBe("killed while running");
  const atKill = providers().length;
  const killedAt = Date.now();
  child.kill("SIGKILL");
  await exited;
  let left = providers();
  while (left.length > 0 && Date.now() - killedAt < 5000) {
    await sleep(25);
    left = providers();
  }
  const goneMs = Date.now() - killedAt;
  for (const pid of left) process.kill(pid, "SIGKILL");
  expect(left).toEqual([]);
  // A request the orphan would send later than 1 s after the kill has had time to arrive.
  await sleep(Math.max(0, killedAt + 2000 - Date.now()));
  const after = sent().filter((r) => r.at >= killedAt);
  const late = after
    .filter((r) => r.at > killedAt + 1000)
    .map((r) => `${r.method} ${r.path} at +${r.at - killedAt} ms`);
  const last = after.at(-1);
  return { delay, atKill, goneMs, lastRequestMs: last && last.at - killedAt, late };
}

const report = (label: string, k: Killed) =>
  console.info(
    `${label}: killed ${k.delay} ms after the first request; ${k.atKill} provider process(es) then, gone ${k.goneMs} ms after the kill; last request ${k.lastRequestMs === undefined ? "before the kill" : `+${k.lastRequestMs} ms`}`,
  );

/** `t` with a configuration of {@link FLAGS} flags named `<workspace>-<prefix><n>`, initialised. */
async function countedFlags(t: TofuDir, prefix: string): Promise<TofuDir> {
  // Each workspace its own state and flags: a killed apply's flags do not meet the next one's.
  t.write(`${PROVIDER_HCL}
resource "flagstack_flag" "f" {
  count     = ${FLAGS}
  workspace = "Default"
  name      = "\${terraform.workspace}-${prefix}\${count.index}"
  tags      = ["orphan"]
}
`);
  const init = await t.tf(["init"]);
  expect(init.code, init.out).toBe(0);
  return t;
}

describe.skipIf(process.platform !== "linux")("a killed run leaves no provider process behind", () => {
  let emu: Emulator;
  beforeAll(async () => {
    emu = await startEmulator({ port: 0 });
  });
  afterAll(async () => {
    await emu?.stop();
  });

  describe(`OpenTofu, seeds ${SEEDS.join(", ")}`, () => {
    let t: TofuDir;
    // The run's own launcher in the environment of its provider processes.
    const providers = () =>
      processes("terraform-provider-flagstack", `TF_CLI_CONFIG_FILE=${join(t.dir, "tofurc")}`);
    const tofu =
      (args: string[], env: Record<string, string> = {}) =>
      () =>
        spawn(t.tofu, [...args, "-no-color", "-input=false"], {
          cwd: t.dir,
          env: { ...t.env, ...env },
          stdio: "ignore",
        });

    beforeAll(async () => {
      t = await countedFlags(TofuDir.open(emu), "f");
    });
    afterAll(() => {
      t?.close();
    });

    it.each(SEEDS)(
      "kill -9 of tofu apply (seed %i): the provider gone, nothing sent after the kill + 1 s",
      async (seed) => {
        const ws = await t.tf(["workspace", "new", `apply${seed}`]);
        expect(ws.code, ws.out).toBe(0);
        const k = await killRun(
          emu,
          tofu(["apply", "-auto-approve", `-var=requests_per_second=${RPS}`]),
          providers,
          killDelay(seed, 0),
        );
        report(`tofu apply, seed ${seed}`, k);
        expect(k.atKill).toBeGreaterThan(0);
        expect(k.late).toEqual([]);
        expect(k.goneMs).toBeLessThan(5000);
      },
    );

    it.each(SEEDS)(
      "kill -9 of tofu plan (seed %i): the provider gone, nothing sent after the kill + 1 s",
      async (seed) => {
        // The plan refreshes the flags of one finished apply: 36 reads at 10 a second, each its own
        // GET (one list would answer them all: provider/core/list-reads.ts).
        const ws = await t.tf(["workspace", "select", "-or-create", "planned"]);
        expect(ws.code, ws.out).toBe(0);
        if (seed === SEEDS[0]) {
          const apply = await t.tf(["apply", "-auto-approve"]);
          expect(apply.code, apply.out).toBe(0);
        }
        const k = await killRun(
          emu,
          tofu(["plan", `-var=requests_per_second=${RPS}`], { FLAGSTACK_LIST_READS: "off" }),
          providers,
          killDelay(seed, 1),
        );
        report(`tofu plan, seed ${seed}`, k);
        expect(k.atKill).toBeGreaterThan(0);
        expect(k.late).toEqual([]);
        expect(k.goneMs).toBeLessThan(5000);
      },
    );
  });

  describe(`the provider binary (the release's, from its filesystem mirror), seeds ${SEEDS.join(", ")}`, () => {
    let t: TofuDir;
    let release: string;
    const providers = () =>
      processes("terraform-provider-flagstack", `TF_CLI_CONFIG_FILE=${join(t.dir, "tofurc")}`);
    beforeAll(async () => {
      // The executable for this machine (`npm run release -- --binaries-only`), as a user installs it.
      release = mkdtempSync(join(tmpdir(), "flagstack-orphan-release-"));
      t = await countedFlags(TofuDir.open(emu, releaseBinaries(release)), "b");
    });
    afterAll(() => {
      t?.close();
      if (release) rmSync(release, { recursive: true, force: true });
    });

    it.each(SEEDS)(
      "kill -9 of tofu apply (seed %i): the binary gone, nothing sent after the kill + 1 s",
      async (seed) => {
        const ws = await t.tf(["workspace", "new", `binary${seed}`]);
        expect(ws.code, ws.out).toBe(0);
        const k = await killRun(
          emu,
          () =>
            spawn(
              t.tofu,
              ["apply", "-auto-approve", "-no-color", "-input=false", `-var=requests_per_second=${RPS}`],
              {
                cwd: t.dir,
                env: t.env,
                stdio: "ignore",
              },
            ),
          providers,
          killDelay(seed, 0),
        );
        report(`tofu apply with the binary, seed ${seed}`, k);
        expect(k.atKill).toBeGreaterThan(0);
        expect(k.late).toEqual([]);
        expect(k.goneMs).toBeLessThan(5000);
      },
    );
  });

  describe(`pulumi up with the native provider, seeds ${SEEDS.join(", ")}`, () => {
    let programDir: string;
    let pulumiBin: string;
    beforeAll(async () => {
      pulumiBin = (await pulumiCli()).command;
      programDir = mkdtempSync(join(tmpdir(), "flagstack-orphan-program-"));
      const flags = Array.from(
        { length: FLAGS },
        (_, i) => `  f${i}:
    type: flagstack:index:Flag
    properties:
      workspace: Default
      name: \${pulumi.stack}-f${i}
      tags: [orphan]
`,
      ).join("");
      writeFileSync(
        join(programDir, "Pulumi.yaml"),
        `name: orphan-provider
runtime: yaml
plugins:
  providers:
    - name: flagstack
      path: ${join(REPO_ROOT, "provider-plugin")}
resources:
${flags}`,
      );
    });
    afterAll(() => {
      if (programDir) rmSync(programDir, { recursive: true, force: true });
    });

    it.each(SEEDS)(
      "kill -9 of pulumi up (seed %i): the provider gone, nothing sent after the kill + 1 s",
      async (seed) => {
        // A stack per round: the killed run's lock and pending creates stay with it.
        const s = await EngineStack.open({
          program: programDir,
          stackName: `up${seed}`,
          sharedEmulator: emu,
        });
        try {
          await s.setConfig({ "flagstack:requestsPerSecond": String(RPS) });
          const env = {
            ...process.env,
            ...s.env,
            PATH: `${dirname(pulumiBin)}${delimiter}${s.env.PATH}`,
          };
          const k = await killRun(
            emu,
            () =>
              spawn(
                pulumiBin,
                ["up", "--yes", "--skip-preview", "--non-interactive", "--stack", `up${seed}`],
                {
                  cwd: s.programDir,
                  env,
                  stdio: "ignore",
                },
              ),
            () => processes(join("provider-plugin", "index.js"), `PULUMI_HOME=${s.env.PULUMI_HOME}`),
            killDelay(seed, 2),
          );
          report(`pulumi up, seed ${seed}`, k);
          expect(k.atKill).toBeGreaterThan(0);
          expect(k.late).toEqual([]);
          expect(k.goneMs).toBeLessThan(5000);
        } finally {
          await s.close();
        }
      },
    );
  });
});
