/**
 * Every fenced TypeScript, JavaScript and shell block of README.md, docs/*.md and
 * examples/README.md, checked as a reader would use it (issue 16). One test per block, named
 * `<file>:<line of the opening fence> <language>`.
 *
 * TypeScript / JavaScript blocks
 * - are type-checked as files of a CommonJS project (what a Pulumi TypeScript program is) with
 *   the repository's compiler options, `flagstack`, `flagstack/provider`, ... mapped to the
 *   sources the package's `exports` publish (`dist/X.js` → `X.ts`), in one program;
 * - a block whose fence reads ```ts continues is compiled after the TypeScript block before it in
 *   the same file (a page that builds one program step by step), passing over the blocks whose
 *   fence reads ```ts generated (a kind's example, generated from its definition: each a program of
 *   its own); no other wrapping exists;
 * - blocks that declare resources (they import `flagstack/provider...`) run under Pulumi mocks,
 *   and every policy of the pack, with its default config, must find nothing in what they declare
 *   (docs/policy.md is exempt: its examples show violations on purpose);
 * - blocks that only use the SDK or the emulator (`flagstack`, `flagstack/emulator`, `node:`
 *   modules) run with `node` against an emulator started for them, the `FLAGSTACK_*` variables
 *   pointing at it; a comment `// → text` after a statement that prints is a line the run must
 *   print, in that order.
 *
 * Shell blocks (and the `run:` steps of GitHub Actions workflows in YAML blocks)
 * - parse with `bash -n`;
 * - every option given to a `flagstack` command (`flagstack`, `npx flagstack`,
 *   `node bin/flagstack.js`) is one that `flagstack <command> --help` lists;
 * - the safe `flagstack` commands run against the built CLI (`node bin/flagstack.js`): `--help`;
 *   `emulator` (on a free port instead of the one written, until its banner shows the keys given;
 *   then SIGINT); `events import` (against an emulator started for the block, the input files it
 *   names made with three valid events each: the summary must say all three were accepted, and
 *   the emulator must hold them). `recover` and everything else are not run;
 * - a block that talks to the emulator with `curl` and uses nothing but the commands in
 *   {@link WHOLE_BLOCK_COMMANDS} runs whole, against an emulator started with the keys the docs
 *   use ({@link DOC_KEYS}), `127.0.0.1:8787` replaced by its address; `# → text` after a command
 *   (or on the line after it) is its exact output.
 * @module
 */
