/**
 * `provider/binary.ts`: which door a start of the provider binary serves, by the name Terraform or
 * Pulumi installed it under or by its first argument, and what it says when run by hand (run from
 * the build, `node dist/provider/binary.js`, which reads the package's files as the binary reads its
 * assets).
 */
import { execFileSync, spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { isBuiltin } from "node:module";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { modeOf, usage } from "../../provider/binary";
import { literalRequires } from "./requires";

const REPO = join(__dirname, "..", "..");
const VERSION = (JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")) as { version: string }).version;
const BUILT = join(REPO, "dist", "provider", "binary.js");

describe("provider binary: the door of a start", () => {
  it("serves Terraform under the name Terraform's installers give it, whatever the platform's suffix", () => {
    expect(modeOf("/x/terraform-provider-flagstack_v0.1.0", [])).toEqual({ door: "terraform", args: [] });
    expect(modeOf("C:\\p\\terraform-provider-flagstack_v0.1.0.exe", [])).toEqual({
      door: "terraform",
      args: [],
    });
  });

  it("serves Pulumi under the plugin's name, with the engine's address and flags as they come", () => {
    expect(
      modeOf("/h/plugins/resource-flagstack-v0.1.0/pulumi-resource-flagstack", [
        "--logtostderr",
        "127.0.0.1:4000",
      ]),
    ).toEqual({
      door: "pulumi",
      args: ["--logtostderr", "127.0.0.1:4000"],
    });
  });

  it("under any other name, by its first argument; version and help under every name", () => {
    expect(modeOf("/bin/flagstack-provider", ["terraform"])).toEqual({ door: "terraform", args: [] });
    expect(modeOf("/bin/flagstack-provider", ["pulumi", "127.0.0.1:4000"])).toEqual({
      door: "pulumi",
      args: ["127.0.0.1:4000"],
    });
    expect(modeOf("/bin/flagstack-provider", [])).toEqual({ door: "usage" });
    expect(modeOf("/bin/flagstack-provider", ["--version"])).toEqual({ door: "version" });
    expect(modeOf("/x/terraform-provider-flagstack_v0.1.0", ["version"])).toEqual({ door: "version" });
    expect(modeOf("/x/pulumi-resource-flagstack", ["help"])).toEqual({ door: "usage" });
    expect(modeOf("/x/terraform-provider-flagstack_v0.1.0", ["recover", "--dry-run"])).toEqual({
      door: "recover",
      args: ["--dry-run"],
    });
    expect(modeOf("/bin/flagstack-provider", ["serve"])).toEqual({
      door: "usage",
      problem: 'unknown command "serve"',
    });
  });

  it("run by hand: the version, the usage, recover's own help, and an unknown command's exit status 2", () => {
    expect(execFileSync(process.execPath, [BUILT, "recover", "--help"], { encoding: "utf8" })).toContain(
      "After a killed apply or destroy: write `import` blocks for the objects the",
    );
    expect(execFileSync(process.execPath, [BUILT, "version"], { encoding: "utf8" })).toBe(`${VERSION}\n`);
    expect(execFileSync(process.execPath, [BUILT], { encoding: "utf8" })).toBe(usage(VERSION));
    const bad = spawnSync(process.execPath, [BUILT, "serve"], { encoding: "utf8" });
    expect(bad.status).toBe(2);
    expect(bad.stderr).toBe(`flagstack: unknown command "serve"\n\n${usage(VERSION)}`);
  });

  it("started for Terraform without Terraform's cookie, it says it is a plugin and exits 1", () => {
    const r = spawnSync(process.execPath, [BUILT, "terraform"], {
      encoding: "utf8",
      env: { PATH: process.env.PATH },
    });
    expect(r.status).toBe(1);
    expect(r.stderr.split("\n")[0]).toBe(
      "This binary is a plugin. These are not meant to be executed directly.",
    );
  });

  it("the bundle (dist/bundle, what the launcher, the plugin directory and the binaries run) requires nothing but Node's own modules", () => {
    const file = join(REPO, "dist", "bundle", "flagstack-provider.js");
    const outside = literalRequires(file)
      .map((r) => r.specifier)
      .filter((id) => !isBuiltin(id));
    // The SDK's version: the bundled package.json first, this file a fallback behind it. And two
    // optional requires of the feature-flag SDK's dependencies, each in its own try/catch and not
    // installed here (node-fetch's `encoding`, debug's `supports-color`): absent at run time, the
    // same as where they are not installed (the SDK evaluates a plan's changes, `./terraform/reach`).
    expect(outside).toEqual(["../../../package.json", "supports-color", "encoding"]);
  });
});
