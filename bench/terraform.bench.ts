/**
 * The Terraform door's start-up (issue 26): OpenTofu and Terraform start the provider several times
 * per command (three for a `plan`: the schema, the validate walk, the plan walk), so each start is
 * paid each time.
 *
 * Figures (medians of `runs` starts: 7, quick 3), each start as OpenTofu makes it: the launcher
 * `bin/terraform-provider-flagstack` spawned with the magic cookie and a client certificate
 * (AutoMTLS), timed from spawn:
 * - `tofu_provider_handshake_ms`: until the handshake line is on stdout;
 * - `tofu_provider_start_ms` (goal ≤ 500 ms): until `GetProviderSchema` has answered over mTLS,
 *   the first request of every start;
 * - `tofu_binary_start_ms` (goal ≤ 300 ms): the same for the provider binary (`npm run release
 *   -- --binaries-only`, this machine's platform), started alternately with the launcher;
 * - `provider_binary_<platform>_mb` and `provider_zip_<platform>_mb`: the binary's and its
 *   Terraform zip's sizes, for this machine's platform (quick) or every released one.
 * The machine's load average is logged beside them (a shared machine's load inflates wall time).
 *
 * Then the 800-resource workload of `./up.bench.ts` (200 flags, each with a definition in 3
 * environments; quick mode: 5 flags, 20 resources) with the real OpenTofu (`../test/e2e/tofu.ts`),
 * each command timed from spawn to exit:
 * - `tofu_apply_800_seconds`, `tofu_apply_800_requests` (accepted), `tofu_apply_800_429s`,
 *   `tofu_apply_800_failed_resources` (goal 0) and `tofu_apply_800_ratio` = wall / (requests /
 *   20) (goal ≤ 1.10): `tofu apply` of the whole configuration with the emulator limited to 20
 *   requests per second and the provider configured for it (`requests_per_second = 20`), its
 *   plan walk included, as a user runs it;
 * - `tofu_plan_unchanged_seconds` (goal ≤ 3.1 s, the peer's measured here) and
 *   `tofu_plan_unchanged_requests` (goal 0): `tofu plan -refresh=false` of the applied stack;
 *   `tofu_plan_unchanged_seconds_binary` (goal: no slower than the launcher's), the same plan of
 *   the same state with the provider binary installed from the release's filesystem mirror, each
 *   the fastest of interleaved rounds;
 * - `tofu_plan_refresh_800_seconds_unlimited` and `tofu_plan_refresh_800_seconds` (the peer:
 *   6.3 s with no limit, 45-47 s under it), `tofu_plan_refresh_800_requests`, and
 *   `tofu_plan_refresh_800_limit_ratio` = limited / unlimited (goal ≤ 1.2): the default, refreshing
 *   `plan`, with no server limit and the provider's own limit off, then limited; each the fastest of
 *   {@link ROUNDS} rounds, so the machine's other load counts as little as it can on both sides;
 * - `tofu_destroy_800_requests` (all, the refresh's reads included), `tofu_destroy_800_deletes`
 *   (goal about 200: one per flag) and `tofu_destroy_800_seconds`: `tofu destroy`, no limit;
 *   `tofu_destroy_800_silence_ms`, the longest time with no request before the first DELETE.
 * - `tofu_plan_unchanged_provider_cpu_seconds`: the provider processes' CPU (user + system, all
 *   the processes of the command, through `./provider-cpu.cjs`) beside the first
 *   `plan -refresh=false`'s wall time.
 *
 * Then the same workload in other configuration shapes (`./terraform-shapes.ts`), each on an
 * emulator of its own, by {@link shapeFigures}: `tofu_for_each_800_*`, the reference `for_each`
 * shape (the Go peer's own: goal for `plan_unchanged_seconds` ≤ 3.8 s, the peer's median on this
 * machine; `plan_unchanged_seconds_binary` is the same plan by the provider binary, the form the
 * release ships and the peer runs in), and `tofu_modules_800_*` and (full runs) `tofu_modules_4000_*`, the shape that stays
 * linear at thousands of flags (goals at 4,000: `apply_ratio` ≤ 1.2, `plan_unchanged_seconds`
 * within 5× the 800's; at 800: `destroy_ratio` ≤ 1.2).
 *
 * Needs the build (`dist/`): the launcher runs the compiled provider.
 * @module
 */
