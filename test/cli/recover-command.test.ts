/**
 * `flagstack recover`'s reading of the stack (cli/recover-command.ts): which update was the
 * interrupted one (issue 23 item 8: an `up` retried after the kill, failed, must not count), and
 * the state handed to `pulumi stack import` on its standard input (cli/pulumi.ts), never a file.
 */
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pulumi } from "../../cli/pulumi";
import {
  checkpointFiles,
  describeReport,
  explainCheckpointFailure,
  fileBackendDir,
  interruptedRunStarts,
  lastUpdateEnd,
  recover,
  removeEmptyAttrs,
} from "../../cli/recover-command";

const T = (s: string) => Date.parse(`2026-11-23T${s}Z`);
const history = (...entries: { version: number; result: string; end: string }[]) =>
  JSON.stringify(
    entries.map((e) => ({
      version: e.version,
      kind: "update",
      result: e.result,
      startTime: `2026-11-23T${e.end}Z`,
      endTime: `2026-11-23T${e.end}Z`,
    })),
  );
const state = (...pending: string[]) =>
  JSON.stringify({
    version: 3,
    deployment: { pending_operations: pending.map((urn) => ({ type: "creating", resource: { urn } })) },
  });

describe("which update was interrupted", () => {
  // v1 succeeded; the killed run left A and B pending; v2 (a retry, failed) carried them over.
  const ci = history(
    { version: 2, result: "failed", end: "10:05:00" },
    { version: 1, result: "succeeded", end: "10:00:00" },
  );

  it("lastUpdateEnd: the last update that succeeded; a failed retry does not count", () => {
    expect(lastUpdateEnd(ci)).toBe(T("10:00:00"));
    expect(lastUpdateEnd("[]")).toBe(0);
  });

  it("per pending create: the end of the newest update whose final state does not hold it", async () => {
    const exported: number[] = [];
    const start = await interruptedRunStarts(ci, ["A", "B"], async (v) => {
      exported.push(v);
      return v === 2 ? state("A", "B") : state();
    });
    expect([start("A"), start("B")]).toEqual([T("10:00:00"), T("10:00:00")]);
    expect(exported).toEqual([2, 1]);
  });

  it("a failed update before the kill counts: the pending create is not in its final state", async () => {
    const h = history(
      { version: 3, result: "failed", end: "10:09:00" },
      { version: 2, result: "failed", end: "10:05:00" },
      { version: 1, result: "succeeded", end: "10:00:00" },
    );
    // A was left by a run killed after v2; B by one killed after v1 (v2 carried it over too).
    const start = await interruptedRunStarts(h, ["A", "B"], async (v) =>
      v === 3 ? state("A", "B") : v === 2 ? state("B") : state(),
    );
    expect([start("A"), start("B")]).toEqual([T("10:05:00"), T("10:00:00")]);
  });

  it("pending since before the oldest update: 0; no history: 0, and nothing is exported", async () => {
    const start = await interruptedRunStarts(ci, ["A"], async () => state("A"));
    expect(start("A")).toBe(0);
    const none = await interruptedRunStarts("[]", ["A"], async () => {
      throw new Error("not called");
    });
    expect(none("A")).toBe(0);
  });

  it("a backend that cannot export an old version: the last update that succeeded", async () => {
    const start = await interruptedRunStarts(ci, ["A"], async () => {
      throw new Error("unsupported");
    });
    expect(start("A")).toBe(T("10:00:00"));
  });
});

describe("the report", () => {
  it("names each outcome", () => {
    expect(
      describeReport({
        recovered: [{ urn: "u1", id: "i1" }],
        cleared: ["u2"],
        recorded: ["u3"],
        kept: [{ urn: "u4", reason: "why" }],
        unknown: [{ urn: "u5", reason: "what to do" }],
      }),
    ).toEqual([
      "recovered u1 (id i1): created by the interrupted run",
      "cleared u2: never created; the next `pulumi up` creates it",
      "cleared u3: a later update already recorded it",
      "kept pending u4: why",
      "unknown u5: what to do",
    ]);
  });
});

describe("pulumi(): standard input", () => {
  let dir: string;
  let path: string | undefined;
  beforeAll(() => {
    // A stand-in `pulumi` that echoes its arguments and its standard input.
    dir = mkdtempSync(join(tmpdir(), "flagstack-fake-pulumi-"));
    writeFileSync(join(dir, "pulumi"), '#!/bin/sh\necho "args: $*"\ncat\n');
    chmodSync(join(dir, "pulumi"), 0o755);
    path = process.env.PATH;
    process.env.PATH = `${dir}${delimiter}${path ?? ""}`;
  });
  afterAll(() => {
    process.env.PATH = path;
    rmSync(dir, { recursive: true, force: true });
  });

  it.skipIf(process.platform === "win32")(
    "writes the input to the command's standard input, and none when not given",
    async () => {
      expect(await pulumi({ cwd: dir, stack: "dev" }, ["stack", "import"], '{"version":3}')).toBe(
        'args: stack import --stack dev\n{"version":3}',
      );
      expect(await pulumi({ cwd: dir }, ["stack", "export"])).toBe("args: stack export\n");
    },
  );
});

