/**
 * The provider binary (`npm run release`, `scripts/release-binary.mts`) installed the way the
 * field installs providers, on a PATH **without `node`** and in directories outside the
 * repository that hold only what the docs install:
 *
 * - Terraform/OpenTofu from the release's filesystem mirror (`provider_installation {
 *   filesystem_mirror }`): `init`; `validate` of a bad input names the field; `apply`; a
 *   `plan -refresh=false` with no change sends 0 requests; a one-field change sends 1 PATCH;
 *   `import` of a flag made outside; a create that meets a flag a killed run made names the
 *   binary's own `recover` command, which writes the `import` block the next `apply` takes with no
 *   write; `destroy` leaves nothing;
 * - the same release directory served by a plain static HTTPS server on 127.0.0.1 as a network
 *   mirror (`network_mirror`): `init` installs it and records the release's `h1:` hash in
 *   `.terraform.lock.hcl`, and a second `init` in a fresh directory with that lock file accepts it;
 * - Pulumi: `pulumi plugin install resource flagstack <version> --file <tarball>`, and the same
 *   from a static HTTP server of the release (`--server`, what a `pluginDownloadURL` names), then a
 *   YAML program: `up`, a preview that sends 0 requests, `destroy`.
 *
 * The release is built once (`--binaries-only --platforms` this machine's platform).
 */
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { createServer as createHttpServer } from "node:http";
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, normalize } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SOURCE_ADDRESS } from "../../cli/terraform-command";
import { type Emulator, startEmulator } from "../../emulator";
import { serverCertificate } from "../../provider/terraform/cert";
import { clients, defaultWorkspaceId, flagNames } from "./fixtures";
import { apiRequests, engineEnv, pulumiCli, REPO_ROOT } from "./harness";
import { releaseBinaries, THIS_PLATFORM, tofuBinary } from "./tofu";