import { type SpawnSyncReturns, spawn, spawnSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import ts from "typescript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { CONTROL_ROUTES_HELP } from "../../cli/emulator-command";
import { type Emulator, startEmulator } from "../../emulator";

const ROOT = join(__dirname, "..", "..");
const CLI = join(ROOT, "bin", "flagstack.js");

/** The documents checked: the README, every guide, the examples' README. */
const DOCS = [
  "README.md",
  ...readdirSync(join(ROOT, "docs"))
    .filter((f) => f.endsWith(".md"))
    .sort()
    .map((f) => `docs/${f}`),
  "examples/README.md",
];

/** The keys the docs' emulator commands set; emulators started here use them too. */
const DOC_KEYS = {
  adminKey: "local-admin-key",
  sdkKey: "local-sdk-key",
  platformKey: "local-platform-key",
  accountId: "local",
} as const;

/** Documents whose examples show policy violations on purpose. */
const POLICY_EXEMPT = new Set(["docs/policy.md"]);

/** Commands a block may use and still be run whole against an emulator. */
const WHOLE_BLOCK_COMMANDS = new Set(["curl", "jq", "test", "echo", "printf", "grep", "flagstack"]);

const TS_LANGS = new Set(["ts", "typescript"]);
const JS_LANGS = new Set(["js", "javascript"]);
const SHELL_LANGS = new Set(["sh", "bash", "shell"]);
/**
 * Languages of blocks that are not code to check here (data, output, prose). Python blocks use the
 * SDK generated from the native provider's schema (the release's wheel); the programs they come from
 * run in test/e2e/native-python.test.ts and, docs/native.md's, test/e2e/release.test.ts. The Go block
 * of docs/native.md is built by test/e2e/release.test.ts against the release's Go module. HCL blocks (README, docs/terraform.md)
 * are OpenTofu configurations; test/e2e/terraform.test.ts applies a Flag and FlagDefinition of that shape.
 */
const OTHER_LANGS = new Set(["", "json", "yaml", "text", "python", "go", "hcl"]);

interface Block {
  file: string;
  /** Line of the opening fence, 1-based. */
  line: number;
  lang: string;
  attrs: string[];
  code: string;
}

/** The fenced blocks of a Markdown file. */
function blocksOf(file: string): Block[] {
  const lines = readFileSync(join(ROOT, file), "utf8").split("\n");
  const out: Block[] = [];
  let open: { fence: string; indent: number; line: number; info: string[]; body: string[] } | undefined;
  lines.forEach((text, i) => {
    if (open) {
      const closing = /^\s*(`{3,}|~{3,})\s*$/.exec(text)?.[1] ?? "";
      if (closing[0] === open.fence[0] && closing.length >= open.fence.length) {
        const [lang = "", ...attrs] = open.info;
        out.push({
          file,
          line: open.line,
          lang: lang.toLowerCase(),
          attrs,
          code: `${open.body.join("\n")}\n`,
        });
        open = undefined;
      } else open.body.push(text.slice(Math.min(open.indent, text.length - text.trimStart().length)));
      return;
    }
    const m = /^(\s*)(`{3,}|~{3,})(.*)$/.exec(text);
    if (m) {
      open = {
        fence: m[2] as string,
        indent: (m[1] as string).length,
        line: i + 1,
        info: (m[3] as string).trim().split(/\s+/).filter(Boolean),
        body: [],
      };
    }
  });
  if (open) throw new Error(`${file}:${open.line}: a fence that never closes`);
  return out;
}

const ALL = DOCS.flatMap(blocksOf);
const nameOf = (b: Block) => `${b.file}:${b.line} ${b.lang}${b.attrs.length ? ` ${b.attrs.join(" ")}` : ""}`;
const isScript = (b: Block) => TS_LANGS.has(b.lang) || JS_LANGS.has(b.lang);
const isWorkflow = (b: Block) => b.lang === "yaml" && /^jobs:/m.test(b.code);

// ---------------------------------------------------------------------------------------------
// TypeScript and JavaScript: one program, each block a file (continued blocks with their chain).

interface ScriptFile {
  block: Block;
  path: string;
  source: string;
  /** Where each part of the file comes from: its first line in the file, its block. */
  parts: { firstLine: number; block: Block }[];
}

/** The block and the blocks it continues, first first. */
function chainOf(block: Block): Block[] {
  if (!block.attrs.includes("continues")) return [block];
  const scripts = ALL.filter((b) => b.file === block.file && isScript(b) && !b.attrs.includes("generated"));
  const previous = scripts[scripts.indexOf(block) - 1];
  if (!previous) throw new Error(`${nameOf(block)} continues no block`);
  return [...chainOf(previous), block];
}

/** `flagstack`, `flagstack/provider`, ... → the sources of what `exports` publishes. */
function exportPaths(): Record<string, string[]> {
  const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
    name: string;
    exports: Record<string, string>;
  };
  const paths: Record<string, string[]> = {};
  for (const [key, target] of Object.entries(pkg.exports)) {
    if (!target.startsWith("./dist/") || !target.endsWith(".js")) continue;
    const source = target.slice("./dist/".length, -".js".length);
    paths[key === "." ? pkg.name : `${pkg.name}/${key.slice(2)}`] = [`${source}.ts`];
  }
  return paths;
}

function compilerOptions(outDir: string): ts.CompilerOptions {
  const config = ts.getParsedCommandLineOfConfigFile(
    join(ROOT, "tsconfig.json"),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (d) => {
        throw new Error(ts.flattenDiagnosticMessageText(d.messageText, "\n"));
      },
    },
  );
  if (!config) throw new Error("tsconfig.json could not be read");
  const { rootDir: _rootDir, declaration: _declaration, sourceMap: _sourceMap, ...options } = config.options;
  return {
    ...options,
    noEmit: true,
    outDir,
    allowJs: true,
    checkJs: true,
    baseUrl: ROOT,
    paths: exportPaths(),
    typeRoots: [join(ROOT, "node_modules", "@types")],
  };
}

function formatDiagnostic(d: ts.Diagnostic, file: ScriptFile): string {
  const text = ts.flattenDiagnosticMessageText(d.messageText, "\n");
  if (d.file === undefined || d.start === undefined) return `TS${d.code}: ${text}`;
  const { line } = d.file.getLineAndCharacterOfPosition(d.start);
  const part = [...file.parts].reverse().find((p) => p.firstLine <= line) ?? file.parts[0];
  const docLine = part ? part.block.line + 1 + line - part.firstLine : line + 1;
  return `${part?.block.file}:${docLine}: TS${d.code}: ${text}`;
}

// ---------------------------------------------------------------------------------------------
// Shell: logical lines, words, flagstack invocations.

interface Word {
  text: string;
  /** An unquoted operator: | || & && ; > < (and redirections such as 2>&1). */
  op?: boolean;
}

interface LogicalLine {
  /** Line in the document, 1-based. */
  line: number;
  text: string;
  words: Word[];
  /** The text after an unquoted `#`, when there is one. */
  comment?: string;
}