import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import * as grpc from "@grpc/grpc-js";
import { startEmulator } from "../emulator";
import { serverCertificate } from "../provider/terraform/cert";
import { MAGIC_COOKIE_KEY, MAGIC_COOKIE_VALUE } from "../provider/terraform/plugin";
import { loadServices } from "../provider/terraform/protocol";
import { clients, defaultWorkspaceId } from "../test/e2e/fixtures";
import { REPO_ROOT, type RequestRecord } from "../test/e2e/harness";
import { releaseBinaries, THIS_PLATFORM, TofuDir, type TofuRun } from "../test/e2e/tofu";
import type { BenchContext } from "./run";
import { resourcesOf, SCALING_SHAPE, type Shape, shapeFiles } from "./terraform-shapes";
import { ENVIRONMENTS, LIMIT, UNLIMITED } from "./up.bench";

/** Rounds of the two refreshing plans (unlimited, limited); each figure is the fastest of its rounds. */
const ROUNDS = 2;

/** Rounds of a shape's `plan -refresh=false` ({@link shapeFigures}); each figure is their median. */
const PLAN_ROUNDS = 5;

/**
 * Rounds of a shape's `destroy` under the limit at 800 resources ({@link shapeFigures}; one at
 * 4,000): one destroy's wall time varies by several percent from run to run on this machine.
 */
const DESTROY_ROUNDS = 3;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

/** How the Node launcher is started (what `flagstack terraform install` writes runs this). */
const LAUNCHER = [process.execPath, join(REPO_ROOT, "bin", "terraform-provider-flagstack")];

/** One start of `command`: spawn → handshake line → GetProviderSchema answered; the child is killed after. */
export async function start(
  command: readonly string[] = LAUNCHER,
): Promise<{ handshake: number; schema: number }> {
  const client = serverCertificate();
  const started = performance.now();
  const child = spawn(command[0] as string, command.slice(1), {
    env: {
      ...process.env,
      [MAGIC_COOKIE_KEY]: MAGIC_COOKIE_VALUE,
      PLUGIN_PROTOCOL_VERSIONS: "5,6",
      PLUGIN_CLIENT_CERT: client.certPem,
    },
    stdio: ["pipe", "pipe", "inherit"],
  });
  try {
    const line = await new Promise<string>((resolve, reject) => {
      let text = "";
      child.stdout.on("data", (d: Buffer) => {
        text += String(d);
        if (text.includes("\n")) resolve(text.trim());
      });
      child.once("exit", (code) => reject(new Error(`the provider exited (${code}) before its handshake`)));
    });
    const handshake = performance.now() - started;
    const [, , , address, , cert] = line.split("|");
    const serverPem = `-----BEGIN CERTIFICATE-----\n${Buffer.from(cert as string, "base64").toString("base64")}\n-----END CERTIFICATE-----\n`;
    const services = loadServices();
    const credentials = grpc.credentials.createSsl(
      Buffer.from(serverPem),
      Buffer.from(client.keyPem),
      Buffer.from(client.certPem),
    );
    const connect = (service: grpc.ServiceDefinition, name: string) =>
      new (grpc.makeGenericClientConstructor(service, name))(address as string, credentials, {
        "grpc.ssl_target_name_override": "localhost",
      }) as unknown as Record<string, (req: unknown, cb: (e: unknown) => void) => void> & grpc.Client;
    const c = connect(services.provider, "Provider");
    await new Promise<void>((resolve, reject) =>
      c.GetProviderSchema?.({}, (e) => (e ? reject(e) : resolve())),
    );
    const schema = performance.now() - started;
    c.close();
    // Ended as Terraform ends it, by the controller's Shutdown (the binary keeps its code cache then).
    const exited = new Promise((resolve) => child.once("exit", resolve));
    const controller = connect(services.controller, "GRPCController");
    await new Promise<void>((resolve) => controller.Shutdown?.({}, () => resolve()));
    controller.close();
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 2000))]);
    return { handshake, schema };
  } finally {
    child.kill();
  }
}

/**
 * The workload of `./up.bench.ts` in HCL, each resource a block of its own (`./terraform-shapes.ts`
 * `blocks`; the other shapes are measured by {@link shapeFigures}).
 */
export function workload(flags: number): string {
  return shapeFiles("blocks", flags)["main.tf"] as string;
}

