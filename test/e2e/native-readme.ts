/**
 * The README's "Native provider" section declares one Flag and one FlagDefinition in TypeScript,
 * Python and YAML. Each language's e2e test (native-typescript, native-python, native-yaml) runs
 * its snippet as a program and checks that it declares exactly {@link README_NATIVE_INPUTS}, so
 * the three stay the same objects and each runs as written (test/docs/snippets.test.ts type-checks
 * only the TypeScript of the dynamic resources: these import an SDK generated per install).
 * @module
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { type EngineStack, REPO_ROOT } from "./harness";

/** The code of the section's one block of that fence language (TypeScript is fenced `text`: see the README). */
export function readmeNativeSnippet(lang: "text" | "python" | "yaml"): string {
  const readme = readFileSync(join(REPO_ROOT, "README.md"), "utf8");
  const start = readme.indexOf("\n## Native provider");
  const end = readme.indexOf("\n## ", start + 1);
  if (start < 0 || end < 0) throw new Error("README.md: no Native provider section");
  const blocks = [...readme.slice(start, end).matchAll(/^```(\w+)\n([\s\S]*?)^```$/gm)].filter(
    (m) => m[1] === lang,
  );
  if (blocks.length !== 1) throw new Error(`README.md Native provider: ${blocks.length} ${lang} blocks`);
  return blocks[0]?.[2] as string;
}

/** What the README's snippets declare, as the engine records the checked inputs (schema defaults filled in). */
export const README_NATIVE_INPUTS = {
  checkout: {
    type: "flagstack:index:Flag",
    inputs: {
      workspace: "Default",
      trafficType: "user",
      name: "new-checkout",
      description: "",
      tags: ["owner:payments"],
      rolloutStatus: "Ramping",
      adopt: false,
    },
  },
  checkoutProduction: {
    type: "flagstack:index:FlagDefinition",
    inputs: {
      workspace: "Default",
      flag: "new-checkout",
      environment: "Production",
      treatments: [{ name: "on", keys: ["qa-bot", "alice@example.com"] }, { name: "off" }],
      defaultTreatment: "off",
      trafficAllocation: 100,
      rules: [],
      defaultRule: [
        { treatment: "on", size: 10 },
        { treatment: "off", size: 90 },
      ],
      killed: false,
      adopt: false,
    },
  },
};

/**
 * `pulumi up` of the stack, then the inputs the state records for each flagstack resource, by
 * resource name (the last part of its URN).
 */
export async function declaredInputs(
  s: EngineStack,
): Promise<Record<string, { type: string; inputs: Record<string, unknown> }>> {
  await s.up();
  const state = JSON.parse(await s.exportText()) as {
    deployment: { resources?: { type: string; urn: string; inputs?: Record<string, unknown> }[] };
  };
  const out: Record<string, { type: string; inputs: Record<string, unknown> }> = {};
  for (const r of state.deployment.resources ?? []) {
    if (!r.type.startsWith("flagstack:index:")) continue;
    out[r.urn.slice(r.urn.lastIndexOf("::") + 2)] = { type: r.type, inputs: r.inputs ?? {} };
  }
  return out;
}
