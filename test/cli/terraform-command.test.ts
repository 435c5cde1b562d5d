/**
 * `flagstack terraform install`: the launcher in the unpacked filesystem-mirror layout
 * (`<dir>/<source address>/<version>/<os>_<arch>/terraform-provider-flagstack_v<version>`),
 * executable, running this package's plugin with the given Node.js; the CLI configuration that
 * names the mirror; Terraform's platform names.
 */
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { cliConfig, install, launcherScript, platformDir, SOURCE_ADDRESS } from "../../cli/terraform-command";

const root = join(__dirname, "..", "..");
const version = (JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { version: string }).version;
const dir = mkdtempSync(join(tmpdir(), "flagstack-tf-install-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("flagstack terraform install", () => {
  it("Terraform's platform names", () => {
    expect(platformDir("linux", "x64")).toBe("linux_amd64");
    expect(platformDir("darwin", "arm64")).toBe("darwin_arm64");
    expect(platformDir("win32", "x64")).toBe("windows_amd64");
  });

  it("the launcher execs the given Node.js on the package's plugin, paths quoted for the shell", () => {
    expect(launcherScript("/opt/node 24/bin/node", "/srv/it's")).toBe(
      [
        "#!/bin/sh",
        "# The flagstack provider for Terraform and OpenTofu, written by `flagstack terraform install`.",
        `exec '/opt/node 24/bin/node' '/srv/it'\\''s/bin/terraform-provider-flagstack' "$@"`,
        "",
      ].join("\n"),
    );
  });

  it("writes the launcher into the mirror layout for the source address, executable", () => {
    const done = install({ dir: join(dir, "mirror"), root, nodePath: "/usr/bin/node" });
    const expected = join(
      dir,
      "mirror",
      "flagstack.local",
      "flagstack",
      "flagstack",
      version,
      platformDir(),
      `terraform-provider-flagstack_v${version}`,
    );
    expect(done).toEqual({ launcher: expected, version });
    expect(readFileSync(expected, "utf8")).toBe(launcherScript("/usr/bin/node", root));
    expect(statSync(expected).mode & 0o777).toBe(0o755);
  });

  it("--cli-config: a provider_installation block naming the mirror for flagstack only", () => {
    const file = join(dir, "tf.rc");
    const done = install({ dir: join(dir, "mirror2"), cliConfig: file, root });
    expect(done.cliConfig).toBe(file);
    expect(readFileSync(file, "utf8")).toBe(cliConfig(join(dir, "mirror2")));
    expect(cliConfig("/m")).toBe(
      [
        "provider_installation {",
        "  filesystem_mirror {",
        '    path    = "/m"',
        `    include = ["${SOURCE_ADDRESS}"]`,
        "  }",
        "  direct {",
        `    exclude = ["${SOURCE_ADDRESS}"]`,
        "  }",
        "}",
        "",
      ].join("\n"),
    );
  });
});
