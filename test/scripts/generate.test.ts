import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ENTITY_PARTS } from "../../emulator/platform/entity-parts";
import { ENTITY_KINDS, ENTITY_PARENTS } from "../../emulator/store/entity-kinds";
import type { Kind } from "../../provider/core/kind";
import { KIND_LIST } from "../../provider/kinds";

import { NATIVE_FUNCTIONS } from "../../provider/native/functions";
import { committedText, exportedNames, GENERATED, ROOT, regenerate } from "../../scripts/generate";
import { hclExample, KIND_END, kindBegin, kindSection, NEW_KINDS, tsExample } from "../../scripts/kind-docs";
import { AdminClient } from "../../sdk/admin/client";
import { ADMIN_PARTS } from "../../sdk/admin/parts";
import { PlatformClient } from "../../sdk/platform/client";
import { PLATFORM_PARTS } from "../../sdk/platform/parts";

describe("scripts/generate: what is derived from the list of kinds", () => {
  it.each(GENERATED.map((g) => [g.file, g]))(
    "%s is current (`npm run generate` to update it)",
    (file, part) => {
      const committed = committedText(file);
      expect(regenerate(part, committed, KIND_LIST)).toBe(committed);
    },
  );

  it("the README table has one row per kind, in the list's order, with its import id", () => {
    const readme = readFileSync(join(ROOT, "README.md"), "utf8");
    const rows = [...readme.matchAll(/^\| `(\w+)` \| .* \| (`[^`]+` \(`[^`]+`\)|none) \|/gm)];
    expect(rows.map((r) => r[1])).toEqual(KIND_LIST.map((k) => k.name));
    expect(rows.find((r) => r[1] === "Flag")?.[2]).toBe("`<workspace>/<name>` (`Default/new-checkout`)");
    expect(rows.find((r) => r[1] === "ApiKey")?.[2]).toBe("none");
  });

  it("a kind added to the list gets its row and its module's exports without another edit", () => {
    const readme = GENERATED.find((g) => g.file === "README.md")!;
    const flag = KIND_LIST.find((k) => k.name === "Flag")!;
    const extra: Kind = {
      ...flag,
      name: "Thing",
      doc: { what: "a thing | with a bar", replaces: "name", updates: "" },
      importId: { form: "<name>", example: "t1" },
    };
    const text = regenerate(readme, readFileSync(join(ROOT, "README.md"), "utf8"), [...KIND_LIST, extra]);
    expect(text).toContain("| `Thing` | a thing \\| with a bar | `<name>` (`t1`) | name |  |\n");
  });

  it("exportedNames: values, types, re-exports; a schema and its type once; never impl, kind or @internal", () => {
    const source = [
      "export const FooInputs = z.object({});",
      "export type FooInputs = z.output<typeof FooInputs>;",
      "export type FooArgs = ResourceArgs<FooInputs>;",
      "export interface FooOptions {}",
      "export function fooYaml() {}",
      "export async function later() {}",
      "export const impl = {};",
      "export const kind = defineKind({});",
      'export { a, b as c, type D } from "./x";',
      'export type { E } from "./y";',
      "  export const indented = 1;",
      "/**\n * A helper of the module's neighbours.\n * @internal\n */",
      "export function hidden() {}",
      "/** @internal */",
      'export { alsoHidden } from "./z";',
      "/** Public, after an internal one. */",
      "export const shown = 1;",
    ].join("\n");
    expect(exportedNames(source)).toEqual([
      "FooInputs",
      "type FooArgs",
      "type FooOptions",
      "fooYaml",
      "later",
      "shown",
      "a",
      "c",
      "type D",
      "type E",
    ]);
  });

  describe("each kind's reference docs, from its definition", () => {
    const kindOf = (name: string) => KIND_LIST.find((k) => k.name === name) as Kind;
    const page = (k: Kind) => `docs/${k.area === "flags" ? "flag" : "platform"}-resources.md`;

    it("each kind has exactly one generated section, in its area's page", () => {
      for (const k of KIND_LIST) {
        const text = readFileSync(join(ROOT, page(k)), "utf8");
        expect({ kind: k.name, sections: text.split(kindBegin(k.name)).length - 1 }).toEqual({
          kind: k.name,
          sections: 1,
        });
      }
    });

    it("a section shows the example, every input with its marks, and the import id", () => {
      const section = kindSection(kindOf("Secret"), KIND_LIST);
      expect(section).toContain("| `value` | string |  | yes |  | ");
      expect(section).toContain("| `identifier` | string | yes |  | yes | ");
      expect(section).toContain(
        "Import id: `[<org>/[<project>/]]<identifier>` (`default/payments/db_password`).",
      );
      expect(section).toContain('```ts generated\nimport { Project, Secret } from "flagstack/provider";\n');
      const apiKey = kindSection(kindOf("ApiKey"), KIND_LIST);
      expect(apiKey).toContain("Import id: none (the API cannot show the object again).");
      expect(apiKey).toMatch(/\| `key` \| string \| yes \| /);
    });

    it("the example declares the objects it names first, and names their outputs", () => {
      expect(tsExample(kindOf("Restriction"), KIND_LIST)).toBe(
        [
          'import { Group, Restriction, Workspace } from "flagstack/provider";',
          "",
          'const workspace = new Workspace("payments", { name: "payments" });',
          'const group = new Group("payments-team", { name: "payments-team", description: "The payments team" });',
          'new Restriction("restriction", { workspace: workspace.name, viewers: [{ type: "group", id: group.groupId }] });',
          "",
        ].join("\n"),
      );
      expect(hclExample(kindOf("Restriction"), KIND_LIST)).toBe(
        [
          'resource "flagstack_workspace" "payments" {',
          '  name = "payments"',
          "}",
          "",
          'resource "flagstack_group" "payments_team" {',
          '  name        = "payments-team"',
          '  description = "The payments team"',
          "}",
          "",
          'resource "flagstack_restriction" "restriction" {',
          "  workspace = flagstack_workspace.payments.name",
          '  viewers   = [{ type = "group", id = flagstack_group.payments_team.group_id }]',
          "}",
          "",
        ].join("\n"),
      );
    });

    it("a changed example changes its section: the docs follow the definition", () => {
      const flag = kindOf("Flag");
      const changed = {
        ...flag,
        example: { ...flag.example!, inputs: { ...flag.example!.inputs, name: "other-flag" } },
      };
      const docs = GENERATED.find((g) => g.file === "docs/flag-resources.md")!;
      const text = readFileSync(join(ROOT, docs.file), "utf8");
      const next = regenerate(
        docs,
        text,
        KIND_LIST.map((k) => (k === flag ? changed : k)),
      );
      expect(next).not.toBe(text);
      expect(next.replaceAll('"other-flag"', '"new-checkout"')).toBe(text);
    });

    it("a kind added to the list gets a section before the new kinds' marker without another edit", () => {
      const docs = GENERATED.find((g) => g.file === "docs/flag-resources.md")!;
      const text = readFileSync(join(ROOT, docs.file), "utf8");
      const thing: Kind = { ...kindOf("Flag"), name: "Thing" };
      const next = regenerate(docs, text, [...KIND_LIST, thing]);
      const at = next.indexOf(`## Thing\n\n${kindBegin("Thing")}`);
      expect(at).toBeGreaterThan(0);
      expect(next.indexOf(KIND_END, at)).toBeLessThan(next.indexOf(NEW_KINDS));
      expect(next.indexOf(NEW_KINDS)).toBeGreaterThan(at);
    });

    it("the Terraform pages: an index, one page per resource and one per data source", () => {
      const files = GENERATED.map((g) => g.file).filter((f) => f.startsWith("docs/terraform/"));
      expect(files.filter((f) => f.includes("/resources/")).length).toBe(KIND_LIST.length);
      expect(files.filter((f) => f.includes("/data-sources/")).length).toBe(NATIVE_FUNCTIONS.length);
      expect(files).toContain("docs/terraform/resources/flag_definition.md");
      expect(files).toContain("docs/terraform/data-sources/workspace.md");
      const index = readFileSync(join(ROOT, "docs/terraform/index.md"), "utf8");
      expect(index).toContain("| `admin_api_key` | String, Sensitive | `FLAGSTACK_ADMIN_API_KEY` | ");
      for (const f of files.filter((x) => x !== "docs/terraform/index.md"))
        expect(index).toContain(`](${f.slice("docs/terraform/".length)})`);
      const flag = readFileSync(join(ROOT, "docs/terraform/resources/flag.md"), "utf8");
      expect(flag).toContain(
        'import {\n  to = flagstack_flag.new_checkout\n  id = "Default/new-checkout"\n}',
      );
      expect(flag).toContain("- `name` (String) The flag's name, unique in the workspace.");
      const apiKey = readFileSync(join(ROOT, "docs/terraform/resources/api_key.md"), "utf8");
      expect(apiKey).toMatch(/- `key` \(String, Sensitive\) /);
    });
  });
});