/** Joins continued lines, splits them into words (quotes and escapes removed) and a comment. */
function logicalLines(block: Block): LogicalLine[] {
  const out: LogicalLine[] = [];
  const raw = block.code.split("\n");
  for (let i = 0; i < raw.length; i++) {
    const first = i;
    let text = raw[i] as string;
    while (text.endsWith("\\") && i + 1 < raw.length) text = `${text.slice(0, -1)} ${raw[++i]}`;
    if (text.trim() === "") continue;
    const { words, comment } = shellWords(text);
    out.push({ line: block.line + 1 + first, text, words, ...(comment === undefined ? {} : { comment }) });
  }
  return out;
}

function shellWords(text: string): { words: Word[]; comment?: string } {
  const words: Word[] = [];
  let cur: string | undefined;
  const flush = () => {
    if (cur !== undefined) words.push({ text: cur });
    cur = undefined;
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    if (c === "'") {
      const end = text.indexOf("'", i + 1);
      cur = (cur ?? "") + text.slice(i + 1, end < 0 ? text.length : end);
      i = end < 0 ? text.length : end;
    } else if (c === '"') {
      let j = i + 1;
      let s = "";
      for (; j < text.length && text[j] !== '"'; j++) {
        if (text[j] === "\\" && j + 1 < text.length) j++;
        s += text[j];
      }
      cur = (cur ?? "") + s;
      i = j;
    } else if (c === "\\" && i + 1 < text.length) {
      cur = (cur ?? "") + text[++i];
    } else if (/\s/.test(c)) flush();
    else if (c === "#" && cur === undefined) {
      flush();
      return { words, comment: text.slice(i + 1).trim() };
    } else if ("|&;<>".includes(c)) {
      const m = /^(?:\d?>&\d|&&|\|\||>>|[|&;<>])/.exec(text.slice(i)) as RegExpExecArray;
      if (/^\d$/.test(cur ?? "") && m[0].startsWith(">")) cur = undefined;
      flush();
      words.push({ text: m[0], op: true });
      i += m[0].length - 1;
    } else cur = (cur ?? "") + c;
  }
  flush();
  return { words };
}

interface Invocation {
  line: LogicalLine;
  /** The words after `flagstack` up to the first operator. */
  args: string[];
}

/** The `flagstack` commands of a line (`flagstack`, `npx flagstack`, `node bin/flagstack.js`). */
function invocations(line: LogicalLine): Invocation[] {
  const out: Invocation[] = [];
  line.words.forEach((w, i) => {
    const starts = i === 0 || line.words[i - 1]?.op === true;
    const prev = line.words[i - 1]?.text;
    const isCli =
      !w.op &&
      ((w.text === "flagstack" && (starts || prev === "npx")) ||
        (w.text.endsWith("bin/flagstack.js") && prev === "node"));
    if (!isCli) return;
    const rest = line.words.slice(i + 1);
    const end = rest.findIndex((x) => x.op);
    out.push({ line, args: (end < 0 ? rest : rest.slice(0, end)).map((x) => x.text) });
  });
  return out;
}

/** A command's words: `events import`, `terraform install`, `policy check` (the commands with subcommands), else the first. */
const commandOf = (args: string[]): string[] =>
  ["events", "terraform", "policy"].includes(args[0] ?? "") ? args.slice(0, 2) : args.slice(0, 1);