const seconds = (ms: number) => Math.round(ms) / 1000;
const ratio = (a: number, b: number) => Math.round((a / b) * 1000) / 1000;
const accepted = (requests: RequestRecord[]) => requests.filter((r) => r.status !== 429);

/** Runs a tofu command that must succeed. */
async function must(t: TofuDir, args: string[]): Promise<TofuRun> {
  const r = await t.tf(args);
  if (r.code !== 0 && !(args.includes("-detailed-exitcode") && r.code === 2))
    throw new Error(`tofu ${args.join(" ")} exited ${r.code}:\n${r.out.slice(-4000)}`);
  return r;
}

/** Writes a shape's files into the directory (`./terraform-shapes.ts`). */
function writeShape(t: TofuDir, shape: Shape, flags: number): void {
  for (const [path, text] of Object.entries(shapeFiles(shape, flags))) {
    mkdirSync(dirname(join(t.dir, path)), { recursive: true });
    t.write(text, path);
  }
}

/**
 * Records the CPU time of each provider process OpenTofu starts in `t` from now on (the Node
 * launcher, preloaded with `./provider-cpu.cjs`); {@link providerCpu} reads and clears it.
 */
function recordProviderCpu(t: TofuDir): void {
  t.env.NODE_OPTIONS = `--require ${join(__dirname, "provider-cpu.cjs")}`;
  t.env.FLAGSTACK_BENCH_CPU_FILE = join(t.dir, "provider-cpu.jsonl");
}

/** The provider processes' CPU seconds (user + system) since the last call, and how many there were. */
function providerCpu(t: TofuDir): { seconds: number; processes: number } {
  const file = t.env.FLAGSTACK_BENCH_CPU_FILE;
  if (file === undefined || !existsSync(file)) return { seconds: 0, processes: 0 };
  const lines = readFileSync(file, "utf8").split("\n").filter(Boolean);
  rmSync(file);
  const ms = lines
    .map((l) => JSON.parse(l) as { user: number; system: number })
    .reduce((sum, p) => sum + p.user + p.system, 0);
  return { seconds: Math.round(ms) / 1000, processes: lines.length };
}

/**
 * A destroy's requests: the reads (the refresh), the deletes, and the silence before the first
 * DELETE (the longest time with no request from the first request to the first DELETE: OpenTofu's
 * walks of the shape, and whatever the provider holds), with the wall time over the floor the
 * limit sets for them.
 */
function destroyShape(run: TofuRun, limit: number): Record<string, number> {
  const deletes = run.requests.filter((r) => r.method === "DELETE");
  const firstDelete = Math.min(...deletes.map((r) => r.at));
  const before = run.requests
    .map((r) => r.at)
    .filter((at) => at <= firstDelete)
    .sort((a, b) => a - b);
  let silence = 0;
  for (let i = 1; i < before.length; i++)
    silence = Math.max(silence, (before[i] as number) - (before[i - 1] as number));
  const reads = run.requests.filter((r) => r.method === "GET");
  return {
    seconds: seconds(run.ms),
    requests: run.requests.length,
    deletes: deletes.length,
    silence_ms: Math.round(silence),
    ratio: ratio(run.ms / 1000, (reads.length + deletes.length) / limit),
  };
}

/**
 * The workload in `shape` at `flags` flags (`./terraform-shapes.ts`), on an emulator of its own,
 * figures named `<prefix>_...`:
 * - `apply_seconds`, `apply_requests`, `apply_ratio` (wall / (accepted requests / 20)) and
 *   `apply_first_request_seconds`: `tofu apply` from empty under the limit, the provider
 *   configured for it;
 * - `plan_unchanged_seconds` and `plan_unchanged_provider_cpu_seconds`: `tofu plan
 *   -refresh=false` of the applied stack, no limit, the medians of {@link PLAN_ROUNDS} rounds, the
 *   provider's CPU (all its processes, user + system) beside the wall time, and
 *   `provider_cpu_ms_per_resource` from it; with the release's mirror,
 *   `plan_unchanged_seconds_binary`, the same plan by the provider binary, its rounds interleaved
 *   with the launcher's;
 * - `plan_refresh_seconds`, `plan_refresh_requests`: a refreshing `plan` under the limit;
 * - `destroy_seconds`, `destroy_requests`, `destroy_deletes`, `destroy_silence_ms` and
 *   `destroy_ratio` (wall / ((reads + DELETEs) / 20)): `tofu destroy` under the limit
 *   ({@link destroyShape}), the round with the median ratio of `destroyRounds`.
 */