const execFileAsync = promisify(execFile);
const VERSION = (JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8")) as { version: string })
  .version;
const PLATFORM = THIS_PLATFORM;
const SOURCE = SOURCE_ADDRESS;

/** The configuration every Terraform directory starts from (the docs' first example's shape). */
const CONFIG = (flags: string) => `terraform {
  required_providers {
    flagstack = {
      source  = "${SOURCE}"
      version = "${VERSION}"
    }
  }
}

provider "flagstack" {
  # admin_api_url and admin_api_key from FLAGSTACK_ADMIN_API_URL and FLAGSTACK_ADMIN_API_KEY
}
${flags}`;

const FLAG = (label: string, name: string, description: string) => `
resource "flagstack_flag" "${label}" {
  workspace    = "Default"
  name         = "${name}"
  traffic_type = "user"
  description  = "${description}"
}
`;

interface Ran {
  code: number;
  out: string;
}

describe("the provider binary, installed without Node", () => {
  let dir: string;
  let release: string;
  let bin: string;
  let emu: Emulator;
  let https: Server | undefined;
  const seconds: Record<string, number> = {};

  /** The environment of a command run as a Terraform or Pulumi user whose machine has no Node. */
  const userEnv = (home: string, extra: Record<string, string> = {}): Record<string, string> => ({
    PATH: bin,
    HOME: home,
    TF_IN_AUTOMATION: "1",
    CHECKPOINT_DISABLE: "1",
    FLAGSTACK_ADMIN_API_URL: emu.url,
    FLAGSTACK_ADMIN_API_KEY: emu.adminKey,
    FLAGSTACK_JOURNAL_DIR: join(home, "journal"),
    ...extra,
  });

  async function run(
    command: string,
    args: string[],
    cwd: string,
    env: Record<string, string>,
  ): Promise<Ran> {
    try {
      const r = await execFileAsync(command, args, { cwd, env, maxBuffer: 1 << 28 });
      return { code: 0, out: r.stdout + r.stderr };
    } catch (e) {
      const err = e as { code?: number; stdout?: string; stderr?: string };
      return {
        code: typeof err.code === "number" ? err.code : 1,
        out: (err.stdout ?? "") + (err.stderr ?? ""),
      };
    }
  }

  /** A new Terraform configuration directory with its CLI configuration. */
  function terraformDir(name: string, installation: string): { cwd: string; env: Record<string, string> } {
    const cwd = join(dir, name);
    mkdirSync(cwd, { recursive: true });
    writeFileSync(join(cwd, "cli.tfrc"), installation);
    return { cwd, env: userEnv(cwd, { TF_CLI_CONFIG_FILE: join(cwd, "cli.tfrc") }) };
  }

  const tofu = (cwd: string, env: Record<string, string>, ...args: string[]) =>
    run(join(bin, "tofu"), [...args, "-no-color"], cwd, env);

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "flagstack-binary-test-"));
    release = join(dir, "release");
    // The PATH of a machine with Terraform and Pulumi and no Node: links to those tools alone.
    bin = join(dir, "bin");
    mkdirSync(bin);
    symlinkSync(tofuBinary(), join(bin, "tofu"));
    const pulumi = (await pulumiCli()).command;
    for (const tool of ["pulumi", "pulumi-language-yaml"])
      symlinkSync(join(dirname(pulumi), tool), join(bin, tool));
    const start = performance.now();
    releaseBinaries(release);
    seconds.release = Math.round(performance.now() - start) / 1000;
    emu = await startEmulator({ port: 0 });
  });

  afterAll(async () => {
    await emu?.stop();
    await new Promise<void>((resolve) => (https ? https.close(() => resolve()) : resolve()));
    if (dir) rmSync(dir, { recursive: true, force: true });
    console.log(`provider binary test, seconds: ${JSON.stringify(seconds)}`);
  });

  it("the PATH the tests use has no node: the shell finds tofu and pulumi on it, and no node, npm or npx", async () => {
    expect(readdirSync(bin).sort()).toEqual(["pulumi", "pulumi-language-yaml", "tofu"]);
    const lookup = (name: string) => run("/bin/sh", ["-c", `command -v ${name}`], dir, { PATH: bin });
    expect((await lookup("tofu")).out.trim()).toBe(join(bin, "tofu"));
    for (const name of ["node", "npm", "npx"]) expect((await lookup(name)).code).not.toBe(0);
  });

  it("the release holds Terraform's zip, its SHA256SUMS and the mirror's files, and Pulumi's plugin tarball", () => {
    const zip = `terraform-provider-flagstack_${VERSION}_${PLATFORM}.zip`;
    const mirror = join(release, "terraform-mirror", ...SOURCE.split("/"));
    expect(JSON.parse(readFileSync(join(mirror, "index.json"), "utf8"))).toEqual({
      versions: { [VERSION]: {} },
    });
    const archives = (
      JSON.parse(readFileSync(join(mirror, `${VERSION}.json`), "utf8")) as {
        archives: Record<string, { url: string; hashes: string[] }>;
      }
    ).archives;
    expect(Object.keys(archives)).toEqual([PLATFORM]);
    expect(archives[PLATFORM]?.url).toBe(zip);
    expect(archives[PLATFORM]?.hashes).toHaveLength(1);
    expect(archives[PLATFORM]?.hashes[0]).toMatch(/^h1:[A-Za-z0-9+/]{43}=$/);
    expect(readFileSync(join(mirror, zip)).equals(readFileSync(join(release, zip)))).toBe(true);
    const sums = readFileSync(join(release, `terraform-provider-flagstack_${VERSION}_SHA256SUMS`), "utf8");
    const manifest = `terraform-provider-flagstack_${VERSION}_manifest.json`;
    expect(JSON.parse(readFileSync(join(release, manifest), "utf8"))).toEqual({
      version: 1,
      metadata: { protocol_versions: ["6.0"] },
    });
    expect(sums.split("\n").map((l) => l.replace(/^[0-9a-f]{64} {2}/, ""))).toEqual([zip, manifest, ""]);
    expect(
      existsSync(join(release, `pulumi-resource-flagstack-v${VERSION}-${PLATFORM.replace("_", "-")}.tar.gz`)),
    ).toBe(true);
  });

  it("Terraform from the filesystem mirror: init, a bad input named, apply, a plan of 0 requests, 1 PATCH, import, destroy", async () => {
    const { cwd, env } = terraformDir(
      "fs-mirror",
      `provider_installation {
  filesystem_mirror {
    path    = "${join(release, "terraform-mirror")}"
    include = ["${SOURCE}"]
  }
  direct {
    exclude = ["${SOURCE}"]
  }
}
`,
    );
    const { admin } = clients(emu);
    const ws = await defaultWorkspaceId(admin);
    writeFileSync(join(cwd, "main.tf"), CONFIG(FLAG("checkout", "Bad Name!", "x")));
    let r = await tofu(cwd, env, "init");
    expect(r.out).toContain(`Installed ${SOURCE} v${VERSION}`);
    expect(r.code).toBe(0);
    r = await tofu(cwd, env, "validate");
    expect(r.code).toBe(1);
    expect(r.out).toContain("on main.tf line");
    expect(r.out).toMatch(/name/);
    expect(r.out).not.toMatch(/pulumi|@pulumi/i);

    writeFileSync(
      join(cwd, "main.tf"),
      CONFIG(FLAG("checkout", "bin_checkout", "The checkout") + FLAG("search", "bin_search", "Search")),
    );
    let before = emu.requests().length;
    r = await tofu(cwd, env, "apply", "-auto-approve");
    expect(r.out).toContain("Apply complete! Resources: 2 added, 0 changed, 0 destroyed.");
    expect(
      apiRequests(emu.requests().slice(before))
        .filter((q) => q.method === "POST")
        .map((q) => q.path),
    ).toEqual([
      `/internal/api/v2/splits/ws/${ws}/trafficTypes/user`,
      `/internal/api/v2/splits/ws/${ws}/trafficTypes/user`,
    ]);

    before = emu.requests().length;
    let start = performance.now();
    r = await tofu(cwd, env, "plan", "-refresh=false", "-detailed-exitcode");
    seconds["plan -refresh=false"] = Math.round(performance.now() - start) / 1000;
    expect(r.code).toBe(0);
    expect(r.out).toContain("No changes.");
    expect(apiRequests(emu.requests().slice(before))).toEqual([]);

    writeFileSync(
      join(cwd, "main.tf"),
      CONFIG(FLAG("checkout", "bin_checkout", "The new checkout") + FLAG("search", "bin_search", "Search")),
    );
    before = emu.requests().length;
    r = await tofu(cwd, env, "apply", "-auto-approve", "-refresh=false");
    expect(r.out).toContain("Apply complete! Resources: 0 added, 1 changed, 0 destroyed.");
    expect(
      apiRequests(emu.requests().slice(before))
        .filter((q) => q.method !== "GET")
        .map((q) => `${q.method} ${q.path}`),
    ).toEqual([`PATCH /internal/api/v2/splits/ws/${ws}/bin_checkout`]);
    expect((await admin.flags.get(ws, "bin_checkout")).description).toBe("The new checkout");

    // A flag made outside Terraform, imported by its natural id.
    await admin.flags.create(ws, "user", { name: "bin_outside", description: "made by hand" });
    writeFileSync(
      join(cwd, "main.tf"),
      CONFIG(
        FLAG("checkout", "bin_checkout", "The new checkout") +
          FLAG("search", "bin_search", "Search") +
          FLAG("outside", "bin_outside", "made by hand") +
          `\nimport {\n  to = flagstack_flag.outside\n  id = "Default/bin_outside"\n}\n`,
      ),
    );
    before = emu.requests().length;
    r = await tofu(cwd, env, "apply", "-auto-approve");
    expect(r.out).toContain("Apply complete! Resources: 1 imported, 0 added, 0 changed, 0 destroyed.");
    expect(apiRequests(emu.requests().slice(before)).filter((q) => q.method !== "GET")).toEqual([]);

    // A flag the configuration declares that exists already (a killed apply made it): the create
    // fails naming this executable's recover command, which writes the import block the next apply
    // takes with no write.
    await admin.flags.create(ws, "user", { name: "bin_killed", description: "made by a killed run" });
    const config =
      FLAG("checkout", "bin_checkout", "The new checkout") +
      FLAG("search", "bin_search", "Search") +
      FLAG("outside", "bin_outside", "made by hand") +
      FLAG("killed", "bin_killed", "made by a killed run");
    writeFileSync(join(cwd, "main.tf"), CONFIG(config));
    // As OpenTofu runs it: relative to the configuration's directory, where the user runs the command.
    const installed = [
      ".terraform/providers",
      SOURCE,
      VERSION,
      PLATFORM,
      `terraform-provider-flagstack_v${VERSION}`,
    ].join("/");
    const binary = join(cwd, installed);
    r = await tofu(cwd, env, "apply", "-auto-approve");
    expect(r.code).toBe(1);
    expect(r.out.replace(/\s+/g, " ")).toContain(
      `run \`${installed} recover\` (or \`npx flagstack terraform recover\`)`,
    );
    r = await run(binary, ["recover", "--tofu", join(bin, "tofu")], cwd, env);
    expect(r.code).toBe(0);
    expect(readFileSync(join(cwd, "flagstack-recovered.tf"), "utf8")).toContain(
      'import {\n  to = flagstack_flag.killed\n  id = "Default/bin_killed"\n}',
    );
    before = emu.requests().length;
    r = await tofu(cwd, env, "apply", "-auto-approve");
    expect(r.out).toContain("Apply complete! Resources: 1 imported, 0 added, 0 changed, 0 destroyed.");
    expect(apiRequests(emu.requests().slice(before)).filter((q) => q.method !== "GET")).toEqual([]);

    start = performance.now();
    r = await tofu(cwd, env, "destroy", "-auto-approve");
    seconds.destroy = Math.round(performance.now() - start) / 1000;
    expect(r.out).toContain("Destroy complete! Resources: 4 destroyed.");
    expect((await flagNames(admin)).filter((n) => n.startsWith("bin_"))).toEqual([]);
  });

  it("Terraform from a network mirror on a static HTTPS server: init records the release's h1: hash, which a second init in a fresh directory accepts", async () => {
    const root = join(release, "terraform-mirror");
    const cert = serverCertificate();
    // A plain static file server: GET of a file under the mirror's root, typed by its extension; 404 otherwise.
    https = createServer({ cert: cert.certPem, key: cert.keyPem }, (req, res) => {
      const path = normalize(
        join(root, decodeURIComponent(new URL(req.url ?? "/", "https://localhost").pathname)),
      );
      if (!path.startsWith(root) || !existsSync(path) || req.method !== "GET") {
        res.writeHead(404).end();
        return;
      }
      // the protocol's documents are JSON, by their Content-Type, as any static server types them
      const type = path.endsWith(".json") ? "application/json" : "application/zip";
      res.writeHead(200, { "content-type": type }).end(readFileSync(path));
    });
    await new Promise<void>((resolve) => https?.listen(0, "127.0.0.1", resolve));
    const port = (https.address() as AddressInfo).port;
    const caFile = join(dir, "mirror-ca.pem");
    writeFileSync(caFile, cert.certPem);
    const installation = `provider_installation {
  network_mirror {
    url     = "https://localhost:${port}/"
    include = ["${SOURCE}"]
  }
  direct {
    exclude = ["${SOURCE}"]
  }
}
`;
    const first = terraformDir("net-mirror", installation);
    // Go's TLS trusts the certificates of SSL_CERT_FILE: the mirror's own, here.
    first.env.SSL_CERT_FILE = caFile;
    writeFileSync(join(first.cwd, "main.tf"), CONFIG(FLAG("checkout", "net_checkout", "x")));
    let r = await tofu(first.cwd, first.env, "init");
    expect(r.out).toContain(`Installed ${SOURCE} v${VERSION}`);
    expect(r.code).toBe(0);
    const expected = (
      JSON.parse(readFileSync(join(root, ...SOURCE.split("/"), `${VERSION}.json`), "utf8")) as {
        archives: Record<string, { hashes: string[] }>;
      }
    ).archives[PLATFORM]?.hashes[0] as string;
    const lock = readFileSync(join(first.cwd, ".terraform.lock.hcl"), "utf8");
    expect(lock).toContain(`provider "${SOURCE}" {`);
    expect(lock).toContain(`"${expected}"`);
    r = await tofu(first.cwd, first.env, "apply", "-auto-approve");
    expect(r.out).toContain("Apply complete! Resources: 1 added, 0 changed, 0 destroyed.");

    // A fresh directory with the same configuration and lock file (a colleague's checkout).
    const second = terraformDir("net-mirror-2", installation);
    second.env.SSL_CERT_FILE = caFile;
    copyFileSync(join(first.cwd, "main.tf"), join(second.cwd, "main.tf"));
    copyFileSync(join(first.cwd, ".terraform.lock.hcl"), join(second.cwd, ".terraform.lock.hcl"));
    r = await tofu(second.cwd, second.env, "init");
    expect(r.code).toBe(0);
    expect(readFileSync(join(second.cwd, ".terraform.lock.hcl"), "utf8")).toBe(lock);

    r = await tofu(first.cwd, first.env, "destroy", "-auto-approve");
    expect(r.out).toContain("Destroy complete! Resources: 1 destroyed.");
  });

  it("Pulumi: the plugin installed from its tarball; a YAML program's up, a preview of 0 requests, destroy", async () => {
    const home = join(dir, "pulumi-home");
    const backend = join(dir, "pulumi-backend");
    mkdirSync(backend, { recursive: true });
    const env = { ...engineEnv(home, backend), ...userEnv(dir), PULUMI_HOME: home };
    const pulumi = join(bin, "pulumi");
    const tarball = join(
      release,
      `pulumi-resource-flagstack-v${VERSION}-${PLATFORM.replace("_", "-")}.tar.gz`,
    );
    let r = await run(
      pulumi,
      ["plugin", "install", "resource", "flagstack", VERSION, "--file", tarball],
      dir,
      env,
    );
    expect(r.code).toBe(0);
    expect(
      existsSync(join(home, "plugins", `resource-flagstack-v${VERSION}`, "pulumi-resource-flagstack")),
    ).toBe(true);

    // The same tarball from a team's own server (the schema's `pluginDownloadURL`, `--server` by
    // hand): any static server of the release's files, plain HTTP here.
    const served = createHttpServer((req, res) => {
      const file = join(
        release,
        decodeURIComponent(new URL(req.url ?? "/", "http://localhost").pathname).slice(1),
      );
      if (dirname(file) !== release || !existsSync(file)) res.writeHead(404).end();
      else {
        // with its length, as static servers send files (Pulumi checks the bytes it got against it)
        const body = readFileSync(file);
        res.writeHead(200, { "content-type": "application/gzip", "content-length": body.length }).end(body);
      }
    });
    await new Promise<void>((resolve) => served.listen(0, "127.0.0.1", resolve));
    try {
      const otherHome = join(dir, "pulumi-home-served");
      const url = `http://127.0.0.1:${(served.address() as AddressInfo).port}/`;
      const got = await run(
        pulumi,
        ["plugin", "install", "resource", "flagstack", VERSION, "--server", url],
        dir,
        {
          ...env,
          PULUMI_HOME: otherHome,
        },
      );
      expect(got).toMatchObject({ code: 0 });
      // the same executable, compared by digest (a deep equality of 130 MB buffers runs out of memory)
      const digest = (h: string) =>
        createHash("sha256")
          .update(
            readFileSync(join(h, "plugins", `resource-flagstack-v${VERSION}`, "pulumi-resource-flagstack")),
          )
          .digest("hex");
      expect(digest(otherHome)).toBe(digest(home));
    } finally {
      await new Promise((resolve) => served.close(resolve));
    }

    const program = join(dir, "yaml");
    mkdirSync(program);
    writeFileSync(
      join(program, "Pulumi.yaml"),
      `name: checkout
runtime: yaml
resources:
  checkout:
    type: flagstack:index:Flag
    properties:
      workspace: Default
      name: yaml_bin_checkout
      trafficType: user
outputs:
  flagId: \${checkout.flagId}
`,
    );
    const cli = (...args: string[]) =>
      run(pulumi, [...args, "--non-interactive", "--color", "never"], program, env);
    expect((await cli("stack", "init", "dev")).code).toBe(0);
    expect((await cli("config", "set", "flagstack:adminApiUrl", emu.url)).code).toBe(0);
    expect((await cli("config", "set", "--secret", "flagstack:adminApiKey", emu.adminKey)).code).toBe(0);
    const { admin } = clients(emu);
    const ws = await defaultWorkspaceId(admin);
    r = await cli("up", "--yes");
    expect(r.out).toContain("2 created");
    expect(r.code).toBe(0);
    const flag = await admin.flags.get(ws, "yaml_bin_checkout");
    expect((await cli("stack", "output", "flagId")).out.trim()).toBe(flag.id);
    const before = emu.requests().length;
    r = await cli("preview");
    expect(r.code).toBe(0);
    expect(r.out).toContain("2 unchanged");
    expect(apiRequests(emu.requests().slice(before))).toEqual([]);
    r = await cli("destroy", "--yes");
    expect(r.out).toContain("2 deleted");
    expect((await flagNames(admin)).filter((n) => n.startsWith("yaml_bin_"))).toEqual([]);
  });
});