describe("an empty .attrs file a kill left on a file backend", () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "flagstack-attrs-"));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** A backend directory with the given files (`null`: a directory) under `.pulumi/stacks/`. */
  const backend = (name: string, files: Record<string, string>) => {
    const root = join(dir, name);
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(join(root, ".pulumi", "stacks", path, ".."), { recursive: true });
      writeFileSync(join(root, ".pulumi", "stacks", path), text);
    }
    return root;
  };

  it("fileBackendDir: the directory of a file:// URL; undefined for any other backend", () => {
    expect(fileBackendDir("file:///var/state", "/w")).toBe("/var/state");
    expect(fileBackendDir("file://~", "/w")).toBe(homedir());
    expect(fileBackendDir("file://~/state?no_legacy_url_encoding=true", "/w")).toBe(join(homedir(), "state"));
    expect(fileBackendDir("file://state", "/w")).toBe("/w/state");
    expect(fileBackendDir("https://api.pulumi.com", "/w")).toBeUndefined();
    expect(fileBackendDir("s3://bucket", "/w")).toBeUndefined();
  });

  it("removeEmptyAttrs: the stack's empty .attrs only (its project's and the older layout's), never one with content or another stack's", () => {
    const attrs = '{"user.content_type":"application/json"}\n';
    const root = backend("b1", {
      "shop/dev.json": "{}",
      "shop/dev.json.attrs": "",
      "shop/dev.json.bak": "{}",
      "shop/dev.json.bak.attrs": "",
      "shop/prod.json.attrs": "",
      "shop/qa.json.attrs": attrs,
      "other/dev.json.attrs": "",
      "dev.json.gz.attrs": "",
    });
    expect(removeEmptyAttrs(root, "shop", "dev").sort()).toEqual([
      join(root, ".pulumi/stacks/dev.json.gz.attrs"),
      join(root, ".pulumi/stacks/shop/dev.json.attrs"),
      join(root, ".pulumi/stacks/shop/dev.json.bak.attrs"),
    ]);
    expect(
      [
        join(root, ".pulumi/stacks/shop/dev.json.attrs"),
        join(root, ".pulumi/stacks/dev.json.gz.attrs"),
      ].every((p) => !existsSync(p)),
    ).toBe(true);
    expect(
      [
        "shop/dev.json",
        "shop/dev.json.bak",
        "shop/prod.json.attrs",
        "shop/qa.json.attrs",
        "other/dev.json.attrs",
      ].map((p) => existsSync(join(root, ".pulumi/stacks", p))),
    ).toEqual([true, true, true, true, true]);
    // No stack named: every empty one of the project.
    expect(removeEmptyAttrs(root, "shop")).toEqual([join(root, ".pulumi/stacks/shop/prod.json.attrs")]);
    expect(removeEmptyAttrs(join(dir, "none"), "shop", "dev")).toEqual([]);
  });

  it.skipIf(process.platform === "win32")(
    "recover removes it before exporting (the export failed `failed to load checkpoint: EOF` while it was there) and reports it",
    async () => {
      const root = backend("b2", { "shop/dev.json": "{}", "shop/dev.json.attrs": "" });
      const project = join(dir, "project");
      mkdirSync(project, { recursive: true });
      writeFileSync(join(project, "Pulumi.yaml"), "name: shop\nruntime: nodejs\n");
      const attrs = join(root, ".pulumi/stacks/shop/dev.json.attrs");
      // A stand-in `pulumi` whose every stack command fails as the file backend does on an empty .attrs.
      const bin = join(dir, "bin");
      mkdirSync(bin, { recursive: true });
      writeFileSync(
        join(bin, "pulumi"),
        `#!/bin/sh
case "$1 $2" in
  "whoami --json") echo '{"user":"u","url":"file://${root}"}'; exit 0 ;;
esac
if [ -f "${attrs}" ] && [ ! -s "${attrs}" ]; then echo "error: failed to load checkpoint: EOF" >&2; exit 255; fi
case "$1 $2" in
  "stack export") echo '{"version":3,"deployment":{"resources":[]}}' ;;
  "config --json") echo '{}' ;;
  "stack history") echo '[]' ;;
  *) echo "unexpected: $*" >&2; exit 1 ;;
esac
`,
      );
      chmodSync(join(bin, "pulumi"), 0o755);
      const path = process.env.PATH;
      process.env.PATH = `${bin}${delimiter}${path ?? ""}`;
      const lines: string[] = [];
      try {
        const report = await recover({ cwd: project, stack: "dev", refresh: false }, (l) => lines.push(l));
        expect(report).toEqual({ recovered: [], cleared: [], recorded: [], kept: [], unknown: [] });
      } finally {
        process.env.PATH = path;
      }
      expect(existsSync(attrs)).toBe(false);
      expect(lines).toEqual([
        `removed ${attrs}: empty, left by the killed run (the file backend keeps the checkpoint's attributes there, and an empty one failed every command with \`failed to load checkpoint: EOF\`; without it the defaults apply)`,
        "no pending create of a flagstack resource",
        "Run `pulumi refresh` and `pulumi up` to converge.",
      ]);
    },
  );

  it("checkpointFiles: the stack's checkpoint, its .bak and their .attrs with sizes, in both layouts, no other stack's", () => {
    const root = backend("b3", {
      "shop/dev.json": "",
      "shop/dev.json.attrs": "{}\n",
      "shop/dev.json.bak": '{"version":3}',
      "shop/prod.json": "{}",
      "dev.json.gz": "x",
      "shop/dev.yaml": "no",
    });
    expect(checkpointFiles(root, "shop", "dev")).toEqual([
      { path: join(root, ".pulumi/stacks/shop/dev.json"), size: 0 },
      { path: join(root, ".pulumi/stacks/shop/dev.json.attrs"), size: 3 },
      { path: join(root, ".pulumi/stacks/shop/dev.json.bak"), size: 13 },
      { path: join(root, ".pulumi/stacks/dev.json.gz"), size: 1 },
    ]);
    expect(checkpointFiles(join(dir, "none"), "shop", "dev")).toEqual([]);
  });

  it("explainCheckpointFailure: a checkpoint that fails to load is told with the stack's files, the empty one named with its .bak; any other failure as it is", () => {
    const root = backend("b4", { "shop/dev.json": "", "shop/dev.json.bak": '{"version":3}' });
    const files = checkpointFiles(root, "shop", "dev");
    const cp = join(root, ".pulumi/stacks/shop/dev.json");
    const failure = new Error(
      "pulumi stack export failed (exit 255): error: failed to load checkpoint: EOF\n",
    );
    expect((explainCheckpointFailure(failure, files) as Error).message).toBe(
      [
        "pulumi stack export failed (exit 255): error: failed to load checkpoint: EOF",
        "",
        "The stack's checkpoint files on the file backend:",
        `  ${cp}: EMPTY (0 bytes)`,
        `  ${cp}.bak: 13 bytes`,
        "",
        `${cp} is empty: the killed run was writing it. Pulumi kept the checkpoint before it in ${cp}.bak; ` +
          `restoring it (cp '${cp}.bak' '${cp}') drops what that run recorded after it: an object it created since ` +
          "is then not in the state, and the next `pulumi up` finds it existing (set `adopt` on its resource, or " +
          "`pulumi import` it). Run `flagstack recover` again after.",
      ].join("\n"),
    );
    const other = new Error("pulumi stack export failed: no stack named 'dev' found");
    expect(explainCheckpointFailure(other, files)).toBe(other);
    expect(explainCheckpointFailure(failure, [])).toBe(failure);
    const lost = checkpointFiles(backend("b5", { "shop/dev.json": "" }), "shop", "dev");
    expect((explainCheckpointFailure(failure, lost) as Error).message.split("\n").slice(-1)).toEqual([
      `${join(dir, "b5", ".pulumi/stacks/shop/dev.json")} is empty and no non-empty .bak is beside it: the stack's last state is lost on this backend.`,
    ]);
  });

  it.skipIf(process.platform === "win32")(
    "recover, when the export still fails to load the checkpoint: the failure lists the stack's files and names the .bak, and nothing is imported",
    async () => {
      const root = backend("b6", { "shop/dev.json": "", "shop/dev.json.bak": '{"version":3}' });
      const project = join(dir, "project6");
      mkdirSync(project, { recursive: true });
      writeFileSync(join(project, "Pulumi.yaml"), "name: shop\nruntime: nodejs\n");
      const bin = join(dir, "bin6");
      mkdirSync(bin, { recursive: true });
      const calls = join(dir, "calls6");
      writeFileSync(
        join(bin, "pulumi"),
        `#!/bin/sh
echo "$*" >> "${calls}"
case "$1 $2" in
  "whoami --json") echo '{"user":"u","url":"file://${root}"}'; exit 0 ;;
esac
echo "error: failed to load checkpoint: EOF" >&2; exit 255
`,
      );
      chmodSync(join(bin, "pulumi"), 0o755);
      const path = process.env.PATH;
      process.env.PATH = `${bin}${delimiter}${path ?? ""}`;
      const cp = join(root, ".pulumi/stacks/shop/dev.json");
      try {
        const failed = recover({ cwd: project, stack: "dev", refresh: false }, () => {});
        await expect(failed).rejects.toThrow(`  ${cp}: EMPTY (0 bytes)\n  ${cp}.bak: 13 bytes\n`);
        await expect(failed).rejects.toThrow(`Pulumi kept the checkpoint before it in ${cp}.bak`);
      } finally {
        process.env.PATH = path;
      }
      expect(readFileSync(calls, "utf8")).toBe("whoami --json --stack dev\nstack export --stack dev\n");
    },
  );
});
