/**
 * What the program-side lookups (`provider/lookups.ts`, `provider/platform-lookups.ts`) share:
 * their settings, read in the program's process (where the provider's `configure` never runs)
 * from the lookup's options, else the stack config, else the provider's settings; and their
 * arguments, checked by a zod schema before any request.
 *
 * Not part of `./index.ts`: in a program it reads `@pulumi/pulumi/config`
 * (`./pulumi-runtime.ts`), which the provider process does not need.
 * @module
 */
import type { z } from "zod";
import { dotPath } from "./check";
import { type ProviderSettings, providerSettings, type SettingName } from "./config";
import { pulumiConfigValue } from "./pulumi-runtime";

/** The value of `flagstack:<name>` in the program's stack config; undefined outside a Pulumi program. */
function configValue(name: SettingName): string | undefined {
  return pulumiConfigValue("flagstack", name);
}

/**
 * The provider's settings with each of `names` taken from `options`, else from the stack config
 * (`flagstack:<name>`), else left as the provider's settings have it.
 */
export function lookupSettings<N extends SettingName>(
  options: Partial<Record<N, string>>,
  names: readonly N[],
): ProviderSettings {
  const settings = providerSettings();
  const chosen: Record<string, unknown> = { ...settings };
  for (const name of names) chosen[name] = options[name] ?? configValue(name) ?? settings[name];
  return chosen as ProviderSettings;
}

/** The lookup `fn`'s arguments parsed by `schema`; an Error naming `fn` and every field at fault. */
export function lookupArgs<S extends z.ZodType>(schema: S, args: unknown, fn: string): z.output<S> {
  const parsed = schema.safeParse(args);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((i) => `${dotPath(i.path) || "args"}: ${i.message}`);
  throw new Error(`${fn}: ${problems.join("; ")}`);
}