describe("scripts/generate: the SDK's and the emulator's part lists, from the files present", () => {
  /** The first capture of `pattern` in each file of `dir` that has it, in file order. */
  const declared = (dir: string, pattern: RegExp) =>
    readdirSync(join(ROOT, dir))
      .filter((f) => f.endsWith(".ts"))
      .sort()
      .flatMap((f) => pattern.exec(readFileSync(join(ROOT, dir, f), "utf8"))?.[1] ?? []);

  it("the platform client has one typed member per part file of sdk/platform/", () => {
    const client = new PlatformClient({
      baseUrl: "http://127.0.0.1:1",
      apiKey: "k",
      accountId: "a",
      env: {},
    });
    const names = declared("sdk/platform", /^export const part = platformPart\("(\w+)"/m);
    expect(names.slice(0, 4)).toEqual(["environments", "environmentGroups", "infrastructures", "inputSets"]);
    expect(PLATFORM_PARTS.map((p) => p.name)).toEqual(names);
    // Typed: a member the parts do not declare is a compile error here, so this names two.
    expect([typeof client.environmentGroups.create, typeof client.triggers.list]).toEqual([
      "function",
      "function",
    ]);
    for (const p of PLATFORM_PARTS) {
      expect(typeof (client as unknown as Record<string, { create: unknown }>)[p.name]?.create, p.name).toBe(
        "function",
      );
    }
  });

  it("the admin client has one typed member per part file of sdk/admin/, made on the client's one HTTP core", () => {
    const admin = new AdminClient({ baseUrl: "http://127.0.0.1:1", apiKey: "k", env: {} });
    const names = declared("sdk/admin", /^export const part = adminPart\("(\w+)"/m);
    expect(names).toEqual([
      "apiKeys",
      "changeRequests",
      "environments",
      "definitions",
      "flagSets",
      "flags",
      "groups",
      "largeSegments",
      "restrictions",
      "rolloutStatuses",
      "ruleBasedSegments",
      "segmentKeys",
      "segments",
      "attributes",
      "trafficTypes",
      "users",
      "workspaces",
    ]);
    expect(ADMIN_PARTS.map((p) => p.name)).toEqual(names);
    // Typed: a member the parts do not declare is a compile error here, so this names two.
    expect([typeof admin.definitions.kill, typeof admin.segmentKeys.add]).toEqual(["function", "function"]);
    const members = admin as unknown as Record<string, { constructor: { name: string } }>;
    expect(Object.fromEntries(names.map((n) => [n, members[n]?.constructor.name]))).toEqual({
      apiKeys: "ApiKeysApi",
      changeRequests: "ChangeRequestsApi",
      environments: "EnvironmentsApi",
      definitions: "DefinitionsApi",
      flagSets: "FlagSetsApi",
      flags: "FlagsApi",
      groups: "GroupsApi",
      largeSegments: "LargeSegmentsApi",
      restrictions: "RestrictionsApi",
      rolloutStatuses: "RolloutStatusesApi",
      ruleBasedSegments: "RuleBasedSegmentsApi",
      segmentKeys: "SegmentKeysApi",
      segments: "SegmentsApi",
      attributes: "AttributesApi",
      trafficTypes: "TrafficTypesApi",
      users: "UsersApi",
      workspaces: "WorkspacesApi",
    });
  });

  it("each platform part's one-line TSDoc documents its member of the client (sdk/platform/parts.ts)", () => {
    const parts = readFileSync(join(ROOT, "sdk/platform/parts.ts"), "utf8");
    expect(parts).toContain(
      "export interface PlatformParts {\n  /** Platform environments (v2). */\n  readonly environments:",
    );
    expect(parts).toContain(
      "  /** Triggers of pipelines. */\n  readonly triggers: PartApi<typeof trigger>;\n",
    );
  });

  it("each admin part's one-line TSDoc documents its member of the client (sdk/admin/parts.ts)", () => {
    const parts = readFileSync(join(ROOT, "sdk/admin/parts.ts"), "utf8");
    expect(parts).toContain(
      "  /** Per-environment definitions, kill and restore. */\n  readonly definitions: PartApi<typeof flagDefinition>;\n",
    );
    expect(parts).toContain(
      "  /** Workspaces (projects). */\n  readonly workspaces: PartApi<typeof workspace>;\n",
    );
  });

  it("the emulator serves one part per file of emulator/platform/ that exports one, and the store keeps their kinds", () => {
    const kinds = declared(
      "emulator/platform",
      /^export const part = (?:entity\.)?entityPart\(\{\s*kind: "(\w+)"/m,
    );
    expect(ENTITY_PARTS.map((p) => p.kind)).toEqual(kinds);
    expect([...ENTITY_KINDS]).toEqual(kinds);
    expect(
      ENTITY_PARTS.filter((p) => p.kind === "environmentGroup" || p.kind === "infrastructure").map((p) => [
        p.kind,
        p.path,
        p.parent ?? null,
      ]),
    ).toEqual([
      ["environmentGroup", "/ng/api/environmentGroup", null],
      ["infrastructure", "/ng/api/infrastructures", "environment"],
    ]);
    expect(ENTITY_PARENTS).toEqual({
      infrastructure: "environment",
      inputSet: "pipeline",
      trigger: "pipeline",
    });
  });
});