/** The first word of each command of a line (after `VAR=value` assignments and `$(`). */
function commandWords(line: LogicalLine): string[] {
  const out: string[] = [];
  let atStart = true;
  for (const w of line.words) {
    if (w.op) {
      atStart = ["|", "||", "&&", ";", "&"].includes(w.text);
      continue;
    }
    if (!atStart) {
      // A command substitution starts a command too.
      const sub = /\$\((\S+)/.exec(w.text);
      if (sub?.[1]) out.push(sub[1]);
      continue;
    }
    const assignment = /^[A-Za-z_][A-Za-z0-9_]*=(.*)$/.exec(w.text);
    if (assignment) {
      const sub = /^\$\((\S+)/.exec(assignment[1] as string);
      if (sub?.[1]) {
        out.push(sub[1]);
        atStart = false;
      }
      continue;
    }
    out.push(w.text === "npx" ? "flagstack" : w.text);
    atStart = false;
  }
  return out;
}

function run(
  cmd: string,
  args: string[],
  opts: { cwd?: string; env?: NodeJS.ProcessEnv; input?: string; timeoutMs?: number } = {},
): SpawnSyncReturns<string> {
  return spawnSync(cmd, args, {
    cwd: opts.cwd ?? ROOT,
    env: opts.env ?? process.env,
    input: opts.input ?? "",
    encoding: "utf8",
    timeout: opts.timeoutMs ?? 60_000,
  });
}

/**
 * {@link run} without blocking this process: what talks to an emulator running in this process
 * must not hold its event loop.
 */
function runAsync(
  cmd: string,
  args: string[],
  opts: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs?: number },
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd: opts.cwd, env: opts.env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => {
      stdout += d.toString();
    });
    child.stderr.on("data", (d: Buffer) => {
      stderr += d.toString();
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), opts.timeoutMs ?? 60_000);
    child.on("close", (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}

const helpCache = new Map<string, string>();
/** `flagstack <command> --help` of the built CLI. */
function helpOf(command: string[]): string {
  const key = command.join(" ");
  let help = helpCache.get(key);
  if (help === undefined) {
    const r = run(process.execPath, [CLI, ...command, "--help"]);
    if (r.status !== 0) throw new Error(`flagstack ${key} --help exited ${r.status}: ${r.stderr}`);
    help = r.stdout;
    helpCache.set(key, help);
  }
  return help;
}

/** The options an invocation uses that `--help` does not list. */
function unknownOptions(inv: Invocation): string[] {
  const help = helpOf(commandOf(inv.args));
  return inv.args
    .filter((a) => /^--?[a-zA-Z]/.test(a))
    .map((a) => a.split("=")[0] as string)
    .filter((flag) => !new RegExp(`(^|[\\s,])${flag.replace(/[-]/g, "\\-")}([\\s,=]|$)`, "m").test(help));
}

// ---------------------------------------------------------------------------------------------
// Fixtures: input files, emulators, a `flagstack` on PATH.

const THREE_EVENTS = [0, 1, 2].map((i) => ({
  eventTypeId: "checkout",
  trafficTypeName: "user",
  key: `user-${i}`,
  timestamp: 1_700_000_000_000 + i,
  value: i,
}));

/** Writes each input file a command names (three valid events in the format its name says). */
function writeInputs(dir: string, words: string[]): void {
  for (const w of words) {
    if (!/^[\w.-]+\.(ndjson|jsonl|csv|json|gz)$/.test(w) || existsSync(join(dir, w))) continue;
    const base = w.endsWith(".gz") ? w.slice(0, -3) : w;
    let text: string;
    if (/\.(ndjson|jsonl)$/.test(base)) text = THREE_EVENTS.map((e) => JSON.stringify(e)).join("\n");
    else if (base.endsWith(".csv"))
      text = [
        "eventTypeId,trafficTypeName,key,timestamp,value",
        ...THREE_EVENTS.map(
          (e) => `${e.eventTypeId},${e.trafficTypeName},${e.key},${e.timestamp},${e.value}`,
        ),
      ].join("\n");
    else text = JSON.stringify(THREE_EVENTS, null, 2);
    const bytes = Buffer.from(`${text}\n`);
    writeFileSync(join(dir, w), w.endsWith(".gz") ? gzipSync(bytes) : bytes);
  }
}

let tmp: string;
/** A directory holding a `flagstack` that runs the built CLI, for PATH. */
let binDir: string;
const emulators: Emulator[] = [];

async function docEmulator(): Promise<Emulator> {
  const emu = await startEmulator({ port: 0, ...DOC_KEYS });
  emulators.push(emu);
  return emu;
}

function blockDir(block: Block): string {
  const dir = join(tmp, "runs", `${block.file.replace(/\W/g, "_")}_${block.line}`);
  mkdirSync(dir, { recursive: true });
  return dir;
}

function envFor(emu: Emulator): NodeJS.ProcessEnv {
  return {
    ...process.env,
    PATH: `${binDir}:${process.env.PATH}`,
    FLAGSTACK_ADMIN_API_URL: emu.url,
    FLAGSTACK_ADMIN_API_KEY: DOC_KEYS.adminKey,
    FLAGSTACK_EVENTS_URL: emu.url,
    FLAGSTACK_SDK_KEY: DOC_KEYS.sdkKey,
    FLAGSTACK_PLATFORM_API_URL: emu.url,
    FLAGSTACK_PLATFORM_API_KEY: DOC_KEYS.platformKey,
    FLAGSTACK_ACCOUNT_ID: DOC_KEYS.accountId,
  };
}

const withEmulatorPort = (text: string, emu: Emulator) => text.replaceAll("127.0.0.1:8787", emu.url.slice(7));

/** The line a user types, with the CLI as `flagstack` (the shim on PATH). */
const asTyped = (text: string) =>
  text
    .replace(/\bnpx flagstack\b/g, "flagstack")
    .replace(/\bnode (?:\S*\/)?bin\/flagstack\.js\b/g, "flagstack");

/** Runs `flagstack emulator ...` on a free port until its banner shows, checks it, stops it. */
async function runEmulatorCommand(inv: Invocation, cwd: string): Promise<void> {
  const args = [...inv.args];
  const port = args.indexOf("--port");
  if (port >= 0) args[port + 1] = "0";
  else args.push("--port", "0");
  const child = spawn(process.execPath, [CLI, ...args], { cwd, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  let err = "";
  child.stderr.on("data", (d: Buffer) => {
    err += d.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.on("data", (d: Buffer) => {
      out += d.toString();
      const m = /listening on (http:\/\/\S+)\n[\s\S]*state {9}.*\n/.exec(out);
      if (m?.[1]) resolve(m[1]);
    });
    void exited.then((code) => reject(new Error(`flagstack emulator exited ${code}: ${err}`)));
  });
  try {
    const value = (flag: string) => {
      const i = inv.args.indexOf(flag);
      return i >= 0 ? inv.args[i + 1] : undefined;
    };
    const expected: string[] = [];
    if (value("--admin-key")) expected.push(`  admin key     ${value("--admin-key")}`);
    if (value("--sdk-key")) expected.push(`  SDK keys      Production: ${value("--sdk-key")}, Staging: `);
    if (value("--platform-key")) expected.push(`  platform key  ${value("--platform-key")}`);
    if (value("--account")) expected.push(`  account       ${value("--account")}`);
    expected.push(`  state         ${value("--state") ?? "(in memory)"}`);
    const lines = out.split("\n");
    for (const e of expected) expect(lines.filter((l) => l.startsWith(e)).length, `banner line ${e}`).toBe(1);
    const health = await fetch(`${url}/_emulator/health`);
    expect(await health.json()).toEqual({ status: "ok" });
  } finally {
    child.kill("SIGINT");
  }
  expect(await exited).toBe(0);
}

/** Runs a `flagstack events import ...` line through bash against `emu`; checks the summary. */
async function runImportLine(line: LogicalLine, emu: Emulator, cwd: string): Promise<void> {
  writeInputs(
    cwd,
    line.words.map((w) => w.text),
  );
  const before = emu.eventCount();
  const r = await runAsync(
    "bash",
    ["-c", `set -euo pipefail\n${withEmulatorPort(asTyped(line.text), emu)}`],
    {
      cwd,
      env: envFor(emu),
      timeoutMs: 120_000,
    },
  );
  const detail = `line ${line.line}: ${line.text}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`;
  expect(r.status, detail).toBe(0);
  if (line.words.some((w) => w.text === "--dry-run")) {
    expect(r.stdout, detail).toContain("valid     3 records in 1 batch (dry run: nothing sent)\n");
    expect(emu.eventCount()).toBe(before);
  } else {
    expect(r.stdout.endsWith("Done: all 3 valid records are accepted.\n"), detail).toBe(true);
    expect(emu.eventCount()).toBe(before + 3);
  }
}

/** A shell-quoted string. */
const quoted = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;

/** The block as one bash script that checks each `# → output`. */
function wholeBlockScript(lines: LogicalLine[]): string {
  const out = ["set -euo pipefail"];
  lines.forEach((l, i) => {
    if (l.words.length === 0) return; // a comment line: an expectation of the line before, or prose
    const next = lines[i + 1];
    const expectation = l.comment?.startsWith("→")
      ? l.comment
      : next && next.words.length === 0 && next.comment?.startsWith("→")
        ? next.comment
        : undefined;
    const command = l.comment === undefined ? l.text : l.text.slice(0, l.text.lastIndexOf("#")).trimEnd();
    if (expectation === undefined) {
      out.push(command);
      return;
    }
    const want = expectation.slice(1).trim();
    out.push(
      `__got=$(${command})`,
      `if [ "$__got" != ${quoted(want)} ]; then printf '%s\\n' ${quoted(`line ${l.line}: expected ${want}, got:`)} "$__got" >&2; exit 1; fi`,
    );
  });
  return `${out.join("\n")}\n`;
}

// ---------------------------------------------------------------------------------------------
// Pulumi mocks: what provider blocks declare, and what the policy pack says about it.

/** Runs each module under Pulumi mocks (one process), then every policy of the pack on it. */
const MOCK_RUNNER = `
const pulumi = require("@pulumi/pulumi");
const { waitForRPCs } = require("@pulumi/pulumi/runtime/settings");
const { policies } = require("flagstack/policy");
const { KINDS, KINDS_BY_TOKEN } = require("flagstack/provider/kinds");
let declared = [];
// A secret as the mocks receive it: its value.
const SECRET_SIG = "4dabf18193072939515e22adb298388d";
const plain = (v) =>
  Array.isArray(v)
    ? v.map(plain)
    : v !== null && typeof v === "object"
      ? SECRET_SIG in v
        ? plain(v.value)
        : Object.fromEntries(Object.entries(v).map(([k, x]) => [k, plain(x)]))
      : v;
pulumi.runtime.setMocks(
  {
    newResource: (a) => {
      const inputs = plain(a.inputs);
      declared.push({ type: a.type, name: a.name, inputs });
      // Each output that is no input an identifier-like text (what another block names: a
      // group's groupId, a pipeline's identifier), so a program's references resolve.
      const kind = KINDS_BY_TOKEN.get(a.type);
      const outputs = kind ? Object.keys(kind.resource.outputs.shape) : [];
      const made = Object.fromEntries(outputs.map((o) => [o, (a.name + "_" + o).replace(/[^A-Za-z0-9_]/g, "_")]));
      return { id: a.name + "-id", state: { ...made, ...a.inputs } };
    },
    call: (a) => {
      throw new Error("unexpected call " + a.token);
    },
  },
  "docs",
  "snippets",
  false,
);
const urnOf = (r) => "urn:pulumi:snippets::docs::" + r.type + "::" + r.name;
const opts = { protect: false, ignoreChanges: [], aliases: [], customTimeouts: { createSeconds: 0, updateSeconds: 0, deleteSeconds: 0 }, additionalSecretOutputs: [] };
const common = { stackTags: new Map(), getConfig: () => ({}), notApplicable: () => { throw new Error("not applicable"); } };
(async () => {
  const results = {};
  // node -e CODE FILE...: the files start at argv[1].
  for (const file of process.argv.slice(1)) {
    declared = [];
    const found = [];
    try {
      require(file);
      await new Promise((r) => setTimeout(r, 50));
      await waitForRPCs();
      const resources = [];
      for (const r of declared) {
        const kind = KINDS[r.type];
        if (!kind) continue;
        const checked = await kind.check({}, r.inputs);
        for (const f of checked.failures ?? []) found.push("check " + r.name + ": " + f.property + ": " + f.reason);
        resources.push({ ...r, props: { ...checked.inputs, __provider: r.inputs.__provider } });
      }
      for (const p of policies) {
        const report = (m) => found.push(p.name + ": " + m);
        if ("validateResource" in p && p.validateResource) {
          const validators = Array.isArray(p.validateResource) ? p.validateResource : [p.validateResource];
          for (const r of resources)
            for (const v of validators)
              await v({ ...common, type: r.type, props: r.props, urn: urnOf(r), name: r.name, opts, isType: () => false, asType: () => undefined }, report);
        }
        if ("validateStack" in p && p.validateStack) {
          await p.validateStack(
            {
              ...common,
              resources: resources.map((r) => ({ type: r.type, props: r.props, urn: urnOf(r), name: r.name, opts, dependencies: [], propertyDependencies: {}, isType: () => false, asType: () => undefined })),
            },
            report,
          );
        }
      }
      results[file] = { types: declared.map((r) => r.type), found };
    } catch (e) {
      results[file] = { types: declared.map((r) => r.type), found: ["error: " + (e && e.stack ? e.stack : e)] };
    }
  }
  process.stdout.write(JSON.stringify(results));
  process.exit(0);
})();
`;

/** The README's flag before issue 16: the mock runner must find what every preview reported. */
const COUNTER_EXAMPLE = `
const { Flag } = require("flagstack/provider");
new Flag("new-checkout", { workspace: "Default", name: "new_checkout", tags: ["checkout", "team-payments"] });
`;
let counterExample: { types: string[]; found: string[] } | undefined;

// ---------------------------------------------------------------------------------------------

const scriptFiles = new Map<Block, ScriptFile>();
const diagnostics = new Map<Block, string[]>();
const policyResults = new Map<Block, { types: string[]; found: string[] }>();

/** The modules a block imports. */
const importsOf = (source: string) =>
  [...source.matchAll(/^\s*import\s[^;]*?from\s+"([^"]+)"/gm)].map((m) => m[1] as string);
const declaresResources = (f: ScriptFile) =>
  importsOf(f.source).some((m) => m.startsWith("flagstack/provider"));
const runsAgainstEmulator = (f: ScriptFile) => {
  const mods = importsOf(f.source);
  return (
    mods.some((m) => m === "flagstack" || m === "flagstack/emulator") &&
    mods.every(
      (m) =>
        m === "flagstack" || m === "flagstack/sdk" || m === "flagstack/emulator" || m.startsWith("node:"),
    )
  );
};

beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), "flagstack-docs-"));
  writeFileSync(join(tmp, "package.json"), '{ "private": true, "type": "commonjs" }\n');
  symlinkSync(join(ROOT, "node_modules"), join(tmp, "node_modules"), "dir");
  binDir = join(tmp, "bin");
  mkdirSync(binDir);
  writeFileSync(
    join(binDir, "flagstack"),
    `#!/bin/sh\nexec ${quoted(process.execPath)} ${quoted(CLI)} "$@"\n`,
    {
      mode: 0o755,
    },
  );

  // One program over every TypeScript and JavaScript block.
  for (const block of ALL.filter(isScript)) {
    const chain = chainOf(block);
    const parts: ScriptFile["parts"] = [];
    let source = "";
    for (const b of chain) {
      parts.push({ firstLine: source.split("\n").length - 1, block: b });
      source += b.code;
    }
    const ext = TS_LANGS.has(block.lang) ? "ts" : "js";
    const path = join(tmp, "snippets", `${block.file.replace(/\W/g, "_")}_${block.line}.${ext}`);
    mkdirSync(join(tmp, "snippets"), { recursive: true });
    writeFileSync(path, source);
    scriptFiles.set(block, { block, path, source, parts });
  }
  const files = [...scriptFiles.values()];
  const program = ts.createProgram(
    files.map((f) => f.path),
    compilerOptions(join(tmp, "out")),
  );
  for (const f of files) {
    const sf = program.getSourceFile(f.path);
    if (!sf) throw new Error(`${f.path} is not in the program`);
    diagnostics.set(
      f.block,
      [...program.getSyntacticDiagnostics(sf), ...program.getSemanticDiagnostics(sf)].map((d) =>
        formatDiagnostic(d, f),
      ),
    );
  }

  // JavaScript of each block, for the runs (`flagstack` resolves to the built package).
  mkdirSync(join(tmp, "js"), { recursive: true });
  for (const f of files) {
    const js = ts.transpileModule(f.source, {
      compilerOptions: {
        module: ts.ModuleKind.CommonJS,
        target: ts.ScriptTarget.ES2022,
        esModuleInterop: true,
      },
    }).outputText;
    writeFileSync(join(tmp, "js", `${f.path.split("/").pop()?.replace(/\.ts$/, "")}.js`), js);
  }
  const provider = files.filter((f) => declaresResources(f) && !POLICY_EXEMPT.has(f.block.file));
  const jsOf = (f: ScriptFile) => join(tmp, "js", `${f.path.split("/").pop()?.replace(/\.ts$/, "")}.js`);
  writeFileSync(join(tmp, "js", "counter-example.js"), COUNTER_EXAMPLE);
  const r = run(
    process.execPath,
    ["-e", MOCK_RUNNER, join(tmp, "js", "counter-example.js"), ...provider.map(jsOf)],
    { cwd: join(tmp, "js"), timeoutMs: 120_000 },
  );
  if (r.status !== 0) throw new Error(`the mock runner failed: ${r.stderr}`);
  const results = JSON.parse(r.stdout) as Record<string, { types: string[]; found: string[] }>;
  counterExample = results[join(tmp, "js", "counter-example.js")];
  for (const f of provider) {
    const result = results[jsOf(f)];
    if (result) policyResults.set(f.block, result);
  }
}, 300_000);

