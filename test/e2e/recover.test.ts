/**
 * `flagstack recover` after a killed `pulumi up`, through the real engine (issue 23, items 7 and
 * 8). A proxy in front of the emulator puts each kill at a precise point: it holds the answer of a
 * create the service made (the engine never hears of it), or stalls a create so that it never
 * reaches the service, and the test SIGKILLs `pulumi` meanwhile.
 * - A `Secret` and an `Environment` created while `up` was killed: `recover` adopts both (the
 *   secret's inputs are checked with its value revealed, and the value goes back into the state
 *   encrypted), the environment records the SDK keys its create made (noted by the provider, whose
 *   process waited for the held answer), the next `up` converges, and `destroy` revokes the keys
 *   and deletes everything.
 * - The CI path: killed, `pulumi cancel`, the job retries `up` (it fails on the object the killed
 *   run made, naming `flagstack recover`, and creates the one the killed run never sent), then
 *   `recover`: nothing kept pending, no duplicate URN, and the next `up` converges.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { readdirSync, readFileSync, readlinkSync, realpathSync } from "node:fs";
import { delimiter, dirname, join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isNotFound } from "../../sdk/core/errors";
import { type ScriptedProxy, startScriptedProxy } from "../reliability/scripted-proxy";
import { clients, flagNames, groupNames, type StackSpec } from "./fixtures";
import { EngineStack, pulumiCli, REPO_ROOT } from "./harness";

const execFileAsync = promisify(execFile);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The pids of the processes running in `dir` whose command line holds `command` (Linux: from /proc). */
function processesIn(dir: string, command: string): number[] {
  const want = realpathSync(dir);
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmd = readFileSync(`/proc/${entry}/cmdline`, "utf8");
      if (!cmd.includes(command)) continue;
      if (readlinkSync(`/proc/${entry}/cwd`) === want) pids.push(Number(entry));
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  return pids;
}

/** The pids of dynamic-provider hosts running in `dir`. */
const providerProcesses = (dir: string) => processesIn(dir, "cmd/dynamic-provider");

/** A promise and the function that resolves it. */
function signal(): { promise: Promise<void>; fire: () => void } {
  let fire!: () => void;
  const promise = new Promise<void>((resolve) => {
    fire = resolve;
  });
  return { promise, fire };
}

/** The stack of one scenario: an engine sandbox whose provider talks to the emulator through a proxy. */
class KillBed {
  private constructor(
    readonly s: EngineStack,
    readonly proxy: ScriptedProxy,
    private readonly pulumiBin: string,
  ) {}

  static async open(): Promise<KillBed> {
    const s = await EngineStack.open({
      program: "test/e2e/programs/stack",
      // The program is the e2e suite's, type-checked by its other tests: transpiling it saves time.
      env: { PULUMI_NODEJS_TRANSPILE_ONLY: "true" },
    });
    const proxy = await startScriptedProxy(s.emu.url);
    await s.setConfig({ "flagstack:adminApiUrl": proxy.url, "flagstack:platformApiUrl": proxy.url });
    return new KillBed(s, proxy, (await pulumiCli()).command);
  }

  env(): NodeJS.ProcessEnv {
    return {
      ...process.env,
      ...this.s.env,
      PATH: `${dirname(this.pulumiBin)}${delimiter}${this.s.env.PATH}`,
    };
  }

  /**
   * Runs `pulumi up` and SIGKILLs it once `moment` resolves; then waits for its provider processes
   * to end (they do on their own: provider/core/host.ts), releasing held answers first.
   */
  async killedUp(moment: Promise<unknown>, release: () => void): Promise<void> {
    const child: ChildProcess = spawn(
      this.pulumiBin,
      ["up", "--yes", "--skip-preview", "--non-interactive", "--stack", "e2e"],
      { cwd: this.s.programDir, env: this.env(), stdio: "ignore" },
    );
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    const first = await Promise.race([moment.then(() => "moment"), exited.then(() => "exited")]);
    expect(first).toBe("moment");
    child.kill("SIGKILL");
    await exited;
    release();
    for (let i = 0; i < 100 && providerProcesses(this.s.programDir).length > 0; i++) await sleep(100);
    expect(providerProcesses(this.s.programDir)).toEqual([]);
    // The language host of the killed run outlives it, idle: this test stops it.
    for (const pid of processesIn(this.s.programDir, "pulumi-language-nodejs")) process.kill(pid, "SIGKILL");
  }