async function shapeFigures(
  shape: Shape,
  flags: number,
  prefix: string,
  log: BenchContext["log"],
  mirror?: string,
  destroyRounds = DESTROY_ROUNDS,
): Promise<Record<string, number>> {
  const resources = resourcesOf(shape, flags);
  const emu = await startEmulator({ port: 0 });
  let t: TofuDir | undefined;
  try {
    const { admin } = clients(emu);
    await admin.environments.create(await defaultWorkspaceId(admin), {
      name: "Development",
      production: false,
    });
    t = TofuDir.open(emu);
    writeShape(t, shape, flags);
    await must(t, ["init", "-input=false"]);
    recordProviderCpu(t);
    const figures: Record<string, number> = {};
    const put = (name: string, value: number) => {
      figures[`${prefix}_${name}`] = value;
    };
    const limited = `-var=requests_per_second=${LIMIT}`;

    emu.setRateLimit({ requestsPerSecond: LIMIT });
    log(`${prefix}: tofu apply of ${resources} resources (${shape}) under ${LIMIT} requests/s`);
    const started = Date.now();
    const apply = await must(t, ["apply", "-input=false", "-auto-approve", limited]);
    const ok = accepted(apply.requests).length;
    const added = Number(/Resources: (\d+) added/.exec(apply.out)?.[1] ?? 0);
    if (added !== resources) throw new Error(`${prefix}: the apply added ${added} of ${resources} resources`);
    put("apply_seconds", seconds(apply.ms));
    put("apply_requests", ok);
    put("apply_ratio", ratio(apply.ms / 1000, ok / LIMIT));
    put("apply_first_request_seconds", seconds(Math.min(...apply.requests.map((r) => r.at)) - started));
    log(
      `${prefix}: apply ${seconds(apply.ms)} s for ${ok} requests (floor ${ok / LIMIT} s), ratio ${figures[`${prefix}_apply_ratio`]}, first request after ${figures[`${prefix}_apply_first_request_seconds`]} s`,
    );
    providerCpu(t);

    emu.setRateLimit(null);
    const walls: number[] = [];
    const cpus: number[] = [];
    // With the release's mirror, the same plan by the provider binary (what `terraform init`
    // installs from it, the Go peer's own form) on a copy of the directory, round by round after
    // the launcher's, so that both see the machine alike.
    const binary = mirror === undefined ? undefined : await binaryCopy(t, mirror);
    const binaryWalls: number[] = [];
    const plan = async (dir: TofuDir) => {
      const run = await must(dir, ["plan", "-input=false", "-refresh=false", "-detailed-exitcode"]);
      if (run.code !== 0 || run.requests.length !== 0)
        throw new Error(
          `${prefix}: plan -refresh=false found changes or sent requests:\n${run.out.slice(-4000)}`,
        );
      return run.ms;
    };
    try {
      for (let round = 0; round < PLAN_ROUNDS; round++) {
        walls.push(await plan(t));
        cpus.push(providerCpu(t).seconds);
        if (binary !== undefined) binaryWalls.push(await plan(binary));
      }
    } finally {
      binary?.close();
    }
    put("plan_unchanged_seconds", seconds(median(walls)));
    put("plan_unchanged_provider_cpu_seconds", median(cpus));
    put("provider_cpu_ms_per_resource", Math.round((median(cpus) / resources) * 1e5) / 100);
    if (binary !== undefined) put("plan_unchanged_seconds_binary", seconds(median(binaryWalls)));
    log(
      `${prefix}: plan -refresh=false ${walls.map((w) => seconds(w)).join(", ")} s, provider CPU ${cpus.join(", ")} s (${figures[`${prefix}_provider_cpu_ms_per_resource`]} ms per resource)${binary === undefined ? "" : `; the binary ${binaryWalls.map((w) => seconds(w)).join(", ")} s`}; load ${loadAverage()}`,
    );

    emu.setRateLimit({ requestsPerSecond: LIMIT });
    const refresh = await must(t, ["plan", "-input=false", "-detailed-exitcode", limited]);
    if (refresh.code !== 0) throw new Error(`${prefix}: the refreshing plan found changes`);
    put("plan_refresh_seconds", seconds(refresh.ms));
    put("plan_refresh_requests", refresh.requests.length);
    providerCpu(t);

    // The destroy, `destroyRounds` times (the stack made again with no limit between rounds): its
    // figures are those of the round with the median ratio.
    const destroys: Record<string, number>[] = [];
    for (let round = 0; round < destroyRounds; round++) {
      if (round > 0) {
        emu.setRateLimit(null);
        const again = await must(t, ["apply", "-input=false", "-auto-approve"]);
        if (!again.out.includes(`Resources: ${resources} added`))
          throw new Error(`${prefix}: the stack was not made again:\n${again.out.slice(-4000)}`);
        emu.setRateLimit({ requestsPerSecond: LIMIT });
      }
      const destroy = await must(t, ["destroy", "-input=false", "-auto-approve", limited]);
      const shaped = destroyShape(destroy, LIMIT);
      destroys.push(shaped);
      log(
        `${prefix}: destroy ${shaped.seconds} s, ${shaped.requests} requests (${shaped.deletes} DELETEs), silence before the first DELETE ${shaped.silence_ms} ms, ratio ${shaped.ratio}`,
      );
    }
    const middle = [...destroys].sort((a, b) => (a.ratio as number) - (b.ratio as number))[
      destroys.length >> 1
    ];
    for (const [name, value] of Object.entries(middle ?? {})) put(`destroy_${name}`, value);
    return figures;
  } finally {
    t?.close();
    await emu.stop();
  }
}