afterAll(async () => {
  await Promise.all(emulators.map((e) => e.stop()));
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

/** `METHOD /_emulator/path` with each parameter as `*`, sorted and unique. */
const routeSet = (routes: Iterable<string>) =>
  [...new Set([...routes].map((r) => r.replace(/\/(?::\w+|\{\w+\}|[A-Z_]+)(?=\/|$)/g, "/*")))].sort();

describe("the emulator's control routes", () => {
  const served = routeSet(
    [
      ...readFileSync(join(ROOT, "emulator/control.ts"), "utf8").matchAll(
        /app\.(get|put|post|delete)\("([^"]+)"/g,
      ),
    ].map((m) => `${(m[1] as string).toUpperCase()} /_emulator${m[2]}`),
  );

  it("every route emulator/control.ts serves is in the README's table", () => {
    const readme = readFileSync(join(ROOT, "README.md"), "utf8");
    const listed = [...readme.matchAll(/^\| `(GET|PUT|POST|DELETE) (\/_emulator\/[^`?[\s]+)/gm)].map(
      (m) => `${m[1]} ${m[2]}`,
    );
    expect(routeSet(listed)).toEqual(served);
  });

  it("every route emulator/control.ts serves is in `flagstack emulator --help`", () => {
    const listed = [
      ...CONTROL_ROUTES_HELP.matchAll(/^ {2}(GET|PUT|POST|DELETE) +(\/_emulator\/[^\s?[]+)/gm),
    ].map((m) => `${m[1]} ${m[2]}`);
    expect(routeSet(listed)).toEqual(served);
    expect(helpOf(["emulator"])).toContain(CONTROL_ROUTES_HELP.trim());
  });
});

describe("documentation blocks", () => {
  it("every fenced block is TypeScript, JavaScript, shell, or data and output that is not run", () => {
    const unknown = ALL.filter(
      (b) => !isScript(b) && !SHELL_LANGS.has(b.lang) && !OTHER_LANGS.has(b.lang),
    ).map(nameOf);
    expect(unknown).toEqual([]);
    // Every opening fence of a checked language was parsed into a block (counted by a plain search).
    const checked = (b: Block) => isScript(b) || SHELL_LANGS.has(b.lang);
    for (const file of DOCS) {
      const fences = readFileSync(join(ROOT, file), "utf8").match(
        /^\s*(`{3,}|~{3,})(ts|typescript|js|javascript|sh|bash|shell)\b/gm,
      );
      expect(ALL.filter((b) => b.file === file && checked(b)).length, file).toBe(fences?.length ?? 0);
    }
  });

  it("the policy check finds the advisories the old README flag tripped", () => {
    expect(counterExample).toEqual({
      types: ["pulumi-nodejs:dynamic/flagstack:Flag"],
      found: [
        'flag-naming: flag name "new_checkout" does not match the pattern ^[a-z][a-z0-9]*(-[a-z0-9]+)*$',
        'flag-required-tags: flag "new_checkout" lacks the required tags "owner:*" (it has "checkout", "team-payments")',
      ],
    });
  });

  for (const block of ALL.filter(isScript)) {
    it(nameOf(block), async () => {
      const file = scriptFiles.get(block) as ScriptFile;
      expect(diagnostics.get(block)).toEqual([]);
      if (declaresResources(file) && !POLICY_EXEMPT.has(block.file)) {
        expect(policyResults.get(block)?.found).toEqual([]);
      }
      if (!runsAgainstEmulator(file)) return;
      const emu = await docEmulator();
      const cwd = blockDir(block);
      writeInputs(
        cwd,
        [...file.source.matchAll(/"([\w.-]+)"/g)].map((m) => m[1] as string),
      );
      const js = join(tmp, "js", `${file.path.split("/").pop()?.replace(/\.ts$/, "")}.js`);
      const { status, stdout, stderr } = await runAsync(process.execPath, [js], { cwd, env: envFor(emu) });
      expect(status, `stdout: ${stdout}\nstderr: ${stderr}`).toBe(0);
      const printed = stdout.split("\n");
      const wanted = [...block.code.matchAll(/\/\/ → (.*)$/gm)].map((m) => (m[1] as string).trim());
      let at = 0;
      for (const w of wanted) {
        const found = printed.indexOf(w, at);
        expect(found, `"${w}" in the output, after line ${at}:\n${stdout}`).toBeGreaterThanOrEqual(0);
        at = found + 1;
      }
    }, 120_000);
  }

  for (const block of ALL.filter((b) => SHELL_LANGS.has(b.lang))) {
    it(nameOf(block), async () => {
      const parsed = run("bash", ["-n"], { input: block.code });
      expect(parsed.stderr).toBe("");
      expect(parsed.status).toBe(0);
      const lines = logicalLines(block);
      const calls = lines.flatMap(invocations);
      for (const inv of calls)
        expect(unknownOptions(inv), `line ${inv.line.line}: ${inv.line.text}`).toEqual([]);

      const talksToEmulator = lines.some(
        (l) => l.words.some((w) => w.text.includes("127.0.0.1:8787")) && commandWords(l).includes("curl"),
      );
      const whole =
        talksToEmulator &&
        lines.every((l) => commandWords(l).every((c) => WHOLE_BLOCK_COMMANDS.has(c))) &&
        calls.every((c) => c.args[0] === "events" || c.args.includes("--help"));
      const cwd = blockDir(block);
      if (whole) {
        const emu = await docEmulator();
        writeInputs(
          cwd,
          lines.flatMap((l) => l.words.map((w) => w.text)),
        );
        const script = withEmulatorPort(asTyped(wholeBlockScript(lines)), emu);
        const r = await runAsync("bash", ["-c", script], { cwd, env: envFor(emu), timeoutMs: 120_000 });
        expect(r.status, `stdout: ${r.stdout}\nstderr: ${r.stderr}`).toBe(0);
        return;
      }
      let emu: Emulator | undefined;
      for (const inv of calls) {
        const command = commandOf(inv.args).join(" ");
        if (inv.args.includes("--help") || inv.args.includes("-h")) {
          const r = run(process.execPath, [CLI, ...inv.args]);
          expect(r.status).toBe(0);
          expect(r.stdout.startsWith(`Usage: flagstack ${command} `)).toBe(true);
        } else if (command === "emulator") {
          await runEmulatorCommand(inv, cwd);
        } else if (command === "events import") {
          emu ??= await docEmulator();
          await runImportLine(inv.line, emu, cwd);
        }
      }
    }, 180_000);
  }

  for (const block of ALL.filter(isWorkflow)) {
    it(`${nameOf(block)} (GitHub Actions workflow)`, () => {
      const workflow = parseYaml(block.code) as { jobs: Record<string, { steps: { run?: string }[] }> };
      const steps = Object.values(workflow.jobs).flatMap((j) => j.steps.filter((s) => s.run !== undefined));
      expect(steps.length).toBeGreaterThan(0);
      for (const step of steps) {
        const script = (step.run as string).replace(/\$\{\{[^}]*\}\}/g, "EXPR");
        const parsed = run("bash", ["-n"], { input: script });
        expect(parsed.stderr, script).toBe("");
        const stepBlock: Block = { ...block, lang: "sh", code: script };
        for (const inv of logicalLines(stepBlock).flatMap(invocations)) {
          expect(unknownOptions(inv), inv.line.text).toEqual([]);
        }
      }
    });
  }
});