  /** `flagstack recover` as a user runs it; its standard output. */
  async recover(): Promise<string> {
    const { stdout } = await execFileAsync(
      process.execPath,
      [join(REPO_ROOT, "bin", "flagstack.js"), "recover", "--stack", "e2e", "--cwd", this.s.programDir],
      { env: this.env(), maxBuffer: 1 << 26 },
    );
    return stdout;
  }

  /** The state as `pulumi stack export` shows it (secrets encrypted), parsed, and its text. */
  async state(): Promise<{
    text: string;
    deployment: {
      resources: {
        urn: string;
        type: string;
        id?: string;
        inputs?: Record<string, unknown>;
        outputs?: Record<string, unknown>;
      }[];
      pending_operations?: { type: string; resource: { urn: string } }[];
    };
  }> {
    const text = await this.s.exportText();
    return { text, deployment: (JSON.parse(text) as { deployment: never }).deployment };
  }

  async close(): Promise<void> {
    await this.proxy.stop();
    await this.s.close();
  }
}

const SECRET_SIG_KEY = "4dabf18193072939515e22adb298388d";
const SECRET_SIG = "1b47061264138c4ac30d75fd1eb44270";
const PREFIX = "urn:pulumi:e2e::flagstack-e2e::pulumi-nodejs:dynamic/flagstack:";

/** The SDK keys of an environment in the emulator's state file: id, name and type. */
function keysOf(
  statePath: string,
  environmentId: string,
): { id: string; name: string; apiKeyType: string }[] {
  const state = JSON.parse(readFileSync(statePath, "utf8")) as {
    keys: { id: string; name: string; apiKeyType?: string; environments?: string[] }[];
  };
  return state.keys
    .filter((k) => k.environments?.includes(environmentId))
    .map((k) => ({ id: k.id, name: k.name, apiKeyType: k.apiKeyType ?? "" }));
}