/**
 * A copy of `t` (its configuration files and state) served by the provider binary from the
 * release's `mirror` instead of the Node launcher, `init` run.
 */
async function binaryCopy(t: TofuDir, mirror: string): Promise<TofuDir> {
  const copy = TofuDir.open(t.emu, { mirror });
  try {
    for (const file of ["main.tf", "flag/main.tf", "terraform.tfstate"]) {
      if (!existsSync(join(t.dir, file))) continue;
      mkdirSync(dirname(join(copy.dir, file)), { recursive: true });
      copy.write(readFileSync(join(t.dir, file), "utf8"), file);
    }
    await must(copy, ["init", "-input=false"]);
    return copy;
  } catch (e) {
    copy.close();
    throw e;
  }
}

const loadAverage = () => readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");

/** The 800-resource workload with the real OpenTofu (see the module notes). */
async function workloadFigures(
  quick: boolean,
  log: BenchContext["log"],
  mirror: string,
): Promise<Record<string, number>> {
  const flags = quick ? 5 : 200;
  const resources = flags * (1 + ENVIRONMENTS.length);
  const emu = await startEmulator({ port: 0 });
  let t: TofuDir | undefined;
  try {
    const { admin } = clients(emu);
    await admin.environments.create(await defaultWorkspaceId(admin), {
      name: "Development",
      production: false,
    });
    t = TofuDir.open(emu);
    t.write(workload(flags));
    await must(t, ["init", "-input=false"]);
    recordProviderCpu(t);
    const figures: Record<string, number> = {};
    const rate = (r: string) => `-var=requests_per_second=${r}`;

    // 1. apply under the limit.
    emu.setRateLimit({ requestsPerSecond: LIMIT });
    log(`tofu apply of ${resources} resources under ${LIMIT} requests/s`);
    const apply = await must(t, ["apply", "-input=false", "-auto-approve", rate(String(LIMIT))]);
    const added = Number(/Resources: (\d+) added/.exec(apply.out)?.[1] ?? 0);
    const ok = accepted(apply.requests).length;
    figures.tofu_apply_800_seconds = seconds(apply.ms);
    figures.tofu_apply_800_requests = ok;
    figures.tofu_apply_800_429s = apply.requests.length - ok;
    figures.tofu_apply_800_ratio = ratio(apply.ms / 1000, ok / LIMIT);
    figures.tofu_apply_800_failed_resources = resources - added;
    const first = Math.min(...apply.requests.map((r) => r.at));
    const last = Math.max(...apply.requests.map((r) => r.at));
    log(
      `tofu apply: ${figures.tofu_apply_800_seconds} s for ${ok} requests (floor ${ok / LIMIT} s), ratio ${figures.tofu_apply_800_ratio}, ${figures.tofu_apply_800_429s} refused; requests over ${seconds(last - first)} s`,
    );

    // 2. plan without refresh.
    emu.setRateLimit(null);
    providerCpu(t);
    const unchanged = await must(t, [
      "plan",
      "-input=false",
      "-refresh=false",
      "-detailed-exitcode",
      rate(UNLIMITED),
    ]);
    if (unchanged.code !== 0)
      throw new Error(`tofu plan -refresh=false found changes:\n${unchanged.out.slice(-4000)}`);
    figures.tofu_plan_unchanged_seconds = seconds(unchanged.ms);
    figures.tofu_plan_unchanged_requests = unchanged.requests.length;
    figures.tofu_plan_unchanged_provider_cpu_seconds = providerCpu(t).seconds;
    log(
      `tofu plan -refresh=false: ${figures.tofu_plan_unchanged_seconds} s, ${unchanged.requests.length} requests, provider CPU ${figures.tofu_plan_unchanged_provider_cpu_seconds} s`,
    );
    // The same plan with the provider binary from the release's mirror, on the same state: the
    // binary's goal is to be no slower than the Node launcher. Each the fastest of ROUNDS, interleaved.
    const withBinary = await binaryCopy(t, mirror);
    try {
      const args = ["plan", "-input=false", "-refresh=false", "-detailed-exitcode", rate(UNLIMITED)];
      let launcherBest = unchanged.ms;
      let binaryBest = Number.POSITIVE_INFINITY;
      for (let round = 0; round < ROUNDS; round++) {
        const b = await must(withBinary, args);
        if (b.code !== 0 || b.requests.length !== 0)
          throw new Error(
            `the binary's plan -refresh=false found changes or sent requests:\n${b.out.slice(-4000)}`,
          );
        binaryBest = Math.min(binaryBest, b.ms);
        launcherBest = Math.min(launcherBest, (await must(t, args)).ms);
      }
      figures.tofu_plan_unchanged_seconds = seconds(launcherBest);
      figures.tofu_plan_unchanged_seconds_binary = seconds(binaryBest);
      log(
        `tofu plan -refresh=false, fastest of ${ROUNDS + 1}/${ROUNDS}: Node launcher ${figures.tofu_plan_unchanged_seconds} s, binary ${figures.tofu_plan_unchanged_seconds_binary} s`,
      );
    } finally {
      withBinary.close();
    }

    // 3. refreshing plans, unlimited then limited, ROUNDS rounds.
    const best = { free: Number.POSITIVE_INFINITY, limited: Number.POSITIVE_INFINITY };
    let refused = 0;
    for (let round = 1; round <= ROUNDS; round++) {
      emu.setRateLimit(null);
      const free = await must(t, ["plan", "-input=false", "-detailed-exitcode", rate(UNLIMITED)]);
      if (free.code !== 0) throw new Error(`the refreshing plan found changes:\n${free.out.slice(-4000)}`);
      best.free = Math.min(best.free, free.ms);
      figures.tofu_plan_refresh_800_requests = free.requests.length;
      if (round === 1)
        for (const r of free.requests)
          if (!/offset=/.test(r.query) || r.status !== 200)
            log(`  refreshing plan: ${r.method} ${r.path}?${r.query} ${r.status}`);
      emu.setRateLimit({ requestsPerSecond: LIMIT });
      const limited = await must(t, ["plan", "-input=false", "-detailed-exitcode", rate(String(LIMIT))]);
      best.limited = Math.min(best.limited, limited.ms);
      refused += limited.requests.filter((r) => r.status === 429).length;
      log(
        `round ${round}: refreshing plan ${seconds(free.ms)} s (${free.requests.length} requests), under ${LIMIT} requests/s ${seconds(limited.ms)} s (${limited.requests.length} requests)`,
      );
    }
    figures.tofu_plan_refresh_800_seconds_unlimited = seconds(best.free);
    figures.tofu_plan_refresh_800_seconds = seconds(best.limited);
    figures.tofu_plan_refresh_800_limit_ratio = ratio(best.limited, best.free);
    figures.tofu_plan_refresh_800_limited_429s = refused;

    // 4. destroy, no limit.
    emu.setRateLimit(null);
    const destroy = await must(t, ["destroy", "-input=false", "-auto-approve", rate(UNLIMITED)]);
    figures.tofu_destroy_800_seconds = seconds(destroy.ms);
    figures.tofu_destroy_800_requests = destroy.requests.length;
    figures.tofu_destroy_800_deletes = destroy.requests.filter((r) => r.method === "DELETE").length;
    figures.tofu_destroy_800_silence_ms = destroyShape(destroy, LIMIT).silence_ms as number;
    log(
      `tofu destroy: ${figures.tofu_destroy_800_seconds} s, ${destroy.requests.length} requests, ${figures.tofu_destroy_800_deletes} DELETEs, ${figures.tofu_destroy_800_silence_ms} ms from the last read to the first`,
    );
    return figures;
  } finally {
    t?.close();
    await emu.stop();
  }
}

/**
 * The provider binary (`npm run release -- --binaries-only`): this machine's platform in quick
 * mode, every released platform otherwise; the executables' and zips' sizes in MB.
 */
function binaryFigures(
  quick: boolean,
  out: string,
): { figures: Record<string, number>; binary: string; mirror: string } {
  const { version } = JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8")) as {
    version: string;
  };
  const host = THIS_PLATFORM;
  const platforms = quick ? [host] : ["linux_amd64", "linux_arm64", "darwin_amd64", "windows_amd64"];
  const { mirror } = releaseBinaries(out, platforms);
  const figures: Record<string, number> = {};
  const mb = (bytes: number) => Math.round(bytes / 1e5) / 10;
  for (const p of platforms) {
    const zip = join(out, `terraform-provider-flagstack_${version}_${p}.zip`);
    figures[`provider_zip_${p}_mb`] = mb(statSync(zip).size);
    const listing = execFileSync("unzip", ["-Zl", zip], { encoding: "utf8" });
    figures[`provider_binary_${p}_mb`] = mb(
      Number(
        /^\S+\s+\S+\s+\S+\s+(\d+)/m.exec(
          listing.split("\n").find((l) => l.includes("terraform-provider-flagstack_v")) ?? "",
        )?.[1] ?? 0,
      ),
    );
  }
  const binary = join(out, "unpacked", `terraform-provider-flagstack_v${version}`);
  execFileSync("unzip", [
    "-q",
    "-o",
    join(out, `terraform-provider-flagstack_${version}_${host}.zip`),
    "-d",
    join(out, "unpacked"),
  ]);
  return { figures, binary, mirror };
}