describe.skipIf(process.platform !== "linux")("flagstack recover after a killed pulumi up", () => {
  describe("a Secret and an Environment created while up was killed", () => {
    const VALUE = "recover-sentinel-7f3a91c2";
    let bed: KillBed;
    beforeAll(async () => {
      bed = await KillBed.open();
    });
    afterAll(async () => {
      await bed?.close();
    });

    it("recover adopts both (the value stays encrypted, the SDK keys recorded), up converges, destroy deletes everything", async () => {
      const spec: StackSpec = {
        secrets: { pw: { org: "default", identifier: "recover_pw", name: "Recover pw", value: VALUE } },
        environments: { env: { workspace: "Default", name: "recover-env" } },
      };
      await bed.s.setSpec(spec);
      // Both creates reach the service; their answers are held while the engine is killed.
      const both = signal();
      const release = signal();
      let answered = 0;
      const hit = () => {
        if (++answered === 2) both.fire();
      };
      bed.proxy.script(
        {
          method: "POST",
          path: /\/ng\/api\/v2\/secrets$/,
          action: { answered: hit, until: release.promise },
        },
        {
          method: "POST",
          path: /\/environments\/ws\/[^/]+$/,
          action: { answered: hit, until: release.promise },
        },
      );
      await bed.killedUp(both.promise, release.fire);

      const killed = await bed.state();
      expect(killed.deployment.pending_operations?.map((op) => [op.type, op.resource.urn]).sort()).toEqual([
        ["creating", `${PREFIX}Environment::env`],
        ["creating", `${PREFIX}Secret::pw`],
      ]);

      const { admin, platform } = clients(bed.s.emu);
      const ws = await admin.workspaces.getByName("Default");
      const environment = await admin.environments.find(ws?.id as string, "recover-env");
      expect(environment?.name).toBe("recover-env");
      const envId = environment?.id as string;
      const keys = keysOf(bed.s.emu.statePath as string, envId);
      expect(keys.map((k) => k.apiKeyType).sort()).toEqual(["client_side", "server_side"]);

      const out = await bed.recover();
      expect(
        out
          .split("\n")
          .filter((l) => /^(recovered|cleared|kept)/.test(l))
          .sort(),
      ).toEqual([
        `recovered ${PREFIX}Environment::env (id ${envId}): created by the interrupted run`,
        `recovered ${PREFIX}Secret::pw (id default/recover_pw): created by the interrupted run`,
      ]);

      const recovered = await bed.state();
      expect(recovered.deployment.pending_operations).toBeUndefined();
      const byName = (name: string) =>
        recovered.deployment.resources.find((r) => r.urn.endsWith(`::${name}`));
      // The value is a secret in the inputs and the outputs, encrypted: nowhere in plain text.
      const value = byName("pw")?.outputs?.value as Record<string, unknown>;
      expect(Object.keys(value).sort()).toEqual([SECRET_SIG_KEY, "ciphertext"]);
      expect(value[SECRET_SIG_KEY]).toBe(SECRET_SIG);
      expect(Object.keys(byName("pw")?.inputs?.value as object).sort()).toEqual([
        SECRET_SIG_KEY,
        "ciphertext",
      ]);
      expect(recovered.text).not.toContain(VALUE);
      expect(bed.s.backendText()).not.toContain(VALUE);
      const revealed = JSON.parse((await bed.s.cli(["stack", "export", "--show-secrets"])).stdout) as {
        deployment: { resources: { urn: string; outputs?: Record<string, unknown> }[] };
      };
      expect(revealed.deployment.resources.find((r) => r.urn.endsWith("::pw"))?.outputs?.value).toEqual({
        [SECRET_SIG_KEY]: SECRET_SIG,
        plaintext: JSON.stringify(VALUE),
      });
      // The environment records the SDK keys its create made.
      expect(byName("env")?.id).toBe(envId);
      expect(byName("env")?.outputs?.apiTokens).toEqual(keys);

      const { result } = await bed.s.up();
      expect(result.summary.result).toBe("succeeded");
      const preview = await bed.s.preview();
      expect(preview.result.changeSummary).toEqual({ same: 3 });
      expect(preview.requests).toEqual([]);
      expect(
        (await bed.s.resources())
          .map((r) => r.urn)
          .filter((u) => u.startsWith(PREFIX))
          .sort(),
      ).toEqual([`${PREFIX}Environment::env`, `${PREFIX}Secret::pw`]);

      expect((await bed.s.destroy()).result.summary.result).toBe("succeeded");
      expect(await admin.environments.find(ws?.id as string, "recover-env")).toBeUndefined();
      expect(keysOf(bed.s.emu.statePath as string, envId)).toEqual([]);
      const gone = await platform.secrets.get("recover_pw", { org: "default" }).then(
        () => "still there",
        (e: unknown) => (isNotFound(e) ? "gone" : String(e)),
      );
      expect(gone).toBe("gone");
    }, 110_000);
  });

  describe("the CI path: killed, cancel, a retried up fails, then recover", () => {
    // The run had 60 flags and 40 groups; what matters is the kill's shape, not the count.
    const FLAGS = 12;
    const GROUPS = 8;
    let bed: KillBed;
    beforeAll(async () => {
      bed = await KillBed.open();
    });
    afterAll(async () => {
      await bed?.close();
    });

    it("recover settles what the killed run and the retry left: nothing kept, no duplicate URN, up converges", async () => {
      const spec: StackSpec = { flags: {}, groups: {} };
      for (let i = 0; i < FLAGS; i++) spec.flags![`f${i}`] = { workspace: "Default", name: `ci-flag-${i}` };
      for (let i = 0; i < GROUPS; i++) spec.groups![`g${i}`] = { name: `ci-group-${i}` };
      await bed.s.setSpec(spec);
      // One flag the service creates but whose answer never reaches the engine, one group create
      // that never reaches the service; the run is killed once both happened.
      const flagMade = signal();
      const groupStalled = signal();
      const release = signal();
      bed.proxy.script(
        {
          method: "POST",
          path: /\/splits\/ws\/[^/]+\/trafficTypes\//,
          action: { answered: flagMade.fire, until: release.promise },
        },
        { method: "POST", path: /\/internal\/api\/v2\/groups$/, action: { stalled: groupStalled.fire } },
      );
      await bed.killedUp(
        Promise.all([flagMade.promise, groupStalled.promise]).then(() => sleep(300)),
        release.fire,
      );
      const killed = await bed.state();
      const pendingAfterKill = (killed.deployment.pending_operations ?? []).map((op) => op.resource.urn);
      expect(pendingAfterKill.length).toBeGreaterThanOrEqual(2);

      // The CI job: `pulumi cancel`, then `pulumi up` again, before anyone runs recover. The
      // service answers flag creates once the retry's group creates are answered, so the retry
      // creates the groups the killed run did not record (the stalled one among them) before it
      // fails on the flag the killed run made.
      await bed.s.cli(["cancel", "--yes"]);
      const missingGroups = Object.keys(spec.groups ?? {}).filter(
        (g) => !killed.deployment.resources.some((r) => r.urn === `${PREFIX}Group::${g}`),
      ).length;
      const groupsDone = signal();
      let groupAnswers = 0;
      for (let i = 0; i < missingGroups; i++) {
        bed.proxy.script({
          method: "POST",
          path: /\/internal\/api\/v2\/groups$/,
          action: {
            answered: () => {
              if (++groupAnswers === missingGroups) groupsDone.fire();
            },
            until: Promise.resolve(),
          },
        });
      }
      // The flags wait for the groups. The fallback's clock starts with the retry's first flag
      // create, not here (under a loaded CI machine the retry's engine can take longer than any
      // fixed delay to reach its first create), and it stays well under the client's 30 s request
      // timeout: a flag answer held past it is a create of unknown outcome, which the provider
      // looks up, finds (the killed run made it) and records, so the retry would succeed. It
      // fires when the retry creates fewer groups than the killed run left unrecorded (a group
      // whose answer reached the killed run's provider is carried over as pending, not created
      // again), and by then the retry's group creates, answered at once, are done.
      const firstFlag = signal();
      const flagsLate = Promise.race([
        groupsDone.promise.then(() => sleep(500)),
        firstFlag.promise.then(() => sleep(10_000)),
      ]);
      for (let i = 0; i < FLAGS; i++) {
        bed.proxy.script({
          method: "POST",
          path: /\/splits\/ws\/[^/]+\/trafficTypes\//,
          action: { answered: firstFlag.fire, until: flagsLate },
        });
      }
      const retry = await bed.s.up().then(
        () => "succeeded",
        (e: unknown) => String(e),
      );
      // What the proxy forwarded, and each answer's status: why, if the retry did not fail.
      expect(retry, bed.proxy.log().join("\n")).toContain("already exists. Set `adopt: true`");
      expect(retry).toContain("run `npx flagstack recover`");
      const afterRetry = await bed.state();
      const recordedByRetry = new Set(afterRetry.deployment.resources.map((r) => r.urn));
      const stillPending = (afterRetry.deployment.pending_operations ?? []).map((op) => op.resource.urn);
      // The retry carried the killed run's pending creates over, and recorded some of them itself.
      expect(stillPending.length).toBeGreaterThanOrEqual(2);
      expect(stillPending.some((urn) => recordedByRetry.has(urn))).toBe(true);
      // The history has the failed retry alone (the killed run wrote none): recover must not take
      // it for the interrupted run. (The file backend keeps no old version to export, so recover
      // compares with the last update that succeeded: none here.)
      const history = JSON.parse((await bed.s.cli(["stack", "history", "--json"])).stdout) as {
        result: string;
      }[];
      expect(history.map((h) => h.result)).toEqual(["failed"]);

      const out = await bed.recover();
      expect(out).not.toContain("kept pending");
      expect(out).toContain("a later update already recorded it");
      expect(out).toContain("refreshed: the state now holds what the services hold");

      const recovered = await bed.state();
      expect(recovered.deployment.pending_operations).toBeUndefined();
      const urns = recovered.deployment.resources.map((r) => r.urn);
      expect(new Set(urns).size).toBe(urns.length);

      const { result } = await bed.s.up();
      expect(result.summary.result).toBe("succeeded");
      const preview = await bed.s.preview();
      expect(preview.result.changeSummary).toEqual({ same: FLAGS + GROUPS + 1 });
      const { admin } = clients(bed.s.emu);
      expect(await flagNames(admin)).toEqual(Array.from({ length: FLAGS }, (_, i) => `ci-flag-${i}`).sort());
      expect(await groupNames(admin)).toEqual(
        Array.from({ length: GROUPS }, (_, i) => `ci-group-${i}`).sort(),
      );
      expect((await bed.state()).deployment.pending_operations).toBeUndefined();

      expect((await bed.s.destroy()).result.summary.result).toBe("succeeded");
      expect(await flagNames(admin)).toEqual([]);
      expect(await groupNames(admin)).toEqual([]);
    }, 150_000);
  });
});