export async function run({ quick, log }: BenchContext): Promise<Record<string, number>> {
  const runs = quick ? 3 : 7;
  const out = mkdtempSync(join(tmpdir(), "flagstack-bench-release-"));
  try {
    const release = binaryFigures(quick, out);
    const handshakes: number[] = [];
    const schemas: number[] = [];
    const binarySchemas: number[] = [];
    // One start of each first: the launcher's Node compile cache and the binary's V8 cache are
    // made by a machine's first start, which a user pays once.
    await start();
    await start([release.binary]);
    for (let i = 0; i < runs; i++) {
      const r = await start();
      handshakes.push(r.handshake);
      schemas.push(r.schema);
      binarySchemas.push((await start([release.binary])).schema);
    }
    log(
      `terraform: provider start ${schemas.map((x) => x.toFixed(0)).join(", ")} ms (Node launcher), ${binarySchemas.map((x) => x.toFixed(0)).join(", ")} ms (binary); load ${readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ")}`,
    );
    log(`terraform: release sizes (MB) ${JSON.stringify(release.figures)}`);
    return {
      tofu_provider_handshake_ms: Math.round(median(handshakes)),
      tofu_provider_start_ms: Math.round(median(schemas)),
      tofu_binary_start_ms: Math.round(median(binarySchemas)),
      ...release.figures,
      ...(await workloadFigures(quick, log, release.mirror)),
      // The reference `for_each` shape (the Go peer's own) and the shape that scales, at 800
      // resources and (full runs) 4,000 (`./terraform-shapes.ts`, docs/terraform.md).
      ...(await shapeFigures("for_each", quick ? 5 : 200, "tofu_for_each_800", log, release.mirror)),
      // The module shape with a definition resource per environment, as measured before the
      // scaling shape held them in one resource per flag.
      ...(await shapeFigures("modules", quick ? 5 : 200, "tofu_modules_800", log, release.mirror)),
      ...(await shapeFigures(
        SCALING_SHAPE,
        quick ? 5 : 200,
        `tofu_${SCALING_SHAPE}_800`,
        log,
        release.mirror,
      )),
      ...(quick
        ? {}
        : await shapeFigures(SCALING_SHAPE, 1000, `tofu_${SCALING_SHAPE}_4000`, log, undefined, 1)),
    };
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}
